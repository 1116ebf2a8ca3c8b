"""Beasty Bar encoder: a player's view as a fixed-size float32 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn
order. Animals are indexed by strength - 1 (0 = Skunk ... 11 = Lion). The size depends only on the
player count N: ``75 + 47 N`` (see :meth:`BeastyBarEncoder.describe`).

The queue has 4 slots, index 0 next to Heaven's Gate: a decision is always taken between turns,
when the five-animal check has left at most 4 animals. Each slot holds a one-hot species and a
one-hot relative owner (all zero when the slot is empty).

Everything here is a function of ``State.view(player)`` (the conformance suite checks it by
resampling all hidden cards); for speed it reads the same fields off the state directly instead of
building the view. Opponents' hands and draw piles are only read as a union ("animals not yet
played"), which is public (rules spec §11).
"""

from __future__ import annotations

import array

from cardzoo.encoders.base import Encoder
from cardzoo.envs.beasty_bar.data import NUM_ANIMALS, POINTS, QUEUE_SIZE
from cardzoo.envs.beasty_bar.game import MOVE_INDEX, MOVES, Config, State

_SLOTS = QUEUE_SIZE - 1  # queue length at decision time
_MAX_SUM = NUM_ANIMALS * (NUM_ANIMALS + 1) // 2  # 78: all twelve animals in the bar
_MAX_POINTS = sum(POINTS)  # 36


class BeastyBarEncoder(Encoder):
    """The default Beasty Bar encoder (``"default"``, version 1)."""

    game = "beasty_bar"
    name = "default"
    version = "1"

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        n = self.num_players
        a = NUM_ANIMALS
        self._points = config.scoring == "points"
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

    def encode_into(self, state: State, player: int, buf: array.array) -> None:
        n = self.num_players
        a = NUM_ANIMALS
        rel = [(q - player) % n for q in range(n)]
        phase = state.phase
        if phase < 2:
            buf[self._phase + phase] = 1.0
            buf[self._to_act + rel[state.current_player]] = 1.0
        buf[self._order + (player - state.first_player) % n] = 1.0
        o = self._hand
        for c in state.hands[player]:
            buf[o + c % a] = 1.0
        os, oo = self._qs, self._qo
        for i, c in enumerate(state.queue):
            buf[os + i * a + c % a] = 1.0
            buf[oo + i * n + rel[c // a]] = 1.0
        score = [0.0] * n
        sums = [0.0] * n
        o = self._bar
        points = self._points
        for c in state.bar:
            q = rel[c // a]
            s = c % a
            buf[o + q * a + s] = 1.0
            score[q] += POINTS[s + 1] if points else 1.0
            sums[q] += s + 1
        o = self._out
        for c in state.thats_it:
            buf[o + rel[c // a] * a + c % a] = 1.0
        ou, oh, od, oa = self._unplayed, self._hsize, self._dsize, self._asize
        left = 0
        for q in range(n):
            r = rel[q]
            base = ou + r * a
            hand, pile, aside = state.hands[q], state.draws[q], state.set_asides[q]
            for c in hand:
                buf[base + c % a] = 1.0
            for c in pile:
                buf[base + c % a] = 1.0
            for c in aside:
                buf[base + c % a] = 1.0
            buf[oh + r] = len(hand)
            buf[od + r] = len(pile)
            buf[oa + r] = len(aside)
            left += len(hand) + len(pile)
        if phase == 0:  # set-aside phase: the cards still to be set aside are not turns
            left = (a - state.config.set_aside) * n
        buf[self._left] = left
        o = self._aside
        for c in state.set_asides[player]:
            buf[o + c % a] = 1.0
        os, osum = self._score, self._sums
        for r in range(n):
            buf[os + r] = score[r]
            buf[osum + r] = sums[r]


ENCODERS = {"default": BeastyBarEncoder}
