"""Cubirds' ``determinize`` runs with the cyclic garbage collector paused (session 31): no
collection inside a call even with a tiny threshold, the collector enabled again after, and a
collector disabled by the caller left disabled; the samples are those of an unpaused call."""

from __future__ import annotations

import gc
import random

import numpy as np
from cardzoo.envs.cubirds import hidden
from cardzoo.envs.cubirds.game import Config, State


def _position(seed: int = 3, moves: int = 60, players: int = 4) -> State:
    state = State(Config(num_players=players), seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.terminal:
            break
        state.apply_id(rng.choice(state.legal_move_ids()))
    return state


def test_no_collection_runs_inside_a_determinize_call(monkeypatch, collections):
    state = _position()
    inside: list[tuple[bool, int, int]] = []  # (collector enabled, collections before, after)
    sample_hidden = hidden.sample_hidden

    def watched(*args, **kwargs):
        before = len(collections)
        out = sample_hidden(*args, **kwargs)
        inside.append((gc.isenabled(), before, len(collections)))
        return out

    monkeypatch.setattr(hidden, "sample_hidden", watched)
    paused = state.determinize(state.current_player, np.random.default_rng(1))
    assert gc.isenabled()
    # The same body unpaused collects inside, and gives the same sample.
    body = hidden.determinize.__wrapped__
    plain = body(state, state.current_player, np.random.default_rng(1))
    (on, before, after), (plain_on, plain_before, plain_after) = inside
    assert not on and after == before
    assert plain_on and plain_after > plain_before
    players = range(state.num_players)
    assert [paused.view(q) for q in players] == [plain.view(q) for q in players]


def test_a_collector_the_caller_disabled_stays_disabled():
    state = _position(seed=5)
    enabled = gc.isenabled()
    try:
        gc.disable()
        state.determinize(state.current_player, 0)
        assert not gc.isenabled()
    finally:
        (gc.enable if enabled else gc.disable)()
