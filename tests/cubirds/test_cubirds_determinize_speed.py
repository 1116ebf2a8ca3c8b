"""Cubirds ``determinize`` keeps its replay plan on the state (issue 16, speed): a search calls it
many times at one position, and the plan is read from the log only once there. The kept plan
must never change a sample: the same rng gives the same world with or without it, and a plan is
never reused once the log has changed."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden, hidden_replay
from cardzoo.envs.cubirds.game import Config, State
from cubirds_worlds import agrees_with_what_was_seen, random_states


def _views(state: State) -> tuple:
    return tuple(state.view(q) for q in range(state.num_players))


def _count_plans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    real = hidden_replay._Plan.__init__

    def counting(self, *args, **kwargs):
        built[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(hidden_replay._Plan, "__init__", counting)
    return built


@pytest.mark.parametrize("reveal", [True, False], ids=["public", "face-down"])
def test_a_kept_plan_gives_the_samples_of_a_fresh_one(reveal):
    checked = 0
    config = Config(num_players=4, reveal_round_end_discards=reveal)
    for state in random_states(4, 3, every=11, config=config):
        if state.terminal:
            continue
        p = state.current_player
        state.determinize(p, np.random.default_rng(0))  # builds and keeps the plan
        assert state._plans is not None and p in state._plans
        kept = state.determinize(p, np.random.default_rng(5))
        fresh = state.clone()  # a clone starts without plans
        assert fresh._plans is None
        assert _views(kept) == _views(fresh.determinize(p, np.random.default_rng(5)))
        agrees_with_what_was_seen(state, kept, p)
        checked += 1
    assert checked >= 5


def test_the_plan_is_read_once_per_position_and_again_after_a_move(monkeypatch):
    built = _count_plans(monkeypatch)
    state = State(Config(num_players=3), seed=4)
    rng = np.random.default_rng(1)
    for _ in range(9):  # some moves, so that the log holds lays and draws
        state.apply_id(state.legal_move_ids()[0])
    p = state.current_player
    for _ in range(5):
        state.determinize(p, rng)
    assert built[0] == 1
    state.determinize((p + 1) % 3, rng)  # another seat has its own plan
    assert built[0] == 2
    size = len(state.log)
    while len(state.log) == size:  # a pass or a lay capturing nothing hidden logs nothing
        state.apply_id(state.legal_move_ids()[0])
        state.determinize(p, rng)
        assert built[0] == 2 + (len(state.log) != size)
    assert built[0] == 3  # the log changed: the plan was read again


def test_a_new_log_of_the_same_length_is_not_taken_for_the_old_one():
    state = State(Config(num_players=2), seed=8)
    first = hidden.plan_for(state, 0)
    assert hidden.plan_for(state, 0) is first
    old_log = state.log
    state.log = list(old_log)  # a new list with the same events (as a new source makes one)
    assert hidden.plan_for(state, 0) is not first
