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
        not by trying every content)."""
        size = self.chain.box_size[self.step]
        spreads: dict[int, list[tuple[list[int], float]]] = {}
        out: dict[tuple, float] = {}
        for x, a in self.a_of.items():
            if not a or any(v > pile[s] for s, v in zip(self.closed, x)):
                continue
            m = size - sum(x)
            if m not in spreads:
                spreads[m] = self._spreads(m, pile)
            base = math.log(a) - math.log(self.rest[m]) - self.log_top
            row = [0] * NUM_SPECIES
            for s, v in zip(self.closed, x):
                row[s] = v
            for spread, w in spreads[m]:
                for s, v in zip(self.opened, spread):
                    row[s] = v
                out[tuple(row)] = base + w
        return out

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
            if m and chain.open_sfx[r] is not None:
                chain.fill_open(r, m, rng, row)
            elif m:  # each open card's species in proportion to its tilt
                _, opened, probs, top, last = chain.draws[r]
                for v in u[k : k + m]:
                    i = bisect_right(probs, v * top)
                    row[opened[i if i <= last else last]] += 1
                k += m
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
    waits for the seats before it to leave a content the pinned box can hold.
    """

    def __init__(self, pins: list[PinnedBox], places: list[int], pile: list[int]) -> None:
        self.pins = pins
        #: Per pinned box, the place of its seat in the model's ``seats`` (drawn last).
        self.places = places
        tables = [pin.contents(pile) for pin in pins]
        order = sorted(range(len(pins)), key=lambda i: len(tables[i]))
        # Contents packed in one integer, a field of _BITS bits per species with a guard bit
        # on top: ``left - content`` keeps every guard bit set exactly when no species of the
        # content exceeds what is left (a field never borrows from the next one).
        packed = [[(_pack(content), w, content) for content, w in tables[i].items()] for i in order]
        last = {_pack(content) + _GUARD: (w, content) for content, w in tables[order[-1]].items()}
        splits: list[tuple[float, tuple]] = []
        steps = 0
        chosen: list[tuple] = [()] * len(pins)
        final = len(order) - 1

        def rec(t: int, left: int, lw: float) -> None:
            nonlocal steps
            if t == final:
                got = last.get(left)
                if got is not None:
                    chosen[order[t]] = got[1]
                    splits.append((lw + got[0], tuple(chosen)))
                return
            items = packed[t]
            steps += len(items)
            if steps > PILE_STEPS:
                raise _TooMany
            i = order[t]
            for code, w, content in items:
                rest = left - code
                if rest & _GUARD == _GUARD:
                    chosen[i] = content
                    rec(t + 1, rest, lw + w)

        try:
            rec(0, _pack(pile) + _GUARD, 0.0)
        except _TooMany:
            splits = []
        self.fits = bool(splits) and steps <= PILE_STEPS
        self.splits = [content for _, content in splits]
        if splits:
            top = max(lw for lw, _ in splits)
            self.cum = list(accumulate(math.exp(lw - top) for lw, _ in splits))

    def draw(self, rng: np.random.Generator) -> tuple:
        """A joint filling of the pinned boxes, in proportion to ``prod_i Z_i(r_i)``."""
        cum = self.cum
        return self.splits[min(bisect_right(cum, rng.random() * cum[-1]), len(cum) - 1)]


#: Bits per species in a packed content: its count (at most 31) and a guard bit above it.
_BITS = 6
_GUARD = sum(1 << (_BITS * s + _BITS - 1) for s in range(NUM_SPECIES))
assert max(CARD_COUNTS) < 1 << (_BITS - 1), "a species' count would reach the guard bit"


def _pack(content) -> int:
    """A content (cards per species, each under 32) as one integer of ``_BITS`` per species."""
    return sum(v << (_BITS * s) for s, v in enumerate(content))


class _TooMany(Exception):
    """More joint fillings than ``PILE_STEPS`` (the pile is left to the single pin)."""


def choose_pile(
    seats: list[tuple[list[int], SeatChain]],
    box_pile: list[int],
    avail: list[list[int]],
) -> PinnedPile | None:
    """The pile to pin whole: among the piles drawn to their end whose boxes are each their
    seat's only box in it (at least two), the one with the most boxes (then the earliest) whose
    joint fillings fit ``PILE_STEPS``; None if there is none. A function of the seats'
    structure alone."""
    last = len(avail) - 1
    members: dict[int, list[tuple[int, int]]] = {}
    shared = set()
    for i, (boxes, prog) in enumerate(seats):
        piles = [box_pile[g] for g in boxes]
        for k, j in enumerate(piles):
            if j == last:
                continue
            if piles.count(j) > 1 or not prog.total > 0.0:
                shared.add(j)
            elif k == piles.index(j):
                members.setdefault(j, []).append((i, k))
    ranked = sorted(
        (j for j in members if j not in shared and len(members[j]) > 1),
        key=lambda j: (-len(members[j]), j),
    )
    for j in ranked:
        pins = [PinnedBox(seats[i][1], k) for i, k in members[j]]
        pile = PinnedPile(pins, [i for i, _ in members[j]], avail[j])
        if pile.fits:
            return pile
    return None
