"""The two counting programmes behind Cubirds' exact ``determinize`` agree (issue 16).

:class:`SeatChain` counts one seat's runs of draws box by box, skipping the states that cannot
be completed (Hall's condition on the rest of each interval); :class:`Programme` counts the same
boxes species by species with no pruning. On the seats of positions from random games the
totals must match, up to the weight the programme gives to closed intervals' cards (the chain
weighs them 1): ``tilt[s] ** (cards of s the seat's closed intervals took)``. A pruning rule
that dropped a completable state, or a wrong weight, changes the chain's total."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_count
from cardzoo.envs.cubirds.game import Config
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from cardzoo.envs.cubirds.hidden_count import Programme
from cardzoo.envs.cubirds.hidden_exact import ExactModel, TooLarge
from cubirds_worlds import random_states


def _seat_boxes(model: ExactModel) -> list[list[int]]:
    out = []
    for q in range(model.num_players):
        boxes = [g for g in range(len(model.seg_size)) if model.open[q] and model._seat(g) == q]
        if boxes:
            out.append(boxes)
    return out


@pytest.mark.parametrize("n", [2, 4])
def test_seat_chain_counts_what_the_programme_counts(n):
    compared = 0
    tilt = [1.0 + 0.37 * s for s in range(8)]  # uneven, so that a misplaced weight shows
    for state in random_states(n, 5, every=7, config=Config(num_players=n)):
        if state.terminal:
            continue
        model = ExactModel(state.log, state.current_player, n)
        model._boxes()
        for boxes in _seat_boxes(model):
            sizes = [model.box_size[g] for g in boxes]
            labels = [model.box_label[g] for g in boxes]
            chain = SeatChain(sizes, labels, model.iv_req, tilt)
            prog = Programme(sizes, [0] * len(boxes), labels, model.iv_req, None, tilt)
            if not (chain.build() and prog.build(10**4, 10**6)):
                continue
            closed = [0] * 8
            for iv in {lab[s] for lab in labels for s in range(8)}:
                if iv >= 0 and model.iv_req[iv] > 0:
                    closed[model.iv_species[iv]] += model.iv_req[iv]
            scale = math.prod(t**c for t, c in zip(tilt, closed))
            assert math.isclose(chain.total * scale, prog.total, rel_tol=1e-9)
            compared += 1
    assert compared >= 10


def joint_programme_inputs(n: int, seeds: int, every: int):
    """``(model, Programme arguments)`` of the seat to move at every ``every``-th decision of
    ``seeds`` random ``n``-player games, where the model reads the log."""
    for seed in range(seeds):
        for state in random_states(n, seed, every=every, config=Config(num_players=n)):
            if state.terminal:
                continue
            try:
                model = ExactModel(state.log, state.current_player, n)
                model._boxes()
            except TooLarge:
                continue
            yield (
                model,
                (model.box_size, model.box_pile, model.box_label, model.iv_req, model.avail),
            )


#: The limits every joint programme below is built with (states, enumeration steps).
LIMITS = (2000, 50_000)


def built_both_ways(monkeypatch, flag: str, args: tuple, measure) -> dict | None:
    """``{False: measure(prog), True: measure(prog)}`` for the joint programme over ``args``
    built with ``hidden_count.<flag>`` off and on; None when either build exceeds LIMITS."""
    got = {}
    for on in (False, True):
        monkeypatch.setattr(hidden_count, flag, on)
        prog = Programme(*args)
        if not prog.build(*LIMITS):
            return None
        got[on] = measure(prog)
    return got


def steps(prog: Programme) -> int:
    """Enumeration steps a build spent."""
    return LIMITS[1] - prog._budget[1]


@pytest.mark.parametrize("n", [3, 5])
def test_the_joint_programmes_tighter_bounds_drop_no_world(n, monkeypatch):
    # The joint programme bounds what later classes can take by their intervals' requirements
    # and their piles' contents. A bound that cut a choice that can be completed would change
    # the count (and the samples); a bound that never cut anything would not save steps.
    compared = saved = 0
    for _, args in joint_programme_inputs(n, seeds=2, every=5):
        got = built_both_ways(
            monkeypatch,
            "TIGHT_BOUNDS",
            args,
            lambda p: (p.total, p.sample_counts(np.random.default_rng(4)), steps(p)),
        )
        if got is None:
            continue
        assert math.isclose(got[True][0], got[False][0], rel_tol=1e-12)
        assert got[True][1] == got[False][1]
        saved += got[True][2] < got[False][2]
        compared += 1
    assert compared >= 20
    assert saved >= compared // 4


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_greedy_species_order_counts_the_same_worlds_in_fewer_steps(n, monkeypatch):
    # The joint programme counts species in a greedy order (the one leaving the fewest classes
    # next). Any order counts the same worlds: a wrong merge or a level reading another
    # species' labels changes the total. The greedy order must also spend fewer steps than
    # the old one (the species telling most boxes apart first) on most programmes.
    compared = fewer = more = 0
    for model, args in joint_programme_inputs(n, seeds=2, every=4):
        got = built_both_ways(monkeypatch, "GREEDY_ORDER", args, lambda p: (p.total, steps(p), p))
        if got is None:
            continue
        prog = got[True][2]
        assert sorted(prog.order) == list(range(8))
        # Greedy: no other species first would leave fewer classes at level 1.
        rows = {(j, *lab) for j, lab in zip(model.box_pile, model.box_label)}
        fewest = min(len({r[: s + 1] + r[s + 2 :] for r in rows}) for s in range(8))
        assert len(prog.classes[1]) == fewest
        assert math.isclose(got[True][0], got[False][0], rel_tol=1e-9)
        fewer += got[True][1] < got[False][1]
        more += got[True][1] > got[False][1]
        compared += 1
    assert compared >= 20
    assert fewer > more


@pytest.mark.parametrize("n", [3, 5])
def test_what_later_intervals_need_from_a_pile_cuts_only_dead_ends(n, monkeypatch):
    # With NEEDS, a class's choice is bounded by what the later intervals of its pile still
    # need from it. A bound that cut a choice that can be completed would change the count and
    # the samples; the choices kept (and so the samples drawn) must be the very same, in fewer
    # steps at some positions.
    compared = saved = 0

    def measure(prog: Programme) -> tuple:
        rng = np.random.default_rng(6)
        return prog.total, [prog.sample_counts(rng) for _ in range(3)], steps(prog)

    for _, args in joint_programme_inputs(n, seeds=3, every=3):
        got = built_both_ways(monkeypatch, "NEEDS", args, measure)
        if got is None:
            continue
        assert got[True][0] == got[False][0]  # the same sums in the same order
        assert got[True][1] == got[False][1]
        assert got[True][2] <= got[False][2]
        saved += got[True][2] < got[False][2]
        compared += 1
    assert compared >= 20
    assert saved >= 3


def test_draw_counts_is_a_multivariate_hypergeometric_draw():
    # k cards without replacement from a multiset: the chance of ``out`` is
    # prod C(counts[i], out[i]) / C(total, k). Compared by a chi-square test on every outcome.
    from itertools import product

    from scipy.stats import chisquare

    counts, k, draws = [3, 0, 2, 4, 1], 4, 20_000
    rng = np.random.default_rng(8)
    seen: dict[tuple, int] = {}
    for _ in range(draws):
        out = tuple(hidden_count.draw_counts(counts, k, rng))
        assert sum(out) == k and all(0 <= o <= c for o, c in zip(out, counts))
        seen[out] = seen.get(out, 0) + 1
    outcomes = [
        o for o in product(*(range(c + 1) for c in counts)) if sum(o) == k
    ]  # every possible draw
    expected = [
        draws * math.prod(math.comb(c, o) for c, o in zip(counts, out)) / math.comb(10, k)
        for out in outcomes
    ]
    assert set(seen) <= set(outcomes)
    assert chisquare([seen.get(o, 0) for o in outcomes], expected).pvalue > 1e-4


def _gives_up(walker, args: tuple, allowed: int) -> bool:
    try:
        walker(*args[:4], allowed, *args[5:])
    except TooLarge:
        return True
    return False


@pytest.mark.parametrize("needs", [False, True])
@pytest.mark.parametrize("n", [3, 5])
def test_the_plain_walk_lists_what_the_full_walk_does(n, needs, monkeypatch):
    # Session 25: without fed piles the walk of one species' choices takes a shorter path
    # (``_enumerate_plain``: the last step inside the one before). It must list the same
    # choices with the same weights in the same order and count the same steps, also where
    # the steps run out: then a build fits (or not) exactly as before, and samples the same.
    # Session 27: with ``NEEDS`` too (its bound is read from the steps, in both walks).
    monkeypatch.setattr(hidden_count, "NEEDS", needs)
    calls = []

    def record(*args):
        calls.append(args)
        return hidden_count._enumerate_all(*args)

    monkeypatch.setattr(hidden_count, "_enumerate", record)
    for _, args in joint_programme_inputs(n, 1, 5):
        Programme(*args).build(*LIMITS)
    plain = [args for args in calls if not args[5][1] and len(args[0]) >= 2]
    assert len(plain) >= 200
    listed = 0
    for args in plain[::3]:
        if _gives_up(hidden_count._enumerate_all, args, args[4]):  # (the build gave up there)
            assert _gives_up(hidden_count._enumerate_plain, args[:5], args[4])
            continue
        full = hidden_count._enumerate_all(*args)
        assert hidden_count._enumerate_plain(*args[:5]) == full
        used = args[4] - full[1]
        for allowed in (used - 1, used // 2):  # short of steps: both give up
            assert _gives_up(hidden_count._enumerate_plain, args[:5], allowed)
            assert _gives_up(hidden_count._enumerate_all, args, allowed)
        listed += bool(full[0])
    assert listed >= 50
