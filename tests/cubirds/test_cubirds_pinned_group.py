"""Cubirds ``determinize`` at positions with several piles: one seat's several boxes in a pile
drawn to its end pinned together to what they hold in all
(:class:`cardzoo.envs.cubirds.hidden_group.PinnedGroup`, session 14), and the pile split among
its seats by :class:`cardzoo.envs.cubirds.hidden_pin.PinnedPile` with such groups (also the last
pile when nothing is left of it).

The whole sampler is checked against the rejection reference on hand-made logs; the group's
parts on the chains of a random 4-player game: its weights against the single pinned box and
the chain's total, and its draws given a content against the chain's draws that happen to give
that content.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_exact, hidden_group
from cardzoo.envs.cubirds.data import EV_BATCH, EV_CLOSE, EV_RESHUFFLE, EV_SOURCE
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.envs.cubirds.hidden_group import PinnedGroup
from cardzoo.envs.cubirds.hidden_pin import PinnedBox
from cubirds_posterior import reference
from cubirds_small_logs import p_value, sampled_worlds, worst_p_value
from cubirds_worlds import seat_chains

SAMPLES = 3000
ALPHA = 1e-4
#: A pile that bounds nothing (each species' count stays under the packing's 32).
LOOSE = [30] * 8


def test_a_group_of_one_box_weighs_what_the_pinned_box_does(monkeypatch):
    # The group's forward pass spells out the open cards of its boxes; for a single box its
    # weights must be the pinned box's (listed from closed choices and open spreads), up to
    # one constant, within a pile that bounds some species. Catches a spread weight without
    # its factorials, a choice's share not divided by what follows it, a pile bound ignored.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    pile = [2, 3, 1, 4, 2, 5, 3, 6]
    checked = 0
    for prog in seat_chains(range(40, 56)):
        for k in range(prog.n):
            box = PinnedBox(prog, k).contents(pile)
            group = PinnedGroup(prog, [k], pile).contents(pile)
            assert set(box) == set(group)
            if box:
                shift = max(box.values())
                for u, w in box.items():
                    assert math.isclose(w - shift, group[u], abs_tol=1e-9)
                checked += 1
    assert checked > 20


def test_group_weights_add_up_to_the_chain(monkeypatch):
    # Over every content of a group (a pile that bounds nothing), Z(u) adds up to the chain's
    # total, for the first two boxes and for the last two. Catches a state merged with another
    # of a different pile content, a way counted twice.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    checked = 0
    for prog in seat_chains(range(40, 56)):
        if prog.n < 2:
            continue
        for boxes in ([0, 1], [prog.n - 2, prog.n - 1]):
            try:
                group = PinnedGroup(prog, boxes, LOOSE)
            except hidden_group.GroupTooLarge:
                continue
            assert math.isclose(sum(group.weight.values()), prog.total, rel_tol=1e-9)
            checked += 1
    assert checked > 10


def test_a_group_draws_the_chain_given_its_content(monkeypatch):
    # Given a content of the group, its draws must follow the chain's own law of the fillings
    # with that content: against the chain's draws that happen to give it (chi-square on
    # every box and species). Catches a backward draw that ignores the ways' weights, or that
    # draws the open cards of a pinned box by tilt instead of keeping the spread.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    rng = np.random.default_rng(11)
    progs = [p for p in seat_chains(range(40, 56)) if p.n >= 3]
    assert progs
    prog = max(progs, key=lambda p: p.n)
    group = PinnedGroup(prog, [0, 1], LOOSE)
    u = max(group.weight, key=group.weight.get)
    share = group.weight[u] / prog.total
    chain_draws: Counter = Counter()
    while sum(chain_draws.values()) < SAMPLES:
        rows = prog.sample_counts(rng)
        if tuple(a + b for a, b in zip(rows[0], rows[1])) == tuple(u):
            chain_draws[tuple(map(tuple, rows))] += 1
    group_draws = Counter(tuple(map(tuple, group.sample(rng, list(u)))) for _ in range(SAMPLES))
    assert all(tuple(a + b for a, b in zip(r[0], r[1])) == tuple(u) for r in group_draws)
    worst = min(
        p_value(chain_draws, group_draws, lambda rows, box=box, s=s: rows[box][s])
        for box in range(prog.n)
        for s in range(8)
    )
    assert share > 0.0 and worst > ALPHA / (8 * prog.n)


def _group_log(last_drawn: bool) -> list[tuple]:
    """A hand-made 3-player log (seat 0's view) with a reshuffle since its source. Seat 1 draws
    twice from the first pile with a lay between (two boxes there), seat 2 once. With
    ``last_drawn`` the new pile is drawn to its end too, seat 2 with two boxes there, and the
    first pile is drawn from by seat 1 alone."""
    z = (0,) * 5
    if last_drawn:
        first = [
            (EV_SOURCE, (1, 1, 1, *z)),
            (EV_BATCH, 1, (0, 0, 2, *z)),
            (EV_BATCH, 0, (0, 1, 0, *z)),
        ]
    else:
        first = [
            (EV_SOURCE, (2, 2, 2, *z)),
            (EV_BATCH, 1, (0, 0, 2, *z)),
            (EV_CLOSE, 1, 0, 1),
            (EV_BATCH, 1, (0, 0, 1, *z)),
            (EV_BATCH, 2, (0, 0, 2, *z)),
            (EV_BATCH, 0, (0, 1, 0, *z)),
        ]
    # The new pile: 6 cards; seat 2's first draw takes 2 of them when it is drawn to its end.
    pile = (1, 2, 2, 1, 0, 0, 0, 0) if last_drawn else (1, 2, 1, 1, 1, 0, 0, 0)
    last = [
        (EV_RESHUFFLE, pile),
        (EV_BATCH, 1, (0, 0, 2, *z)),
        (EV_BATCH, 2, (0, 0, 2 if last_drawn else 1, *z)),
        (EV_CLOSE, 2, 1, 1),
        (EV_BATCH, 2, (0, 0, 2, *z)),
    ]
    return first + last


@pytest.mark.parametrize(("last_drawn", "groups"), [(False, True), (True, True), (False, False)])
def test_piles_pinned_with_groups_are_sampled_exactly(last_drawn, groups, monkeypatch):
    # The chains with the rejection step, the pile pinned whole with a seat's two boxes as one
    # member (an emptied pile; the last pile drawn to its end), against the reference; and
    # with groups off (the pile left to the rejection step) as the control.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_group, "GROUPS", groups)
    log = _group_log(last_drawn)
    rng = np.random.default_rng(6)
    ref, _ = reference(log, 0, 3, rng, SAMPLES, 10**6)
    assert sum(ref.values()) == SAMPLES
    model = ExactModel(log, 0, 3)
    assert len(model.piles) == 2 and model.build() and model.seats is not None
    assert (model.box_size[-1] == 0) == last_drawn
    pinned = model.pile_pin
    assert (pinned is not None) == groups
    if groups:
        assert any(isinstance(p, PinnedGroup) for p in pinned.pins)
    assert worst_p_value(ref, sampled_worlds(model, rng, SAMPLES)) > ALPHA


def _one_pile_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view), one pile since the source, one card of it left:
    seat 1 draws twice with a lay between, seat 2 once."""
    z = (0,) * 4
    return [
        (EV_SOURCE, (2, 2, 2, 2, *z)),
        (EV_BATCH, 1, (0, 0, 3, 0, *z)),
        (EV_CLOSE, 1, 0, 1),
        (EV_BATCH, 2, (0, 0, 2, 0, *z)),
        (EV_BATCH, 0, (0, 1, 0, 0, *z)),
        (EV_BATCH, 1, (0, 0, 1, 0, *z)),
    ]


@pytest.mark.parametrize("pinned", [True, False])
def test_one_pile_split_with_what_is_left_is_sampled_exactly(pinned, monkeypatch):
    # One pile: where the pilot keeps too few (MIN_KEPT out of reach here), the pile is split
    # among the seats and what is left of it (each open card weighing the pile's tilt), with
    # no rejection; against the reference. Control: the joint programme.
    monkeypatch.setattr(hidden_exact, "MIN_KEPT", 2.0)
    monkeypatch.setattr(hidden_exact, "ONE_PILE_PIN", pinned)
    log = _one_pile_log()
    rng = np.random.default_rng(8)
    ref, _ = reference(log, 0, 3, rng, SAMPLES, 10**6)
    model = ExactModel(log, 0, 3)
    assert len(model.piles) == 1 and model.build() and model.box_size[-1] == 1
    assert (model.seats is not None) == pinned
    if pinned:
        assert model.pile_pin is not None and model.pile_pin.places[-1] == -1
    assert worst_p_value(ref, sampled_worlds(model, rng, SAMPLES)) > ALPHA
