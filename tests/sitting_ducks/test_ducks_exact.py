"""``determinize`` draws from the exact posterior until the first reshuffle (issue 16).

Small positions (3 players, decks of 14 cards, a few turns in) are solved by brute force
(``ducks_exact.py``: every arrangement of the unseen cards and every colour assignment, replayed
against the record), and the sampler's frequencies over the hidden states are compared with
the exact ones by a chi-square test with fixed seeds. The same check, run on the replay sampler
that serves the positions after a reshuffle, must reject it: the replay is not exact (measured
there: total variation 0.1 to 0.2 on these positions), which shows the check has the power to
fail.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, exact
from cardzoo.envs.sitting_ducks.sampling import resample_hidden
from ducks_exact import exact_posterior, hidden_key
from scipy.stats import chi2

_NONE = (
    "line_forward:0,take_aim:0,shoot:0,double_barrel:0,quick_shot:0,misfire:0,two_birds:0,"
    "bump_left:0,bump_right:0,move_ahead:0,hang_back:0,fast_forward:0,"
    "disorderly_conduckt:0,duck_shuffle:0,duck_and_cover:0,bottoms_up:0"
)
MIXED = _NONE + ",take_aim:5,shoot:5,line_forward:4"  # no card needs a colour
SHOOTS = _NONE + ",take_aim:3,shoot:8,line_forward:3"  # hands of Shoots: forced discards
# Discards that depend on the colour (Duck and Cover, Move Ahead need one of your ducks).
COVER = _NONE + ",shoot:8,take_aim:3,duck_and_cover:3,move_ahead:3"

#: (mode, deck, game seed, random decisions played); the viewer is the seat to play.
CASES = [
    ("standard", MIXED, 0, 2),
    ("standard", MIXED, 2, 4),
    ("standard", SHOOTS, 1, 4),  # after a forced discard
    ("hidden", MIXED, 1, 2),
    ("hidden", COVER, 12, 4),  # two forced discards whose masks differ per colour
]
SAMPLES = 4000
#: Chance that an exact sampler fails one case.
ALPHA = 1e-4


def played(cfg: Config, seed: int, decisions: int) -> State:
    pick = random.Random(seed).random
    state = State(cfg, seed=seed)
    for _ in range(decisions):
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick() * len(legal))])
    return state


def p_value(exact_counts: Counter, sampled: Counter, n: int) -> float:
    """Chi-square test of ``sampled`` against the exact world counts; hidden states expected
    fewer than 5 times are pooled into one cell. 0 if any sample is not a consistent world."""
    if any(key not in exact_counts for key in sampled):
        return 0.0
    total = sum(exact_counts.values())
    cells: list[tuple[float, int]] = []
    rest_expected, rest_seen = 0.0, 0
    for key, worlds in exact_counts.items():
        expected = n * worlds / total
        if expected < 5:
            rest_expected += expected
            rest_seen += sampled[key]
        else:
            cells.append((expected, sampled[key]))
    if rest_expected:
        cells.append((rest_expected, rest_seen))
    stat = sum((seen - e) ** 2 / e for e, seen in cells)
    return float(chi2.sf(stat, max(len(cells) - 1, 1)))


def counts_of(sampler, state: State, player: int, seed: int) -> Counter:
    rng = np.random.default_rng(seed)
    out: Counter = Counter()
    for _ in range(SAMPLES):
        owners, hands, draw = sampler(state, player, rng)
        out[hidden_key(state, player, owners, hands, draw)] += 1
    return out


def case_state(mode: str, deck: str, seed: int, decisions: int) -> State:
    state = played(Config(num_players=3, mode=mode, action_deck_counts=deck), seed, decisions)
    assert exact.applies(state)
    return state


@pytest.mark.parametrize("mode,deck,seed,decisions", CASES)
def test_exact_sampler_matches_the_brute_force(mode, deck, seed, decisions):
    state = case_state(mode, deck, seed, decisions)
    player = state.current_player
    worlds = exact_posterior(state, player)
    assert len(worlds) > 1
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


def test_the_cases_cover_forced_discards_and_colour_dependent_masks():
    forced = []
    for mode, deck, seed, decisions in CASES:
        state = case_state(mode, deck, seed, decisions)
        forced += [e[2] for e in state._log[1 : state._log_len] if e[2] is not None]
    assert forced
    assert any(len(set(masks)) > 1 for masks in forced)


def test_the_check_rejects_the_replay_sampler():
    """The replay (used after a reshuffle) proposes the token behind each play by its pile's
    share, which is not the posterior: the check must see it."""
    state = case_state("standard", MIXED, 2, 4)
    player = state.current_player
    worlds = exact_posterior(state, player)
    sampled = counts_of(resample_hidden, state, player, 0)
    assert p_value(worlds, sampled, SAMPLES) < 1e-12


def assert_determinize_is_the_exact_sample(state: State, player: int, seeds: int = 5) -> None:
    """``determinize`` returns exactly what the exact sampler draws from the same stream (after
    the shuffle of the unseen pile order that determinize makes first)."""
    for seed in range(seeds):
        world = state.determinize(player, np.random.default_rng(seed))
        rng = np.random.default_rng(seed)
        rng.permutation(len(state.deck) - min(state.known_bottom, len(state.deck)))
        owners, hands, draw = exact.sample(state, player, rng)
        assert (world.hands, world.draw, world.colour_owner) == (hands, draw, owners)


def test_determinize_uses_the_exact_sampler_until_the_first_reshuffle():
    state = case_state("standard", MIXED, 0, 2)
    player = state.current_player
    assert_determinize_is_the_exact_sample(state, player)
    # The first reshuffle ends it.
    while not any(e[3] is not None for e in state._log[1 : state._log_len]):
        assert exact.applies(state)
        state.apply_id(state.legal_move_ids()[0])
    assert not exact.applies(state)


def test_no_consistent_world_raises():
    state = case_state("standard", SHOOTS, 1, 4)
    j = next(i for i, e in enumerate(state._log) if i and e[2] is not None)
    q, card, forced, reshuffled, drawn = state._log[j]
    # A forced discard with an empty unplayable mask: no hand can satisfy it.
    state._log[j] = (q, card, (0,), reshuffled, drawn)
    with pytest.raises(RuntimeError, match="no world is consistent"):
        exact.sample(state, (q + 1) % 3, np.random.default_rng(0))
