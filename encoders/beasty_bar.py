"""Beasty Bar encoder: a player's view as a fixed-size int8 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn
order. Animals are indexed by strength - 1 (0 = Skunk ... 11 = Lion). The size depends only on the
player count N: ``75 + 47 N`` (see :meth:`BeastyBarEncoder.describe`). Values are 0/1 flags and
small counts stored as int8 (the largest is a bar strength sum, at most 78).

The queue has 4 slots, index 0 next to Heaven's Gate: a decision is always taken between turns,
when the five-animal check has left at most 4 animals. Each slot holds a one-hot species and a
one-hot relative owner (all zero when the slot is empty).

Everything here is a function of ``State.view(player)`` (the conformance suite checks it by
resampling all hidden cards); for speed it reads the same fields off the state directly instead of
building the view. Opponents' hands and draw piles are only read as a union ("animals not yet
played"), which is public (rules spec §11).
"""

from __future__ import annotations

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.beasty_bar.data import NUM_ANIMALS, POINTS, QUEUE_SIZE
from cardzoo.envs.beasty_bar.game import MOVE_INDEX, MOVES, Config, State

_SLOTS = QUEUE_SIZE - 1  # queue length at decision time
_MAX_SUM = NUM_ANIMALS * (NUM_ANIMALS + 1) // 2  # 78: all twelve animals in the bar
_MAX_POINTS = sum(POINTS)  # 36


class BeastyBarEncoder(Encoder):
    """The default Beasty Bar encoder (``"default"``, version 1): int8 flags and counts."""

    game = "beasty_bar"
    name = "default"
    version = "1"
    dtype = np.int8

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        n = self.num_players
        a = NUM_ANIMALS
        self._phase = self.piece("phase", 2, 1, "one-hot decision: set aside (variant), play")
        self._to_act = self.piece("to_act", n, 1, "one-hot relative seat of the player to act")
        self._order = self.piece(
            "round_position", n, 1, "one-hot: my place in the turn order (0 = I played first)"
        )
        self._hand = self.piece("my_hand", a, 1, "animals in my hand")
        self._qs = self.piece(
            "queue_species", (_SLOTS, a), 1, "queue[i]: one-hot species at position i from the gate"
        )
        self._qo = self.piece(
            "queue_owner", (_SLOTS, n), 1, "queue[i]: one-hot relative owner at position i"
        )
        self._bar = self.piece("bar", (n, a), 1, "animals of each seat in the bar")
        self._out = self.piece("thats_it", (n, a), 1, "animals of each seat in THAT'S IT")
        self._unplayed = self.piece(
            "unplayed", (n, a), 1, "animals of each seat not played yet (hand + pile + set aside)"
        )
        self._hsize = self.piece("hand_sizes", n, a, "cards in each seat's hand")
        self._dsize = self.piece("draw_sizes", n, a, "cards in each seat's draw pile")
        self._aside = self.piece("my_set_aside", a, 1, "animals I set aside (advanced variant)")
        self._asize = self.piece("set_aside_sizes", n, a, "cards each seat has set aside")
        self._left = self.piece(
            "turns_left", 1, a * n, "turns remaining (cards still to be played by all seats)"
        )
        self._score = self.piece(
            "scores", n, _MAX_POINTS, "each seat's score: bar animals (count) or their points"
        )
        self._sums = self.piece(
            "bar_strength_sums", n, _MAX_SUM, "strength sum of each seat's bar animals (tiebreak)"
        )
        self._ones = bytes([1]) * (n * a)
        # Score of one bar animal by animal index: 1 (count) or its points.
        points = config.scoring == "points"
        self._value = [POINTS[i + 1] if points else 1 for i in range(a)]
        self._seat_tables: dict[int, tuple[list[int], list[int], list[int]]] = {}

    def _tables(self, player: int) -> tuple[list[int], list[int], list[int]]:
        """Per card, as seen by ``player``: relative-seat x animal index, animal index, and
        relative seat (prebuilt once per seat)."""
        tables = self._seat_tables.get(player)
        if tables is None:
            n, a = self.num_players, NUM_ANIMALS
            rel = [(c // a - player) % n for c in range(n * a)]
            tables = (
                [r * a + c % a for c, r in enumerate(rel)],
                [c % a for c in range(n * a)],
                rel,
            )
            self._seat_tables[player] = tables
        return tables

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        n = self.num_players
        a = NUM_ANIMALS
        idx, animal, rel = self._tables(player)
        phase = state.phase
        if phase < 2:
            buf[self._phase + phase] = 1
            buf[self._to_act + (state.current_player - player) % n] = 1
        buf[self._order + (player - state.first_player) % n] = 1
        o = self._hand
        for c in state.hands[player]:
            buf[o + animal[c]] = 1
        # "unplayed" = every animal, minus those seen in the queue, the bar and THAT'S IT.
        ou = self._unplayed
        buf[ou : ou + n * a] = self._ones
        os, oo = self._qs, self._qo
        for i, c in enumerate(state.queue):
            buf[os + i * a + animal[c]] = 1
            buf[oo + i * n + rel[c]] = 1
            buf[ou + idx[c]] = 0
        score = [0] * n
        sums = [0] * n
        o = self._bar
        value = self._value
        for c in state.bar:
            k = idx[c]
            buf[o + k] = 1
            buf[ou + k] = 0
            r = rel[c]
            score[r] += value[animal[c]]
            sums[r] += animal[c] + 1
        o = self._out
        for c in state.thats_it:
            k = idx[c]
            buf[o + k] = 1
            buf[ou + k] = 0
        oh, od, oa = self._hsize, self._dsize, self._asize
        hands, draws, asides = state.hands, state.draws, state.set_asides
        left = 0
        for q in range(n):
            r = (q - player) % n
            h, d = len(hands[q]), len(draws[q])
            buf[oh + r] = h
            buf[od + r] = d
            buf[oa + r] = len(asides[q])
            left += h + d
        if phase == 0:  # set-aside phase: the cards still to be set aside are not turns
            left = (a - state.config.set_aside) * n
        buf[self._left] = left
        o = self._aside
        for c in asides[player]:
            buf[o + animal[c]] = 1
        os, osum = self._score, self._sums
        for r in range(n):
            buf[os + r] = score[r]
            buf[osum + r] = sums[r]


ENCODERS = {"default": BeastyBarEncoder}
