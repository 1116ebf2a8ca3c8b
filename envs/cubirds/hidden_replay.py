"""The replay plan behind Cubirds' ``determinize``: one player's view of the hidden-card log,
prepared once (:class:`_Plan`) and sampled by the stages :func:`cardzoo.envs.cubirds.hidden.
sample_hidden` tries in turn (the module docstring of :mod:`cardzoo.envs.cubirds.hidden` describes
the log and the stages). The exact stages solve each draw pile as a flow (:mod:`.flow`).
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
from cardzoo.envs.cubirds.flow import BoundedFlow

EV_FIXED = -1  # a replay step only: a batch kept as it is


#: Fast replays tried before the exact search (most succeed at the first try).
FAST_ATTEMPTS = 100
#: Exact search: solutions tried per pile before going back, and flows solved in all.
EXACT_TRIES = 6
EXACT_BUDGET = 600
#: Split search: choices tried per search, and searches (each in a new random order).
SPLIT_BUDGET = 600
SPLIT_TRIES = 3


class _Plan:
    """The replay of one log for one player, prepared once and sampled many times.

    Each other seat's hidden draws are numbered in order (its *positions*). An *interval* is the
    stretch of one seat's positions, for one species, between two lays (or flocks) of that
    species; ``req`` is the number of that species the lay ending it revealed (``-1``: still open,
    or ended by a face-down round end: no requirement), ``end`` the position where it ended.
    """

    def __init__(
        self, log: list[tuple], player: int, num_players: int, fixed_before: int = 0
    ) -> None:
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
        n = num_players
        pos = [0] * n
        #: Per seat: its intervals with a requirement, as (end position, interval), by end.
        self.closes: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        cur: list[list[int] | None] = [
            None if q == player else self._new_intervals() for q in range(n)
        ]
        steps: list[tuple] = []
        reserved: list[int] = [0] * NUM_SPECIES
        self.positions = 0
        seg = -1  # the current pile
        for i, ev in enumerate(log):
            tag = ev[0]
            if tag == EV_BATCH:
                q, counts = ev[1], ev[2]
                if q == player:
                    for s in range(NUM_SPECIES):
                        reserved[s] += counts[s]
                elif i < fixed_before:  # kept as it is (the last resort): like a known draw
                    for s in range(NUM_SPECIES):
                        reserved[s] += counts[s]
                    steps.append((EV_FIXED, i, q, sum(counts), tuple(cur[q]), counts))
                    pos[q] += sum(counts)
                else:
                    k = sum(counts)
                    pos[q] += k
                    self.positions += k
                    for iv in cur[q]:
                        by_pile = self.by_pile[iv]
                        by_pile[seg] = by_pile.get(seg, 0) + k
                    steps.append((EV_BATCH, i, q, k, tuple(cur[q])))
                    self.pile_batches[seg].append(steps[-1])
            elif tag == EV_PUBLIC:
                reserved[ev[1]] += 1
            elif tag == EV_CLOSE:
                q, s, hidden = ev[1], ev[2], ev[3]
                if q != player:
                    iv = cur[q][s]
                    self.req[iv] = hidden
                    self.end[iv] = pos[q]
                    self.closes[q].append((pos[q], iv))
                    cur[q][s] = self._new_interval(s)
                    steps.append((EV_CLOSE, iv))
            elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
                reserved = [0] * NUM_SPECIES
                seg += 1
                steps.append((tag, ev[1], reserved, seg))
                self.pile_batches.append([])
                self.fed.append([])
                self.fed_known.append([0] * NUM_SPECIES)
                self.pile_source.append((tag, ev[1], reserved))
            elif tag == EV_ROUND_END:
                ended = tuple(cur)
                steps.append((EV_ROUND_END, i, ended, ev[1][player]))
                # These hands go to the discard pile, so into the next pile if one is formed.
                for q in range(n):
                    if q == player:
                        for s in range(NUM_SPECIES):
                            self.fed_known[seg][s] += ev[1][player][s]
                    else:
                        self.fed[seg].extend(ended[q])
                cur = [None if q == player else self._new_intervals() for q in range(n)]
            else:
                raise ValueError(f"unknown log event {ev!r}")
        self.steps = steps
        self.open = cur
        #: Per pile: the slice of ``steps`` from its source to the next pile's source.
        starts = [j for j, st in enumerate(steps) if st[0] in (EV_SOURCE, EV_RESHUFFLE)]
        self.segments = list(zip(starts, [*starts[1:], len(steps)]))
        # Per pile: the intervals with a requirement that draw from it, and for each how many of
        # its positions come from later piles.
        self.pile_demands: list[list[tuple[int, int, int]]] = [[] for _ in range(seg + 1)]
        #: Per pile: every interval with positions in it, as (interval, positions).
        self.pile_intervals: list[list[tuple[int, int]]] = [[] for _ in range(seg + 1)]
        for iv, by_pile in enumerate(self.by_pile):
            for g, k in by_pile.items():
                self.pile_intervals[g].append((iv, k))
                if self.req[iv] >= 0:
                    later = sum(c for h, c in by_pile.items() if h > g)
                    self.pile_demands[g].append((iv, later, self.species_of[iv]))
        self.last_pile = seg

    def _new_interval(self, species: int) -> int:
        self.req.append(-1)
        self.end.append(-1)
        self.species_of.append(species)
        self.by_pile.append({})
        return len(self.req) - 1

    def _new_intervals(self) -> list[int]:
        return [self._new_interval(s) for s in range(NUM_SPECIES)]

    def sample(self, rng: np.random.Generator) -> tuple | None:
        """One fast replay, card by card with local checks: ``(hidden, avail, pending,
        source_own, batches, leftovers)``, or None at a dead end."""
        n = self.num_players
        req, ends, closes = self.req, self.end, self.closes
        assigned = [0] * len(req)
        pos = [0] * n
        first = [0] * n  # per seat: its first interval in ``closes`` not yet over
        uniforms = iter(rng.random(self.positions).tolist())
        avail: list[int] = [0] * NUM_SPECIES
        pending = [[0] * NUM_SPECIES for _ in range(n)]
        source_own = [[0] * NUM_SPECIES for _ in range(n)]
        batches: dict[int, tuple[int, ...]] = {}
        leftovers: dict[int, tuple[tuple[int, ...], ...]] = {}
        species = range(NUM_SPECIES)
        weights = [0] * NUM_SPECIES
        later: dict[int, int] = {}  # interval -> its positions in later piles
        minimum = [0] * NUM_SPECIES
        closed = False  # the current pile is drawn to its end (a reshuffle follows)
        left_here: dict[int, int] = {}  # interval -> its positions left in the current pile
        room = [0] * NUM_SPECIES
        zero = [0] * NUM_SPECIES
        for step in self.steps:
            tag = step[0]
            if tag == EV_FIXED:
                _, i, q, k, ivs, counts = step
                for s in species:
                    assigned[ivs[s]] += counts[s]
                pos[q] += k
            elif tag == EV_BATCH:
                _, i, q, k, ivs = step
                counts = [0] * NUM_SPECIES
                mine = closes[q]
                for _ in range(k):
                    t = pos[q]
                    # The lays still to come each need so many cards of their species from the
                    # positions up to their own end. Hall's condition for such windows: taken by
                    # end, the cards owed so far must fit in the positions left up to there; where
                    # they fill them exactly (tight), this card must serve one of those lays.
                    j = first[q]
                    while j < len(mine) and mine[j][0] <= t:
                        j += 1
                    first[q] = j
                    owed = 0
                    tight = -1
                    while j < len(mine):
                        end = mine[j][0]
                        while j < len(mine) and mine[j][0] == end:
                            iv = mine[j][1]
                            owed += req[iv] - assigned[iv]
                            j += 1
                        if owed > end - t:
                            return None
                        if owed == end - t:
                            tight = end
                            break
                    # A card that serves no lay's minimum from this pile must leave the pile
                    # enough of its species for the minimums still to come.
                    total = 0
                    for s in species:
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
                    if closed:
                        # A pile drawn to its end must place every card it holds: a species with
                        # exactly as many cards as places left that take it must get this one,
                        # if this card is one of those places.
                        must = -1
                        for s in species:
                            a = avail[s]
                            if a and room[s] == a:
                                iv = ivs[s]
                                r = req[iv]
                                if r < 0 or left_here[iv] <= r - assigned[iv]:
                                    if must >= 0:
                                        return None
                                    must = s
                        if must >= 0:
                            w = weights[must]
                            weights[:] = zero
                            weights[must] = w
                            total = w
                    if not total:
                        return None
                    x = next(uniforms) * total
                    choice = -1
                    for s in species:
                        x -= weights[s]
                        if x < 0:
                            choice = s
                            break
                    if choice < 0:  # rounding at the top end: the last species with weight
                        choice = max(s for s in species if weights[s])
                    iv = ivs[choice]
                    if req[iv] - assigned[iv] > later.get(iv, 0) and req[iv] >= 0:
                        minimum[choice] -= 1
                    if closed:
                        for s in species:
                            jv = ivs[s]
                            room[s] -= _room(req[jv], assigned[jv], left_here[jv])
                    avail[choice] -= 1
                    counts[choice] += 1
                    assigned[iv] += 1
                    if closed:
                        for s in species:
                            jv = ivs[s]
                            left_here[jv] -= 1
                            room[s] += _room(req[jv], assigned[jv], left_here[jv])
                    pos[q] = t + 1
                batches[i] = tuple(counts)
            elif tag == EV_CLOSE:
                iv = step[1]
                if assigned[iv] != req[iv]:
                    return None
            elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
                src = list(step[1])
                if tag == EV_RESHUFFLE:
                    for q in range(n):
                        for s in species:
                            src[s] += pending[q][s]
                    source_own = pending
                else:
                    source_own = [[0] * NUM_SPECIES for _ in range(n)]
                pending = [[0] * NUM_SPECIES for _ in range(n)]
                reserved = step[2]
                avail = [src[s] - reserved[s] for s in species]
                # What the lays still to come need from this pile at least, per species: what
                # their later positions (drawn from later piles) cannot give.
                later = {}
                minimum = [0] * NUM_SPECIES
                for iv, after, s in self.pile_demands[step[3]]:
                    later[iv] = after
                    minimum[s] += max(0, req[iv] - assigned[iv] - after)
                if any(avail[s] < minimum[s] for s in species):
                    return None
                # A pile drawn to its end: per species, the places left in it that can take one.
                closed = step[3] < self.last_pile
                if closed:
                    left_here = {}
                    room = [0] * NUM_SPECIES
                    for iv, k in self.pile_intervals[step[3]]:
                        left_here[iv] = k
                        room[self.species_of[iv]] += _room(req[iv], assigned[iv], k)
                    if any(avail[s] > room[s] for s in species):
                        return None
            else:  # EV_ROUND_END
                _, i, ended, own = step
                left_all = []
                for q in range(n):
                    if q == self.player:
                        left = list(own)
                    else:
                        left = [assigned[ended[q][s]] for s in species]
                    for s in species:
                        pending[q][s] += left[s]
                    left_all.append(tuple(left))
                leftovers[i] = tuple(left_all)
        hidden = [
            None if q == self.player else [assigned[self.open[q][s]] for s in species]
            for q in range(n)
        ]
        return hidden, avail, pending, source_own, batches, leftovers

    def sample_exact(self, rng: np.random.Generator, budget: int = EXACT_BUDGET) -> tuple | None:
        """A replay that solves each pile at once as a flow (:meth:`_solve_pile`), searching
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
        species = range(NUM_SPECIES)
        assigned = end["assigned"]
        hidden = [
            None if q == self.player else [assigned[self.open[q][s]] for s in species]
            for q in range(n)
        ]
        return (
            hidden,
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
        n = self.num_players
        req = self.req
        species = range(NUM_SPECIES)
        assigned, avail = st["assigned"], st["avail"]
        first, stop = self.segments[g]
        solved: dict[int, tuple[int, ...]] = {}
        for step in self.steps[first:stop]:
            tag = step[0]
            if tag == EV_FIXED:
                _, i, q, k, ivs, counts = step
                for s in species:
                    assigned[ivs[s]] += counts[s]
            elif tag == EV_BATCH:
                _, i, q, k, ivs = step
                counts = solved[i]
                for s in species:
                    c = counts[s]
                    if c:
                        avail[s] -= c
                        assigned[ivs[s]] += c
                st["batches"][i] = counts
            elif tag == EV_CLOSE:
                if assigned[step[1]] != req[step[1]]:
                    return False
            elif tag == EV_SOURCE or tag == EV_RESHUFFLE:
                src = list(step[1])
                pending = st["pending"]
                if tag == EV_RESHUFFLE:
                    for q in range(n):
                        for s in species:
                            src[s] += pending[q][s]
                    st["source_own"] = pending
                else:
                    st["source_own"] = [[0] * NUM_SPECIES for _ in range(n)]
                st["pending"] = [[0] * NUM_SPECIES for _ in range(n)]
                reserved = step[2]
                avail[:] = [src[s] - reserved[s] for s in species]
                if min(avail) < 0:
                    return False
                result = self._solve_pile(g, avail, assigned, rng)
                if result is None:
                    return False
                solved = result
            else:  # EV_ROUND_END
                _, i, ended, own = step
                left_all = []
                for q in range(n):
                    if q == self.player:
                        left = list(own)
                    else:
                        left = [assigned[ended[q][s]] for s in species]
                    for s in species:
                        st["pending"][q][s] += left[s]
                    left_all.append(tuple(left))
                st["leftovers"][i] = tuple(left_all)
        return True

    def sample_split(self, rng: np.random.Generator, budget: int = SPLIT_BUDGET) -> tuple | None:
        """Exact search for public round-end discards: a lay whose interval spans a reshuffle
        got some of its cards from each pile; fixing those *splits* makes every pile an
        independent flow problem. Depth-first over the splits, each choice checked by every
        pile's flow with the splits left open as ranges; a complete choice is then sampled pile
        by pile. Returns what :meth:`sample` returns, or None (budget spent, or face-down
        discards: their leftovers couple piles in a way this search does not cover)."""
        if any(step[0] == EV_ROUND_END for step in self.steps):
            return None
        req, by_pile = self.req, self.by_pile
        avails = []
        for _, public, reserved in self.pile_source:
            avails.append([public[s] - reserved[s] for s in range(NUM_SPECIES)])
        if any(min(a) < 0 for a in avails):
            return None
        spanning = [iv for iv in range(len(req)) if req[iv] >= 0 and len(by_pile[iv]) >= 2]
        choices = [(iv, g) for iv in spanning for g in sorted(by_pile[iv])[:-1]]
        fixed: dict[tuple[int, int], int] = {}

        def bounds(g: int) -> dict[int, tuple[int, int]] | None:
            out = {}
            for iv, k in self.pile_intervals[g]:
                if req[iv] < 0:
                    continue
                piles = sorted(by_pile[iv])
                if len(piles) == 1:
                    out[iv] = (req[iv], req[iv])
                    continue
                if (iv, g) in fixed:
                    out[iv] = (fixed[iv, g], fixed[iv, g])
                    continue
                done = sum(fixed.get((iv, h), 0) for h in piles[:-1])
                rest = sum(by_pile[iv][h] for h in piles if h != g and (iv, h) not in fixed)
                low, high = max(0, req[iv] - done - rest), min(k, req[iv] - done)
                if low > high:
                    return None
                out[iv] = (low, high)
            return out

        def feasible() -> bool:
            for g in range(self.last_pile + 1):
                b = bounds(g)
                if b is None or self._pile_flow(g, avails[g], b, None) is None:
                    return False
            return True

        self._budget = budget

        def search(k: int) -> dict | None:
            if k == len(choices):
                solved: dict[int, tuple[int, ...]] = {}
                for g in range(self.last_pile + 1):
                    part = self._pile_flow(g, avails[g], bounds(g), rng)
                    if part is None:
                        return None
                    solved.update(part)
                return solved
            iv, g = choices[k]
            low, high = bounds(g)[iv]
            for value in rng.permutation(np.arange(low, high + 1)).tolist():
                if self._budget <= 0:
                    return None
                self._budget -= 1
                fixed[iv, g] = value
                if feasible():
                    found = search(k + 1)
                    if found is not None:
                        return found
                del fixed[iv, g]
            return None

        if not feasible():
            return None
        solved = search(0)
        if solved is None:
            return None
        return self._replay(solved)

    def _replay(self, solved: dict[int, tuple[int, ...]]) -> tuple | None:
        """The result of a replay whose every batch is given (``solved``: log index -> cards)."""
        n = self.num_players
        req = self.req
        species = range(NUM_SPECIES)
        assigned = [0] * len(req)
        avail = [0] * NUM_SPECIES
        for step in self.steps:
            tag = step[0]
            if tag == EV_BATCH:
                _, i, q, k, ivs = step
                for s in species:
                    avail[s] -= solved[i][s]
                    assigned[ivs[s]] += solved[i][s]
            elif tag == EV_CLOSE:
                if assigned[step[1]] != req[step[1]]:
                    return None
            elif tag in (EV_SOURCE, EV_RESHUFFLE):
                avail = [step[1][s] - step[2][s] for s in species]
            else:
                return None  # round ends are not replayed here
            if min(avail) < 0:
                return None
        hidden = [
            None if q == self.player else [assigned[self.open[q][s]] for s in species]
            for q in range(n)
        ]
        zeros = [[0] * NUM_SPECIES for _ in range(n)]
        return hidden, avail, zeros, [z[:] for z in zeros], dict(solved), {}

    def _pile_flow(
        self,
        g: int,
        avail: list[int],
        bounds: dict[int, tuple[int, int]],
        rng: np.random.Generator | None,
    ) -> dict[int, tuple[int, ...]] | None:
        """Pile ``g``'s batches as one flow, each lay interval taking ``bounds[iv]`` cards of its
        species from this pile; a random solution with ``rng``, any solution without."""
        batches = self.pile_batches[g]
        closed = g < self.last_pile
        src, snk = 0, 1
        node = 2 + NUM_SPECIES
        interval_node: dict[int, int] = {}
        for iv in bounds:
            interval_node[iv] = node
            node += 1
        net = BoundedFlow(node + len(batches))
        for s in range(NUM_SPECIES):
            net.add(src, 2 + s, avail[s] if closed else 0, avail[s])
        for iv, (low, high) in bounds.items():
            net.add(2 + self.species_of[iv], interval_node[iv], low, high)
        edges = []
        for b, (_, _, _, k, ivs) in enumerate(batches):
            v = node + b
            net.add(v, snk, k, k)
            edges.append(
                [net.add(interval_node.get(ivs[s], 2 + s), v, 0, k) for s in range(NUM_SPECIES)]
            )
        if not net.solve(src, snk, rng):
            return None
        return {step[1]: tuple(net.flow(e) for e in row) for step, row in zip(batches, edges)}

    def _solve_pile(
        self, g: int, avail: list[int], assigned: list[int], rng: np.random.Generator
    ) -> dict[int, tuple[int, ...]] | None:
        """Cards for every batch drawn from pile ``g`` at once, as a random feasible flow:
        species -> (lay interval needing that species) -> batch. A pile drawn to its end places
        all its cards; every lay gets what it needs, less what later piles can still give.

        Looking one pile ahead, per species: what the lays spanning both piles still need from
        the next pile, plus what the next pile's own lays need, must not exceed what it will
        hold (its public cards, ``player``'s, and the face-down hands thrown away meanwhile).
        The intervals that decide that (spanning lays, thrown-away hands) hang under one node
        per species with that lower bound.
        """
        batches = self.pile_batches[g]
        req, by_pile, species_of = self.req, self.by_pile, self.species_of
        closed = g < self.last_pile
        nxt = g + 1
        ahead = nxt <= self.last_pile
        src, snk = 0, 1
        future = 2 + NUM_SPECIES  # per species: the node of the look-ahead bound
        node = future + NUM_SPECIES
        interval_node: dict[int, int] = {}
        fed = set(self.fed[g]) if ahead and self.pile_source[nxt][0] == EV_RESHUFFLE else set()
        for _, _, _, _, ivs in batches:
            for iv in ivs:
                if (req[iv] >= 0 or iv in fed) and iv not in interval_node:
                    interval_node[iv] = node
                    node += 1
        net = BoundedFlow(node + len(batches))
        for s in range(NUM_SPECIES):
            net.add(src, 2 + s, avail[s] if closed else 0, avail[s])
        # Look-ahead: bound[s] = what the next pile must give beyond its fixed supply.
        bound = [0] * NUM_SPECIES
        under_future: set[int] = set()
        if ahead:
            tag, public, reserved = self.pile_source[nxt]
            for s in range(NUM_SPECIES):
                bound[s] = reserved[s] - public[s] - (self.fed_known[g][s] if fed else 0)
            for iv in fed:  # cards of thrown-away hands drawn from earlier piles
                bound[species_of[iv]] -= assigned[iv]
            for iv, beyond, s in self.pile_demands[nxt]:
                if iv in interval_node:  # spans this pile and the next
                    bound[s] += req[iv] - assigned[iv] - beyond
                    under_future.add(iv)
                else:
                    bound[s] += max(0, req[iv] - assigned[iv] - beyond)
            under_future |= fed & set(interval_node)
        for s in range(NUM_SPECIES):
            if bound[s] > avail[s]:
                return None
            net.add(2 + s, future + s, max(0, bound[s]), avail[s])
        for iv, v in interval_node.items():
            s = species_of[iv]
            parent = future + s if iv in under_future else 2 + s
            if req[iv] < 0:  # a thrown-away hand: no requirement
                net.add(parent, v, 0, by_pile[iv][g])
                continue
            need = req[iv] - assigned[iv]
            here = by_pile[iv][g]
            later = sum(c for h, c in by_pile[iv].items() if h > g)
            low, high = max(0, need - later), min(need, here)
            if low > high:
                return None
            net.add(parent, v, low, high)
        edges = []
        for b, (_, _, _, k, ivs) in enumerate(batches):
            v = node + b
            net.add(v, snk, k, k)
            row = []
            for s in range(NUM_SPECIES):
                iv = ivs[s]
                u = interval_node.get(iv, 2 + s)
                row.append(net.add(u, v, 0, k))
            edges.append(row)
        if not net.solve(src, snk, rng):
            return None
        return {step[1]: tuple(net.flow(e) for e in row) for step, row in zip(batches, edges)}


def _room(req: int, assigned: int, left: int) -> int:
    """Cards of its species an interval can still take from the current pile."""
    return left if req < 0 else min(left, req - assigned)
