"""The joint count of Cubirds' exact ``determinize`` level by level (session 27): every state of
one level of a :class:`.hidden_count.Programme` counted at once, in NumPy arrays, instead of
one state at a time in a walk through the tree of choices.

:meth:`.hidden_count.Programme.build` walks the programme depth first: a state's choices are
listed by a Python walk (``_enumerate_plain``), each choice merged into a state of the next
level, whose count is looked up or counted first. Its large tries (``hidden_exact``'s
``RARE_JOINT_SHARE`` times the limits) take 20-200 ms at five players, most of the first
calls' time there. Here the states of a level are known before any of them is counted (the
next level's states are the distinct merges of this level's choices), so one level's choices
are listed for all of its states together, a step of the walk at a time, and the counts are
made on the way back, a level at a time. Everything the depth-first build computes is computed
here too, in the same order within a state: the same choices in the same order, each with the
same weight (the same products, factor by factor), summed in the same order; so the counts are
equal to the last bit and a sample drawn from them is the one the depth-first build gives with
the same generator (``tests/cubirds/test_cubirds_levels.py``). The steps and states are counted
as the depth-first walk counts them (a node per value tried at each step, a step per choice
listed, a state per distinct state of each level), so a fresh build fits its limits exactly
when the depth-first one does.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds.data import NUM_SPECIES

_LISTED = 256  # (a state's choices past this many stay arrays: ``Levels.entry``)
_BIG = 1 << 40  # (no pile condition: a pile's content and room that no choice reaches)
_FACT = np.array([float(math.factorial(i)) for i in range(120)])  # (as hidden_count's, as floats)
_INV_FACT = np.array([1.0 / math.factorial(i) for i in range(120)])


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``rows`` and each row's index among them (one integer a row where
    the rows' mixed-radix numbers fit 62 bits: a sort of integers, not of rows)."""
    radix = rows.max(axis=0) + 1 if len(rows) else np.ones(rows.shape[1], dtype=np.int64)
    if math.prod(int(r) for r in radix) >= 1 << 62:
        distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
        return distinct, inverse.reshape(-1)
    place = np.cumprod(np.concatenate(([1], radix[:-1])))
    _, first, inverse = np.unique(rows @ place, return_index=True, return_inverse=True)
    return rows[first], inverse.reshape(-1)


class _Fed:
    """The piles fed by thrown-away hands along one level's walk (``Programme.feeds``), for
    every row at once, as the depth-first walk (``hidden_count._enumerate_all``) keeps them: a
    fed pile holds its public part plus what its feeding classes (earlier in the walk: they
    drew before the reshuffle) chose, each step's bounds take the most it may hold, and each
    choice is weighted by ``prod C! / C0!`` (``hidden_count._fed_factor``: the same factors in
    the same order). That walk also drops a choice unless every fed pile holds exactly what its
    classes took; here the bounds already see to it (the pile's last class takes what is left
    of it: nothing later in the pile can), so nothing is dropped."""

    def __init__(self, prog, s: int, walk: list[tuple], caps: np.ndarray, avail: list) -> None:
        to = {lab: j for j, (_, labels) in prog.feeds.items() for lab in labels[s]}
        self.feed_to = [to.get(label, -1) for _, label, _, _ in walk]
        self.top = list(avail)  # (per state: the most each fed pile may hold)
        for (c, _, _, _), j in zip(walk, self.feed_to):
            if j >= 0:
                self.top[j] = self.top[j] + caps[:, c]
        self.base = avail
        #: Per fed pile: (pile, cards known to leave it, its public part less those).
        self.fed = [(j, known[s], avail[j]) for j, (known, _) in prog.feeds.items()]
        zero = np.zeros(len(caps), dtype=np.int64)
        self.added = {j: zero for j, _, _ in self.fed}  # per row, what its feeders chose

    @staticmethod
    def empty_fits(prog, s: int) -> bool:
        """A level with no class: its one empty choice is listed only if no fed pile holds
        anything (``hidden_count._fed_factor`` with nothing taken)."""
        return all(not prog.avail[j][s] for j in prog.feeds)

    def left(self, j: int, taken: np.ndarray) -> np.ndarray:
        if j in self.added:
            return self.base[j] + self.added[j] - taken
        return self.base[j] - taken

    def step(self, i: int, parent: np.ndarray, value: np.ndarray) -> None:
        """Step ``i`` chose ``value`` for the rows made from ``parent``."""
        for pile in self.added:
            self.added[pile] = self.added[pile][parent]
        to = self.feed_to[i]
        if to >= 0:
            self.added[to] = self.added[to] + value

    def factor(self) -> np.ndarray:
        """Per row, the fed piles' factor."""
        factor = np.ones(len(next(iter(self.added.values()))))
        for j, known, base in self.fed:
            top = np.minimum(base + self.added[j] + known, len(_FACT) - 1)
            factor *= _ratio(top, base + known)
        return factor


