"""Drawing the split at the last reshuffle (each other seat's row there) from the sums of
``crowded.py``: a draw picks a last state and walks back through the seats, one edge into the
current state per seat.

- :class:`Staged`: the hands now were summed too; the walk gives each seat's hand now.
- :class:`Swept`: the walk gives each seat's row (its hand at the last reshuffle); the hands
  now come by the exact rejection of ``now.py``. Where the walks are few (``MAX_PATHS``)
  every path is listed once, with its weight, and a draw is one lookup instead of a walk
  (session 15).

Both take ``levels``: per seat the edges' parent state and value, their cumulative weights
normalised per child state, and where each child's edges start (edges sorted by child).
"""

from __future__ import annotations

from math import floor

import numpy as np
from cardzoo.envs.sitting_ducks.now import search

#: The most paths (a split at the last reshuffle with each seat's row) ``Swept`` lists;
#: past it a draw walks back through the seats. Measured along the bench's 16 six-player
#: games, middle and late positions: most have under 60,000, a few 0.26M and 7M.
MAX_PATHS = 100_000


class Staged:
    """The last reshuffle's split and the hands now, summed as a forward sweep over the other
    seats whose states are (what is left of ``T``, what is left of ``U``, the seats still to
    come at the reshuffle before); a draw picks a final state and walks back through the
    seats, each step an edge into the current state (``levels``: per seat the edges' parent
    state and hand now, sorted by child state with cumulative weights normalised per child,
    and where each child's edges start). ``cum``: the final states' cumulative weights."""

    __slots__ = ("levels", "cum", "log_weight", "order")

    def __init__(
        self, levels: list, final: np.ndarray, log_weight: float, order: tuple | None = None
    ) -> None:
        self.levels, self.cum, self.log_weight = levels, np.cumsum(final), log_weight
        self.order = order

    def pick(self, state: int, u: list[float]) -> list[int]:
        """Each other seat's hand index now, from the final ``state`` and one uniform each."""
        ids = [0] * len(self.levels)
        for i in range(len(self.levels) - 1, -1, -1):
            parent, hand, cum, starts = self.levels[i]
            lo, hi = int(starts[state]), int(starts[state + 1])
            base = cum[lo - 1] if lo else 0.0
            e = int(np.searchsorted(cum[lo:hi], base + u[i] * (cum[hi - 1] - base), "right"))
            e = lo + min(e, hi - lo - 1)
            ids[i], state = int(hand[e]), int(parent[e])
        return ids


