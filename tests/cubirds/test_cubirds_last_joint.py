"""Several piles where even the rare pilot keeps almost nothing: the joint programme once more
with ``hidden_exact.LAST_JOINT_SHARE`` times the limits, whatever its classes (session 32).

Five players, default rules, seeded game 32 after 130 decisions: three piles since the last
public source, 17 classes of boxes (past ``RARE_CLASSES``, so the larger joint try of session
12 is not made), the emptied pile pinned, and the chains' rejection step keeping none of the
fixed-seed pilot's 128 proposals. Before, a call there cost about 50 ms and one in five gave up
after ``REJECT_TRIES`` proposals (the inexact replay). Now its joint count fits (about 0.3 s
once) and every call samples it exactly. Where even that count does not fit and no pile drawn
to its end could be pinned, the chains are built again with ``LAST_GROUP_STEPS`` for the groups
of a pile's split (the online variant's first pile, below)."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position
from cubirds_worlds import fresh_model


@pytest.fixture(scope="module")
def state() -> State:
    return game_position(State, Config(num_players=5), 32, 130)


_model = fresh_model


def _samples_agree(state: State, model: ExactModel, calls: int) -> None:
    """``calls`` samples of ``model`` (none given up) and of ``determinize``, which agree with
    what the seat saw."""
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(calls):
        assert model.sample(rng) is not None
        world = state.determinize(p, rng)
        assert world.view(p) == state.view(p)
        assert sum(map(sum, world.hands)) == sum(state.hand_sizes)


def test_the_joint_count_serves_where_the_rejection_keeps_nothing(state):
    model = _model(state)
    assert len(model.piles) == 3 and model._classes() > he.RARE_CLASSES
    assert model.seats is None and model.joint is not None
    _samples_agree(state, model, 20)


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


def _online_position() -> State:
    # The online variant (``draw_after_empty_hand``): rounds end later, so the first pile
    # spans many draws of every seat.
    return game_position(State, Config(num_players=5, draw_after_empty_hand=True), 0, 87)


def test_where_the_joint_count_does_not_fit_the_chains_pin_the_first_pile_with_more_steps(
    monkeypatch,
):
    """Five players, online variant, seeded game 0 after 87 decisions: two piles, 22 classes
    (the last joint try does not fit), the first pile drawn to its end by four seats with
    several boxes each. With the groups' usual limit it cannot be pinned (the last pile is, and
    the rejection keeps none of the pilot's proposals: most calls gave up). With
    ``LAST_GROUP_STEPS`` the first pile is pinned, the pilot keeps half, every call samples."""
    state = _online_position()
    model = _model(state)
    assert len(model.piles) == 2 and model.joint is None and model.seats is not None
    assert model.pile_pin.index == 0 and len(model.pile_pin.pins) == 4
    assert model._pilot_kept(he.RARE_DRAWS, 32) >= 32
    _samples_agree(state, model, 10)
    monkeypatch.setattr(he, "LAST_GROUP_STEPS", 0)  # only the joint count's last try
    old = _model(state)
    assert old.pile_pin.index == 1 and old._pilot_kept(he.RARE_DRAWS, he.LAST_KEPT) == 0
