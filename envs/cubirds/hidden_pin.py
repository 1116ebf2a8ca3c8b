"""One seat's chain with one of its boxes pinned to given counts, for Cubirds' exact
``determinize`` at positions with several piles since the last public source
(:mod:`.hidden_exact`); and every box of one such pile pinned together (:class:`PinnedPile`,
session 13: where each box drawn from the pile is its seat's only box there, the pile is split
among them by the product of their weights, so its condition never fails).

Every pile but the last was drawn to its end, so what the seats took from it must equal what it
held. The rejection step there used to wait for that to happen by chance (a few per cent of the
proposals). Here one seat with a single box in such a pile is drawn last, and that box is set to
what the other seats left of the pile (``R``): the rest of the seat's boxes is drawn from its
chain given that box (:meth:`PinnedBox.sample`). Drawing the seat so has probability
``w(x) / Z(R)`` instead of ``w(x) / Z`` (``w``: the chain's weight of the seat's filling ``x``,
``Z(R)``: the weight of every filling whose pinned box holds ``R``), so a proposal is kept with
the extra factor ``Z(R) / M``, ``M`` at least every ``Z(R)``: the kept proposals then follow the
same law as before (each weighs ``w`` times the rest of the step's factors), and the share kept
is about ``1 / max_R P(R)`` times the old one.

``Z(R)`` splits in two: the box's closed species (``x``, chosen by the chain's states) and its
open ones (``o``, whose weight ``prod_s tilt[s]**o[s] / o[s]!`` depends on ``o`` alone). So
``Z(R) = A(x) * open(o) / rest(m)`` with ``A(x)`` the chain's weight of every filling that puts
``x`` in the box (``rest(m)``: the chain's weight of all ``m`` open cards together), summed over
the chain's states at the box with a forward pass; ``M`` is the largest ``A(x)`` times the
largest ``open`` of its size, over ``rest``, both over the contents the pile allows (at most
what it held of each species, at least what the other seats' boxes there cannot hold): the
largest ``Z(R)`` itself, no slack (``tests/cubirds/test_cubirds_pinned_box.py``; the whole
sampler: ``test_cubirds_exact_posterior.py::test_two_piles_since_the_source_are_sampled_exactly``).

Measured (2026-12-02, session 7; CPU time, 2 cores shared with other sessions at a load of about
4 to 6; ``hidden_exact.PIN_BOX`` off and on alternating game by game in one process). Along 8
seeded random games per player count, one call by the seat in turn at every decision, calls not
exact went from 4 / 2 / 46 / 167 to 4 / 1 / 35 / 107 of 1,232 / 1,325 / 1,330 / 1,179 at 2 / 3 /
4 / 5 players (5 players: 14.2 -> 9.1 %), at a mean cost within noise (1.12 / 1.78 / 2.43 / 3.88
-> 0.92 / 1.65 / 2.55 / 3.48 ms; the issue's along-game script, 4 games, off/on/on/off: 2p
1.26 / 1.12 -> 1.27 / 1.06, 3p 1.85 / 1.70 -> 1.94 / 1.87, 4p 2.92 / 3.00 -> 2.54 / 3.15, 5p
3.68 / 4.35 -> 3.75 / 4.17). Repeated calls at the positions of 16 seeded games (20 at each) stay
dear where few proposals are kept: mean 0.86 -> 0.81 ms at 4 players late, 2.67 -> 2.45 ms at 5
players middle (up to 8-10 ms a call). Why (5 players, 93 positions with several piles, 300
proposals each): 0.85 % of the proposals are kept; 38 % end when a seat takes more of a species
than an emptied pile held, 28 % because the others leave a content the pinned seat cannot hold
(its closed intervals), 27 % fail another emptied pile or the last pile's content, and those
that reach the keep step are kept with probability 0.17 on average (the pin's factor averages
0.8 there). The chains knew nothing of the piles' contents but through the tilt; capping every
box at what its pile held (``hidden_exact.CAP_BOXES``, exact, tested) ends the first kind, but
is off: along the same 8 games at 5 players it took calls not exact from 107 to 92 of 1,179
(9.1 -> 7.8 %; at 2-4 players within one call of it) at a mean cost within noise (4.17 -> 4.46
ms), while repeated calls at the 16 games' positions got dearer where few proposals are kept
(5 players middle / late 2.56 / 1.63 -> 3.10 / 2.04 ms, 4 players late 0.76 -> 1.23 ms, up to
15-17 ms a call): the proposals that pass go further before they fail.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds.data import CARD_COUNTS, NUM_SPECIES
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from cardzoo.envs.cubirds.hidden_count import _INV_FACT

ROOT = (0,) * NUM_SPECIES
#: :meth:`PinnedBox.contents` makes its rows in arrays where its contents may pass this many
#: (session 28; below, the loops cost less).
LISTED_CONTENTS = 1024
#: ``math.lgamma(v + 1)`` for the counts of an open spread (:meth:`PinnedBox._spread_arrays`).
_LGAMMA = np.array([math.lgamma(v + 1) for v in range(128)])


class PinnedBox:
    """``chain``'s box ``box`` (in the seat's order) pinned; built from the chain's counts.
    ``bounds``: per species the least and most the box can be given (what the pile held, less
    what the other seats' boxes there can hold); ``M`` is the largest ``Z(R)`` over those."""

    def __init__(
        self, chain: SeatChain, box: int, bounds: tuple[list[int], list[int]] | None = None
    ) -> None:
        self.chain = chain
        self.step = step = chain.n - 1 - box  # the chain counts its boxes in reverse
        closed, _, _, opened, rest, _ = chain.boxes[step]
        self.closed, self.opened, self.rest = closed, opened, rest
        memo, ids = chain.memo, chain.ids
        # Forward pass over the steps before the box (the seat's later boxes): per step, the
        # weight of reaching each state, and per state its ways in (for drawing back).
        alpha = {ROOT: 1.0}
        self.back: list[dict[tuple, list]] = []
        #: The running sums of ``back`` and ``by_x``, made on first use.
        self._back_cum: list[dict[tuple, tuple]] = [{} for _ in range(step)]
        self._x_cum: dict[tuple, tuple] = {}
        for r in range(step):
            nxt: dict[tuple, float] = {}
            ways: dict[tuple, list] = {}
            for state, a in alpha.items():
                _, choices, cum, nexts, _, _, follow = memo[(ids[r], state)]
                before = 0.0
                for j, kid in enumerate(nexts):
                    # The choice's own weight: its share of ``cum`` over what follows it.
                    w = a * (cum[j] - before) / follow_value(follow[j], chain, r, kid)
                    before = cum[j]
                    nxt[kid] = nxt.get(kid, 0.0) + w
                    ways.setdefault(kid, []).append((w, state, choices[j]))
            self.back.append(ways)
            alpha = nxt
        # At the box: per closed choice ``x``, the states that allow it and their weights.
        self.by_x: dict[tuple, list] = {}
        for state, a in alpha.items():
            _, choices, cum, _, _, _, follow = memo[(ids[step], state)]
            before = 0.0
            for j, (x, _m) in enumerate(choices):
                self.by_x.setdefault(x, []).append((a * (cum[j] - before), state, j))
                before = cum[j]
        self.a_of = {x: sum(w for w, _, _ in ws) for x, ws in self.by_x.items()}
        size = chain.box_size[step]
        self.tilt = chain.open_tilts[step]
        lo, hi = bounds or ([0] * NUM_SPECIES, [size] * NUM_SPECIES)
        self.caps = chain.open_caps[step] or [size] * len(opened)
        his = [min(hi[s], c) for s, c in zip(opened, self.caps)]
        best = _best_open(self.tilt, size, [lo[s] for s in opened], his)
        top = 0.0
        for x, a in self.a_of.items():
            if any(not lo[s] <= v <= hi[s] for s, v in zip(closed, x)):
                continue
            m = size - sum(x)
            top = max(top, a * best[m] / rest[m])
        self.log_top = math.log(top) if top > 0.0 else -math.inf

    def log_weight(self, counts: list[int]) -> float:
        """``log Z(R) - log M`` for the box holding ``counts`` (-inf when nothing allows it)."""
        x = tuple(counts[s] for s in self.closed)
        a = self.a_of.get(x)
        if not a:
            return -math.inf
        m = sum(counts) - sum(x)
        if m and not self.opened:
            return -math.inf
        w = math.log(a) - math.log(self.rest[m]) - self.log_top
        for s, t, cap in zip(self.opened, self.tilt, self.caps):
            v = counts[s]
            if v > cap:
                return -math.inf
            if v:
                if t == 0.0:
                    return -math.inf
                w += v * math.log(t) - math.lgamma(v + 1)
        return w

    def contents(self, pile: list[int]) -> dict[tuple, float]:
        """Every content the box can hold within ``pile`` (per species at most what it held),
        with its :meth:`log_weight` (listed from the closed choices and the open spreads,
        not by trying every content). Where there may be more than ``LISTED_CONTENTS`` of
        them, in arrays (session 28): the same contents in the same order, the same weights."""
        size = self.chain.box_size[self.step]
        chosen = []
        for x, a in self.a_of.items():
            if not a or any(v > pile[s] for s, v in zip(self.closed, x)):
                continue
            m = size - sum(x)
            chosen.append((x, m, math.log(a) - math.log(self.rest[m]) - self.log_top))
        k = len(self.opened)
        if sum(math.comb(m + k, k) for _, m, _ in chosen) > LISTED_CONTENTS:  # (a bound)
            return self._contents_in_arrays(chosen, pile)
        spreads: dict[int, list[tuple[list[int], float]]] = {}
        out: dict[tuple, float] = {}
        for x, m, base in chosen:
            if m not in spreads:
                spreads[m] = self._spreads(m, pile)
            row = [0] * NUM_SPECIES
            for s, v in zip(self.closed, x):
                row[s] = v
            for spread, w in spreads[m]:
                for s, v in zip(self.opened, spread):
                    row[s] = v
                out[tuple(row)] = base + w
        return out

    def _contents_in_arrays(self, chosen: list, pile: list[int]) -> dict[tuple, float]:
        """:meth:`contents` for many contents: per closed choice its block of rows at once."""
        spreads: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        closed, opened = list(self.closed), list(self.opened)
        rows, logs = [], []
        for x, m, base in chosen:
            if m not in spreads:
                spreads[m] = self._spread_arrays(m, pile)
            spread, w = spreads[m]
            if len(w):
                row = np.zeros((len(w), NUM_SPECIES), dtype=np.int64)
                row[:, closed] = x
                row[:, opened] = spread
                rows.append(row)
                logs.append(base + w)
        if not rows:
            return {}
        counts = np.concatenate(rows).tolist()
        return dict(zip(map(tuple, counts), np.concatenate(logs).tolist()))

    def _spread_arrays(self, m: int, pile: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_spreads` as arrays (rows of counts, log weights), a species at a time: the
        same spreads in the same order (the first species most significant), each weight
        summed with the same operations in the same order."""
        opened = self.opened
        tops = [0 if t == 0.0 else min(c, pile[s]) for s, t, c in zip(opened, self.tilt, self.caps)]
        after = list(accumulate(reversed(tops), initial=0))[::-1]  # what the later ones can hold
        spread = np.zeros((1, 0), dtype=np.int64)
        left, w = np.array([m]), np.zeros(1)
        for i, t in enumerate(tops):
            # Each partial spread goes on with every count of species i that still fits.
            low = np.maximum(left - after[i + 1], 0)
            many = np.minimum(left, t) - low + 1
            keep = many > 0
            spread, left, w, low, many = (v[keep] for v in (spread, left, w, low, many))
            at = np.repeat(np.arange(len(left)), many)
            v = low[at] + np.arange(len(at)) - np.repeat(np.cumsum(many) - many, many)
            logt = math.log(self.tilt[i]) if self.tilt[i] > 0.0 else 0.0
            spread = np.concatenate([spread[at], v[:, None]], axis=1)
            left, w = left[at] - v, (w[at] + v * logt) - _LGAMMA[v]
        if not tops and m:
            return spread[:0], w[:0]
        return spread, w

    def _spreads(self, m: int, pile: list[int]) -> list[tuple[list[int], float]]:
        """The ways to put ``m`` open cards on the open species (each at most its cap and what
        the pile held; none of a species weighing 0), with their log weights."""
        out: list[tuple[list[int], float]] = []
        opened = self.opened
        tops = [0 if t == 0.0 else min(c, pile[s]) for s, t, c in zip(opened, self.tilt, self.caps)]
        logs = [math.log(t) if t > 0.0 else 0.0 for t in self.tilt]
        spread = [0] * len(opened)

        def rec(i: int, left: int, w: float) -> None:
            if i == len(opened):
                if not left:
                    out.append((spread[:], w))
                return
            for v in range(min(tops[i], left) + 1):
                spread[i] = v
                rec(i + 1, left - v, w + v * logs[i] - math.lgamma(v + 1))
            spread[i] = 0

        rec(0, m, 0.0)
        return out

    def sample(self, rng: np.random.Generator, counts: list[int]) -> list[list[int]]:
        """The seat's boxes (in its order) with the pinned box holding ``counts``, drawn in
        proportion to the chain's weights (call only when :meth:`log_weight` is finite)."""
        chain, memo, ids = self.chain, self.chain.memo, self.chain.ids
        n = chain.n
        # One uniform per step and per open card (as SeatChain.sample_counts): one NumPy call.
        u = rng.random(n + chain.cards).tolist()
        x = tuple(counts[s] for s in self.closed)
        got = self._x_cum.get(x)
        if got is None:
            got = self._x_cum[x] = _cumulative(self.by_x[x])
        cum, ways = got
        _, state, j = ways[_index(cum, u[self.step])]
        steps: list[tuple | None] = [None] * n
        # The steps after the box (the seat's earlier boxes): forward from its choice.
        entry = memo[(ids[self.step], state)]
        steps[self.step] = entry[1][j]
        entry = entry[6][j]
        for r in range(self.step + 1, n):
            _, choices, cum, _, _, _, follow = entry
            k = _index(cum, u[r])
            steps[r] = choices[k]
            entry = follow[k]
        # The steps before it: back from its state.
        for r in range(self.step - 1, -1, -1):
            kept = self._back_cum[r]
            got = kept.get(state)
            if got is None:
                got = kept[state] = _cumulative(self.back[r][state])
            cum, ways = got
            _, state, choice = ways[_index(cum, u[r])]
            steps[r] = choice
        out = []
        k = n
        for r, (xr, m) in enumerate(steps):
            if r == self.step:
                out.append(list(counts))
                continue
            row = [0] * NUM_SPECIES
            for s, v in zip(chain.boxes[r][0], xr):
                row[s] = v
            if m:
                k = chain.add_open(r, m, u, k, rng, row)
            out.append(row)
        out.reverse()
        return out


def _cumulative(ways: list[tuple]) -> tuple[list[float], list[tuple]]:
    """The running sums of the ways' weights (their first item), with the ways."""
    return list(accumulate(w for w, _, _ in ways)), ways


def _index(cum: list[float], u: float) -> int:
    """The index drawn by the uniform ``u`` from running sums ``cum``."""
    return min(bisect_right(cum, u * cum[-1]), len(cum) - 1)


def follow_value(entry: tuple | None, chain: SeatChain, r: int, kid: tuple) -> float:
    """The count of the state a choice at step ``r`` leads to (1 after the last step)."""
    if entry is None:
        return 1.0 if r + 1 == chain.n else chain.memo[(chain.ids[r + 1], kid)][0]
    return entry[0]


def _best_open(tilt: list[float], size: int, lo: list[int], hi: list[int]) -> list[float]:
    """Per ``m`` up to ``size``, the largest ``prod tilt[s]**o[s] / o[s]!`` over ``o`` with
    ``sum(o) = m`` and ``lo <= o <= hi`` (0 where no such ``o``)."""
    best = [1.0] + [0.0] * size
    for t, a, z in zip(tilt, lo, hi):
        new = [0.0] * (size + 1)
        for m in range(size + 1):
            for v in range(a, min(z, m) + 1):
                w = best[m - v] * t**v * _INV_FACT[v]
                if w > new[m]:
                    new[m] = w
        best = new
    return best


def choose(
    seats: list[tuple[list[int], SeatChain]],
    box_pile: list[int],
    box_size: list[int],
    avail: list[list[int]],
) -> tuple[int, int, int, PinnedBox] | None:
    """The seat and box to pin: among the seats' only boxes in a pile drawn to its end, the
    one whose pinning keeps the most (the smallest ``M / Z``, about ``max_R P(R)``); as
    ``(seat's place in seats, box, its pile, the pinned box)``, or None when there is none.
    A function of the seats' structure alone."""
    last = len(avail) - 1

    def bounds(g: int, j: int) -> tuple[list[int], list[int]]:
        others = sum(box_size[h] for h, p in enumerate(box_pile) if p == j) - box_size[g]
        return [max(a - others, 0) for a in avail[j]], avail[j]

    best = None
    for i, (boxes, prog) in enumerate(seats):
        piles = [box_pile[g] for g in boxes]
        for k, j in enumerate(piles):
            if j == last or piles.count(j) != 1 or not prog.total > 0.0:
                continue
            pin = PinnedBox(prog, k, bounds(boxes[k], j))
            score = pin.log_top - math.log(prog.total)
            if best is None or score < best[0]:
                best = (score, i, boxes[k], j, pin)
    return None if best is None else best[1:]


#: Joint fillings of a pile's boxes tried while listing them (``PinnedPile``); past it the pile
#: is not pinned whole (the single pin above is used instead).
PILE_STEPS = 200_000


class PinnedPile:
    """Every box drawn from one pile that was drawn to its end, pinned together: each is its
    seat's only box in that pile, so the pile's content must split exactly among them.

    A joint filling ``r = (r_1, ..., r_k)`` of the boxes (summing to the pile) is drawn with
    probability ``prod_i Z_i(r_i) / W`` (``Z_i``: the weight of seat ``i``'s chain fillings that
    put ``r_i`` in its box, :class:`PinnedBox`; ``W`` the sum over every such split), then each
    seat's other boxes from its chain given its box (``w_i(x_i) / Z_i(r_i)``). A seat's filling
    ``x_i`` is so proposed with probability ``prod_i w_i(x_i) / W``: the chains' own law, with
    this pile's condition met by construction, so no factor of this pile enters the rejection
    step (the other piles' conditions and the last pile's factor still do). Built where the
    rejection kept about one proposal in a hundred to none (session 13): the single pin
    waits for the seats before it to leave a content the pinned box can hold. A member may
    also be a seat's several boxes in the pile, or what is left of the last pile
    (:mod:`.hidden_group`, session 14).

    The splits are counted member by member (session 14; before: listed one by one): after
    each member, per content still left of the pile (packed), the weight of every way the
    members so far took the rest; the last member's content is then what is left. A split is
    drawn backwards, each member's content given what the members after it left.
    """

    def __init__(
        self, pins: list, places: list[int], pile: list[int], most: int | None = None
    ) -> None:
        """``most``: the steps allowed (``PILE_STEPS`` if None); past them ``fits`` is False."""
        self.pins = pins
        #: Per pinned box, the place of its seat in the model's ``seats`` (drawn last).
        self.places = places
        #: The pile's index (set by whoever chose it).
        self.index = -1
        tables = [pin.contents(pile) for pin in pins]
        #: Members in the order they are counted: the largest table last (read by lookup).
        self.order = order = sorted(range(len(pins)), key=lambda i: len(tables[i]))
        # Contents packed in one integer, a field of _BITS bits per species with a guard bit
        # on top: ``left - content`` keeps every guard bit set exactly when no species of the
        # content exceeds what is left (a field never borrows from the next one).
        listed = [_listed(tables[i]) for i in order]
        self.items = [items for items, _ in listed]
        #: Per member counted, per content left of the pile: the weight of the ways there.
        self.left: list[dict[int, float]] = [{_pack(pile) + _GUARD: 1.0}]
        self.fits = bool(tables) and all(tables)
        steps = 0
        radix = _radix(pile)
        for items, arrays in listed[:-1]:
            before = self.left[-1]
            steps += len(before) * len(items)
            if not self.fits or steps > (PILE_STEPS if most is None else most):
                self.fits = False
                break
            self.left.append(count_member(before, items, arrays, radix))
        if self.fits:  # the last member takes what is left
            last = {code + _GUARD: (w, c) for code, w, c in self.items[-1]}
            ends = [(rest, a * last[rest][0]) for rest, a in self.left[-1].items() if rest in last]
            self.ends = [rest for rest, _ in ends]
            self.cum = list(accumulate(w for _, w in ends))
            self.last = last
            self.fits = bool(ends) and self.cum[-1] > 0.0
        #: Per member counted and content left after it: running sums of its contents' ways.
        self._ways: list[dict[int, tuple]] = [{} for _ in order]

    def probability(self, split: tuple) -> float:
        """The probability that :meth:`draw` gives ``split`` (0 if it is not a split)."""
        rest, w = next(iter(self.left[0])), 1.0
        for t, i in enumerate(self.order):
            got = {c: x for _, x, c in self.items[t]}.get(tuple(split[i]))
            if got is None:
                return 0.0
            w *= got
            rest -= _pack(split[i])
        return w / self.cum[-1] if rest == _GUARD else 0.0

    def draw(self, rng: np.random.Generator) -> tuple:
        """A joint filling of the pinned boxes, in proportion to ``prod_i Z_i(r_i)``."""
        u = rng.random(len(self.order)).tolist()
        cum = self.cum
        rest = self.ends[min(bisect_right(cum, u[-1] * cum[-1]), len(cum) - 1)]
        split: list = [None] * len(self.order)
        split[self.order[-1]] = self.last[rest][1]
        for t in range(len(self.order) - 2, -1, -1):
            rest, split[self.order[t]] = step_back(
                self.left[t], self.items[t], self._ways[t], rest, u[t]
            )
        return tuple(split)


def step_back(before: dict[int, float], items: list, kept: dict, rest: int, u: float) -> tuple:
    """One member's content drawn backwards: given what is left after it (``rest``), one of
    its ``items`` in proportion to its weight times the ways to what was left before it
    (``before``), by the uniform ``u``; returns what was left before it and the content. The
    running sums are kept per ``rest`` in ``kept`` (made on first use: :func:`_running_sums`)."""
    got = kept.get(rest)
    if got is None:
        got = kept[rest] = _running_sums(before, items, kept, rest)
    cums, lefts, contents = got
    j = min(bisect_right(cums, u * cums[-1]), len(cums) - 1)
    return lefts[j], contents[j]


#: A member's running sums are made with NumPy from its ``ARRAYS_AFTER``-th new ``rest`` on
#: (session 40), where it has at least ``ARRAYS_ITEMS`` contents and what was left before it
#: has no more entries than the Python sums so far went through (sorting them is made once;
#: with fewer contents NumPy's calls cost more than the Python). A search agent meets hundreds
#: of new ``rest``s at such a position (the bench's five-player middle position 15: about two
#: a call in its first 200 calls). The same sums, bit for bit, either way: only the cost
#: depends on what came before.
ARRAYS_AFTER, ARRAYS_ITEMS = 8, 128
_MISSES, _ARRAYS = -1, -2  # (keys of ``kept`` beside the rests, which are never negative)


def _running_sums(before: dict[int, float], items: list, kept: dict, rest: int) -> tuple:
    """For ``step_back``: the running sums of the weights of ``items`` given ``rest``, and for
    each the content left before it and its own content (those with a weight only)."""
    arrays = kept.get(_ARRAYS)
    if arrays is None:
        misses = kept[_MISSES] = kept.get(_MISSES, 0) + 1
        if misses < ARRAYS_AFTER or len(items) < ARRAYS_ITEMS or len(before) > misses * len(items):
            ways = [
                (before[rest + code] * w, rest + code, c)
                for code, w, c in items
                if rest + code in before
            ]
            return (
                list(accumulate(w for w, _, _ in ways)),
                [r for _, r, _ in ways],
                [c for _, _, c in ways],
            )
        order = sorted(before)
        arrays = kept[_ARRAYS] = (
            np.array(order, dtype=np.int64),
            np.array([before[k] for k in order]),
            np.array([code for code, _, _ in items], dtype=np.int64),
            np.array([w for _, w, _ in items]),
            [c for _, _, c in items],
        )
    keys, values, codes, weights, contents = arrays
    lefts = codes + rest
    at = np.minimum(np.searchsorted(keys, lefts), len(keys) - 1)
    hit = np.flatnonzero(keys[at] == lefts)
    # (cumsum adds in order, as accumulate does: the same sums)
    cums = np.cumsum(values[at[hit]] * weights[hit]).tolist()
    return cums, lefts[hit].tolist(), [contents[i] for i in hit.tolist()]


#: The most cells of a pile's grid (every content it can leave, by mixed radix) over which a
#: step of :class:`PinnedPile` is summed with NumPy; a larger pile is summed in a dict.
GRID_CELLS = 1 << 22
#: Pairs (content left x member's content) per NumPy block.
GRID_BLOCK = 1 << 20
#: A step is summed on the grid only from this many pairs, and only where the grid has at
#: most ``GRID_SPARSITY`` cells per pair: a pair costs about 100 ns in the dict, 20 ns on the
#: grid, and every cell of the grid a few ns (made, summed into, searched).
GRID_PAIRS = 20_000
GRID_SPARSITY = 16


def _radix(pile: list[int]) -> tuple[np.ndarray, int] | None:
    """The mixed-radix weights of ``pile``'s sub-multisets and their number, or None past
    ``GRID_CELLS``."""
    cells, weights = 1, []
    for a in pile:
        weights.append(cells)
        cells *= a + 1
    return None if cells > GRID_CELLS else (np.array(weights, dtype=np.int64), cells)


def count_member(before: dict[int, float], items: list, arrays: tuple, radix) -> dict[int, float]:
    """One member counted (``_listed``'s items and arrays): per content left after it, the
    weight of the ways there; on the grid (``radix``, from :func:`_radix`) where that pays."""
    pairs = len(before) * len(items)
    if radix is None or pairs < GRID_PAIRS or radix[1] > GRID_SPARSITY * pairs:
        return _counted_by_dict(before, items)
    return _counted_by_grid(before, arrays, *radix)


def _listed(table: dict[tuple, float]) -> tuple[list, tuple]:
    """A member's contents (with their log weights) as ``(packed, weight, content)`` items,
    the weights over the largest one; and the same as arrays (packed, counts, weights)."""
    contents = list(table)
    if not contents:
        return [], ()
    counts = np.array(contents, dtype=np.int64)
    codes = counts @ _FIELDS
    logs = np.fromiter(table.values(), dtype=float, count=len(contents))
    weights = np.exp(logs - logs.max())
    return list(zip(codes.tolist(), weights.tolist(), contents)), (codes, counts, weights)


def _counted_by_dict(before: dict[int, float], items: list) -> dict[int, float]:
    """One member counted: per content left after it, the weight of the ways there."""
    after: dict[int, float] = {}
    for rest, a in before.items():
        for code, w, _ in items:
            left = rest - code
            if left & _GUARD == _GUARD:
                after[left] = after.get(left, 0.0) + a * w
    return after


def _counted_by_grid(
    before: dict[int, float], arrays: tuple, weights: np.ndarray, cells: int
) -> dict[int, float]:
    """:func:`_counted_by_dict` with NumPy: every pair's content left is numbered on the
    pile's grid, and the ways are summed per number (``bincount``). The weights summed are
    the same; the sums' order, and so their last bits, may differ."""
    codes = np.fromiter(before.keys(), dtype=np.int64, count=len(before))
    ways = np.fromiter(before.values(), dtype=float, count=len(before))
    fields = np.arange(NUM_SPECIES, dtype=np.int64) * _BITS
    # A packed content's counts, species by species, then its number on the grid.
    numbers = ((codes[:, None] >> fields) & ((1 << (_BITS - 1)) - 1)) @ weights
    own, own_counts, own_ways = arrays
    own_numbers = own_counts @ weights
    code_at = np.zeros(cells, dtype=np.int64)
    places, parts = [], []
    rows = max(1, GRID_BLOCK // max(len(own), 1))
    for start in range(0, len(codes), rows):
        left = codes[start : start + rows, None] - own[None, :]
        fits = (left & _GUARD) == _GUARD
        at = (numbers[start : start + rows, None] - own_numbers[None, :])[fits]
        places.append(at)
        parts.append((ways[start : start + rows, None] * own_ways[None, :])[fits])
        code_at[at] = left[fits]
    total = np.bincount(np.concatenate(places), weights=np.concatenate(parts), minlength=cells)
    reached = np.flatnonzero(total)
    return dict(zip(code_at[reached].tolist(), total[reached].tolist()))


#: Bits per species in a packed content: its count (at most 31) and a guard bit above it.
_BITS = 6
_GUARD = sum(1 << (_BITS * s + _BITS - 1) for s in range(NUM_SPECIES))
#: Each species' lowest bit in a packed content (``counts @ _FIELDS`` packs rows of counts).
_FIELDS = np.array([1 << (_BITS * s) for s in range(NUM_SPECIES)], dtype=np.int64)
assert max(CARD_COUNTS) < 1 << (_BITS - 1), "a species' count would reach the guard bit"


def _pack(content) -> int:
    """A content (cards per species, each under 32) as one integer of ``_BITS`` per species."""
    return sum(v << (_BITS * s) for s, v in enumerate(content))
