"""A small max-flow with lower bounds, and the networks of Cubirds' exact resampling stages: the
batches drawn from one draw pile, solved at once (:func:`solve_pile`, :func:`pile_flow`).

Graphs here have a few dozen nodes, so a plain augmenting-path (Edmonds-Karp) search is enough.
A random adjacency order picks a random feasible solution among many.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.cubirds.data import EV_RESHUFFLE, NUM_SPECIES

if TYPE_CHECKING:
    from cardzoo.envs.cubirds.hidden_replay import _Plan


class _Edge:
    __slots__ = ("to", "cap", "rev", "low")

    def __init__(self, to: int, cap: int, low: int = 0) -> None:
        self.to = to
        self.cap = cap
        self.rev: _Edge | None = None
        self.low = low


class BoundedFlow:
    """A network whose edges carry between ``low`` and ``high`` units; finds a feasible flow."""

    def __init__(self, num_nodes: int) -> None:
        self.num_nodes = num_nodes
        self.adj: list[list[_Edge]] = [[] for _ in range(num_nodes + 2)]
        self.excess = [0] * (num_nodes + 2)

    def _edge(self, u: int, v: int, cap: int, low: int = 0) -> _Edge:
        forward, backward = _Edge(v, cap, low), _Edge(u, 0)
        forward.rev, backward.rev = backward, forward
        self.adj[u].append(forward)
        self.adj[v].append(backward)
        return forward

    def add(self, u: int, v: int, low: int, high: int) -> _Edge:
        """An edge ``u -> v`` carrying ``low..high`` units; returns a handle for :meth:`flow`."""
        if low > high:
            raise ValueError(f"edge {u}->{v}: low {low} > high {high}")
        self.excess[v] += low
        self.excess[u] -= low
        return self._edge(u, v, high - low, low)

    @staticmethod
    def flow(edge: _Edge) -> int:
        """Units on an edge of a solved network."""
        return edge.low + edge.rev.cap

    def solve(self, source: int, sink: int, rng: np.random.Generator | None = None) -> bool:
        """Look for a flow from ``source`` to ``sink`` meeting every edge's bounds (any amount
        in total); True if one exists (then :meth:`flow` reads it). Call once."""
        big = sum(e.cap for edges in self.adj for e in edges) + sum(map(abs, self.excess)) + 1
        self._edge(sink, source, big)  # the circulation closes through source and sink
        s_star, t_star = self.num_nodes, self.num_nodes + 1
        need = 0
        for v, x in enumerate(self.excess[: self.num_nodes]):
            if x > 0:
                self._edge(s_star, v, x)
                need += x
            elif x < 0:
                self._edge(v, t_star, -x)
        if rng is not None:
            for edges in self.adj:
                edges[:] = [edges[j] for j in rng.permutation(len(edges))]
        return self._max_flow(s_star, t_star) == need

    def _max_flow(self, s: int, t: int) -> int:
        adj = self.adj
        total = 0
        while True:
            parent: list[_Edge | None] = [None] * len(adj)
            seen = [False] * len(adj)
            seen[s] = True
            queue = deque([s])
            while queue and not seen[t]:
                u = queue.popleft()
                for e in adj[u]:
                    if e.cap > 0 and not seen[e.to]:
                        seen[e.to] = True
                        parent[e.to] = e
                        queue.append(e.to)
            if not seen[t]:
                return total
            push = None
            v = t
            while v != s:
                e = parent[v]
                push = e.cap if push is None else min(push, e.cap)
                v = e.rev.to
            v = t
            while v != s:
                e = parent[v]
                e.cap -= push
                e.rev.cap += push
                v = e.rev.to
            total += push


# ---------------------------------------------------------------------------------------------
# One draw pile's batches as a network (the exact stages of the replay, hidden_replay.py)
#
# Nodes: 0 source, 1 sink, 2 + s per species s, then the stage's own nodes (look-ahead bounds,
# lay intervals), then one node per batch. Every batch takes exactly its size; the order in which
# edges are added fixes the random solution a seeded rng finds, so it must not change.

SOURCE, SINK, SPECIES_NODE = 0, 1, 2


def pile_flow(
    plan: _Plan,
    g: int,
    avail: list[int],
    bounds: dict[int, tuple[int, int]],
    rng: np.random.Generator | None,
) -> dict[int, tuple[int, ...]] | None:
    """Pile ``g``'s batches as one flow, each lay interval taking ``bounds[iv]`` cards of its
    species from this pile; a random solution with ``rng``, any solution without. Returns the
    cards of every batch (log index -> counts), or None if there is no solution."""
    batches = plan.pile_batches[g]
    node = SPECIES_NODE + NUM_SPECIES
    interval_node: dict[int, int] = {}
    for iv in bounds:
        interval_node[iv] = node
        node += 1
    net = BoundedFlow(node + len(batches))
    _add_supply(net, avail, g < plan.last_pile)
    for iv, (low, high) in bounds.items():
        net.add(SPECIES_NODE + plan.species_of[iv], interval_node[iv], low, high)
    return _solve_batches(net, batches, node, interval_node, rng)


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
    batches = plan.pile_batches[g]
    req = plan.req
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
    net = BoundedFlow(node + len(batches))
    _add_supply(net, avail, g < plan.last_pile)
    bound, under_future = _look_ahead(plan, g, assigned, interval_node, fed)
    for s in range(NUM_SPECIES):
        if bound[s] > avail[s]:
            return None
        net.add(SPECIES_NODE + s, future + s, max(0, bound[s]), avail[s])
    if not _add_intervals(net, plan, g, assigned, interval_node, under_future):
        return None
    return _solve_batches(net, batches, node, interval_node, rng)


def _add_supply(net: BoundedFlow, avail: list[int], closed: bool) -> None:
    """What the pile holds, per species; a pile drawn to its end (``closed``) gives all of it."""
    for s in range(NUM_SPECIES):
        net.add(SOURCE, SPECIES_NODE + s, avail[s] if closed else 0, avail[s])


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


def _add_intervals(
    net: BoundedFlow,
    plan: _Plan,
    g: int,
    assigned: list[int],
    interval_node: dict[int, int],
    under_future: set[int],
) -> bool:
    """Each interval's share of this pile: what its lay still needs, less what later piles can
    give, up to its positions here (a thrown-away hand: anything). False if none fits."""
    req, by_pile = plan.req, plan.by_pile
    future = SPECIES_NODE + NUM_SPECIES
    for iv, v in interval_node.items():
        s = plan.species_of[iv]
        parent = future + s if iv in under_future else SPECIES_NODE + s
        if req[iv] < 0:  # a thrown-away hand: no requirement
            net.add(parent, v, 0, by_pile[iv][g])
            continue
        need = req[iv] - assigned[iv]
        here = by_pile[iv][g]
        later = sum(c for h, c in by_pile[iv].items() if h > g)
        low, high = max(0, need - later), min(need, here)
        if low > high:
            return False
        net.add(parent, v, low, high)
    return True


def _solve_batches(
    net: BoundedFlow,
    batches: list[tuple],
    node: int,
    interval_node: dict[int, int],
    rng: np.random.Generator | None,
) -> dict[int, tuple[int, ...]] | None:
    """Add the batches (each takes exactly its size, from its intervals or straight from the
    species) and solve: the cards of each batch by log index, or None."""
    edges = []
    for b, (_, _, _, k, ivs) in enumerate(batches):
        v = node + b
        net.add(v, SINK, k, k)
        edges.append(
            [
                net.add(interval_node.get(ivs[s], SPECIES_NODE + s), v, 0, k)
                for s in range(NUM_SPECIES)
            ]
        )
    if not net.solve(SOURCE, SINK, rng):
        return None
    return {step[1]: tuple(net.flow(e) for e in row) for step, row in zip(batches, edges)}
