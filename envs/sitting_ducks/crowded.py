"""The reshuffles' splits summed forward at five and six players, without listing every split.

``reshuffled.py`` sums a Markov chain whose state at reshuffle ``b`` is the split of the known
multiset ``T_b`` among the other seats. With two or three other seats it lists every split of
``T_b``; with four or five other seats (five and six players) ``T_b`` holds 14 or 15 cards of
eight to twelve kinds and has millions of splits, nearly all of which no record allows. This
module builds only the splits the record allows and the chain's non-zero steps between them:

1. Per other seat, on its own: the hands it may hold at each reshuffle (a sub-multiset of
   ``T_b`` of its hand size) that its record reaches from its deal (forward) and from which it
   can explain its later record (backward, through the last pile's steps too). Measured on
   seeded six-player games this leaves 1 to 70 hands per seat and reshuffle, against 30 to
   230 sub-multisets.
2. From the splits at reshuffle ``b - 1`` (for the first, one empty split) to those at ``b``,
   seat by seat: every partial split is extended only by the hands its seat's own matrix
   (``A_q``, ``B^b_q``) leaves non-zero, that fit in what is left of ``T_b`` and that the
   seats still to come can complete (``_completable``). Partial ways that gave the seats so
   far the same hands from splits agreeing on the seats still to come are merged (summed),
   so the step costs about the pairs it keeps, not the splits' product.
3. The last reshuffle: its split is swept seat by seat keeping only what is left of ``T`` and
   the hands before of the seats still to come (``Swept``: its hands are needed for nothing
   after it, so partial splits that leave the same cards merge), each seat's column weighed
   by its bound for its hand now (``now.LastStep``); a draw picks a final state, walks back
   through the seats (``last_split.py``; since session 15 the paths are listed where they
   are few), and the hands now come by the exact rejection of ``now.py``. Where
   ``MAX_HAND_WAYS`` is set (0 by default: slower where measured) the hands now are swept
   too (``Staged``: states are what is left of ``T`` and of ``U``): no rejection.

In steps 2 and 3 what is left of ``T`` per partial split is one int with a guard bit per kind
(taking a hand clears the bit of a kind that runs short) and its mixed-radix number
(``_take_hands``): per pair a few int operations instead of a row of counts per kind, the
same pairs kept. Between positions of one record the splits before the last reshuffle are kept
while the current pile's record only rules hands out (``_closed_splits``), and each seat's
walk through the current pile keeps only the rows (hands at the last reshuffle) still alive
(2026-12-02, session 8: two thirds of them die, measured along a seeded six-player game).
Since session 34 that walk and each closed pile's start from the hands that fit in every
seat's hands at the reshuffle (``split.held``: the same multiset for every viewer) and are
kept with the record, so each is walked once for all viewers, and a viewer takes its own rows
(those that fit in its ``T_b``) from them: the same rows and, up to the factor divided out,
the same weights (five-player first calls 9-15 % cheaper, six-player 7-9 %).
Since session 22 step 3 lists a step's fitting pairs once per (row, rest) combination of its
partial splits (``_fitting_pairs``) and groups them with a 16-bit radix sort (``grouping.py``):
the same samples, six-player first calls about 13 % cheaper (docs/rules/sitting_ducks.md).
Since session 44 step 2 lists only its fitting pairs the same way (``FITTING_CLOSED``): before,
it made every non-zero pair first and declined past ``MAX_WAYS`` of them, which sent 4 of
11,461 six-player calls along seeds 3000-3059 to the replay; the same pairs, the same samples.

The seats are summed fewest hands per row at the last reshuffle first (:func:`spread_order`;
how many partial ways a step builds depends much on the order), and where that passes
``MAX_WAYS`` or ``MAX_KEPT``, once more in the order of ``split.others``. The closed splits
before the last reshuffle are summed in the usual order whatever the sweep's, their columns
permuted (``_closed_for``), so that one memo serves every order. Before session 26 the usual
order came first; the measurements are in docs/rules/sitting_ducks.md, section 10.

The sums are the same as the listing's (a split left out has weight zero), so the sampler
stays exact (``tests/sitting_ducks/test_ducks_exact_crowded.py``: brute force on tiny five-
player positions one and two reshuffles in, every way of drawing the hands now). A position
whose partial ways pass ``MAX_WAYS`` in one step, or whose fitting pairs pass ``MAX_KEPT``
(memory guards), is declined (``NotCovered``) and served by the replay (``sampling.py``), as
is one where the hands now by rejection accept too rarely (``reshuffled.MIN_ACCEPTANCE``,
1/1024 since session 11, 1/4096 since session 12: mostly when the draw pile is nearly empty)
both plainly and tilted (``tilted.py``, since session 18). On by default
(``reshuffled.CROWDED``). Measured: docs/rules/sitting_ducks.md, section 10.
"""

