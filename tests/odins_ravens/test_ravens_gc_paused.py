"""``Belief.advance`` pauses the cyclic garbage collector while it takes in events, and leaves it
as it found it (issue 16, the slow tail along a game, 2026-12-02, session 8): no collection runs
during an advance even with a tiny threshold, the collector is enabled again after (also when
the log is inconsistent), it stays disabled if it was, and the belief is the same."""

from __future__ import annotations

import gc
import random

import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden


def _long_log(seed=1, moves=400):
    s = State(Config(), seed=seed)
    rng = random.Random(seed)
    while s.move_count < moves and not s.terminal and not s.truncated:
        s.apply(rng.choice(s.legal_move_ids()))
    return s.logs[0]


def test_no_collection_runs_while_a_belief_takes_in_events(collections):
    log = _long_log()
    collections.clear()
    belief = hidden.Belief.start().advance(log)
    assert collections == []
    assert gc.isenabled()
    # The collector ran as usual outside: the same work without the pause collects.
    again = hidden.Belief.start()._advance(log, None)
    assert collections
    assert again.states == belief.states and again.weights == belief.weights


def test_the_collector_is_left_as_it_was():
    log = _long_log(moves=60)
    enabled = gc.isenabled()
    try:
        gc.disable()
        hidden.Belief.start().advance(log)
        assert not gc.isenabled()
        gc.enable()
        hidden.Belief.start().advance(log)
        assert gc.isenabled()
        with pytest.raises(hidden.InconsistentLog):
            hidden.Belief.start().advance([(hidden.DRAW, 1)])
        assert gc.isenabled()
    finally:
        (gc.enable if enabled else gc.disable)()
