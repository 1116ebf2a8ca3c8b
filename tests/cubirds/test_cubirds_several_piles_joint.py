"""Positions with several piles since the last public source get a larger share of the joint
programme's limits (``hidden_exact.MULTI_JOINT_SHARE``, session 8): there the joint programme is
the cheap exact sampler, while the chains' rejection step keeps about one proposal in 200 and
gives up (the inexact replay) more often. A seeded 4-player position whose joint programme
exceeds the old limits is now counted jointly, and its samples agree with what the seat saw."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State, hidden_group
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.train.bench_loops import game_position, random_position
from cubirds_worlds import fresh_model


@pytest.fixture(autouse=True)
def _share_as_written(monkeypatch):
    # Written for the several piles' first joint try at twice the limits (16 times since
    # session 27, where these positions' joint counts fit at once).
    monkeypatch.setattr(he, "MULTI_JOINT_SHARE", 2.0)
    monkeypatch.setattr(he, "LAST_JOINT_SHARE", 0.0)  # (no last try: session 32)


def _position(players: int = 4, seed: int = 1, moves: int = 102) -> State:
    return random_position(State, Config(num_players=players), seed, moves)


_model = fresh_model


def test_a_several_pile_position_beyond_the_old_limits_is_counted_jointly(monkeypatch):
    state = _position()
    assert state.current_player == 2
    model = _model(state)
    assert len(model.piles) > 1 and model.joint is not None
    monkeypatch.setattr(he, "MULTI_JOINT_SHARE", 1.0)  # the limits before session 8
    monkeypatch.setattr(he, "RARE_JOINT_SHARE", 0.0)  # (and no second try, session 12)
    assert _model(state).joint is None


def test_its_joint_samples_agree_with_what_the_seat_saw():
    state = _position()
    p = state.current_player
    seen = state.view(p)
    rng = np.random.default_rng(0)
    for _ in range(20):
        world = state.determinize(p, rng)
        assert world.view(p) == seen
        assert world.census() is not None and sum(map(sum, world.hands)) == sum(state.hand_sizes)


def test_where_the_rejection_keeps_too_few_the_joint_programme_gets_larger_limits(monkeypatch):
    """Session 12: five players, the middle of seeded game 12. The joint programme exceeds its
    usual share of the limits (``MULTI_JOINT_SHARE``), and the chains' rejection keeps about
    one proposal in 750 (fewer than ``RARE_KEPT`` of the fixed-seed pilot's ``RARE_DRAWS``):
    most calls there gave up and took the inexact replay. Now the joint programme is tried
    again with ``RARE_JOINT_SHARE`` times the limits, fits, and serves every call exactly; the
    choice is made by the fixed-seed pilot, so a second build chooses the same. (Since
    session 14 the emptied pile is pinned whole, its splits counted member by member, and the
    rejection keeps enough there: the pile pins are off for the rest of this test.)"""
    state = game_position(State, Config(num_players=5), 12, 0.5)  # the bench's middle
    # (Since session 24 its 10 classes raise the pilot's bar to FEW_KEPT, and the joint count
    # serves here by default: test_cubirds_one_pile_rare.py. The usual bar for this test.)
    monkeypatch.setattr(he, "FEW_KEPT", he.RARE_KEPT)
    now = _model(state)
    assert now.seats is not None and now.pile_pin is not None
    assert now._keeps_enough(he.RARE_DRAWS, he.RARE_KEPT)
    monkeypatch.setattr(hidden_group, "GROUPS", False)
    monkeypatch.setattr(hidden_group, "LAST_PILE", False)
    monkeypatch.setattr(he, "PIN_PILE", False)  # (which now fits there: splits counted)
    model = _model(state)
    assert len(model.piles) > 1 and model.seats is None and model.joint is not None
    assert _model(state).seats is None
    monkeypatch.setattr(he, "RARE_JOINT_SHARE", 0.0)  # before session 12
    old = _model(state)
    assert old.joint is None and old.seats is not None
    assert not old._keeps_enough(he.RARE_DRAWS, he.RARE_KEPT)
    monkeypatch.setattr(he, "RARE_JOINT_SHARE", 16.0)
    he._BUILT.clear()
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert _model(state).sample(rng) is not None
        world = state.determinize(p, rng)
        assert world.view(p) == state.view(p)


def test_the_larger_joint_try_has_64_times_the_limits(monkeypatch):
    """Session 25: five players, seeded game 0 after 96 decisions (two piles; the chains keep
    about 1.5 proposals in 100, a call there cost 5-9 ms). The joint programme's larger try
    exceeded 16 times the limits there and fits in 64 times them: every call then samples
    the joint count, and the samples agree with what the seat saw."""
    state = game_position(State, Config(num_players=5), 0, 96)
    model = _model(state)
    assert he.RARE_JOINT_SHARE == 64.0
    assert len(model.piles) > 1 and model.joint is not None and model.seats is None
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert state.determinize(p, rng).view(p) == state.view(p)
    monkeypatch.setattr(he, "RARE_JOINT_SHARE", 16.0)  # session 24
    old = _model(state)
    assert old.joint is None and old.seats is not None
