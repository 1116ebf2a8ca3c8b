"""One seat's several boxes in one pile, pinned together to their content in all
(:class:`PinnedGroup`), for Cubirds' exact ``determinize`` at positions with several piles
since the last public source (:mod:`.hidden_exact`; session 14).

:class:`.hidden_pin.PinnedPile` splits a pile drawn to its end among the boxes drawn from it,
by the product of their weights, so that the pile's condition holds for every proposal. Until
session 14 it needed every such box to be its seat's only box in the pile; a seat that drew
from the pile twice (with a lay or a flock between) left the pile to the rejection step, which
at the bench's costliest positions kept nothing in thousands of proposals. Here such a seat
takes part with all its boxes in the pile at once: its *content* there is what those boxes
hold together, ``u``, and its weight ``Z(u)`` is the chain's weight of every filling whose
boxes in the pile add up to ``u``.

``Z`` comes from a forward pass over the chain's steps whose state is the chain's own (what the
closed intervals still need) and what is left of the pile, packed in one integer
(:func:`.hidden_pin._pack`): a box in the pile spells out its open cards species by species
(``prod tilt**v / v!``, the terms whose sum is the chain's ``rest[m]``), every other box keeps
its open cards together as the chain does. Each state remembers its ways in, so the seat's
filling given ``u`` is drawn backwards from the end (``w(x) / Z(u)``): with the split drawn by
``prod_i Z_i(u_i)``, a seat's filling is proposed with the chain's own law, the pile's
condition met (the argument of :class:`.hidden_pin.PinnedPile`, one content per seat instead
of per box).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds.data import NUM_SPECIES
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from cardzoo.envs.cubirds.hidden_count import _INV_FACT
from cardzoo.envs.cubirds.hidden_pin import (
    _BITS,
    _GUARD,
    ROOT,
    PinnedBox,
    PinnedPile,
    _pack,
    follow_value,
)

#: Steps of a group's forward pass (ways into its states) before it gives up: the pile is then
#: not pinned whole. The bench's costliest four-player position needs about 66,000.
GROUP_STEPS = 150_000

_MASK = (1 << (_BITS - 1)) - 1


class GroupTooLarge(Exception):
    """The forward pass of a group took more than ``GROUP_STEPS`` steps."""


class PinnedGroup:
    """``chain``'s boxes ``boxes`` (in the seat's order, all in one pile holding ``pile``),
    pinned together to what they hold in all. Raises :class:`GroupTooLarge` past
    ``GROUP_STEPS``."""

    def __init__(self, chain: SeatChain, boxes: list[int], pile: list[int]) -> None:
        self.chain = chain
        n = chain.n
        in_group = [False] * n
        for k in boxes:
            in_group[n - 1 - k] = True  # the chain counts its boxes in reverse
        self.start = start = _pack(pile) + _GUARD
        memo, ids = chain.memo, chain.ids
        alpha: dict[tuple, float] = {(ROOT, start): 1.0}
        #: Per step, per state reached after it: its ways in, as (weight, the state before,
        #: the step's closed counts, open cards, and their species when spelt out).
        self.back: list[dict[tuple, list]] = []
        steps = 0
        for r in range(n):
            nxt: dict[tuple, float] = {}
            ways: dict[tuple, list] = {}
            closed, rest = chain.boxes[r][0], chain.boxes[r][4]
            spreads: dict[int, list] = {}
            for key, a in alpha.items():
                state, left = key
                _, choices, cum, nexts, _, _, follow = memo[(ids[r], state)]
                before = 0.0
                for j, kid in enumerate(nexts):
                    w = a * (cum[j] - before) / follow_value(follow[j], chain, r, kid)
                    before = cum[j]
                    x, m = choices[j]
                    if not in_group[r]:
                        items = ((left, w, None),)
                    else:
                        base = left - sum(v << (_BITS * s) for s, v in zip(closed, x))
                        if base & _GUARD != _GUARD:
                            continue
                        if m not in spreads:
                            spreads[m] = self._spreads(r, m, pile)
                        w /= rest[m]
                        items = tuple(
                            (base - code, w * sw, spread)
                            for code, sw, spread in spreads[m]
                            if (base - code) & _GUARD == _GUARD
                        )
                    for after, wi, spread in items:
                        steps += 1
                        new = (kid, after)
                        nxt[new] = nxt.get(new, 0.0) + wi
                        ways.setdefault(new, []).append((wi, key, x, m, spread))
                if steps > GROUP_STEPS:
                    raise GroupTooLarge
            self.back.append(ways)
            alpha = nxt
        #: Per content ``u`` (what the boxes hold in all), the weight ``Z(u)``.
        self.weight: dict[tuple, float] = {}
        for (_, left), a in alpha.items():
            if a > 0.0:
                used = start - left
                self.weight[tuple((used >> (_BITS * s)) & _MASK for s in range(NUM_SPECIES))] = a
        self._cum: list[dict[tuple, tuple]] = [{} for _ in range(n)]

    def _spreads(self, r: int, m: int, pile: list[int]) -> list[tuple[int, float, tuple]]:
        """The ways to put ``m`` open cards of step ``r`` on its open species (each at most
        its cap and what the pile held; none of a species weighing 0): packed, weight, spread."""
        chain = self.chain
        opened = chain.boxes[r][3]
        tilts = chain.open_tilts[r]
        caps = chain.open_caps[r] or [m] * len(opened)
        tops = [0 if t == 0.0 else min(c, pile[s]) for s, t, c in zip(opened, tilts, caps)]
        out: list[tuple[int, float, tuple]] = []
        spread = [0] * len(opened)

        def rec(i: int, left: int, w: float, code: int) -> None:
            if i == len(opened):
                if not left:
                    out.append((code, w, tuple(spread)))
                return
            t, s = tilts[i], opened[i]
            for v in range(min(tops[i], left) + 1):
                spread[i] = v
                rec(i + 1, left - v, w * t**v * _INV_FACT[v], code + (v << (_BITS * s)))
            spread[i] = 0

        rec(0, m, 1.0, 0)
        return out

    def contents(self, pile: list[int]) -> dict[tuple, float]:
        """Every content the boxes can hold together, with ``log Z(u)`` less the largest."""
        if not self.weight:
            return {}
        top = math.log(max(self.weight.values()))
        return {u: math.log(w) - top for u, w in self.weight.items()}

    def sample(self, rng: np.random.Generator, counts: list[int]) -> list[list[int]]:
        """The seat's boxes (in its order) with the pinned ones holding ``counts`` in all,
        drawn in proportion to the chain's weights (``counts`` must be a key of ``weight``)."""
        chain = self.chain
        n = chain.n
        u = rng.random(n + chain.cards).tolist()
        key = (ROOT, self.start - _pack(counts))
        rows: list[list[int]] = [[]] * n
        k = n
        for r in range(n - 1, -1, -1):
            kept = self._cum[r]
            got = kept.get(key)
            if got is None:
                ways = self.back[r][key]
                got = kept[key] = (list(accumulate(w[0] for w in ways)), ways)
            cum, ways = got
            _, key, x, m, spread = ways[min(bisect_right(cum, u[r] * cum[-1]), len(cum) - 1)]
            row = [0] * NUM_SPECIES
            closed, _, _, opened = chain.boxes[r][:4]
            for s, v in zip(closed, x):
                row[s] = v
            if spread is not None:
                for s, v in zip(opened, spread):
                    row[s] += v
            elif m and chain.open_sfx[r] is not None:
                chain.fill_open(r, m, rng, row)
            elif m:  # each open card's species in proportion to its tilt
                _, _, probs, top, last = chain.draws[r]
                for v in u[k : k + m]:
                    i = bisect_right(probs, v * top)
                    row[opened[i if i <= last else last]] += 1
                k += m
            rows[r] = row
        rows.reverse()
        return rows


