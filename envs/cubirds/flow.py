"""A small max-flow with lower bounds, and the networks of Cubirds' exact resampling stages: the
batches drawn from one draw pile, solved at once (:func:`solve_pile`, :func:`pile_flow`).

Graphs here have a few dozen nodes. A random solution (the stages' samples) comes from
shortest augmenting paths (Edmonds-Karp) over a random adjacency order; a check that only asks
whether a solution exists (the searches' pruning, most of the solves) uses blocking flows
(Dinic), which answer the same with fewer searches of the graph (session 23).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.cubirds.data import EV_RESHUFFLE, NUM_SPECIES

if TYPE_CHECKING:
    from cardzoo.envs.cubirds.hidden_replay import _Plan


class BoundedFlow:
    """A network whose edges carry between ``low`` and ``high`` units; finds a feasible flow.

    Edges live in flat lists (``to``, ``cap``, ``low``), an edge's reverse at its number xor 1,
    and :meth:`add` returns the forward edge's number: the searches build and solve thousands
    of these per call at late face-down positions, where objects per edge cost most of it."""

    __slots__ = ("num_nodes", "adj", "excess", "to", "cap", "low")

    def __init__(self, num_nodes: int) -> None:
        self.num_nodes = num_nodes
        self.adj: list[list[int]] = [[] for _ in range(num_nodes + 2)]
        self.excess = [0] * (num_nodes + 2)
        self.to: list[int] = []
        self.cap: list[int] = []
        self.low: list[int] = []

    def _edge(self, u: int, v: int, cap: int, low: int = 0) -> int:
        e = len(self.to)
        self.to += (v, u)
        self.cap += (cap, 0)
        self.low += (low, 0)
        self.adj[u].append(e)
        self.adj[v].append(e + 1)
        return e

    def add(self, u: int, v: int, low: int, high: int) -> int:
        """An edge ``u -> v`` carrying ``low..high`` units; returns a handle for :meth:`flow`."""
        if low > high:
            raise ValueError(f"edge {u}->{v}: low {low} > high {high}")
        self.excess[v] += low
        self.excess[u] -= low
        return self._edge(u, v, high - low, low)

    def copy(self) -> BoundedFlow:
        """A network of the same edges and bounds, to be changed and solved on its own."""
        out = BoundedFlow.__new__(BoundedFlow)
        out.num_nodes = self.num_nodes
        out.adj = [edges[:] for edges in self.adj]
        out.excess, out.to, out.cap, out.low = self.excess[:], self.to[:], self.cap[:], self.low[:]
        return out

    def flow(self, edge: int) -> int:
        """Units on an edge of a solved network."""
        return self.low[edge] + self.cap[edge ^ 1]

    def solve(self, source: int, sink: int, rng: np.random.Generator | None = None) -> bool:
        """Look for a flow from ``source`` to ``sink`` meeting every edge's bounds (any amount
        in total); True if one exists (then :meth:`flow` reads it). Call once.

        With ``rng``, a random solution: each node's edges in a random order, then shortest
        augmenting paths (Edmonds-Karp), so a seeded rng always finds the same one. Without,
        only whether one exists matters, and blocking flows (Dinic) find that with far fewer
        searches; they stop as soon as the lower bounds are met."""
        big = sum(self.cap) + sum(map(abs, self.excess)) + 1
        self._edge(sink, source, big)  # the circulation closes through source and sink
        s_star, t_star = self.num_nodes, self.num_nodes + 1
        need = 0
        for v, x in enumerate(self.excess[: self.num_nodes]):
            if x > 0:
                self._edge(s_star, v, x)
                need += x
            elif x < 0:
                self._edge(v, t_star, -x)
        if rng is None:
            return self._blocking_flows(s_star, t_star, need) == need
        for edges in self.adj:
            edges[:] = [edges[j] for j in rng.permutation(len(edges)).tolist()]
        return self._max_flow(s_star, t_star) == need

    def _max_flow(self, s: int, t: int) -> int:
        """Edmonds-Karp: one breadth-first search per augmenting path, in the edges' order. The
        search stops as soon as it reaches ``t``: the path to it is already fixed then."""
        adj, to, cap = self.adj, self.to, self.cap
        n = len(adj)
        total = 0
        while True:
            parent = [-1] * n  # (the edge into each node reached; -2 at ``s``)
            parent[s] = -2
            queue = [s]
            for u in queue:  # grows while read: a breadth-first search
                for e in adj[u]:
                    if cap[e] > 0:
                        v = to[e]
                        if parent[v] == -1:
                            parent[v] = e
                            queue.append(v)
                if parent[t] != -1:
                    break
            if parent[t] == -1:
                return total
            push = cap[parent[t]]
            v = to[parent[t] ^ 1]
            while v != s:
                e = parent[v]
                if cap[e] < push:
                    push = cap[e]
                v = to[e ^ 1]
            v = t
            while v != s:
                e = parent[v]
                cap[e] -= push
                cap[e ^ 1] += push
                v = to[e ^ 1]
            total += push

    def _blocking_flows(self, s: int, t: int, need: int) -> int:
        """Dinic: per phase, the nodes' distances from ``s``, then augmenting paths along
        edges one step further each (a node that leads nowhere is dropped for the phase);
        stops once ``need`` units flow."""
        adj, to, cap = self.adj, self.to, self.cap
        n = len(adj)
        total = 0
        while True:
            level = self._levels(s, t)
            if level[t] < 0:
                return total
            next_edge = [0] * n
            path: list[int] = []
            u = s
            while True:
                if u == t:
                    push = min(cap[e] for e in path)
                    for e in path:
                        cap[e] -= push
                        cap[e ^ 1] += push
                    total += push
                    if total >= need:
                        return total
                    path.clear()
                    u = s
                    continue
                edges, i, d = adj[u], next_edge[u], level[u] + 1
                m = len(edges)
                while i < m:
                    e = edges[i]
                    if cap[e] > 0 and level[to[e]] == d:
                        break
                    i += 1
                next_edge[u] = i
                if i < m:
                    path.append(e)
                    u = to[e]
                elif u == s:
                    break
                else:  # a dead end: drop it for this phase and step back
                    level[u] = -1
                    u = to[path.pop() ^ 1]

    def _levels(self, s: int, t: int) -> list[int]:
        """Each node's distance from ``s`` over edges with room left (-1: not reached), by a
        breadth-first search that stops at ``t``'s distance (no shortest path goes further)."""
        adj, to, cap = self.adj, self.to, self.cap
        level = [-1] * len(adj)
        level[s] = 0
        order = [s]
        for u in order:  # grows while read
            d = level[u] + 1
            if 0 <= level[t] < d:
                break
            for e in adj[u]:
                if cap[e] > 0:
                    v = to[e]
                    if level[v] < 0:
                        level[v] = d
                        order.append(v)
        return level


