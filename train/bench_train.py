"""Training speed: learner steps/s and total decisions/s of ``cardzoo train`` by batch size K.

    python -m cardzoo.train.bench_train [--games beasty_bar,cubirds] [--envs 1,8,32,64]
        [--opponents random,self] [--seconds 40] [--eval-games 400] [--json FILE]

Each measurement is a real ``Trainer`` run (evaluation, logging and checkpoints on, default
settings apart from K) stopped after about ``--seconds`` of training. It reports learner steps/s,
total decisions/s (learner + opponents), and the split of the time between rollouts (playing,
policy forward passes, SB3's buffer) and PPO updates. ``random`` plays every opponent seat with
the random agent; ``self`` with the current policy network (batched forward passes). The machine's
1-minute load average is printed next to each number: on a shared machine it explains most of
the spread.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any


def measure(
    game: str,
    envs: int,
    opponents: str,
    seconds: float,
    players: int | None = None,
    eval_games: int = 400,
) -> dict:
    from cardzoo.train.ppo import TrainConfig, Trainer

    baselines = ["random"] if opponents == "random" else []
    weights = [0.0, 0.0, 1.0] if opponents == "random" else [1.0, 0.0, 0.0]
    config = TrainConfig(
        game=game,
        players=players,
        envs=envs,
        timesteps=10**9,
        baselines=baselines,
        pool_weights=weights,
        max_minutes=seconds / 60,
        eval_games=eval_games,
    )
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as out:
        trainer = Trainer(config, out, quiet=True)
        started, cpu = time.perf_counter(), time.process_time()
        summary = trainer.run()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        moves = trainer.venv.opponent_moves
    steps = summary["timesteps"]
    busy = summary["rollout_s"] + summary["update_s"] + summary["other_s"]
    return {
        "game": game,
        "players": players,
        "envs": envs,
        "opponents": opponents,
        "learner_steps": steps,
        "learner_steps_per_s": round(steps / busy),
        "decisions_per_s": round((steps + moves) / busy),
        "rollout_share": round(summary["rollout_s"] / busy, 3),
        "update_share": round(summary["update_s"] / busy, 3),
        "other_share": round(summary["other_s"] / busy, 3),
        "wall_s": round(wall, 1),
        # CPU seconds of this process over the whole run (first and last evaluations included):
        # on a busy machine, steps per CPU second tell more about the code than steps/s.
        "learner_steps_per_cpu_s": round(steps / cpu),
        "load_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="beasty_bar,cubirds")
    parser.add_argument("--envs", default="1,8,32,64", help="values of K")
    parser.add_argument("--opponents", default="random,self")
    parser.add_argument("--seconds", type=float, default=40.0, help="training time per point")
    parser.add_argument(
        "--eval-games",
        type=int,
        default=400,
        help="games of the evaluations (the first and last fall outside the timed part)",
    )
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    print(
        f"{'game':<12}{'K':>4} {'opponents':<10}{'learner/s':>10}{'decisions/s':>12}"
        f"{'rollout':>9}{'update':>8}{'other':>7}{'per cpu-s':>10}   load (before, after)"
    )
    for game in args.games.split(","):
        for opponents in args.opponents.split(","):
            for envs in (int(k) for k in args.envs.split(",")):
                r = measure(game, envs, opponents, args.seconds, eval_games=args.eval_games)
                rows.append(r)
                print(
                    f"{game:<12}{envs:>4} {opponents:<10}{r['learner_steps_per_s']:>10,}"
                    f"{r['decisions_per_s']:>12,}{r['rollout_share']:>9.0%}"
                    f"{r['update_share']:>8.0%}{r['other_share']:>7.0%}"
                    f"{r['learner_steps_per_cpu_s']:>10,}   {r['load_1min']}",
                    flush=True,
                )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
