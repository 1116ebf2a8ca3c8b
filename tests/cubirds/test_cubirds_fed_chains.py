"""Cubirds' exact ``determinize`` with the per-seat chains where thrown-away hands fed the
current pile (``reveal_round_end_discards=False``, then a reshuffle; session 21,
:class:`cardzoo.envs.cubirds.hidden_fed.FedLast`).

The rejection step keeps a proposal with probability ``prod_s h_s(t_s, F_s) / max``: the bound
must hold for every proposal it looks at, and the thrown hands' cards add up
to their public number. Exactness against the brute-force reference is in
``test_cubirds_exact_posterior.py::test_a_pile_made_of_thrown_away_hands_is_sampled_exactly``.
"""

from __future__ import annotations

import math

import numpy as np
from cardzoo.envs.cubirds import hidden_exact, hidden_fed
from cardzoo.envs.cubirds.game import Config, State
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_moves
from cubirds_worlds import random_states


def _fed_models(n: int, seed: int, every: int = 3):
    """The models of one face-down game's positions (the seat in turn) that the chains serve
    with a fed current pile."""
    config = Config(num_players=n, reveal_round_end_discards=False)
    for state in random_states(n, seed, every=every, config=config):
        if state.terminal:
            continue
        model = ExactModel(state.log, state.current_player, n)
        if model.piles[-1]["feeds"] and model.build() and model.fed_last is not None:
            yield model


def test_the_fed_pile_bound_holds_along_games(monkeypatch):
    monkeypatch.setattr(hidden_exact, "FED_CLASSES", 0)  # the chains, not the joint count
    rng = np.random.default_rng(4)
    checked = finite = 0
    for model in _fed_models(3, 1010):  # (seed 1010: 12 such positions)
        fed_last = model.fed_last
        fed_last.seen = []
        for _ in range(300):
            model._sample_seats(rng)
        assert fed_last.seen, "no proposal reached the fed pile's factor"
        for taken, fed, log_keep in fed_last.seen:
            assert log_keep <= 1e-9
            if log_keep > -math.inf:
                finite += 1
                assert sum(fed) == model.piles[-1]["fed"]  # the thrown hands' public size
                assert sum(taken) == sum(model.avail[-1]) + sum(fed) - model.box_size[-1]
        checked += 1
        if checked == 6:
            break
    assert checked == 6 and finite >= 300


def _position(seed: int, decision: int) -> State:
    """A three-player face-down game of ``game_moves`` (the bench's games) at ``decision``."""
    config = Config(num_players=3, reveal_round_end_discards=False)
    state = State(config, seed=seed)
    for move in next(iter(game_moves(State, config, 1, seed)))[:decision]:
        state.apply_id(move)
    return state


def test_the_tightened_bound_covers_every_proposal(monkeypatch):
    # Session 28 (``FedLast.tighten``): per species the cards drawn from the fed pile and the
    # thrown hands' cards lie between what the chains' fillings can reach, so no proposal falls
    # outside (it would be turned down by a factor of 0 it does not have); the bound over those
    # ranges is never above the one over every (t, F).
    monkeypatch.setattr(hidden_exact, "FED_CLASSES", 0)
    rng = np.random.default_rng(5)
    checked = 0
    models = list(_fed_models(3, 1010))
    state = _position(1001, 114)
    pinned = ExactModel(state.log, state.current_player, 3)
    assert pinned.build() and pinned.fed_last is not None
    for model in [*models, pinned]:
        fed_last = model.fed_last
        t_lo, t_hi, f_lo, f_hi = fed_last.ranges
        fed_last.seen = []
        for _ in range(300):
            model._sample_seats(rng)
        for taken, fed, _ in fed_last.seen:
            assert all(a <= t <= b for a, t, b in zip(t_lo, taken, t_hi))
            assert all(a <= f <= b for a, f, b in zip(f_lo, fed, f_hi))
        assert fed_last.log_top <= fed_last.loose_top
        checked += len(fed_last.seen) > 0
    assert checked >= 10


def test_a_position_kept_for_the_replay_before_the_tightening_is_exact(monkeypatch):
    # Three players, face down, the bench's game 1001 at decision 114: the pile before the
    # reshuffle is split among the two seats, and the tightened bound keeps enough of the
    # pilot's proposals; with the bound over every (t, F) it keeps too few (the replay served).
    state = _position(1001, 114)
    model = ExactModel(state.log, state.current_player, 3)
    assert model.build() and model.seats is not None and model.pile_pin is not None
    assert model.fed_last.log_top < model.fed_last.loose_top - 1.0
    hidden_exact._BUILT.clear()
    monkeypatch.setattr(hidden_fed.FedLast, "tighten", lambda self, seats, box_pile: None)
    assert not ExactModel(state.log, state.current_player, 3).build()


def test_positions_where_the_chains_keep_too_few_are_left_to_the_replay(monkeypatch):
    # ``FED_KEPT``: a pilot run (fixed seed) that keeps fewer than this many of
    # ``RARE_DRAWS`` proposals turns the chains down (a call would spend ``REJECT_TRIES``
    # proposals on nothing); the same positions are served when the threshold is 0.
    monkeypatch.setattr(hidden_exact, "FED_CLASSES", 0)
    config = Config(num_players=3, reveal_round_end_discards=False)
    # (the states of ``random_states`` are one object, moved on: the logs are copied)
    views = [(list(s.log), s.current_player) for s in random_states(3, 1008, 3, config)]
    fed = [(log, p) for log, p in views[:-1] if ExactModel(log, p, 3).piles[-1]["feeds"]]
    served = []
    for kept in (hidden_fed.FED_KEPT, 0):
        monkeypatch.setattr(hidden_fed, "FED_KEPT", kept)
        hidden_exact._BUILT.clear()
        served.append(sum(ExactModel(log, p, 3).build() for log, p in fed))
    assert len(fed) >= 10 and 0 < served[0] < served[1]


def test_hidden_twins_give_the_same_samples_where_the_chains_serve_a_fed_pile():
    # The tilts, the bound and the pilot read only the seat's view: a twin (the same for the
    # seat, other hidden cards) gives the same sample for the same rng. The conformance suite
    # runs face-down discards at 2 players only; here 3 (seed 1010).
    config = Config(num_players=3, reveal_round_end_discards=False)
    checked = differs = 0
    for state in random_states(3, 1010, every=2, config=config):
        if state.terminal or checked == 6:
            continue
        p = state.current_player
        model = ExactModel(state.log, p, 3)
        if not (model.piles[-1]["feeds"] and model.build() and model.fed_last is not None):
            continue
        twin = state.determinize(p, np.random.default_rng(checked))
        assert twin.view(p) == state.view(p)
        differs += any(twin.view(q) != state.view(q) for q in range(3) if q != p)
        a = state.determinize(p, np.random.default_rng(7))
        b = twin.determinize(p, np.random.default_rng(7))
        assert all(a.view(q) == b.view(q) for q in range(3))
        checked += 1
    assert checked == 6 and differs >= 3
