"""``cardzoo rate``: agents placed on one rating scale by a seat-rotated round robin.

cardzoo rate beasty_bar --agents random,heuristic,ppo:runs/x --games 200 [--players K] [--json F]

**Schedule.** Every set of K agents (a *table*; at two players, every pair) plays ``--games``
games, spread evenly over all K! seatings of its agents: each of the (K-1)! orders with the
table's first agent in front is one :func:`~cardzoo.train.tournament.run_tournament` call, which
rotates the order through the K seats game by game. So every agent sits in every seat equally
often, and at three or more players also behind and ahead of each other agent equally often.
``--games`` must therefore be a multiple of K!. Every game is dealt from its own seed, derived
from ``--seed``, the table's position in the schedule and the game's index, never from
``--workers``: more processes give the same table.

**Fit.** Each game's finishing order (:func:`~cardzoo.train.tournament.finishing_places`) is
broken into all its pairs: the agent placed ahead scores 1 against the one behind, agents on the
same place (a draw, a shared victory, a truncated game) score 1/2 each. At two players this is
the Bradley-Terry model; at three or more it is the full pairwise breaking of the Plackett-Luce
model, whose pairwise marginals are exactly Bradley-Terry (P(i ahead of j) = w_i / (w_i + w_j)
whoever else sits at the table), so the fit estimates the same strengths as a Plackett-Luce fit
and handles tied places without extra assumptions. The maximum-likelihood fit is ``choix``'s
(``ilsr_pairwise_dense``), on the Elo scale (400 log10 of the odds), anchored at ``random = 0``
(at the first agent when ``random`` is not in the list). Every pair of agents also gets one
virtual drawn game, so that an agent that never loses to another still has a finite rating; such
a perfect record is named under the table, as its gap is then set by that virtual game (a lower
bound, not a measurement). 95% intervals are the 2.5 and 97.5 percentiles of the ratings
refitted on bootstrap resamples of whole games, drawn within each seating order so that every
resample keeps the balanced schedule (whole games also carry the dependence between the pairs of
one finishing order into the interval).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from cardzoo.agents import make_agent
from cardzoo.envs import ENV_MODULES, load
from cardzoo.train.cli import (
    _default_workers,
    _options_with_variant,
    check_count,
    check_output_path,
    write_json,
)
from cardzoo.train.tournament import (
    MAX_GAMES,
    MAX_WORKERS,
    _labels,
    progress_bar,
    run_tournament,
)

#: Elo points per natural-log unit of strength: a gap of 400 points is 10:1 odds.
ELO_PER_NAT = 400 / math.log(10)
#: Virtual drawn games added between every pair of agents (see the module docstring).
PRIOR_DRAWS = 1.0
DEFAULT_BOOTSTRAP = 1000
MAX_BOOTSTRAP = 100_000
ANCHOR_SPEC = "random"


def seating_orders(n_agents: int, players: int) -> list[tuple[int, ...]]:
    """The orders of agent indices to play: for each set of ``players`` agents (in list order),
    each order that keeps its first agent in front. Rotating each through the seats, as
    ``run_tournament`` does, gives every seating of every table exactly once."""
    orders = []
    for table in itertools.combinations(range(n_agents), players):
        orders += [(table[0], *rest) for rest in itertools.permutations(table[1:])]
    return orders


def pair_scores(agents: Sequence[int], places: Sequence[int], n_agents: int) -> np.ndarray:
    """One game as an ``n_agents`` x ``n_agents`` matrix: ``[i, j]`` is what agent ``i`` scored
    against agent ``j`` (1 for a better place, 1/2 for the same place, 0 for a worse one)."""
    scores = np.zeros((n_agents, n_agents))
    for (a, pa), (b, pb) in itertools.combinations(zip(agents, places), 2):
        if a == b:  # the same agent twice at one table tells nothing about its strength
            continue
        if pa == pb:
            scores[a, b] += 0.5
            scores[b, a] += 0.5
        elif pa < pb:
            scores[a, b] += 1.0
        else:
            scores[b, a] += 1.0
    return scores


def fit_elo(scores: np.ndarray, anchor: int) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry ratings (Elo scale, ``anchor`` at 0) of a score matrix,
    with one virtual draw added between every pair of agents."""
    try:
        import choix
    except ImportError:
        raise ValueError("cardzoo rate needs choix: pip install 'cardzoo[rate]'") from None
    n = scores.shape[0]
    data = scores + (PRIOR_DRAWS / 2) * (1 - np.eye(n))
    params = choix.ilsr_pairwise_dense(data, max_iter=10_000, tol=1e-10)
    elo = params * ELO_PER_NAT
    return elo - elo[anchor]


