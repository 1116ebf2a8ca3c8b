"""Moves between consistent worlds for Cubirds' replay stages (session 30): a Markov chain whose
stationary distribution is the exact posterior (:mod:`.hidden_exact` defines it), run from the
world a replay stage found.

Where the exact model does not serve (mostly face-down round-end discards after a reshuffle),
:func:`cardzoo.envs.cubirds.hidden.sample_hidden` takes a world from the replay's stages, which
is consistent with everything the seat saw but not drawn from the posterior: the fast replay is
steered by local checks, and the search stages solve each pile's flow to one solution, so they
reach only some of the worlds (``docs/cubirds_determinize.md``, session 25). This module moves
such a world towards the posterior; a kernel that keeps the posterior can only bring a
distribution closer to it (in total variation), so the moves never make the samples worse.

**The world.** Every card another seat drew unseen is a *slot* of the pile it came from (its
batch is a *box* of slots), and so is every card still in the draw pile (one more box). The
exact posterior weighs a world, given as the species counts of every box, by
``prod over boxes and species of 1 / x!`` times ``prod_s C[s]!`` for every pile a reshuffle made
of hands thrown away face down (``C``: its content, which those hands set).

**The moves.** A *swap* exchanges the species of two slots of one pile: picking the same two
slots again undoes it, and the ``1 / x!`` weights and the odds of picking cancel, so a swap is
kept whenever the world stays consistent, except for the fed piles' factor below. Two kinds:

- *Pair swaps*: two boxes of one pile between which a swap alone can keep every requirement
  (:meth:`Mixer._pairs_of`), a card of each among the species they may exchange.
- *Double swaps* (``DOUBLE`` of the moves): two swaps of any slots, the second picked in the
  world the first made, kept only if together they keep every requirement (one seat's lay
  counts balanced across two of its boxes, say).

A swap that changes what a thrown hand held changes the content of the pile it fed: by one card
of species ``x`` more and one of ``y`` less. That pile's slots must follow, so one of its cards
of species ``y`` (drawn by another seat, or still in the draw pile) is picked uniformly and
becomes an ``x`` (at the card level: the thrown card is the one drawn there), which may in turn
change a hand thrown into a later pile. The move's odds then carry
``(C[x] + 1) * N[y] / (C[y] * (N[x] + 1))`` per pile so changed (``N``: the pile's slots of
each species), which keeps the chain's stationary distribution the posterior.

A move is kept when every interval (a seat's cards of one species between two of its lays or
flocks, :class:`.hidden_replay._Plan`) with a requirement keeps its count, with the odds above;
``_Plan._replay`` rebuilds the world at the end and would reject an inconsistent one.

**Cheaper judging (session 35).** Most double swaps are turned down (95-99 %), and most of
them for a requirement of an interval none of whose boxes lies in a pile that settling edits
(:attr:`Mixer.sure`): nothing settling picks can mend that, so such a swap is turned down before
settling (without the uniform settling would have drawn: the same chain, other samples than
before). :meth:`_World._quick` makes and judges those, and the double swaps that touch no
thrown hand, on the counts alone; the rest go the general way. Along seeded face-down games the
moves took 27-31 % less time at two to five players (``docs/cubirds_determinize.md``,
session 35).

**Not exact.** A chain started from one world is near the posterior only once it has mixed,
which the moves per call (``MOVES_PER_SLOT``) bound. How close it gets was measured against the
brute-force reference on small logs and by chains from different starts on real positions
(``docs/cubirds_determinize.md``, session 30).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from cardzoo.envs.cubirds.data import EV_RESHUFFLE, NUM_SPECIES

SPECIES = range(NUM_SPECIES)

#: Moves per call: this many per slot of the position, at least ``MIN_MOVES`` (0: none, the
#: replay's world as found). More moves cost more and bring the samples closer to the posterior
#: (measured in ``docs/cubirds_determinize.md``, session 30).
MOVES_PER_SLOT = 16
MIN_MOVES = 256

#: The share of double swaps among the moves (the rest: pair swaps).
DOUBLE = 0.9


class Mixer:
    """The slots of one :class:`.hidden_replay._Plan`, made once and used for every call."""

    def __init__(self, plan) -> None:
        self.plan = plan
        last = plan.last_pile
        self.last = last
        self.req = plan.req
        self.species_of = plan.species_of
        #: Per interval: the pile its cards feed (``-1``: none; a thrown hand feeds the pile a
        #: reshuffle makes next).
        feeds = [-1] * len(plan.req)
        for g, ivs in enumerate(plan.fed):
            if g < last and plan.pile_source[g + 1][0] == EV_RESHUFFLE:
                for iv in ivs:
                    feeds[iv] = g + 1
        self.feeds = feeds
        self.fed_piles = sorted({h for h in feeds if h >= 0})
        #: Per pile: its other seats' batches, as (log index, size, intervals).
        self.boxes = [[(st[1], st[3], st[4]) for st in batches] for batches in plan.pile_batches]
        self._pairs: tuple[list[tuple], list[int]] | None = None  # (made at the first call)
        #: Per interval: whether it has a requirement that settling never edits (none of its
        #: boxes lies in a fed pile): a double swap that changes its count is turned down
        #: whatever the settling picks (:meth:`_World.move`).
        settled = {iv for h in self.fed_piles for _, _, ivs in self.boxes[h] for iv in ivs}
        self.sure = [r >= 0 and iv not in settled for iv, r in enumerate(self.req)]
        self.required = [r >= 0 for r in self.req]

    def mix(
        self, batches: dict[int, tuple[int, ...]], left: list[int], rng, moves: int | None = None
    ) -> tuple[dict[int, tuple[int, ...]], int]:
        """``moves`` moves (default: ``MOVES_PER_SLOT`` per card the other seats drew unseen or
        the draw pile holds, at least ``MIN_MOVES``) from the world of ``batches`` (log index
        -> cards) with ``left`` the draw pile's content (changed in place); returns the batches
        of the world reached and the moves kept."""
        if moves is None:
            slots = self.plan.positions + sum(left)
            moves = max(MIN_MOVES, MOVES_PER_SLOT * slots) if MOVES_PER_SLOT else 0
        every = [[list(batches[i]) for i, _, _ in boxes] for boxes in self.boxes]
        every[self.last].append(left)
        world = _World(self, every, batches)
        piles, odds = self._piles(every)
        if not piles or not moves:
            return batches, 0
        if self._pairs is None:
            self._pairs = self._pairs_of(piles)
        pairs, pair_odds = self._pairs
        world.uniforms = _uniforms(rng, moves)
        kept = 0
        for row in rng.random((moves, 8)).tolist():
            if row[0] < DOUBLE:
                first = _swap(piles, odds, row[1], row[2], row[3])
                if first is not None:
                    kept += world.move(first, (piles, odds, row), row[7])
            elif pairs:
                swap = _pair_swap(piles, pairs, pair_odds, row[1], row[2], row[3])
                if swap is not None:
                    kept += world.move(swap, None, row[7])
        out = dict(batches)
        for boxes, cards in zip(self.boxes, every):
            for (i, _, _), box in zip(boxes, cards):
                out[i] = tuple(box)
        return out, kept

    def _piles(self, every: list[list[list[int]]]) -> tuple[list, list[int]]:
        """Per pile with two slots or more: its boxes' cards, their ends (running sizes), their
        intervals (None: the draw pile) and its slots; and the running odds of picking each."""
        piles, weights = [], []
        for g, boxes in enumerate(self.boxes):
            cards = every[g]
            ivs: list = [v for _, _, v in boxes]
            sizes = [k for _, k, _ in boxes]
            if g == self.last:
                ivs.append(None)
                sizes.append(sum(cards[-1]))
            total = sum(sizes)
            if len(cards) < 2 or total < 2:
                continue
            piles.append((cards, list(accumulate(sizes)), ivs, total, g))
            weights.append(total)
        return piles, list(accumulate(weights))

    def _pairs_of(self, piles: list) -> tuple[list[tuple], list[int]]:
        """The pairs of boxes between which a swap alone can keep every requirement, each with
        its *movable* species (those whose interval both boxes share, or which have no
        requirement in either), as (pile, box, pile, box, species), the piles as indices of
        ``piles``; and their running odds (the product of the two boxes' sizes). Two boxes of
        different piles leave both piles to settle (:meth:`_World._settle`)."""
        req = self.req

        def free(ivs, x: int) -> bool:
            return ivs is None or req[ivs[x]] < 0

        boxes = []
        for k, (_, ends, ivs, _, _) in enumerate(piles):
            sizes = [b - a for a, b in zip([0, *ends], ends)]
            boxes += [(k, i, v, size) for i, (v, size) in enumerate(zip(ivs, sizes)) if size]
        pairs, weights = [], []
        for n, (k, i, a, size_a) in enumerate(boxes):
            for k2, j, b, size_b in boxes[n + 1 :]:
                both = tuple(
                    x
                    for x in SPECIES
                    if (a is not None and b is not None and a[x] == b[x])
                    or (free(a, x) and free(b, x))
                )
                if len(both) > 1:
                    pairs.append((k, i, k2, j, both))
                    weights.append(size_a * size_b)
        return pairs, list(accumulate(weights))


class _World:
    """One world being moved: every box's cards (the draw pile last in the last pile), the
    contents of the piles thrown hands fed, and a move's changes until it is kept or undone."""

    def __init__(self, mixer: Mixer, every: list[list[list[int]]], batches: dict) -> None:
        self.mixer = mixer
        self.every = every
        #: Per pile: its boxes' intervals (None: the draw pile).
        self.ivs = [[v for _, _, v in boxes] for boxes in mixer.boxes]
        self.ivs[mixer.last].append(None)
        plan = mixer.plan
        #: The whole content of every fed pile (its slots plus the cards the seat saw leave
        #: it), by pile.
        self.content: dict[int, list[int]] = {}
        for h in mixer.fed_piles:
            reserved = plan.pile_source[h][2]
            self.content[h] = [reserved[s] + sum(box[s] for box in every[h]) for s in SPECIES]
        self.uniforms = iter(())
        self.edits: list[tuple] = []  # (cards, from, to), in order
        self.change: dict[int, int] = {}  # per interval, the move's net change
        self.gap: dict[int, list[int]] = {}  # per pile, its slots' change less its content's
        self.fed: dict[int, list[int]] = {}  # per fed pile, its content's change

    def move(self, swap: tuple, then: tuple | None, u: float) -> int:
        """Make ``swap``, and with ``then`` (the piles, their odds, the move's numbers) a second
        swap picked in the world the first made, then settle the piles (:meth:`_settle`); keep
        it all (1) with the chain's odds, or undo every edit (0)."""
        if then is not None:
            quick = self._quick(swap, then)
            if quick is not None:
                return quick
        self.edits, self.change, self.gap, self.fed = [], {}, {}, {}
        busy = [swap[0], swap[1]]
        self._swap(swap)
        ratio = 1.0
        if then is not None:
            piles, odds, row = then
            second = _swap(piles, odds, row[4], row[5], row[6])
            if second is None:
                ratio = 0.0
            else:
                busy += [second[0], second[1]]
                self._swap(second)
        if ratio > 0 and (self.gap or self.fed):
            # (a double swap edits piles it settles only where thrown hands fed them)
            doomed = then is not None and any(
                delta and self.mixer.sure[iv] for iv, delta in self.change.items()
            )
            ratio = 0.0 if doomed else self._settle(busy)
        if ratio > 0:
            req = self.mixer.req
            for iv, delta in self.change.items():
                if delta and req[iv] >= 0:
                    ratio = 0.0
                    break
        if ratio >= 1 or u < ratio:
            for h, row in self.fed.items():
                content = self.content[h]
                for x in SPECIES:
                    content[x] += row[x]
            return 1
        for cards, a, b in reversed(self.edits):
            cards[b] -= 1
            cards[a] += 1
        return 0

    def _quick(self, swap: tuple, then: tuple) -> int | None:
        """A double swap made and judged on the counts alone, without the bookkeeping of the
        general way below (session 35): kept (1) where no card of it lies in a thrown hand (no
        pile to settle: the odds are 1) and every requirement holds, turned down (0) where a
        requirement that no settling edits is broken; else None, with nothing changed, and
        :meth:`move` makes it the general way (picking the same second swap). The outcomes are
        the general way's (``tests/cubirds/test_cubirds_mix.py``)."""
        mixer = self.mixer
        ci, cj, vi, vj, s, t, _, _ = swap
        ci[s] -= 1
        ci[t] += 1
        cj[t] -= 1
        cj[s] += 1
        piles, odds, row = then
        second = _swap(piles, odds, row[4], row[5], row[6])
        outcome: int | None = 0  # (no second swap: turned down)
        if second is not None:
            di, dj, wi, wj, a, b, _, _ = second
            di[a] -= 1
            di[b] += 1
            dj[b] -= 1
            dj[a] += 1
            net = _net(((vi, s, t), (vj, t, s), (wi, a, b), (wj, b, a)))
            feeds = mixer.feeds
            fed = False
            for iv in net:
                if feeds[iv] >= 0:
                    fed = True
                    break
            # (the general way's odds are 1 with no pile to settle; else only ``sure`` tells)
            held = mixer.sure if fed else mixer.required
            for iv, delta in net.items():
                if delta and held[iv]:
                    break
            else:
                if not fed:
                    return 1
                outcome = None
            dj[a] -= 1
            dj[b] += 1
            di[b] -= 1
            di[a] += 1
        cj[s] -= 1
        cj[t] += 1
        ci[t] -= 1
        ci[s] += 1
        return outcome

    def _swap(self, swap: tuple) -> None:
        ci, cj, vi, vj, s, t, gi, gj = swap
        self._edit(ci, vi, s, t)
        self._edit(cj, vj, t, s)
        if gi != gj:  # each pile's slots now hold one card of a species more, one of another less
            for g, x, y in ((gi, t, s), (gj, s, t)):
                gap = self._gap(g)
                gap[x] += 1
                gap[y] -= 1

    def _gap(self, g: int) -> list[int]:
        gap = self.gap.get(g)
        if gap is None:
            gap = self.gap[g] = [0] * NUM_SPECIES
        return gap

    def _edit(self, cards: list[int], ivs, a: int, b: int) -> None:
        """One card of a box from species ``a`` to ``b``, counted per interval, and per pile
        its thrown hand fed in that pile's content (its slots must follow: ``gap``)."""
        cards[a] -= 1
        cards[b] += 1
        self.edits.append((cards, a, b))
        if ivs is None:
            return
        change, feeds = self.change, self.mixer.feeds
        ia, ib = ivs[a], ivs[b]
        change[ia] = change.get(ia, 0) - 1
        change[ib] = change.get(ib, 0) + 1
        if feeds[ia] < 0 and feeds[ib] < 0:
            return
        for iv, delta, x in ((ia, -1, a), (ib, 1, b)):
            h = feeds[iv]
            if h >= 0:  # a thrown hand: the content of the pile it fed changes alike
                row = self.fed.get(h)
                if row is None:
                    row = self.fed[h] = [0] * NUM_SPECIES
                row[x] += delta
                self._gap(h)[x] -= delta

    def _settle(self, busy: list) -> float:
        """Every pile whose slots no longer hold its content, by one card of ``y`` too many and
        one of ``x`` too few (a swap across piles, or a thrown hand that fed it changed): one of
        its ``y`` slots outside the move's boxes, picked uniformly, becomes an ``x`` (which may
        change a later pile in turn). The move's odds: ``N[y] / (N[x] + 1)`` per pile so settled
        (``N``: its slots of each species outside the move's boxes) times ``C'! / C!`` per
        species of every fed pile (``C``: its content); 0 where a pile is off otherwise or
        twice, or has no such slot."""
        ratio = 1.0
        settled = set()
        gaps = self.gap
        while gaps:
            h = min(gaps)
            row = gaps.pop(h)
            if not any(row):
                continue
            up = [x for x in SPECIES if row[x] > 0]
            down = [x for x in SPECIES if row[x] < 0]
            if h in settled or len(up) != 1 or len(down) != 1 or row[up[0]] != 1 != -row[down[0]]:
                return 0.0
            settled.add(h)
            y, x = up[0], down[0]
            busy_ids = {id(b) for b in busy}
            boxes = self.every[h]
            nx = ny = 0
            for box in boxes:
                if id(box) not in busy_ids:
                    nx += box[x]
                    ny += box[y]
            if not ny:
                return 0.0
            ratio *= ny / (nx + 1)
            pick = int(next(self.uniforms) * ny)
            for box, ivs in zip(boxes, self.ivs[h]):
                if id(box) in busy_ids:
                    continue
                pick -= box[y]
                if pick < 0:
                    self._edit(box, ivs, y, x)  # (may leave a later pile off in turn)
                    break
        for h, row in self.fed.items():
            content = self.content[h]
            for x in SPECIES:
                ratio *= _factorial_ratio(content[x], row[x])
        return ratio


def _net(edits: tuple) -> dict[int, int]:
    """Per interval touched by ``edits`` (per card its box's intervals, or None for the draw
    pile, then the species it leaves and the one it takes), the net change of its count."""
    net: dict[int, int] = {}
    for ivs, a, b in edits:
        if ivs is not None:
            ia, ib = ivs[a], ivs[b]
            net[ia] = net.get(ia, 0) - 1
            net[ib] = net.get(ib, 0) + 1
    return net


def _uniforms(rng, size: int):
    """Uniform numbers from ``rng``, ``size`` at a time, without end."""
    while True:
        yield from rng.random(size).tolist()


def _factorial_ratio(c: int, delta: int) -> float:
    """``(c + delta)! / c!`` (0 where ``c + delta`` is negative)."""
    out = 1.0
    if delta > 0:
        for k in range(1, delta + 1):
            out *= c + k
    elif delta < 0:
        if c + delta < 0:
            return 0.0
        for k in range(-delta):
            out /= c - k
    return out


def _pair_swap(piles, pairs, odds, a: float, b: float, c: float) -> tuple | None:
    """A swap within a pair of boxes (picked by ``odds``) of one card of each, both of their
    movable species, picked uniformly among those; None where either box has none or the two
    species are the same. The species moved stay movable, so the way back is as likely."""
    k, i, m, j, both = pairs[bisect_right(odds, a * odds[-1])]
    ci, cj = piles[k][0][i], piles[m][0][j]
    ni = sum(ci[x] for x in both)
    nj = sum(cj[x] for x in both)
    if not ni or not nj:
        return None
    s = _species_at(ci, int(b * ni), both)
    t = _species_at(cj, int(c * nj), both)
    if s == t:
        return None
    return ci, cj, piles[k][2][i], piles[m][2][j], s, t, piles[k][4], piles[m][4]


def _swap(piles, odds, a: float, b: float, c: float) -> tuple | None:
    """Two slots of a pile (picked by ``odds``) whose species differ, as (the two boxes' cards,
    their intervals, the two species, the pile twice); None where they are of one box or one
    species."""
    cards, ends, ivs, total, g = piles[bisect_right(odds, a * odds[-1])]
    x, y = int(b * total), int(c * total)
    i, j = bisect_right(ends, x), bisect_right(ends, y)
    if i == j:
        return None
    ci, cj = cards[i], cards[j]
    s = _nth_species(ci, x - (ends[i - 1] if i else 0))
    t = _nth_species(cj, y - (ends[j - 1] if j else 0))
    if s == t:
        return None
    return ci, cj, ivs[i], ivs[j], s, t, g, g


def _nth_species(cards: list[int], x: int) -> int:
    """The species of a box's ``x``-th card, its cards ordered by species."""
    s = 0
    for v in cards:
        x -= v
        if x < 0:
            return s
        s += 1
    raise AssertionError("a card past its box")


def _species_at(cards: list[int], x: int, among) -> int:
    """The species of the ``x``-th card of a box among its cards of the species ``among``."""
    for s in among:
        x -= cards[s]
        if x < 0:
            return s
    raise AssertionError("a card past its box")
