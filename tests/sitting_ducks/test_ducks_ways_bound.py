"""Session 8: ``ways.at_least`` bounds ``ways.count`` from below, so ``final_splits`` declines
the same tables without counting where the bound decides."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import reshuffled, ways
from cardzoo.envs.sitting_ducks.data import NUM_KINDS


def test_at_least_bounds_the_count_and_spares_it(monkeypatch):
    rng = np.random.default_rng(11)
    tight = 0
    for _ in range(300):
        sizes = rng.integers(0, 4, rng.integers(1, 4)).tolist()
        pool = rng.choice([0, 0, 0, 1, 1, 2, 3, 4], NUM_KINDS).tolist()
        if rng.random() < 0.2:  # a pool with barely enough cards, or too few
            pool = [0] * NUM_KINDS
            for k in rng.integers(0, NUM_KINDS, sum(sizes) + int(rng.integers(-1, 2))):
                pool[k] += 1
        bound, count = ways.at_least(pool, sizes), ways.count(pool, sizes)
        assert bound <= count
        if len(sizes) == 1:
            assert bound == count
        tight += 0 < bound == count
        # Where the bound decides, final_splits declines without counting.
        for before in (1, 4, 40):
            if bound > reshuffled.MAX_CELLS // before and len(sizes) > 1:
                with monkeypatch.context() as m:
                    m.setattr(ways, "count", _never)
                    assert reshuffled.final_splits(pool, sizes, before) is None
    assert tight > 20


def _never(*args):
    raise AssertionError("counted where the bound decides")