# ---------------------------------------------------------------------------------------------
# One draw pile's batches as a network (the exact stages of the replay, hidden_replay.py)
#
# Nodes: 0 source, 1 sink, 2 + s per species s, then the stage's own nodes (look-ahead bounds,
# lay intervals), then one node per batch. Every batch takes exactly its size; the order in which
# edges are added fixes the random solution a seeded rng finds, so it must not change.

SOURCE, SINK, SPECIES_NODE = 0, 1, 2
SPECIES = range(NUM_SPECIES)


def pile_flow(
    plan: _Plan,
    g: int,
    avail: list[int],
    bounds: dict[int, tuple[int, int]],
    rng: np.random.Generator | None,
    least: list[int] | None = None,
    groups: list[tuple[int, int, int, list[int]]] = (),
) -> dict[int, tuple[int, ...]] | None:
    """Pile ``g``'s batches as one flow, each lay interval taking ``bounds[iv]`` cards of its
    species from this pile; a random solution with ``rng``, any solution without. Returns the
    cards of every batch (log index -> counts), or None if there is no solution.

    The complete search also passes the least the pile may hold of each species (``least``:
    ``avail`` is then the most) and ``groups`` of thrown-away hands' intervals, as (species,
    low, high, intervals): together they take ``low..high`` cards of that species here."""
    shape = (g, tuple(bounds), tuple((s, tuple(ivs)) for s, _, _, ivs in groups))
    kept = plan.flows.get(shape)
    if kept is None:
        kept = plan.flows[shape] = _PileNetwork(plan, g, list(bounds), groups)
    closed = g < plan.last_pile  # (a pile drawn to its end gives all it holds, or ``least``)
    if least is None:
        values = [(a if closed else 0, a) for a in avail]
    else:
        values = [(max(lo, 0) if closed else 0, a) for lo, a in zip(least, avail)]
    values += bounds.values()
    values += [(low, high) for _, low, high, _ in groups]
    return _solved(_with_bounds(kept.net, kept.variable, values), kept.batch_edges, rng)


