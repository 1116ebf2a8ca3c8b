"""A fast Sitting Ducks Gallery heuristic: one-card lookahead on the public table.

The agent sees only what its seat may see, through its :class:`~cardzoo.agents.base.Seat`
handle. For each legal move it plays the move on a sample of the game (``seat.determinize``: the
other hands, the action draw pile and the secret colours are guesses consistent with its view)
whose duck deck above the public bottom it has shuffled again with its own generator (so which
cards refill the row is a guess, not a peek), and it scores the resulting table, which is public:
the row, the targets, the ducks still in play. The guessed hands never reach that score, so its
choice is a function of its view and its own generator, which its tests check.

Score of a table, for my side (my colours; my team's in team mode):

- every duck of my side in play is worth ``MINE``; every opponent duck costs ``THEIRS`` times
  a *leader* weight (``1 + LEAD`` per duck above the opponents' mean: aim at the leaders);
- a duck the next shots can hit counts only partly: an exposed duck in a targeted slot loses
  ``RISK_TARGETED`` of its worth, one next to a targeted slot ``RISK_NEAR`` (Misfire, Two Birds),
  any other exposed duck ``RISK_OPEN`` (Quick Shot); a Bottoms Up card cuts these;
- a win is worth everything, a loss or my side's elimination costs everything;
- playing a card costs its *keep value* (``KEEP``: Shoot, Quick Shot, Bottoms Up and Duck and
  Cover are kept for when they matter).

Disorderly Conduckt is scored with the order the agent would choose (``plan_order``: opponents'
ducks into targeted slots, its own away from them), which it then plays step by step. A forced
discard throws away the card with the lowest keep value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cardzoo.agents.base import Seat, SeatAgent
from cardzoo.envs.core import child_seed
from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    DUCK_AND_COVER,
    DUCKS_PER_COLOUR,
    NUM_KINDS,
    NUM_SLOTS,
    ORDER_PHASE,
    QUICK_SHOT,
    SHOOT,
    TWO_BIRDS,
)
from cardzoo.envs.sitting_ducks.moves import DECODE, DISCARD_BASE, DISORDERLY_ID, PLACE_BASE
from cardzoo.envs.sitting_ducks.units import U_COLOURS, U_COVER, U_EXPOSED, U_UNDER, unit

#: Keep value of each card kind (cost of spending it), by kind.
KEEP = [0.02] * NUM_KINDS
KEEP[SHOOT] = 0.05
KEEP[QUICK_SHOT] = 0.15
KEEP[TWO_BIRDS] = 0.1
KEEP[BOTTOMS_UP] = 0.08
KEEP[DUCK_AND_COVER] = 0.08

WIN = 1000.0


class SittingDucksHeuristic(SeatAgent):
    """One-card lookahead Sitting Ducks Gallery heuristic (see the module docstring)."""

    name = "heuristic"

    MINE = 1.0
    THEIRS = 0.6
    LEAD = 0.1
    RISK_TARGETED = 0.45
    RISK_NEAR = 0.12
    RISK_OPEN = 0.04
    COVERED = 0.2  # share of the risk left under a Bottoms Up card

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        # Draws the guessed hands of each sample: a stream of its own, so the choices (which
        # never depend on those guesses) use exactly the draws of ``rng``.
        self.sampler = np.random.default_rng(None if seed is None else [seed, 1])

    def choose(self, seat: Seat, legal: list[int]) -> int:
        view = seat.view()
        player = view.player
        mine = self._my_side(view)
        if view.phase == ORDER_PHASE:
            row = [unit(*slot) for slot in view.row]
            targets = sum(1 << s for s, targeted in enumerate(view.targets) if targeted)
            plan = self.plan_order(row, targets, mine, view)
            return PLACE_BASE + next(j for j in plan if j not in view.reorder)
        if legal[0] >= DISCARD_BASE:
            return min(legal, key=lambda a: (KEEP[a - DISCARD_BASE], a))
        sample = self._sample(seat)
        best, best_value = legal[0], -np.inf
        for move in legal:
            value = self.evaluate_move(sample, move, player, mine)
            if value > best_value + 1e-9:
                best, best_value = move, value
        return best

    # -- what the agent may use -------------------------------------------------------------------

    @staticmethod
    def _my_side(view: Any) -> int:
        """Bitmask of the colours whose ducks I want to keep (mine; my team's in team mode,
        where every colour's owner is public)."""
        mine = 0
        for c in view.my_colours:
            mine |= 1 << c
        n = view.num_players
        if view.mode == "team" and n > 2:
            mate = (view.player + n // 2) % n
            for c, owner in enumerate(view.colour_owners):
                if owner == mate:
                    mine |= 1 << c
        return mine

    def _sample(self, seat: Seat) -> Any:
        """A sample of the game for this seat whose duck deck beyond its public bottom is
        shuffled again from its (public) composition by the agent's ``rng``, which also seeds
        the sample's own generator."""
        # The replay, not the exact posterior: the score never reads the other hands, and at five
        # and six players an exact first call at each new position costs ten times as much.
        copy = seat.determinize(self.sampler, exact=False)
        kb = min(copy.known_bottom, len(copy.deck))
        upper = sorted(copy.deck[kb:])
        copy.deck = copy.deck[:kb] + [upper[i] for i in self.rng.permutation(len(upper))]
        copy.rng = np.random.default_rng(child_seed(self.rng))
        return copy

    # -- scoring ----------------------------------------------------------------------------------

    def evaluate_move(self, sample: Any, move: int, player: int, mine: int) -> float:
        after = sample.clone()
        after.apply_id(move)
        if move == DISORDERLY_ID:
            plan = self.plan_order(after.row, after.targets, mine, after)
            after.row = [after.row[j] for j in plan]
        kind = DECODE[move][0]
        return self.evaluate(after, player, mine) - KEEP[kind]

    def evaluate(self, state: Any, player: int, mine: int) -> float:
        """Score of a table for ``player``'s side (public parts only)."""
        if state.terminal:
            return WIN if player in state.winners() else -WIN
        k = state.num_colours
        alive = [DUCKS_PER_COLOUR - state.shot[c] for c in range(k)]
        if not any(alive[c] for c in range(k) if mine >> c & 1):
            return -WIN / 2  # my side is out: I can no longer win
        theirs = [c for c in range(k) if not mine >> c & 1 and alive[c]]
        mean = sum(alive[c] for c in theirs) / max(1, len(theirs))  # over the living
        worth = [0.0] * k
        for c in range(k):
            if mine >> c & 1:
                worth[c] = self.MINE
            else:
                worth[c] = -self.THEIRS * (1.0 + self.LEAD * (alive[c] - mean))
        total = sum(worth[c] * alive[c] for c in range(k))
        # Ducks the next shots may hit.
        targets = state.targets
        near = ((targets << 1) | (targets >> 1)) & ~targets
        for s, u in enumerate(state.row):
            c = U_EXPOSED[u]
            if c < 0:
                if U_COVER[u] >= 0 and U_UNDER[u] < 0 and U_COLOURS[u]:
                    c = U_COLOURS[u].bit_length() - 1  # a covered single duck: mostly safe
                    risk = self.COVERED * self._risk(targets, near, s)
                    total -= worth[c] * risk
                continue
            risk = self._risk(targets, near, s)
            if U_COVER[u] >= 0:
                risk *= self.COVERED
            total -= worth[c] * risk
        return total

    def _risk(self, targets: int, near: int, s: int) -> float:
        if targets >> s & 1:
            return self.RISK_TARGETED
        if near >> s & 1:
            return self.RISK_NEAR
        return self.RISK_OPEN

    def plan_order(self, row: list[int], targets: int, mine: int, state: Any) -> list[int]:
        """The new order for Disorderly Conduckt: ``plan[i]`` is the old slot going to slot i
        (``state``: anything with the public ``shot`` counts, a game state or a view).

        Units with an opponent's exposed duck go to targeted slots (then next to them), units of
        mine to the slots far from any target; water and the rest fill in. Deterministic."""
        near = ((targets << 1) | (targets >> 1)) & ~targets
        danger = sorted(
            range(NUM_SLOTS),
            key=lambda s: (-(targets >> s & 1), -(near >> s & 1), s),
        )

        def appeal(j: int) -> tuple:
            u = row[j]
            exposed = U_EXPOSED[u]
            if exposed >= 0 and not mine >> exposed & 1:
                return (0, -(DUCKS_PER_COLOUR - state.shot[exposed]), j)  # leaders first
            if U_COLOURS[u] & mine:
                return (2, 0, j)
            return (1, 0, j)

        units = sorted(range(NUM_SLOTS), key=appeal)
        plan = [0] * NUM_SLOTS
        for slot, j in zip(danger, units):
            plan[slot] = j
        return plan


__all__ = ["SittingDucksHeuristic"]
