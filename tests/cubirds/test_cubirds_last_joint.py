"""Several piles where even the rare pilot keeps almost nothing: the joint programme once more
with ``hidden_exact.LAST_JOINT_SHARE`` times the limits, whatever its classes (session 32).

Five players, default rules, seeded game 32 after 130 decisions: three piles since the last
public source, 17 classes of boxes (past ``RARE_CLASSES``, so the larger joint try of session
12 is not made), the emptied pile pinned, and the chains' rejection step keeping none of the
fixed-seed pilot's 128 proposals. Before, a call there cost about 50 ms and one in five gave up
after ``REJECT_TRIES`` proposals (the inexact replay). Now its joint count fits (about 0.3 s
once) and every call samples it exactly."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.train.bench_loops import game_position
from cubirds_worlds import fresh_model


@pytest.fixture(scope="module")
def state() -> State:
    return game_position(State, Config(num_players=5), 32, 130)


_model = fresh_model


def test_the_joint_count_serves_where_the_rejection_keeps_nothing(state):
    model = _model(state)
    assert len(model.piles) == 3 and model._classes() > he.RARE_CLASSES
    assert model.seats is None and model.joint is not None
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert model.sample(rng) is not None
        world = state.determinize(p, rng)
        assert world.view(p) == state.view(p)
        assert sum(map(sum, world.hands)) == sum(state.hand_sizes)


def test_without_it_the_chains_keep_almost_nothing_and_calls_give_up(state, monkeypatch):
    monkeypatch.setattr(he, "LAST_JOINT_SHARE", 0.0)  # before session 32
    old = _model(state)
    assert old.joint is None and old.seats is not None and old.pile_pin is not None
    assert old._pilot_kept(he.RARE_DRAWS, he.LAST_KEPT) < he.LAST_KEPT
    monkeypatch.setattr(he, "REJECT_TRIES", 200)  # (a tenth of the tries: the test's time)
    given_up = sum(old.sample(np.random.default_rng(k)) is None for k in range(10))
    assert given_up >= 5


def test_the_choice_is_the_seats_information_alone(state):
    # The pilot is seeded: a second build from the same log chooses the same.
    assert _model(state).joint is not None
    assert _model(state).seats is None
