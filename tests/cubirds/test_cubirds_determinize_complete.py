"""Cubirds' complete search (stage 4 of ``determinize``, ``_Plan.sample_complete``; issue 16): when
the fast replay and the exact searches find nothing, which happens with face-down round-end
discards, it still returns a world consistent with everything the seat has seen, without keeping
any true hidden card, and it raises when no world exists. The module docstring of
``cardzoo.envs.cubirds.hidden`` describes the stages."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from cardzoo.envs import cubirds_v0
from cardzoo.envs.cubirds import flow, hidden, hidden_replay
from cardzoo.envs.cubirds.data import EV_CLOSE, EV_RESHUFFLE
from cardzoo.envs.cubirds.game import Config, State
from cubirds_worlds import agrees_with_what_was_seen, random_states

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "conformance"))
from test_determinize import positions  # noqa: E402

FACE_DOWN = {"num_players": 4, "reveal_round_end_discards": False}


def _late_5011() -> State:
    """The 4-player position where stages 1 to 3 find nothing for seat 0 (the conformance
    test ``test_cubirds_face_down_discards_last_resort_depends_on_the_truth``)."""
    return positions(cubirds_v0, FACE_DOWN, 5011)["late"]


def _apply(state: State, player: int, result: tuple) -> State:
    """A clone of ``state`` with one stage's result written in, as ``determinize`` does."""
    sample = hidden.Sample(
        result[0],
        result[1],
        result[2],
        result[3],
        hidden._with_piles(hidden._write_back(state.log, 0, result[4], result[5])),
    )
    det = state.clone()
    for q in range(state.num_players):
        if q != player:
            det.hands[q] = [k + h for k, h in zip(state.known[q], sample.hidden[q])]
    det.draw = [x for x in range(8) for _ in range(sample.draw[x])]
    det.log = sample.log
    det.discard = [
        a + sum(own[x] for own in sample.discard_own) for x, a in enumerate(state.discard_public)
    ]
    return det


def test_stages_one_to_three_fail_at_the_position_and_the_complete_search_succeeds():
    state = _late_5011()
    plan = hidden_replay._Plan(state.log, 0, 4)
    assert hidden._resample(plan, np.random.default_rng(7)) is None
    others = set()
    for k in range(4):
        result = plan.sample_complete(np.random.default_rng(k))
        assert result is not None
        agrees_with_what_was_seen(state, _apply(state, 0, result), 0)
        others.add(tuple(tuple(h) for h in result[0][1:]))
    assert len(others) > 1, "four seeds gave the same hidden hands"


def test_the_complete_search_reads_no_true_hidden_card():
    # Its twin (another world seat 0 cannot tell apart) must give the very same sample.
    state = _late_5011()
    twin = state.determinize(0, np.random.default_rng(3))
    assert twin.hands != state.hands or twin.log != state.log
    a = hidden_replay._Plan(state.log, 0, 4).sample_complete(np.random.default_rng(5))
    b = hidden_replay._Plan(twin.log, 0, 4).sample_complete(np.random.default_rng(5))
    assert a == b


def test_runs_cut_short_are_restarted(monkeypatch):
    runs = []
    luby = hidden_replay._luby

    def no_budget_at_first(i: int) -> int:
        runs.append(i)
        return 0 if i < 4 else luby(i)

    monkeypatch.setattr(hidden_replay, "_luby", no_budget_at_first)
    state = _late_5011()
    result = hidden_replay._Plan(state.log, 0, 4).sample_complete(np.random.default_rng(0))
    agrees_with_what_was_seen(state, _apply(state, 0, result), 0)
    # Each run of the Luby sequence, once in each order of the choices (session 24).
    assert runs[:8] == [1, 1, 2, 2, 3, 3, 4, 4]


def test_luby_sequence():
    assert [hidden_replay._luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4] * 2 + [8]


def test_the_complete_search_alone_is_consistent_in_random_play():
    # Run directly (not only when stages 1 to 3 fail) at face-down positions after a reshuffle.
    tried = 0
    for seed in range(30):
        config = Config(num_players=4 + seed % 2, reveal_round_end_discards=False)
        for state in random_states(config.num_players, seed, every=23, config=config):
            if state.terminal or not any(ev[0] == EV_RESHUFFLE for ev in state.log):
                continue
            p = seed % config.num_players
            plan = hidden_replay._Plan(state.log, p, config.num_players)
            result = plan.sample_complete(np.random.default_rng(seed))
            agrees_with_what_was_seen(state, _apply(state, p, result), p)
            tried += 1
        if tried >= 12:
            return
    raise AssertionError(f"only {tried} positions with a reshuffle")


def test_a_log_no_world_explains_raises():
    state = _late_5011()
    log = list(state.log)
    # Seat 1 lays more hidden cards of one species than it ever drew.
    i = next(i for i, ev in enumerate(log) if ev[0] == EV_CLOSE and ev[1] == 1)
    log[i] = (EV_CLOSE, 1, log[i][2], 99)
    plan = hidden_replay._Plan(log, 0, 4)
    assert plan.sample_complete(np.random.default_rng(0)) is None
    with pytest.raises(hidden.SamplingError, match="no world agrees with what seat 0 has seen"):
        hidden.sample_hidden(log, 0, 4, np.random.default_rng(0))


def test_the_complete_search_takes_both_orders_of_the_choices_in_turn(monkeypatch):
    # Session 24: a run with every split fixed before any feed (pile by pile), then a run pile by
    # pile with the two kinds mixed, and so on; each order dead-ends far less than the other at
    # some positions.
    orders = []
    init = flow.CompleteSearch.__init__

    def keep_order(self, *args, **kwargs):
        init(self, *args, **kwargs)
        orders.append([(kind, g) for kind, _, g, *_ in self.choices])

    monkeypatch.setattr(flow.CompleteSearch, "__init__", keep_order)
    luby = hidden_replay._luby
    monkeypatch.setattr(hidden_replay, "_luby", lambda i: 0 if i < 3 else luby(i))  # 1-2 cut
    state = _late_5011()
    plan = hidden_replay._Plan(state.log, 0, 4)
    result = plan.sample_complete(np.random.default_rng(0))
    agrees_with_what_was_seen(state, _apply(state, 0, result), 0)
    assert len(orders) >= 5
    assert {kind for kind, _ in orders[0]} == {"split", "feed"}
    for n, order in enumerate(orders):
        piles = [g for _, g in order]
        if n % 2 == 0:  # splits first, each kind pile by pile
            splits = [g for kind, g in order if kind == "split"]
            feeds = [g for kind, g in order if kind == "feed"]
            assert order == [("split", g) for g in splits] + [("feed", g) for g in feeds]
            assert splits == sorted(splits) and feeds == sorted(feeds)
        else:  # pile by pile, mixed
            assert piles == sorted(piles)
    assert orders[1] != [(k, g) for k, g in orders[1] if k == "split"] + [
        (k, g) for k, g in orders[1] if k == "feed"
    ], "the mixed order happened to put the splits first"