#: Several boxes of one seat in a pile drawn to its end are pinned together (False: such a
#: pile is left to the rejection step, as before session 14).
GROUPS = True
#: The last pile may be pinned whole too, what is left of it (the draw pile) one more member
#: (:class:`RestOfPile`); tried after the piles drawn to their end, where what is left can be
#: at most ``REST_CONTENTS`` contents.
LAST_PILE = True
REST_CONTENTS = 2_000


class RestOfPile:
    """What is left of the last pile, as a member of its split (:class:`.hidden_pin.
    PinnedPile`). Every card the seats took from the last pile weighs what it held of its
    species (``a[s]``), so the exact weight of a world is the chains' times ``prod_s a[s]**r[s]
    / r[s]!`` (``r``: what is left, up to a constant): the rest weighs that, like a box of
    ``size`` cards with every species open, and the last pile's factor of the rejection step
    is then 1."""

    def __init__(self, size: int, pile: list[int]) -> None:
        self.size = size
        self.logs = [math.log(a) if a else 0.0 for a in pile]

    def count(self, pile: list[int]) -> int:
        """How many contents of ``size`` cards ``pile`` allows (without listing them)."""
        ways = [1] + [0] * self.size
        for a in pile:
            ways = [sum(ways[m - v] for v in range(min(a, m) + 1)) for m in range(self.size + 1)]
        return ways[-1]

    def contents(self, pile: list[int]) -> dict[tuple, float]:
        """Every content of ``size`` cards within ``pile``, with its log weight."""
        out: dict[tuple, float] = {}
        row = [0] * NUM_SPECIES

        def rec(s: int, left: int, w: float) -> None:
            if s == NUM_SPECIES - 1:
                if left <= pile[s]:
                    row[s] = left
                    out[tuple(row)] = w + left * self.logs[s] - math.lgamma(left + 1)
                return
            for v in range(min(pile[s], left) + 1):
                row[s] = v
                rec(s + 1, left - v, w + v * self.logs[s] - math.lgamma(v + 1))
            row[s] = 0

        rec(0, self.size, 0.0)
        return out


