"""The replay plan behind Cubirds' ``determinize``: one player's view of the hidden-card log,
prepared once (:class:`_Plan`) and sampled by the stages that
:func:`cardzoo.envs.cubirds.hidden.sample_hidden` tries in turn: the fast replay
(:class:`_FastReplay`), the exact per-pile search and the split search (their networks are built
in :mod:`cardzoo.envs.cubirds.flow`). The module docstring of :mod:`cardzoo.envs.cubirds.hidden`
describes the log and the stages.

Every stage returns the same tuple: ``(hidden, avail, pending, source_own, batches,
leftovers)``: per other seat its sampled hidden cards, the draw pile's composition, per seat its
own cards thrown away face down since the current pile was formed and its own cards in that
pile's source, and the sampled batches and leftovers by log index.
"""

from __future__ import annotations

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
from cardzoo.envs.cubirds.flow import CompleteSearch, SplitSearch, solve_pile

#: Fast replays tried before the exact search (most succeed at the first try).
FAST_ATTEMPTS = 100
#: Exact search: solutions tried per pile before going back, and flows solved in all.
EXACT_TRIES = 6
EXACT_BUDGET = 600
#: Split search: choices tried per search, and searches (each in a new random order).
SPLIT_BUDGET = 600
SPLIT_TRIES = 3
#: Complete search: choices tried by a run of unit length (at least twice the choices).
COMPLETE_BUDGET = 60
#: Complete search: the orders of the choices its runs take in turn (True: every split before
#: any feed; False: pile by pile, mixed). Each order dead-ends far less than the other at some
#: positions; taking turns costs at most about twice the better one (session 24; before: False
#: alone; docs/cubirds_determinize.md).
COMPLETE_ORDERS = (True, False)

SPECIES = range(NUM_SPECIES)


