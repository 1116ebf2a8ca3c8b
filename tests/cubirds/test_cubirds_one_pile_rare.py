"""Cubirds ``determinize`` at one pile where the rejection step keeps few proposals and the
joint count exceeded its first share of the limits (``hidden_exact.JOINT_SHARE``): a seeded
pilot of ``RARE_DRAWS`` proposals keeping fewer than ``ONE_RARE_KEPT`` sends the joint count on
to ``ONE_RARE_SHARE`` of the limits (session 24). Both samplers are exact; the pilot's seed is
fixed, so the choice is a function of the seat's information. With several piles the same
bar (``FEW_KEPT``) sends the joint count on where the boxes fall into at most ``FEW_CLASSES``
classes (elsewhere the bar stays ``RARE_KEPT``).

The position: the middle of the bench's four-player game 13, where the rejection keeps about
2.5 % of its proposals (about 1 ms a call) and the joint count fits in half the limits.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_exact
from cardzoo.envs.cubirds.game import Config, State
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position
from cubirds_small_logs import worst_p_value


@pytest.fixture(autouse=True)
def _share_as_written(monkeypatch):
    # Written for the several piles' first joint try at twice the limits (16 times since
    # session 27, where these positions' joint counts fit at once).
    monkeypatch.setattr(hidden_exact, "MULTI_JOINT_SHARE", 2.0)


SAMPLES = 1500
ALPHA = 1e-4


def _state() -> State:
    return game_position(State, Config(num_players=4), 13, 0.5)


def _model(state: State, monkeypatch, share: float) -> ExactModel:
    monkeypatch.setattr(hidden_exact, "ONE_RARE_SHARE", share)
    model = ExactModel(state.log, state.current_player, state.num_players)
    assert model.build()
    return model


def _worlds(model: ExactModel, seed: int) -> Counter:
    """Per sample, the other seats' hidden counts and the draw pile's (``worst_p_value``'s
    keys)."""
    rng = np.random.default_rng(seed)
    got: Counter = Counter()
    for _ in range(SAMPLES):
        hidden, draw = model.sample(rng)[:2]
        got[(tuple(tuple(h) for h in hidden if h is not None), tuple(draw))] += 1
    return got


def test_a_lone_pile_keeping_few_proposals_is_counted_with_the_larger_limits(monkeypatch):
    state = _state()
    chains = _model(state, monkeypatch, 0.0)
    assert len(chains.piles) == 1 and chains.pile_pin is None
    assert chains.seats is not None and chains.joint is None and chains.joint_tried
    kept = chains._pilot_kept(hidden_exact.RARE_DRAWS, hidden_exact.ONE_RARE_KEPT)
    assert 0 < kept < hidden_exact.ONE_RARE_KEPT
    joint = _model(state, monkeypatch, hidden_exact.ONE_RARE_SHARE or 2.0)
    assert joint.seats is None and joint.joint is not None
    # A share no larger than the first one: nothing more is tried.
    assert _model(state, monkeypatch, hidden_exact.JOINT_SHARE).seats is not None


def test_the_joint_count_and_the_chains_sample_the_same_law(monkeypatch):
    state = _state()
    chains = _model(state, monkeypatch, 0.0)
    joint = _model(state, monkeypatch, 2.0)
    assert joint.joint is not None and chains.seats is not None
    p = worst_p_value(_worlds(chains, 1), _worlds(joint, 2))
    assert p > ALPHA, p


def test_several_piles_with_few_classes_go_to_the_joint_count_below_a_higher_bar(monkeypatch):
    # The bench's five-player middle game 12: two piles, 10 classes of boxes, the pilot keeping
    # fewer than FEW_KEPT (but not fewer than RARE_KEPT) of RARE_DRAWS proposals (session 24).
    state = game_position(State, Config(num_players=5), 12, 0.5)
    models = {}
    for bar in (hidden_exact.RARE_KEPT, hidden_exact.FEW_KEPT):
        monkeypatch.setattr(hidden_exact, "FEW_KEPT", bar)
        model = models[bar] = ExactModel(state.log, state.current_player, 5)
        assert model.build() and len(model.piles) == 2
        assert model._classes() <= hidden_exact.FEW_CLASSES
    assert models[hidden_exact.RARE_KEPT].seats is not None
    assert models[hidden_exact.RARE_KEPT].joint is None
    kept = models[hidden_exact.RARE_KEPT]._pilot_kept(hidden_exact.RARE_DRAWS, 10**9)
    assert hidden_exact.RARE_KEPT <= kept < hidden_exact.FEW_KEPT
    few = models[hidden_exact.FEW_KEPT]
    assert few.seats is None and few.joint is not None
    # More classes than FEW_CLASSES: the usual bar.
    monkeypatch.setattr(hidden_exact, "FEW_CLASSES", few._classes() - 1)
    again = ExactModel(state.log, state.current_player, 5)
    assert again.build() and again.seats is not None


def test_past_six_classes_the_larger_try_alone_serves_a_lone_pile(monkeypatch):
    """Session 25: four players, seeded game 1000 after 73 decisions (one pile, 9 classes of
    boxes; the rejection keeps about 1 proposal in 200, a call cost 4-8 ms). Past
    ``JOINT_CLASSES`` the joint count used not to be tried at one pile; now, where the pilots
    keep few, its larger try alone is (up to ``ONE_RARE_CLASSES``), and it fits in four times
    the limits. The samples agree with what the seat saw."""
    from cardzoo.envs import cubirds_v0
    from cardzoo.train.bench_loops import game_moves

    config = cubirds_v0.GAME.make_config(num_players=4)
    state = cubirds_v0.GAME.state_cls(config, seed=1000)
    for move in game_moves(type(state), config, 1, 1000)[0][:73]:
        state.apply_id(move)
    hidden_exact._BUILT.clear()
    model = ExactModel(state.log, state.current_player, 4)
    assert model.build() and len(model.piles) == 1
    assert model._classes() > hidden_exact.JOINT_CLASSES
    assert model.seats is None and model.joint is not None
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert state.determinize(p, rng).view(p) == state.view(p)
    monkeypatch.setattr(hidden_exact, "ONE_RARE_CLASSES", hidden_exact.JOINT_CLASSES)  # before
    old = ExactModel(state.log, p, 4)
    assert old.build() and old.seats is not None and not old.joint_tried
    monkeypatch.setattr(hidden_exact, "ONE_RARE_CLASSES", 14)
    monkeypatch.setattr(hidden_exact, "ONE_RARE_SHARE", 2.0)  # session 24's share: too small
    small = ExactModel(state.log, p, 4)
    assert small.build() and small.seats is not None and small.joint_tried