from __future__ import annotations

from math import lgamma, log
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks import now, walks
from cardzoo.envs.sitting_ducks.exact import _HANDS
from cardzoo.envs.sitting_ducks.grouping import groups, ranks, unique_rows

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.reshuffled import _Split

#: The most partial ways (split so far x next seat's hand) one step may build: a guard on
#: memory (about 100 bytes each) and time; past it the replay serves the position. 2.4M since
#: session 12 (its history, measured: docs/rules/sitting_ducks.md, section 10).
MAX_WAYS = 2_400_000
#: The last reshuffle's sweep (``_swept``) keeps only the pairs whose hand fits and can be
#: completed, without making the others (``_fitting_pairs``); past this many kept in one step
#: the replay serves the position (session 18: before, past ``MAX_WAYS`` pairs made, most of
#: which that test drops: 20.3M made, 4.4M kept at the six-player game 1001's decision 131).
#: Along seeds 1000-1002 at six players this served the 3 of 538 positions declined before
#: (decisions 130-132 of game 1001; measured in docs/rules/sitting_ducks.md, "Session 18").
#: 12M since session 22 (6M before; the sweep's memory shrank): six-player seeds 0-2's game 0,
#: decision 170 (11.8M kept) is served exactly, about 5 s and 1 GB at the peak.
MAX_KEPT = 12_000_000
#: ``_fitting_pairs``: up to this many ways x columns, every pair is made and tested (measured
#: along a seeded six-player game, session 22: the table per combination cost more below).
MADE_AT_ONCE = 1 << 18
#: The most ways the last step may build to sum the hands now too (``Staged``, no rejection);
#: 0 (the default): not tried, the hands now come by rejection (``Swept``), which measured
#: faster at five and six players on first and repeated calls alike.
MAX_HAND_WAYS = 0
#: Whether the seats are summed fewest hands per row first (``spread_order``), the usual order
#: (``split.others``) being the retry; False: the other way round, as before session 26.
SPREAD_FIRST = True
#: Whether the steps into the reshuffles before the last list only their fitting pairs too
#: (``_fitting_pairs``, capped at ``MAX_KEPT`` kept), as the last sweep does; False: every
#: non-zero pair is made first, capped at ``MAX_WAYS`` made, as before session 44.
FITTING_CLOSED = True
#: Per hand size: each hand's counts per kind, small ints.
_COUNTS = [t.counts.astype(np.int16) for t in _HANDS]


class NotCovered(Exception):
    """Too many partial ways in one step (``MAX_WAYS``)."""


class _Impossible(Exception):
    """No world: a seat's record cannot be explained under these forced-discard masks."""


class _Seat:
    """One other seat on its own: per reshuffle ``b`` the hands it may hold (``rows[b]``,
    hand indices), the matrices ``mats[b]`` (rows at ``b - 1`` x rows at ``b``; ``mats[0]``
    is one row, ``A_q``), the hands the seat reaches and can go on from (``alive[b]``), the
    log of the factors divided out (``scale``); ``last``: rows at the last reshuffle x hands
    now (``B^E_q``), its own factor ``last_scale``. ``memo``: a dict kept for this seat's
    record (``_memo``), where the closed piles' matrices and the last pile's walk so far are
    kept, so that a longer record only walks its new steps."""

    def __init__(self, split: _Split, q: int, key: int, advance, memo: dict | None = None) -> None:
        self.sizes = [size[q] for size in split.sizes] + [split.final[q]]
        record = memo.get("record") if memo is not None else None
        found = memo.get((q, key)) if memo is not None else None
        if found is None:
            found = self._closed(split, q, key, record)
            if memo is not None:
                memo[(q, key)] = found
        self.rows, self.mats, self.scale, held, mine = found
        v, live, s = _last_walk(record, q, key, held, self.sizes[-2], split.steps[q][-1], advance)
        # The viewer's rows among those that fit in every seat's hands (``held``): the walk's
        # live rows that are its, renumbered (the same rows, in the same order, as a walk of
        # its own rows would keep, their weights up to the factor in ``s``).
        keep = mine[live]
        self.last, self.live, self.last_scale = v[keep], (np.cumsum(mine) - 1)[live[keep]], s
        reach = [self.mats[0][0] > 0]
        for m in self.mats[1:]:
            reach.append(reach[-1].astype(float) @ m > 0)
        ends = np.zeros(len(self.rows[-1]), dtype=bool)
        ends[self.live] = self.last.sum(axis=1) > 0
        self.alive = [reach[-1] & ends]
        for b in range(len(self.mats) - 1, 0, -1):
            self.alive.insert(0, reach[b - 1] & (self.mats[b] @ self.alive[0] > 0))

    def _closed(self, split: _Split, q: int, key: int, record=None) -> tuple:
        """From scratch: rows, the closed piles' matrices and scale, the rows of the last
        reshuffle that fit in every seat's hands there, and which of them are this viewer's.
        The first pile's walk is the record's, kept for every viewer (``walks.py``, ``record``);
        so are the closed piles' matrices, walked over the hands that fit in every seat's hands
        (``split.held``, the same for every viewer) and cut to the viewer's rows here (those
        that fit in ``T_b``; session 34: each pile is walked once, not once per viewer)."""
        pools, sizes = split.pools, split.sizes
        held = [_fits(both, size[q]) for both, size in zip(split.held, sizes)]
        mine = [_within(rows, pool, size[q]) for rows, pool, size in zip(held, pools, sizes)]
        rows = [h[m] for h, m in zip(held, mine)]
        deal = walks.from_deal(split.dealt[q])
        v, _, scale = walks.walk(record, ("deal", q, key), deal, split.steps[q][0], key)
        if scale == float("-inf"):
            raise _Impossible
        mats = [v[None, rows[0]]]
        for b in range(1, len(pools)):  # (each closed pile's matrix is kept with the record)
            start, steps = self.sizes[b - 1], split.steps[q][b]
            found = walks.closed_pile(record, (q, key, b), held[b - 1], held[b], start, steps, key)
            if found is None:
                raise _Impossible
            mats.append(found[0][np.ix_(mine[b - 1], mine[b])])
            scale += found[1]
        return rows, mats, scale, held[-1], mine[-1]

    def full_last(self) -> np.ndarray:
        """``last`` over every row at the last reshuffle (the rows left out weigh zero)."""
        out = np.zeros((len(self.rows[-1]), self.last.shape[1]))
        out[self.live] = self.last
        return out