class _Plan:
    """The replay of one log for one player, prepared once and sampled many times.

    Each other seat's hidden draws are numbered in order (its *positions*). An *interval* is the
    stretch of one seat's positions, for one species, between two lays (or flocks) of that
    species; ``req`` is the number of that species the lay ending it revealed (``-1``: still open,
    or ended by a face-down round end: no requirement), ``end`` the position where it ended.
    """

    def __init__(self, log: list[tuple], player: int, num_players: int) -> None:
        self.player = player
        self.num_players = num_players
        self.req: list[int] = []
        self.end: list[int] = []
        self.species_of: list[int] = []
        #: Per interval: its positions in each pile (numbered in log order), as {pile: count}.
        self.by_pile: list[dict[int, int]] = []
        #: Per pile: the batch steps drawn from it.
        self.pile_batches: list[list[tuple]] = []
        #: Per pile: the intervals of the hands thrown away face down while it was the draw pile
        #: (they feed the next pile), and ``player``'s own cards among them.
        self.fed: list[list[int]] = []
        self.fed_known: list[list[int]] = []
        #: Per pile: (event tag, public counts, cards known to leave it).
        self.pile_source: list[tuple] = []
        #: Per seat: its intervals with a requirement, as (end position, interval), by end.
        self.closes: list[list[tuple[int, int]]] = [[] for _ in range(num_players)]
        #: The replay's steps, in log order (see the ``_read_*`` methods for their shapes).
        self.steps: list[tuple] = []
        self.positions = 0
        #: Per other seat: its interval of each species still open (while reading: the current).
        self.open: list[list[int] | None] = self._fresh_hands()
        self.last_pile = -1  # while reading: the current pile
        # While reading: each seat's positions so far, and the cards known to leave the pile.
        self._pos = [0] * num_players
        self._reserved = [0] * NUM_SPECIES
        for i, ev in enumerate(log):
            self._read(i, ev)
        #: Per pile: the slice of ``steps`` from its source to the next pile's source.
        starts = [j for j, st in enumerate(self.steps) if st[0] in (EV_SOURCE, EV_RESHUFFLE)]
        self.segments = list(zip(starts, [*starts[1:], len(self.steps)]))
        self._index_piles()
        #: The networks of the piles' flows, made once (``flow.pile_flow``).
        self.flows: dict[tuple, object] = {}
        #: Per seat: the cards its lays owe in all (what a fast replay starts from), and its
        #: lays grouped by end, as (end, intervals ending there), in order (``_FastReplay._hall``).
        self.owed = [sum(self.req[iv] for _, iv in mine) for mine in self.closes]
        self.windows: list[list[tuple[int, tuple[int, ...]]]] = []
        for mine in self.closes:
            ends = sorted({end for end, _ in mine})
            self.windows.append([(e, tuple(iv for end, iv in mine if end == e)) for e in ends])

    def _new_interval(self, species: int) -> int:
        self.req.append(-1)
        self.end.append(-1)
        self.species_of.append(species)
        self.by_pile.append({})
        return len(self.req) - 1

    def _new_intervals(self) -> list[int]:
        return [self._new_interval(s) for s in SPECIES]

    def _fresh_hands(self) -> list[list[int] | None]:
        """A new open interval of every species for every other seat (a new hand)."""
        return [
            None if q == self.player else self._new_intervals() for q in range(self.num_players)
        ]

    # -- reading the log ------------------------------------------------------------------------

    def _read(self, i: int, ev: tuple) -> None:
        tag = ev[0]
        if tag == EV_BATCH:
            self._read_batch(i, ev)
        elif tag == EV_PUBLIC:
            self._reserved[ev[1]] += 1
        elif tag == EV_CLOSE:
            self._read_close(ev)
        elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
            self._read_source(tag, ev)
        elif tag == EV_ROUND_END:
            self._read_round_end(i, ev)
        else:
            raise ValueError(f"unknown log event {ev!r}")

    def _read_batch(self, i: int, ev: tuple) -> None:
        """Step ``(EV_BATCH, i, seat, size, intervals)``; ``player``'s own draws are known."""
        q, counts = ev[1], ev[2]
        cur = self.open[q]
        if q == self.player:  # cards known to leave the pile
            reserved = self._reserved
            for s in SPECIES:
                reserved[s] += counts[s]
            return
        k = sum(counts)
        self._pos[q] += k
        self.positions += k
        seg = self.last_pile
        for iv in cur:
            by_pile = self.by_pile[iv]
            by_pile[seg] = by_pile.get(seg, 0) + k
        self.steps.append((EV_BATCH, i, q, k, tuple(cur)))
        self.pile_batches[seg].append(self.steps[-1])

    def _read_close(self, ev: tuple) -> None:
        """Step ``(EV_CLOSE, interval)``: the lay that ends the interval."""
        q, s, hidden = ev[1], ev[2], ev[3]
        if q == self.player:
            return
        iv = self.open[q][s]
        self.req[iv] = hidden
        self.end[iv] = self._pos[q]
        self.closes[q].append((self._pos[q], iv))
        self.open[q][s] = self._new_interval(s)
        self.steps.append((EV_CLOSE, iv))

    def _read_source(self, tag: int, ev: tuple) -> None:
        """Step ``(tag, public counts, cards known to leave it, pile)``: a new draw pile."""
        reserved = [0] * NUM_SPECIES
        self._reserved = reserved
        self.last_pile += 1
        self.steps.append((tag, ev[1], reserved, self.last_pile))
        self.pile_batches.append([])
        self.fed.append([])
        self.fed_known.append([0] * NUM_SPECIES)
        self.pile_source.append((tag, ev[1], reserved))

    def _read_round_end(self, i: int, ev: tuple) -> None:
        """Step ``(EV_ROUND_END, i, the hands' intervals, player's own leftovers)``."""
        ended = tuple(self.open)
        own = ev[1][self.player]
        self.steps.append((EV_ROUND_END, i, ended, own))
        # These hands go to the discard pile, so into the next pile if one is formed.
        seg = self.last_pile
        for q in range(self.num_players):
            if q == self.player:
                for s in SPECIES:
                    self.fed_known[seg][s] += own[s]
            else:
                self.fed[seg].extend(ended[q])
        self.open = self._fresh_hands()

    def _index_piles(self) -> None:
        """Per pile: the intervals with a requirement that draw from it, and for each how many of
        its positions come from later piles (``pile_demands``); every interval with positions in
        it, as (interval, positions) (``pile_intervals``)."""
        piles = self.last_pile + 1
        self.pile_demands: list[list[tuple[int, int, int]]] = [[] for _ in range(piles)]
        self.pile_intervals: list[list[tuple[int, int]]] = [[] for _ in range(piles)]
        for iv, by_pile in enumerate(self.by_pile):
            for g, k in by_pile.items():
                self.pile_intervals[g].append((iv, k))
                if self.req[iv] >= 0:
                    later = sum(c for h, c in by_pile.items() if h > g)
                    self.pile_demands[g].append((iv, later, self.species_of[iv]))

    # -- what every stage shares ----------------------------------------------------------------

    def hidden_of(self, assigned: list[int]) -> list[list[int] | None]:
        """Per seat, the cards of its open intervals (``None`` for ``player``)."""
        return [
            None if q == self.player else [assigned[self.open[q][s]] for s in SPECIES]
            for q in range(self.num_players)
        ]

    def open_pile(self, step: tuple, pending: list[list[int]]) -> tuple[list[int], list[list[int]]]:
        """At a source or reshuffle step: what is left to draw of the new pile (its cards less
        those known to leave it) and each seat's own hidden cards in it (``pending``: the cards
        each seat threw away face down since the last pile; they form this one on a reshuffle).
        """
        src = list(step[1])
        if step[0] == EV_RESHUFFLE:
            for q in range(self.num_players):
                for s in SPECIES:
                    src[s] += pending[q][s]
            source_own = pending
        else:
            source_own = [[0] * NUM_SPECIES for _ in range(self.num_players)]
        reserved = step[2]
        return [src[s] - reserved[s] for s in SPECIES], source_own

    def round_end(
        self, step: tuple, assigned: list[int], pending: list[list[int]]
    ) -> tuple[tuple[int, ...], ...]:
        """At a face-down round end: each seat's thrown-away hidden cards (added to
        ``pending``)."""
        _, _, ended, own = step
        left_all = []
        for q in range(self.num_players):
            if q == self.player:
                left = list(own)
            else:
                left = [assigned[ended[q][s]] for s in SPECIES]
            for s in SPECIES:
                pending[q][s] += left[s]
            left_all.append(tuple(left))
        return tuple(left_all)

    # -- stage 1: the fast replay ---------------------------------------------------------------

    def sample(self, rng: np.random.Generator) -> tuple | None:
        """One fast replay, card by card with local checks (:class:`_FastReplay`), or None at a
        dead end."""
        return _FastReplay(self, rng).run()

    # -- stage 2: the exact per-pile search -----------------------------------------------------

    def sample_exact(self, rng: np.random.Generator, budget: int = EXACT_BUDGET) -> tuple | None:
        """A replay that solves each pile at once as a flow (:func:`.flow.solve_pile`), searching
        depth first over piles: a pile whose solution leaves the next piles no way out is solved
        again (up to ``EXACT_TRIES`` times) before going back one pile further. Returns what
        :meth:`sample` returns, or None when ``budget`` flows were spent without success."""
        n = self.num_players
        start = {
            "assigned": [0] * len(self.req),
            "pending": [[0] * NUM_SPECIES for _ in range(n)],
            "source_own": [[0] * NUM_SPECIES for _ in range(n)],
            "avail": [0] * NUM_SPECIES,
            "batches": {},
            "leftovers": {},
        }
        self._budget = budget
        end = self._search(0, start, rng)
        if end is None:
            return None
        return (
            self.hidden_of(end["assigned"]),
            end["avail"],
            end["pending"],
            end["source_own"],
            end["batches"],
            end["leftovers"],
        )

    def _search(self, g: int, state: dict, rng: np.random.Generator) -> dict | None:
        for _ in range(EXACT_TRIES):
            if self._budget <= 0:
                return None
            self._budget -= 1
            new = {
                "assigned": state["assigned"][:],
                "pending": [p[:] for p in state["pending"]],
                "source_own": state["source_own"],
                "avail": state["avail"][:],
                "batches": dict(state["batches"]),
                "leftovers": dict(state["leftovers"]),
            }
            if not self._run_pile(g, new, rng):
                continue
            if g == self.last_pile:
                return new
            found = self._search(g + 1, new, rng)
            if found is not None:
                return found
        return None

    def _run_pile(self, g: int, st: dict, rng: np.random.Generator) -> bool:
        """Replay the steps of pile ``g`` with its batches solved as one flow."""
        req = self.req
        assigned, avail = st["assigned"], st["avail"]
        first, stop = self.segments[g]
        solved: dict[int, tuple[int, ...]] = {}
        for step in self.steps[first:stop]:
            tag = step[0]
            if tag == EV_BATCH:
                counts = solved[step[1]]
                ivs = step[4]
                for s in SPECIES:
                    c = counts[s]
                    if c:
                        avail[s] -= c
                        assigned[ivs[s]] += c
                st["batches"][step[1]] = counts
            elif tag == EV_CLOSE:
                if assigned[step[1]] != req[step[1]]:
                    return False
            elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
                avail, st["source_own"] = self.open_pile(step, st["pending"])
                st["avail"] = avail
                st["pending"] = [[0] * NUM_SPECIES for _ in range(self.num_players)]
                if min(avail) < 0:
                    return False
                result = solve_pile(self, g, avail, assigned, rng)
                if result is None:
                    return False
                solved = result
            else:  # EV_ROUND_END
                st["leftovers"][step[1]] = self.round_end(step, assigned, st["pending"])
        return True

    # -- stage 3: the split search --------------------------------------------------------------

    def sample_split(self, rng: np.random.Generator, budget: int = SPLIT_BUDGET) -> tuple | None:
        """Exact search for public round-end discards: a lay whose interval spans a reshuffle
        got some of its cards from each pile; fixing those *splits* makes every pile an
        independent flow problem. Depth-first over the splits (:class:`.flow.SplitSearch`), each
        choice checked by every pile's flow with the splits left open as ranges; a complete
        choice is then sampled pile by pile. Returns what :meth:`sample` returns, or None
        (budget spent, or face-down discards: their leftovers couple piles in a way this search
        does not cover)."""
        if any(step[0] == EV_ROUND_END for step in self.steps):
            return None
        avails = []
        for _, public, reserved in self.pile_source:
            avails.append([public[s] - reserved[s] for s in SPECIES])
        if any(min(a) < 0 for a in avails):
            return None
        search = SplitSearch(self, avails, rng, budget)
        if not search.feasible():
            return None
        solved = search.search(0)
        if solved is None:
            return None
        return self._replay(solved)

    # -- stage 4: the complete search ----------------------------------------------------------

    def sample_complete(self, rng: np.random.Generator) -> tuple | None:
        """The split search widened to face-down round ends (:class:`.flow.CompleteSearch`),
        restarted in a new random order until it either finds a world or has tried every choice:
        then no world is consistent with the log and this returns None. A run that goes astray
        early can search long below a dead end, so the runs are short: their budgets follow the
        Luby sequence (1, 1, 2, 1, 1, 2, 4, ... times a unit), which grows without end, so the
        search stays complete. The runs take the orders of ``COMPLETE_ORDERS`` in turn, each
        order its own Luby sequence."""
        avails = []
        for g, (tag, public, reserved) in enumerate(self.pile_source):
            own = self.fed_known[g - 1] if tag == EV_RESHUFFLE else [0] * NUM_SPECIES
            avails.append([public[s] + own[s] - reserved[s] for s in SPECIES])
        run = 1
        while True:
            for splits_first in COMPLETE_ORDERS:  # each order in turn, with the same budget
                search = CompleteSearch(self, avails, rng, 0, splits_first)
                search.budget = _luby(run) * max(COMPLETE_BUDGET, 2 * len(search.choices))
                solved = search.search(0) if search.feasible() else None
                if solved is not None:
                    return self._replay(solved)
                if not search.cut:
                    return None
            run += 1

    def _replay(self, solved: dict[int, tuple[int, ...]]) -> tuple | None:
        """The result of a replay whose every batch is given (``solved``: log index -> cards)."""
        req, n = self.req, self.num_players
        assigned = [0] * len(req)
        avail = [0] * NUM_SPECIES
        pending = [[0] * NUM_SPECIES for _ in range(n)]
        source_own = [[0] * NUM_SPECIES for _ in range(n)]
        leftovers: dict[int, tuple] = {}
        for step in self.steps:
            tag = step[0]
            if tag == EV_BATCH:
                _, i, q, k, ivs = step
                for s in SPECIES:
                    avail[s] -= solved[i][s]
                    assigned[ivs[s]] += solved[i][s]
            elif tag == EV_CLOSE:
                if assigned[step[1]] != req[step[1]]:
                    return None
            elif tag in (EV_SOURCE, EV_RESHUFFLE):
                avail, source_own = self.open_pile(step, pending)
                pending = [[0] * NUM_SPECIES for _ in range(n)]
            else:  # EV_ROUND_END
                leftovers[step[1]] = self.round_end(step, assigned, pending)
            if min(avail) < 0:
                return None
        return self.hidden_of(assigned), avail, pending, source_own, dict(solved), leftovers