class _PileNetwork:
    """The network of :func:`pile_flow` for one pile, its intervals and its groups, made once
    per plan (``_Plan.flows``) with the varying bounds left at zero: every call copies it and
    sets them (the supply per species, each interval's range, each group's), so that each edge
    keeps its number and its place in its nodes' lists, and a seeded solution is the one a
    network made afresh gives (session 29: making it afresh was about a fifth of the complete
    search's time at late face-down positions)."""

    def __init__(self, plan: _Plan, g: int, intervals: list[int], groups: list) -> None:
        batches = plan.pile_batches[g]
        node = SPECIES_NODE + NUM_SPECIES
        interval_node: dict[int, int] = {}
        for iv in intervals:
            interval_node[iv] = node
            node += 1
        group_node = []
        for _, _, _, ivs in groups:
            group_node.append(node)
            for k, iv in enumerate(ivs, node + 1):
                interval_node[iv] = k
            node += 1 + len(ivs)
        net = BoundedFlow(node + len(batches))
        #: The edges whose bounds vary, as (from, to, edge), in the order ``pile_flow`` sets.
        self.variable = []
        ends = [(SOURCE, SPECIES_NODE + s) for s in range(NUM_SPECIES)]
        ends += [(SPECIES_NODE + plan.species_of[iv], interval_node[iv]) for iv in intervals]
        for u, v in ends:
            self.variable.append((u, v, net.add(u, v, 0, 0)))
        for (s, _, _, ivs), v in zip(groups, group_node):
            self.variable.append((SPECIES_NODE + s, v, net.add(SPECIES_NODE + s, v, 0, 0)))
            for iv in ivs:
                net.add(v, interval_node[iv], 0, plan.by_pile[iv][g])
        self.batch_edges = _add_batches(net, batches, node, interval_node)
        self.net = net


