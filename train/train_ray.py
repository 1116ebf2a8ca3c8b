"""``cardzoo train-ray``: RLlib PPO self-play with a league, on a local Ray or a cluster.

cardzoo train-ray beasty_bar --players 2 --num-env-runners 2 --iterations 20 --out runs/ray-bb
cardzoo train-ray --resume runs/ray-bb --iterations 10     # ten more iterations
cardzoo train-ray beasty_bar --address auto ...           # an existing cluster (ray start)

Each iteration samples one PPO batch with the env runners and updates ``main`` on the learners.
The league: in every episode one seat (chosen by the episode id) plays ``main``; each other seat
plays a member drawn by the policy mapping (all members equally likely) from ``main`` itself,
``random``, ``heuristic`` and the frozen snapshots of ``main`` (``main_v1``, ...), one added
whenever main's win rate over an iteration reaches ``--snapshot-threshold``. The heuristic needs
the game state, which an RLModule never sees, so the env plays the seats mapped to it
(:func:`cardzoo.train.rllib.hand_env_seats`). The league's members, their shares and the opponent
seats each filled are logged every iteration. Random and the heuristic are also the evaluation
opponents.

The run folder holds ``run.json`` (settings and league), ``progress.jsonl`` (one line per
iteration), ``checkpoints/iter-NNNNNN`` (RLlib's ``Algorithm.save_to_path``; the newest 3 are
kept) and ``export/policy.npz`` (the actor as numpy arrays: the agent spec ``rllib:DIR`` plays
it). See docs/ray.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import time
from pathlib import Path
from typing import Any

from cardzoo.envs import ENV_MODULES, load

#: Checkpoints kept in a run folder (the newest ones).
KEEP_CHECKPOINTS = 3
RUN_FILE = "run.json"


def add_parser(sub: Any) -> None:
    """The ``train-ray`` subcommand."""
    p = sub.add_parser(
        "train-ray",
        help="RLlib PPO self-play with a league on Ray (local or a cluster; needs the ray extra)",
        description="Masked PPO on RLlib's new API stack: env runners sample, learners update; "
        "see docs/ray.md.",
    )
    p.add_argument("game", nargs="?", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument("--players", type=int, help="seats (default: the game's smallest count)")
    p.add_argument("--num-env-runners", type=int, default=1, help="sampling actors (default 1)")
    p.add_argument(
        "--num-learners", type=int, default=0, help="learner actors (default 0: in the driver)"
    )
    p.add_argument("--address", help="an existing Ray cluster: auto, HOST:PORT or ray://HOST:PORT")
    p.add_argument("--num-cpus", type=int, help="CPUs of the local Ray started without --address")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--iterations", type=int, help="PPO iterations to run (default 10)")
    stop.add_argument("--max-minutes", type=float, help="stop after the iteration passing this")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/ray-GAME-Np-seedS)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its checkpoint")
    p.add_argument("--seed", type=int, help="seed of the run (default 0)")
    p.add_argument("--batch", type=int, help="env steps per iteration (default 4000)")
    p.add_argument("--hidden", help="hidden layer sizes, comma-separated (default 256,256)")
    p.add_argument(
        "--eval-games", type=int, default=100, help="games per evaluation opponent (0: none)"
    )
    p.add_argument(
        "--snapshot-threshold",
        type=float,
        help="main's win rate over an iteration that adds a frozen snapshot of it to the league "
        "when reached (default 0.6; above 1: never)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("options", nargs="*", default=[], metavar="key=value", help="rule options")
    p.set_defaults(func=cmd_train_ray)


# -- the league --------------------------------------------------------------------------------


class League:
    """Who the non-main seats play: ``main``, ``random``, the heuristic (when ``heuristic``;
    played by the env) and frozen snapshots of main, each equally likely."""

    def __init__(
        self, seats: int, snapshots: list[str] | None = None, heuristic: bool = True
    ) -> None:
        self.seats = seats
        self.snapshots = list(snapshots or [])
        self.heuristic = heuristic

    @classmethod
    def of_run(cls, settings: dict[str, Any]) -> League:
        """The league of a run: the heuristic joins when the game has one."""
        from cardzoo.agents import HEURISTICS

        env = settings["env"]
        return cls(env["players"], settings["snapshots"], env["game"] in HEURISTICS)

    @property
    def opponents(self) -> list[str]:
        from cardzoo.train.rllib import HEURISTIC, MAIN, RANDOM

        return [MAIN, RANDOM, *([HEURISTIC] if self.heuristic else []), *self.snapshots]

    def shares(self) -> dict[str, float]:
        """The chance of each member for one opponent seat of an episode."""
        members = self.opponents
        return {name: 1 / len(members) for name in members}

    def next_snapshot(self) -> str:
        return f"main_v{len(self.snapshots) + 1}"

    def mapping(self) -> Any:
        """The policy mapping: main in the seat the episode id picks, league members elsewhere
        (drawn per episode and seat)."""
        from cardzoo.train.rllib import MAIN

        seats, opponents = self.seats, self.opponents

        def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
            seat = int(str(agent_id).rsplit("_", 1)[1])
            key = hash(episode.id_)
            if key % seats == seat:
                return MAIN
            return random.Random(key * 31 + seat).choice(opponents)

        return mapping


def _league_callback(seats: int) -> Any:
    """An RLlib callback counting main's games, wins and opponents per iteration (built
    lazily: it imports RLlib)."""
    import functools

    from cardzoo.train.rllib import MAIN
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class LeagueCallback(RLlibCallback):
        def __init__(self, seats: int) -> None:
            super().__init__()
            self.seats = seats

        def on_episode_end(self, *, episode: Any, metrics_logger: Any, **kwargs: Any) -> None:
            main = f"player_{hash(episode.id_) % self.seats}"  # the seat the mapping gave main
            sa = episode.agent_episodes.get(main)
            if sa is None or episode.module_for(main) != MAIN or not len(sa):
                return
            won = (sa.get_infos(-1) or {}).get("result") == "win"
            metrics_logger.log_value(("league", "games"), 1, reduce="sum")
            metrics_logger.log_value(("league", "wins"), int(won), reduce="sum")
            # every seat, also those the env played (they have no data in the episode)
            for seat in range(self.seats):
                if seat != int(main.rsplit("_", 1)[1]):
                    key = ("league", "seats", episode.module_for(f"player_{seat}"))
                    metrics_logger.log_value(key, 1, reduce="sum")

    return functools.partial(LeagueCallback, seats=seats)


# -- the run ------------------------------------------------------------------------------------


def _settings(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """(run folder, settings), new or read back from a run to resume."""
    from cardzoo.train.cli import check_count

    flags = {
        "batch": args.batch,
        "seed": args.seed,
        "hidden": args.hidden,
        "snapshot_threshold": args.snapshot_threshold,
    }
    if args.resume:
        path = os.path.join(args.resume, RUN_FILE)
        if not os.path.exists(path):
            raise ValueError(f"{args.resume!r} is not a train-ray run folder (no {RUN_FILE})")
        with open(path) as fh:
            settings = json.load(fh)
        fixed = [f"--{k.replace('_', '-')}" for k in ("batch", "seed", "hidden") if flags[k]]
        if args.players is not None or args.options:
            fixed.append("--players/rule options")
        if args.game is not None and load(args.game).GAME.name != settings["env"]["game"]:
            raise ValueError(f"{args.resume!r} is a {settings['env']['game']} run")
        if fixed:
            raise ValueError(f"{', '.join(fixed)} cannot change when resuming a run")
        if args.snapshot_threshold is not None:
            settings["snapshot_threshold"] = args.snapshot_threshold
        return args.resume, settings
    if args.game is None:
        raise ValueError("give a game to train on (or --resume DIR)")
    from cardzoo.train.rllib import env_config

    env = env_config(args.game, args.players, dict(args.options))
    hidden = [int(h) for h in (args.hidden or "256,256").split(",") if h.strip()]
    settings = {
        "env": env,
        "seed": 0 if args.seed is None else args.seed,
        "batch": 4000 if args.batch is None else args.batch,
        "hidden": hidden,
        "snapshot_threshold": 0.6 if args.snapshot_threshold is None else args.snapshot_threshold,
        "snapshots": [],
    }
    check_count("--seed", settings["seed"], 0)
    check_count("--batch", settings["batch"], 64, 10**7)
    if not hidden or min(hidden) < 1:
        raise ValueError(f"--hidden must list positive layer sizes, got {args.hidden!r}")
    out = args.out or os.path.join(
        "runs", f"ray-{env['game']}-{env['players']}p-seed{settings['seed']}"
    )
    if os.path.exists(os.path.join(out, RUN_FILE)):
        raise ValueError(f"{out!r} already holds a run: continue it with --resume {out}")
    return out, settings


def build_algo(settings: dict[str, Any], runners: int, learners: int) -> Any:
    """The PPO algorithm of a run: main, random and the league's snapshots."""
    from cardzoo.train import rllib

    league = League.of_run(settings)
    modules = {rllib.RANDOM: rllib.random_spec()}
    modules.update({s: rllib.module_spec(settings["hidden"]) for s in league.snapshots})
    batch = settings["batch"]
    config = rllib.ppo_config(
        settings["env"],
        modules=modules,
        mapping=league.mapping(),
        num_env_runners=runners,
        num_learners=learners,
        hidden=settings["hidden"],
        seed=settings["seed"],
        train_batch_size=batch,
        minibatch_size=min(1024, batch),  # as cardzoo train (batch_size 1024)
    ).callbacks(_league_callback(settings["env"]["players"]))
    return config.build_algo()


