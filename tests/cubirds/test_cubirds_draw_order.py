"""The order in which a proposal draws the seats (session 41, ``Rejection._draw_order``).

At several piles with one pinned whole, the rejection step turns most proposals down on a pile
drawn to its end that is not pinned: its last box must take exactly what the others left. The
seats with a box in such a pile are now drawn first, so a doomed proposal stops before the
others are drawn. Given the pinned split the seats' draws are independent, so the order must not
change the distribution. Seeded five-player game 1002 after 123 decisions: three piles, the
middle one pinned, about 8 % of the proposals kept, three in four of them turned down on the
first pile by the last seat drawn there.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from cardzoo.envs.cubirds import Config, State, hidden_exact, hidden_reject
from cardzoo.train.bench_loops import game_position
from cubirds_small_logs import worst_p_value
from cubirds_worlds import fresh_model

ALPHA = 1e-4


def _model():
    return fresh_model(game_position(State, Config(num_players=5), 1002, 123))


def _worlds(model, rng: np.random.Generator, count: int) -> Counter:
    p = model.player
    got: Counter = Counter()
    for _ in range(count):
        hid, draw = model.sample(rng)[:2]
        got[(tuple(tuple(h) for q, h in enumerate(hid) if q != p), tuple(draw))] += 1
    return got


def test_seats_closing_an_unpinned_pile_are_drawn_first():
    model = _model()
    assert len(model.piles) == 3 and model.pile_pin is not None and model.pin is None
    order = model.draw_order
    assert sorted(order) == list(range(len(model.seats)))
    closing = [
        any(model.box_pile[g] not in (model.pile_pin.index, 2) for g in model.seats[i][0])
        for i in order
    ]
    assert closing == sorted(closing, reverse=True) and closing != sorted(closing)


def test_the_order_keeps_the_distribution():
    model = _model()
    rng = np.random.default_rng(41)
    ordered = _worlds(model, rng, 1500)
    model.draw_order = None
    plain = _worlds(model, rng, 1500)
    assert worst_p_value(ordered, plain) > ALPHA


def test_without_the_setting_the_seats_keep_their_order(monkeypatch):
    monkeypatch.setattr(hidden_reject, "DRAW_ORDER", False)
    hidden_exact._BUILT.clear()
    assert _model().draw_order is None


def test_samples_agree_with_everything_seen():
    state = game_position(State, Config(num_players=5), 1002, 123)
    p = state.current_player
    seen = state.view(p)
    rng = np.random.default_rng(5)
    for _ in range(30):
        world = state.determinize(p, rng)
        assert world.view(p) == seen and world.census() is not None
