"""The ``cardzoo`` command line: list the games, run tournaments.

cardzoo list
cardzoo eval cubirds --agents heuristic,random --games 1000 --players 2 [--seed S] [--json F]
cardzoo eval cubirds --players 3 draw_after_empty_hand=true   # rule options as key=value
cardzoo eval cubirds --games 10 --record DIR    # also save each game as a record in DIR
cardzoo replay DIR/cubirds-2p-g3.json [--seat K] [--step N]   # show a record step by step
cardzoo play beasty_bar [--players N] [--opponents heuristic] [--seat K] [--record DIR]
cardzoo serve [--port P] [--records DIR] [--agents heuristic]   # replays and play in the browser
cardzoo demo [--games N]        # heuristic vs random on every game and player count
cardzoo train beasty_bar [--players N] [--timesteps T] [--envs K] [--seed S] [--out DIR]
cardzoo train sitting_ducks --variant duel     # or --players 4 mode=team: trained as a team
cardzoo train --resume DIR      # continue a run (needs the train extra)

Exit codes: 0 done; 2 a usage error (bad game, rule option, agent, number or path), reported in
one line ``cardzoo <command>: error: ...`` on stderr before any long work starts; 130 stopped by
Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from cardzoo.agents import HEURISTICS
from cardzoo.envs import ENV_MODULES, __version__, games, load
from cardzoo.train import serve
from cardzoo.train.tournament import MAX_GAMES, MAX_WORKERS, progress_bar, run_tournament

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: Upper bounds of ``cardzoo bench``'s numbers: far above any useful run, low enough that a typo
#: fails at once instead of running for days.
MAX_BENCH_SECONDS = 3600.0
MAX_BENCH_REPEATS = 1000
MAX_MEMORY_GAMES = 10**7


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
    if not path.strip():
        raise ValueError("the output file name is empty")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise ValueError(f"cannot write {path}: folder {folder} {what}")
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise ValueError(f"cannot write {path}: permission denied")
    # os.access says yes to root everywhere, and some folders (/proc, read-only mounts) refuse new
    # files whatever the permission bits: open it for appending (which changes no byte of an
    # existing file) and remove it again if it did not exist.
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as err:
        raise ValueError(f"cannot write {path}: {err.strerror or err}") from None
    if not existed:
        os.unlink(path)


def write_json(path: str, data: Any) -> None:
    """Write ``data`` as JSON; an OS error becomes a one-line error naming the file."""
    try:
        with open(path, "w") as fh:
            json.dump(data, fh, indent=2)
    except OSError as err:
        raise ValueError(f"cannot write {path}: {err.strerror or err}") from None


def check_count(flag: str, value: int, low: int, high: int | None = None) -> None:
    """``low <= value <= high`` (no upper bound when ``high`` is None), else a clear ValueError."""
    if low <= value and (high is None or value <= high):
        return
    allowed = f"an int >= {low:,}" if high is None else f"an int from {low:,} to {high:,}"
    raise ValueError(f"{flag} must be {allowed}, got {value}")


def check_seconds(flag: str, value: float, high: float) -> None:
    if not (math.isfinite(value) and 0 < value <= high):
        raise ValueError(f"{flag} must be > 0 and at most {high:g} (seconds), got {value}")


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
    record_dir: str | None = None,
    game_log: bool = False,
    executor: Any = None,
) -> Any:
    progress = None if quiet else progress_bar(f"{game} {players}p")
    return run_tournament(
        game,
        agents,
        n_games,
        players,
        seed=seed,
        config=config,
        progress=progress,
        workers=workers,
        record_dir=record_dir,
        game_log=game_log,
        executor=executor,
    )


def check_tournament_numbers(args: argparse.Namespace) -> None:
    check_count("--games", args.games, 1, MAX_GAMES)
    check_count("--seed", args.seed, 0)
    check_count("--workers", args.workers, 1, MAX_WORKERS)


def prepare_record_folder(folder: str, game: str, players: int) -> None:
    """Make ``folder`` for ``eval --record`` (and its parents); refuse a file, an unwritable
    place, or a folder that already holds records this run would overwrite."""
    from cardzoo.train.records import make_record_folder, record_filename, record_prefix

    make_record_folder(folder)
    prefix = record_prefix(game, players)
    if any(name.startswith(prefix) for name in os.listdir(folder)):
        raise ValueError(
            f"--record {folder} already holds {prefix}*.json records: choose another folder "
            "(or remove them) so that no game is overwritten"
        )
    check_output_path(os.path.join(folder, record_filename(game, players, 0)))


def _options_with_variant(args: argparse.Namespace) -> dict[str, Any]:
    """The ``key=value`` rule options with ``--variant`` added; two different variants fail."""
    options = dict(args.options)
    if args.variant is not None:
        if options.get("variant", args.variant) != args.variant:
            raise ValueError(
                f"two variants given: --variant {args.variant} and variant={options['variant']}"
            )
        options["variant"] = args.variant
    return options


def cmd_eval(args: argparse.Namespace) -> int:
    config = _options_with_variant(args)
    check_count("--players", args.players, 1)
    check_tournament_numbers(args)
    check_output_path(args.json)
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    from cardzoo.train import ray_eval  # imports Ray only with --ray

    executor = ray_eval.executor_for(args)  # None unless --ray; a bad mix fails here
    if args.record is not None:
        prepare_record_folder(args.record, load(args.game).GAME.name, args.players)
    result = _eval(
        args.game,
        agents,
        args.games,
        args.players,
        args.seed,
        config,
        args.workers,
        args.quiet,
        args.record,
        game_log=bool(args.json),  # the JSON lists every game (seats, result, length)
        executor=executor,
    )
    print(result.table())
    if args.json:
        write_json(args.json, result.to_dict())
        print(f"results written to {args.json}")
    if args.record is not None:
        print(f"{args.games} game records written to {args.record}")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Show a game record step by step (after checking that it replays exactly)."""
    from cardzoo.train.records import describe, describe_result, load_record, replay_steps

    record = load_record(args.file)
    last = len(record["decisions"])
    if args.step is not None:
        check_count("--step", args.step, 0, last)
    steps = replay_steps(record, seat=args.seat)  # checks the whole record before printing
    view = "all-seeing view" if args.seat is None else f"seen by seat {args.seat}"
    lines = [describe(record), view]
    for step in steps:
        if args.step is not None and step.index != args.step:
            continue
        if step.index == 0:
            lines.append(f"\n== step 0/{last}: the deal ==")
        else:
            lines.append(
                f"\n== step {step.index}/{last}: seat {step.seat} ({step.agent}): {step.move} =="
            )
        lines.append(step.table)
    lines.append(f"\n{describe_result(record)}")
    try:
        print("\n".join(lines))
        sys.stdout.flush()
    except BrokenPipeError:  # `cardzoo replay FILE | head`: the reader has seen enough
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """A human in the terminal against agents (see cardzoo.train.play and docs/play.md)."""
    from cardzoo.train.play import play

    options = _options_with_variant(args)
    if args.players is not None:
        check_count("--players", args.players, 1)
    play(
        args.game,
        players=args.players,
        opponents=args.opponents.split(","),
        seat=args.seat,
        seed=args.seed,
        options=options,
        record_dir=args.record,
    )
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """The main job: the heuristic against random on every game that has a heuristic."""
    check_tournament_numbers(args)
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
        write_json(args.json, summary)
        print(f"results written to {args.json}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from cardzoo.train import bench, bench_report

    check_seconds("--seconds", args.seconds, MAX_BENCH_SECONDS)
    check_seconds("--train-seconds", args.train_seconds, MAX_BENCH_SECONDS)
    check_count("--repeats", args.repeats, 1, MAX_BENCH_REPEATS)
    check_count("--memory-games", args.memory_games, 0, MAX_MEMORY_GAMES)
    check_output_path(args.json)
    check_output_path(args.plot)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plot needs matplotlib: pip install 'cardzoo[train]'") from None
    players = None if args.players is None else [n for group in args.players for n in group]
    # key=value words among the game names are rule options too (main() collects those after
    # the flags), for one game
    names = [word for word in args.game if "=" not in word]
    words = [word for word in args.game if "=" in word]
    before = _rule_options(argparse.Namespace(options=[], command="bench"), words)
    args.options = before + [(k, v) for k, v in args.options if k not in dict(before)]
    options = _options_with_variant(args)
    modules, counts = bench.select(names, players, games(), options)
    settings = bench.Settings(
        modules,
        counts,
        options=options,
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
        write_json(args.json, report)
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


def _config_file_settings(args: argparse.Namespace, config_cls: Any) -> dict[str, Any]:
    """``train --config FILE``: fill the flags left unset from the file; return its other
    settings (``--set`` style; see :mod:`cardzoo.train.config_file`)."""
    if getattr(args, "config", None) is None:
        return {}
    from cardzoo.train.config_file import apply_config_file

    settings = apply_config_file(args, config_cls)
    return {
        k: v if isinstance(v, list) else _setting(config_cls, k, v) for k, v in settings.items()
    }


def cmd_train(args: argparse.Namespace) -> int:
    # cardzoo.train.ppo sets OMP_WAIT_POLICY=PASSIVE before it imports torch (see there).
    try:
        from cardzoo.train.ppo import TrainConfig, Trainer, prepare_run_folder, summary_table
    except ImportError as err:
        raise ValueError(
            f"training needs the train extra (pip install 'cardzoo[train]'): {err}"
        ) from None
    from_file = _config_file_settings(args, TrainConfig)  # also fills unset flags from --config
    flags = {
        "players": args.players,
        "envs": args.envs,
        "seed": args.seed,
        "timesteps": args.timesteps,
        "eval_every": args.eval_every,
        "eval_games": args.eval_games,
        "threads": args.threads,
        "max_minutes": args.max_minutes,
        "workers": args.workers,
        "checkpoint_every": args.checkpoint_every,
    }
    overrides = {k: v for k, v in flags.items() if v is not None}
    from_set: set[str] = set()
    for text in args.set or []:
        key, value = parse_option(text)
        if key in from_set:
            raise ValueError(f"--set {key}= is given twice")
        if key in overrides:
            raise ValueError(f"{key} is given twice: --{key.replace('_', '-')} and --set {key}=")
        overrides[key] = _setting(TrainConfig, key, value)
        from_set.add(key)
    overrides = {**from_file, **overrides}  # --set wins over the file
    if args.resume:
        out = args.resume
        if args.out is not None and os.path.abspath(args.out) != os.path.abspath(out):
            raise ValueError("--out cannot change when resuming: the run stays in its folder")
        path = os.path.join(out, "config.json")
        if not os.path.exists(path):
            raise ValueError(f"{out!r} is not a run folder (no config.json)")
        with open(path) as fh:
            saved = json.load(fh)
        saved.pop("cardzoo", None)
        if args.game is not None and load(args.game).GAME.name != saved["game"]:
            raise ValueError(f"{out!r} is a {saved['game']} run, not {args.game}")
        fixed = [f"--{k}" for k in ("players", "envs", "seed") if k in overrides]
        if args.options or args.variant is not None:
            fixed.append("rule options and --variant")
        if fixed:
            raise ValueError(f"{', '.join(fixed)} cannot change when resuming a run")
        config = TrainConfig.from_dict({**saved, **overrides})
    else:
        if args.game is None:
            raise ValueError("give a game to train on (or --resume DIR)")
        config = TrainConfig(
            game=args.game,
            options=_options_with_variant(args),
            **{"envs": 32, "seed": 0, **overrides},
        )
        if args.out is not None and not args.out.strip():
            raise ValueError("--out names an empty folder")
        out = args.out or os.path.join("runs", f"{config.game}-{config.players}p-seed{config.seed}")
        if os.path.exists(os.path.join(out, "config.json")):
            raise ValueError(
                f"{out!r} already holds a run: continue it with --resume {out}, or choose "
                "another --out"
            )
    prepare_run_folder(out)  # a file or an unwritable place fails here, in one line
    summary = Trainer(config, out, resume=bool(args.resume), quiet=args.quiet).run()
    print(summary_table(summary))
    return 130 if summary["interrupted"] else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardzoo",
        description="Card-game environments for multi-agent RL.",
        epilog="Exit codes: 0 done; 2 a usage error (one line on stderr: cardzoo COMMAND: "
        "error: ...); 130 stopped by Ctrl-C.",
    )
    parser.add_argument("--version", action="version", version=f"cardzoo {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    _add_list(sub)
    _add_eval(sub)
    _add_bench(sub)
    _add_demo(sub)
    _add_train(sub)
    _add_replay(sub)
    _add_play(sub)
    from cardzoo.train import rate  # imported here: cardzoo.train.rate imports this module

    rate.add_parser(sub)
    serve.add_parser(sub)
    __import__("cardzoo.train.train_ray").train.train_ray.add_parser(sub)  # needs no Ray to list
    return parser


def _default_workers() -> int:
    """Worker processes of eval and demo unless told: at most two, never more than the cores."""
    return min(2, os.cpu_count() or 1)


def _add_list(sub: Any) -> None:
    """The ``list`` subcommand."""
    p = sub.add_parser("list", help="games, player counts, observation/action sizes, encoders")
    p.add_argument("--markdown", action="store_true", help="as a Markdown table (the README's)")
    p.set_defaults(func=cmd_list)


def _add_eval(sub: Any) -> None:
    """The ``eval`` subcommand: a seat-rotated tournament."""
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
        default=_default_workers(),
        help=f"processes (default {_default_workers()}); results do not depend on it",
    )
    p.add_argument(
        "--variant", help="a named variant of the game (see `cardzoo list`), e.g. advanced"
    )
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="also save each game as a JSON game record in DIR (see docs/records.md)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    # parsed into (key, value) pairs by main(), which also collects them after the flags
    p.add_argument(
        "options",
        nargs="*",
        default=[],
        metavar="key=value",
        help="rule options, e.g. midturn_exhaustion=partial",
    )
    __import__("cardzoo.train.ray_eval").train.ray_eval.add_eval_flags(p)  # --ray, --address
    p.set_defaults(func=cmd_eval)


def _add_bench(sub: Any) -> None:
    """The ``bench`` subcommand: speed, memory and training throughput."""
    p = sub.add_parser(
        "bench",
        help="decisions/s of env(), raw_env(), engine and encoder; peers, memory, training",
        description="Random legal play, timed; see docs/benchmark.md for every number and the "
        "JSON schema.",
    )
    p.add_argument(
        "game",
        nargs="*",
        help="games to measure (default: all); key=value words are rule options (one game)",
    )
    p.add_argument(
        "--players", nargs="+", type=_player_counts, help="player counts (default: each game's)"
    )
    p.add_argument(
        "--variant", help="a named variant of the one game measured (see `cardzoo list`)"
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
    p.set_defaults(func=cmd_bench, options=[])  # main() collects key=value words after flags


def _add_demo(sub: Any) -> None:
    """The ``demo`` subcommand: heuristic vs random everywhere."""
    p = sub.add_parser("demo", help="heuristic vs random on every game and player count")
    p.add_argument("--games", type=int, default=200, help="games per table (default 200)")
    p.add_argument("--seed", type=int, default=0, help="game g is dealt from (seed, g)")
    p.add_argument("--workers", type=int, default=_default_workers())
    p.add_argument("--json", metavar="FILE")
    p.add_argument("--quiet", action="store_true")
    p.set_defaults(func=cmd_demo)


def _add_train(sub: Any) -> None:
    """The ``train`` subcommand: self-play MaskablePPO."""
    p = sub.add_parser(
        "train", help="self-play MaskablePPO with an opponent pool, evaluation and checkpoints"
    )
    p.add_argument("game", nargs="?", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument(
        "--players",
        type=int,
        help="seats per game (default: the variant's count, else the game's smallest)",
    )
    p.add_argument(
        "--variant",
        help="a named variant of the game (see `cardzoo list`), e.g. duel: Sitting Ducks "
        "Gallery's two-player team game",
    )
    p.add_argument("--timesteps", type=int, help="learner decisions (default 20,000,000)")
    p.add_argument("--envs", type=int, help="games played side by side (default 32)")
    p.add_argument("--seed", type=int, help="seed of the run (default 0)")
    p.add_argument("--out", metavar="DIR", help="run folder (default runs/GAME-Np-seedS)")
    p.add_argument("--resume", metavar="DIR", help="continue the run in DIR from its checkpoint")
    p.add_argument("--eval-every", type=int, help="timesteps between evaluations (1,000,000)")
    p.add_argument("--eval-games", type=int, help="games per evaluation and baseline (400)")
    p.add_argument(
        "--checkpoint-every",
        type=int,
        metavar="N",
        help="also write a checkpoint every N learner steps (default 0: only at each "
        "evaluation, every --eval-every steps); a checkpoint is written at the end and on Ctrl-C "
        "in any case, and the newest 3 are kept",
    )
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
    p.add_argument(
        "--config",
        metavar="FILE.toml",
        help="read the run's settings from a TOML file (or zoo:NAME, a zoo model's config); "
        "flags on the command line override it (docs/zoo.md)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    # parsed into (key, value) pairs by main(), which also collects them after the flags
    p.add_argument(
        "options",
        nargs="*",
        default=[],
        metavar="key=value",
        help="rule options, e.g. mode=team (team games are trained as a team)",
    )
    p.set_defaults(func=cmd_train)


def _add_replay(sub: Any) -> None:
    """The ``replay`` subcommand: show a game record step by step."""
    p = sub.add_parser(
        "replay",
        help="show a game record (from eval --record) step by step",
        description="Deal the recorded game again from its seed, play every recorded move "
        "(checking each) and print the table after each step. See docs/records.md.",
    )
    p.add_argument("file", help="a record file written by `cardzoo eval --record DIR`")
    p.add_argument(
        "--seat",
        type=int,
        metavar="K",
        help="show the table as seat K sees it (default: all-seeing, every hand shown)",
    )
    p.add_argument(
        "--step", type=int, metavar="N", help="show only step N (0: the deal; default: all)"
    )
    p.set_defaults(func=cmd_replay)


def _add_play(sub: Any) -> None:
    """The ``play`` subcommand: a human at the terminal against agents."""
    p = sub.add_parser(
        "play",
        help="play a game yourself in the terminal against agents",
        description="Each of your turns shows your view of the table, the others' moves since "
        "your last one and a numbered list of your legal moves: type a number (q quits, nothing "
        "saved). See docs/play.md.",
    )
    p.add_argument("game", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument("--players", type=int, help="seats (default: the game's or variant's count)")
    p.add_argument(
        "--opponents",
        default="random",
        metavar="SPEC,...",
        help="agent specs of the other seats in seat order (random, heuristic, ppo:PATH); the "
        "last fills spare seats (default random)",
    )
    p.add_argument("--seat", type=int, default=0, metavar="K", help="your seat (default 0)")
    p.add_argument("--seed", type=int, help="deal this game (default: a random seed, printed)")
    p.add_argument("--variant", help="a named variant of the game (see `cardzoo list`)")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="save the finished game as a record in DIR (docs/records.md)",
    )
    # parsed into (key, value) pairs by main(), which also collects them after the flags
    p.add_argument("options", nargs="*", default=[], metavar="key=value", help="rule options")
    p.set_defaults(func=cmd_play)


def _rule_options(args: argparse.Namespace, extra: list[str]) -> list[tuple[str, Any]]:
    """The ``key=value`` words of eval/train, wherever they stood: before or after the flags."""
    game = getattr(args, "game", None)
    if isinstance(game, str) and "=" in game:
        raise ValueError(
            f"expected a game name, got {game!r}: rule options come after the game name"
        )
    options: list[tuple[str, Any]] = []
    for word in list(args.options) + extra:
        if word.startswith("-"):
            raise ValueError(f"unrecognized option {word!r} (see cardzoo {args.command} --help)")
        if "=" not in word:
            raise ValueError(
                f"unexpected argument {word!r}: give one game; rule options are written key=value"
            )
        try:
            key, value = parse_option(word)
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
        if key == "num_players":
            raise ValueError("give the player count with --players, not num_players=")
        if any(key == k for k, _ in options):
            raise ValueError(f"rule option {key!r} is given twice")
        options.append((key, value))
    return options


def main(argv: list[str] | None = None) -> int:
    """Run one command; usage errors print one line on stderr and return 2 (argparse's own
    errors, such as a non-numeric ``--games``, exit with 2 through SystemExit)."""
    parser = build_parser()
    # Rule options may come before or after the flags, so collect key=value words ourselves.
    args, extra = parser.parse_known_args(argv)
    prog = f"{parser.prog} {args.command}"
    try:
        if hasattr(args, "options"):
            args.options = _rule_options(args, extra)
        elif extra:
            raise ValueError(f"unrecognized arguments: {' '.join(extra)}")
        return args.func(args)
    except (ValueError, argparse.ArgumentTypeError) as err:  # bad game, option, agent, path...
        message = " ".join(str(err).split())  # one line, whatever the message held
        print(f"{prog}: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:  # `train` handles its own Ctrl-C (checkpoint, summary)
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
