"""The reshuffles' splits summed forward at five and six players, without listing every split.

``reshuffled.py`` sums a Markov chain whose state at reshuffle ``b`` is the split of the known
multiset ``T_b`` among the other seats. With two or three other seats it lists every split of
``T_b``; with four or five other seats (five and six players) ``T_b`` holds 14 or 15 cards of
eight to twelve kinds and has millions of splits, nearly all of which no record allows. This
module lists only the splits the record allows and the chain's non-zero steps between them:

1. Per other seat, on its own: the hands it may hold at each reshuffle (a sub-multiset of
   ``T_b`` of its hand size) that its record reaches from its deal (forward) and from which it
   can explain its later record (backward, through the last pile's steps too). Measured on
   seeded six-player games this leaves 1 to 70 hands per seat and reshuffle, against 30 to
   230 sub-multisets.
2. The first reshuffle's splits are built seat by seat from those hands, keeping only the
   partial splits that still fit in ``T_1``; each carries the product of its seats' ``A_q``.
3. From the splits at reshuffle ``b`` to those at ``b + 1``, seat by seat again: every split
   is extended only by the hands its seat's own matrix ``B^b_q`` leaves non-zero and that fit
   in what is left of ``T_(b+1)``. The pairs are summed per split reached (weights ``alpha``),
   so the splits at ``b + 1`` are exactly those some allowed split at ``b`` reaches.

The sums are the same as the listing's (a split left out has weight zero), so the sampler
built on them (``reshuffled.Posterior``: the split at the last reshuffle, then the hands now)
stays exact. A position whose partial ways pass ``MAX_WAYS`` in one step is declined
(``NotCovered``) and served by the replay (``sampling.py``).
"""

from __future__ import annotations

from math import log
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks.exact import _HANDS

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.reshuffled import _Split

#: The most partial ways (split so far x next seat's hand) one extension step may build.
MAX_WAYS = 400_000
#: The most ways the last step may build to be summed (past it the hands now come by
#: rejection, which accepts often exactly where the draw pile is large and the ways many).
MAX_HAND_WAYS = 200_000
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
    now (``B^E_q``), its own factor ``last_scale``."""

    def __init__(self, split: _Split, q: int, key: int, advance) -> None:
        pools, sizes = split.pools, split.sizes
        self.rows = [_fits(pool, size[q]) for pool, size in zip(pools, sizes)]
        self.sizes = [size[q] for size in sizes] + [split.final[q]]
        dealt = split.dealt[q]
        v, _, self.scale = _walk(
            advance, _HANDS[dealt].orders.copy(), dealt, split.steps[q][0], key
        )
        self.mats = [v[None, self.rows[0]]]
        for b in range(1, len(pools) + 1):
            start = self.sizes[b - 1]
            m, _, s = _walk(
                advance, _one_hot(self.rows[b - 1], start), start, split.steps[q][b], key
            )
            if b < len(pools):
                self.mats.append(m[:, self.rows[b]])
                self.scale += s
        self.last, self.last_scale = m, s
        reach = [self.mats[0][0] > 0]
        for m in self.mats[1:]:
            reach.append(reach[-1].astype(float) @ m > 0)
        self.alive = [reach[-1] & (self.last.sum(axis=1) > 0)]
        for b in range(len(self.mats) - 1, 0, -1):
            self.alive.insert(0, reach[b - 1] & (self.mats[b] @ self.alive[0] > 0))


def _walk(advance, v: np.ndarray, size: int, steps: list, key: int) -> tuple:
    """``advance`` (``reshuffled.py``), _Impossible when no hand is left."""
    out = advance(v, size, steps, key)
    if out[2] == float("-inf"):
        raise _Impossible
    return out


def _fits(pool: list[int], size: int) -> np.ndarray:
    """The hands of ``size`` cards that fit in the multiset ``pool``, as hand indices."""
    return np.flatnonzero((_COUNTS[size] <= np.array(pool, dtype=np.int16)).all(axis=1))


def _one_hot(rows: np.ndarray, size: int) -> np.ndarray:
    v = np.zeros((len(rows), len(_HANDS[size].hands)))
    v[np.arange(len(rows)), rows] = 1.0
    return v


def _completable(seats: list[_Seat], b: int, pool: list[int]) -> tuple[list, np.ndarray]:
    """Per seat i: which parts of ``T_b`` (sub-multisets, by their mixed-radix number) the
    seats from i on can make of hands they may hold there (``done[i]``), and the radix
    weights. A partial split whose rest is not among them cannot be completed."""
    radix = np.cumprod([1] + [c + 1 for c in pool[:-1]]).astype(np.int64)
    top = np.array(pool, dtype=np.int16)
    numbers = np.arange(int(radix[-1]) * (pool[-1] + 1), dtype=np.int64)
    digits = ((numbers[:, None] // radix) % (top + 1)).astype(np.int16)
    done = [np.zeros(len(digits), dtype=bool) for _ in range(len(seats) + 1)]
    done[-1][0] = True
    for i in range(len(seats) - 1, 0, -1):
        seat = seats[i]
        hands = _COUNTS[seat.sizes[b]][seat.rows[b][seat.alive[b]]]
        parts = np.flatnonzero(done[i + 1])
        for j in range(0, len(parts), 1024):  # in blocks: parts x hands x kinds stays small
            sums = digits[parts[j : j + 1024]][:, None, :] + hands[None, :, :]
            fit = (sums <= top).all(axis=2)
            done[i][sums[fit] @ radix] = True
    return done, radix


def _extend(prev: np.ndarray, alpha: np.ndarray, seats: list[_Seat], b: int, pool) -> tuple:
    """The chain's step into reshuffle ``b``: from the splits ``prev`` (ways x seats, row
    positions at ``b - 1``; one empty way for the deal) with weights ``alpha``, every pair
    with a non-zero weight (partial splits the later seats cannot complete are dropped at
    once). Returns the splits reached (row positions at ``b``) and the pairs' weights."""
    done, radix = _completable(seats, b, pool)
    src = np.arange(len(prev))
    left = np.tile(np.array(pool, dtype=np.int16), (len(prev), 1))
    acc = np.zeros((len(prev), 0), dtype=np.int64)
    w = alpha
    for i, seat in enumerate(seats):
        m = seat.mats[b] * seat.alive[b][None, :]
        p = prev[src, i] if b else np.zeros(len(src), dtype=np.int64)
        way, col = _nonzero_pairs(m, p)
        rest = left[way] - _COUNTS[seat.sizes[b]][seat.rows[b][col]]
        ok = (rest >= 0).all(axis=1)
        ok[ok] = done[i + 1][rest[ok].astype(np.int64) @ radix]
        way, col = way[ok], col[ok]
        left, src = rest[ok], src[way]
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