def _luby(i: int) -> int:
    """The ``i``-th term (from 1) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:  # not the end of a block: the same as in the block before
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


def _room(req: int, assigned: int, left: int) -> int:
    """Cards of its species an interval can still take from the current pile."""
    return left if req < 0 else min(left, req - assigned)


class _FastReplay:
    """One fast replay of a :class:`_Plan` (stage 1): the hidden draws in log order, card by
    card, each drawn from what is left of its pile in proportion to the counts, restricted by
    local checks so that every lay count can still be met (see :meth:`_hall`, :meth:`_weigh`,
    :meth:`_force`). One uniform number is drawn per position, all up front."""

    __slots__ = (
        "plan",
        "req",
        "assigned",
        "pos",
        "first",
        "owed",
        "uniforms",
        "avail",
        "pending",
        "source_own",
        "batches",
        "leftovers",
        "weights",
        "later",
        "minimum",
        "closed",
        "left_here",
        "room",
    )

    def __init__(self, plan: _Plan, rng: np.random.Generator) -> None:
        n = plan.num_players
        self.plan = plan
        self.req = plan.req
        self.assigned = [0] * len(plan.req)
        self.pos = [0] * n
        self.first = [0] * n  # per seat: its first window (``_Plan.windows``) not yet over
        self.owed = list(plan.owed)  # per seat: what its lays still to come owe in all
        self.uniforms = iter(rng.random(plan.positions).tolist())
        self.avail = [0] * NUM_SPECIES
        self.pending = [[0] * NUM_SPECIES for _ in range(n)]
        self.source_own = [[0] * NUM_SPECIES for _ in range(n)]
        self.batches: dict[int, tuple[int, ...]] = {}
        self.leftovers: dict[int, tuple[tuple[int, ...], ...]] = {}
        self.weights = [0] * NUM_SPECIES
        self.later: dict[int, int] = {}  # interval -> its positions in later piles
        self.minimum = [0] * NUM_SPECIES
        self.closed = False  # the current pile is drawn to its end (a reshuffle follows)
        self.left_here: dict[int, int] = {}  # interval -> its positions left in the current pile
        self.room = [0] * NUM_SPECIES

    def run(self) -> tuple | None:
        """The replay's result (see the module docstring), or None at a dead end."""
        plan = self.plan
        req, assigned = self.req, self.assigned
        for step in plan.steps:
            tag = step[0]
            if tag == EV_BATCH:
                if not self._batch(step):
                    return None
            elif tag == EV_CLOSE:
                if assigned[step[1]] != req[step[1]]:
                    return None
            elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
                if not self._open(step):
                    return None
            else:  # EV_ROUND_END
                self.leftovers[step[1]] = plan.round_end(step, assigned, self.pending)
        hidden = plan.hidden_of(assigned)
        return hidden, self.avail, self.pending, self.source_own, self.batches, self.leftovers

    def _open(self, step: tuple) -> bool:
        """A new pile: its cards, and what the lays still to come need from it at least; False
        if it cannot give that (or, drawn to its end, cannot place all its cards)."""
        plan, req, assigned = self.plan, self.req, self.assigned
        avail, self.source_own = plan.open_pile(step, self.pending)
        self.avail = avail
        self.pending = [[0] * NUM_SPECIES for _ in range(plan.num_players)]
        # What the lays still to come need from this pile at least, per species: what their
        # later positions (drawn from later piles) cannot give.
        later = {iv: after for iv, after, _ in plan.pile_demands[step[3]]}
        self._next_pile_bounds(step[3], later)
        minimum = [0] * NUM_SPECIES
        for iv, _, s in plan.pile_demands[step[3]]:
            minimum[s] += max(0, req[iv] - assigned[iv] - later[iv])
        self.later, self.minimum = later, minimum
        if any(avail[s] < minimum[s] for s in SPECIES):
            return False
        # A pile drawn to its end: per species, the places left in it that can take one.
        self.closed = step[3] < plan.last_pile
        if not self.closed:
            return True
        left_here: dict[int, int] = {}
        room = [0] * NUM_SPECIES
        for iv, k in plan.pile_intervals[step[3]]:
            left_here[iv] = k
            room[plan.species_of[iv]] += _room(req[iv], assigned[iv], k)
        self.left_here, self.room = left_here, room
        return not any(avail[s] > room[s] for s in SPECIES)

    def _next_pile_bounds(self, g: int, later: dict[int, int]) -> None:
        """A lay spanning pile ``g`` and the next gets from the next pile at most what that
        pile holds of its species beyond what the next pile's other lays need from it at
        least: ``later`` (its positions after pile ``g``) shrinks to that plus its positions
        further on. The next pile, if a reshuffle, also holds the hands thrown away face down
        meanwhile: at most what they hold now plus their positions left here. Without this, a
        replay that gives such a lay too few cards here finds out only at the next pile (most
        dead ends of replays across a reshuffle)."""
        plan, req, assigned = self.plan, self.req, self.assigned
        nxt = g + 1
        if nxt > plan.last_pile:
            return
        tag, public, reserved = plan.pile_source[nxt]
        spare = [public[s] - reserved[s] for s in SPECIES]
        if tag == EV_RESHUFFLE:
            for s in SPECIES:
                spare[s] += plan.fed_known[g][s]
            for iv in plan.fed[g]:
                spare[plan.species_of[iv]] += assigned[iv] + plan.by_pile[iv].get(g, 0)
        spanning = []
        for iv, beyond, s in plan.pile_demands[nxt]:
            if iv in later:
                spanning.append((iv, beyond, s))
            else:
                spare[s] -= max(0, req[iv] - assigned[iv] - beyond)
        for iv, beyond, s in spanning:
            later[iv] = min(later[iv], max(0, spare[s]) + beyond)

    def _batch(self, step: tuple) -> bool:
        """Draw the cards of one batch one by one; False at a dead end."""
        _, i, q, k, ivs = step
        counts = [0] * NUM_SPECIES
        req, assigned, avail = self.req, self.assigned, self.avail
        weights, later, minimum = self.weights, self.later, self.minimum
        uniforms, closed = self.uniforms, self.closed
        start = self.pos[q]
        lays, first, owed = len(self.plan.windows[q]), self.first, self.owed
        for t in range(start, start + k):
            # No lay of this seat still to come (the usual case late in a hand): no window.
            tight = self._hall(q, t) if first[q] < lays else -1
            if tight is None:
                return False
            total = self._weigh(ivs, tight)
            if closed:
                total = self._force(ivs, total)
            if total <= 0:
                return False
            x = next(uniforms) * total
            choice = -1
            for s in SPECIES:
                x -= weights[s]
                if x < 0:
                    choice = s
                    break
            if choice < 0:  # rounding at the top end: the last species with weight
                choice = max(s for s in SPECIES if weights[s])
            counts[choice] += 1
            iv = ivs[choice]
            if req[iv] >= 0:
                owed[q] -= 1  # (a lay still to come: this card serves it)
                if req[iv] - assigned[iv] > later.get(iv, 0):
                    minimum[choice] -= 1
            if closed:
                self._take_closed(choice, ivs)
            else:
                avail[choice] -= 1
                assigned[iv] += 1
        self.pos[q] = start + k
        self.batches[i] = tuple(counts)
        return True

    def _hall(self, q: int, t: int) -> int | None:
        """The lays still to come each need so many cards of their species from the positions
        up to their own end. Hall's condition for such windows: taken by end, the cards owed so
        far must fit in the positions left up to there. Returns the first end where they fill
        them exactly (position ``t`` must serve one of those lays), -1 if none, None if they do
        not fit. The windows are taken by end until what is still owed in all no longer fills
        the next one: no later one can be full either."""
        windows = self.plan.windows[q]
        n = len(windows)
        j = self.first[q]
        while j < n and windows[j][0] <= t:
            j += 1
        self.first[q] = j
        req, assigned = self.req, self.assigned
        total = self.owed[q]  # (the lays passed are met: they owe nothing)
        owed = 0
        while j < n:
            end, ivs = windows[j]
            places = end - t
            if total < places:
                return -1
            for iv in ivs:
                owed += req[iv] - assigned[iv]
            if owed >= places:
                return None if owed > places else end
            j += 1
        return -1

    def _weigh(self, ivs: tuple[int, ...], tight: int) -> int:
        """Each species' weight for the next card (into ``weights``) and their total: what is
        left of it in the pile, if the card may be one. A card that serves no lay's minimum from
        this pile must leave the pile enough of its species for the minimums still to come."""
        req, assigned, ends = self.req, self.assigned, self.plan.end
        avail, minimum, later, weights = self.avail, self.minimum, self.later, self.weights
        total = 0
        for s in SPECIES:
            iv = ivs[s]
            r = req[iv]
            if r < 0:
                w = 0 if tight >= 0 or avail[s] <= minimum[s] else avail[s]
            elif r > assigned[iv] and (tight < 0 or ends[iv] <= tight):
                if r - assigned[iv] > later[iv] or avail[s] > minimum[s]:
                    w = avail[s]
                else:
                    w = 0
            else:
                w = 0
            weights[s] = w
            total += w
        return total

    def _force(self, ivs: tuple[int, ...], total: int) -> int:
        """A pile drawn to its end must place every card it holds: a species with exactly as
        many cards as places left that take it must get this card, if this card is one of those
        places. Returns the total weight left (``weights`` keeps only that species), -1 if two
        species both must."""
        req, assigned, avail, room = self.req, self.assigned, self.avail, self.room
        must = -1
        for s in SPECIES:
            a = avail[s]
            if a and room[s] == a:
                iv = ivs[s]
                r = req[iv]
                if r < 0 or self.left_here[iv] <= r - assigned[iv]:
                    if must >= 0:
                        return -1
                    must = s
        if must < 0:
            return total
        weights = self.weights
        w = weights[must]
        weights[:] = [0] * NUM_SPECIES
        weights[must] = w
        return w

    def _take_closed(self, choice: int, ivs: tuple[int, ...]) -> None:
        """The next card is a ``choice`` from a pile drawn to its end: take it, and keep each
        species' places left (``room``) up to date. A species' room is, over the intervals with
        places in this pile, ``min(places left, cards still owed)`` (all the places left, if no
        lay ends the interval): this card's position leaves every interval of it, so each
        species' room loses one where the places were the smaller (or no lay ends it), and
        ``choice``'s loses one anyway (its interval is owed one card less too)."""
        req, assigned, room, left_here = self.req, self.assigned, self.room, self.left_here
        for s in SPECIES:
            jv = ivs[s]
            r, left = req[jv], left_here[jv]
            if r < 0 or left <= r - assigned[jv] or s == choice:
                room[s] -= 1
            left_here[jv] = left - 1
        self.avail[choice] -= 1
        assigned[ivs[choice]] += 1