class Swept:
    """The last reshuffle's split swept seat by seat with only what is left of ``T`` kept
    (its hands are needed for nothing after it), each seat's column weighed by its bound for
    the hands now (``now.LastStep``): ``cum`` over the final states; a draw walks back through
    ``levels`` (as ``Staged``) to each seat's row at the last reshuffle, and the hands now
    come by the rejection of ``now.py`` (``lasts``). Where the walks back have at most
    ``MAX_PATHS`` paths, they are listed (``paths``: each seat's row, ``path_cum``: their
    cumulative weights), and a draw is one lookup (``pick_rows``)."""

    __slots__ = ("levels", "cum", "log_weight", "lasts", "order", "grid", "paths", "path_cum")

    def __init__(
        self,
        levels: list,
        final: np.ndarray,
        log_weight: float,
        lasts: list,
        order: tuple | None = None,
    ) -> None:
        self.cum, self.log_weight = np.cumsum(final), log_weight
        self.lasts, self.order = lasts, order
        # Each state's edges' cumulative shares run from the state's number to exactly the
        # next, cut to multiples of ``1 / grid`` as the uniforms are: a state's number plus
        # either is exact, so one searchsorted lands within the state's edges, never past
        # them (session 15: no bounds to apply per level).
        states = max(len(starts) for _, _, _, starts in levels)
        self.grid = 2.0 ** (52 - states.bit_length())
        self.levels = [
            (parent, row, _on_grid(cum, starts, self.grid), starts)
            for parent, row, cum, starts in levels
        ]
        self.paths = self.path_cum = None
        if _path_count(self.levels) <= MAX_PATHS:
            self.paths, weights = _paths(self.levels, np.asarray(final, dtype=float))
            self.path_cum = np.cumsum(weights)

    def pick_rows(self, x: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Per proposal (``x``: a uniform, ``u``: one more per seat): each seat's row, from
        the listed paths (``x`` alone) or by a walk back (``rows``)."""
        if self.paths is not None:
            return self.paths[search(self.path_cum, x * self.path_cum[-1])]
        return self.rows(search(self.cum, x * self.cum[-1]), u)

    def pick_rows_one(self, x: float, u: list[float]) -> list[int]:
        """``pick_rows`` for one proposal, without the arrays."""
        if self.paths is not None:
            cum = self.path_cum
            return self.paths[int(cum.searchsorted(x * cum[-1], "right"))].tolist()
        return self.rows_one(int(self.cum.searchsorted(x * self.cum[-1], "right")), u)

    def rows(self, states: np.ndarray, u: np.ndarray) -> np.ndarray:
        """Per final state (a vector) and uniforms (states x seats): each seat's row."""
        out = np.empty((len(states), len(self.levels)), dtype=np.int64)
        u = np.floor(u * self.grid) / self.grid
        for i in range(len(self.levels) - 1, -1, -1):
            parent, row, cum, _ = self.levels[i]
            e = search(cum, states + u[:, i])
            out[:, i], states = row[e], parent[e]
        return out

    def rows_one(self, state: int, u: list[float]) -> list[int]:
        """``rows`` for one final state (``u``: one uniform per seat), without the arrays."""
        out = [0] * len(self.levels)
        grid = self.grid
        for i in range(len(self.levels) - 1, -1, -1):
            parent, row, cum, _ = self.levels[i]
            e = int(cum.searchsorted(state + floor(u[i] * grid) / grid, "right"))
            out[i], state = int(row[e]), int(parent[e])
        return out


def _path_count(levels: list) -> float:
    """How many paths lead through ``levels`` to their last states (a path per edge of the
    first level, each edge of a later level continuing every path into its parent)."""
    count = None
    for parent, _, _, starts in levels:
        into = np.ones(len(parent)) if count is None else count[parent]
        count = np.add.reduceat(into, starts[:-1]) if len(into) else np.zeros(0)
    return float(count.sum()) if count is not None else 0.0


def _paths(levels: list, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every path from the last states back through ``levels`` (each seat's row, in the
    levels' order) and its weight: its last state's ``final`` weight times the share of
    each edge it takes (on ``levels``' grid: the same as a walk back's). Each level keeps its
    rows and where each path came from; the rows are put together once at the end (session
    26: copying the rows so far at every level cost about 40 % more, the same result)."""
    state = np.arange(len(final))
    weight = final.astype(float)
    came_from, rows_of = [], []
    for i in range(len(levels) - 1, -1, -1):
        parent, row, cum, starts = levels[i]
        share = np.diff(cum, prepend=0.0)  # a state's first edge: from the state's number
        first, many = starts[state], starts[state + 1] - starts[state]
        path = np.repeat(np.arange(len(state)), many)
        e = first[path] + np.arange(len(path)) - np.repeat(np.cumsum(many) - many, many)
        weight = weight[path] * share[e]
        state = parent[e]
        keep = weight > 0
        weight, state = weight[keep], state[keep]
        came_from.append(path[keep])
        rows_of.append(row[e[keep]])
    rows = np.empty((len(weight), len(levels)), dtype=np.int64)
    at = np.arange(len(weight))
    for i in range(len(levels)):  # level i was walked last but i: read back from the end
        rows[:, i] = rows_of[-1 - i][at]
        at = came_from[-1 - i][at]
    return rows, weight


def _on_grid(cum: np.ndarray, starts: np.ndarray, grid: float) -> np.ndarray:
    """Edges' cumulative shares (``cum``, summed across the states, each state's edges from
    ``starts``) as each state's number plus its own edges' cumulative share, that share cut
    to multiples of ``1 / grid`` and exactly 1 at the state's last edge."""
    counts = np.diff(starts)
    state = np.repeat(np.arange(len(counts)), counts)
    before = np.concatenate(([0.0], cum[starts[1:-1] - 1]))  # per state
    total = cum[starts[1:] - 1] - before
    total = np.where(total > 0, total, 1.0)
    # The same arithmetic in place (session 34: a level holds up to millions of edges, and
    # each new array of them cost about as much as the operation that made it).
    share = cum - before[state]
    share /= total[state]
    np.minimum(share, 1.0, out=share)
    share[starts[1:] - 1] = 1.0
    share *= grid
    np.floor(share, out=share)
    share /= grid
    share += state
    return share


def in_seat_order(order: tuple | None, ids):
    """Per-seat values listed in a summing ``order`` (``Staged``, ``Swept``) put back in the
    order of the seats (a list, or the columns of an array)."""
    if order is None:
        return ids
    if isinstance(ids, np.ndarray):
        out = np.empty_like(ids)
        out[:, list(order)] = ids
        return out
    out = [0] * len(order)
    for value, q in zip(ids, order):
        out[q] = value
    return out