#: Per record, viewer and number of reshuffles: the seats' memos (``_Seat``), each kept with
#: its record (a reused id is told apart). A determinize at every decision of a game walks
#: only each seat's new steps.
_MEMOS: dict[tuple, tuple] = {}
#: Memos kept (each holds a seat's matrices over its possible hands: megabytes at six players).
MEMOS_KEPT = 8


def memo_for(record: list, player: int, reshuffles: int) -> dict:
    key = (id(record), player, reshuffles)
    found = _MEMOS.get(key)
    if found is None or found[0] is not record:
        if len(_MEMOS) >= MEMOS_KEPT:
            _MEMOS.clear()
        found = _MEMOS[key] = (record, {})
    return found[1]


def _last_walk(record, q: int, key: int, held, start: int, steps: list, advance) -> tuple:
    """Seat ``q``'s walk through the last pile from each of the hands ``held`` (those that fit
    in every seat's hands at the last reshuffle), kept with the record for every viewer and
    extended by the new ``steps`` alone: its live rows' weights, which rows of ``held`` they
    are, and the log of the factor divided out. A record whose steps do not extend the kept
    ones (another prefix) starts afresh."""
    name = ("last", q, key)
    memo = record if record is not None else {}
    found = memo.get(name)
    if (
        found is None
        or not np.array_equal(found[0], held)
        or len(found[5]) > len(steps)
        or steps[: len(found[5])] != found[5]
    ):
        found = (held, walks.one_hot(held, start), np.arange(len(held)), start, 0.0, [])
    held, v, live, size, s, done = found
    more = steps[len(done) :]
    if more:  # only the rows still alive are walked (``walks.live_rows``)
        v, size, s2 = _walk(advance, v, size, more, key)
        s += s2
        v, live = walks.live_rows(v, live)
    memo[name] = (held, v, live, size, s, list(steps))
    return v, live, s


def _within(rows: np.ndarray, pool: list[int], size: int) -> np.ndarray:
    """Which of the hands ``rows`` (of ``size`` cards) fit in the multiset ``pool``."""
    return (_COUNTS[size][rows] <= np.array(pool, dtype=np.int16)).all(axis=1)


def _walk(advance, v: np.ndarray, size: int, steps: list, key: int) -> tuple:
    """``advance`` (``reshuffled.py``), _Impossible when no hand is left."""
    out = advance(v, size, steps, key)
    if out[2] == float("-inf"):
        raise _Impossible
    return out


def _fits(pool: list[int], size: int) -> np.ndarray:
    """The hands of ``size`` cards that fit in the multiset ``pool``, as hand indices."""
    return np.flatnonzero((_COUNTS[size] <= np.array(pool, dtype=np.int16)).all(axis=1))


