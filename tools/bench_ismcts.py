"""Iterations per second of the ISMCTS agent (cardzoo.agents.ismcts), per game and player count.

    python tools/bench_ismcts.py                     # every game, its smallest count and one 3+
    python tools/bench_ismcts.py --games cubirds --players 2 --iterations 200 --positions 5

For each case it deals ``--positions`` games (seeds 0, 1, ...), plays 4 + 6 * seed random moves
into each (a midgame decision with a real choice), and times one search of ``--iterations``
iterations there, with random rollouts (``ismcts``) and heuristic rollouts (``ismcts-h``). It also
times ``determinize`` alone at the same positions, to show its share of an iteration. Times are
the process's CPU time (``time.process_time``), so other jobs on a shared machine slow the run
down but change the figures less than wall-clock times would.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from cardzoo.agents import Seat, make_agent
from cardzoo.envs import load

CASES = (
    ("beasty_bar", 2),
    ("beasty_bar", 4),
    ("cubirds", 2),
    ("cubirds", 4),
    ("odins_ravens", 2),
    ("sitting_ducks", 3),
    ("sitting_ducks", 5),
)


def positions(game: str, players: int, count: int) -> list:
    spec = load(game).GAME
    found = []
    seed = 0
    while len(found) < count:
        state = spec.state_cls(spec.make_config(num_players=players), seed=seed)
        rng = random.Random(seed)
        for _ in range(4 + 6 * seed):
            if state.terminal or state.truncated:
                break
            state.apply(rng.choice(state.legal_move_ids()))
        seed += 1
        if not state.terminal and not state.truncated and len(state.legal_move_ids()) > 1:
            found.append(state)
    return found


def bench(game: str, players: int, iterations: int, count: int) -> str:
    states = positions(game, players, count)
    parts = [f"{game:<14}{players:>3}p"]
    for kind in ("ismcts", "ismcts-h"):
        agent = make_agent(f"{kind}:{iterations}", game, seed=0)
        start = time.process_time()
        for state in states:
            agent.search(Seat(state, state.current_player))
        seconds = time.process_time() - start
        parts.append(f"{kind:>9} {iterations * len(states) / seconds:9.1f} it/s")
    rng = np.random.default_rng(0)
    start = time.process_time()
    reps = 20
    for state in states:
        for _ in range(reps):
            state.determinize(state.current_player, rng)
    parts.append(f"  determinize {(time.process_time() - start) / reps / len(states) * 1e3:.2f} ms")
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", help="comma-separated games (default: all cases)")
    parser.add_argument("--players", type=int, help="player count (with --games)")
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--positions", type=int, default=3)
    args = parser.parse_args()
    cases = CASES
    if args.games:
        chosen = args.games.split(",")
        cases = [(g, args.players or n) for g, n in CASES if g in chosen]
        cases = list(dict.fromkeys(cases))
    for game, players in cases:
        print(bench(game, players, args.iterations, args.positions), flush=True)


if __name__ == "__main__":
    main()
