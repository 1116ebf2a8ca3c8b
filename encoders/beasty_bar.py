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
played"), which is public (rules doc ``docs/rules/beasty_bar.md`` §11).

The global state (PettingZoo ``state()``, for centralised critics) is a second layout with
absolute seats (seat 0 first): every hand, every draw pile's contents and order, every set-aside
card, the queue with owners, bar, THAT'S IT, the phase and the seat to act. It shows hidden cards
and must never be fed to an acting policy.
"""

from __future__ import annotations

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.beasty_bar.config import Config
from cardzoo.envs.beasty_bar.data import (
    GAME_OVER,
    MAX_PILE,
    NUM_ANIMALS,
    POINTS,
    QUEUE_SIZE,
    SET_ASIDE_PHASE,
)
from cardzoo.envs.beasty_bar.game import State
from cardzoo.envs.beasty_bar.moves import MOVE_INDEX, MOVES

_SLOTS = QUEUE_SIZE - 1  # queue length at decision time
_MAX_SUM = NUM_ANIMALS * (NUM_ANIMALS + 1) // 2  # 78: all twelve animals in the bar
_MAX_POINTS = sum(POINTS)  # 36
_PHASES = GAME_OVER  # phases with a decision (one-hot): set aside (variant), play


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
        self._phase = self.piece("phase", _PHASES, 1, "one-hot decision: set aside (variant), play")
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
        self._points = config.scoring == "points"
        self._seat_tables: dict[int, tuple[list[int], ...]] = {}
        self._declare_state(n, a)

    def _declare_state(self, n: int, a: int) -> None:
        """The global-state layout: absolute seats, hidden cards included."""
        sp = self.state_piece
        self._s_phase = sp(
            "phase", _PHASES, 1, "one-hot: set aside (variant), play; zeros at the end"
        )
        self._s_to_act = sp("to_act", n, 1, "one-hot seat of the player to act")
        self._s_first = sp("first_player", n, 1, "one-hot seat that played first")
        self._s_hands = sp("hands", (n, a), 1, "animals in each seat's hand")
        self._s_draw = sp("draw_piles", (n, a), 1, "animals in each seat's draw pile")
        self._s_order = sp(
            "draw_order",
            (n, MAX_PILE, a),
            1,
            "[q, i]: one-hot species i-th from the top of q's pile",
        )
        self._s_aside = sp("set_aside", (n, a), 1, "animals each seat set aside (variant)")
        self._s_qs = sp(
            "queue_species", (_SLOTS, a), 1, "queue[i]: one-hot species at position i from the gate"
        )
        self._s_qo = sp("queue_owner", (_SLOTS, n), 1, "queue[i]: one-hot owner seat")
        self._s_bar = sp("bar", (n, a), 1, "animals of each seat in the bar")
        self._s_out = sp("thats_it", (n, a), 1, "animals of each seat in THAT'S IT")
        self._s_left = sp("turns_left", 1, a * n, "turns remaining (cards still to be played)")
        self._s_score = sp(
            "bar_scores", n, _MAX_POINTS, "each seat's bar animals (count) or their points"
        )
        self._s_sums = sp("bar_strength_sums", n, _MAX_SUM, "strength sum of each seat's bar")

    def _tables(self, player: int) -> tuple[list[int], ...]:
        """Buffer offsets per card as seen by ``player`` (built once per seat): the card's entry
        in my_hand, queue_species (slot 0), queue_owner (slot 0), bar, thats_it, unplayed, scores,
        bar_strength_sums, my_set_aside; then its score value and its strength."""
        tables = self._seat_tables.get(player)
        if tables is None:
            n, a = self.num_players, NUM_ANIMALS
            cards = range(n * a)
            rel = [(c // a - player) % n for c in cards]
            animal = [c % a for c in cards]
            idx = [r * a + s for r, s in zip(rel, animal)]
            tables = (
                [self._hand + s for s in animal],
                [self._qs + s for s in animal],
                [self._qo + r for r in rel],
                [self._bar + k for k in idx],
                [self._out + k for k in idx],
                [self._unplayed + k for k in idx],
                [self._score + r for r in rel],
                [self._sums + r for r in rel],
                [self._aside + s for s in animal],
                [POINTS[s + 1] if self._points else 1 for s in animal],
                [s + 1 for s in animal],
            )
            self._seat_tables[player] = tables
        return tables

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        n = self.num_players
        a = NUM_ANIMALS
        (t_hand, t_qs, t_qo, t_bar, t_out, t_unp, t_score, t_sum, t_aside, value, strength) = (
            self._tables(player)
        )
        phase = state.phase
        if phase < GAME_OVER:
            buf[self._phase + phase] = 1
            buf[self._to_act + (state.current_player - player) % n] = 1
        buf[self._order + (player - state.first_player) % n] = 1
        for c in state.hands[player]:
            buf[t_hand[c]] = 1
        # "unplayed" = every animal, minus those seen in the queue, the bar and THAT'S IT.
        ou = self._unplayed
        buf[ou : ou + n * a] = self._ones
        i = 0
        for c in state.queue:
            buf[t_qs[c] + i * a] = 1
            buf[t_qo[c] + i * n] = 1
            buf[t_unp[c]] = 0
            i += 1
        for c in state.bar:
            buf[t_bar[c]] = 1
            buf[t_unp[c]] = 0
            buf[t_score[c]] += value[c]
            buf[t_sum[c]] += strength[c]
        for c in state.thats_it:
            buf[t_out[c]] = 1
            buf[t_unp[c]] = 0
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
        if phase == SET_ASIDE_PHASE:  # the cards still to be set aside are not turns
            left = (a - state.config.set_aside) * n
        buf[self._left] = left
        for c in asides[player]:
            buf[t_aside[c]] = 1

    def state_into(self, state: State, buf: bytearray) -> None:
        n = self.num_players
        a = NUM_ANIMALS
        phase = state.phase
        if phase < GAME_OVER:
            buf[self._s_phase + phase] = 1
            buf[self._s_to_act + state.current_player] = 1
        buf[self._s_first + state.first_player] = 1
        # a card is owner * 12 + strength - 1, so it is also its (seat, animal) index
        for q in range(n):
            for c in state.hands[q]:
                buf[self._s_hands + c] = 1
            for c in state.set_asides[q]:
                buf[self._s_aside + c] = 1
            pile = state.draws[q]  # the top card is the last element
            base = self._s_order + q * MAX_PILE * a
            for i, c in enumerate(reversed(pile)):
                buf[self._s_draw + c] = 1
                buf[base + i * a + c % a] = 1
        for i, c in enumerate(state.queue):
            buf[self._s_qs + i * a + c % a] = 1
            buf[self._s_qo + i * n + c // a] = 1
        points = self._points
        for c in state.bar:
            buf[self._s_bar + c] = 1
            buf[self._s_score + c // a] += POINTS[c % a + 1] if points else 1
            buf[self._s_sums + c // a] += c % a + 1
        for c in state.thats_it:
            buf[self._s_out + c] = 1
        if phase == SET_ASIDE_PHASE:  # the set-aside choices are not turns
            buf[self._s_left] = (a - state.config.set_aside) * n
        else:
            buf[self._s_left] = sum(len(h) for h in state.hands) + sum(len(d) for d in state.draws)


ENCODERS = {"default": BeastyBarEncoder}