def choose_pile(
    seats: list[tuple[list[int], SeatChain]],
    box_pile: list[int],
    avail: list[list[int]],
    rest: int = -1,
) -> PinnedPile | None:
    """The pile to pin whole: among the piles drawn to their end (the last pile too when
    nothing is left of it, ``rest == 0``) drawn from by at least two seats, the one with the
    most seats (then the earliest) whose joint fillings fit their limits; each seat's boxes
    there are one member (:class:`.hidden_pin.PinnedBox` for a single box, else
    :class:`PinnedGroup`). Failing those, the last pile with what is left of it as one more
    member (:class:`RestOfPile`, its place ``-1``). None if there is none. A function of the
    seats' structure alone."""
    last = len(avail) - 1
    members: dict[int, list[tuple[int, list[int]]]] = {}
    shared = set()
    for i, (boxes, prog) in enumerate(seats):
        mine: dict[int, list[int]] = {}
        for k, g in enumerate(boxes):
            mine.setdefault(box_pile[g], []).append(k)
        for j, ks in mine.items():
            if (len(ks) > 1 and not GROUPS) or not prog.total > 0.0:
                shared.add(j)
            else:
                members.setdefault(j, []).append((i, ks))
    ranked = sorted(
        (j for j in members if j not in shared and len(members[j]) > 1 and (j < last or rest == 0)),
        key=lambda j: (-len(members[j]), j),
    )
    if (
        LAST_PILE
        and 0 < rest
        and last in members
        and last not in shared
        and RestOfPile(rest, avail[last]).count(avail[last]) <= REST_CONTENTS
    ):
        ranked.append(last)
    for j in ranked:
        try:
            pins = [
                PinnedBox(seats[i][1], ks[0])
                if len(ks) == 1
                else PinnedGroup(seats[i][1], ks, avail[j])
                for i, ks in members[j]
            ]
        except GroupTooLarge:
            continue
        places = [i for i, _ in members[j]]
        if j == last and rest > 0:
            pins.append(RestOfPile(rest, avail[j]))
            places.append(-1)
        pile = PinnedPile(pins, places, avail[j])
        pile.index = j
        if pile.fits:
            return pile
    return None
