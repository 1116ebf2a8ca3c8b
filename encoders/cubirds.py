"""Cubirds encoder: a player's view as a fixed-size float32 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn order.
Counts are raw card counts (not normalised); each piece's upper bound is in the observation space.
The size depends only on the player count N: ``285 + 18 N`` (see :meth:`CubirdsEncoder.describe`).

Rows are stored as blocks: thanks to the contiguous-block invariant (rules spec §4.1) a row is a
sequence of at most 8 single-species blocks, so ``rows[r, b, s]`` = size of the ``b``-th block from
the left of row ``r`` if that block is species ``s``, else 0. This keeps order (which decides
captures) and counts in one piece.

Everything here is a function of ``State.view(player)`` (checked by the conformance suite, which
resamples all hidden cards and requires the same vector); for speed it reads the same fields off the
state directly instead of building the view.
"""

from __future__ import annotations

import array

from cardzoo.encoders.base import Encoder
from cardzoo.envs.cubirds.data import CARD_COUNTS, NUM_ROWS, NUM_SPECIES, TOTAL_CARDS
from cardzoo.envs.cubirds.game import MOVE_INDEX, MOVES, Config, State

_MAX_SPECIES = max(CARD_COUNTS)


class CubirdsEncoder(Encoder):
    """The default Cubirds encoder (``"default"``, version 1)."""

    game = "cubirds"
    name = "default"
    version = "1"

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
        self._unseen = self.piece(
            "unseen", s, _MAX_SPECIES, "cards of each species whose place I cannot know"
        )

    def encode_into(self, state: State, player: int, buf: array.array) -> None:
        n = self.num_players
        phase = state.phase
        if phase < 3:
            buf[self._phase + phase] = 1.0
            buf[self._to_act + (state.current_player - player) % n] = 1.0
        unseen = list(CARD_COUNTS)
        hand = state.hands[player]
        o = self._hand
        for s in range(NUM_SPECIES):
            c = hand[s]
            if c:
                buf[o + s] = c
                unseen[s] -= c
        o_sizes, o_known, o_coll = self._sizes, self._known, self._coll
        for q in range(n):
            rel = (q - player) % n
            buf[o_sizes + rel] = state.hand_sizes[q]
            known = state.known[q]
            coll = state.collections[q]
            base = rel * NUM_SPECIES
            for s in range(NUM_SPECIES):
                k = known[s]
                if k:
                    buf[o_known + base + s] = k
                    if rel:
                        unseen[s] -= k
                c = coll[s]
                if c:
                    buf[o_coll + base + s] = c
                    unseen[s] -= c
        base = self._rows
        for row in state.rows:
            block = base - NUM_SPECIES
            previous = -1
            for s in row:
                if s != previous:
                    block += NUM_SPECIES
                    previous = s
                buf[block + s] += 1.0
                unseen[s] -= 1
            base += NUM_SPECIES * NUM_SPECIES
        buf[self._draw] = len(state.draw)
        buf[self._disc] = state.discard_size
        o, o_unseen = self._seen, self._unseen
        public = state.discard_public
        for s in range(NUM_SPECIES):
            c = public[s]
            if c:
                buf[o + s] = c
            buf[o_unseen + s] = unseen[s] - c


ENCODERS = {"default": CubirdsEncoder}
