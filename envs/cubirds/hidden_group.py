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
its open cards together as the chain does. Since session 27 a step takes every (state, left)
at once in NumPy arrays (:meth:`PinnedGroup._forward`), adding the ways in the order the loop
over them did: the same weights to the last bit, a third to a half of the time at five players.
Each state remembers its ways in, so the seat's filling given ``u`` is drawn backwards from the
end (``w(x) / Z(u)``): with the split drawn by ``prod_i Z_i(u_i)``, a seat's filling is proposed
with the chain's own law, the pile's condition met (the argument of
:class:`.hidden_pin.PinnedPile`, one content per seat instead of per box).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Iterator
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
#: not pinned whole. The bench's costliest four-player position needs about 66,000. Since
#: session 17 the limit is shared by the groups of one pile (``pin_members``): before, each had
#: its own, and a pile of three or four large groups took up to 0.4 s to be given up.
GROUP_STEPS = 150_000

_MASK = (1 << (_BITS - 1)) - 1
_SHIFTS = np.arange(NUM_SPECIES, dtype=np.int64) * _BITS


class GroupTooLarge(Exception):
    """The forward pass of a group took more than ``GROUP_STEPS`` steps."""


class PinnedGroup:
    """``chain``'s boxes ``boxes`` (in the seat's order, all in one pile holding ``pile``),
    pinned together to what they hold in all. Raises :class:`GroupTooLarge` past ``most``
    steps (``GROUP_STEPS`` if None); ``steps``: the steps its forward pass took."""

    def __init__(
        self, chain: SeatChain, boxes: list[int], pile: list[int], most: int | None = None
    ) -> None:
        most = GROUP_STEPS if most is None else most
        self.chain = chain
        n = chain.n
        self.in_group = in_group = [False] * n
        for k in boxes:
            in_group[n - 1 - k] = True  # the chain counts its boxes in reverse
        self.start = start = _pack(pile) + _GUARD
        #: Per step, the weight of reaching each (state, what is left of the pile) before it,
        #: as arrays (its states, what is left, the weights; made a dict when drawn from).
        self._alpha: list[tuple] = []
        self.alpha: list[dict[tuple, float] | None] = []
        #: Per step, per state it leads to: (the state before, the choice's own weight (over
        #: ``rest[m]`` in the group), its closed counts packed, the counts, open cards).
        self.inv: list[dict[tuple, list]] = []
        #: Per step and open cards ``m`` in the group: the spreads (packed, weight, counts).
        self.spreads: list[dict[int, list]] = [{} for _ in range(n)]
        states, left, weight = [ROOT], np.array([start], dtype=np.int64), np.ones(1)
        self.steps = 0
        for r in range(n):
            self._alpha.append((states, left, weight))
            self.alpha.append(None)
            states, left, weight = self._forward(r, states, left, weight, pile, most)
        #: Per content ``u`` (what the boxes hold in all), the weight ``Z(u)``.
        # (Unpacked species by species in one array: the same keys, in the same order.)
        live = weight > 0.0
        used = ((start - left[live])[:, None] >> _SHIFTS) & _MASK
        self.weight: dict[tuple, float] = dict(
            zip(map(tuple, used.tolist()), weight[live].tolist())
        )
        self._cum: list[dict[tuple, tuple]] = [{} for _ in range(n)]

    def _forward(self, r: int, states: list, left, weight, pile: list[int], most: int) -> tuple:
        """One step of the forward pass over every (state, what is left) at once: each choice
        of each state (and in the group each spread of its open cards) taken from what is left;
        the ways into each (state, left) after it summed in the order a loop over the states,
        their choices and spreads would add them, the keys in the order it would meet them.
        GroupTooLarge once the spreads tried pass ``most``."""
        ids: dict[tuple, int] = {}
        state_id = np.array([ids.setdefault(q, len(ids)) for q in states], dtype=np.int64)
        distinct = list(ids)
        own = self._choices(r, distinct, pile)
        kids: dict[tuple, int] = {}
        table = [[(kids.setdefault(c[0], len(kids)), *c[1:]) for c in own[q]] for q in distinct]
        count = np.array([len(t) for t in table], dtype=np.int64)
        flat = [c for t in table for c in t]
        if not flat:
            return [], left[:0], weight[:0]
        kid = np.array([c[0] for c in flat], dtype=np.int64)
        w = np.array([c[1] for c in flat])
        offset = np.cumsum(count) - count
        per_row = count[state_id]
        row = np.repeat(np.arange(len(states)), per_row)
        at = np.repeat(offset[state_id], per_row) + np.arange(len(row))
        at -= np.repeat(np.cumsum(per_row) - per_row, per_row)
        kid, w, after, a = kid[at], w[at], left[row], weight[row] * w[at]
        if self.in_group[r]:
            code = np.array([c[2] for c in flat], dtype=np.int64)[at]
            m = np.array([c[4] for c in flat], dtype=np.int64)[at]
            base = after - code
            fits = (base & _GUARD) == _GUARD
            kid, base, a, m = kid[fits], base[fits], a[fits], m[fits]
            kid, after, a = self._spread(r, kid, base, a, m, most)
        # The distinct (state, left) pairs in the order first met, each one's ways summed.
        key = kid * (1 << 49) + after
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        summed = np.bincount(rank[inverse.reshape(-1)], weights=a, minlength=len(order))
        kid_states = list(kids)
        firsts = first[order]
        return [kid_states[k] for k in kid[firsts].tolist()], after[firsts], summed

    def _spread(self, r: int, kid, base, a, m, most: int) -> tuple:
        """The group's step: each (choice, left) row spread over its open cards' ways."""
        spreads = self.spreads[r]
        ms = sorted(spreads)
        size = np.zeros(max(ms, default=0) + 1, dtype=np.int64)
        start = np.zeros_like(size)
        codes, weights, at = [], [], 0
        for v in ms:
            size[v], start[v] = len(spreads[v]), at
            codes += [c for c, _, _ in spreads[v]]
            weights += [sw for _, sw, _ in spreads[v]]
            at += len(spreads[v])
        per_row = size[m]
        self.steps += int(per_row.sum())
        if self.steps > most:
            raise GroupTooLarge
        row = np.repeat(np.arange(len(kid)), per_row)
        pick = np.repeat(start[m], per_row) + np.arange(len(row))
        pick -= np.repeat(np.cumsum(per_row) - per_row, per_row)
        after = base[row] - np.array(codes, dtype=np.int64)[pick]
        fits = (after & _GUARD) == _GUARD
        a = a[row] * np.array(weights)[pick]
        return kid[row][fits], after[fits], a[fits]

    def _choices(self, r: int, distinct: list, pile: list[int]) -> dict[tuple, list]:
        """Per state before step ``r``, its choices: (the state they lead to, their own weight
        (over ``rest[m]`` in the group), closed counts packed, the counts, open cards); also
        kept by the state they lead to (``inv``) for drawing backwards."""
        chain = self.chain
        closed, rest = chain.boxes[r][0], chain.boxes[r][4]
        group, spreads = self.in_group[r], self.spreads[r]
        memo, key_r = chain.memo, chain.ids[r]
        own: dict[tuple, list] = {}
        inv: dict[tuple, list] = {}
        for state in distinct:
            _, choices, cum, nexts, _, _, follow = memo[(key_r, state)]
            out = own[state] = []
            before = 0.0
            for j, kid in enumerate(nexts):
                w = (cum[j] - before) / follow_value(follow[j], chain, r, kid)
                before = cum[j]
                x, m = choices[j]
                code = 0
                if group:
                    w /= rest[m]
                    code = sum(v << (_BITS * s) for s, v in zip(closed, x))
                    if m not in spreads:
                        spreads[m] = self._spreads(r, m, pile)
                out.append((kid, w, code, x, m))
                inv.setdefault(kid, []).append((state, w, code, x, m))
        self.inv.append(inv)
        return own

    def _ways_in(self, r: int, key: tuple) -> tuple[list[float], list]:
        """The running weights of the ways into ``key`` (a state and what is left of the pile
        after step ``r``), with the ways: (weight, key before, closed counts, open cards,
        their species or None). Listed on first use from the states before and kept."""
        kept = self._cum[r]
        got = kept.get(key)
        if got is not None:
            return got
        kid, after = key
        alpha = self.alpha[r]
        if alpha is None:  # (the forward pass's arrays as a dict, on first use)
            states, left, weight = self._alpha[r]
            alpha = self.alpha[r] = dict(zip(zip(states, left.tolist()), weight.tolist()))
        ways = []
        for state, w, code, x, m in self.inv[r].get(kid, ()):
            if not self.in_group[r]:
                a = alpha.get((state, after))
                if a:
                    ways.append((a * w, (state, after), x, m, None))
                continue
            for spread_code, sw, spread in self.spreads[r][m]:
                before = (state, after + code + spread_code)
                a = alpha.get(before)
                if a:
                    ways.append((a * w * sw, before, x, m, spread))
        got = kept[key] = (list(accumulate(w[0] for w in ways)), ways)
        return got

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
            cum, ways = self._ways_in(r, key)
            _, key, x, m, spread = ways[min(bisect_right(cum, u[r] * cum[-1]), len(cum) - 1)]
            row = [0] * NUM_SPECIES
            closed, _, _, opened = chain.boxes[r][:4]
            for s, v in zip(closed, x):
                row[s] = v
            if spread is not None:
                for s, v in zip(opened, spread):
                    row[s] += v
            elif m:
                k = chain.add_open(r, m, u, k, rng, row)
            rows[r] = row
        rows.reverse()
        return rows


