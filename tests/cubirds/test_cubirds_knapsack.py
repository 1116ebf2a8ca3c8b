"""The rejection step's bound (session 31): ``log h_s`` one species at once, and the best total
over species by adding the largest steps instead of a dynamic programme over every total.

``_log_h_row`` must give ``log h_s(t)`` as its formula defines it (``-inf`` below what the closed
intervals took, and past it with no weight left), and ``knapsack_top`` the largest sum of one
entry per row with the totals and ranges asked, which is checked against every allocation."""

from __future__ import annotations

import itertools
import math
import random
from types import SimpleNamespace

import pytest
from cardzoo.envs.cubirds.hidden_reject import Rejection, knapsack_top


def _formula(a: int, w: float, c: int, t: int) -> float:
    """``log h_s(t)`` written out: ``w ** -(t - c) / (a - t)!``, zero weight below ``c``."""
    if t > a or t < c:
        return -math.inf
    if t == c:
        return -math.lgamma(a - t + 1)
    if w == 0.0:
        return -math.inf
    return (c - t) * math.log(w) - math.lgamma(a - t + 1)


def _row(a: int, w: float, closed: int, spent: int) -> list[float]:
    model = SimpleNamespace(avail=[[a]], tilt=[w], closed=[closed], spent=[spent])
    return Rejection._log_h_row(model, 0)


@pytest.mark.parametrize("seed", range(5))
def test_log_h_rows_follow_their_formula(seed):
    rng = random.Random(seed)
    for _ in range(200):
        a = rng.randint(0, 14)
        w = rng.choice([0.0, 0.5, 1.0, float(rng.randint(1, 12))])
        closed, spent = rng.randint(0, 8), rng.randint(0, 6)
        row = _row(a, w, closed, spent)
        assert len(row) == a + 1
        assert row == [_formula(a, w, closed - spent, t) for t in range(a + 1)]


def _best_by_every_allocation(rows, lows, highs, total) -> float:
    best = -math.inf
    ranges = [range(lo, hi + 1) for lo, hi in zip(lows, highs)]
    for pick in itertools.product(*ranges):
        if sum(pick) != total:
            continue
        value = 0.0
        for row, t in zip(rows, pick):
            value += row[t]
        best = max(best, value)
    return best


@pytest.mark.parametrize("seed", range(6))
def test_the_knapsack_bound_is_the_best_total(seed):
    rng = random.Random(seed)
    cases = 0
    for _ in range(150):
        species = rng.randint(1, 4)
        rows, lows, highs = [], [], []
        for _ in range(species):
            a = rng.randint(0, 7)
            row = _row(
                a,
                rng.choice([0.0, 1.0, 2.5, float(rng.randint(1, 9))]),
                *((rng.randint(0, 3), rng.randint(0, 2))),
            )
            low = rng.randint(0, 3)
            rows.append(row)
            lows.append(low)
            highs.append(min(a, rng.randint(low, 9)))
        # Mostly a total some allocation reaches (its entries may still all be -inf).
        total = sum(rng.randint(lo, max(lo, hi)) for lo, hi in zip(lows, highs))
        if rng.random() < 0.2:
            total = rng.randint(0, 14)
        want = _best_by_every_allocation(rows, lows, highs, total)
        got = knapsack_top(rows, lows, highs, total)
        if want == -math.inf:
            assert got == -math.inf
        else:
            cases += 1
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert cases > 25  # most cases have an allocation: the comparison is not vacuous
