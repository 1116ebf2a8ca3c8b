"""A small max-flow with lower bounds, for the exact fallback of Cubirds' resampling.

Graphs here have a few dozen nodes, so a plain augmenting-path (Edmonds-Karp) search is enough.
A random adjacency order picks a random feasible solution among many.
"""

from __future__ import annotations

from collections import deque

import numpy as np


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