#: Several boxes of one seat in a pile drawn to its end are pinned together (False: such a
#: pile is left to the rejection step, as before session 14).
GROUPS = True
#: ``log v!`` for every count a content can have.
_LOG_FACT = np.array([math.lgamma(v + 1.0) for v in range(64)])
#: The last pile may be pinned whole too, what is left of it (the draw pile) one more member
#: (:class:`RestOfPile`); tried after the piles drawn to their end, where what is left can be
#: at most ``REST_CONTENTS`` contents.
LAST_PILE = True
REST_CONTENTS = 2_000


class RestOfPile:
    """What is left of the last pile, as a member of its split (:class:`.hidden_pin.
    PinnedPile`). A world's exact weight is the chains' times a factor of what the seats took
    from the last pile, which with ``r`` left of it is ``prod_s w[s]**r[s] / r[s]!`` up to a
    constant (``w``: the chains' weight of an open card of that pile, ``tilt`` of
    :meth:`.hidden_exact.ExactModel._log_h_row`; with several piles, what the pile held). So the
    rest weighs that, like a box of ``size`` cards with every species open, and the last
    pile's factor of the rejection step is then 1."""

    def __init__(self, size: int, weights: list[float], pile: list[int]) -> None:
        self.size = size
        self.logs = [math.log(w) if w > 0.0 else 0.0 for w in weights]
        #: Per species the most that can be left of it (none where an open card weighs 0).
        self.caps = [a if w > 0.0 else 0 for a, w in zip(pile, weights)]

    def count(self) -> int:
        """How many contents the rest can have (without listing them)."""
        ways = [1] + [0] * self.size
        for a in self.caps:  # (a window of ``a + 1`` over the running sums: exact integers)
            sums = list(accumulate(ways, initial=0))
            ways = [sums[m + 1] - sums[max(m - a, 0)] for m in range(self.size + 1)]
        return ways[-1]

    def contents(self, pile: list[int]) -> dict[tuple, float]:
        """Every content of ``size`` cards within the caps, with its log weight (listed
        species by species with NumPy, in the order of a nested loop over them)."""
        size = self.size
        rows = np.zeros((1, 0), dtype=np.int64)
        used = np.zeros(1, dtype=np.int64)
        logs = np.zeros(1)
        last = NUM_SPECIES - 1
        for s, cap in enumerate(self.caps):
            if s == last:  # the last species takes what is left, if it may
                v = size - used
                fits = v <= cap
                rows, v, logs = rows[fits], v[fits], logs[fits]
            else:
                top = np.minimum(cap, size - used)
                reps = top + 1
                at = np.repeat(np.arange(len(rows)), reps)
                v = np.arange(len(at)) - np.repeat(np.cumsum(reps) - reps, reps)
                rows, used, logs = rows[at], used[at] + v, logs[at]
            logs = logs + v * self.logs[s] - _LOG_FACT[v]
            rows = np.concatenate([rows, v[:, None]], axis=1)
        return dict(zip(map(tuple, rows.tolist()), logs.tolist()))


