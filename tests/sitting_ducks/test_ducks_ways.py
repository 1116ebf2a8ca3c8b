"""``ways.count`` (how many ways to take hands of given sizes from a multiset) equals the length
of the listing it spares (``reshuffled._take``), and ``final_splits`` declines exactly the
tables the listing would have declined (session 7: the count comes first)."""

from __future__ import annotations

import random

import pytest
from cardzoo.envs.sitting_ducks import reshuffled, ways
from cardzoo.envs.sitting_ducks.data import NUM_KINDS


def _pools(seed: int, n: int):
    r = random.Random(seed)
    for _ in range(n):
        sizes = [r.randint(0, 3) for _ in range(r.randint(1, 3))]
        pool = [r.choice([0, 0, 0, 1, 1, 2, 3, 4, 7]) for _ in range(NUM_KINDS)]
        yield pool, sizes


def test_the_count_equals_the_listing():
    checked = 0
    for pool, sizes in _pools(0, 400):
        try:
            listed, _ = reshuffled._take(pool, sizes, 10**9)
        except reshuffled.NotCovered:  # too large to list here
            continue
        assert ways.count(pool, sizes) == len(listed), (pool, sizes)
        checked += 1
    assert checked > 300


def test_scarce_kinds_and_full_hands():
    # Two seats of three from six cards: every card taken; two of one kind and four single.
    pool = [2] + [1] * 4 + [0] * (NUM_KINDS - 5)
    listed, left = reshuffled._take(pool, [3, 3], 10**9)
    assert ways.count(pool, [3, 3]) == len(listed) > 0 and not left.any()
    assert ways.count([0] * NUM_KINDS, [1]) == 0 and ways.count([0] * NUM_KINDS, [0, 0]) == 1


def test_final_splits_declines_what_the_listing_declined(monkeypatch):
    for pool, sizes in _pools(1, 150):
        for before in (1, 7, 60):
            with_count = reshuffled.final_splits(pool, sizes, before)
            with monkeypatch.context() as off:
                off.setattr(ways, "count", lambda *a: 0)  # the listing decides alone
                alone = reshuffled.final_splits(pool, sizes, before)
            assert (with_count is None) == (alone is None)
            if alone is not None:
                assert (with_count[0] == alone[0]).all()


def test_bad_sizes_are_named():
    with pytest.raises(ValueError, match="sizes"):
        ways.count([1] * NUM_KINDS, [4])
