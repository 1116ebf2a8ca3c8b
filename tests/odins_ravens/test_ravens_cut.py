"""A belief that outgrows ``hidden.MAX_STATES`` label states is cut (issue 16, speed): its
lightest states are dropped, those holding at most ``CUT_MASS`` of the posterior and more if
more than ``MAX_STATES`` are left, so later calls keep sampling from it cheaply instead of
running the search fallback at every call. What is kept is part of the exact posterior, close
to it, and every sample stays consistent; how often it happens is bounded below."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from bench_ravens_cut import VARIANTS, scan
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
# outgrows MAX_STATES label states and is cut (found by a scan of 16 games; (1, "late", 0) was
# cut too before open bags, see test_ravens_open_bag.py).
CUT_POSITIONS = [(5, "middle", 0), (11, "late", 0), (14, "late", 0)]


@pytest.mark.parametrize("seed,where,seat", CUT_POSITIONS)
def test_a_cut_belief_is_part_of_the_exact_posterior_and_close_to_it(
    seed, where, seat, monkeypatch
):
    _limits_before_session_22(monkeypatch)
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 1)  # the limits these positions were cut with
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


@pytest.mark.parametrize("seed,where,seat", CUT_POSITIONS[:2])
def test_beliefs_without_masks_are_cut_only_past_twice_the_limit(seed, where, seat, monkeypatch):
    """Without the strict joker rule no token carries a mask, and a belief is cut only past
    ``UNMASKED_FACTOR`` times ``MAX_STATES``: with the limits of sessions 11-21 (1000, the
    factor 2) two of the positions cut with the limit alone (sessions 8 to 10) hold the exact
    posterior, the same label states and weights as without any limit; with the factor 1 they
    are cut on the way. (Since session 22 they are not cut on the way either; since session 38
    the factor is 1 again, the limit being 64,000 with or without masks.)"""
    _limits_before_session_22(monkeypatch)
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 2)  # as in sessions 11-36
    state = game_positions(State, Config(), games=1, seed=seed)[where][0]
    belief = state.belief(seat)
    assert belief.states is not None and belief.dropped == 0 and not belief.masks
    exact = _exact(state, seat, monkeypatch)
    assert _masses(belief) == pytest.approx(_masses(exact), rel=1e-9)
    with monkeypatch.context() as m:  # on the way there the posterior outgrew the limit
        m.setattr(hidden, "UNMASKED_FACTOR", 1)
        start, hand = state.known_from[seat]
        assert Belief.start(hand, None, start).advance(state.logs[seat][start:]).dropped > 0


def test_a_cut_keeps_at_most_max_states_the_heaviest_ones(monkeypatch):
    """A cut that ``CUT_MASS`` alone cannot bring under ``MAX_STATES`` drops more: it keeps the
    ``MAX_STATES`` heaviest states (by weight times completions) and nothing else, instead of
    handing the position to the search (whose worlds are not weighted by the posterior)."""
    monkeypatch.setattr(hidden, "CUT_MASS", 0.0)  # nothing may be dropped for mass alone
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 1)  # the limit as given, masks or not
    checked = 0
    for name, log in SMALL_LOGS.items():
        for limit in (1, 2, 3):
            monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
            for i in range(1, len(log) + 1):
                before = Belief.start().advance(log[: i - 1])
                exact = before.advance([log[i - 1]])
                if len(before.states) > limit or len(exact.states) <= limit:
                    continue
                monkeypatch.setattr(hidden, "MAX_STATES", limit)
                cut = before.advance([log[i - 1]])
                monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
                mass = {
                    st: w * hidden._completions(st) for st, w in zip(exact.states, exact.weights)
                }
                heaviest = sorted(mass.values(), reverse=True)
                assert len(cut.states) == limit, name
                assert sorted((mass[st] for st in cut.states), reverse=True) == heaviest[:limit]
                assert cut.dropped == pytest.approx(sum(heaviest[limit:]) / sum(heaviest))
                checked += 1
    assert checked >= 1


def test_max_states_zero_hands_every_sample_to_the_search(monkeypatch):
    monkeypatch.setattr(hidden, "MAX_STATES", 0)
    log = SMALL_LOGS["two piles and a stash"]
    assert Belief.start().advance(log).states is None


def test_samples_after_a_deep_cut_stay_consistent(monkeypatch):
    """Cut to a single state at every step (far more than the real cuts drop): a later event
    may fit none of the kept states, and then the search takes over; either way every sampled
    world is one that some history explains."""
    monkeypatch.setattr(hidden, "MAX_STATES", 1)
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 1)
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


# Share of position-seats whose belief was cut over the first 12 seeded random games of each
# variant (``bench_ravens_cut.py 12``), measured 2026-12-03 (session 11, beliefs without masks
# cut only past twice ``MAX_STATES``): 0.78%, 4.34%, 0, 0, 0, 1.02%; with the limit alone
# (session 8 to 10): 1.57%, 4.34%, 0.19%, 0, 0, 2.96%, which fail the bounds of the default
# rules, the small deck and no Odin cards. Session 22 (limit 4000): 0.62%, 3.61%, 0, 0, 0, 0.
# Session 37 (beliefs without masks cut only past 16 times the limit): 0, 3.61%, 0, 0, 0, 0;
# the default rules' bound fails with the factor of sessions 11-36 (2: 0.62%). Session 38
# (masked beliefs cut past 64,000 states too): strict 0.94%; its bound fails with 4,000.
# A guard against a change that makes beliefs explode more often. Not zero everywhere: issue
# 16 asks for an exact posterior everywhere, which this representation cannot hold at every
# position (docs/rules/odins_ravens.md: why; with the default rules one of seeded games
# 40-239 is still cut).
CUT_SHARE_BOUNDS = {
    "default": 0.001,
    "strict": 0.015,
    "small_deck": 0.001,
    "small_deck_strict": 0.001,
    "big_deck": 0.001,
    "no_odin": 0.001,
}


@pytest.mark.parametrize("variant", sorted(CUT_SHARE_BOUNDS))
def test_seeded_random_games_never_go_to_the_search_and_are_rarely_cut(variant):
    """At every position of 12 seeded random games, for both seats: the belief is the exact
    posterior or a cut of it, never the search (whose worlds are not posterior-weighted)."""
    r = scan(Config(**VARIANTS[variant]), games=12)
    assert r["seen"] > 20000
    assert r["searched"] == 0
    assert r["cut"] <= CUT_SHARE_BOUNDS[variant] * r["seen"], r


def test_where_the_search_used_to_take_over_the_cut_belief_is_close_to_the_exact_posterior(
    monkeypatch,
):
    """Seat 0 after move 490 of seeded random game 10 (moves by ``random.Random(10).choice``):
    the exact posterior has 2,034 label states, and before cuts could keep the heaviest
    states this position went to the search (its samples: total variation 0.22 on the hand's
    make-up, 0.12 on the top aux card's kind). The cut belief samples both about as the exact
    posterior does (sampling noise of 3000 samples: about 0.03-0.05). (With the limits of
    sessions 8-21: since session 22 it is not cut, see the next test.)"""
    _limits_before_session_22(monkeypatch)
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 2)  # as in sessions 11-36
    s = _game_10_after(490)
    cut = s.belief(0)
    assert cut.states is not None and 0 < cut.dropped
    exact = _exact(s, 0, monkeypatch)
    assert exact.dropped == 0 and len(exact.states) > hidden.MAX_STATES
    n = 3000
    rng = np.random.default_rng(1)
    a = [exact.sample(rng) for _ in range(n)]
    b = [cut.sample(rng) for _ in range(n)]

    def tv(key) -> float:
        x, y = Counter(map(key, a)), Counter(map(key, b))
        return sum(abs(x[k] - y[k]) for k in set(x) | set(y)) / 2 / n

    assert tv(lambda w: tuple(w[0])) < 0.07
    assert tv(lambda w: w[1][-1] if w[1] else -1) < 0.05


def _game_10_after(moves: int) -> State:
    """Seeded random game 10 with the default rules after ``moves`` moves, each picked by
    ``random.Random(10).choice`` (the moves of ``bench_ravens_cut.py``)."""
    s = State(Config(), seed=10)
    pick = random.Random(10)
    while s.move_count < moves:
        s.apply(pick.choice(s.legal_move_ids()))
    return s


def _limits_before_session_22(monkeypatch: pytest.MonkeyPatch) -> None:
    """``MAX_STATES`` and ``RETRY_LIMIT`` as they were until session 22 (1000 and 2500)."""
    monkeypatch.setattr(hidden, "MAX_STATES", 1000)
    monkeypatch.setattr(hidden, "RETRY_LIMIT", 2500)


def test_a_position_cut_with_1000_states_is_exact_with_the_limit_of_4000(monkeypatch):
    """Seat 0 after move 490 of seeded random game 10 (the position above): with
    ``MAX_STATES`` 1000 (sessions 8-21) its belief is cut; with 4000 (since session 22) it is
    the exact posterior, the same label states and weights as without any limit. Fails with
    the old limit."""
    assert hidden.MAX_STATES >= 4000

    with monkeypatch.context() as m:
        _limits_before_session_22(m)
        m.setattr(hidden, "UNMASKED_FACTOR", 2)  # as in sessions 11-36
        assert _game_10_after(490).belief(0).dropped > 0
    state = _game_10_after(490)
    belief = state.belief(0)
    assert belief.states is not None and belief.dropped == 0
    exact = _exact(state, 0, monkeypatch)
    assert _masses(belief) == pytest.approx(_masses(exact), rel=1e-9)


def test_a_position_cut_past_8000_states_is_exact_past_64000(monkeypatch):
    """Seat 0 after move 529 of seeded random game 10 (default rules, moves by
    ``random.Random(10).choice``): its posterior outgrows 8,000 label states without any
    no-match mark, so with ``UNMASKED_FACTOR`` 2 (sessions 11-36) the belief is cut; with 16
    (session 37; since session 38 the limit is 64,000 with or without masks) it is the exact
    posterior (16,270 states), the same states and weights as without any limit. Fails with
    the old factor (or, since session 38, with a limit below 16,270 states without masks)."""
    assert hidden.UNMASKED_FACTOR * hidden.MAX_STATES >= 64000

    with monkeypatch.context() as m:
        m.setattr(hidden, "MAX_STATES", 4000)  # as in sessions 22-37
        m.setattr(hidden, "UNMASKED_FACTOR", 2)  # as in sessions 11-36
        assert _game_10_after(529).belief(0).dropped > 0
    state = _game_10_after(529)
    belief = state.belief(0)
    assert belief.states is not None and belief.dropped == 0 and not belief.masks
    assert len(belief.states) > 8000
    exact = _exact(state, 0, monkeypatch)
    assert _masses(belief) == pytest.approx(_masses(exact), rel=1e-9)


def test_a_rebuilt_belief_is_a_function_of_the_log(monkeypatch):
    """When an event fits none of the states a cut kept, the belief is rebuilt once from its
    checkpoint with ``RETRY_LIMIT`` states, up to that event whenever the call comes: a state
    asked after every move and a fresh replay asked once hold the same belief. Tiny limits
    make cuts and rebuilds frequent."""
    monkeypatch.setattr(hidden, "MAX_STATES", 2)
    monkeypatch.setattr(hidden, "CUT_MASS", 0.3)
    monkeypatch.setattr(hidden, "RETRY_LIMIT", 20)
    rebuilt = searched = 0
    for seed in range(4):
        s = State(Config(joker_requires_no_match=True), seed=seed)
        moves = random.Random(seed)
        played = []
        while not s.terminal and len(played) < 500:
            played.append(moves.choice(s.legal_move_ids()))
            s.apply(played[-1])
            for seat in (0, 1):
                belief = s.belief(seat)
                rebuilt += belief.retried and belief.states is not None
                searched += belief.states is None
        fresh = State(Config(joker_requires_no_match=True), seed=seed)
        for move in played:
            fresh.apply(move)
        for seat in (0, 1):
            a, b = s.belief(seat), fresh.belief(seat)
            assert (a.states, a.weights, a.retried, a.dropped) == (
                b.states,
                b.weights,
                b.retried,
                b.dropped,
            )
    assert rebuilt > 0 and searched > 0


def test_a_position_cut_with_400_states_is_exact_with_the_limit_of_1000(monkeypatch):
    """Seat 1 at the late position of the bench's seeded random game 14: with ``MAX_STATES``
    400 (the limit until 2026-12-02) its belief was cut on the way there; with 1000 it never
    is, and it is the exact posterior (the same label states and weights as without any
    limit). Fails with the old limit."""
    assert hidden.MAX_STATES >= 1000
    state = game_positions(State, Config(), games=1, seed=14)["late"][0]
    with monkeypatch.context() as m:
        m.setattr(hidden, "MAX_STATES", 400)
        m.setattr(hidden, "RETRY_LIMIT", 1000)
        m.setattr(hidden, "UNMASKED_FACTOR", 1)  # (no such factor before session 11)
        start, hand = state.known_from[1]
        assert Belief.start(hand, None, start).advance(state.logs[1][start:]).dropped > 0
    belief = state.belief(1)
    assert belief.states is not None and belief.dropped == 0
    exact = _exact(state, 1, monkeypatch)
    assert _masses(belief) == pytest.approx(_masses(exact), rel=1e-9)


def _strict_game_0_after(moves: int) -> State:
    """Seeded random game 0 with strict jokers after ``moves`` moves by
    ``random.Random(0).choice`` (the moves of ``bench_ravens_cut.py``)."""
    s = State(Config(joker_requires_no_match=True), seed=0)
    pick = random.Random(0)
    while s.move_count < moves:
        s.apply(pick.choice(s.legal_move_ids()))
    return s


def test_a_masked_belief_cut_at_4000_states_is_exact_with_the_limit_of_64000(monkeypatch):
    """Seat 0 after move 275 of seeded random game 0 with strict jokers: some token carries a
    no-match mark, and the posterior needs 5,427 label states. With the masked limit of
    sessions 22-37 (4,000) the belief is cut (to 438 states, 1 % of the mass dropped); with
    64,000 (since session 38) it is the exact posterior, the same states and weights as
    without any limit. Fails with the old limit."""
    assert hidden.MAX_STATES >= 5427

    with monkeypatch.context() as m:
        m.setattr(hidden, "MAX_STATES", 4000)  # as in sessions 22-37
        m.setattr(hidden, "UNMASKED_FACTOR", 16)
        m.setattr(hidden, "RETRY_LIMIT", 10000)
        cut = _strict_game_0_after(275).belief(0)
        assert cut.masks and cut.dropped > 0
    state = _strict_game_0_after(275)
    belief = state.belief(0)
    assert belief.states is not None and belief.dropped == 0 and belief.masks
    assert len(belief.states) > 4000
    exact = _exact(state, 0, monkeypatch)
    assert _masses(belief) == pytest.approx(_masses(exact), rel=1e-9)
