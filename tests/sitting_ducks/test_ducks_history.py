"""Samples after reshuffles at six players have a history (issue 16): every world ``determinize``
gives is one in which the whole public record could have happened, checked by a search that
shares no code with the samplers (``ducks_history.py``).

``test_ducks_determinize_many.py`` makes its 100,000 checks before the first reshuffle of each
game, where a backward search seat by seat is complete. After a reshuffle the seats' draws share
the piles, so the check here searches their histories together. It is itself checked against
brute force on the tiny decks of ``test_ducks_exact_reshuffled.py``: among every world with the
right cards, it accepts exactly those the enumeration finds.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, exact
from ducks_exact import _owner_choices, exact_posterior, hidden_key
from ducks_history import has_history
from test_ducks_exact_reshuffled import CASES, case_state


def _sub_multisets(pool: Counter, size: int) -> list[tuple[int, ...]]:
    kinds = sorted(k for k, c in pool.items() if c)
    out: list[tuple[int, ...]] = []

    def extend(i: int, left: int, taken: list[int]) -> None:
        if left == 0:
            out.append(tuple(taken))
            return
        if i == len(kinds):
            return
        k = kinds[i]
        for c in range(min(pool[k], left), -1, -1):
            extend(i + 1, left - c, taken + [k] * c)

    extend(0, size, [])
    return out


def _candidate_worlds(state: State, player: int):
    """Every (owners, hands, draw pile) holding exactly the cards ``player`` has not seen, with
    every hand of its true size, for every colour assignment that leaves ``player`` its own."""
    unseen = Counter(state.draw)
    for q, hand in enumerate(state.hands):
        if q != player:
            unseen.update(hand)
    others = [q for q in range(state.num_players) if q != player]

    def split(i: int, pool: Counter, hands: list):
        if i == len(others):
            yield hands, sorted(pool.elements())
            return
        for hand in _sub_multisets(pool, len(state.hands[others[i]])):
            yield from split(i + 1, pool - Counter(hand), [*hands, hand])

    for owners in _owner_choices(state, player):
        for chosen, draw in split(0, unseen, []):
            hands = [None] * state.num_players
            hands[player] = list(state.hands[player])
            for q, hand in zip(others, chosen):
                hands[q] = list(hand)
            yield owners, hands, draw


@pytest.mark.parametrize("n,mode,deck,seed,decisions,count", CASES)
def test_the_history_check_accepts_exactly_the_brute_force_worlds(
    n, mode, deck, seed, decisions, count
):
    state = case_state(n, mode, deck, seed, decisions)
    player = state.current_player
    worlds = set(exact_posterior(state, player))
    accepted, candidates = set(), 0
    for owners, hands, draw in _candidate_worlds(state, player):
        candidates += 1
        if has_history(state, player, owners, hands, draw):
            accepted.add(hidden_key(state, player, owners, hands, draw))
    assert accepted == worlds
    assert candidates > len(worlds)  # some candidate had to be turned down


#: Six players: (config, first game seed, every how many decisions after a reshuffle).
SIX = [
    (Config(num_players=6), 500, 5),
    (Config(num_players=6, mode="hidden"), 600, 5),
    (Config(num_players=6, points_games=3), 700, 7),
]
#: Samples checked per configuration, and per position.
CHECKS, PER_POSITION = 600, 2


@pytest.mark.parametrize("cfg,first_seed,every", SIX, ids=["standard", "hidden", "points"])
def test_samples_after_reshuffles_at_six_players_have_a_history(cfg, first_seed, every):
    checks = positions = 0
    seed = first_seed
    while checks < CHECKS:
        pick = random.Random(seed).random
        state = State(cfg, seed=seed)
        seed += 1
        after = 0
        while not state.terminal and not state.truncated and checks < CHECKS:
            if not exact.applies(state):  # after a reshuffle
                after += 1
                if after % every == 0:
                    player = state.current_player
                    rng = np.random.default_rng([seed, state.move_count])
                    for _ in range(PER_POSITION):
                        world = state.determinize(player, rng)
                        assert world.view(player) == state.view(player)
                        found = has_history(
                            state, player, world.colour_owner, world.hands, world.draw
                        )
                        assert found, f"game {seed - 1}, move {state.move_count}: no history"
                        checks += 1
                    positions += 1
            legal = state.legal_move_ids()
            state.apply_id(legal[int(pick() * len(legal))])
    assert positions >= CHECKS // PER_POSITION