def solve_pile(
    plan: _Plan, g: int, avail: list[int], assigned: list[int], rng: np.random.Generator
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
    kept = plan.flows.get(g)
    if kept is None:
        kept = plan.flows[g] = _ExactNetwork(plan, g)
    closed = g < plan.last_pile
    values = [(a if closed else 0, a) for a in avail]  # (the pile's supply)
    bound, _ = _look_ahead(plan, g, assigned, kept.interval_node, kept.fed)
    for s in range(NUM_SPECIES):
        if bound[s] > avail[s]:
            return None
        values.append((max(0, bound[s]), avail[s]))
    req, by_pile = plan.req, plan.by_pile
    for iv in kept.lays:  # each lay's share of this pile: what it still needs less what later
        need = req[iv] - assigned[iv]  # piles can give, up to its positions here
        later = sum(c for h, c in by_pile[iv].items() if h > g)
        low, high = max(0, need - later), min(need, by_pile[iv][g])
        if low > high:
            return None
        values.append((low, high))
    return _solved(_with_bounds(kept.net, kept.variable, values), kept.batch_edges, rng)


class _ExactNetwork:
    """The network of :func:`solve_pile` for one pile, made once per plan (``_Plan.flows``)
    with the varying bounds left at zero (the supply, the look-ahead per species, each lay's
    share), as :class:`_PileNetwork` is for :func:`pile_flow`: the same edges in the same
    order as made afresh, so the same seeded solutions."""

    def __init__(self, plan: _Plan, g: int) -> None:
        batches = plan.pile_batches[g]
        req, by_pile = plan.req, plan.by_pile
        nxt = g + 1
        ahead = nxt <= plan.last_pile
        future = SPECIES_NODE + NUM_SPECIES  # per species: the node of the look-ahead bound
        node = future + NUM_SPECIES
        interval_node: dict[int, int] = {}
        fed = set(plan.fed[g]) if ahead and plan.pile_source[nxt][0] == EV_RESHUFFLE else set()
        for _, _, _, _, ivs in batches:
            for iv in ivs:
                if (req[iv] >= 0 or iv in fed) and iv not in interval_node:
                    interval_node[iv] = node
                    node += 1
        self.interval_node, self.fed = interval_node, fed
        # (which intervals count towards the look-ahead does not depend on what was drawn)
        _, under_future = _look_ahead(plan, g, [0] * len(req), interval_node, fed)
        net = BoundedFlow(node + len(batches))
        ends = [(SOURCE, SPECIES_NODE + s) for s in range(NUM_SPECIES)]
        ends += [(SPECIES_NODE + s, future + s) for s in range(NUM_SPECIES)]
        #: The lays with a share of this pile, in the order of their edges.
        self.lays: list[int] = []
        self.variable = [(u, v, net.add(u, v, 0, 0)) for u, v in ends]
        for iv, v in interval_node.items():
            s = plan.species_of[iv]
            parent = future + s if iv in under_future else SPECIES_NODE + s
            if req[iv] < 0:  # a thrown-away hand: no requirement
                net.add(parent, v, 0, by_pile[iv][g])
                continue
            self.lays.append(iv)
            self.variable.append((parent, v, net.add(parent, v, 0, 0)))
        self.batch_edges = _add_batches(net, batches, node, interval_node)
        self.net = net


def _with_bounds(kept: BoundedFlow, variable: list[tuple], values: list[tuple]) -> BoundedFlow:
    """A copy of a kept network with its varying edges (``variable``: from, to, edge) given
    their bounds (``values``: low, high); ValueError as :meth:`BoundedFlow.add`."""
    net = kept.copy()
    excess, cap, low_of = net.excess, net.cap, net.low
    for (u, v, e), (low, high) in zip(variable, values):
        if low > high:
            raise ValueError(f"edge {u}->{v}: low {low} > high {high}")
        excess[v] += low
        excess[u] -= low
        cap[e] = high - low
        low_of[e] = low
    return net


def _add_batches(net: BoundedFlow, batches: list[tuple], node: int, interval_node: dict) -> list:
    """The batches' edges (each takes exactly its size, from its intervals or straight from the
    species): per batch, its log index and its edges, one per species."""
    rows = []
    for b, (_, i, _, k, ivs) in enumerate(batches):
        v = node + b
        net.add(v, SINK, k, k)
        edges = [net.add(interval_node.get(ivs[s], SPECIES_NODE + s), v, 0, k) for s in SPECIES]
        rows.append((i, edges))
    return rows


def _solved(net: BoundedFlow, rows: list, rng: np.random.Generator | None) -> dict | None:
    """Solve: the cards of each batch by log index (``rows``: ``_add_batches``), or None."""
    if not net.solve(SOURCE, SINK, rng):
        return None
    return {i: tuple(net.flow(e) for e in row) for i, row in rows}


def _look_ahead(
    plan: _Plan, g: int, assigned: list[int], interval_node: dict[int, int], fed: set[int]
) -> tuple[list[int], set[int]]:
    """Per species, what the next pile must give beyond its fixed supply (``bound``), and the
    intervals of this pile that count towards it (spanning lays, thrown-away hands)."""
    bound = [0] * NUM_SPECIES
    under_future: set[int] = set()
    nxt = g + 1
    if nxt > plan.last_pile:
        return bound, under_future
    req, species_of = plan.req, plan.species_of
    _, public, reserved = plan.pile_source[nxt]
    for s in range(NUM_SPECIES):
        bound[s] = reserved[s] - public[s] - (plan.fed_known[g][s] if fed else 0)
    for iv in fed:  # cards of thrown-away hands drawn from earlier piles
        bound[species_of[iv]] -= assigned[iv]
    for iv, beyond, s in plan.pile_demands[nxt]:
        if iv in interval_node:  # spans this pile and the next
            bound[s] += req[iv] - assigned[iv] - beyond
            under_future.add(iv)
        else:
            bound[s] += max(0, req[iv] - assigned[iv] - beyond)
    under_future |= fed & set(interval_node)
    return bound, under_future


# ---------------------------------------------------------------------------------------------
# The searches over several piles (stages 3 and 4 of the replay)


class SplitSearch:
    """The depth-first search of :meth:`_Plan.sample_split`: ``fixed[iv, g]`` is the number of
    cards a lay interval spanning several piles takes from pile ``g``."""

    def __init__(
        self, plan: _Plan, avails: list[list[int]], rng: np.random.Generator, budget: int
    ) -> None:
        self.plan = plan
        self.avails = avails
        self.rng = rng
        self.budget = budget
        req, by_pile = plan.req, plan.by_pile
        spanning = [iv for iv in range(len(req)) if req[iv] >= 0 and len(by_pile[iv]) >= 2]
        self.choices = [(iv, g) for iv in spanning for g in sorted(by_pile[iv])[:-1]]
        self.fixed: dict[tuple[int, int], int] = {}

    def bounds(self, g: int) -> dict[int, tuple[int, int]] | None:
        """Per interval with a requirement and positions in pile ``g``: the range of cards it
        may take from it given the splits fixed so far; None if one range is empty."""
        plan, fixed = self.plan, self.fixed
        req, by_pile = plan.req, plan.by_pile
        out = {}
        for iv, k in plan.pile_intervals[g]:
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

    def feasible(self) -> bool:
        """Whether every pile's flow accepts the splits fixed so far (any solution will do)."""
        for g in range(self.plan.last_pile + 1):
            b = self.bounds(g)
            if b is None or pile_flow(self.plan, g, self.avails[g], b, None) is None:
                return False
        return True

    def search(self, k: int) -> dict | None:
        """Fix the splits from the ``k``-th on; then sample every pile: the cards of every
        batch by log index, or None."""
        if k == len(self.choices):
            return self._sample_piles()
        iv, g = self.choices[k]
        low, high = self.bounds(g)[iv]
        for value in self.rng.permutation(np.arange(low, high + 1)).tolist():
            if self.budget <= 0:
                return None
            self.budget -= 1
            self.fixed[iv, g] = value
            if self.feasible():
                found = self.search(k + 1)
                if found is not None:
                    return found
            del self.fixed[iv, g]
        return None

    def _sample_piles(self) -> dict | None:
        solved: dict[int, tuple[int, ...]] = {}
        for g in range(self.plan.last_pile + 1):
            part = pile_flow(self.plan, g, self.avails[g], self.bounds(g), self.rng)
            if part is None:
                return None
            solved.update(part)
        return solved


class CompleteSearch(SplitSearch):
    """The depth-first search of :meth:`_Plan.sample_complete` (stage 4): the split search, with
    face-down round ends too. The hands thrown away while pile ``r - 1`` was drawn form pile
    ``r`` (with the public discards); ``feed[r, g, s]`` is the number of ``s`` those hands drew
    from pile ``g`` and kept. Once every split and feed is fixed, every pile's content is known
    and each pile is an independent flow, as in the split search; before that, each pile's flow
    is checked with the open choices as ranges (a pile fed by open feeds holds a range of cards),
    which any consistent world passes: so pruning never loses a world, and the search is complete
    when it ends without running out of ``budget`` (``cut`` says whether it did). Each choice
    first tries the value of a random solution of its pile's flow, then the others at random.
    With ``splits_first``, every split is fixed before any feed (each kind pile by pile, in a
    random order within a pile); else pile by pile, the two kinds mixed within a pile. Which
    order dead-ends less depends on the position (``hidden_replay.COMPLETE_ORDERS``)."""

    def __init__(
        self,
        plan: _Plan,
        avails: list[list[int]],
        rng: np.random.Generator,
        budget: int,
        splits_first: bool = False,
    ) -> None:
        super().__init__(plan, avails, rng, budget)
        self.cut = False
        #: Per pile ``g``: (r, s, intervals of species s fed to pile r with positions in g).
        self.groups: list[list[tuple[int, int, list[int]]]] = [[] for _ in avails]
        #: (r, g, s) -> the most ``feed[r, g, s]`` can be: those intervals' positions in pile g.
        self.feed_cap: dict[tuple[int, int, int], int] = {}
        #: (r, g) -> the positions those hands drew from pile g: their feeds add up to at most it.
        self.feed_total: dict[tuple[int, int], int] = {}
        self.feed: dict[tuple[int, int, int], int] = {}
        for r in range(1, plan.last_pile + 1):
            if plan.pile_source[r][0] == EV_RESHUFFLE:
                self._add_feeds(r)
        choices = [(g, "split", iv, g) for iv, g in self.choices]
        choices += [
            (g, "feed", r, g, s) for g, group in enumerate(self.groups) for r, s, _ in group
        ]
        order = rng.permutation(len(choices)).tolist()
        if splits_first:
            order.sort(key=lambda j: (choices[j][1] == "feed", choices[j][0]))
        else:
            order.sort(key=lambda j: choices[j][0])
        self.choices = [choices[j][1:] for j in order]

    def _add_feeds(self, r: int) -> None:
        plan = self.plan
        fed = plan.fed[r - 1]
        hands: dict[int, dict[int, list[int]]] = {}  # pile -> species -> intervals
        for iv in fed:
            for g in plan.by_pile[iv]:
                hands.setdefault(g, {}).setdefault(plan.species_of[iv], []).append(iv)
        for g, by_species in sorted(hands.items()):
            for s, ivs in sorted(by_species.items()):
                self.feed_cap[r, g, s] = sum(plan.by_pile[iv][g] for iv in ivs)
                self.groups[g].append((r, s, ivs))
            # A hand's open intervals all end with it, so its longest one holds all the others.
            hand_ivs = [fed[j : j + NUM_SPECIES] for j in range(0, len(fed), NUM_SPECIES)]
            self.feed_total[r, g] = sum(
                max(plan.by_pile[iv].get(g, 0) for iv in hand) for hand in hand_ivs
            )

    def feed_range(self, r: int, g: int, s: int) -> tuple[int, int]:
        """The cards of species ``s`` the hands feeding pile ``r`` may keep from pile ``g``."""
        value = self.feed.get((r, g, s))
        if value is not None:
            return value, value
        taken = sum(self.feed.get((r, g, x), 0) for x in range(NUM_SPECIES))
        return 0, min(self.feed_cap[r, g, s], self.feed_total[r, g] - taken)

    def supply(self, r: int) -> tuple[list[int], list[int]]:
        """The least and most of each species pile ``r`` holds, given the feeds fixed so far."""
        least, most = self.avails[r][:], self.avails[r][:]
        for h, g, s in self.feed_cap:
            if h == r:
                low, high = self.feed_range(r, g, s)
                least[s] += low
                most[s] += high
        return least, most

    def _pile(self, g: int, rng: np.random.Generator | None) -> dict | None:
        b = self.bounds(g)
        least, most = self.supply(g)
        if b is None or min(most) < 0:
            return None
        groups = [(s, *self.feed_range(r, g, s), ivs) for r, s, ivs in self.groups[g]]
        if any(low > high for _, low, high, _ in groups):
            return None
        return pile_flow(self.plan, g, most, b, rng, least, groups)

    def feasible(self, piles: list[int] | None = None) -> bool:
        """Whether the flows of ``piles`` (default: all) accept the choices fixed so far."""
        if piles is None:
            piles = range(self.plan.last_pile + 1)
        return all(self._pile(g, None) is not None for g in piles)

    def _values(self, choice: tuple) -> tuple[tuple, dict, list[int], list[int], int]:
        """The key and table of a choice, its values in the order to try them, the piles
        whose flows it changes, and a pile known to accept the first value (-1: none).

        A split's first value comes from a solution of its own pile's flow in which the
        interval takes exactly that many cards, and fixing it changes no other bound there:
        that pile accepts it, so its check is skipped (a feed's is not: fixing one species'
        feed narrows the others' ranges, which that solution may exceed)."""
        kind, a, g, *rest = choice
        if kind == "split":
            key, table, ivs = (a, g), self.fixed, {a}
            low, high = self.bounds(g)[a]
            s = self.plan.species_of[a]
            piles = sorted(self.plan.by_pile[a])
        else:
            key, table, s, piles = (a, g, rest[0]), self.feed, rest[0], [g, a]
            ivs = {iv for r, x, group in self.groups[g] if (r, x) == (a, s) for iv in group}
            low, high = self.feed_range(*key)
        values = self.rng.permutation(np.arange(low, high + 1)).tolist()
        part = self._pile(g, self.rng)
        accepts = -1
        if part is not None:  # the value a random solution of this pile gives, first
            steps = {step[1]: step[4] for step in self.plan.pile_batches[g]}
            first = sum(counts[s] for i, counts in part.items() if steps[i][s] in ivs)
            values.remove(first)
            values.insert(0, first)
            accepts = g if kind == "split" else -1
        return key, table, values, piles, accepts

    def search(self, k: int) -> dict | None:
        if k == len(self.choices):
            return self._sample_piles()
        key, table, values, piles, accepts = self._values(self.choices[k])
        for n, value in enumerate(values):
            if self.budget <= 0:
                self.cut = True
                return None
            self.budget -= 1
            table[key] = value
            if self.feasible([h for h in piles if h != accepts] if n == 0 else piles):
                found = self.search(k + 1)
                if found is not None:
                    return found
            del table[key]
        return None

    def _sample_piles(self) -> dict | None:
        solved: dict[int, tuple[int, ...]] = {}
        for g in range(self.plan.last_pile + 1):
            part = self._pile(g, self.rng)
            if part is None:
                return None
            solved.update(part)
        return solved
