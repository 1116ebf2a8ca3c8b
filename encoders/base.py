"""What every encoder shares: named slices ("pieces") of a flat observation vector.

An encoder turns what one player may see into a fixed-size vector and produces the action mask.
Its vector is a concatenation of named pieces, each with a shape and a one-line meaning, so that a
reader (or a test) can write ``encoder.split(obs)["my_hand"]`` instead of ``obs[17:25]``.

Action ids are the game's move ids (``MOVES`` of the rules engine): an encoder never builds move
objects on the hot path, and ``action_to_move`` / ``move_to_action`` translate for humans.

Subclasses declare their pieces in ``__init__`` with :meth:`Encoder.piece` and implement
:meth:`Encoder.encode_into`, which writes into a zeroed, preallocated buffer ``buf`` that shares
memory with the numpy vector: a ``bytearray`` for ``int8`` encoders, an ``array("f")`` for
``float32`` ones. Scalar writes to these are several times cheaper than numpy item assignment, and
the vector handed out is one ``copy()`` of it.
"""

from __future__ import annotations

import array
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Piece:
    """One named slice of the observation vector."""

    name: str
    start: int
    shape: tuple[int, ...]
    high: float
    meaning: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


class Encoder(ABC):
    """Base class of all encoders. Instances are cheap; the env owns one."""

    #: Game name (e.g. ``"cubirds"``) and encoder name/version, reported in env metadata.
    game: str = ""
    name: str = "default"
    version: str = "0"
    #: ``np.int8`` (small counts: cheapest) or ``np.float32``.
    dtype: type = np.float32

    def __init__(self, config: Any, moves: Sequence[Any], move_index: dict[Any, int]) -> None:
        self.config = config
        self.num_players: int = config.num_players
        self.moves = tuple(moves)
        self.move_index = move_index
        self.num_actions = len(self.moves)
        self.pieces: dict[str, Piece] = {}
        self.size = 0
        self._buf: array.array | bytearray | None = None
        self._vec: np.ndarray | None = None

    # -- declaring the layout -------------------------------------------------------------------

    def piece(self, name: str, shape: int | tuple[int, ...], high: float, meaning: str) -> int:
        """Append a named piece; returns its start offset (subclasses keep it for fast writes)."""
        if self._buf is not None:
            raise RuntimeError("pieces must be declared before the first encode")
        if name in self.pieces:
            raise ValueError(f"duplicate piece name {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        p = Piece(name, self.size, shape, float(high), meaning)
        self.pieces[name] = p
        self.size += p.size
        return p.start

    @property
    def slices(self) -> dict[str, slice]:
        """Piece name -> slice of the flat vector."""
        return {name: p.slice for name, p in self.pieces.items()}

    @property
    def high(self) -> np.ndarray:
        """Upper bound of every entry (the lower bound is 0), for the observation space."""
        high = np.zeros(self.size, dtype=self.dtype)
        for p in self.pieces.values():
            high[p.slice] = p.high
        return high

    def describe(self) -> str:
        """A table of the pieces: offsets, shapes, bounds and meanings."""
        kind = np.dtype(self.dtype).name
        lines = [f"{self.game} encoder {self.name!r} v{self.version}: {self.size} {kind} values"]
        for p in self.pieces.values():
            shape = "x".join(str(d) for d in p.shape)
            lines.append(
                f"  [{p.start:4d}:{p.start + p.size:4d}] {p.name:<18} {shape:<8} "
                f"0..{p.high:g}  {p.meaning}"
            )
        return "\n".join(lines)

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into an observation vector, each reshaped to its piece's shape."""
        if obs.shape != (self.size,):
            raise ValueError(f"expected an observation of shape ({self.size},), got {obs.shape}")
        return {name: obs[p.slice].reshape(p.shape) for name, p in self.pieces.items()}

    # -- encoding -------------------------------------------------------------------------------

    def encode(self, state: Any, player: int) -> np.ndarray:
        """A fresh observation of ``state`` as seen by seat ``player``."""
        if self._buf is None:
            if self.dtype is np.int8:
                self._buf = bytearray(self.size)
            else:
                self._buf = array.array("f", bytes(4 * self.size))
            self._vec = np.frombuffer(self._buf, dtype=self.dtype)
        vec = self._vec
        vec.fill(0)
        self.encode_into(state, player, self._buf)
        return vec.copy()

    @abstractmethod
    def encode_into(self, state: Any, player: int, buf: array.array | bytearray) -> None:
        """Write the observation into the zeroed buffer ``buf`` (length ``self.size``)."""

    def mask(self, state: Any) -> np.ndarray:
        """int8 mask over action ids: 1 for the legal moves of the player to act."""
        mask = bytearray(self.num_actions)
        if not state.terminal:
            for a in state.legal_move_ids():
                mask[a] = 1
        return np.frombuffer(mask, dtype=np.int8)

    # -- actions --------------------------------------------------------------------------------

    def action_to_move(self, action: int) -> Any:
        """The move an action id stands for."""
        return self.moves[action]

    def move_to_action(self, move: Any) -> int:
        """The action id of a move."""
        return self.move_index[move]

    def relative_seats(self, player: int) -> list[int]:
        """Seats in observation order: ``player`` first, then the others in turn order."""
        n = self.num_players
        return [(player + i) % n for i in range(n)]