def pile_candidates(
    seats: list[tuple[list[int], SeatChain]],
    box_pile: list[int],
    avail: list[list[int]],
    rest: int = -1,
    weights: list[float] | None = None,
    most: int | None = None,
    group_steps: int | None = None,
    sole: bool = False,
) -> Iterator[PinnedPile]:
    """The piles that can be pinned whole, built one at a time as asked for: among the piles
    drawn to their end (the last pile too when nothing is left of it, ``rest == 0``) drawn from
    by at least two seats, those whose joint fillings fit their limits, the ones with the most
    seats first (then the earliest); each seat's boxes there are one member
    (:class:`.hidden_pin.PinnedBox` for a single box, else :class:`PinnedGroup`). Last, the
    last pile with what is left of it as one more member (:class:`RestOfPile`, its place
    ``-1``; ``weights``: an open card's weight there, by default what the pile held). A
    function of the seats' structure alone. ``most``: the steps a pile's split may take
    (``hidden_pin.PILE_STEPS`` if None); ``group_steps``: the groups' (``GROUP_STEPS`` if
    None). ``sole``: a pile drawn to its end by one seat alone, through several of its boxes,
    is a candidate too (one member: the split is the pile itself, and the seat's boxes are
    drawn given it; session 39, for piles before a pile fed by face-down hands)."""
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
        (
            j
            for j in members
            if j not in shared
            and (len(members[j]) > 1 or (sole and len(members[j][0][1]) > 1))
            and (j < last or rest == 0)
        ),
        key=lambda j: (-len(members[j]), j),
    )
    if (
        LAST_PILE
        and 0 < rest
        and last in members
        and last not in shared
        and RestOfPile(rest, weights or avail[last], avail[last]).count() <= REST_CONTENTS
    ):
        ranked.append(last)
    for j in ranked:
        try:
            pins = pin_members(seats, members[j], avail[j], group_steps)
        except GroupTooLarge:
            continue
        places = [i for i, _ in members[j]]
        if j == last and rest > 0:
            pins.append(RestOfPile(rest, weights or avail[j], avail[j]))
            places.append(-1)
        pile = PinnedPile(pins, places, avail[j], most)
        pile.index = j
        if pile.fits:
            yield pile


