"""What ``determinize`` costs along whole games: one call by the seat in turn at every decision
of seeded random games (each call at a new position, with whatever the state keeps carried along
as moves are applied), and optionally ``--repeat K`` more calls at each position (a search's
later calls there). Prints mean / p50 / p99 / max milliseconds of process CPU time. One untimed
call first, at a position of a game outside the measured ones (``--no-warm-up``: none; before
session 33 there was none, so Sitting Ducks Gallery's first timed call carried about 45 ms of
imports).

    python tools/det_along.py cubirds 4 --games 4
    python tools/det_along.py sitting_ducks 2 --opt mode=team --repeat 20
    python tools/det_along.py odins_ravens 2 --opt joker_requires_no_match=True --profile
    python tools/det_along.py sitting_ducks 6 --slowest 10   # where the dear positions are

The same games as ``cardzoo bench``'s positions for the same ``--seed`` (``game_moves``); one
numpy generator for every call, as a search agent passes its own. The hash seed changes timings
noticeably (set PYTHONHASHSEED when comparing two versions of the code).

``--set MODULE.NAME=VALUE`` changes a setting first (``MODULE`` under ``cardzoo.envs``, e.g.
``--set cubirds.hidden_exact.REJECT_TRIES=200``), to compare settings in one version.

Where the machine's speed drifts (consecutive runs of the same code 10-30 % apart), count
instructions instead of time: valgrind's counts repeat exactly for one ``PYTHONHASHSEED``. The
instructions of the calls are a run's total less that of ``--no-calls`` (the same games played
without calling ``determinize``); ``--repeat K`` less ``--repeat 0`` gives the later calls'::

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        python tools/det_along.py cubirds 5 --games 2 --no-calls
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import time

import numpy as np
from cardzoo.train.bench_loops import game_moves


def _value(text: str) -> object:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


def _apply_setting(item: str) -> None:
    """``MODULE.NAME=VALUE``: set ``NAME`` of ``cardzoo.envs.MODULE`` (which must have it) to
    ``VALUE``, read as the setting's own type."""
    path, _, text = item.partition("=")
    module_name, _, name = path.rpartition(".")
    module = importlib.import_module(f"cardzoo.envs.{module_name}")
    if not text or not hasattr(module, name):
        raise SystemExit(f"--set {item!r}: expected MODULE.NAME=VALUE with an existing NAME")
    old = getattr(module, name)
    value = _value(text)
    setattr(module, name, type(old)(value) if isinstance(old, (int, float)) else value)
    print(f"set cardzoo.envs.{module_name}.{name} = {getattr(module, name)!r} (was {old!r})")


def _summary(label: str, seconds: list[float]) -> str:
    t = np.array(seconds) * 1e3
    return (
        f"{label}: calls={t.size} mean={t.mean():.3f} p50={np.median(t):.3f} "
        f"p99={np.percentile(t, 99):.2f} max={t.max():.1f} ms"
    )


def _warm_up(state_cls: type, config, seed: int) -> None:
    """One untimed call at a position of a game outside the measured ones (seed ``seed``),
    so that the first timed call does not pay for the modules ``determinize`` imports on first
    use (``cardzoo bench`` warms up likewise). Its own generator: the timed calls draw the
    same numbers with or without it."""
    (moves,) = game_moves(state_cls, config, 1, seed)
    state = state_cls(config, seed=seed)
    for move in moves[: len(moves) // 2]:
        state.apply_id(move)
    state.determinize(state.current_player, np.random.default_rng(seed))


def _report(args, first: list[float], where: list, again: list[float], again_at: list[float]):
    """The summaries, and with ``--slowest`` where the dearest first calls were and (with
    ``--repeat``) the positions whose repeated calls cost most."""
    print(_summary("first call at each position", first))
    if again:
        print(_summary(f"{args.repeat} more calls at each position", again))
    for i in sorted(range(len(first)), key=lambda i: -first[i])[: args.slowest]:
        print(f"  {first[i] * 1e3:9.2f} ms  game {where[i][0]}, decision {where[i][1]}")
    if again_at and args.slowest:
        print(f"the positions whose {args.repeat} more calls cost most (mean a call):")
        for i in sorted(range(len(again_at)), key=lambda i: -again_at[i])[: args.slowest]:
            game, decision = where[i]
            print(f"  {again_at[i] * 1e3:9.3f} ms  again at game {game}, decision {decision}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="cubirds, beasty_bar, sitting_ducks or odins_ravens")
    parser.add_argument("players", type=int)
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=0, help="more calls at each position")
    parser.add_argument("--sort", default="cumulative", help="the profile's order (pstats)")
    parser.add_argument("--opt", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--set", action="append", default=[], metavar="MODULE.NAME=VALUE", help="a setting"
    )
    parser.add_argument(
        "--no-calls", action="store_true", help="play the games only (a baseline to subtract)"
    )
    parser.add_argument(
        "--slowest",
        type=int,
        default=0,
        metavar="N",
        help="list the N slowest first calls (game seed, decision), and with --repeat the N "
        "positions whose repeated calls cost most",
    )
    parser.add_argument(
        "--no-warm-up",
        action="store_true",
        help="skip the untimed call before the games (it imports what determinize imports on "
        "first use: about 45 ms for Sitting Ducks Gallery, once per process)",
    )
    parser.add_argument("--profile", action="store_true", help="cProfile of the first calls")
    parser.add_argument(
        "--profile-repeat", action="store_true", help="cProfile of the repeated calls instead"
    )
    args = parser.parse_args()
    spec = importlib.import_module(f"cardzoo.envs.{args.game}_v0").GAME
    for item in args.set:
        _apply_setting(item)
    options = {key: _value(v) for key, v in (kv.split("=", 1) for kv in args.opt)}
    config = spec.make_config(num_players=args.players, **options)
    rng = np.random.default_rng(0)
    first: list[float] = []
    where: list[tuple[int, int]] = []  # each first call's (game seed, decision)
    again: list[float] = []
    again_at: list[float] = []  # each position's mean repeated call
    profile = cProfile.Profile() if args.profile or args.profile_repeat else None
    profile_first = profile if not args.profile_repeat else None
    profile_again = profile if args.profile_repeat else None
    clock = time.process_time
    if not (args.no_calls or args.no_warm_up):
        _warm_up(spec.state_cls, config, args.seed + args.games)
    for game, moves in enumerate(game_moves(spec.state_cls, config, args.games, args.seed)):
        state = spec.state_cls(config, seed=args.seed + game)
        for decision, move in enumerate(moves):
            if args.no_calls:
                state.apply_id(move)
                continue
            player = state.current_player
            if profile_first:
                profile_first.enable()
            start = clock()
            state.determinize(player, rng)
            first.append(clock() - start)
            where.append((args.seed + game, decision))
            if profile_first:
                profile_first.disable()
            if profile_again:
                profile_again.enable()
            for _ in range(args.repeat):
                start = clock()
                state.determinize(player, rng)
                again.append(clock() - start)
            if args.repeat:
                again_at.append(sum(again[-args.repeat :]) / args.repeat)
            if profile_again:
                profile_again.disable()
            state.apply_id(move)
    print(f"{args.game} {args.players}p {options} games={args.games} seed={args.seed}")
    if args.no_calls:
        return
    _report(args, first, where, again, again_at)
    if profile:
        pstats.Stats(profile).sort_stats(args.sort).print_stats(35)


if __name__ == "__main__":
    main()
