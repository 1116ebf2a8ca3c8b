"""A simple, fast Beasty Bar heuristic: one-move lookahead on a determinized copy of the state.

The agent sees only what its seat may see, through its :class:`~cardzoo.agents.base.Seat` handle:
it samples a state consistent with its view (``seat.determinize(rng)``), and on that sample plays
each legal move on a ``clone()``. The parts of the result it scores (queue, bar, THAT'S IT,
turns left) are public and do not depend on the sample: only the card drawn at the end of the
turn does, and it is not looked at. So the chosen move is a function of the player's view (and
the agent's own RNG for ties), which the heuristic's tests check.

Evaluation of the position after the move (from the mover's side; an opponent's gain counts
minus its value times 1 with two players, times ``0.6 / (N - 1)`` with N > 2: a gain spread over
several opponents threatens less, and measured win rates at 3 and 4 players were best there):

- every animal that **entered the bar** this turn: its value (1, or its points with
  ``scoring="points"``, minus a little per strength point for the count-mode tiebreak);
- every animal **thrown out** this turn: minus ``OUT`` times its value;
- every animal **in the queue**: its value times the chance it is still expected to get in,
  from a table by queue length and position (front places near 1, the back near 0), a bonus for
  hippos, crocodiles and lions (which keep or take front places), and zero when too few turns are
  left for it to reach the gate;
- the **card spent**: strong cards are kept for later (a small cost per played card by species).

In the advanced variant's set-aside phase it puts aside a fixed list of the least useful animals.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from cardzoo.agents.base import Seat, SeatAgent
from cardzoo.envs.beasty_bar.data import (
    CHAMELEON,
    CROCODILE,
    GIRAFFE,
    HIPPO,
    KANGAROO,
    LION,
    MONKEY,
    OWNER,
    PARROT,
    POINTS,
    QUEUE_SIZE,
    SEAL,
    SET_ASIDE_PHASE,
    SKUNK,
    SNAKE,
    SPECIES,
    ZEBRA,
)
from cardzoo.envs.beasty_bar.moves import MOVES, SET_ASIDE_BASE

#: Chance that an animal at queue position i (0 = gate) gets in, by queue length after the move.
ENTRY_CHANCE: tuple[tuple[float, ...], ...] = (
    (),
    (0.55,),
    (0.65, 0.5),
    (0.75, 0.6, 0.3),
    (0.85, 0.75, 0.3, 0.1),
)
#: Extra chance for animals that keep or win front places.
STRONG_BONUS = {LION: 0.15, HIPPO: 0.15, CROCODILE: 0.12, ZEBRA: 0.03, GIRAFFE: 0.05}
#: Cost of spending a card (its value kept in hand for a later, better moment), by strength.
SPEND_COST = {
    SKUNK: 0.12,
    PARROT: 0.14,
    KANGAROO: 0.06,
    MONKEY: 0.04,
    CHAMELEON: 0.08,
    SEAL: 0.06,
    ZEBRA: 0.05,
    GIRAFFE: 0.05,
    SNAKE: 0.06,
    CROCODILE: 0.12,
    HIPPO: 0.12,
    LION: 0.14,
}
#: Set aside first (advanced variant): the animals that help least, least useful first.
SET_ASIDE_ORDER = (SEAL, SNAKE, MONKEY, CHAMELEON, GIRAFFE, ZEBRA)


def plays_until_entry(position: int, length: int) -> int:
    """Plays (by anyone) before the animal at ``position`` of a queue of ``length`` could enter."""
    first_check = QUEUE_SIZE - length  # plays that fill the queue to 5
    return first_check + 3 * (position // 2)  # each later check needs 3 more plays


class BeastyBarHeuristic(SeatAgent):
    """One-move lookahead Beasty Bar heuristic (see the module docstring)."""

    name = "heuristic"

    OUT = 0.6  # weight of an animal thrown out, relative to one let in
    TIEBREAK = 0.004  # per strength point of an animal let in (count mode: lower sum wins)

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, seat: Seat, legal: list[int]) -> int:
        if seat.phase == SET_ASIDE_PHASE:
            return self._set_aside(legal)
        sample = seat.determinize(self.rng)
        me = seat.player
        scored = [(self.evaluate(sample, move, me), move) for move in legal]
        best = max(v for v, _ in scored)
        ties = [m for v, m in scored if v >= best - 1e-9]
        return int(ties[0] if len(ties) == 1 else ties[self.rng.integers(len(ties))])

    def _set_aside(self, legal: list[int]) -> int:
        for animal in SET_ASIDE_ORDER:
            move = SET_ASIDE_BASE + animal - 1
            if move in legal:
                return move
        return legal[0]

    def evaluate(self, state: Any, move: int, me: int) -> float:
        """Value for ``me`` of playing ``move`` (a legal move id) in ``state``."""
        n = state.num_players
        opponent = 1.0 if n == 2 else 0.6 / (n - 1)
        points = state.config.scoring == "points"
        bar_before = len(state.bar)
        out_before = len(state.thats_it)
        after = state.clone()
        after.apply_id(move)

        def value(card: int) -> float:
            s = SPECIES[card]
            v = POINTS[s] / 3.0 if points else 1.0 - self.TIEBREAK * s
            return v if OWNER[card] == me else -opponent * v

        total = 0.0
        for card in after.bar[bar_before:]:
            total += value(card)
        for card in after.thats_it[out_before:]:
            total -= self.OUT * value(card)
        q = after.queue
        length = len(q)
        if length:
            left = sum(len(h) + len(d) for h, d in zip(after.hands, after.draws))
            chances = ENTRY_CHANCE[length]
            for i, card in enumerate(q):
                if plays_until_entry(i, length) > left:
                    continue  # the game ends first: animals left in the queue score nothing
                chance = chances[i] + STRONG_BONUS.get(SPECIES[card], 0.0)
                total += min(chance, 1.0) * value(card)
        return total - SPEND_COST[_ANIMAL_OF_MOVE[move]]


_ANIMAL_OF_MOVE = [m.animal for m in MOVES]  # the animal played (or set aside) by each move id

__all__ = ["BeastyBarHeuristic"]