def pin_members(
    seats: list[tuple[list[int], SeatChain]],
    members: list[tuple[int, list[int]]],
    pile: list[int],
    most: int | None = None,
) -> list:
    """The members of a pile's split: per seat its single box there (:class:`.hidden_pin.
    PinnedBox`) or its boxes together (:class:`PinnedGroup`). The groups share one limit of
    ``most`` steps (``GROUP_STEPS`` if None; GroupTooLarge past it)."""
    left = GROUP_STEPS if most is None else most
    pins: list = []
    for i, ks in members:
        if len(ks) == 1:
            pins.append(PinnedBox(seats[i][1], ks[0]))
            continue
        group = _group(seats[i][1], ks, pile, left)
        left -= group.steps
        pins.append(group)
    return pins


#: The last groups counted, by (chain, its boxes, the pile): each group, or the most steps it
#: was given where it did not fit them. A model's pile split and then its tail (``hidden_tail``)
#: often ask for the same groups (session 28: counted twice before, 5-20 ms each at some
#: five-player positions). A group is a function of its key; ``most`` only says whether it fits.
#: Emptied whenever a model builds its seats' chains (``hidden_exact``): no later build asks.
_GROUPS: dict[tuple, PinnedGroup | int] = {}
GROUPS_KEPT = 16


def _group(chain: SeatChain, ks: list[int], pile: list[int], most: int) -> PinnedGroup:
    """``PinnedGroup(chain, ks, pile, most)``, from ``_GROUPS`` where it was counted (or
    found too large for at least ``most`` steps) before."""
    key = (chain, tuple(ks), tuple(pile))
    got = _GROUPS.get(key)
    if isinstance(got, PinnedGroup) and got.steps <= most:
        return got
    if got is not None and (isinstance(got, PinnedGroup) or most <= got):
        raise GroupTooLarge
    if len(_GROUPS) >= GROUPS_KEPT:
        _GROUPS.clear()
    try:
        group = _GROUPS[key] = PinnedGroup(chain, ks, pile, most)
    except GroupTooLarge:
        _GROUPS[key] = most
        raise
    return group
