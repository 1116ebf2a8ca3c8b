"""The counting programme behind Cubirds' exact ``determinize`` (:mod:`.hidden_exact`): the
weighted number of ways to fill *boxes* (runs of unseen draws, the rest of a pile) with cards,
species by species, under the conditions of one species at a time (a closed interval's boxes hold
exactly its requirement; a pile's boxes hold exactly its content), and a sample from those counts.

Weights: ``prod over boxes and species of w[s]**x / x!`` (``w`` = 1 without a tilt). Boxes that no
species still to be counted tells apart are merged into one class (a multinomial coefficient
counts the ways to split a class's cards among its boxes again), which keeps the programme small.
The species are taken in a greedy order (:meth:`Programme._order`: next, the one leaving the
fewest classes), which merges boxes sooner than taking first the species that tell the most
boxes apart: on 714 programmes met along random games at 3 to 5 players, 560 instead of 528 fit
the limits (400 states, 6,000 steps), with 13 % fewer steps in all.

Tried and left out (2026-12-02): keeping a programme's counts for later positions, as
:mod:`.hidden_chain` does for the chains. Keyed by everything a level reads, a state was found
kept for only about 7 % of the states counted along random games at 4 players (a seat's next
build differs in the pile contents it saw drawn and often in the species order), for no
measurable gain.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds import hidden_levels
from cardzoo.envs.cubirds.data import NUM_SPECIES

#: Limits of a programme (states kept, steps of the enumeration of choices in all) before it
#: gives up; they keep a build to a few milliseconds.
MAX_STATES = 400
MAX_OPTIONS = 6_000

#: The same for a :class:`.hidden_chain.SeatChain` (whose steps are much cheaper).
CHAIN_STATES = 5_000
CHAIN_OPTIONS = 100_000

#: Bound what later classes can take by their intervals' requirements and their piles'
#: contents, not only by their rooms (off: the rooms alone, as the tests compare).
TIGHT_BOUNDS = True

#: Choose the species order greedily (:meth:`Programme._order`; off: by how many boxes each
#: species tells apart, as before).
GREEDY_ORDER = True

#: Bound a class's choice by what the later intervals of its pile must still take from it
#: (what they need beyond what their classes in later piles can take). The same choices in
#: fewer steps, so more programmes fit their limits; but the steps saved were cheap dead ends,
#: and the ones left reach more states, each dearer. Measured on 2026-12-02 (CPU time, 8 seeded
#: random games at 2 / 3 / 4 / 5 players, a call by the seat in turn at every decision, off and
#: on alternating game by game in one process, greedy order on): calls falling back to the
#: replay 8 -> 4, 38 -> 27, 123 -> 96, 212 -> 175 (of 1,232 / 1,325 / 1,330 / 1,179), mean
#: cost +2 / +7 / +12 / +23 %. Off by default (speed first); a sound bound all the same
#: (``tests/cubirds/test_cubirds_exact_counting.py``).
NEEDS = False

#: The joint count's larger tries (``hidden_exact``), which go on from a build that exceeded its
#: limits, give up at once where that one got less than this share of the way
#: (``Programme.progress``; 0: never). Along 16 seeded five-player games (seeds 0-7, 1000-1007, a
#: call at every decision; session 26) 54 builds went on from another: the 5 that failed (0.2-0.25
#: s each) came after ones that got 0 to 4.8e-4 of the way, the 49 that fitted after 8.8e-4 or
#: more; at four players (seeds 0-3, 1000-1003) 13, all fitting, after 0.0185 or more.
HOPELESS = 5e-4

SPECIES = range(NUM_SPECIES)
_FACT = [math.factorial(i) for i in range(120)]
_INV_FACT = [1.0 / f for f in _FACT]


def draw_counts(counts: list[int], k: int, rng: np.random.Generator) -> list[int]:
    """``k`` items drawn without replacement from a multiset (``counts[i]`` items of kind
    ``i``): how many of each kind (a multivariate hypergeometric draw, card by card; NumPy's
    costs about ten times as much on these small counts)."""
    out = [0] * len(counts)
    if not k:
        return out
    left = list(counts)
    total = sum(left)
    for u in rng.random(k).tolist():
        r = u * total
        i = 0
        acc = left[0]
        while r >= acc:
            i += 1
            acc += left[i]
        out[i] += 1
        left[i] -= 1
        total -= 1
    return out


def _short(needs: tuple, iv_sum: dict[int, int]) -> int:
    """What the later intervals of a pile must still take from it: per interval, what it
    needs beyond what it has and what its classes in later piles can take."""
    short = 0
    for iv, req, elsewhere in needs:
        req -= iv_sum.get(iv, 0) + elsewhere
        if req > 0:
            short += req
    return short


def _fed_factor(fed: tuple, avail: list[int], pile_sum: list[int]) -> float:
    """The factor of the piles fed by thrown-away hands once a species' choice is complete: 0
    unless each holds exactly its content (its public part plus what its feeding classes
    chose), else ``prod C! / C0!`` (``C``: its content with the cards known to leave it,
    ``C0``: the same without the fed cards; a constant factor less)."""
    factor = 1.0
    for j, known, base in fed:
        if pile_sum[j] != avail[j]:
            return 0.0
        factor *= _FACT[avail[j] + known] / _FACT[base + known]
    return factor


def _leaves(out, x, at, values, w, weight, fed, avail, pile_sum) -> None:
    """The last step's choices (``values`` of class ``c`` in pile ``j``, feeding pile ``to``;
    ``at``: the three) into ``out``; where piles are fed, each with the fed piles' factor (if
    not 0)."""
    c, j, to = at
    if not fed:
        for v in values:
            x[c] = v
            out.append((tuple(x), w * weight[v]))
        return
    for v in values:
        x[c] = v
        pile_sum[j] += v
        avail[to] += v
        f = _fed_factor(fed, avail, pile_sum)
        avail[to] -= v
        pile_sum[j] -= v
        if f > 0.0:
            out.append((tuple(x), w * weight[v] * f))


def _enumerate(
    steps: list[tuple],
    avail: list[int],
    weight: list[float],
    npiles: int,
    allowed: int,
    feed: tuple = (None, ()),
) -> tuple[list[tuple], int]:
    """The choices of one species along a level's walk (``steps`` from
    :meth:`Programme._bounds`), each with its weight, and the steps still allowed after them
    (every node of the enumeration and every choice costs one; TooLarge past ``allowed``).
    ``feed``: per step the pile its class feeds (-1: none), and per fed pile (pile, cards
    known to leave it, public content less those): the fed piles' content grows with what
    their feeding classes choose (a copy of ``avail`` follows it)."""
    if feed[1] or len(steps) < 2:
        return _enumerate_all(steps, avail, weight, npiles, allowed, feed)
    return _enumerate_plain(steps, avail, weight, npiles, allowed)


def _enumerate_plain(
    steps: list[tuple], avail: list[int], weight: list[float], npiles: int, allowed: int
) -> tuple[list[tuple], int]:
    """``_enumerate`` where no pile is fed and ``NEEDS`` is off (the usual case), the last
    step walked inside the one before it (:func:`_last_two`): the same choices in the same
    order and the same steps counted, without the bookkeeping of fed piles or a call per value
    at the last step (session 25: about 17 % fewer instructions at five players; its bounds
    repeat ``_enumerate_all``'s on purpose: one helper for both, a call per step, measured 23 %
    more instructions than this walk;
    ``tests/cubirds/test_cubirds_exact_counting.py::test_the_plain_walk_lists_what_the_full_walk_does``)."""
    last = len(steps) - 1
    x = [0] * len(steps)
    iv_sum: dict[int, int] = {}
    pile_sum = [0] * npiles
    out: list[tuple] = []
    left_steps = allowed
    walk = (avail, pile_sum, iv_sum, x, out, weight, steps[last])
    label2, req2 = steps[last][1:3]

    def rec(i: int, w: float) -> None:
        nonlocal left_steps
        left_steps -= 1
        if left_steps < 0:
            raise TooLarge("options")
        c, label, req, pile_room, iv_room, j, lo, hi, needs = steps[i]
        left = avail[j] - pile_sum[j]
        spare = left - _short(needs, iv_sum) if needs else left
        if spare < hi:
            hi = spare
        if left - pile_room > lo:
            lo = left - pile_room
        if req >= 0:
            have = iv_sum.get(label, 0)
            if req - have < hi:
                hi = req - have
            if req - have - iv_room > lo:
                lo = req - have - iv_room
        if i == last - 1:
            left_steps = _last_two(walk, c, req2 >= 0 and label == label2, j, lo, hi, w, left_steps)
            return
        for v in range(lo, hi + 1):
            x[c] = v
            pile_sum[j] += v
            if req >= 0:
                iv_sum[label] = have + v
            rec(i + 1, w * weight[v])
            pile_sum[j] -= v
        if req >= 0:
            iv_sum[label] = have
        x[c] = 0

    rec(0, 1.0)
    return out, left_steps


def _last_two(
    walk: tuple, c: int, same_iv: bool, j: int, lo: int, hi: int, w: float, left_steps: int
) -> int:
    """The plain walk's last two steps: class ``c`` takes each value in ``lo..hi``, the last
    class every value its bounds then allow, each choice into ``out`` (``walk``: the walk's
    lists and the last step). Returns the steps still allowed."""
    (
        avail,
        pile_sum,
        iv_sum,
        x,
        out,
        weight,
        (c2, label2, req2, pile_room, iv_room, j2, lo2, hi2, _),
    ) = walk
    have = iv_sum.get(label2, 0)
    same_pile = j == j2
    for v in range(lo, hi + 1):
        left_steps -= 1  # the last step's node
        if left_steps < 0:
            raise TooLarge("options")
        left = avail[j2] - pile_sum[j2] - (v if same_pile else 0)
        top = hi2 if hi2 < left else left
        low = lo2 if lo2 > left - pile_room else left - pile_room
        if req2 >= 0:
            need = req2 - have - (v if same_iv else 0)
            if need < top:
                top = need
            if need - iv_room > low:
                low = need - iv_room
        if top >= low:
            left_steps -= top - low + 1
            if left_steps < 0:
                raise TooLarge("options")
            x[c] = v
            wv = w * weight[v]
            for v2 in range(low, top + 1):
                x[c2] = v2
                out.append((tuple(x), wv * weight[v2]))
            x[c2] = 0
    x[c] = 0
    return left_steps


def _enumerate_all(
    steps: list[tuple],
    avail: list[int],
    weight: list[float],
    npiles: int,
    allowed: int,
    feed: tuple,
) -> tuple[list[tuple], int]:
    """``_enumerate`` with fed piles or ``NEEDS`` (each step a call)."""
    feed_to, fed = feed
    n = len(steps)
    feed_to = feed_to or [len(avail)] * n  # (one more pile, a sink: no pile fed)
    avail = [*avail, 0]
    last = n - 1
    x = [0] * n
    iv_sum: dict[int, int] = {}
    pile_sum = [0] * npiles
    out: list[tuple] = []
    left_steps = allowed  # a local: cheaper to update than the programme's budget

    def rec(i: int, w: float) -> None:
        nonlocal left_steps
        left_steps -= 1
        if left_steps < 0:
            raise TooLarge("options")
        c, label, req, pile_room, iv_room, j, lo, hi, needs = steps[i]
        left = avail[j] - pile_sum[j]
        spare = left - _short(needs, iv_sum) if needs else left
        if spare < hi:
            hi = spare
        if left - pile_room > lo:  # (never without pile conditions: see _bounds)
            lo = left - pile_room
        if req >= 0:
            have = iv_sum.get(label, 0)
            if req - have < hi:
                hi = req - have
            if req - have - iv_room > lo:
                lo = req - have - iv_room
        to = feed_to[i]
        if i == last:  # the leaves inline (each still counts as a step)
            if hi >= lo:
                left_steps -= hi - lo + 1
                if left_steps < 0:
                    raise TooLarge("options")
                _leaves(out, x, (c, j, to), range(lo, hi + 1), w, weight, fed, avail, pile_sum)
                x[c] = 0
            return
        for v in range(lo, hi + 1):
            x[c] = v
            pile_sum[j] += v
            avail[to] += v
            if req >= 0:
                iv_sum[label] = have + v
            rec(i + 1, w * weight[v])
            avail[to] -= v
            pile_sum[j] -= v
        if req >= 0:
            iv_sum[label] = have
        x[c] = 0

    rec(0, 1.0)
    return out, left_steps


class TooLarge(Exception):
    """A programme would exceed its limits (or a log is of a kind not counted)."""

    done = 0.0  # (the share of its walk a programme got through: ``Programme.progress``)


class Programme:
    """Counts and samples the fillings of boxes.

    ``box_size``, ``box_pile``: per box its room and pile; ``box_label[b][s]``: the closed interval
    (index into ``req``) constraining species ``s`` in box ``b``, or a negative number when only
    its pile does; ``avail[j][s]``: pile ``j``'s content of species ``s`` (``None``: no pile
    conditions); ``tilt[s]``: a weight per card of species ``s`` (``None``: 1).
    """

    def __init__(
        self,
        box_size: list[int],
        box_pile: list[int],
        box_label: list[tuple[int, ...]],
        req: list[int],
        avail: list[list[int]] | None,
        tilt: list[float] | None = None,
        feeds: dict[int, tuple[list[int], list[set[int]]]] | None = None,
    ) -> None:
        self.box_size, self.box_pile, self.box_label = box_size, box_pile, box_label
        self.iv_req = req
        self.avail = avail
        #: Per pile fed by thrown-away hands: the cards known to leave it, and per species the
        #: labels (intervals) whose classes' cards it holds (its ``avail`` row: the rest).
        self.feeds = feeds or {}
        npiles = max(box_pile, default=0) + 1
        self.npiles = npiles if avail is None else len(avail)
        # A class of merged boxes holds up to all of them, and never more of a species than
        # the game has (a long face-down game's piles, each reshuffled, add up past that).
        top = min(sum(box_size), len(_INV_FACT) - 1) + 1
        tilt = tilt or [1.0] * NUM_SPECIES
        #: Per species, the weight of ``v`` cards of it in one class: ``tilt**v / v!``.
        self.weights = [[t**v * _INV_FACT[v] for v in range(top)] for t in tilt]
        self.tables: list[dict] | None = None
        self.levels = None  # (counted by build_levels instead)
        self._levels_done: tuple | None = None  # (what a try of build_levels counted whole)
        self._partial: list[dict] | None = None  # the tables so far, kept for another build
        #: How far a build that exceeded its limits got: the share of the first state's choices
        #: counted, the one it stopped in counted as the share of its own that it got through,
        #: and so on down (a walk of a tree's usual progress estimate; the states met again are
        #: cheaper, so it errs low).
        self.progress = 0.0

    def build(
        self, max_states: int = MAX_STATES, max_options: int = MAX_OPTIONS, hopeless: float = 0.0
    ) -> bool:
        """Count; False when the programme would exceed its limits. ``self.total``: the count.

        After a build that exceeded its limits, ``build`` again goes on from the states it
        counted (each kept only once all its choices were counted, so it is exact), and the
        limits bound the states and steps still to count; it gives up at once where the build
        before got less than ``hopeless`` of the way (``progress``; ``HOPELESS``)."""
        if self._partial is None:
            self.order = self._order()
            self._levels()
            self._partial = [{} for _ in SPECIES]
        elif self.progress < hopeless:
            return False
        self.tables = self._partial
        self._budget = [max_states, max_options]
        caps0 = tuple(sum(self.box_size[b] for b in mem) for mem in self.classes[0])
        try:
            self.total = self._count(0, caps0)
        except TooLarge as err:
            self.tables = None
            self.progress = err.done
            return False
        self.caps0 = caps0
        return True

    def build_levels(self, max_states: int, max_options: int) -> bool:
        """Count as :meth:`build` does from scratch (the same counts and samples, a build
        fitting the same limits), every state of a level at once (:mod:`.hidden_levels`):
        several times faster where the counts are large, slower where they are small. After a
        try that did not fit, a try with larger limits goes on from the levels it counted whole
        (session 33)."""
        if self._partial is None:
            self.order = self._order()
            self._levels()
        levels = hidden_levels.Levels(self, max_states, max_options, self._levels_done)
        self.states_steps = (levels.states, levels.steps)
        self._levels_done = levels.done  # (a larger try goes on from the levels counted whole)
        if levels.total is None:
            return False
        self.levels, self.total = levels, levels.total
        return True

    def _order(self) -> list[int]:
        """The species in counting order. Greedy: next, the species whose leaving merges the
        most classes (fewest classes at the level after it; ties: the one that tells the most
        boxes apart, then the lowest). Fewer classes make fewer states and choices."""
        labels = self.box_label
        distinct = [len({lab[s] for lab in labels}) for s in SPECIES]
        if not GREEDY_ORDER:  # the species that tell the most boxes apart first
            return sorted(SPECIES, key=lambda s: -distinct[s])
        rows = {(j, *lab) for j, lab in zip(self.box_pile, labels)}
        rest = list(SPECIES)
        order = []
        while rest:
            best = min(
                rest, key=lambda s: (len({r[: s + 1] + r[s + 2 :] for r in rows}), -distinct[s], s)
            )
            order.append(best)
            rest.remove(best)
            rows = {r[: best + 1] + (0,) + r[best + 2 :] for r in rows}
        return order

    def _levels(self) -> None:
        """Per level (one species of ``order`` each): the classes of boxes that no species still
        to come tells apart (they are merged), and how to enumerate that species' choices."""
        self.classes: list[list[list[int]]] = []
        self.merge: list[list[int]] = []  # level k's class -> its class at level k + 1
        for k in range(NUM_SPECIES):
            rest = self.order[k:]
            keys: dict[tuple, int] = {}
            members: list[list[int]] = []
            for b, lab in enumerate(self.box_label):
                key = (self.box_pile[b], *(lab[s] for s in rest))
                c = keys.setdefault(key, len(members))
                if c == len(members):
                    members.append([])
                members[c].append(b)
            self.classes.append(members)
        for k in range(NUM_SPECIES - 1):
            where = {b: c for c, mem in enumerate(self.classes[k + 1]) for b in mem}
            self.merge.append([where[mem[0]] for mem in self.classes[k]])
        self.walks = [self._walk(k) for k in range(NUM_SPECIES)]

    def _walk(self, k: int) -> list[tuple]:
        """Level ``k``'s classes in enumeration order (by pile, then label), each with its
        label, its interval's requirement (-1: none) and its pile."""
        s = self.order[k]
        members = self.classes[k]
        label = [self.box_label[mem[0]][s] for mem in members]
        pile = [self.box_pile[mem[0]] for mem in members]
        req = [self.iv_req[lab] if lab >= 0 else -1 for lab in label]
        seq = sorted(range(len(members)), key=lambda c: (pile[c], label[c]))
        return [(c, label[c], req[c], pile[c]) for c in seq]

    def _options(self, k: int, caps: tuple[int, ...], forced: bool) -> list[tuple]:
        """Every choice of species ``order[k]`` (a count per class, at most ``caps``, equal when
        ``forced``) meeting its conditions (closed intervals and pile contents), weighted by
        ``prod 1/x!``. Piles without any box are empty by construction (their content was seen
        to leave them)."""
        n = len(self.walks[k])
        s = self.order[k]
        free = self.avail is None
        avail = [1 << 30] * self.npiles if free else [row[s] for row in self.avail]
        feed: tuple = (None, ())
        top = avail
        if self.feeds:  # the fed piles' content grows with their feeding classes' choice
            to = {lab: j for j, (_, labels) in self.feeds.items() for lab in labels[s]}
            feed_to = [to.get(label, -1) for _, label, _, _ in self.walks[k]]
            top = avail[:]  # (the bounds take the most each fed pile may hold)
            for (c, _, _, _), j in zip(self.walks[k], feed_to):
                if j >= 0:
                    top[j] += caps[c]
            fed = tuple((j, known[s], avail[j]) for j, (known, _) in self.feeds.items())
            feed = (feed_to, fed)
        steps = self._bounds(k, caps, forced, top)
        if not n:  # nothing to choose: one empty choice, one step
            self._budget[1] -= 1
            if self._budget[1] < 0:
                raise TooLarge("options")
            return [((), 1.0)] if _fed_factor(feed[1], avail, [0] * self.npiles) else []
        out, self._budget[1] = _enumerate(
            steps, avail, self.weights[s], self.npiles, self._budget[1], feed
        )
        return out

    def _bounds(self, k: int, caps: tuple[int, ...], forced: bool, avail: list[int]) -> list[tuple]:
        """Per step of level ``k``'s walk: its bounds that do not depend on the choices before
        it (what the later classes of its pile and of its interval can take is fixed for one
        call). A later class takes from its pile at most its room, the later classes of one
        closed interval at most its requirement in all, and from one pile at most what it
        holds (tighter bounds than the rooms alone: they spare dead ends, never a choice that
        can be completed). One pass from the last step back, adding each class to the sums.
        With ``NEEDS``, each step also lists the later intervals of its pile (other than its
        own) with their requirement and what their classes in later piles can take: what they
        still lack beyond that must come from this pile, so this class cannot take it (the walk
        goes pile by pile, so their classes in other piles come later or were chosen)."""
        free = self.avail is None
        tight = TIGHT_BOUNDS
        iv_req = self.iv_req
        pile_total: dict[int, int] = {}  # pile -> what its later classes can take
        pile_label: dict[tuple[int, int], int] = {}  # (pile, interval) -> their rooms
        iv_total: dict[int, int] = {}  # interval -> what its later classes can take
        iv_pile: dict[tuple[int, int], int] = {}  # (interval, pile) -> their rooms
        walk = self.walks[k]
        steps: list[tuple] = [()] * len(walk)
        here: dict[int, int] = {}  # interval -> rooms of its later classes in this pile
        elsewhere: dict[int, int] = {}  # interval -> what its classes in later piles can take
        at = -1
        for i in range(len(walk) - 1, -1, -1):
            c, label, req, j = walk[i]
            room = caps[c]
            if j != at:  # the walk goes by pile: the later piles are done
                for iv, r in here.items():
                    elsewhere[iv] = elsewhere.get(iv, 0) + (r if free else min(r, avail[at]))
                here = {}
                at = j
            # Without pile conditions nothing must be left in a pile: a room no pile reaches.
            pile_room = 1 << 31 if free else pile_total.get(j, 0)
            iv_room = iv_total.get(label, 0) if req >= 0 else 0
            needs = ()
            if NEEDS and here:
                needs = tuple((v, iv_req[v], elsewhere.get(v, 0)) for v in here if v != label)
            lo = room if forced else 0
            steps[i] = (c, label, req, pile_room, iv_room, j, lo, room, needs)
            if req >= 0:
                here[label] = here.get(label, 0) + room
            if tight and req >= 0:
                old = pile_label.get((j, label), 0)
                pile_label[(j, label)] = old + room
                grown = min(old + room, iv_req[label]) - min(old, iv_req[label])
                pile_total[j] = pile_total.get(j, 0) + grown
            else:
                pile_total[j] = pile_total.get(j, 0) + room
            if req >= 0:
                if tight and not free:
                    old = iv_pile.get((label, j), 0)
                    iv_pile[(label, j)] = old + room
                    room = min(old + room, avail[j]) - min(old, avail[j])
                iv_total[label] = iv_total.get(label, 0) + room
        return steps

    def _count(self, k: int, caps: tuple[int, ...]) -> float:
        """The weight of every way to fill the classes of level ``k`` (room ``caps``) with the
        species ``order[k:]``; the choices of species ``order[k]`` are kept for sampling."""
        table = self.tables[k]
        got = table.get(caps)
        if got is not None:
            return got[0]
        self._budget[0] -= 1
        if self._budget[0] < 0:
            raise TooLarge("states")
        last = k == NUM_SPECIES - 1
        opts = self._options(k, caps, forced=last)
        kept, weights = [], []
        for x, w in opts:
            if not last:
                try:
                    w *= self._merged(k, caps, x)
                except TooLarge as err:  # (how far this state got: ``progress``)
                    err.done = (opts.index((x, w)) + err.done) / len(opts)
                    raise
            if w > 0.0:
                kept.append(x)
                weights.append(w)
        cum = list(accumulate(weights))
        total = cum[-1] if cum else 0.0
        table[caps] = (total, kept, cum)
        return total

    def _merged(self, k: int, caps: tuple[int, ...], x: tuple[int, ...]) -> float:
        """The count of level ``k + 1`` after choosing ``x``: classes that no species still to
        come tells apart merge, and the ways to split a merged class's cards among its parts
        (a multinomial coefficient) multiply in."""
        merge = self.merge[k]
        size = len(self.classes[k + 1])
        room = [0] * size
        factor = 1.0
        for c, to in enumerate(merge):
            d = caps[c] - x[c]
            room[to] += d
            factor *= _INV_FACT[d]
        for r in room:
            factor *= _FACT[r]
        return factor * self._count(k + 1, tuple(room))

    # -- sampling -------------------------------------------------------------------------------

    def sample_counts(self, rng: np.random.Generator) -> list[list[int]]:
        """Per box, its cards per species, drawn from the counts (``build`` must have
        succeeded). A class's cards of a species are split
        among its boxes uniformly (multivariate hypergeometric on their room)."""
        room = list(self.box_size)
        x = [[0] * NUM_SPECIES for _ in room]
        levels = self.levels
        caps = self.caps0 if levels is None else 0  # (a level's state: its index there)
        u = rng.random(NUM_SPECIES)
        for k, s in enumerate(self.order):
            if levels is None:
                total, kept, cum = self.tables[k][caps]
                choice = kept[min(bisect_right(cum, u[k] * total), len(kept) - 1)]
            else:
                choice, caps = levels.choose(k, caps, u[k])
            for c, mem in enumerate(self.classes[k]):
                v = choice[c]
                if len(mem) == 1:
                    parts = [v]
                elif v == 0:
                    parts = [0] * len(mem)
                else:
                    parts = draw_counts([room[b] for b in mem], v, rng)
                for b, a in zip(mem, parts):
                    x[b][s] = a
                    room[b] -= a
            if k < NUM_SPECIES - 1 and levels is None:
                caps = tuple(sum(room[b] for b in mem) for mem in self.classes[k + 1])
        return x