def _completable(seats: list[_Seat], b: int, pool: list[int]) -> tuple[list, np.ndarray]:
    """Per seat i: which parts of ``T_b`` (sub-multisets, by their mixed-radix number) the
    seats from i on can make of hands they may hold there (``done[i]``), and the radix
    weights. A partial split whose rest is not among them cannot be completed. Kept by what
    it is a function of (``_DONE``: ``T_b`` and the hands the seats after the first may hold
    there), since along a game the same viewer's next positions mostly ask for it again
    (session 8); never to be changed by the caller."""
    key = (tuple(pool), *((s.sizes[b], s.rows[b][s.alive[b]].tobytes()) for s in seats[1:]))
    found = _DONE.get(key)
    if found is None:
        if len(_DONE) >= DONE_KEPT:
            _DONE.clear()
        found = _DONE[key] = _completable_afresh(seats, b, pool)
    return found


#: ``_completable``'s answers by their key, and how many are kept.
_DONE: dict[tuple, tuple] = {}
DONE_KEPT = 32


def _completable_afresh(seats: list[_Seat], b: int, pool: list[int]) -> tuple[list, np.ndarray]:
    """``_completable`` computed: from the empty rest, seat by seat back to the second, every
    part the seats from there on can make. What is left of ``T_b`` beside each part is packed
    with guard bits (``_packing``), so that whether a hand fits is one subtraction per pair
    (session 26: half the time of comparing the counts kind by kind, the same answers)."""
    radix = np.cumprod([1] + [c + 1 for c in pool[:-1]]).astype(np.int64)
    weights, guard = _packing(pool)
    top = np.array(pool, dtype=np.int64)
    numbers = np.arange(int(radix[-1]) * (pool[-1] + 1), dtype=np.int64)
    room = ((top - (numbers[:, None] // radix) % (top + 1)) @ weights) | guard
    done = [np.zeros(len(numbers), dtype=bool) for _ in range(len(seats) + 1)]
    done[-1][0] = True
    for i in range(len(seats) - 1, 0, -1):
        seat = seats[i]
        hands = _COUNTS[seat.sizes[b]][seat.rows[b][seat.alive[b]]].astype(np.int64)
        packed, number = hands @ weights, hands @ radix
        parts = np.flatnonzero(done[i + 1])
        for j in range(0, len(parts), 2048):  # in blocks: parts x hands stays small
            part = parts[j : j + 2048]
            fit = ((room[part][:, None] - packed[None, :]) & guard) == guard
            done[i][(part[:, None] + number[None, :])[fit]] = True
    return done, radix


def _extend(prev: np.ndarray, alpha: np.ndarray, seats: list[_Seat], b: int, pool) -> tuple:
    """The chain's step into reshuffle ``b``: from the splits ``prev`` (ways x seats, row
    positions at ``b - 1``; one empty way for the deal) with weights ``alpha``, every pair
    with a non-zero weight (partial splits the later seats cannot complete are dropped at
    once). Returns the splits reached (row positions at ``b``) and the pairs' weights."""
    done, radix = _completable(seats, b, pool)
    packing = (*_packing(pool), radix)
    src = np.arange(len(prev))
    left = _whole(pool, packing, len(prev))
    acc = np.zeros((len(prev), 0), dtype=np.int64)
    w = alpha
    for i, seat in enumerate(seats):
        m = seat.mats[b] * seat.alive[b][None, :]
        p = prev[src, i] if b else np.zeros(len(src), dtype=np.int64)
        hands = _COUNTS[seat.sizes[b]][seat.rows[b]]
        if FITTING_CLOSED:
            way, col, rest = _fitting_pairs(m, p, left, hands, packing, done[i + 1])
        else:
            way, col = _nonzero_pairs(m, p)
            ok, rest = _take_hands(left, way, col, hands, packing, done[i + 1])
            way, col = way[ok], col[ok]
        left, src = rest, src[way]
        acc = np.concatenate([acc[way], col[:, None]], axis=1)
        w = w[way] * m[p[way], col]
        acc, w, src, left = _same_state(acc, w, src, left, prev[:, i + 1 :])
    return acc, w


def _nonzero_pairs(m: np.ndarray, p: np.ndarray, most: int = 0) -> tuple:
    """Every (way, column) with ``m[p[way], column]`` non-zero. NotCovered past ``most``
    (``MAX_WAYS`` by default)."""
    nz_row, nz_col = np.nonzero(m)
    starts = np.searchsorted(nz_row, np.arange(len(m) + 1))
    counts = starts[p + 1] - starts[p]
    total = int(counts.sum())
    if total > (most or MAX_WAYS):
        raise NotCovered
    way = np.repeat(np.arange(len(p)), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return way, nz_col[starts[p][way] + offset]


def _fitting_pairs(m: np.ndarray, p: np.ndarray, left, hands, packing, done) -> tuple:
    """The pairs of ``_nonzero_pairs`` whose hand fits in what is left of ``T`` and leaves a
    completable rest (``_take_hands``), with that rest: the same pairs in the same order (by
    way, then column). Whether a hand fits depends only on what is left, and the ways share
    few of those (55-330 at the largest steps along a seeded six-player game, for up to 23,000
    ways): each is tested once against every column (session 18: the pairs the test drops are
    never made; at game 1001's decision 131, 20.3M made before, 4.4M kept). A way's pairs
    depend only on its row of ``m`` and its rest, and the ways share few of those too (about
    12,000 for 218,000 ways at the largest step there): the pairs are listed once per such
    combination and each way's are read off them (session 22: a third to two thirds less time
    at the largest steps). Small steps (at most ``MADE_AT_ONCE`` ways x columns) make every
    pair and test it: cheaper there. NotCovered past ``MAX_KEPT`` pairs."""
    cols = m.shape[1]
    if len(p) * cols <= MADE_AT_ONCE:
        way, g = _nonzero_pairs(m, p, MADE_AT_ONCE)  # (at most that many)
        ok, rest = _take_hands(left, way, g, hands, packing, done)
        if len(ok) > MAX_KEPT:
            raise NotCovered
        return way[ok].astype(np.int32), g[ok].astype(np.int32), rest  # (int32: memory)
    which, first = _distinct(left[:, 1], len(done))
    rests = len(first)
    cells = np.arange(rests * cols)
    ok, rest_rows = _take_hands(left[first], cells // cols, cells % cols, hands, packing, done)
    fit_at = np.full(len(cells), -1, dtype=np.int64)  # the cell's rest in ``rest_rows``
    fit_at[ok] = np.arange(len(ok))
    fit_at = fit_at.reshape(rests, cols)
    kind, combos = _distinct(p.astype(np.int64) * rests + which, len(m) * rests)
    combos = (p[combos].astype(np.int64), which[combos])  # each combination's row and rest
    none = np.zeros(0, dtype=np.int64)
    nz_row, nz_col, nz_rest = [none], [none.astype(np.int32)], [none]
    step = max(1, MAX_WAYS // max(cols, 1))  # table cells at a time (memory)
    for lo in range(0, len(combos[0]), step):
        row, rest = combos[0][lo : lo + step], combos[1][lo : lo + step]
        at = fit_at[rest]
        r, c = np.nonzero((m[row] != 0) & (at >= 0))
        nz_row.append(r + lo)
        nz_col.append(c.astype(np.int32))
        nz_rest.append(at[r, c])
    nz_row, nz_col, nz_rest = (np.concatenate(x) for x in (nz_row, nz_col, nz_rest))
    starts = np.searchsorted(nz_row, np.arange(len(combos[0]) + 1))
    counts = starts[kind + 1] - starts[kind]
    total = int(counts.sum())
    if total > MAX_KEPT:
        raise NotCovered
    way = np.repeat(np.arange(len(p), dtype=np.int32), counts)  # (int32: memory)
    pos = np.arange(total) + np.repeat(starts[kind] - (np.cumsum(counts) - counts), counts)
    return way, nz_col[pos], rest_rows[nz_rest[pos]]


def _distinct(values: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Each value's rank among the distinct ``values`` (non-negative, below ``top``), and an
    index of each distinct value (any: they are equal), in increasing order of value: a table
    where ``top`` is small enough, else a sort."""
    if top > 8 * len(values) + 4096:
        _, first, rank = np.unique(values, return_index=True, return_inverse=True)
        return rank.ravel(), first
    present = np.zeros(top, dtype=bool)
    present[values] = True
    rank = (np.cumsum(present) - 1)[values]
    first = np.empty(int(present.sum()), dtype=np.int64)
    first[rank] = np.arange(len(values))
    return rank, first


def _staged(seats: list[_Seat], prev: np.ndarray, alpha, pool, unseen) -> tuple:
    """The last step (see ``Staged``): from the splits at the reshuffle before (``prev``,
    weights ``alpha``), seat by seat its hand at the last reshuffle (non-zero, fitting in
    what is left of ``T``, completable) and its hand now (``B^E_q`` non-zero) taken from
    ``U`` without replacement, weighed by ``prod_k (U_k)_(s_k)`` as the rejection path's
    target. Returns the levels, the final states' weights and the log of the factors
    divided out. NotCovered past ``MAX_HAND_WAYS`` edges in one step."""
    b = len(seats[0].rows) - 1
    done, radix_t = _completable(seats, b, pool)
    radix_u = np.cumprod([1] + [c + 1 for c in unseen[:-1]]).astype(np.int64)
    src = np.arange(len(prev))
    left_t = np.tile(np.array(pool, dtype=np.int16), (len(prev), 1))
    left_u = np.tile(np.array(unseen, dtype=np.int64), (len(prev), 1))
    fwd, scale, levels = alpha, 0.0, []
    for i, seat in enumerate(seats):
        m = seat.mats[b] * seat.alive[b][None, :]
        p = prev[src, i]
        way, g = _nonzero_pairs(m, p, MAX_HAND_WAYS)
        rest = left_t[way] - _COUNTS[seat.sizes[b]][seat.rows[b][g]]
        ok = (rest >= 0).all(axis=1)
        ok[ok] = done[i + 1][rest[ok].astype(np.int64) @ radix_t]
        way, g, rest = way[ok], g[ok], rest[ok]
        table = _HANDS[seat.sizes[-1]]
        last = seat.full_last()
        way2, h = _nonzero_pairs(last, g, MAX_HAND_WAYS)
        from_u = left_u[way[way2]]
        picks = np.prod(
            from_u[np.arange(len(h))[:, None], table.slot_kind[h]] - table.slot_rank[h], axis=1
        )
        ok = picks > 0
        way2, h = way2[ok], h[ok]
        parent = way[way2]
        w = fwd[parent] * m[p[parent], g[way2]] * last[g[way2], h] * picks[ok]
        left_t, left_u = rest[way2], from_u[ok] - table.counts[h]
        key = np.stack([left_t.astype(np.int64) @ radix_t, left_u @ radix_u], axis=1)
        key = np.concatenate([key, prev[src[parent], i + 1 :]], axis=1)
        _, first, child = unique_rows(key)
        child = child.ravel()
        fwd = np.bincount(child, weights=w, minlength=len(first))
        order = np.argsort(child, kind="stable")
        share = (w / fwd[child])[order]
        levels.append(
            (
                parent[order],
                h[order],
                np.cumsum(share),
                np.searchsorted(child[order], np.arange(len(first) + 1)),
            )
        )
        src, left_t, left_u = src[parent[first]], left_t[first], left_u[first]
        total = float(fwd.sum())
        if total <= 0.0:
            return levels, fwd, float("-inf")
        fwd, scale = fwd / total, scale + log(total)
    return levels, fwd, scale


def _swept(seats: list[_Seat], prev: np.ndarray, alpha, pool, lasts: list, unseen: int) -> tuple:
    """The last step for ``Swept``: from the splits at the reshuffle before (``prev``, weights
    ``alpha``), seat by seat its hand at the last reshuffle (non-zero, fitting in what is left
    of ``T``, completable), weighed by its ``now.LastStep`` bound; states are what is left of
    ``T``, the cards of the drawn seats so far and the seats still to come at the reshuffle
    before. Returns the levels, the final weights (the deals' ways ``now.log_deal`` included)
    and the log of the factors divided out. NotCovered past ``MAX_KEPT`` pairs kept."""
    b = len(seats[0].rows) - 1
    done, radix = _completable(seats, b, pool)
    packing = (*_packing(pool), radix)
    src = np.arange(len(prev))
    left = _whole(pool, packing, len(prev))
    drawn = np.zeros(len(prev), dtype=np.int16)  # (small ints kept small: memory)
    fwd, scale, levels = alpha, 0.0, []
    for i, (seat, last) in enumerate(zip(seats, lasts)):
        m = seat.mats[b] * (seat.alive[b] * last.bound)[None, :]
        p = prev[src, i] if b else np.zeros(len(src), dtype=np.int64)
        hands = _COUNTS[seat.sizes[b]][seat.rows[b]]
        way, g, rest = _fitting_pairs(m, p, left, hands, packing, done[i + 1])
        w = fwd[way] * m[p[way], g]
        more = drawn[way] + np.where(last.dealt, 0, last.size).astype(np.int16)[g]
        # The seats still to come, one int a pair.
        later = ranks(prev[:, i + 1 :]).astype(np.int32)[src][way]
        first, child, order, starts = groups([rest[:, 1], more, later])
        del later
        fwd = np.bincount(child, weights=w, minlength=len(first))
        w /= fwd[child]
        del child
        levels.append((way[order], g[order], np.cumsum(w[order]), starts))
        src, left, drawn = src[way[first]], rest[first], more[first]
        del w, order, way, g, rest, more
        total = float(fwd.sum())
        if total <= 0.0:
            return levels, fwd, float("-inf")
        fwd, scale = fwd / total, scale + log(total)
    hands = sum(last.size for last in lasts)
    deal = _LOG_FACT[unseen - drawn] - _LOG_FACT[unseen - hands]
    top = float(deal.max())
    return levels, fwd * np.exp(deal - top), scale + top


_LOG_FACT = np.array([lgamma(n + 1.0) for n in range(256)])


def _whole(pool: list[int], packing: tuple, ways: int) -> np.ndarray:
    """``ways`` rows of what is left of ``pool`` when nothing is taken (``_take_hands``)."""
    weights, _, radix = packing
    whole = np.array(pool, dtype=np.int64)
    return np.tile(np.array([int(whole @ weights), int(whole @ radix)]), (ways, 1))


def _take_hands(left: np.ndarray, way: np.ndarray, col: np.ndarray, hands, packing, done):
    """Take hand ``hands[col]`` from what is left of ``T`` in row ``way`` of ``left`` (per
    row: the rest packed, ``_packing``, and its mixed-radix number, ``done``'s index), for
    each pair: the pairs where it fits and ``done`` holds for what it leaves, and what it
    leaves there (rows as ``left``)."""
    weights, guard, radix = packing
    hands = hands.astype(np.int64)
    rest = (left[way, 0] | guard) - (hands @ weights)[col]
    ok = np.flatnonzero((rest & guard) == guard)  # no field went below zero
    number = left[way[ok], 1] - (hands @ radix)[col[ok]]
    completes = done[number]
    ok, number = ok[completes], number[completes]
    return ok, np.stack([rest[ok] & ~guard, number], axis=1)


def _packing(pool: list[int]) -> tuple[np.ndarray, int]:
    """Sub-multisets of ``pool`` packed in one int: per kind a field of at least two bits,
    enough for its count in ``pool`` and for the up to three cards a hand takes, and one guard
    bit above it (``weights``: each field's lowest bit, ``2**start``; ``guard``: the guard
    bits). ``(a | guard) - b`` subtracts field by field (no borrow crosses a field), and a field
    that went below zero clears its guard bit. ``pool`` holds at most 15 cards: under 60 bits."""
    starts, guard, at = [], 0, 0
    for c in pool:
        starts.append(at)
        at += max(c.bit_length(), 2)
        guard |= 1 << at
        at += 1
    if at > 62:  # cannot happen with hands of at most three cards; never overflow silently
        raise NotCovered
    return np.left_shift(1, np.array(starts, dtype=np.int64)), guard


def _same_state(acc: np.ndarray, w: np.ndarray, src: np.ndarray, left, suffix) -> tuple:
    """Ways that gave the seats so far the same hands (``acc``) from splits that agree on the
    seats still to come (``suffix[src]``) go on alike (what is left is the same too): one
    way each, their weights summed. What they came from is never needed again."""
    key = np.concatenate([acc, suffix[src]], axis=1)
    _, first, inverse = unique_rows(key)
    w = np.bincount(inverse.ravel(), weights=w, minlength=len(first))
    return acc[first], w, src[first], left[first]


def _merged(acc: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``acc`` (small non-negative ints) and their summed weights."""
    _, first, inverse = unique_rows(acc)
    return acc[first], np.bincount(inverse.ravel(), weights=w, minlength=len(first))


def _closed_splits(
    split: _Split, seats: list[_Seat], keys: list[int], memo, order=None
) -> tuple | None:
    """The splits at the reshuffle before the last one and their weights (normalised, with the
    log of the factor divided out), or None if none is left. They depend on the record after
    that reshuffle only through which hands each seat can go on from (``alive``), and those
    only shrink as the current pile's record grows: the splits kept in ``memo`` for a superset
    of today's ``alive`` serve, the splits with a hand no longer alive dropped (every path
    through such a hand dies at the next reshuffle, so the rest weigh as a fresh sum would)."""
    alive = [s.alive[b] for s in seats for b in range(len(s.mats) - 1)]
    name = ("closed", tuple(keys)) if order is None else ("closed", tuple(keys), order)
    found = memo.get(name) if memo is not None else None
    if found is not None and all(np.all(a <= k) for a, k in zip(alive, found[0])):
        return _still_alive(found[1], seats, len(split.pools) - 2, found[0], alive)
    prev = np.zeros((1, len(seats)), dtype=np.int64)
    alpha, scale, out = np.ones(1), 0.0, None
    for b, pool in enumerate(split.pools[:-1]):
        prev, alpha = _merged(*_extend(prev, alpha, seats, b, pool))
        total = float(alpha.sum())
        if total <= 0.0:
            break
        alpha, scale = alpha / total, scale + log(total)
    else:
        out = (prev, alpha, scale)
    if memo is not None:
        memo[name] = (alive, out)
    return out


def _closed_for(split: _Split, seats: list[_Seat], keys: list[int], memo, order) -> tuple | None:
    """``_closed_splits`` for the seats in ``order`` (None: the usual one): those summed in the
    usual order (kept in ``memo`` for every order) with their columns put in ``order``, or,
    where the usual order passes ``MAX_WAYS``, summed in ``order`` itself. The sums do not
    depend on the order, only the partial ways built on the way there."""
    if order is None:
        return _closed_splits(split, seats, keys, memo)
    usual, usual_keys = [seats[0]] * len(seats), [0] * len(seats)
    for i, at in enumerate(order):
        usual[at], usual_keys[at] = seats[i], keys[i]
    try:
        found = _closed_splits(split, usual, usual_keys, memo)
    except NotCovered:
        return _closed_splits(split, seats, keys, memo, order)
    return None if found is None else (found[0][:, list(order)], *found[1:])


def _still_alive(kept: tuple | None, seats: list[_Seat], b: int, was: list, alive: list):
    """The kept closed splits (``_closed_splits``) with the splits at reshuffle ``b`` that give
    a seat a hand no longer alive dropped, renormalised; None if none is left."""
    if kept is None or b < 0 or all(np.array_equal(a, k) for a, k in zip(alive, was)):
        return kept
    prev, alpha, scale = kept
    keep = np.ones(len(prev), dtype=bool)
    for i, seat in enumerate(seats):
        keep &= seat.alive[b][prev[:, i]]
    total = float(alpha[keep].sum())
    if total <= 0.0:
        return None
    return prev[keep], alpha[keep] / total, scale + log(total)


def last_splits(
    split: _Split, keys: list[int], advance, memo: dict | None = None, tilt=None
) -> tuple | None:
    """The record summed up to the last reshuffle under ``keys`` (each seat's forced-discard
    masks); None if no world explains it. Returns ``("staged", levels, final weights, log
    scale)`` (``Staged``) where the last step with the hands now fits in ``MAX_HAND_WAYS``,
    else ``("swept", levels, final weights, log scale, each seat's now.LastStep)``
    (``Swept``, the hands now by rejection). Where the seats were summed in another order
    than ``split.others``'s (:func:`spread_order`), one more element: that order (their places
    in ``split.others``), in which ``Staged`` and ``Swept`` list them. NotCovered past
    ``MAX_WAYS`` in both orders. ``tilt``: the hands now drawn tilted (``now.py``)."""
    try:
        seats = [_Seat(split, q, key, advance, memo) for q, key in zip(split.others, keys)]
    except _Impossible:
        return None
    first = spread_order(seats) if SPREAD_FIRST else list(range(len(seats)))
    try:
        return _in_order(split, seats, keys, memo, first, tilt)
    except NotCovered:
        other = list(range(len(seats))) if SPREAD_FIRST else spread_order(seats)
        if other == first:
            raise
    return _in_order(split, seats, keys, memo, other, tilt)


def _in_order(split: _Split, seats: list[_Seat], keys: list[int], memo, order: list, tilt):
    """``_summed`` with the seats in ``order`` (their places in ``split.others``); the order
    appended to the result where it is not theirs."""
    if order == sorted(order):
        return _summed(split, seats, split.others, keys, memo, tilt=tilt)
    seats = [seats[i] for i in order]
    others = [split.others[i] for i in order]
    found = _summed(split, seats, others, [keys[i] for i in order], memo, tuple(order), tilt)
    return None if found is None else (*found, tuple(order))


def spread_order(seats: list[_Seat]) -> list[int]:
    """The order in which the seats are summed first (``SPREAD_FIRST``; the usual order then is
    the retry): fewest hands per row at the last reshuffle first (the mean number of hands each
    of a seat's rows there can lead to, among those still alive). How many partial ways a step
    builds depends much on the order (measured: docs/rules/sitting_ducks.md, section 10)."""
    spread = []
    for seat in seats:
        reach = (seat.mats[-1][:, seat.alive[-1]] > 0).sum(axis=1)
        spread.append(float(reach[reach > 0].mean()) if reach.any() else 1.0)
    return sorted(range(len(seats)), key=lambda i: (spread[i], i))


def _summed(
    split: _Split, seats: list[_Seat], others, keys, memo, order=None, tilt=None
) -> tuple | None:
    """``last_splits`` with the seats (``others``, ``keys``) summed in this order (``order``:
    their places in ``split.others``, None when the same)."""
    found = _closed_for(split, seats, keys, memo, order)
    if found is None:
        return None
    prev, alpha, closed = found
    scale = closed + sum(seat.scale for seat in seats) + sum(s.last_scale for s in seats)
    if MAX_HAND_WAYS and tilt is None:  # the last reshuffle's split and the hands now in one sweep
        try:
            levels, final, more = _staged(seats, prev, alpha, split.pools[-1], split.unseen)
            return None if more == float("-inf") else ("staged", levels, final, scale + more)
        except NotCovered:  # too many ways: the hands now come by rejection (now.py)
            pass
    unseen = np.array(split.unseen, dtype=float)
    lasts = [
        now.LastStep(s.last, split.final[q], unseen, s.live, len(s.rows[-1]), tilt)
        for s, q in zip(seats[:-1], others[:-1])
    ]
    s, q = seats[-1], others[-1]
    extra = now.leftover_of_last(int(unseen.sum()), lasts, split.final[q])
    lasts.append(now.LastStep(s.last, split.final[q], unseen, s.live, len(s.rows[-1]), tilt, extra))
    now.link(lasts)  # one kept array for the seats: a batch draws every seat's hand at once
    levels, final, more = _swept(seats, prev, alpha, split.pools[-1], lasts, sum(split.unseen))
    return None if more == float("-inf") else ("swept", levels, final, scale + more, lasts)
