"""The ``cardzoo`` command line: list the games, run tournaments.

cardzoo list
cardzoo eval cubirds --agents heuristic,random --games 1000 --players 2 [--seed S] [--json F]
cardzoo eval cubirds --players 3 draw_after_empty_hand=true   # rule options as key=value
cardzoo demo [--games N]        # heuristic vs random on every game and player count
cardzoo train beasty_bar [--players N] [--timesteps T] [--envs K] [--seed S] [--out DIR]
cardzoo train --resume DIR      # continue a run (needs the train extra)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from cardzoo.agents import HEURISTICS
from cardzoo.envs import ENV_MODULES, __version__, games, load
from cardzoo.train.tournament import progress_bar, run_tournament


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with value read as bool, int, float or string, in that order."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"rule options are written key=value, got {text!r}")
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    for cast in (int, float):
        try:
            return key, cast(raw)
        except ValueError:
            pass
    return key, raw


def check_output_path(path: str | None) -> None:
    """Fail before any long work if ``path`` cannot be written (missing folder, no permission)."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"cannot write {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"cannot write {path}: permission denied")


def list_rows() -> list[tuple[str, ...]]:
    """The games table: a header row, then one row per registered env (the README shows it)."""
    rows = [
        (
            "game",
            "env",
            "players",
            "actions",
            "observation size (int8)",
            "state() size",
            "encoders",
            "variants",
        )
    ]
    for module in games():
        game = module.GAME
        obs_sizes, state_sizes = [], []
        counts = game.player_counts
        num_actions = None
        for n in game.player_counts:
            env = module.raw_env(num_players=n)
            obs_sizes.append(f"{n}p:{env.encoder.size}")
            state_sizes.append(f"{n}p:{env.encoder.state_size}")
            num_actions = env.encoder.num_actions
        encoders = ", ".join(
            f"{name} v{cls(game.make_config()).version}" for name, cls in game.encoders.items()
        )
        variants = ", ".join(
            f"{name} ({' '.join(f'{k}={v}' for k, v in overrides.items())})"
            for name, overrides in game.variants.items()
        )
        rows.append(
            (
                game.title,
                game.env_name,
                "-".join(dict.fromkeys(str(n) for n in (min(counts), max(counts)))),
                str(num_actions),
                " ".join(obs_sizes),
                " ".join(state_sizes),
                encoders,
                variants or "-",
            )
        )
    return rows


def markdown_table(rows: list[tuple[str, ...]]) -> str:
    """Rows (the first is the header) as a Markdown table."""
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def cmd_list(args: argparse.Namespace) -> int:
    rows = list_rows()
    if args.markdown:
        print(markdown_table(rows))
        return 0
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return 0


def _eval(
    game: str,
    agents: list[str],
    n_games: int,
    players: int,
    seed: int,
    config: dict[str, Any],
    workers: int,
    quiet: bool,
) -> Any:
    progress = None if quiet else progress_bar(f"{game} {players}p")
    return run_tournament(
        game, agents, n_games, players, seed=seed, config=config, progress=progress, workers=workers
    )


