"""Cubirds ``determinize`` at positions with several piles: every box of a pile drawn to its
end pinned together to a split of that pile (:class:`cardzoo.envs.cubirds.hidden_pin.PinnedPile`,
session 13).

The whole sampler is checked against the rejection reference in
``test_cubirds_exact_posterior.py::test_two_piles_since_the_source_are_sampled_exactly`` (with
the pile pinned whole and without). Here its parts on a five-player position of the bench's
games (seed 8, the middle), where the pile dealt at the start of the round was drawn to its end
by four seats' single boxes: the contents each box can hold, the weights of the splits, and how
many proposals the rejection step keeps with and without it.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_exact
from cardzoo.envs.cubirds.game import Config, State
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position
from scipy.stats import chisquare


def _model(monkeypatch, pile: bool) -> ExactModel:
    """The seat in turn's model at the middle of the bench's five-player game 8, chains alone
    (no joint programme), with or without the pile pinned whole."""
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "PIN_PILE", pile)
    state = game_position(State, Config(num_players=5), 8, 0.5)
    model = ExactModel(state.log, state.current_player, 5)
    assert len(model.piles) > 1 and model.build() and model.seats is not None
    return model


def _pile(model: ExactModel) -> list[int]:
    (j,) = {model.box_pile[g] for g in range(len(model.box_pile)) if model.box_pile[g] < 1}
    return model.avail[j]


def _contents(pile: list[int], size: int):
    """Every content of ``size`` cards within ``pile``, by brute force."""
    for combo in product(*(range(a + 1) for a in pile)):
        if sum(combo) == size:
            yield combo


def test_the_contents_listed_are_those_the_pinned_box_allows(monkeypatch):
    # ``contents`` lists a box's possible contents from its closed choices and open spreads;
    # against every content within the pile tried by ``log_weight``: the same set, the same
    # weights. Catches a spread that lets a species weighing 0 in, forgets the caps or the
    # pile's bounds, or a weight off by the open cards' factorials.
    model = _model(monkeypatch, True)
    pinned = model.pile_pin
    assert pinned is not None and len(pinned.pins) == 4
    pile = model.avail[0]
    checked = 0
    for pin in pinned.pins:
        listed = pin.contents(pile)
        size = pin.chain.box_size[pin.step]
        tried = {}
        for combo in _contents(pile, size):
            w = pin.log_weight(list(combo))
            if w > -math.inf:
                tried[combo] = w
        assert set(listed) == set(tried)
        for combo, w in tried.items():
            assert listed[combo] == pytest.approx(w, abs=1e-9)
        checked += len(tried)
    assert checked > 100


def test_the_contents_made_in_arrays_are_those_listed_in_loops(monkeypatch):
    # Session 28: where a box may hold many contents they are made in arrays; the same
    # contents in the same order with the same weights to the last bit as the loops make.
    from cardzoo.envs.cubirds import hidden_pin

    model = _model(monkeypatch, True)
    pile = model.avail[0]
    both = []
    for listed in (0, 10**9):
        monkeypatch.setattr(hidden_pin, "LISTED_CONTENTS", listed)
        both.append([list(pin.contents(pile).items()) for pin in model.pile_pin.pins])
    assert both[0] == both[1]
    assert sum(len(table) for table in both[0]) > 100


def test_the_splits_of_a_pile_pinned_whole_weigh_the_product_of_their_boxes(monkeypatch):
    # Every split of the pile among the pinned boxes (each box's content one it can hold, the
    # contents summing to the pile) is drawn in proportion to the product of the boxes'
    # weights, and nothing else is. Brute force over the boxes' tables, against the counts
    # member by member (``probability``) and against the draws.
    model = _model(monkeypatch, True)
    pinned = model.pile_pin
    pile = model.avail[0]
    tables = [pin.contents(pile) for pin in pinned.pins]
    *first, biggest = sorted(range(len(tables)), key=lambda i: len(tables[i]))
    expected = {}
    for combo in product(*(tables[i].items() for i in first)):
        rest = tuple(a - sum(c[s] for c, _ in combo) for s, a in enumerate(pile))
        if rest in tables[biggest]:
            split = [None] * len(tables)
            for i, (c, _) in zip(first, combo):
                split[i] = c
            split[biggest] = rest
            weight = sum(w for _, w in combo) + tables[biggest][rest]
            expected[tuple(split)] = math.exp(weight)
    assert len(expected) > 100
    total = sum(expected.values())
    for split, w in expected.items():
        assert pinned.probability(split) == pytest.approx(w / total)
    heaviest = max(expected, key=expected.get)
    near = list(heaviest)
    near[0] = tuple(v + (s == 0) for s, v in enumerate(near[0]))
    assert pinned.probability(tuple(near)) == 0.0
    rng = np.random.default_rng(1)
    drawn = [pinned.draw(rng) for _ in range(4000)]
    assert all(split in expected for split in drawn)
    # Each member's content drawn as often as the splits' weights say (a goodness-of-fit test
    # on its marginal; contents expected fewer than 5 times lumped together). Catches a draw
    # backwards that picks a member's content uniformly among those that fit.
    for i in range(len(tables)):
        want: dict = {}
        for split, w in expected.items():
            want[split[i]] = want.get(split[i], 0.0) + w / total
        big = sorted(c for c, p in want.items() if p * len(drawn) >= 5)
        seen = [sum(d[i] == c for d in drawn) for c in big]
        exp = [want[c] * len(drawn) for c in big]
        seen.append(len(drawn) - sum(seen))
        exp.append(len(drawn) - sum(exp))
        if exp[-1] < 1e-9:
            seen, exp = seen[:-1], exp[:-1]
        assert chisquare(seen, exp).pvalue > 1e-4 / len(tables)


def test_a_pile_pinned_whole_keeps_many_more_proposals_there(monkeypatch):
    # Measured (session 13): 7,287 of 20,000 proposals kept with the pile pinned whole, 19
    # with one box pinned (the others had to leave it a content it could hold).
    def kept(model: ExactModel) -> int:
        rng = np.random.default_rng(0)
        return sum(model._sample_seats(rng) is not None for _ in range(600))

    whole = kept(_model(monkeypatch, True))
    single = _model(monkeypatch, False)
    assert single.pile_pin is None and single.pin is not None
    assert whole >= 120 > 12 >= kept(single)


def test_the_running_sums_made_in_arrays_draw_the_same_splits(monkeypatch):
    # Session 40: a member of a pinned pile with many contents makes its running sums with
    # NumPy once it has met enough new rests (hidden_pin.ARRAYS_AFTER). The bench's five-player
    # middle position of game 15 has such members. The samples must be the same, bit for bit,
    # as with the sums made in Python alone, and the arrays must have been made.
    from cardzoo.envs.cubirds import hidden, hidden_pin

    state = game_position(State, Config(num_players=5), 15, 0.5)
    p = state.current_player

    def views(arrays: bool) -> list:
        monkeypatch.setattr(hidden_pin, "ARRAYS_AFTER", 8 if arrays else 10**9)
        monkeypatch.setattr(hidden, "_PLANS", [])
        hidden_exact._BUILT.clear()
        rng = np.random.default_rng(15)
        worlds = [state.determinize(p, rng) for _ in range(200)]
        kept = hidden.plan_for(state, p).exact_model.pile_pin._ways
        assert any(hidden_pin._ARRAYS in ways for ways in kept) == arrays
        return [[w.view(q) for q in range(5)] for w in worlds]

    assert views(arrays=True) == views(arrays=False)
