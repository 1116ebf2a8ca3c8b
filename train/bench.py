"""Steps per second of cardzoo envs under random legal play (the standard AEC loop).

Every env is timed with exactly the same loop: ``env.last()``, pick a uniformly random unmasked
action, ``env.step()``. PettingZoo classic envs are timed with the same loop as peers when they can
be imported (they need ``pettingzoo[classic]``), so ratios come from one run on one machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

PEERS: dict[str, str] = {
    "leduc_holdem_v4": "pettingzoo.classic.leduc_holdem_v4",
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
}


def steps_per_second(make_env: Callable[[], Any], min_steps: int = 50_000, seed: int = 0) -> float:
    """Random legal play until at least ``min_steps`` steps; returns steps/s (resets included)."""
    env = make_env()
    rng = np.random.default_rng(seed)
    integers = rng.integers
    flatnonzero = np.flatnonzero
    steps = 0
    episode = 0
    start = time.perf_counter()
    while steps < min_steps:
        # Seed the first episode only: some peers rebuild their game when reseeded.
        env.reset(seed=seed if episode == 0 else None)
        episode += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = flatnonzero(obs["action_mask"])
                env.step(int(legal[integers(legal.size)]))
            steps += 1
    return steps / (time.perf_counter() - start)


def run(games: list[Any], min_steps: int = 50_000, repeats: int = 3) -> list[dict[str, Any]]:
    """Time env() and raw_env() of every game and player count, and the importable peers."""
    import importlib

    rows = []
    for name, module_name in PEERS.items():
        try:
            module = importlib.import_module(module_name)
        except Exception as err:  # missing optional deps (rlcard, pygame)
            print(f"peer {name}: not importable ({type(err).__name__}: {err}); skipped")
            continue
        best = max(steps_per_second(module.env, min_steps) for _ in range(repeats))
        rows.append(
            {"env": f"pettingzoo {name}", "players": 2, "factory": "env()", "steps_per_s": best}
        )
        print(f"{rows[-1]['env']:<28} env()      {best:>10,.0f} steps/s", flush=True)
    for module in games:
        for n in module.GAME.player_counts:
            # Alternate the factories within each repeat so that drifting machine load hits
            # both alike; keep the best of the repeats.
            best = {"env": 0.0, "raw_env": 0.0}
            for _ in range(repeats):
                for factory in best:
                    make = getattr(module, factory)
                    rate = steps_per_second(lambda make=make, n=n: make(num_players=n), min_steps)
                    best[factory] = max(best[factory], rate)
            for factory, rate in best.items():
                rows.append(
                    {
                        "env": module.GAME.env_name,
                        "players": n,
                        "factory": f"{factory}()",
                        "steps_per_s": rate,
                    }
                )
                label = f"{module.GAME.env_name} {n}p"
                print(f"{label:<28} {factory + '()':<10} {rate:>10,.0f} steps/s", flush=True)
    return rows
