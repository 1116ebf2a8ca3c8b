"""Grouping the rows of ``crowded.py``'s sweep: the distinct rows of a few columns of small
non-negative ints, found by sorting one integer code per row (mixed radix) rather than the
rows themselves, and the stable order of those codes, 16 bits at a time (NumPy's stable sort
of 16-bit ints is a radix sort) and, where the codes' top digit never decreases, in parts
small enough to stay in the cache (session 34). Moved out of ``crowded.py`` in session 34;
the same functions (``tests/sitting_ducks/test_ducks_sweep_kept.py``)."""

from __future__ import annotations

import numpy as np


def groups(columns: list[np.ndarray]) -> tuple:
    """The distinct rows made of ``columns`` (one array per column, small non-negative ints) as
    groups: each group's first row, each row's group, the rows sorted by group (stable) and
    where each group starts in that order (one more: the end). What ``unique_rows`` and a
    stable sort by group give, from one sort of the rows' codes (session 8; the columns kept
    apart since session 22: a maximum and a sum per column cost less than over stacked rows)."""
    weights, top = [], 1
    for column in columns:
        weights.append(top)
        top *= int(column.max(initial=0)) + 1
    if top >= 1 << 62:  # no code fits: as before, rows compared whole
        _, first, child = unique_rows(np.stack(columns, axis=1))
        child = child.ravel()
        order = np.argsort(child, kind="stable")
        return first, child, order, np.searchsorted(child[order], np.arange(len(first) + 1))
    codes = columns[0].astype(np.int64)
    for column, weight in zip(columns[1:], weights[1:]):
        codes += np.multiply(column, weight, dtype=np.int64)  # (any int column: no overflow)
    order = stable_order(codes, top, columns[-1])
    ordered = codes[order]
    new = np.empty(len(codes), dtype=bool)
    new[:1] = True
    new[1:] = ordered[1:] != ordered[:-1]
    child = np.empty(len(codes), dtype=np.intp)
    child[order] = np.cumsum(new) - 1
    return order[new], child, order, np.append(np.flatnonzero(new), len(codes))


def stable_order(codes: np.ndarray, top: int, leading: np.ndarray | None = None) -> np.ndarray:
    """``codes.argsort(kind="stable")`` for non-negative codes below ``top``, sorted 16 bits at
    a time from the lowest (NumPy's stable sort of 16-bit ints is a radix sort, several times
    faster than its sort of 64-bit ints; each pass keeps the order of the one before among
    equals, so the result is the same stable order). ``leading``: the codes' most significant
    digit (``groups``' last column), if known; where it never decreases, long codes are
    sorted in parts (``in_parts``)."""
    if (
        leading is not None
        and len(codes) >= 2 * SORT_PART
        and bool((leading[1:] >= leading[:-1]).all())
    ):
        return in_parts(codes, leading)
    if top > 1 << 48:
        return codes.argsort(kind="stable")
    order = (codes & 0xFFFF).astype(np.uint16).argsort(kind="stable")
    shift = 16
    while top > 1 << shift:
        digit = ((codes[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[digit.argsort(kind="stable")]
        shift += 16
    return order


#: ``in_parts``: the length a part aims at. Measured at the six-player seed 0's decision 170
#: (8.0M and 10.9M codes): parts of 2**14 to 2**18 all sort in 200-310 ms, against 430-810 ms
#: sorted whole (session 34).
SORT_PART = 1 << 16


def in_parts(codes: np.ndarray, leading: np.ndarray) -> np.ndarray:
    """``stable_order`` of ``codes`` whose most significant digit ``leading`` never decreases:
    cut where it grows (the first such place past every ``SORT_PART`` codes), every code before
    a cut is below every code after it, so the parts' stable orders one after the other are
    the whole's. The last sweep's pairs come so (its ways are sorted by the seats still to
    come, the codes' top digit), and a part small enough to stay in the cache sorts two to
    three times faster than the whole (session 34)."""
    n = len(codes)
    cuts = np.unique(np.searchsorted(leading, leading[SORT_PART::SORT_PART], "right"))
    order = np.empty(n, dtype=np.intp)
    for lo, hi in zip([0, *cuts[cuts < n].tolist()], [*cuts[cuts < n].tolist(), n]):
        part = codes[lo:hi]
        base = int(part.min())
        order[lo:hi] = stable_order(part - base, int(part.max()) - base + 1) + lo
    return order


def ranks(rows: np.ndarray) -> np.ndarray:
    """Each row's rank among the distinct rows (small non-negative ints), in the order of
    ``groups``' codes (the last column most significant): one column that groups and sorts
    as the rows would, so a step's pairs carry one int for them rather than a row each
    (session 18: a third of the memory at the largest steps)."""
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int64)
    weights, top = [], 1
    for r in rows.max(axis=0).tolist():
        weights.append(top)
        top *= r + 1
    if top >= 1 << 62:  # no code fits: the rows compared whole, the last column first
        return np.unique(rows[:, ::-1], axis=0, return_inverse=True)[1].ravel()
    return np.unique(rows @ np.array(weights, dtype=np.int64), return_inverse=True)[1].ravel()


def unique_rows(rows: np.ndarray) -> tuple:
    """``np.unique`` over rows of non-negative ints (first index, inverse): one int per row
    (mixed radix) where that fits in 62 bits, else the rows themselves."""
    radix = [int(r) + 1 for r in rows.max(axis=0, initial=0)]
    weights, top = [], 1
    for r in radix:
        weights.append(top)
        top *= r
    if top >= 1 << 62:
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    else:
        codes = rows @ np.array(weights, dtype=np.int64)
        _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return None, first, inverse
