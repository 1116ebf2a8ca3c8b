"""Exact resampling of what one Cubirds seat has not seen (issue 16): a draw from the posterior,
not a replay steered by local checks.

**What "exact" means here.** Every shuffle of the game (the pack at setup, every reshuffle of the
discard pile) is a uniformly random order of distinct cards, so every card-level history of the
game is equally likely. A seat's information is its log view (the public events, its own unseen
draws and its own thrown-away cards; see :mod:`cardzoo.envs.cubirds.hidden`). The exact
distribution is the uniform one over card-level histories that agree with that view: what one
gets by dealing fresh games again and again and keeping those in which the seat saw exactly
what it saw. (The policies of the players are not modelled: a move says nothing about a hand
beyond what the rules make public. Neither is the timing signal of ``flock_step="auto"``.)

**Why species counts suffice.** Call a *segment* a run of one other seat's unseen draws from one
pile with none of its lays or flocks in between, and ``x[g][s]`` the cards of species ``s`` it
drew. Every lay and flock and every pile's content are linear conditions on ``x`` of one species
each (a lay of ``s`` by seat ``q`` fixes the sum of ``x[.][s]`` over ``q``'s segments since its
previous lay of ``s``; a pile drawn to its end fixes the sum of its segments' ``x[.][s]``). The
number of card-level histories with given ``x`` is, up to a constant,

    prod over segments g and species s of 1 / x[g][s]!
    * prod over reshuffled piles j of prod_s C[j][s]!   (C: the pile's content, which depends
                                                         on ``x`` only with face-down discards)
    * prod_s 1 / r[s]!                                 (r: what is left of the current pile)

a product of one factor per species, and the species are tied only by every segment's size.
:class:`ExactModel` therefore counts the worlds species by species (a dynamic programme whose
state is the room left in every segment), samples ``x`` from those counts, splits each segment
into its draws uniformly (multivariate hypergeometric) and orders the draw pile uniformly.

Boxes (segments, and the rest of the draw pile) that no species still to be counted tells
apart are merged (a multinomial coefficient counts the ways to split them again), which keeps the
programme small. Only public round-end discards are handled: face-down ones feed hidden cards
into later piles (the model raises :class:`TooLarge`). :meth:`ExactModel.build` also gives up
(returns False) beyond ``MAX_STATES`` states or ``MAX_OPTIONS`` enumeration steps; the caller,
:func:`cardzoo.envs.cubirds.hidden.sample_hidden` (with ``hidden.EXACT`` on), then uses the older,
inexact replay. A position's model is built once and kept with its replay plan
(:func:`cardzoo.envs.cubirds.hidden.plan_for`), so repeated calls there only sample.

Measured (CPU time, 2 cores shared with training runs; positions every 5 decisions of 6 seeded
random games, public discards, the seat in turn): the model fits at 89 % of the positions at 2
players, 84 % at 3, 56 % at 4, 40 % at 5. A first call at a position (building the model, or
failing to and replaying) costs 3.1 / 3.6 / 6.8 / 8.5 ms on average at 2 / 3 / 4 / 5 players
(up to 66 ms), against 0.24 / 0.29 / 0.46 / 0.62 ms for the replay; repeated calls at the same
position cost 0.19 / 0.21 / 0.40 / 0.44 ms on average, as the replay's 0.17 / 0.18 / 0.36 / 0.47.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_CLOSE,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
    NUM_SPECIES,
)

#: Limits of the counting programme (states kept, steps of the enumeration of choices in all)
#: before giving up; they keep a model's build to a few milliseconds.
MAX_STATES = 400
MAX_OPTIONS = 6_000

SPECIES = range(NUM_SPECIES)
_FACT = [math.factorial(i) for i in range(120)]
_INV_FACT = [1.0 / f for f in _FACT]


class TooLarge(Exception):
    """The counting programme would exceed its limits."""


class ExactModel:
    """One seat's view of a log, as segments and linear conditions, and (after :meth:`build`)
    the world counts to sample from.

    Intervals: per other seat and species, the stretch between two of its lays (or flocks) of
    that species, or from its last one to now (open, ``req = -1``)."""

    def __init__(self, log: list[tuple], player: int, num_players: int) -> None:
        self.player = player
        self.num_players = num_players
        self.iv_seat: list[int] = []
        self.iv_species: list[int] = []
        self.iv_req: list[int] = []
        self.iv_segs: list[list[int]] = []
        self.seg_size: list[int] = []
        self.seg_pile: list[int] = []
        self.seg_ivs: list[tuple[int, ...]] = []
        self.seg_batches: list[list[tuple[int, int]]] = []
        #: Per pile: tag, public content, cards known to leave it (public draws and own
        #: draws), intervals thrown away face down while it was the draw pile, own such cards.
        self.piles: list[dict] = []
        self.open: list[list[int] | None] = [None] * num_players
        self._cur: list[int | None] = [None] * num_players
        for q in range(num_players):
            self._fresh(q)
        for i, ev in enumerate(log):
            self._read(i, ev)
        self.tables: list[dict] | None = None

    # -- reading the log ------------------------------------------------------------------------

    def _fresh(self, q: int) -> None:
        if q == self.player:
            return
        ivs = []
        for s in SPECIES:
            self.iv_seat.append(q)
            self.iv_species.append(s)
            self.iv_req.append(-1)
            self.iv_segs.append([])
            ivs.append(len(self.iv_req) - 1)
        self.open[q] = ivs
        self._cur[q] = None

    def _read(self, i: int, ev: tuple) -> None:
        tag = ev[0]
        if tag == EV_SOURCE or tag == EV_RESHUFFLE:
            self.piles.append(
                {
                    "tag": tag,
                    "public": ev[1],
                    "known": [0] * NUM_SPECIES,
                }
            )
            self._cur = [None] * self.num_players
        elif tag == EV_PUBLIC:
            self.piles[-1]["known"][ev[1]] += 1
        elif tag == EV_BATCH:
            self._read_batch(i, ev[1], ev[2])
        elif tag == EV_CLOSE:
            q, s = ev[1], ev[2]
            if q != self.player:
                iv = self.open[q][s]
                self.iv_req[iv] = ev[3]
                self._new_open(q, s)
                self._cur[q] = None
        elif tag == EV_ROUND_END:
            # Face-down round ends feed hidden cards into later piles: not counted here.
            raise TooLarge("face-down round-end discards")
        else:
            raise ValueError(f"unknown log event {ev!r}")

    def _new_open(self, q: int, s: int) -> None:
        self.iv_seat.append(q)
        self.iv_species.append(s)
        self.iv_req.append(-1)
        self.iv_segs.append([])
        self.open[q][s] = len(self.iv_req) - 1

    def _read_batch(self, i: int, q: int, counts: tuple) -> None:
        pile = self.piles[-1]
        if q == self.player:
            for s in SPECIES:
                pile["known"][s] += counts[s]
            return
        k = sum(counts)
        if not k:
            return
        g = self._cur[q]
        if g is None:
            g = len(self.seg_size)
            self.seg_size.append(0)
            self.seg_pile.append(len(self.piles) - 1)
            self.seg_ivs.append(tuple(self.open[q]))
            self.seg_batches.append([])
            for iv in self.open[q]:
                self.iv_segs[iv].append(g)
            self._cur[q] = g
        self.seg_size[g] += k
        self.seg_batches[g].append((i, k))

    # -- counting -------------------------------------------------------------------------------

    def _boxes(self) -> None:
        """The boxes cards are dealt into: every segment, then what is left of the current pile
        (the draw pile); per box its pile, size and per species its label (a closed interval's
        index, or ``-1 - pile`` when nothing but its pile constrains it)."""
        last = len(self.piles) - 1
        self.avail = [[p["public"][s] - p["known"][s] for s in SPECIES] for p in self.piles]
        rest = sum(self.avail[last]) - sum(
            k for k, j in zip(self.seg_size, self.seg_pile) if j == last
        )
        if rest < 0 or any(a < 0 for row in self.avail for a in row):
            raise ValueError("the log takes more cards from a pile than it holds")
        self.box_pile = [*self.seg_pile, last]
        self.box_size = [*self.seg_size, rest]
        labels = []
        for g, ivs in enumerate(self.seg_ivs):
            j = self.seg_pile[g]
            labels.append(tuple(iv if self.iv_req[iv] >= 0 else -1 - j for iv in ivs))
        labels.append(tuple(-1 - last for _ in SPECIES))
        self.box_label = labels

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
        """Level ``k``'s classes in enumeration order (by pile, then label), each with: its
        interval's requirement (-1: none), the later classes of that interval and of its pile,
        and its pile."""
        s = self.order[k]
        members = self.classes[k]
        label = [self.box_label[mem[0]][s] for mem in members]
        pile = [self.box_pile[mem[0]] for mem in members]
        seq = sorted(range(len(members)), key=lambda c: (pile[c], label[c]))
        out = []
        for i, c in enumerate(seq):
            later = seq[i + 1 :]
            req = self.iv_req[label[c]] if label[c] >= 0 else -1
            iv_later = tuple(d for d in later if label[d] == label[c]) if req >= 0 else ()
            pile_later = tuple(d for d in later if pile[d] == pile[c])
            out.append((c, label[c], req, iv_later, pile_later, pile[c]))
        return out

    def _options(self, k: int, caps: tuple[int, ...], forced: bool) -> list[tuple]:
        """Every choice of species ``order[k]`` (a count per class, at most ``caps``, equal when
        ``forced``) meeting its conditions (closed intervals and pile contents), weighted by
        ``prod 1/x!``. Piles without any box are empty by construction (their content was seen
        to leave them)."""
        walk = self.walks[k]
        n = len(walk)
        x = [0] * n
        iv_sum: dict[int, int] = {}
        pile_sum = [0] * len(self.piles)
        out: list[tuple] = []
        avail = [row[self.order[k]] for row in self.avail]

        budget = self._budget

        def rec(i: int, w: float) -> None:
            budget[1] -= 1
            if budget[1] < 0:
                raise TooLarge("options")
            if i == n:
                out.append((tuple(x), w))
                return
            c, label, req, iv_later, pile_later, j = walk[i]
            have = iv_sum.get(label, 0)
            hi = min(caps[c], avail[j] - pile_sum[j])
            lo = avail[j] - pile_sum[j] - sum(caps[d] for d in pile_later)
            if req >= 0:
                hi = min(hi, req - have)
                lo = max(lo, req - have - sum(caps[d] for d in iv_later))
            if forced:
                lo, hi = max(lo, caps[c]), min(hi, caps[c])
            for v in range(max(lo, 0), hi + 1):
                x[c] = v
                pile_sum[j] += v
                iv_sum[label] = have + v
                rec(i + 1, w * _INV_FACT[v])
                pile_sum[j] -= v
            iv_sum[label] = have
            x[c] = 0

        rec(0, 1.0)
        return out

    def build(self, max_states: int = MAX_STATES, max_options: int = MAX_OPTIONS) -> bool:
        """Count the worlds (see the module docstring); False when the programme would exceed
        its limits (the caller then uses another sampler)."""
        for iv, req in enumerate(self.iv_req):
            if req > 0 and not self.iv_segs[iv]:
                raise ValueError(f"interval {iv} needs {req} hidden cards but has no draws")
        self._boxes()
        used = set(self.box_pile)
        for j, row in enumerate(self.avail):
            if j not in used and any(row):
                raise ValueError(f"pile {j} keeps cards that nobody drew")
        # The species that tell the most boxes apart first: later levels merge more boxes.
        self.order = sorted(SPECIES, key=lambda s: -len({lab[s] for lab in self.box_label}))
        self._levels()
        self.tables = [{} for _ in SPECIES]
        self._budget = [max_states, max_options]
        caps0 = tuple(sum(self.box_size[b] for b in mem) for mem in self.classes[0])
        try:
            total = self._count(0, caps0)
        except TooLarge:
            self.tables = None
            return False
        if not total > 0.0:
            raise ValueError("no world agrees with the log")
        self.caps0 = caps0
        return True

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
                w *= self._merged(k, caps, x)
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
        """Per box (segments, then the draw pile), its cards per species in one world drawn
        from the counts (``build`` must have succeeded). A class's cards of a species are split
        among its boxes uniformly (multivariate hypergeometric on their room)."""
        room = list(self.box_size)
        x = [[0] * NUM_SPECIES for _ in room]
        caps = self.caps0
        u = rng.random(NUM_SPECIES)
        for k, s in enumerate(self.order):
            total, kept, cum = self.tables[k][caps]
            choice = kept[min(bisect_right(cum, u[k] * total), len(kept) - 1)]
            for c, mem in enumerate(self.classes[k]):
                v = choice[c]
                if len(mem) == 1:
                    parts = [v]
                elif v == 0:
                    parts = [0] * len(mem)
                else:
                    parts = rng.multivariate_hypergeometric([room[b] for b in mem], v).tolist()
                for b, a in zip(mem, parts):
                    x[b][s] = a
                    room[b] -= a
            if k < NUM_SPECIES - 1:
                caps = tuple(sum(room[b] for b in mem) for mem in self.classes[k + 1])
        return x

    def sample(self, rng: np.random.Generator) -> tuple:
        """One world, in the shape of the replay's result: ``(hidden, avail, pending,
        source_own, batches, leftovers)`` (see :mod:`cardzoo.envs.cubirds.hidden_replay`)."""
        x = self.sample_counts(rng)
        n = self.num_players
        iv_total = [0] * len(self.iv_req)
        batches: dict[int, tuple[int, ...]] = {}
        for g, ivs in enumerate(self.seg_ivs):
            counts = x[g]
            for s in SPECIES:
                iv_total[ivs[s]] += counts[s]
            left = counts[:]
            for i, k in self.seg_batches[g]:
                if k == sum(left):
                    part = left
                else:
                    part = rng.multivariate_hypergeometric(left, k).tolist()
                batches[i] = tuple(part)
                left = [a - b for a, b in zip(left, part)]
        hidden = [
            None if q == self.player else [iv_total[iv] for iv in self.open[q]] for q in range(n)
        ]
        nothing = [[0] * NUM_SPECIES for _ in range(n)]
        return hidden, x[-1], nothing, [r[:] for r in nothing], batches, {}
