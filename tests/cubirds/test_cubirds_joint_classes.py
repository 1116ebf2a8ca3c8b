"""Several piles since the last public source: the joint programme is tried first only with at
most ``hidden_exact.MULTI_JOINT_CLASSES`` classes of boxes (session 17). Along 6 seeded games
none with more fitted its limits (0 of 21 at four players, 0 of 4 at five), and each failure
cost about 12,000 steps. The chains then serve as they did after the failure, so the samples
are the same.

The position: four players, ``game_position``'s seeded game 1 after 94 decisions (17 classes)."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position


def _model(state: State) -> ExactModel:
    he._BUILT.clear()
    model = ExactModel(state.log, state.current_player, 4)
    assert model.build() and len(model.piles) > 1
    return model


def test_a_position_with_many_classes_skips_the_joint_programme_for_the_same_samples(monkeypatch):
    state = game_position(State, Config(num_players=4), 1, 94)
    now = _model(state)
    assert now._classes() > he.MULTI_JOINT_CLASSES
    assert not now.joint_tried and now.seats is not None
    monkeypatch.setattr(he, "MULTI_JOINT_CLASSES", 100)  # before session 17
    before = _model(state)
    assert before.joint_tried and before.joint is None and before.seats is not None
    a, b = np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(30):
        assert now.sample_counts(a) == before.sample_counts(b)
