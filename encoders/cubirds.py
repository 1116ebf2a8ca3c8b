"""Cubirds encoder: a player's view as a fixed-size float32 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn order.
Values are raw card counts stored as int8 (all fit: the deck has 110 cards); each piece's upper
bound is in the observation space. The count of cards a player cannot locate is not a piece of its
own: it is a linear function of the pieces (deck counts minus everything visible).
The size depends only on the player count N: ``277 + 18 N`` (see :meth:`CubirdsEncoder.describe`).

Rows are stored as blocks: thanks to the contiguous-block invariant (rules spec §4.1) a row is a
sequence of at most 8 single-species blocks, so ``rows[r, b, s]`` = size of the ``b``-th block from
the left of row ``r`` if that block is species ``s``, else 0. This keeps order (which decides
captures) and counts in one piece.

Everything here is a function of ``State.view(player)`` (checked by the conformance suite, which
resamples all hidden cards and requires the same vector); for speed it reads the same fields off the
state directly instead of building the view.
"""

from __future__ import annotations

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.cubirds.data import CARD_COUNTS, NUM_ROWS, NUM_SPECIES, TOTAL_CARDS
from cardzoo.envs.cubirds.game import (
    LAY_PHASE,
    MOVE_INDEX,
    MOVES,
    Config,
    State,
    row_blocks,
)

_MAX_SPECIES = max(CARD_COUNTS)


class CubirdsEncoder(Encoder):
    """The default Cubirds encoder (``"default"``, version 1): int8 card counts."""

    game = "cubirds"
    name = "default"
    version = "1"
    dtype = np.int8

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        n = self.num_players
        s = NUM_SPECIES
        self._phase = self.piece("phase", 3, 1, "one-hot decision to make: lay, draw, flock")
        self._to_act = self.piece("to_act", n, 1, "one-hot relative seat of the player to act")
        self._hand = self.piece("my_hand", s, _MAX_SPECIES, "cards of each species in my hand")
        self._sizes = self.piece("hand_sizes", n, TOTAL_CARDS, "hand size of each seat")
        self._known = self.piece(
            "known_hands", (n, s), _MAX_SPECIES, "cards publicly known to be in each hand"
        )
        self._coll = self.piece("collections", (n, s), _MAX_SPECIES, "each seat's collection")
        self._rows = self.piece(
            "rows",
            (NUM_ROWS, s, s),
            _MAX_SPECIES,
            "rows[r,b,s]: size of block b of row r if species s",
        )
        self._draw = self.piece("draw_size", 1, TOTAL_CARDS, "cards in the draw pile")
        self._disc = self.piece("discard_size", 1, TOTAL_CARDS, "cards in the discard pile")
        self._seen = self.piece(
            "discard_seen", s, _MAX_SPECIES, "discard-pile cards whose species was revealed"
        )
        # Write offsets of each seat's per-seat entries, by observer (no modulo on the hot path).
        self._seat_offsets = [[((q - p) % n) for q in range(n)] for p in range(n)]
        self._row_cache: dict[tuple[int, ...], bytes] = {}
        self._lay_masks: dict[bytes, bytes] = {}

    def mask(self, state: State) -> np.ndarray:
        # In the lay phase the legal lays depend only on which species are in hand: 256 masks.
        if state.phase != LAY_PHASE:
            return super().mask(state)
        key = bytes(state.hands[state.current_player]).translate(_PRESENT)
        mask = self._lay_masks.get(key)
        if mask is None:
            mask = self._lay_masks[key] = bytes(super().mask(state))
        return np.frombuffer(bytearray(mask), dtype=np.int8)

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        # Count pieces are copied as whole byte strings (one memcpy each) rather than per entry.
        phase = state.phase
        if phase < 3:
            buf[self._phase + phase] = 1
            buf[self._to_act + self._seat_offsets[player][state.current_player]] = 1
        o = self._hand
        buf[o : o + NUM_SPECIES] = bytes(state.hands[player])
        o_sizes, o_known, o_coll = self._sizes, self._known, self._coll
        hand_sizes, known, collections = state.hand_sizes, state.known, state.collections
        for q, rel in enumerate(self._seat_offsets[player]):
            buf[o_sizes + rel] = hand_sizes[q]
            o = o_known + rel * NUM_SPECIES
            buf[o : o + NUM_SPECIES] = bytes(known[q])
            o = o_coll + rel * NUM_SPECIES
            buf[o : o + NUM_SPECIES] = bytes(collections[q])
        o = self._rows
        cache = self._row_cache
        for row in state.rows:
            key = tuple(row)
            block = cache.get(key)
            if block is None:
                block = cache[key] = _row_blocks(key)
                if len(cache) > _ROW_CACHE_SIZE:
                    cache.clear()
            buf[o : o + _ROW_SIZE] = block
            o += _ROW_SIZE
        buf[self._draw] = len(state.draw)
        buf[self._disc] = state.discard_size
        o = self._seen
        buf[o : o + NUM_SPECIES] = bytes(state.discard_public)


_ROW_SIZE = NUM_SPECIES * NUM_SPECIES
_PRESENT = bytes([0] + [1] * 255)  # bytes.translate table: a count -> 1 if nonzero
_ROW_CACHE_SIZE = 4096  # rows seen recently (a game shows a few hundred); bounds memory


def _row_blocks(row: tuple[int, ...]) -> bytes:
    """The ``rows[r]`` piece of one row: block b (from the left), species s -> block size.

    Only built on a cache miss, so it can afford the engine's ``row_blocks``.
    """
    piece = bytearray(_ROW_SIZE)
    for b, (s, count) in enumerate(row_blocks(row)):
        piece[b * NUM_SPECIES + s] = count
    return bytes(piece)


ENCODERS = {"default": CubirdsEncoder}
