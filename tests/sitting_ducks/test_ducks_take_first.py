"""Session 8: ``reshuffled._take`` takes the first seat's hands (one row of cards left) at once
(``reshuffled._first_seat``), without checking each against the row again: the same ways, in
the same order, and the same refusals as the general step (the only step before)."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import reshuffled
from cardzoo.envs.sitting_ducks.data import NUM_KINDS


def _take_general(pool, sizes, most):
    """``_take`` with every seat through the general step."""
    left = np.array(pool, dtype=np.int16)[None, :]
    acc = np.zeros((1, 0), dtype=np.int64)
    for size in sizes:
        counts = reshuffled._COUNTS[size]
        fit = np.flatnonzero((counts <= left.max(axis=0)).all(axis=1))
        if len(left) * len(fit) > reshuffled.MAX_PAIRS:
            raise reshuffled.NotCovered
        rest = left[:, None, :] - counts[fit][None, :, :]
        ok_row, ok_hand = np.nonzero((rest >= 0).all(axis=2))
        if len(ok_row) > most:
            raise reshuffled.NotCovered
        left = rest[ok_row, ok_hand]
        acc = np.concatenate([acc[ok_row], fit[ok_hand][:, None]], axis=1)
    return acc, left


def _outcome(take, pool, sizes, most):
    try:
        return take(pool, sizes, most)
    except reshuffled.NotCovered:
        return None


def test_the_first_seat_taken_at_once_gives_the_general_ways():
    rng = np.random.default_rng(8)
    refused = taken = 0
    for _ in range(300):
        sizes = rng.integers(0, 4, rng.integers(1, 4)).tolist()
        pool = rng.choice([0, 0, 0, 1, 1, 2, 3, 5], NUM_KINDS).tolist()
        most = int(rng.choice([10, 200, 10**6]))
        got = _outcome(reshuffled._take, pool, sizes, most)
        want = _outcome(_take_general, pool, sizes, most)
        assert (got is None) == (want is None)
        if got is None:
            refused += 1
            continue
        taken += 1
        for a, b in zip(got, want):
            assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    assert refused > 10 and taken > 100


def test_the_first_seat_step_equals_the_general_step():
    rng = np.random.default_rng(9)
    for _ in range(100):
        pool = rng.choice([0, 0, 1, 2, 3, 4], NUM_KINDS).tolist()
        size, most = int(rng.integers(0, 4)), int(rng.choice([5, 50, 10**6]))
        got = _outcome(reshuffled._first_seat, pool, size, most)
        want = _outcome(_take_general, pool, [size], most)
        assert (got is None) == (want is None)
        if got is not None:
            assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, want))
