"""Each seat's walk through its own record, kept per record and extended by the new steps only.

The exact samplers weigh a seat's possible hands by walking its record step by step (a play
keeps the hands holding the card, a forced discard the hands of unplayable kinds, a draw adds
any kind: ``exact.play_step`` and ``draw_step``). Built afresh at every position, that walk
grows with the game and dominated a call made at every decision (issue 16). A record (the
state's log, a list that is only ever appended to) keeps here, per walk it was asked for (a
seat, its forced-discard masks, and where the walk starts), the weights reached and the steps
walked; a later position of the same record walks only its new steps. A walk whose steps are
not an extension of the kept ones (another record prefix, a clone that forked) starts afresh,
so the weights are always those of a walk from the start (tests:
``tests/sitting_ducks/test_ducks_walks.py``). A walk with one row per candidate hand at the
last reshuffle (``walk_rows``) keeps only the rows still alive (2026-12-02, session 8).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from cardzoo.envs.sitting_ducks.exact import _HANDS, draw_step, normalised, play_step

#: A draw step of a seat's record (a play step is ``(card, forced masks or None)``).
DRAW = None
#: Records whose walks are kept (a search agent's sampled worlds are records too).
RECORDS_KEPT = 8
_RECORDS: dict[int, tuple[list, dict]] = {}


def advance(v: np.ndarray, size: int, steps: list, key: int) -> tuple[np.ndarray, int, float]:
    """Carry weights over hands of ``size`` cards (last axis) through a seat's steps: a play
    keeps the hands holding the card and removes it (a forced discard first keeps the hands of
    unplayable kinds, masks ``key``), a draw adds any kind. Returns the weights over the hands
    of the new size, the size, and the log of the factor divided out (-inf: none left)."""
    scale = 0.0
    for step in steps:
        if step is DRAW:
            v, size = draw_step(v, size)
        else:
            v, size = play_step(v, size, *step, key)
        v, factor = normalised(v)
        if factor == float("-inf"):
            return v, size, factor
        scale += factor
    return v, size, scale


def from_deal(dealt: int) -> Callable[[], tuple[np.ndarray, int]]:
    """A walk's start at the deal (``walk``): every hand of ``dealt`` cards, weighed by the
    orders in which it can be dealt."""
    return lambda: (_HANDS[dealt].orders.copy(), dealt)


def memo_for(record: list) -> dict:
    """The walks kept for ``record`` (kept with it: a reused id is told apart)."""
    found = _RECORDS.get(id(record))
    if found is None or found[0] is not record:
        if len(_RECORDS) >= RECORDS_KEPT:
            _RECORDS.clear()
        found = _RECORDS[id(record)] = (record, {})
    return found[1]


def walk(
    memo: dict | None,
    name: tuple,
    start: Callable[[], tuple[np.ndarray, int]],
    steps: list,
    key: int,
    origin: object = None,
) -> tuple[np.ndarray, int, float]:
    """``advance(*start(), steps, key)``, continued from the walk kept under ``name`` in
    ``memo`` when it came from the same ``origin`` (what ``start`` depends on) and its steps
    begin ``steps`` (then only the new steps are walked); the result is kept for the next call,
    replacing the one kept under ``name``. ``memo`` None: walked afresh, nothing kept."""
    found = memo.get(name) if memo is not None else None
    if (
        found is not None
        and found[4] == origin
        and len(found[3]) <= len(steps)
        and steps[: len(found[3])] == found[3]
    ):
        v, size, scale, done, _ = found
        if scale == float("-inf"):  # no hand explains the kept steps: none explains more
            return v, size, scale
        more = steps[len(done) :]
        if more:
            v, size, extra = advance(v, size, more, key)
            scale = extra if extra == float("-inf") else scale + extra
    else:
        v, size = start()
        v, size, scale = advance(v, size, steps, key)
    if memo is not None:
        memo[name] = (v, size, scale, list(steps), origin)
    return v, size, scale


def one_hot(rows: np.ndarray, size: int) -> np.ndarray:
    """One row per candidate hand of ``size`` cards, weight 1 on that hand."""
    v = np.zeros((len(rows), len(_HANDS[size].hands)))
    v[np.arange(len(rows)), rows] = 1.0
    return v


def closed_pile(
    memo: dict | None,
    name: tuple,
    rows: np.ndarray,
    to_rows: np.ndarray,
    size: int,
    steps: list,
    key: int,
) -> tuple[np.ndarray, float] | None:
    """A seat's matrix through a closed pile: its walk through the pile's ``steps`` from each
    hand in ``rows`` (hands of ``size`` cards), over the hands in ``to_rows`` at the end, and
    the log of the factor divided out; None if no hand explains the steps. Kept in ``memo``
    (the record's, :func:`memo_for`) under ``name`` and the rows it joins: a closed pile's
    matrix never changes, and the crowded sampler's per-viewer memo, made afresh at each
    reshuffle, asked for every closed pile's again (session 29: about 40 % of those walks at
    six players). The same walk, so the same matrix to the last bit."""
    name = ("closed", *name, size, rows.tobytes(), to_rows.tobytes())
    found = memo.get(name) if memo is not None else None
    if found is not None and found[2] == steps:
        return found[0], found[1]
    v, _, scale = advance(one_hot(rows, size), size, steps, key)
    if scale == float("-inf"):
        return None
    m = v[:, to_rows]
    if memo is not None:
        if _closed_bytes[0] + m.nbytes > CLOSED_BYTES:  # every record's dropped, then kept anew
            for _, kept in _RECORDS.values():
                for old in [k for k in kept if isinstance(k, tuple) and k[:1] == ("closed",)]:
                    del kept[old]
            _closed_bytes[0] = 0
        memo[name] = (m, scale, list(steps))
        _closed_bytes[0] += m.nbytes
    return m, scale


#: The closed piles' matrices kept with the records (``closed_pile``; about 12 MB along a
#: six-player game, a finished game's never read again) are all dropped once they pass this
#: many bytes together; those still needed are walked again when next asked for.
CLOSED_BYTES = 48_000_000
_closed_bytes = [0]


def live_rows(v: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``v`` (rows x hands) without its rows of weight zero, and which rows of the start the
    rows kept are (``live``: the start's row of each row of ``v``). A row of zeros stays so at
    every later step: nothing that comes after needs it."""
    keep = v.any(axis=1)
    if keep.all():
        return v, live
    return v[keep], live[keep]


