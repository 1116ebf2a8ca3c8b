"""A simple, fast Cubirds heuristic: one-ply evaluation of every decision on the public view.

The agent sees only what its seat may see: ``seat.view()`` and ``seat.legal_move_ids()`` (which
depends only on its own hand and the phase), through the :class:`~cardzoo.agents.base.Seat` handle.

Main ideas
----------
- **Collection value.** A collection is scored by its distance to a win: the flocks still
  missing for the 7-species goal and (at 0.75 flock per card) for the two-triples goal, the
  nearer goal counting extra, plus a little per banked card (the failed-deal tiebreak). Banking
  a card is worth the change of that score, so species that bring a win nearer (a new species,
  the third card of a triple...) are worth more.
- **Hand value.** Each species in hand is expected to bank 2 cards if it reaches the big flock,
  1 plus a chance of 2 if it reaches the small one, and a chance of 1 if it is short; a chance
  shrinks geometrically with the cards still missing and is 0 if too few remain unseen or in the
  rows. The hand is worth the progress of the collection plus these expected cards, discounted
  against cards actually banked (a round can end and take the hand away), more so when an
  opponent holds 2 cards or fewer. This makes the agent hold a flock one card short of its big
  size while that is safe, and bank it when the round may end.
- **Lay.** Every legal lay is simulated on the visible rows: cards captured join the hand, the
  laid species leaves it. Its value is the best flock decision afterwards, plus the expected value
  of the 2-card draw when nothing was captured, minus the captures it leaves to the next player
  (expected best capture given the species that player is known or likely to hold). Emptying the
  hand ends the round, which costs the opponents their hands; it is valued accordingly, and the
  game-ending cases (failed deal, mid-turn exhaustion) are scored by the collection-size rule.
- **Draw.** Take the two cards, unless the piles are so low that drawing would end the game while
  the agent is not the sole leader (or would end it while it leads: then draw).
- **Flock.** Flock when it wins; otherwise compare banking now against holding for a bigger flock.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cardzoo.agents.base import Seat, SeatAgent
from cardzoo.envs.cubirds.data import (
    BIG_FLOCK,
    CARD_COUNTS,
    HAND_SIZE,
    NUM_SPECIES,
    SMALL_FLOCK,
    WIN_SPECIES_PRESENT,
    WIN_TRIPLE_SIZE,
    WIN_TRIPLES,
)
from cardzoo.envs.cubirds.game import (
    DRAW_PHASE,
    FLOCK_BASE,
    FLOCK_PHASE,
    LAY_PHASE,
    NUM_LAY_MOVES,
    PASS_FLOCK,
    TAKE_DRAW,
    has_won,
    lay_on_row,
    row_blocks,
)

WIN_VALUE = 1e6
LOSS_VALUE = -1e5
SPECIES = range(NUM_SPECIES)


def row_captures(row: tuple[int, ...]) -> dict[int, int]:
    """Per species: the most cards a lay of that species could capture in ``row`` (either end)."""
    best: dict[int, int] = {}
    total = len(row)
    before = 0
    for s, n in row_blocks(row):
        after = total - before - n
        cap = max(before, after)
        if cap > best.get(s, 0):
            best[s] = cap
        before += n
    return best


class CubirdsHeuristic(SeatAgent):
    """One-ply Cubirds heuristic (see the module docstring)."""

    name = "heuristic"

    # Tunable weights.
    W_MAIN = 5.0  # per flock missing on the nearer route to a win
    W_BOTH = 6.0  # per flock missing on either route
    W_CARD = 0.6  # per banked card (failed-deal tiebreak)
    TRIPLE_FLOCKS_PER_CARD = 0.75  # a missing triple card costs this many flocks
    HOLD = 0.8  # cards in hand vs banked
    HOLD_RISK = 0.55  # hand discount when an opponent may end the round soon
    REACH = 0.55  # chance factor per card still missing for a flock
    THREAT = 0.9  # value of one card captured by the next player
    OPP_HAND = 0.3  # value per opponent card lost when the round ends
    FRESH_HAND = 4.0  # value of a freshly dealt hand

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    # -- the agent protocol -----------------------------------------------------------------------

    def choose(self, seat: Seat, legal: list[int]) -> int:
        scored = self.move_values(seat.view(), legal)
        if not scored:
            return legal[0]
        best = max(v for v, _ in scored)
        ties = [m for v, m in scored if v >= best - 1e-9]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])

    def move_values(self, view: Any, legal: list[int]) -> list[tuple[float, int]]:
        """``(value, move)`` for each legal move of ``view`` (empty when the game is over).

        The one-ply evaluation the agent maximises (the draw decision is scored 1 for the move it
        takes, 0 for the other); the ``lookahead`` encoder shows it to a policy.
        """
        ctx = _Context(self, view)
        if view.phase == DRAW_PHASE:
            take = ctx.should_draw()
            return [(float(take == (m == TAKE_DRAW)), m) for m in legal]
        if view.phase == LAY_PHASE:
            return [(ctx.lay_value(m), m) for m in legal if m < NUM_LAY_MOVES]
        if view.phase == FLOCK_PHASE:
            hand = list(view.hand)
            coll = list(view.collections[view.player])
            return [
                (ctx.flock_value(hand, coll, None if m == PASS_FLOCK else m - FLOCK_BASE), m)
                for m in legal
            ]
        return []


class _Context:
    """Per-decision precomputation from the view."""

    def __init__(self, agent: CubirdsHeuristic, view: Any) -> None:
        self.a = agent
        self.view = view
        me = view.player
        n = view.num_players
        self.me = me
        self.n = n
        self.rows = view.rows
        self.coll = view.collections[me]

        # Cards whose place this player cannot see.
        unseen = list(CARD_COUNTS)
        for s in SPECIES:
            unseen[s] -= view.hand[s] + view.discard_known[s]
            for q in range(n):
                unseen[s] -= view.collections[q][s]
                if q != me:
                    unseen[s] -= view.known_hands[q][s]
        for row in view.rows:
            for s in row:
                unseen[s] -= 1
        self.unseen = [max(0, u) for u in unseen]
        total = sum(self.unseen)
        self.unseen_frac = [u / total for u in self.unseen] if total else [0.0] * NUM_SPECIES
        # Cards a player could still get: unseen or lying in the rows.
        self.findable = self.unseen[:]
        for row in view.rows:
            for s in row:
                self.findable[s] += 1

        # Next player's chance to hold each species.
        nxt = (me + 1) % n
        known = view.known_hands[nxt]
        u = view.hand_sizes[nxt] - sum(known)
        self.p_next = [
            1.0 if known[s] else 1.0 - (1.0 - self.unseen_frac[s]) ** max(u, 0) for s in SPECIES
        ]
        self.row_caps = [row_captures(r) for r in view.rows]
        self.caps_cache: list[dict[int, int] | None] = [None] * len(view.rows)

        others = [view.hand_sizes[q] for q in range(n) if q != me]
        self.opp_cards = sum(others)
        self.hold = agent.HOLD_RISK if min(others) <= 2 else agent.HOLD
        self.cv_cache: dict[tuple[int, ...], float] = {}
        self.hv_cache: dict[tuple[int, ...], float] = {}
        self.db_cache: dict[tuple[int, ...], float] = {}

    # -- collection and hand values ---------------------------------------------------------------

    def cv(self, coll: tuple[int, ...]) -> float:
        """Value of a real collection: a win, or the distance to a win."""
        v = self.cv_cache.get(coll)
        if v is None:
            v = WIN_VALUE if has_won(coll) else self.progress(coll)
            self.cv_cache[coll] = v
        return v

    def progress(self, coll) -> float:
        """Distance-to-win score of a collection; accepts fractional (expected) counts."""
        a = self.a
        present = 0.0
        for c in coll:
            present += c if c < 1.0 else 1.0
        d7 = max(0.0, WIN_SPECIES_PRESENT - present)
        top = sorted(coll, reverse=True)[:WIN_TRIPLES]
        d3 = sum(WIN_TRIPLE_SIZE - min(c, WIN_TRIPLE_SIZE) for c in top)
        f3 = d3 * a.TRIPLE_FLOCKS_PER_CARD
        return -a.W_MAIN * min(d7, f3) - a.W_BOTH * (d7 + f3) + a.W_CARD * sum(coll)

    def expected_banked(self, s: int, c: int) -> float:
        """Cards a hand count ``c`` of species ``s`` is expected to bank, discounted."""
        if not c:
            return 0.0
        small, big = SMALL_FLOCK[s], BIG_FLOCK[s]
        if c >= big:
            return 2.0
        reach = self.a.REACH
        if c >= small:
            need = big - c
            return 1.0 + (reach**need if self.findable[s] >= need else 0.0)
        need = small - c
        return reach**need if self.findable[s] >= need else 0.0

    def hand_value(self, hand: list[int], coll: tuple[int, ...]) -> float:
        # Memoised: the lays of one species that capture nothing all leave the same hand.
        key = (*hand, *coll)
        v = self.hv_cache.get(key)
        if v is None:
            expected = [coll[s] + self.expected_banked(s, hand[s]) for s in SPECIES]
            v = self.hv_cache[key] = self.hold * (self.progress(expected) - self.progress(coll))
        return v

    # -- decisions --------------------------------------------------------------------------------

    def after_empty_hand(self, coll: tuple[int, ...]) -> float:
        """Value once this player's hand is empty: the round ends (§5)."""
        view = self.view
        left = view.draw_size + view.discard_size + self.opp_cards
        if left < HAND_SIZE * self.n:
            return self.result_by_collections(coll)
        return self.cv(coll) + self.a.FRESH_HAND + self.a.OPP_HAND * self.opp_cards

    def result_by_collections(self, coll: tuple[int, ...]) -> float:
        mine = sum(coll)
        best_other = max(sum(self.view.collections[q]) for q in range(self.n) if q != self.me)
        if mine > best_other:
            return WIN_VALUE / 2
        if mine == best_other:
            return 0.0
        return LOSS_VALUE

    def flock_value(self, hand: list[int], coll: tuple[int, ...], s: int | None) -> float:
        coll = tuple(coll)
        if s is None:
            return self.cv(coll) + self.hand_value(hand, coll)
        c = hand[s]
        new = list(coll)
        new[s] += 2 if c >= BIG_FLOCK[s] else 1
        new = tuple(new)
        if has_won(new):
            return WIN_VALUE
        rest = hand[:]
        rest[s] = 0
        if not any(rest):
            return self.after_empty_hand(new)
        return self.cv(new) + self.hand_value(rest, new)

    def best_flock(self, hand: list[int], coll: tuple[int, ...]) -> float:
        best = self.flock_value(hand, coll, None)
        for s in SPECIES:
            if hand[s] >= SMALL_FLOCK[s]:
                v = self.flock_value(hand, coll, s)
                if v > best:
                    best = v
        return best

    def caps_without(self, r: int) -> dict[int, int]:
        """Per species: the best capture in the rows other than ``r`` (built once per row)."""
        best = self.caps_cache[r]
        if best is None:
            best = self.caps_cache[r] = {}
            for i, caps in enumerate(self.row_caps):
                if i != r:
                    for s, k in caps.items():
                        if k > best.get(s, 0):
                            best[s] = k
        return best

    def threat(self, r: int, new_row: tuple[int, ...]) -> float:
        """Expected best capture of the next player once row ``r`` becomes ``new_row``."""
        best = self.caps_without(r).copy()
        for s, k in row_captures(new_row).items():
            if k > best.get(s, 0):
                best[s] = k
        expected = 0.0
        miss = 1.0
        for k, s in sorted(((k, s) for s, k in best.items()), reverse=True):
            p = self.p_next[s]
            expected += miss * p * k
            miss *= 1.0 - p
        return expected

    def lay_value(self, move: int) -> float:
        view = self.view
        s, r, end = move >> 3, (move >> 1) & 3, move & 1
        hand = list(view.hand)
        k = hand[s]
        hand[s] = 0
        captured, new_row = lay_on_row(self.rows[r], s, end, k)
        coll = self.coll
        if captured:
            for c in captured:
                hand[c] += 1
            if new_row.count(s) == len(new_row):
                if view.draw_size + view.discard_size == 0:
                    return self.result_by_collections(coll)
                # A refill follows; its cards are unknown: score the row as laid.
            value = self.best_flock(hand, coll)
        elif not any(hand):
            return self.after_empty_hand(coll)
        else:
            value = self.best_flock(hand, coll) + self.draw_bonus(hand, coll)
        return value - self.a.THREAT * self.threat(r, new_row)

    def draw_bonus(self, hand: list[int], coll: tuple[int, ...]) -> float:
        view = self.view
        if view.draw_size + view.discard_size < 2:
            return self.result_by_collections(coll) - self.cv(coll)
        key = (*hand, *coll)
        v = self.db_cache.get(key)
        if v is None:
            v = self.db_cache[key] = self._draw_bonus(hand, coll)
        return v

    def _draw_bonus(self, hand: list[int], coll: tuple[int, ...]) -> float:
        base = self.hand_value(hand, coll)
        bonus = 0.0
        for s in SPECIES:
            f = self.unseen_frac[s]
            if f:
                hand[s] += 1
                bonus += f * (self.hand_value(hand, coll) - base)
                hand[s] -= 1
        return 2.0 * bonus

    def should_draw(self) -> bool:
        view = self.view
        if view.draw_size + view.discard_size < 2:
            return self.result_by_collections(self.coll) > 0
        return True
