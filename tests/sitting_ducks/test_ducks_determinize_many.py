"""100,000 ``determinize`` calls at six players (standard, hidden and points), each sample
checked against the public record by code independent of the sampler (issue 16).

The positions are those the exact sampler serves (``exact.py``: before the first reshuffle of
the action cards in each game of a match), every such decision of seeded random games, each
determinized for the seat to play. A sample must look the same to that seat, hold exactly the
cards it has not seen, and give every other seat a hand that some history of its own dealt cards
and draws explains (each play held, every forced discard with only unplayable cards in hand,
under the sampled colour in hidden mode): a backward search from the sampled hand, one seat at
a time, which is a complete check only while every hidden card came from one pile. Positions
after a reshuffle are served by the exact samplers of ``reshuffled.py`` and ``crowded.py``
(checked against brute force on small decks in ``test_ducks_exact_reshuffled.py`` and
``test_ducks_exact_crowded.py``), and where those decline by the replay, whose samples
``test_ducks_sampling_complete.py`` checks with their witness histories; at six players every
such sample is checked for a history in ``test_ducks_history.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import numpy as np
from cardzoo.envs.sitting_ducks import Config, State, exact
from cardzoo.envs.sitting_ducks.data import ORDER_PHASE

CALLS = 100_000
CONFIGS = [
    Config(num_players=6),
    Config(num_players=6, mode="hidden"),
    Config(num_players=6, points_games=3),
]
#: Calls per position; positions come from as many seeded games as the calls need.
PER_POSITION = 40


def record(state: State) -> list[tuple]:
    entries = list(state._log[1 : state._log_len])
    if state.phase == ORDER_PHASE:
        entries.append((state.current_player, state._turn_card, None, None, -1))
    return entries


def seat_turns(entries: list[tuple], q: int) -> tuple[tuple[int, int | None, bool], ...]:
    """Seat q's turns: (card played, its forced discard's masks or None, whether it drew)."""
    return tuple((card, forced, drawn >= 0) for s, card, forced, _, drawn in entries if s == q)


def explainer(turns, mask_key: int):
    """``explained(hand)``: whether some history of the seat's cards ends in ``hand``: back
    through its turns, each draw was one of the cards held after it, each play was held before
    it, and before a forced discard only unplayable cards were held."""

    @cache
    def back(i: int, after: tuple[int, ...]) -> bool:
        if i < 0:
            return True
        card, forced, drew = turns[i]
        options = sorted(set(after)) if drew else [None]
        for x in options:
            before = list(after)
            if x is not None:
                before.remove(x)
            before = tuple(sorted((*before, card)))
            if forced is not None and any(not forced[mask_key] >> k & 1 for k in before):
                continue
            if back(i - 1, before):
                return True
        return False

    return lambda hand: back(len(turns) - 1, tuple(sorted(hand)))


class Position:
    """What every sample of one position is checked against."""

    def __init__(self, state: State, player: int) -> None:
        self.state, self.player = state, player
        self.view = state.view(player)
        self.entries = record(state)
        _, initial, pool = state._log[0]
        seen = Counter(initial[player])
        seen.update(d for q, _, _, _, d in self.entries if q == player and d >= 0)
        seen.update(card for q, card, _, _, _ in self.entries if q != player)
        unseen = Counter({k: c for k, c in enumerate(pool) if c})
        unseen.subtract(seen)
        self.unseen = +unseen
        self.known: dict = {}
        self.explainers: dict = {}

    def check(self, world: State) -> None:
        state, player = self.state, self.player
        assert world.view(player) == self.view
        hidden = Counter(world.draw)
        for q in range(state.num_players):
            if q != player:
                hidden.update(world.hands[q])
        assert hidden == self.unseen
        for q in range(state.num_players):
            if q == player:
                continue
            key = world.colour_owner.index(q) if state.mode == "hidden" else 0
            hand = tuple(sorted(world.hands[q]))
            if (q, key, hand) not in self.known:
                if (q, key) not in self.explainers:
                    self.explainers[q, key] = explainer(seat_turns(self.entries, q), key)
                self.known[q, key, hand] = self.explainers[q, key](hand)
            assert self.known[q, key, hand], f"seat {q}'s sampled hand {hand} has no history"


def test_100000_samples_at_six_players_are_consistent_worlds():
    calls = positions = varied = later_games = 0
    per_config = CALLS // len(CONFIGS) + 1
    for cfg in CONFIGS:
        done = 0
        seed = 0
        while done < per_config:
            pick = random.Random(seed).random
            state = State(cfg, seed=seed)
            seed += 1
            while not state.terminal and not state.truncated and done < per_config:
                if not exact.applies(state):  # after a reshuffle: the next game, if any
                    legal = state.legal_move_ids()
                    state.apply_id(legal[int(pick() * len(legal))])
                    continue
                player = state.current_player
                rng = np.random.default_rng([seed, state.move_count])
                position = Position(state, player)
                keys = set()
                for _ in range(PER_POSITION):
                    world = state.determinize(player, rng)
                    position.check(world)
                    keys.add((tuple(world.colour_owner), tuple(map(tuple, world.hands))))
                done += PER_POSITION
                positions += 1
                later_games += state.game > 0
                varied += len(keys) > 1
                legal = state.legal_move_ids()
                state.apply_id(legal[int(pick() * len(legal))])
        calls += done
    assert calls >= CALLS
    assert later_games  # the points match reached its later games
    assert varied >= 0.95 * positions  # the samples are not stuck on one world
