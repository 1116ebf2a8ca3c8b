"""Session 8, five and six players: ``crowded._completable`` kept by what it is a function of,
and the last reshuffle's sweep grouping its partial splits with one sort (``grouping.groups``,
``crowded._groups`` before session 34):
the same answers as computed afresh / as ``np.unique`` and a stable sort."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import Config, State, crowded, grouping


def test_groups_are_unique_rows_and_a_stable_sort():
    rng = np.random.default_rng(3)
    for rows in [
        rng.integers(0, 4, (300, 3)),
        rng.integers(0, 2, (50, 1)),
        np.zeros((0, 2), dtype=np.int64),
        rng.integers(0, 1 << 40, (200, 2)),  # codes would not fit: rows compared whole
        np.repeat(rng.integers(0, 1 << 40, (20, 2)), 3, axis=0),
        # codes of 16 to 48 bits: sorted 16 bits at a time (``stable_order``, session 22)
        np.repeat(rng.integers(0, 1 << 9, (400, 2)), 2, axis=0),
        rng.integers(0, 1 << 12, (2000, 3)),
        np.repeat(rng.integers(0, 1 << 15, (300, 3)), 4, axis=0),
    ]:
        first, child, order, starts = grouping.groups(list(rows.T))
        _, want_first, want_child = grouping.unique_rows(rows)
        want_child = want_child.ravel()
        want_order = np.argsort(want_child, kind="stable")
        want_starts = np.searchsorted(want_child[want_order], np.arange(len(want_first) + 1))
        for got, want in [
            (first, want_first),
            (child, want_child),
            (order, want_order),
            (starts, want_starts),
        ]:
            assert np.array_equal(got, want)


def test_groups_sorted_in_parts_are_the_groups_sorted_whole(monkeypatch):
    """Session 34: codes whose most significant column never decreases are sorted in parts
    cut where it grows (``grouping.in_parts``); the groups and the stable order are those of
    ``np.unique`` and a stable sort, whether or not the column is sorted and whether a part
    holds one value of it or many."""
    monkeypatch.setattr(grouping, "SORT_PART", 64)
    rng = np.random.default_rng(11)
    cut, sorted_cases = [], 0
    whole = grouping.in_parts
    monkeypatch.setattr(grouping, "in_parts", lambda c, lead: cut.append(1) or whole(c, lead))
    for n, leading, low in [(5000, 40, 900), (3000, 3, 70_000), (2000, 2000, 5), (129, 1, 9)]:
        for shuffled in (False, True):
            lead = np.sort(rng.integers(0, leading, n))
            if shuffled:
                lead = rng.permutation(lead)
            sorted_cases += bool((np.diff(lead) >= 0).all())
            columns = [rng.integers(0, low, n), rng.integers(0, 4, n), lead]
            first, child, order, starts = grouping.groups(columns)
            _, want_first, want_child = grouping.unique_rows(np.stack(columns, axis=1))
            want_child = want_child.ravel()
            want_order = np.argsort(want_child, kind="stable")
            assert np.array_equal(first, want_first)
            assert np.array_equal(child, want_child)
            assert np.array_equal(order, want_order)
            assert np.array_equal(
                starts, np.append(np.flatnonzero(np.diff(want_child[want_order], prepend=-1)), n)
            )
    assert len(cut) == sorted_cases >= 4  # where the leading column never decreases


def test_kept_completable_parts_equal_parts_computed_afresh(monkeypatch):
    """Along a seeded six-player game (determinize for the seat to play at every decision)
    every kept answer equals one computed afresh, and some are asked for again."""
    asked, computed = [], []
    kept = crowded._completable
    afresh = crowded._completable_afresh

    def checked(seats, b, pool):
        done, radix = kept(seats, b, pool)
        want_done, want_radix = afresh(seats, b, pool)
        assert np.array_equal(radix, want_radix) and len(done) == len(want_done)
        assert all(np.array_equal(x, y) for x, y in zip(done, want_done))
        asked.append(1)
        return done, radix

    def counted(seats, b, pool):
        computed.append(1)
        return afresh(seats, b, pool)

    monkeypatch.setattr(crowded, "_completable", checked)
    monkeypatch.setattr(crowded, "_completable_afresh", counted)
    monkeypatch.setattr(crowded, "_DONE", {})
    state = State(Config(num_players=6), seed=5)
    pick = np.random.default_rng(5)
    while not state.terminal and len(asked) < 40:
        state.determinize(state.current_player, pick)
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert len(asked) >= 40 and 2 * len(computed) < len(asked) + len(computed)


def test_completable_parts_are_what_the_later_seats_hands_can_make():
    """``crowded._completable_afresh`` against a listing: per seat ``i`` (from the second on),
    the parts of ``T_b`` that the seats from ``i`` on can make of the hands they may hold, as
    the mixed-radix numbers of their counts (session 26: computed with packed counts)."""
    from itertools import product
    from types import SimpleNamespace

    rng = np.random.default_rng(5)
    for _ in range(6):
        pool = [0] * 16
        for kind in rng.choice(16, 8):
            pool[kind] += 1
        seats = []
        for size in (3, 2, 2, 1):
            counts = crowded._COUNTS[size]
            rows = np.flatnonzero((counts <= np.array(pool)).all(axis=1))
            alive = rng.random(len(rows)) < 0.7
            seats.append(SimpleNamespace(sizes=[size], rows=[rows], alive=[alive]))
        done, radix = crowded._completable_afresh(seats, 0, pool)
        for i in range(1, len(seats) + 1):
            hands = [crowded._COUNTS[s.sizes[0]][s.rows[0][s.alive[0]]] for s in seats[i:]]
            want = set()
            for pick in product(*hands):
                total = np.sum(pick, axis=0) if pick else np.zeros(16, dtype=np.int64)
                if (total <= np.array(pool)).all():
                    want.add(int(total @ radix))
            assert set(np.flatnonzero(done[i]).tolist()) == want
