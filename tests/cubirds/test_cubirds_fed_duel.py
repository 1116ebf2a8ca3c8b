"""Two players, face-down round-end discards: the joint count of piles fed by thrown-away hands
with up to ``hidden_exact.FED_DUEL_CLASSES`` classes of boxes and ``FED_DUEL_PILES`` times the
limits (session 33: 40 and 128, from 15 and 16; such counts go level by level since then).

Seeded game 1000 after 138 decisions: three piles since the last public source, the last two
made of discard piles holding the opponent's thrown-away hands, 18 classes of boxes. Before,
its joint count was not tried (past 15 classes) and every call there went to the inexact
replay; now it is counted once (a few milliseconds) and every call samples the posterior."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.train.bench_loops import game_position
from cubirds_worlds import agrees_with_what_was_seen, fresh_model, replay_serves


@pytest.fixture(scope="module")
def state() -> State:
    config = Config(num_players=2, reveal_round_end_discards=False)
    return game_position(State, config, 1000, 138)


def test_the_fed_piles_joint_count_serves_past_fifteen_classes(state):
    model = fresh_model(state)
    fed = [j for j, pile in enumerate(model.piles) if pile["feeds"]]
    assert len(model.piles) == 3 and fed == [1, 2]
    assert he.FED_DUEL_CLASSES >= model._classes() > 15
    assert model.joint is not None and model.joint.levels is not None
    p = state.current_player
    rng = np.random.default_rng(5)
    for _ in range(20):
        agrees_with_what_was_seen(state, state.determinize(p, rng), p)


def test_before_session_33_the_replay_served_it(state, monkeypatch):
    monkeypatch.setattr(he, "FED_DUEL_CLASSES", 15)
    replay_serves(state, monkeypatch)
