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
    """One named slice of a flat vector."""

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


class Layout:
    """A flat vector made of named pieces, and the preallocated buffer it is written into.

    The observation and the global (full-information) state of an encoder are one layout each.
    """

    def __init__(self, title: str, dtype: type) -> None:
        self.title = title
        self.dtype = dtype
        self.pieces: dict[str, Piece] = {}
        self.size = 0
        self._buf: array.array | bytearray | None = None
        self._vec: np.ndarray | None = None
        self._high: np.ndarray | None = None

    def piece(self, name: str, shape: int | tuple[int, ...], high: float, meaning: str) -> int:
        """Append a named piece; returns its start offset (encoders keep it for fast writes)."""
        if self._buf is not None:
            raise RuntimeError("pieces must be declared before the first encode")
        if name in self.pieces:
            raise ValueError(f"duplicate piece name {name!r}")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        p = Piece(name, self.size, shape, float(high), meaning)
        self.pieces[name] = p
        self.size += p.size
        self._high = None
        return p.start

    @property
    def slices(self) -> dict[str, slice]:
        return {name: p.slice for name, p in self.pieces.items()}

    @property
    def high(self) -> np.ndarray:
        """Upper bound of every entry (read-only; built once)."""
        if self._high is None:
            high = np.zeros(self.size, dtype=self.dtype)
            for p in self.pieces.values():
                high[p.slice] = p.high
            high.flags.writeable = False
            self._high = high
        return self._high

    def describe(self) -> str:
        kind = np.dtype(self.dtype).name
        lines = [f"{self.title}: {self.size} {kind} values"]
        for p in self.pieces.values():
            shape = "x".join(str(d) for d in p.shape)
            lines.append(
                f"  [{p.start:4d}:{p.start + p.size:4d}] {p.name:<18} {shape:<8} "
                f"0..{p.high:g}  {p.meaning}"
            )
        return "\n".join(lines)

    def split(self, vec: np.ndarray | dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        if isinstance(vec, dict):
            if "observation" not in vec:
                raise ValueError(
                    "expected a vector or an observation dict with an 'observation' entry, "
                    f"got a dict with keys {sorted(vec)}"
                )
            vec = vec["observation"]
        vec = np.asarray(vec)
        if vec.shape != (self.size,):
            raise ValueError(f"expected a vector of shape ({self.size},), got {vec.shape}")
        return {name: vec[p.slice].reshape(p.shape) for name, p in self.pieces.items()}

    def __getstate__(self) -> dict[str, Any]:
        # The vector shares memory with the buffer; a copy would not: rebuild both after loading.
        return {**self.__dict__, "_buf": None, "_vec": None}

    def zeroed_buffer(self) -> tuple[array.array | bytearray, np.ndarray]:
        """The zeroed write buffer and the numpy vector sharing its memory."""
        if self._buf is None:
            if self.dtype is np.int8:
                self._buf = bytearray(self.size)
            else:
                self._buf = array.array("f", bytes(4 * self.size))
            self._vec = np.frombuffer(self._buf, dtype=self.dtype)
        else:
            self._vec.fill(0)
        return self._buf, self._vec


class Encoder(ABC):
    """Base class of all encoders. Instances are cheap; the env owns one.

    Two layouts: the observation (:meth:`piece`, :meth:`encode_into`: what one player may see)
    and the global state (:meth:`state_piece`, :meth:`state_into`: everything, for centralised
    critics; PettingZoo's ``state()``).
    """

    #: Game name (e.g. ``"cubirds"``) and encoder name/version, reported in env metadata.
    game: str = ""
    name: str = "default"
    version: str = "0"
    #: ``np.int8`` (small counts: cheapest) or ``np.float32``.
    dtype: type = np.float32

    #: True when :meth:`mask` is this base class's (action ids are move ids, legal = 1); set
    #: per subclass. :meth:`mask_to` then writes the legal ids straight into the row.
    mask_is_legal_ids: bool = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.mask_is_legal_ids = cls.mask is Encoder.mask

    def __init__(self, config: Any, moves: Sequence[Any], move_index: dict[Any, int]) -> None:
        self.config = config
        self.num_players: int = config.num_players
        self.moves = tuple(moves)
        self.move_index = move_index
        self.num_actions = len(self.moves)
        self.layout = Layout(f"{self.game} encoder {self.name!r} v{self.version}", self.dtype)
        self.state_layout = Layout(
            f"{self.game} global state (encoder {self.name!r} v{self.version})", self.dtype
        )

    # -- declaring the layouts ------------------------------------------------------------------

    def piece(self, name: str, shape: int | tuple[int, ...], high: float, meaning: str) -> int:
        """Append a named observation piece; returns its start offset."""
        return self.layout.piece(name, shape, high, meaning)

    def state_piece(
        self, name: str, shape: int | tuple[int, ...], high: float, meaning: str
    ) -> int:
        """Append a named piece of the global-state vector; returns its start offset."""
        return self.state_layout.piece(name, shape, high, meaning)

    @property
    def pieces(self) -> dict[str, Piece]:
        return self.layout.pieces

    @property
    def size(self) -> int:
        return self.layout.size

    @property
    def slices(self) -> dict[str, slice]:
        """Piece name -> slice of the flat observation vector."""
        return self.layout.slices

    @property
    def high(self) -> np.ndarray:
        """Upper bound of every observation entry (the lower bound is 0)."""
        return self.layout.high

    def describe(self) -> str:
        """The observation's pieces as a table (offsets, shapes, bounds, meanings): a string."""
        return self.layout.describe()

    def split(self, obs: np.ndarray | dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Named views into an observation: the vector, or the env's observation dict."""
        return self.layout.split(obs)

    @property
    def state_size(self) -> int:
        return self.state_layout.size

    @property
    def state_high(self) -> np.ndarray:
        return self.state_layout.high

    def describe_state(self) -> str:
        """The global-state vector's pieces as a table: a string."""
        return self.state_layout.describe()

    def split_state(self, vec: np.ndarray) -> dict[str, np.ndarray]:
        """Named views into a global-state vector."""
        return self.state_layout.split(vec)

    # -- encoding -------------------------------------------------------------------------------

    def encode(self, state: Any, player: int) -> np.ndarray:
        """A fresh observation of ``state`` as seen by seat ``player``."""
        buf, vec = self.layout.zeroed_buffer()
        self.encode_into(state, player, buf)
        return vec.copy()

    def encode_to(self, state: Any, player: int, out: np.ndarray) -> np.ndarray:
        """Write the observation of ``state`` for seat ``player`` into ``out`` (a vector of
        length ``self.size``, e.g. one row of a batch array) and return ``out``.

        The batched envs use it to fill preallocated ``(K, size)`` arrays without a copy each.
        """
        buf, vec = self.layout.zeroed_buffer()
        self.encode_into(state, player, buf)
        out[:] = vec
        return out

    @abstractmethod
    def encode_into(self, state: Any, player: int, buf: array.array | bytearray) -> None:
        """Write the observation into the zeroed buffer ``buf`` (length ``self.size``)."""

    def encode_state(self, state: Any) -> np.ndarray:
        """A fresh global-state vector: everything, hidden cards included (not an observation)."""
        buf, vec = self.state_layout.zeroed_buffer()
        self.state_into(state, buf)
        return vec.copy()

    def state_into(self, state: Any, buf: array.array | bytearray) -> None:
        """Write the global state into the zeroed buffer ``buf`` (length ``self.state_size``).

        Seats are absolute here (seat 0 first), with the player to act one-hot.
        """
        raise NotImplementedError(f"{type(self).__name__} has no global-state layout yet")

    def mask(self, state: Any) -> np.ndarray:
        """int8 mask over action ids: 1 for the legal moves of the player to act."""
        mask = bytearray(self.num_actions)
        if not state.terminal:
            for a in state.legal_move_ids():
                mask[a] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def mask_to(self, state: Any, out: np.ndarray) -> np.ndarray:
        """Write :meth:`mask` of ``state`` into ``out`` (an int8 vector of length
        ``num_actions``, e.g. one row of a batch array) and return ``out``."""
        if self.mask_is_legal_ids:  # no temporary mask: set the legal ids in place
            out.fill(0)
            if not state.terminal:
                out[state.legal_move_ids()] = 1
        else:
            out[:] = self.mask(state)
        return out

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
