"""How many ways there are to take hands of given sizes from a multiset, without listing them.

``reshuffled.final_splits`` sums the hands now exactly only where the ways to take them from the
cards ``U`` are few; it used to find out by listing them, and along a game most positions at
three and four players have too many, so the listing was built and thrown away (session 7
profile: 181 of 267 calls at three players, 258 of 261 at four). ``count`` gives the number
first, in a few small matrix products: a state is what each seat still has to take (0 to 3
cards each, ``4 ** seats`` states), and one kind of ``u`` cards moves a state to every state
that takes at most ``u`` of that kind in all, at most its remaining count from each seat (a
hand is a multiset: how many of each kind a seat takes is all that tells two hands apart).
Tests: ``tests/sitting_ducks/test_ducks_ways.py`` (equals the listing's length).
"""

from __future__ import annotations

from functools import cache
from itertools import product
from math import comb

import numpy as np

#: The largest hand a seat takes here (``exact.MAX_HAND``) and the most seats counted.
MOST_CARDS = 3
MOST_SEATS = 4


@cache
def _steps(seats: int) -> np.ndarray:
    """``[u, r, r']``: 1 where one kind with ``u`` cards (``u`` up to all the seats take) can
    take the seats from needing ``r`` cards to needing ``r'`` (states in base 4)."""
    states = list(product(range(MOST_CARDS + 1), repeat=seats))
    index = {s: sum(x * 4**i for i, x in enumerate(s)) for s in states}
    most = MOST_CARDS * seats
    out = np.zeros((most + 1, 4**seats, 4**seats))
    for r in states:
        for r2 in states:
            taken = [a - b for a, b in zip(r, r2)]
            if min(taken, default=0) >= 0:
                out[sum(taken) :, index[r], index[r2]] = 1.0
    return out


def count(pool: list[int], sizes: list[int]) -> int:
    """The number of ways to give each seat a hand of ``sizes[i]`` cards (a multiset of kinds)
    taken together from the multiset ``pool`` (counts per kind): ``len`` of what
    ``reshuffled._take`` lists. Sizes above ``MOST_CARDS`` or more than ``MOST_SEATS`` seats:
    ValueError."""
    seats = len(sizes)
    if seats > MOST_SEATS or any(not 0 <= s <= MOST_CARDS for s in sizes):
        raise ValueError(f"ways.count: sizes {sizes} (at most {MOST_SEATS} seats of 0-3)")
    if seats == 0:
        return 1
    steps = _steps(seats)
    most = len(steps) - 1
    v = np.zeros(4**seats)
    v[sum(s * 4**i for i, s in enumerate(sizes))] = 1.0
    for u in pool:
        if u:  # a kind with no card takes nothing: its step is the identity
            v = v @ steps[min(u, most)]
    return int(round(v[0]))


def at_least(pool: list[int], sizes: list[int]) -> int:
    """A lower bound on ``count(pool, sizes)``, in a few integer operations: the most hands of
    one seat's size that fit in ``pool`` (a sub-multiset of that size), when ``pool`` holds at
    least all the cards the seats take (else 0). Each such hand is part of a way: what it
    leaves holds enough cards for the others, and any cards can be dealt into hands of any
    sizes. Along a game it nearly always passes ``reshuffled.final_splits``' limit alone
    (session 8: at 4 players 261 of 261 calls, at 3 players 218 of 259), sparing the count."""
    if sum(pool) < sum(sizes):
        return 0
    return max((_fits(pool, size) for size in set(sizes)), default=1)


def _fits(pool: list[int], size: int) -> int:
    """How many multisets of ``size`` cards (at most ``MOST_CARDS``) fit in ``pool``: from
    the numbers of kinds with at least one, two and three cards, by the hand's pattern
    (three kinds, a pair and a single, three of a kind)."""
    one = sum(1 for c in pool if c >= 1)
    two = sum(1 for c in pool if c >= 2)
    three = sum(1 for c in pool if c >= 3)
    return (1, one, one * (one - 1) // 2 + two, comb(one, 3) + two * (one - 1) + three)[size]