def perfect_record_bound(games: int) -> float:
    """The Elo gap that ``games`` wins out of ``games`` still allow at 97.5% one-sided (the low
    end of a 95% interval): the win probability whose chance of winning them all is 2.5%."""
    p = 0.025 ** (1 / games)
    return 400 * math.log10(p / (1 - p))


@dataclass
class Ratings:
    """Fitted ratings with bootstrap intervals, one entry per agent (in the agents' order)."""

    rating: np.ndarray
    low: np.ndarray
    high: np.ndarray
    resamples: int
    #: (winner, loser) agent indices of pairs where the loser never scored (see the docstring)
    perfect: list[tuple[int, int]] = field(default_factory=list)


def fit_ratings(
    game_scores: np.ndarray,
    strata: Sequence[int],
    anchor: int,
    resamples: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> Ratings:
    """Ratings of the agents from per-game score matrices (``game_scores[g]``, as built by
    :func:`pair_scores`), with percentile intervals from ``resamples`` bootstrap resamples of
    the games, each drawn within its stratum (``strata[g]``: the game's seating order)."""
    game_scores = np.asarray(game_scores, dtype=float)
    total = game_scores.sum(axis=0)
    rating = fit_elo(total, anchor)
    n = total.shape[0]
    pairs = itertools.permutations(range(n), 2)
    perfect = [(i, j) for i, j in pairs if total[i, j] > 0 and total[j, i] == 0]
    strata = np.asarray(strata)
    groups = [np.flatnonzero(strata == s) for s in np.unique(strata)]
    flat = game_scores.reshape(len(game_scores), -1)
    rng = np.random.default_rng(seed)
    samples = np.empty((resamples, n))
    for b in range(resamples):
        counts = np.zeros(len(game_scores))
        for members in groups:  # the same number of games from each seating order
            counts[members] = rng.multinomial(len(members), np.full(len(members), 1 / len(members)))
        samples[b] = fit_elo((counts @ flat).reshape(n, n), anchor)
    if resamples:
        low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    else:
        low = high = np.full(n, np.nan)
    return Ratings(rating, low, high, resamples, perfect)


@dataclass
class RoundRobin:
    """The games of a round robin, in schedule order (see :func:`play_round_robin`)."""

    game: str
    players: int
    labels: list[str]
    specs: list[str]
    config: dict[str, Any]
    seed: int
    games_per_table: int
    #: one per seating order: {"order": agent indices, "seed": ..., "games": ...}
    orders: list[dict[str, Any]]
    #: one per game: {"order": index into orders, "game", "agents", "seats", "places"}
    games: list[dict[str, Any]]
    seconds: float = 0.0


def check_round_robin(game: str, specs: Sequence[str], players: int, games: int) -> None:
    """Refuse, before any game, what ``play_round_robin`` cannot schedule."""
    if len(specs) < 2:
        raise ValueError(f"rating needs at least two agents, got {len(specs)}: {list(specs)}")
    if not 2 <= players <= len(specs):
        raise ValueError(
            f"--players must be from 2 to the number of agents ({len(specs)}), got {players}"
        )
    seatings = math.factorial(players)
    if games % seatings:
        lower = max(seatings, games - games % seatings)
        raise ValueError(
            f"--games must be a multiple of {seatings} at {players} players (every seating of a "
            f"table equally often), got {games}; e.g. {lower} or {lower + seatings}"
        )
    plain = load(game).GAME.name
    for spec in dict.fromkeys(specs):
        make_agent(spec, plain)  # an unknown spec or a missing model fails here


def play_round_robin(
    game: str,
    specs: Sequence[str],
    players: int,
    games_per_table: int,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    executor: Callable[[Iterator[tuple]], Iterable[dict[str, Any]]] | None = None,
) -> RoundRobin:
    """Play the schedule of the module docstring; the games do not depend on ``workers``.
    ``executor`` plays the games elsewhere (``run_tournament``'s hook, e.g. Ray tasks)."""
    check_round_robin(game, specs, players, games_per_table)
    config = dict(config or {})
    orders = seating_orders(len(specs), players)
    per_order = games_per_table // math.factorial(players - 1)
    total = per_order * len(orders)
    out = RoundRobin(
        load(game).GAME.name,
        players,
        _labels(list(specs)),
        list(specs),
        config,
        seed,
        games_per_table,
        [],
        [],
    )
    started = time.perf_counter()
    for k, order in enumerate(orders):
        order_seed = seed * len(orders) + k  # distinct deals for every order and every --seed
        done_before = k * per_order

        def step(done: int, _: int, before: int = done_before) -> None:
            if progress is not None:
                progress(before + done, total)

        result = run_tournament(
            game,
            [specs[i] for i in order],
            per_order,
            players,
            seed=order_seed,
            config=config,
            progress=step,
            workers=workers,
            game_log=True,
            executor=executor,
        )
        out.orders.append({"order": list(order), "seed": order_seed, "games": per_order})
        for entry in result.game_log or []:
            out.games.append({"order": k, "agents": list(order), **entry})
    out.seconds = time.perf_counter() - started
    return out


def agent_rows(rr: RoundRobin, ratings: Ratings) -> list[dict[str, Any]]:
    """Per agent: rating, interval, games, wins (sole first place), shared firsts, mean place."""
    rows = []
    for i, (label, spec) in enumerate(zip(rr.labels, rr.specs)):
        places = [
            (g["places"][s], g["places"].count(g["places"][s]))
            for g in rr.games
            for s, a in enumerate(g["agents"])
            if a == i
        ]
        wins = sum(p == 1 and ties == 1 for p, ties in places)
        shared = sum(p == 1 and ties > 1 for p, ties in places)
        rows.append(
            {
                "name": label,
                "spec": spec,
                "rating": float(ratings.rating[i]),
                "ci95": [float(ratings.low[i]), float(ratings.high[i])],
                "games": len(places),
                "wins": wins,
                "draws": shared,
                "win_rate": wins / len(places),
                "mean_place": sum(p for p, _ in places) / len(places),
            }
        )
    return rows


def rate(rr: RoundRobin, resamples: int = DEFAULT_BOOTSTRAP) -> dict[str, Any]:
    """Fit the ratings of a played round robin; the report as a JSON-ready dict."""
    n = len(rr.specs)
    anchor = rr.specs.index(ANCHOR_SPEC) if ANCHOR_SPEC in rr.specs else 0
    scores = np.array([pair_scores(g["agents"], g["places"], n) for g in rr.games])
    ratings = fit_ratings(scores, [g["order"] for g in rr.games], anchor, resamples, rr.seed)
    total = scores.sum(axis=0)
    rows = agent_rows(rr, ratings)
    return {
        "game": rr.game,
        "players": rr.players,
        "config": rr.config,
        "seed": rr.seed,
        "games_per_table": rr.games_per_table,
        "games": len(rr.games),
        "model": "Bradley-Terry" if rr.players == 2 else "Plackett-Luce (full pairwise breaking)",
        "scale": "Elo: 400 log10 odds",
        "anchor": rr.labels[anchor],
        "prior_draws_per_pair": PRIOR_DRAWS,
        "bootstrap_resamples": resamples,
        "agents": sorted(rows, key=lambda r: -r["rating"]),
        "score_matrix": total.tolist(),
        "perfect_records": [
            {
                "winner": rr.labels[i],
                "loser": rr.labels[j],
                "games": int(total[i, j]),
                "min_gap": perfect_record_bound(int(total[i, j])),
            }
            for i, j in ratings.perfect
        ],
        "orders": rr.orders,
        "game_log": rr.games,
        "seconds": rr.seconds,
    }


def table(report: dict[str, Any]) -> str:
    """The report as a plain-text table."""
    k = report["players"]
    options = f", options {report['config']}" if report["config"] else ""
    lines = [
        f"{report['game']}, {k} players: {report['games']} games, {report['games_per_table']} per "
        f"table of {k}, every seating equally often (seed {report['seed']}{options})",
        f"{report['model']} fit, Elo scale, {report['anchor']} = 0; 95% intervals from "
        f"{report['bootstrap_resamples']} bootstrap resamples of the games",
        f"{'agent':<22}{'rating':>8}   {'95% interval':<18}{'games':>7}{'win rate':>10}"
        f"{'draws':>7}" + (f"{'mean place':>12}" if k > 2 else ""),
    ]
    starred = {p[side] for p in report["perfect_records"] for side in ("winner", "loser")}
    for row in report["agents"]:
        low, high = row["ci95"]
        interval = f"[{low:.0f}, {high:.0f}]"
        star = "*" if row["name"] in starred else " "
        line = (
            f"{row['name']:<22}{row['rating']:>8.0f}{star}  {interval:<18}{row['games']:>7}"
            f"{row['win_rate']:>10.3f}{row['draws']:>7}"
        )
        if k > 2:
            line += f"{row['mean_place']:>12.2f}"
        lines.append(line)
    for pair in report["perfect_records"]:
        lines.append(
            f"* {pair['winner']} won all {pair['games']} games against {pair['loser']}: their "
            f"fitted gap (and its interval) rests on the virtual draw; the games show only that "
            f"it is at least {pair['min_gap']:.0f} (95%)"
        )
    lines.append(f"{report['seconds']:.1f} s of play")
    return "\n".join(lines)


def cmd_rate(args: argparse.Namespace) -> int:
    """Play the round robin, fit, print the table (and write ``--json``)."""
    config = _options_with_variant(args)
    check_count("--players", args.players, 2)
    check_count("--games", args.games, 1, MAX_GAMES)
    check_count("--seed", args.seed, 0)
    check_count("--workers", args.workers, 1, MAX_WORKERS)
    check_count("--bootstrap", args.bootstrap, 0, MAX_BOOTSTRAP)
    check_output_path(args.json)
    specs = [a.strip() for a in args.agents.split(",") if a.strip()]
    load(args.game).env(num_players=args.players, **config)  # a bad count or option fails here
    check_round_robin(args.game, specs, args.players, args.games)
    progress = None if args.quiet else progress_bar(f"rate {args.game} {args.players}p")
    from cardzoo.train import ray_eval

    executor = ray_eval.executor_for(args)  # None unless --ray
    with ray_eval.ray_started(args):  # one Ray for every seating order's tournament
        rr = play_round_robin(
            args.game,
            specs,
            args.players,
            args.games,
            args.seed,
            config,
            args.workers,
            progress,
            executor,
        )
    if not args.quiet:
        print(f"fitting ({args.bootstrap} bootstrap resamples)...", file=sys.stderr)
    report = rate(rr, args.bootstrap)
    print(table(report))
    if args.json:
        write_json(args.json, report)
        print(f"results written to {args.json}")
    return 0


def add_parser(sub: Any) -> None:
    """The ``rate`` subcommand."""
    p = sub.add_parser(
        "rate",
        help="ratings on one scale (Elo, random = 0) from a seat-rotated round robin",
        description="Every set of --players agents plays --games games over all its seatings; "
        "Bradley-Terry (2 players) or Plackett-Luce (3+, pairwise breaking of the finishing "
        "order) fit on the Elo scale, anchored at random = 0, with bootstrap 95% intervals. "
        "See docs/ratings.md.",
    )
    p.add_argument("game", help=f"plain or versioned name: {', '.join(ENV_MODULES)}")
    p.add_argument(
        "--agents",
        default="random,heuristic",
        help="comma-separated agent specs to rate (at least two; default random,heuristic)",
    )
    p.add_argument("--players", type=int, default=2, help="seats per game (default 2)")
    p.add_argument(
        "--games",
        type=int,
        default=200,
        help="games per table of --players agents, a multiple of K! for K players (2 at two, "
        "6 at three; default 200)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and the bootstrap")
    p.add_argument(
        "--workers",
        type=int,
        default=_default_workers(),
        help=f"processes (default {_default_workers()}); results do not depend on it",
    )
    __import__("cardzoo.train.ray_eval").train.ray_eval.add_eval_flags(p)  # --ray, --address
    p.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_BOOTSTRAP,
        help=f"bootstrap resamples for the intervals (default {DEFAULT_BOOTSTRAP})",
    )
    p.add_argument("--variant", help="a named variant of the game (see `cardzoo list`)")
    p.add_argument("--json", metavar="FILE", help="also write the report (and every game) as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    # parsed into (key, value) pairs by cli.main(), which also collects them after the flags
    p.add_argument("options", nargs="*", default=[], metavar="key=value", help="rule options")
    p.set_defaults(func=cmd_rate)
