"""``determinize`` stays exact after reshuffles of the action cards (issue 16, ``reshuffled.py``).

Tiny positions one, two and three reshuffles in (3 players, the 2-player duel, and 4 players one
reshuffle in; decks of 12 to 16 cards; forced discards after a reshuffle; hidden mode with
forced discards whose masks differ per colour) are solved by brute force (``ducks_exact.py``
enumerates every pile's arrangements, each reshuffled pile included, and replays the record),
and the sampler's frequencies are compared with a chi-square test (fixed seeds), as in
``test_ducks_exact.py``. The replay sampler, which served these positions before, fails the
same check. Five and six players after a reshuffle are covered by ``crowded.py``
(``test_ducks_exact_crowded.py``), by default; switched off (``reshuffled.CROWDED``) the replay
serves them, a consistent world.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, exact, last_split, now, reshuffled
from cardzoo.envs.sitting_ducks.sampling import resample_hidden
from cardzoo.train.bench_loops import game_positions
from ducks_exact import exact_posterior
from test_ducks_exact import (
    _NONE,
    ALPHA,
    MIXED,
    SAMPLES,
    assert_determinize_is_the_exact_sample,
    counts_of,
    p_value,
    played,
)

SMALL = _NONE + ",take_aim:4,shoot:5,line_forward:3"
SHOOTS12 = _NONE + ",take_aim:2,shoot:7,line_forward:3"  # forced discards after reshuffles
# Duck and Cover, Move Ahead: a forced discard's unplayable kinds depend on the colour.
COVER12 = _NONE + ",shoot:5,take_aim:3,duck_and_cover:2,move_ahead:2"
FOUR = _NONE + ",take_aim:6,shoot:7,line_forward:3"  # 4 players: three seats share each split

#: (players, mode, deck, game seed, random decisions played, reshuffles by then).
CASES = [
    (3, "standard", MIXED, 0, 8, 1),
    (3, "standard", SHOOTS12, 1, 9, 2),
    (3, "standard", SHOOTS12, 0, 12, 3),
    (3, "standard", SMALL, 0, 12, 3),
    (3, "hidden", COVER12, 2, 7, 1),
    (3, "hidden", COVER12, 2, 11, 2),
    (2, "team", SMALL, 1, 14, 2),
    (4, "standard", FOUR, 1, 7, 1),
]


def reshuffles(state: State) -> int:
    return sum(1 for e in state._log[1 : state._log_len] if e[3] is not None)


def case_state(n: int, mode: str, deck: str, seed: int, decisions: int) -> State:
    return played(Config(num_players=n, mode=mode, action_deck_counts=deck), seed, decisions)


@pytest.mark.parametrize("n,mode,deck,seed,decisions,count", CASES)
def test_exact_after_reshuffles_matches_the_brute_force(
    monkeypatch, n, mode, deck, seed, decisions, count
):
    # The summed last step (the default takes it only for tables under ``MAX_CELLS``, a few
    # of these cases' tables are larger): the rejection path has its own test below.
    monkeypatch.setattr(reshuffled, "MAX_CELLS", 600_000)
    monkeypatch.setattr(exact, "_CACHE", {})
    state = case_state(n, mode, deck, seed, decisions)
    assert reshuffles(state) == count and not exact.applies(state)
    player = state.current_player
    assert reshuffled.Posterior(state, player).final is not None  # the hands now summed
    worlds = exact_posterior(state, player)
    assert len(worlds) > 1
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


@pytest.mark.parametrize("dealt", [None, 0.0, float("inf"), "last"])
@pytest.mark.parametrize("batches", [(1,), (4, 16)])
@pytest.mark.parametrize("case", [1, 4, 5, 7])
def test_the_rejection_path_matches_the_brute_force(monkeypatch, case, batches, dealt):
    """Where the hands now have too many ways to be summed exactly (``MAX_CELLS``), they come
    by rejection, one proposal at a time or in batches: still exact, whether the seats' hands
    now are drawn on their own, dealt from what is left (``now.py``; ``dealt`` 0: every seat
    that can be, infinite: none, "last": the last seat alone, by ``now.DEAL_LAST_FROM_LEFT``
    whatever the pile holds) or chosen per seat (None: the default rules)."""
    monkeypatch.setattr(reshuffled, "MAX_CELLS", 0)
    if dealt == "last":
        monkeypatch.setattr(now, "DEALT_AT_LEAST", float("inf"))
        monkeypatch.setattr(now, "DEAL_LAST_PILE", 99)
    elif dealt is not None:
        monkeypatch.setattr(now, "DEALT_AT_LEAST", dealt)
        monkeypatch.setattr(now, "DEAL_LAST_FROM_LEFT", False)
    monkeypatch.setattr(reshuffled, "BATCHES", batches)
    monkeypatch.setattr(reshuffled, "ADAPTIVE", False)  # these batches wherever a trial ran
    monkeypatch.setattr(exact, "_CACHE", {})
    post = _rejection_posterior(case)
    lasts = [last for chain in post.chains for last in chain.lasts]
    if dealt == 0.0:  # every seat dealt wherever its hand at the reshuffle is possible
        assert all(last.dealt[last.norm > 0].all() for last in lasts)
    elif dealt == "last":
        assert all(not last.dealt.any() for c in post.chains for last in c.lasts[:-1])
        assert any(c.lasts[-1].dealt.any() for c in post.chains)
    elif dealt is not None:
        assert not any(last.dealt.any() for last in lasts)
    _assert_case_matches_the_brute_force(case)


def _rejection_posterior(case: int) -> reshuffled.Posterior:
    """The posterior of ``CASES[case]`` for the seat to play, its hands now by rejection."""
    n, mode, deck, seed, decisions, _ = CASES[case]
    state = case_state(n, mode, deck, seed, decisions)
    post = reshuffled.Posterior(state, state.current_player)
    assert post.final is None
    return post


def _assert_case_matches_the_brute_force(case: int) -> None:
    n, mode, deck, seed, decisions, _ = CASES[case]
    state = case_state(n, mode, deck, seed, decisions)
    worlds = exact_posterior(state, state.current_player)
    sampled = counts_of(exact.sample, state, state.current_player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


@pytest.mark.parametrize("case", [1, 4, 5, 7])
def test_too_many_splits_to_list_are_summed_as_at_five_players(monkeypatch, case):
    """Three and four players where a reshuffle's multiset has more than ``MAX_SPLITS``
    splits (forced here with a limit of 1): the splits the record allows are summed as at five
    and six players (``crowded.py``, since session 11; the replay before), still exact."""
    monkeypatch.setattr(reshuffled, "MAX_SPLITS", 1)
    monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)  # however rarely tiny decks accept
    monkeypatch.setattr(reshuffled, "_LISTS", {})
    monkeypatch.setattr(exact, "_CACHE", {})
    post = _rejection_posterior(case)
    assert all(isinstance(c, (last_split.Swept, last_split.Staged)) for c in post.chains)
    _assert_case_matches_the_brute_force(case)


def test_too_many_splits_go_to_the_replay_when_switched_off(monkeypatch):
    monkeypatch.setattr(reshuffled, "MAX_SPLITS", 1)
    monkeypatch.setattr(reshuffled, "CROWDED", False)
    monkeypatch.setattr(reshuffled, "_LISTS", {})
    n, mode, deck, seed, decisions, _ = CASES[7]
    state = case_state(n, mode, deck, seed, decisions)
    with pytest.raises(reshuffled.NotCovered):
        reshuffled.Posterior(state, state.current_player)


def test_the_cases_cover_forced_discards_after_a_reshuffle():
    after, per_colour = [], []
    for n, mode, deck, seed, decisions, _ in CASES:
        log = case_state(n, mode, deck, seed, decisions)._log
        first = next(i for i, e in enumerate(log) if i and e[3] is not None)
        after += [e[2] for e in log[first:] if e[2] is not None]
        per_colour += [len(set(e[2])) > 1 for e in log[first:] if e[2] is not None]
    assert after and any(per_colour)


def test_the_check_rejects_the_replay_after_a_reshuffle():
    n, mode, deck, seed, decisions, _ = CASES[3]
    state = case_state(n, mode, deck, seed, decisions)
    player = state.current_player
    worlds = exact_posterior(state, player)
    sampled = counts_of(resample_hidden, state, player, 0)
    assert p_value(worlds, sampled, SAMPLES) < 1e-12


def test_determinize_uses_the_exact_sampler_after_a_reshuffle():
    n, mode, deck, seed, decisions, _ = CASES[2]
    state = case_state(n, mode, deck, seed, decisions)
    assert_determinize_is_the_exact_sample(state, state.current_player)


def test_five_and_six_players_after_a_reshuffle_are_exact_by_default(monkeypatch):
    """On by default (``reshuffled.CROWDED``; ``test_ducks_exact_crowded.py`` checks it
    against the brute force): the exact sampler serves these positions and ``determinize``
    returns its sample. Switched off, the exact sampler declines (None, no rng drawn) and the
    replay serves them, still a consistent world."""
    for n in (5, 6):
        for state in game_positions(State, Config(num_players=n), 2, seed=100)["late"]:
            assert reshuffles(state) >= 1
            player = state.current_player
            found = exact.sample(state, player, np.random.default_rng(0))
            assert found is not None
            world = state.determinize(player, np.random.default_rng(0))
            assert world.hands == found[1] and world.draw == found[2]
            with monkeypatch.context() as switched:
                switched.setattr(reshuffled, "CROWDED", False)
                switched.setattr(exact, "_CACHE", {})  # it keeps the covered positions
                rng = np.random.default_rng(0)
                assert exact.sample(state, player, rng) is None
                assert rng.random() == np.random.default_rng(0).random()
                world = state.determinize(player, np.random.default_rng(1))
                assert world.view(player) == state.view(player)


def test_two_to_four_players_are_covered_after_reshuffles():
    for n, mode in [(2, "team"), (3, "standard"), (3, "hidden"), (4, "standard")]:
        for state in game_positions(State, Config(num_players=n, mode=mode), 2, seed=100)["late"]:
            assert reshuffles(state) >= 1
            assert exact.sample(state, state.current_player, np.random.default_rng(0))


def test_the_kept_prefix_gives_what_a_fresh_walk_gives():
    """From one reshuffle to the next the record before the last reshuffle is summed once
    (``_PREFIXES``); a later position of the same game must weigh its worlds as if walked
    afresh."""
    state = played(Config(num_players=4), 3, 0)
    checked = 0
    while not state.terminal and checked < 6:
        state.apply_id(state.legal_move_ids()[0])
        if not reshuffles(state):
            continue
        player = state.current_player
        kept = reshuffled.Posterior(state, player)
        reshuffled._PREFIXES.clear()
        fresh = reshuffled.Posterior(state, player)
        for a, b in zip(kept.chains, fresh.chains):
            assert np.allclose(a.cum, b.cum) and a.log_weight == pytest.approx(b.log_weight)
        checked += 1
    assert checked == 6
