"""Session 8: ``exact._falling`` is kept by its arguments: the products ``prod_k (c_k)_(H[k])``
of the formula, the kept array returned again for the same counts."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import exact
from cardzoo.envs.sitting_ducks.data import NUM_KINDS
from cardzoo.envs.sitting_ducks.exact import _HANDS, _falling


def test_falling_is_kept_and_equals_the_formula(monkeypatch):
    monkeypatch.setattr(exact, "_FALLING", {})
    rng = np.random.default_rng(2)
    for _ in range(30):
        c = rng.integers(0, 5, NUM_KINDS)
        for size in range(4):
            table = _HANDS[size]
            want = np.prod(c[table.slot_kind] - table.slot_rank, axis=1).astype(float)
            for counts in (c.astype(float), c):
                got = _falling(counts, size)
                assert np.array_equal(got, want) and _falling(counts, size) is got