def _hands_now(seats: list[_Seat], prev: np.ndarray, alpha: np.ndarray, unseen) -> tuple:
    """The last step summed exactly: from the last reshuffle's splits, every way to give
    each seat a hand now (``B^E_q`` non-zero) taken from ``U`` without replacement, weighed
    by ``prod_k (U_k)_(s_k)`` (``s``: the hands' sum) as the rejection path's target. Returns
    the distinct hands (ways x seats, hand indices) and their weights; NotCovered past
    ``MAX_WAYS``."""
    src = np.arange(len(prev))
    left = np.tile(np.array(unseen, dtype=np.int64), (len(prev), 1))
    acc = np.zeros((len(prev), 0), dtype=np.int64)
    w = alpha
    for i, seat in enumerate(seats):
        table = _HANDS[seat.sizes[-1]]
        p = prev[src, i]
        way, col = _nonzero_pairs(seat.last, p, MAX_HAND_WAYS)
        kinds = table.slot_kind[col]
        picks = np.prod(left[way[:, None], kinds] - table.slot_rank[col], axis=1)
        ok = picks > 0
        way, col = way[ok], col[ok]
        left = left[way] - table.counts[col]
        w = w[way] * picks[ok] * seat.last[p[way], col]
        acc = np.concatenate([acc[way], col[:, None]], axis=1)
        acc, w, src, left = _same_state(acc, w, src[way], left, prev[:, i + 1 :])
    return acc, w


def _same_state(acc: np.ndarray, w: np.ndarray, src: np.ndarray, left, suffix) -> tuple:
    """Ways that gave the seats so far the same hands (``acc``) from splits that agree on the
    seats still to come (``suffix[src]``) go on alike (what is left is the same too): one
    way each, their weights summed. What they came from is never needed again."""
    key = np.concatenate([acc, suffix[src]], axis=1)
    _, first, inverse = np.unique(_codes(key), return_index=True, return_inverse=True)
    w = np.bincount(inverse.ravel(), weights=w, minlength=len(first))
    return acc[first], w, src[first], left[first]


def _codes(rows: np.ndarray) -> np.ndarray:
    """One int per row of small non-negative ints (mixed radix; 5 columns of < 1000 fit)."""
    radix = int(rows.max(initial=0)) + 1
    return rows @ (radix ** np.arange(rows.shape[1], dtype=np.int64))


def _merged(acc: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``acc`` (small non-negative ints) and their summed weights."""
    _, first, inverse = np.unique(_codes(acc), return_index=True, return_inverse=True)
    return acc[first], np.bincount(inverse.ravel(), weights=w, minlength=len(first))


def last_splits(split: _Split, keys: list[int], advance) -> tuple | None:
    """The record summed up to the last reshuffle under ``keys`` (each seat's forced-discard
    masks); None if no world explains it. Returns ``("hands", every hands now the record
    allows (ways x other seats, hand indices), their weights (summing to 1), the log of the
    total)`` where the last step fits in ``MAX_HAND_WAYS``, else ``("splits", per seat the
    hands it may hold at the last reshuffle, each split's rows in them, (alpha, log
    scale))`` for the rejection path. NotCovered past ``MAX_WAYS``."""
    try:
        seats = [_Seat(split, q, key, advance) for q, key in zip(split.others, keys)]
    except _Impossible:
        return None
    scale = sum(seat.scale for seat in seats)
    prev = np.zeros((1, len(seats)), dtype=np.int64)
    alpha = np.ones(1)
    for b, pool in enumerate(split.pools):
        prev, alpha = _merged(*_extend(prev, alpha, seats, b, pool))
        total = float(alpha.sum())
        if total <= 0.0:
            return None
        alpha, scale = alpha / total, scale + log(total)
    try:
        hands, w = _hands_now(seats, prev, alpha, split.unseen)
    except NotCovered:  # too many ways: the hands now come by rejection (reshuffled.py)
        return "splits", *_rows(seats, prev), (alpha, scale)
    total = float(w.sum())
    if total <= 0.0:
        return None
    return "hands", hands, w / total, scale + sum(s.last_scale for s in seats) + log(total)


def _rows(seats: list[_Seat], prev: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Per seat the hands it may hold at the last reshuffle, and each split's rows in them."""
    hands = [seat.rows[-1][prev[:, i]] for i, seat in enumerate(seats)]
    cands = [np.unique(h) for h in hands]
    return cands, np.stack([np.searchsorted(c, h) for c, h in zip(cands, hands)], axis=1)
