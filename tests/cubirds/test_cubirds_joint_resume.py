"""A joint programme that exceeded its limits goes on from the states it counted when it is
built again with larger ones (``Programme.build``, session 17): a state's entry is kept only once
all its choices are counted, so the second build counts exactly what one build with the larger
limits counts. ``ExactModel._build_joint`` uses it where the rejection keeps too few and the joint
programme is tried again with ``RARE_JOINT_SHARE`` times the limits.

The position: four players, ``game_position``'s seeded game 2 after 137 decisions (two piles
since the last public source), whose joint programme exceeds a quarter of its usual limits."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.hidden_count import Programme
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position


def _model() -> ExactModel:
    state = game_position(State, Config(num_players=4), 2, 137)
    he._BUILT.clear()
    model = ExactModel(state.log, state.current_player, 4)
    assert model.build() and len(model.piles) > 1
    return model


def _programme(model: ExactModel) -> Programme:
    return Programme(model.box_size, model.box_pile, model.box_label, model.iv_req, model.avail)


def test_a_programme_built_again_goes_on_from_what_it_counted():
    model = _model()
    fresh = _programme(model)
    assert fresh.build(800, 12_000)
    resumed = _programme(model)
    assert not resumed.build(200, 3_000)
    assert resumed.tables is None  # nothing to sample from after a failed build
    assert resumed.build(600, 9_000)  # the rest of the larger limits
    assert resumed.total == fresh.total
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    for _ in range(50):
        assert resumed.sample_counts(a) == fresh.sample_counts(b)
    # The control: built afresh, the second limits alone are too few.
    assert not _programme(model).build(600, 9_000)


def test_the_model_tries_the_joint_programme_again_from_where_it_stopped(monkeypatch):
    monkeypatch.setattr(he, "LEVELS_SHARE", float("inf"))  # (depth first at every share)
    model = _model()
    model.joint = None
    model._partial_joint = (None, 0.0)
    assert not model._build_joint(0.5)
    partial, spent = model._partial_joint
    assert partial is not None and spent == 0.5
    assert not model._build_joint(0.25)  # a smaller share than already spent: nothing to do
    assert model._build_joint(2.0)
    assert model.joint is partial and model._partial_joint == (None, 0.0)
    fresh = _programme(model)
    assert fresh.build(*(2 * limit for limit in model.limits))
    assert model.joint.total == fresh.total
