"""Where the chains' rejection step keeps few proposals, a call goes on drawing them rather
than giving up for the inexact replay (``hidden_exact.REJECT_TRIES``, 2,000 since session 17).

The position: five players, seeded game 0 after 96 decisions. Two piles since the last public
source, the joint programme past its limits, and the rejection keeps about 1.5 proposals in 100.
With 200 rounds (before session 17), 45 of the test's 300 calls gave up there. Since session 25
the joint programme's larger try (``RARE_JOINT_SHARE`` = 64) fits there; the test keeps the
session-24 limit (16), under which the chains serve the position."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.cubirds import Config, State, hidden
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position
from cubirds_worlds import fresh_model

CALLS = 300


def _model(monkeypatch) -> tuple[State, ExactModel]:
    monkeypatch.setattr(he, "RARE_JOINT_SHARE", 16.0)  # (64 since session 25 fits here)
    monkeypatch.setattr(he, "LAST_JOINT_SHARE", 0.0)  # (and the last try since session 32)
    state = game_position(State, Config(num_players=5), 0, 96)
    return state, fresh_model(state)


def _gave_up(model: ExactModel, calls: int = CALLS) -> int:
    rng = np.random.default_rng(3)
    return sum(model.sample_counts(rng) is None for _ in range(calls))


def test_a_position_that_keeps_few_proposals_still_samples_every_call_exactly(monkeypatch):
    state, model = _model(monkeypatch)
    assert len(model.piles) > 1 and model.seats is not None and model.joint is None
    pilot = np.random.default_rng(1)
    kept = sum(model._sample_seats(pilot) is not None for _ in range(2000))
    assert 10 <= kept <= 100  # few: between 0.5 and 5 %
    assert _gave_up(model) == 0
    # ...and determinize there never takes the replay.
    replays = []
    real = hidden._resample
    monkeypatch.setattr(hidden, "_resample", lambda plan, rng: replays.append(1) or real(plan, rng))
    hidden._PLANS.clear()
    p = state.current_player
    rng = np.random.default_rng(0)
    for _ in range(50):
        assert state.determinize(p, rng).view(p) == state.view(p)
    assert replays == []


def test_with_the_old_number_of_rounds_calls_gave_up_there(monkeypatch):
    # The control: with 200 rounds (before session 17) some of the same calls give up.
    _, model = _model(monkeypatch)
    monkeypatch.setattr(he, "REJECT_TRIES", 200)
    assert _gave_up(model) > 0