def latest_checkpoint(out: str) -> Path | None:
    found = sorted(Path(out, "checkpoints").glob("iter-*"))
    return found[-1] if found else None


def _save(algo: Any, out: str, settings: dict[str, Any]) -> Path:
    path = Path(out, "checkpoints", f"iter-{algo.iteration:06d}")
    algo.save_to_path(str(path))
    for old in sorted(Path(out, "checkpoints").glob("iter-*"))[:-KEEP_CHECKPOINTS]:
        shutil.rmtree(old, ignore_errors=True)
    _write_json(os.path.join(out, RUN_FILE), settings)
    return path


def _write_json(path: str, data: Any) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=2)
    os.replace(tmp, path)


def add_snapshot(algo: Any, league: League, settings: dict[str, Any]) -> str:
    """Freeze a copy of main into the league (learners and env runners get its weights)."""
    from cardzoo.train import rllib
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    name = league.next_snapshot()
    league.snapshots.append(name)
    main = algo.get_module(rllib.MAIN)
    algo.add_module(
        module_id=name,
        module_spec=RLModuleSpec.from_module(main),
        new_agent_to_module_mapping_fn=league.mapping(),
        new_should_module_be_updated=[rllib.MAIN],
    )
    state = algo.learner_group.get_state(components=f"learner/rl_module/{rllib.MAIN}")
    weights = state["learner"]["rl_module"][rllib.MAIN]
    algo.learner_group.set_state({"learner": {"rl_module": {name: weights}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )
    settings["snapshots"] = list(league.snapshots)
    return name


def export_main(algo: Any, out: str, settings: dict[str, Any]) -> str:
    """Write main's actor to ``out/export/policy.npz`` (what ``rllib:out`` plays)."""
    from cardzoo.train import rllib

    return rllib.export_policy(
        algo.get_module(rllib.MAIN),
        os.path.join(out, "export"),
        settings["env"],
        iteration=algo.iteration,
    )


def evaluate_export(export: str, settings: dict[str, Any], games: int) -> dict[str, Any]:
    """Win rates of the exported policy against random and the heuristic (seats rotated)."""
    from cardzoo.agents import HEURISTICS
    from cardzoo.train.tournament import run_tournament

    env = settings["env"]
    found = {}
    for opponent in ["random", "heuristic"] if env["game"] in HEURISTICS else ["random"]:
        result = run_tournament(
            env["game"],
            [f"rllib:{export}", opponent],
            games,
            env["players"],
            seed=settings["seed"] + 1,
            config=env["options"],
        )
        me = result.agents[0]
        found[opponent] = {"win_rate": me.win_rate, "ci95": list(me.interval)}
    return found


def _count(value: Any) -> int:
    """A count from RLlib's metrics: a metric that logged nothing this iteration can come back
    NaN (seen once on a resumed two-node run under load: "cannot convert float NaN to
    integer"), which counts as 0."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return 0
    return int(value)


def iteration_row(result: dict[str, Any], wall: float) -> dict[str, Any]:
    """The numbers of one iteration from RLlib's result dict."""
    runners = result.get("env_runners", {})
    timers = result.get("timers", {})
    steps = _count(runners.get("num_env_steps_sampled", 0))
    main_steps = _count(runners.get("num_module_steps_sampled", {}).get("main", 0))
    # RLlib's timers are smoothed over iterations (EMA), so the sampling time of this iteration
    # is taken as its wall time less the learner update (which varies little between them).
    update = float(timers.get("learner_update_timer", 0.0))
    if math.isnan(update):
        update = 0.0
    sampling = max(wall - update, 1e-9)
    league = runners.get("league", {})
    games = _count(league.get("games", 0))
    wins = _count(league.get("wins", 0))
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": steps,
        "main_steps": main_steps,
        "seconds": round(wall, 3),
        "sampling_steps_per_s": round(steps / sampling, 1),
        "learner_steps_per_s": round(main_steps / wall, 1) if wall else None,
        "update_s": round(update, 3),
        "main_games": games,
        "main_win_rate": round(wins / games, 4) if games else None,
        "opponents": {k: _count(v) for k, v in league.get("seats", {}).items()},
    }


def _line(row: dict[str, Any], league: League) -> str:
    win = row["main_win_rate"]
    text = (
        f"iter {row['iteration']}: {row['env_steps']} env steps in {row['seconds']:.1f} s "
        f"(sampling {row['sampling_steps_per_s'] or 0:,.0f} steps/s, learner "
        f"{row['learner_steps_per_s'] or 0:,.0f} main steps/s, update {row['update_s']:.1f} s); "
        f"main won {'-' if win is None else f'{win:.2f}'} of {row['main_games']} games; league "
        f"{', '.join(f'{k} {v:.2f}' for k, v in league.shares().items())} "
        f"(opponent seats {row['opponents']})"
    )
    for name, ev in row.get("eval", {}).items():
        low, high = ev["ci95"]
        text += f"; vs {name} {ev['win_rate']:.2f} [{low:.2f}, {high:.2f}]"
    return text


def _start_ray(args: argparse.Namespace) -> bool:
    """Connect to ``--address`` or start a local Ray; False when Ray was already running (a
    caller that set it up, e.g. a test cluster, keeps it)."""
    import ray
    from cardzoo.train.ray_eval import init_ray

    if ray.is_initialized():
        return False
    cpus = args.num_cpus or max(os.cpu_count() or 1, args.num_env_runners + args.num_learners)
    init_ray(args.address, num_cpus=cpus)
    return True


def _check_numbers(args: argparse.Namespace) -> None:
    from cardzoo.train.cli import check_count

    check_count("--num-env-runners", args.num_env_runners, 0, 1024)
    check_count("--num-learners", args.num_learners, 0, 1024)
    check_count("--eval-games", args.eval_games, 0, 10**6)
    if args.iterations is not None:
        check_count("--iterations", args.iterations, 1, 10**7)
    if args.max_minutes is not None and not 0 < args.max_minutes <= 10**6:
        raise ValueError(f"--max-minutes must be > 0, got {args.max_minutes}")
    threshold = args.snapshot_threshold
    if threshold is not None and not 0 <= threshold <= 2:
        raise ValueError(
            f"--snapshot-threshold must be a win rate 0..1 (above 1: never), got {threshold}"
        )
    if args.num_cpus is not None:
        check_count("--num-cpus", args.num_cpus, 1, 4096)


def cmd_train_ray(args: argparse.Namespace) -> int:
    _check_numbers(args)
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError as err:
        raise ValueError(
            f"train-ray needs the ray extra (pip install 'cardzoo[ray]'): {err}"
        ) from None
    out, settings = _settings(args)
    from cardzoo.train.ppo import prepare_run_folder

    started = _start_ray(args)  # before the run folder: a cluster not reached leaves none
    try:
        prepare_run_folder(out)
        _write_json(os.path.join(out, RUN_FILE), settings)
        rows = run(args, out, settings)
    finally:
        if started:
            import ray

            ray.shutdown()
    print(f"run folder {out}: {len(rows)} iterations; the policy plays as rllib:{out}")
    return 0


def runner_nodes(algo: Any) -> list[str]:
    """The Ray node id of each remote env runner (empty when sampling in the driver)."""
    import ray

    def node(runner: Any) -> str:
        return ray.get_runtime_context().get_node_id()

    return list(algo.env_runner_group.foreach_env_runner(node, local_env_runner=False))


def run(args: argparse.Namespace, out: str, settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Train until ``--iterations`` more iterations or ``--max-minutes``; returns the rows."""
    algo = build_algo(settings, args.num_env_runners, args.num_learners)
    league = League.of_run(settings)
    if args.resume:
        checkpoint = latest_checkpoint(out)
        if checkpoint is None:
            raise ValueError(f"{out!r} has no checkpoint to resume from")
        algo.restore_from_path(str(checkpoint))
        if not args.quiet:
            print(f"resumed {checkpoint} (iteration {algo.iteration})")
    nodes = runner_nodes(algo)
    if not args.quiet and nodes:
        print(f"{len(nodes)} env runners on {len(set(nodes))} node(s)")
    iterations = args.iterations or (None if args.max_minutes else 10)
    started, rows = time.perf_counter(), []
    try:
        while True:
            t0 = time.perf_counter()
            row = iteration_row(algo.train(), time.perf_counter() - t0)
            export = export_main(algo, out, settings)
            if args.eval_games:
                row["eval"] = evaluate_export(export, settings, args.eval_games)
            win = row["main_win_rate"]
            if win is not None and win >= settings["snapshot_threshold"]:
                row["snapshot_added"] = add_snapshot(algo, league, settings)
            row["league"] = league.opponents
            row["league_shares"] = {k: round(v, 4) for k, v in league.shares().items()}
            row["runner_nodes"] = nodes
            row["checkpoint"] = str(_save(algo, out, settings))
            with open(os.path.join(out, "progress.jsonl"), "a") as fh:
                fh.write(json.dumps(row) + "\n")
            if not args.quiet:
                print(_line(row, league), flush=True)
            rows.append(row)
            minutes = (time.perf_counter() - started) / 60
            if (iterations and len(rows) >= iterations) or (
                args.max_minutes and minutes >= args.max_minutes
            ):
                return rows
    finally:
        algo.stop()