def cmd_eval(args: argparse.Namespace) -> int:
    config = dict(args.options)
    if "num_players" in config:
        raise SystemExit("error: give the player count with --players, not num_players=")
    if args.variant is not None:
        config["variant"] = args.variant
    check_output_path(args.json)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    result = _eval(
        args.game, agents, args.games, args.players, args.seed, config, args.workers, args.quiet
    )
    print(result.table())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result.to_dict(), fh, indent=2)
        print(f"results written to {args.json}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job: the heuristic against random on every game that has a heuristic."""
    check_output_path(args.json)
    summary = []
    for module in games():
        game = module.GAME
        if game.name not in HEURISTICS:
            print(f"{game.name}: no heuristic yet, skipped")
            continue
        for n in game.player_counts:
            result = _eval(
                game.name,
                ["heuristic", "random"],
                args.games,
                n,
                args.seed,
                {},
                args.workers,
                args.quiet,
            )
            print(result.table(), end="\n\n")
            summary.append(result.to_dict())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=2)
        print(f"results written to {args.json}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from cardzoo.train import bench, bench_report

    check_output_path(args.json)
    check_output_path(args.plot)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plot needs matplotlib: pip install 'cardzoo[train]'") from None
    players = None if args.players is None else [n for group in args.players for n in group]
    modules, counts = bench.select(args.game, players, games())
    settings = bench.Settings(
        modules,
        counts,
        seconds=args.seconds,
        repeats=args.repeats,
        peers=args.peers,
        train=args.train,
        memory_games=args.memory_games,
        train_seconds=args.train_seconds,
    )
    report = bench.run(settings)
    print()
    print(bench_report.markdown(report), end="")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
        print(f"results written to {args.json}")
    if args.plot:
        bench_report.plot(report, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _player_counts(text: str) -> list[int]:
    """``--players 2,4`` or ``--players 2 4``."""
    try:
        return [int(part) for part in text.split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"player counts are integers, got {text!r}") from None


def _setting(config_cls: Any, key: str, value: Any) -> Any:
    """A ``--set key=value`` training setting; list settings take comma-separated values."""
    from dataclasses import fields

    kinds = {f.name: str(f.type) for f in fields(config_cls)}
    if key not in kinds or key in ("game", "options"):
        names = ", ".join(k for k in kinds if k not in ("game", "options"))
        raise ValueError(f"unknown training setting {key!r}; settings: {names}")
    if kinds[key].startswith("list"):
        return [parse_option(f"x={v}")[1] for v in str(value).split(",") if v]
    if kinds[key] == "float" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def cmd_train(args: argparse.Namespace) -> int:
    # Idle torch threads sleep instead of spinning: on a machine shared with other work, spinning
    # threads made PPO updates several times slower. Must be set before torch is imported.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        from cardzoo.train.ppo import TrainConfig, Trainer, summary_table
    except ImportError as err:
        print(
            f"error: training needs the train extra (pip install 'cardzoo[train]'): {err}",
            file=sys.stderr,
        )
        return 2
    overrides = {
        k: v
        for k, v in (
            ("timesteps", args.timesteps),
            ("eval_every", args.eval_every),
            ("eval_games", args.eval_games),
            ("threads", args.threads),
            ("max_minutes", args.max_minutes),
            ("workers", args.workers),
        )
        if v is not None
    }
    for text in args.set or []:
        key, value = parse_option(text)
        overrides[key] = _setting(TrainConfig, key, value)
    if args.resume:
        out = args.resume
        path = os.path.join(out, "config.json")
        if not os.path.exists(path):
            raise ValueError(f"{out!r} is not a run folder (no config.json)")
        with open(path) as fh:
            saved = json.load(fh)
        saved.pop("cardzoo", None)
        if args.game is not None and load(args.game).GAME.name != saved["game"]:
            raise ValueError(f"{out!r} is a {saved['game']} run, not {args.game}")
        fixed = [
            name
            for name, value in (
                ("--players", args.players),
                ("--envs", args.envs),
                ("--seed", args.seed),
                ("rule options", args.options or None),
            )
            if value is not None
        ]
        if fixed:
            raise ValueError(f"{', '.join(fixed)} cannot change when resuming a run")
        config = TrainConfig.from_dict({**saved, **overrides})
    else:
        if args.game is None:
            raise ValueError("give a game to train on (or --resume DIR)")
        config = TrainConfig(
            game=args.game,
            players=args.players,
            envs=32 if args.envs is None else args.envs,
            seed=0 if args.seed is None else args.seed,
            options=dict(args.options),
            **overrides,
        )
        out = args.out or os.path.join("runs", f"{config.game}-{config.players}p-seed{config.seed}")
        if os.path.exists(os.path.join(out, "config.json")):
            raise ValueError(
                f"{out!r} already holds a run: continue it with --resume {out}, or choose "
                "another --out"
            )
    summary = Trainer(config, out, resume=bool(args.resume), quiet=args.quiet).run()
    print(summary_table(summary))
    return 130 if summary["interrupted"] else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardzoo", description="Card-game environments for multi-agent RL."
    )
    parser.add_argument("--version", action="version", version=f"cardzoo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("list", help="games, player counts, observation/action sizes, encoders")
    p.add_argument("--markdown", action="store_true", help="as a Markdown table (the README's)")
    p.set_defaults(func=cmd_list)

    default_workers = min(2, os.cpu_count() or 1)
    p = sub.add_parser("eval", help="seat-rotated tournament between agents")
    p.add_argument("game", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument(
        "--agents",
        default="heuristic,random",
        help="comma-separated agent specs, one per seat; the last fills spare seats",
    )
    p.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    p.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    p.add_argument("--seed", type=int, default=0, help="game g is dealt from (seed, g)")
    p.add_argument(
        "--workers",
        type=int,
        default=default_workers,
        help=f"processes (default {default_workers}); results do not depend on it",
    )
    p.add_argument(
        "--variant", help="a named variant of the game (see `cardzoo list`), e.g. advanced"
    )
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "options",
        nargs="*",
        type=parse_option,
        metavar="key=value",
        help="rule options, e.g. midturn_exhaustion=partial",
    )
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser(
        "bench",
        help="decisions/s of env(), raw_env(), engine and encoder; peers, memory, training",
        description="Random legal play, timed; see docs/benchmark.md for every number and the "
        "JSON schema.",
    )
    p.add_argument("game", nargs="*", help="games to measure (default: all)")
    p.add_argument(
        "--players", nargs="+", type=_player_counts, help="player counts (default: each game's)"
    )
    p.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement")
    p.add_argument("--repeats", type=int, default=3, help="measurements of each row (best, median)")
    p.add_argument(
        "--peers",
        action="store_true",
        help="also PettingZoo leduc/texas hold'em, connect four and RLCard's leduc (bench extra)",
    )
    p.add_argument(
        "--train", action="store_true", help="also training throughput for K = 1, 8, 64 games"
    )
    p.add_argument(
        "--memory-games",
        type=int,
        default=1000,
        help="games one env plays before its memory is measured (0: skip; default 1000)",
    )
    p.add_argument("--train-seconds", type=float, default=15.0, help="training time per K")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--plot", metavar="FILE", help="write a PNG bar chart (needs matplotlib)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("demo", help="heuristic vs random on every game and player count")
    p.add_argument("--games", type=int, default=200, help="games per table (default 200)")
    p.add_argument("--seed", type=int, default=0, help="game g is dealt from (seed, g)")
    p.add_argument("--workers", type=int, default=default_workers)
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "train", help="self-play MaskablePPO with an opponent pool, evaluation and checkpoints"
    )
    p.add_argument("game", nargs="?", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument(
        "--players", type=int, help="seats per game (default: the game's smallest count)"
    )
    p.add_argument("--timesteps", type=int, help="learner decisions (default 20,000,000)")
    p.add_argument("--envs", type=int, help="games played side by side (default 32)")
    p.add_argument("--seed", type=int, help="seed of the run (default 0)")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/GAME-Np-seedS)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its checkpoint")
    p.add_argument("--eval-every", type=int, help="timesteps between evaluations (1,000,000)")
    p.add_argument("--eval-games", type=int, help="games per evaluation and baseline (400)")
    p.add_argument(
        "--threads",
        type=int,
        help="torch threads of the PPO updates (default: 1 or one per core, whichever the first "
        "updates time as faster)",
    )
    p.add_argument(
        "--workers",
        type=int,
        help="processes playing the games (default 1; one per core on "
        "machines with more cores than the update needs)",
    )
    p.add_argument("--max-minutes", type=float, help="stop cleanly after this wall time")
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="any other training setting, e.g. --set batch_size=2048 --set net_arch=256,256 "
        "(see TrainConfig in cardzoo.train.ppo)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    # parsed into (key, value) pairs by main(), which also collects them after the flags
    p.add_argument("options", nargs="*", metavar="key=value", help="rule options")
    p.set_defaults(func=cmd_train)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    # Rule options may come before or after the flags, so collect key=value words ourselves.
    args, extra = parser.parse_known_args(argv)
    if hasattr(args, "options"):
        words = list(args.options) + extra
        bad = [w for w in words if "=" not in w or w.startswith("-")]
        if bad:
            parser.error(f"unrecognized arguments: {' '.join(bad)}")
        try:
            args.options = [parse_option(w) for w in words]
        except argparse.ArgumentTypeError as err:
            parser.error(str(err))
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return args.func(args)
    except ValueError as err:  # bad game name, option value, agent spec...
        print(f"error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
