"""Measure Odin's Ravens ``State.determinize``: its cost early, in the middle and late in seeded
random games, and how often two hidden twins give different samples for the same rng.

Not a test (timings depend on the machine); run it by hand::

    .venv/bin/python tests/odins_ravens/bench_ravens_determinize.py

Cost: for each of ``GAMES`` seeded random games (moves drawn with ``random.Random(seed)``), the
position after move 10, 300 and 1000; at each, ``determinize`` for both seats is called
``CALLS`` times on the same state, in ``REPEATS`` batches; the mean time per call of the fastest
batch is reported (median over games): the machine may be shared, the fastest batch is the
least disturbed.
Twins: the issue 16 measure; positions every 23 moves of random games; the twin is
``determinize(p, default_rng(seed))`` of the position; both are determinized for ``p`` with
``default_rng(7)`` and every seat's view compared, then again after the same 30 random moves.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

import numpy as np
from cardzoo.envs.odins_ravens import Config, State

GAMES = 12
CALLS = 50
REPEATS = 5
MARKS = (10, 300, 1000)


def positions_at(cfg: Config, seed: int, marks: tuple[int, ...]) -> dict[int, State]:
    """The state after move ``m`` of a seeded random game, for each mark it reaches."""
    s = State(cfg, seed=seed)
    rng = random.Random(seed)
    out: dict[int, State] = {}
    while not s.terminal and s.move_count < max(marks):
        s.apply(rng.choice(s.legal_move_ids()))
        if s.move_count in marks:
            out[s.move_count] = s.clone()
    return out


def cost(cfg: Config) -> dict[int, float]:
    """Median over games of the mean ms per determinize call, per mark."""
    per_mark: dict[int, list[float]] = {m: [] for m in MARKS}
    seed = 0
    while min(len(v) for v in per_mark.values()) < GAMES and seed < 10 * GAMES:
        for mark, state in positions_at(cfg, seed, MARKS).items():
            if len(per_mark[mark]) >= GAMES:
                continue
            rng = np.random.default_rng(seed)
            state.determinize(0, rng)  # a first call may build a cache: not timed
            state.determinize(1, rng)
            best = float("inf")
            for _ in range(REPEATS):  # the least loaded of a few batches: the machine is shared
                t0 = time.perf_counter()
                for i in range(CALLS):
                    state.determinize(i & 1, rng)
                best = min(best, (time.perf_counter() - t0) / CALLS * 1e3)
            per_mark[mark].append(best)
        seed += 1
    return {m: statistics.median(v) for m, v in per_mark.items() if v}


def first_call(cfg: Config) -> dict[int, float]:
    """Median over games of the first determinize call on a fresh clone (no warm cache)."""
    per_mark: dict[int, list[float]] = {m: [] for m in MARKS}
    for seed in range(3 * GAMES):
        for mark, state in positions_at(cfg, seed, MARKS).items():
            rng = np.random.default_rng(seed)
            times = []
            for i in range(20):
                fresh = state.clone()
                t0 = time.perf_counter()
                fresh.determinize(i & 1, rng)
                times.append(time.perf_counter() - t0)
            per_mark[mark].append(statistics.mean(times) * 1e3)
    return {m: statistics.median(v) for m, v in per_mark.items() if v}


def views(state: State) -> tuple:
    return tuple(state.view(p) for p in range(2))


def twin_differences(cfg: Config, games: int = 8, every: int = 23) -> tuple[int, int]:
    """(positions whose twins' samples differ, positions checked)."""
    differ = checked = 0
    for seed in range(games):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not s.terminal and not s.truncated:
            s.apply(rng.choice(s.legal_move_ids()))
            k += 1
            if k % every:
                continue
            for p in (0, 1):
                twin = s.determinize(p, np.random.default_rng(1000 + k))
                a = s.determinize(p, np.random.default_rng(7))
                b = twin.determinize(p, np.random.default_rng(7))
                same = views(a) == views(b)
                moves = random.Random(k)
                for _ in range(30):
                    if a.terminal or not same:
                        break
                    move = moves.choice(a.legal_move_ids())
                    if not b.is_legal(move):
                        same = False
                        break
                    a.apply(move)
                    b.apply(move)
                    same = views(a) == views(b)
                differ += not same
                checked += 1
    return differ, checked


def main() -> None:
    for name, cfg in (
        ("default", Config()),
        ("strict joker", Config(joker_requires_no_match=True)),
    ):
        c = cost(cfg)
        f = first_call(cfg)
        marks = ", ".join(f"move {m}: {c[m]:.3f} ms (first call {f[m]:.3f} ms)" for m in c)
        print(f"{name}: determinize, mean per call, median over {GAMES} games: {marks}")
        if "--no-twins" not in sys.argv:
            d, n = twin_differences(cfg)
            print(f"{name}: hidden twins giving different samples for default_rng(7): {d} of {n}")


if __name__ == "__main__":
    main()
