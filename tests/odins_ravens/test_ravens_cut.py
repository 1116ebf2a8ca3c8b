"""A belief that outgrows ``hidden.MAX_STATES`` label states is cut (issue 16, speed): its
lightest states, holding at most ``CUT_MASS`` of the posterior, are dropped, so later calls keep
sampling from it cheaply instead of running the search fallback at every call. What is kept is
part of the exact posterior, close to it, and every sample stays consistent."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden
from cardzoo.envs.odins_ravens.hidden import Belief, sample_hidden
from cardzoo.train.bench_loops import game_positions
from test_ravens_determinize import SMALL_LOGS, brute_force


def _masses(belief: Belief) -> dict:
    mass = {st: w * hidden._completions(st) for st, w in zip(belief.states, belief.weights)}
    total = sum(mass.values())
    return {st: m / total for st, m in mass.items()}


def _exact(state: State, seat: int, monkeypatch: pytest.MonkeyPatch) -> Belief:
    start, hand = state.known_from[seat]
    with monkeypatch.context() as m:
        m.setattr(hidden, "MAX_STATES", 10**6)
        return Belief.start(hand, None, start).advance(state.logs[seat][start:])


# Positions of the bench's seeded random games (game seed, position, seat) where the posterior
# outgrows MAX_STATES label states and is cut (found by a scan of 16 games).
CUT_POSITIONS = [(1, "late", 0), (5, "middle", 0), (11, "late", 0)]


@pytest.mark.parametrize("seed,where,seat", CUT_POSITIONS)
def test_a_cut_belief_is_part_of_the_exact_posterior_and_close_to_it(
    seed, where, seat, monkeypatch
):
    state = game_positions(State, Config(), games=1, seed=seed)[where][0]
    cut = state.belief(seat)
    assert cut.states is not None, "the belief gave way to the search"
    assert 0 < cut.dropped <= 0.05
    exact = _exact(state, seat, monkeypatch)
    assert exact.dropped == 0 and len(exact.states) >= len(cut.states)
    assert set(cut.states) <= set(exact.states), "a kept state the exact posterior lacks"
    a, b = _masses(cut), _masses(exact)
    distance = sum(abs(a.get(st, 0.0) - m) for st, m in b.items()) / 2
    assert distance < 0.03, f"total variation {distance:.4f} from the exact posterior"
    # determinize samples from the cut belief (no search) and shows the seat nothing new.
    p = 1 - seat
    for k in range(20):
        world = state.determinize(p, np.random.default_rng(k))
        assert world.view(p) == state.view(p)
        hidden_cards = world.hands[seat][:]
        for k in world.aux[seat] + world.draws[seat]:
            hidden_cards[k] += 1
        truth = state.hands[seat][:]
        for k in state.aux[seat] + state.draws[seat]:
            truth[k] += 1
        assert hidden_cards == truth  # the seat's unseen cards are the deck less what is public


def test_a_cut_that_leaves_too_many_states_gives_way_to_the_search(monkeypatch):
    monkeypatch.setattr(hidden, "MAX_STATES", 1)
    monkeypatch.setattr(hidden, "CUT_MASS", 0.0)  # nothing may be dropped: no cut is possible
    branching = 0
    for name, log in SMALL_LOGS.items():
        with monkeypatch.context() as m:
            m.setattr(hidden, "MAX_STATES", 10**6)
            widest = max(len(Belief.start().advance(log[:i]).states) for i in range(len(log) + 1))
        if widest > 1:
            branching += 1
            assert Belief.start().advance(log).states is None, name
        else:
            assert Belief.start().advance(log).dropped == 0, name
    assert branching >= 1


def test_samples_after_a_deep_cut_stay_consistent(monkeypatch):
    """Cut to a single state at every step (far more than the real cuts drop): a later event
    may fit none of the kept states, and then the search takes over; either way every sampled
    world is one that some history explains."""
    monkeypatch.setattr(hidden, "MAX_STATES", 1)
    monkeypatch.setattr(hidden, "CUT_MASS", 0.99)
    searched = cut = 0
    for name, log in SMALL_LOGS.items():
        support = set(brute_force(log))
        belief = Belief.start().advance(log)
        searched += belief.states is None
        cut += belief.states is not None and belief.dropped > 0
        rng = np.random.default_rng(1)
        for _ in range(200):
            hand, aux, draw = sample_hidden(log, rng)
            assert (tuple(hand), tuple(aux), tuple(draw)) in support, name
    assert cut >= 1