def _ratio(top: np.ndarray, bottom: int) -> np.ndarray:
    """``top! / bottom!`` per entry, each as Python divides the two integers (rounded once)."""
    table = _RATIO.get(bottom)
    if table is None:
        table = _RATIO[bottom] = np.array(
            [math.factorial(t) / math.factorial(bottom) for t in range(len(_FACT))]
        )
    return table[top]


_RATIO: dict[int, np.ndarray] = {}


class Levels:
    """A programme's counts, level by level: per level, its states' choices (kept: weight > 0)
    grouped by state, their weights and the state of the next level each leads to. ``total``
    is the count (``None`` if it did not fit its limits)."""

    def __init__(self, prog, max_states: int, max_options: int, done: tuple | None = None) -> None:
        """``done``: the levels a try with smaller limits counted whole (its ``done``), which
        a larger try goes on from: they do not depend on the limits, and the states and steps
        are counted as before, so the totals, and whether they fit, are a fresh build's."""
        self.prog = prog
        self.total: float | None = None
        self.states = self.steps = 0  # (counted as the depth-first build counts them)
        self._entries: dict[tuple[int, int], tuple] = {}
        sizes = prog.box_size
        caps = np.array([[sum(sizes[b] for b in mem) for mem in prog.classes[0]]], dtype=np.int64)
        found: list[tuple] = []
        if done is not None:
            found, caps, self.states, self.steps = list(done[0]), *done[1:]
        #: The levels counted whole, to go on from (kept where the limits stop this try).
        self.done: tuple | None = None
        for k in range(len(found), NUM_SPECIES):
            n_states = len(caps)
            so_far = (tuple(found), caps, self.states, self.steps)
            self.states += n_states
            if self.states > max_states:
                self.done = so_far
                return
            listed = self._list(k, caps, max_options)
            if listed is None:
                self.done = so_far
                return
            merged = None
            if k < NUM_SPECIES - 1:
                left = caps[listed[0]] - listed[1]
                nxt = left @ self._merge_matrix(k)
                caps, inverse = _distinct(nxt)
                merged = (left, nxt, inverse)
            found.append((*listed, merged, n_states))
        self._count_back(found)

    def _merge_matrix(self, k: int) -> np.ndarray:
        """Level ``k``'s classes into level ``k + 1``'s (a 0/1 matrix)."""
        merge = self.prog.merge[k]
        out = np.zeros((len(merge), len(self.prog.classes[k + 1])), dtype=np.int64)
        out[np.arange(len(merge)), merge] = 1
        return out

    def _bounds(self, k: int, caps: np.ndarray, forced: bool, avail: list[int]) -> list[tuple]:
        """:meth:`.hidden_count.Programme._bounds` for every state at once (without ``NEEDS``):
        per step, per state, the rooms its pile's and its interval's later classes offer."""
        prog = self.prog
        free = prog.avail is None
        iv_req = prog.iv_req
        zero = np.zeros(len(caps), dtype=np.int64)
        pile_total: dict = {}
        pile_label: dict = {}
        iv_total: dict = {}
        iv_pile: dict = {}
        walk = prog.walks[k]
        steps: list[tuple] = [()] * len(walk)
        for i in range(len(walk) - 1, -1, -1):
            c, label, req, j = walk[i]
            room = caps[:, c]
            pile_room = zero + _BIG if free else pile_total.get(j, zero)
            iv_room = iv_total.get(label, zero) if req >= 0 else zero
            steps[i] = (c, label, req, pile_room, iv_room, j, room if forced else zero, room)
            if req >= 0:
                old = pile_label.get((j, label), zero)
                pile_label[(j, label)] = old + room
                top = iv_req[label]
                grown = np.minimum(old + room, top) - np.minimum(old, top)
                pile_total[j] = pile_total.get(j, zero) + grown
                if not free:
                    old = iv_pile.get((label, j), zero)
                    iv_pile[(label, j)] = old + room
                    room = np.minimum(old + room, avail[j]) - np.minimum(old, avail[j])
                iv_total[label] = iv_total.get(label, zero) + room
            else:
                pile_total[j] = pile_total.get(j, zero) + room
        return steps

    def _list(self, k: int, caps: np.ndarray, max_options: int) -> tuple | None:
        """Every choice of level ``k``'s species for every state in ``caps``: (state of each
        choice, the choices (a row of counts per class), their weights); None past the steps
        left of ``max_options``. Rows stay grouped by state, in the depth-first walk's order."""
        prog = self.prog
        s = prog.order[k]
        walk = prog.walks[k]
        n_states, n = len(caps), len(walk)
        if not n:  # nothing to choose: one empty choice per state, one step each
            self.steps += n_states
            if self.steps > max_options:
                return None
            keep = np.arange(n_states if _Fed.empty_fits(prog, s) else 0)
            return keep, np.zeros((len(keep), 0), dtype=np.int64), np.ones(len(keep))
        avail = [_BIG] * prog.npiles if prog.avail is None else [row[s] for row in prog.avail]
        fed = _Fed(prog, s, walk, caps, avail) if prog.feeds else None
        steps = self._bounds(k, caps, k == NUM_SPECIES - 1, fed.top if fed else avail)
        weight = np.array(prog.weights[s])
        # Each interval's cards so far, per row, kept from its first step to its last only
        # (carried through every step between: one array per interval, not a table).
        last_use = {st[1]: i for i, st in enumerate(steps) if st[2] >= 0}
        iv_sum: dict[int, np.ndarray] = {}
        state = np.arange(n_states)
        w = np.ones(n_states)
        pile_sum = np.zeros(n_states, dtype=np.int64)
        back, values = [], []
        at = steps[0][5]
        self.steps += n_states  # the first step's nodes (one per state)
        for i, (_, label, req, pile_room, iv_room, j, lo, hi) in enumerate(steps):
            if j != at:  # the walk goes pile by pile: a new pile starts empty
                pile_sum = np.zeros(len(state), dtype=np.int64)
                at = j
            left = avail[j] - pile_sum if fed is None else fed.left(j, pile_sum)
            hi = np.minimum(hi[state], left)
            lo = np.maximum(lo[state], left - pile_room[state])
            if req >= 0:
                got = iv_sum.pop(label, None)
                need = req - got if got is not None else np.full(len(state), req)
                hi = np.minimum(hi, need)
                lo = np.maximum(lo, need - iv_room[state])
            count = np.maximum(hi - lo + 1, 0)
            rows = int(count.sum())
            # Each value tried is the next step's node, or at the last step a choice listed:
            # counted before the rows are made, so a try past its limits stops short of them.
            self.steps += rows
            if self.steps > max_options:
                return None
            parent = np.repeat(np.arange(len(state)), count)
            value = np.arange(rows) - np.repeat(np.cumsum(count) - count - lo, count)
            # (kept small: a large try's walk can reach hundreds of thousands of rows a step)
            back.append(parent.astype(np.int32))
            values.append(value.astype(np.int16))
            state, w, pile_sum = state[parent], w[parent] * weight[value], pile_sum[parent] + value
            for other in iv_sum:
                iv_sum[other] = iv_sum[other][parent]
            if fed is not None:
                fed.step(i, parent, value)
            if req >= 0 and last_use[label] > i:
                iv_sum[label] = value if got is None else got[parent] + value
        if fed is not None:
            w = w * fed.factor()
        x = np.zeros((len(state), caps.shape[1]), dtype=np.int16)
        at_row = np.arange(len(state))
        for i in range(n - 1, -1, -1):
            x[:, walk[i][0]] = values[i][at_row]
            at_row = back[i][at_row]
        return state, x, w

    def _count_back(self, found: list[tuple]) -> None:
        """The counts from the last level back, each choice's weight times its merge factor
        times its next state's count (in the depth-first build's order of products), summed
        per state in the listing's order; the choices of weight 0 dropped."""
        below = None
        self.levels: list[tuple] = [()] * len(found)
        for k in range(len(found) - 1, -1, -1):
            state, x, w, merged, n_states = found[k]
            nxt = None
            if merged is not None:
                left, counts, nxt = merged
                factor = np.ones(len(w))
                for col in left.T:
                    factor *= _INV_FACT[col]
                for col in counts.T:
                    factor *= _FACT[col]
                w = w * (factor * below[nxt])
            totals = np.bincount(state, weights=w, minlength=n_states)
            keep = w > 0.0
            state, x, w = state[keep], x[keep], w[keep]
            starts = np.searchsorted(state, np.arange(n_states + 1))
            self.levels[k] = (starts, x, w, None if nxt is None else nxt[keep])
            below = totals
        self.total = float(below[0]) if len(below) else 0.0

    def entry(self, k: int, state: int) -> tuple:
        """Level ``k``'s state ``state``: its total, its choices, their running sums and the
        next level's state of each (the depth-first build's table entry, made on first use and
        kept). A state with many choices keeps them as arrays: listing them all as tuples
        would cost the first sample there milliseconds."""
        got = self._entries.get((k, state))
        if got is None:
            starts, x, w, nxt = self.levels[k]
            a, b = int(starts[state]), int(starts[state + 1])
            if b - a > _LISTED:
                cum = np.cumsum(w[a:b])  # (in order, as ``accumulate``)
                got = (float(cum[-1]), x[a:b], cum, None if nxt is None else nxt[a:b])
            else:
                cum = list(accumulate(w[a:b].tolist()))
                kept = [tuple(row) for row in x[a:b].tolist()]
                total = cum[-1] if cum else 0.0
                got = (total, kept, cum, None if nxt is None else nxt[a:b].tolist())
            self._entries[(k, state)] = got
        return got

    def choose(self, k: int, state: int, u: float) -> tuple[tuple, int | None]:
        """The choice a uniform ``u`` picks at level ``k``'s state, and its next state."""
        total, kept, cum, nxt = self.entry(k, state)
        if isinstance(cum, list):
            i = min(bisect_right(cum, u * total), len(kept) - 1)
            return kept[i], None if nxt is None else nxt[i]
        i = min(int(np.searchsorted(cum, u * total, side="right")), len(kept) - 1)
        return tuple(kept[i].tolist()), None if nxt is None else int(nxt[i])
