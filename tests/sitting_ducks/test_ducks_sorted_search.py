"""Session 34: ``now.search``, a batch's lookups made in increasing order of their keys, finds
what ``np.searchsorted(..., "right")`` finds, key for key, in the keys' own shape."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import now


def test_search_finds_what_searchsorted_finds(monkeypatch):
    rng = np.random.default_rng(4)
    monkeypatch.setattr(now, "SEARCH_SORTED_FROM", 16)
    for n, shape in [(1213, (512, 5)), (40, (3,)), (7, (100,)), (1, (20, 2)), (500, (0,))]:
        values = np.sort(rng.integers(0, 50, n) + rng.random(n).round(1))
        keys = rng.integers(-1, 52, shape) + rng.random(shape).round(1)  # ties with values too
        found = now.search(values, keys)
        assert found.shape == keys.shape
        assert np.array_equal(found, np.searchsorted(values, keys, "right"))
        if keys.size >= now.SEARCH_SORTED_FROM:
            assert not np.array_equal(keys.ravel(), np.sort(keys.ravel()))  # (the sort mattered)