def walk_rows(
    memo: dict | None,
    name: tuple,
    start: Callable[[], tuple[np.ndarray, int]],
    steps: list,
    key: int,
    origin: object = None,
) -> tuple[np.ndarray, np.ndarray, int, float]:
    """``walk`` for a walk with one row per start (each candidate hand at the last reshuffle),
    whose rows die as the record rules those hands out (about half of them at three and four
    players, two thirds at six, measured along seeded games, session 8): the rows of zeros are
    dropped as they die (``live_rows``), so that the later steps walk only the live ones.
    Returns the live rows' weights, their rows in the start, the size and the log of the
    factor: the weights and factor of ``walk``'s live rows, up to rounding (the totals are
    summed without the rows of zeros)."""
    found = memo.get(name) if memo is not None else None
    if (
        found is not None
        and found[5] == origin
        and len(found[4]) <= len(steps)
        and steps[: len(found[4])] == found[4]
    ):
        v, live, size, scale, done, _ = found
        more = steps[len(done) :]
        if more and scale != float("-inf"):  # none explains the kept steps: none explains more
            v, size, extra = advance(v, size, more, key)
            scale = extra if extra == float("-inf") else scale + extra
            v, live = live_rows(v, live) if scale != float("-inf") else (v, live)
    else:
        v, size = start()
        v, size, scale = advance(v, size, steps, key)
        live = np.arange(len(v))
        if scale != float("-inf"):
            v, live = live_rows(v, live)
    if memo is not None:
        memo[name] = (v, live, size, scale, list(steps), origin)
    return v, live, size, scale
