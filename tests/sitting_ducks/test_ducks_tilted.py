"""Five and six players: the hands now drawn tilted where the plain rejection accepts too
rarely (``envs/sitting_ducks/tilted.py``, issue 16).

The tilted sampler is compared with a brute-force enumeration of every world on the tiny
five-player positions of ``test_ducks_exact_crowded.py`` (the first trial made to decline),
with the tilt fitted and with a fixed, strong one (which a missing or wrong acceptance
factor would bias). A six-player position the plain trial declines is served tilted.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, exact, last_split, now, reshuffled, tilted
from cardzoo.envs.sitting_ducks.data import NUM_KINDS
from cardzoo.train.bench_loops import game_position
from ducks_exact import exact_posterior
from test_ducks_exact import ALPHA, SAMPLES, counts_of, p_value
from test_ducks_exact_crowded import CASES, _assert_samples_keep_the_view, case_state


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch):
    monkeypatch.setattr(reshuffled, "CROWDED", True)
    monkeypatch.setattr(exact, "_CACHE", {})


def _strong_tilt() -> np.ndarray:
    """A log weight per kind far from zero (the decks here hold Shoots and Take Aims)."""
    tilt = np.zeros(NUM_KINDS)
    tilt[::2] = -1.5
    tilt[1::3] = -0.6
    return tilt


def _fixed(post, rebuild) -> bool:
    rebuild(_strong_tilt())
    return post._trial_accepts(1024, 0.0)


#: One case (the tilt changes the last step only; two reshuffles in, ``TWICE``, cost 17 s
#: fitted and 62 s with the fixed tilt for the same paths).
#: ``alone``: every proposal one at a time (``now.propose_one``), not in batches.
@pytest.mark.parametrize("fixed,alone", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("seed,decisions", [CASES[1]])
def test_tilted_hands_now_match_the_brute_force(monkeypatch, seed, decisions, fixed, alone):
    if alone:
        monkeypatch.setattr(reshuffled, "BATCHES", (1,))
        monkeypatch.setattr(reshuffled, "ADAPTIVE", False)
    monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 2.0)  # the plain trial always declines
    monkeypatch.setattr(tilted, "MIN_ACCEPTANCE", 0.0)  # and the tilted one always serves
    monkeypatch.setattr(tilted, "TRIAL", 1024)
    monkeypatch.setattr(tilted, "PROPOSALS", 1024)
    if fixed:
        monkeypatch.setattr(tilted, "fit", _fixed)
    state = case_state(seed, decisions)
    player = state.current_player
    post = reshuffled.Posterior(state, player)
    for chain in post.chains:
        assert isinstance(chain, last_split.Swept)
        assert all(last.tilt is not None and not last.dealt.any() for last in chain.lasts)
    tilt = post.chains[0].lasts[0].tilt
    assert tilt.max() == 0.0
    if fixed:
        assert np.array_equal(tilt, _strong_tilt())
    worlds = exact_posterior(state, player)
    assert len(worlds) > 1
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


def test_a_tilt_is_a_function_of_the_position():
    """Fitted from fixed seeds: two builds of one position give the same tilt and draws."""
    state = case_state(*CASES[1])
    player = state.current_player
    built = []
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reshuffled, "MIN_ACCEPTANCE", 2.0)
        m.setattr(tilted, "MIN_ACCEPTANCE", 0.0)
        m.setattr(tilted, "TRIAL", 1024)
        for _ in range(2):
            post = reshuffled.Posterior(state, player)
            built.append((post.chains[0].lasts[0].tilt, post.draw(np.random.default_rng(5))))
    assert np.array_equal(built[0][0], built[1][0]) and built[0][1] == built[1][1]


def test_the_tilt_makes_a_kind_short_in_the_unseen_cards_rarer():
    """Moment matching: where the drawn hands hold more of a kind than its share of ``U``,
    its log weight goes down (and the largest is 0)."""
    state = case_state(*CASES[1])
    player = state.current_player
    with pytest.MonkeyPatch.context() as m:
        m.setattr(reshuffled, "MIN_ACCEPTANCE", 2.0)
        m.setattr(tilted, "MIN_ACCEPTANCE", 0.0)
        m.setattr(tilted, "TRIAL", 1024)
        post = reshuffled.Posterior(state, player)
    tilt = post.chains[0].lasts[0].tilt
    assert (tilt <= 0).all() and tilt.max() == 0.0
    assert (tilt[post.unseen_array == 0] == 0).all()


def test_a_position_the_plain_trial_declines_is_served_tilted(monkeypatch):
    """Six players, the seeded random game 1 after 207 decisions (seeds 0-2 along which the
    trial declined three positions, session 17): one card left in the draw pile, five other
    hands of three; the plain rejection accepted about 2 of 409,600 proposals then (about 1
    in 5,600 since session 42's last seat dealt from what the others leave: under the first
    trial's 1/4096 still), so it went to the replay. With the tilt and the plain retry of
    session 44 both off it still would; tilted, the trial accepts at least 1/16,384 and the
    samples keep the view."""
    state = game_position(State, Config(num_players=6), 1, 207)
    player = state.current_player
    assert len(state.draw) == 1
    with monkeypatch.context() as m:
        m.setattr(tilted, "fit", lambda post, rebuild: False)
        m.setattr(reshuffled, "PLAIN_AFTER_TILT", False)
        with pytest.raises(reshuffled.NotCovered):
            reshuffled.Posterior(state, player)
    post = reshuffled.Posterior(state, player)
    assert all(c.lasts[0].tilt is not None for c in post.chains)
    accepted = post._proposals(np.random.default_rng(1), tilted.TRIAL)[2].sum()
    assert accepted >= tilted.TRIAL * tilted.MIN_ACCEPTANCE
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    _assert_samples_keep_the_view(state, player)


def test_where_the_tilt_does_worse_the_plain_proposals_serve(monkeypatch):
    """Six players, the seeded random game 3211 after 169 decisions: the draw pile is empty;
    the plain proposals accept about 1/4100 (under the first trial's 1/4096), the tilted ones
    about 1/16,900 (under their 1/16,384). Before session 44 the replay served it. Now the
    plain proposals are tried again with the tilted trial's length and floor and serve: the
    same samples as a first trial with that length and floor gives (the chains are the plain
    ones again), and each keeps the view."""
    state = game_position(State, Config(num_players=6), 3211, 169)
    player = state.current_player
    assert len(state.draw) == 0 and reshuffled.PLAIN_AFTER_TILT

    def draws(**settings) -> list | None:
        fresh = game_position(State, Config(num_players=6), 3211, 169)  # (nothing kept)
        with monkeypatch.context() as m:
            for name, value in settings.items():
                m.setattr(reshuffled, name, value)
            try:
                post = reshuffled.Posterior(fresh, player)
            except reshuffled.NotCovered:
                return None
        assert all(c.lasts[0].tilt is None for c in post.chains)
        return [repr(post.draw(np.random.default_rng(k))) for k in range(6)]

    assert draws(PLAIN_AFTER_TILT=False) is None
    served = draws()
    assert served is not None and len(set(served)) > 1
    longer = {"TRIAL": tilted.TRIAL, "MIN_ACCEPTANCE": tilted.MIN_ACCEPTANCE}
    assert served == draws(PLAIN_AFTER_TILT=False, **longer)
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    _assert_samples_keep_the_view(state, player)


def test_tilted_dealing_is_off():
    """A tilted ``LastStep`` draws every seat (the acceptance factor assumes it)."""
    b = np.tile(exact._HANDS[3].orders, (2, 1))  # a uniform deal's weights
    unseen = np.full(NUM_KINDS, 3.0)
    plain = now.LastStep(b, 3, unseen)
    assert plain.dealt.all()  # uniform weights: dealt by the usual rule
    tilt = now.LastStep(b, 3, unseen, tilt=np.zeros(NUM_KINDS))
    assert not tilt.dealt.any() and np.array_equal(tilt.bound, tilt.norm)


def test_a_tilted_row_weighs_and_draws_the_tilted_hands():
    """``norm`` (the seat's bound, the split's weight) and the hands a row draws are both
    ``B * (U)_H * exp(t . H)``: a bound left untilted would bias the splits' weights, which
    the tiny brute-force cases above barely feel."""
    table = exact._HANDS[3]
    rng = np.random.default_rng(2)
    b = rng.random((3, len(table.hands))) * (rng.random((3, len(table.hands))) < 0.3)
    unseen = np.array([3, 2, 1, 3, 0, 2, 1, 1, 0, 3, 2, 1, 1, 0, 2, 1], dtype=float)
    tilt = -rng.random(NUM_KINDS) * 2
    last = now.LastStep(b, 3, unseen, tilt=tilt)
    weights = b * exact._falling(unseen, 3) * np.exp(table.counts @ tilt)
    assert np.allclose(last.norm, weights.sum(axis=1)) and np.allclose(last.bound, last.norm)
    rows = np.repeat(np.arange(3), 20000)
    drawn = last.pick(rows, rng.random(len(rows)))
    for row in range(3):
        seen = np.bincount(drawn[rows == row], minlength=len(table.hands)) / 20000
        assert np.abs(seen - weights[row] / weights[row].sum()).max() < 0.02
