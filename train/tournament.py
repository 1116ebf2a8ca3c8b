"""Seat-rotated tournaments between agents, with win rates and 95% confidence intervals.

Results are judged side by side (:meth:`~cardzoo.envs.outcome.Outcome.team_result`): partners who
win together have both won. In a game with partnerships (Sitting Ducks Gallery's team mode at 4
or 6 players), giving at most one agent per side makes it a *side lineup*: each agent plays every
seat of one side (``--agents heuristic,random``: the heuristic team against the random team).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cardzoo.agents import Seat, make_agent
from cardzoo.envs import load
from cardzoo.envs.outcome import DRAW, LOSS, RESULTS, WIN, Outcome
from cardzoo.train.records import GameRecorder, record_filename, write_record

#: Upper bounds of a tournament: far beyond any useful run, low enough that a typo (an extra
#: digit or two) fails at once rather than running for days or forking thousands of processes.
MAX_GAMES = 10**9
MAX_WORKERS = 64


class WinDrawLoss:
    """Win/draw/loss counts of one player, as tournaments and evaluation keep them.

    Results come from :meth:`cardzoo.envs.outcome.Outcome.team_result`: a *win* is being the
    only winning side (partners win together; without partnerships, the only winner); a *draw*
    is a victory shared between sides, a game nobody won, or a truncated game.
    """

    games: int
    wins: int
    draws: int
    losses: int

    def count(self, result: str, times: int = 1) -> None:
        """Add ``times`` games ending in ``result`` (``"win"``, ``"draw"`` or ``"loss"``)."""
        if result == WIN:
            self.wins += times
        elif result == DRAW:
            self.draws += times
        elif result == LOSS:
            self.losses += times
        else:
            raise ValueError(f"unknown result {result!r}; expected one of {RESULTS}")
        self.games += times

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)


@dataclass
class AgentResult(WinDrawLoss):
    """One lineup entry's record (counted as :class:`WinDrawLoss` says)."""

    name: str
    spec: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    # sums over games (the means are in to_dict): the side's finishing place (1 is first, see
    # side_places), its score, and its score minus the mean score of the other sides
    place_sum: float = 0.0
    score_sum: float = 0.0
    margin_sum: float = 0.0

    def add_standing(self, place: float, score: float, margin: float, times: int = 1) -> None:
        self.place_sum += place * times
        self.score_sum += score * times
        self.margin_sum += margin * times

    def mean(self, total: float) -> float:
        return total / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        data = asdict(self)
        for key in ("place_sum", "score_sum", "margin_sum"):
            del data[key]
        return {
            **data,
            "win_rate": self.win_rate,
            "win_rate_ci95": [low, high],
            "mean_rank": self.mean(self.place_sum),
            "mean_score": self.mean(self.score_sum),
            "mean_margin": self.mean(self.margin_sum),
        }


@dataclass
class TournamentResult:
    game: str
    players: int
    games: int
    seed: int
    config: dict[str, Any]
    agents: list[AgentResult]
    truncated: int = 0
    mean_turns: float = 0.0
    mean_steps: float = 0.0
    seconds: float = 0.0
    end_reasons: dict[str, int] = field(default_factory=dict)
    #: With ``run_tournament(..., game_log=True)``: one entry per game, in game order, holding
    #: ``game``, ``seats`` (each lineup slot's seat) and ``places`` (each slot's finishing place,
    #: see :func:`finishing_places`). ``None`` otherwise (and then left out of :meth:`to_dict`).
    #: Each entry also holds ``results`` (each slot's win/draw/loss), ``scores`` (each slot's side
    #: score), ``winners``, ``end_reason``, ``turns`` and ``steps`` (the game's length). In a side
    #: lineup ``seats`` holds each slot's list of seats and ``places`` each side's place.
    game_log: list[dict[str, Any]] | None = None
    #: The game's sides (``State.teams()``): one seat each unless the game has partnerships.
    sides: list[list[int]] = field(default_factory=list)
    #: Whether each lineup slot plays a whole side (see the module docstring).
    side_lineup: bool = False

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["agents"] = [a.to_dict() for a in self.agents]
        if self.game_log is None:
            del data["game_log"]
        return data

    def table(self) -> str:
        sides = len(self.sides) or self.players
        many = sides > 2  # mean rank and score say more than the win rate alone
        extra = f"{'margin':>8}" + (f"{'rank':>7}{'score':>8}" if many else "")
        teams = ""
        if sides < self.players:
            teams = f"; sides {' '.join('+'.join(map(str, s)) for s in self.sides)}"
            teams += ", one agent per side" if self.side_lineup else ", a team win counts for each"
        lines = [
            f"{self.game}, {self.players} players, {self.games} games (seed {self.seed}, "
            f"seats rotated{', options ' + str(self.config) if self.config else ''}{teams})",
            f"{'agent':<14}{'games':>7}{'wins':>7}{'draws':>7}{'win rate':>10}   95% CI"
            f"{'':<8}{extra}",
        ]
        for a in self.agents:
            low, high = a.interval
            cells = f"{a.mean(a.margin_sum):>+8.2f}"
            if many:
                cells += f"{a.mean(a.place_sum):>7.2f}{a.mean(a.score_sum):>8.2f}"
            lines.append(
                f"{a.name:<14}{a.games:>7}{a.wins:>7}{a.draws:>7}{a.win_rate:>10.3f}"
                f"   [{low:.3f}, {high:.3f}]{cells}"
            )
        share = "win rate" if sides == self.players else "team win rate"
        lines.append(
            "margin: own side's score minus the other sides' mean"
            + ("; rank: 1 is first; score: own side's" if many else "")
        )
        lines.append(
            f"fair share ({share}) 1/{sides} = {1 / sides:.3f}; mean length "
            f"{self.mean_turns:.1f} turns ({self.mean_steps:.1f} steps); "
            f"truncated {self.truncated}; {self.seconds:.1f} s"
        )
        if self.end_reasons:
            lines.append(
                "endings: " + ", ".join(f"{k} {v}" for k, v in sorted(self.end_reasons.items()))
            )
        return "\n".join(lines)


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def finishing_places(result: Outcome, scores: Sequence[float]) -> list[int]:
    """Each seat's place at the end (1 is first; tied seats share a place).

    The winners share first place and the other seats follow by score, highest first (equal
    scores tie). A game nobody won (truncated too) ties every seat; a game ended by an illegal
    move puts its offender last and ties the others. With two seats this is exactly
    :meth:`~cardzoo.envs.outcome.Outcome.result`: a win, a draw or a loss.
    """
    n = result.num_players
    if result.offender >= 0:
        return [2 if q == result.offender else 1 for q in range(n)]
    if not result.winners:
        return [1] * n
    keys = [(q in result.winners, scores[q] if q not in result.winners else 0.0) for q in range(n)]
    return [1 + sum(other > keys[q] for other in keys) for q in range(n)]


def side_places(result: Outcome, scores: Sequence[float]) -> list[int]:
    """Each seat's place counted by sides: :func:`finishing_places` with every side (a seat, or
    partners) as one competitor, given to each of its seats. The same as ``finishing_places``
    for a game without partnerships."""
    sides = result.teams
    if len(sides) == result.num_players:
        return finishing_places(result, scores)
    if result.offender >= 0:
        last = result.team_of(result.offender)
        return [2 if q in last else 1 for q in range(result.num_players)]
    if not result.winners:
        return [1] * result.num_players
    won = result.winning_teams
    keys = [(s in won, 0.0 if s in won else side_score(s, scores)) for s in sides]
    places = [1] * result.num_players
    for i, side in enumerate(sides):
        for q in side:
            places[q] = 1 + sum(other > keys[i] for other in keys)
    return places


def side_score(side: Sequence[int], scores: Sequence[float]) -> float:
    """A side's score: the mean of its seats' (partners score alike in the team games)."""
    return sum(scores[q] for q in side) / len(side)


def side_margins(sides: Sequence[Sequence[int]], scores: Sequence[float]) -> list[float]:
    """Per seat: its side's score minus the mean score of the other sides (0 with one side)."""
    totals = [side_score(s, scores) for s in sides]
    margins = [0.0] * len(scores)
    for i, side in enumerate(sides):
        others = [t for j, t in enumerate(totals) if j != i]
        margin = totals[i] - sum(others) / len(others) if others else 0.0
        for q in side:
            margins[q] = margin
    return margins


def game_sides(game: str, players: int, config: dict[str, Any] | None = None) -> list[list[int]]:
    """The sides of ``game`` at ``players`` seats with rule ``config`` (a dealt game's
    ``teams()``; no game deals its partnerships at random)."""
    env = load(game).raw_env(num_players=players, **(config or {}))
    env.reset(seed=0)
    return [list(side) for side in env.game_state.teams()]


def lineup(specs: Sequence[str], players: int) -> list[str]:
    """Agent specs for each lineup slot: the list as given, the last spec filling spare seats."""
    if not specs:
        raise ValueError("at least one agent is needed")
    if len(specs) > players:
        raise ValueError(f"{len(specs)} agents given for a {players}-player game")
    return list(specs) + [specs[-1]] * (players - len(specs))


def run_tournament(
    game: str,
    agent_specs: Sequence[str],
    games: int,
    players: int,
    seed: int = 0,
    config: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    record_dir: str | None = None,
    game_log: bool = False,
    executor: Callable[[Iterator[tuple]], Iterable[dict[str, Any]]] | None = None,
) -> TournamentResult:
    """Play ``games`` games; in game ``g`` lineup slot ``i`` sits in seat ``(i + g) % players``
    (in a side lineup, see the module docstring, slot ``i`` plays side ``(i + g) % sides``).

    Game ``g`` and its agents are seeded from ``(seed, g)`` alone, so the result does not depend
    on ``workers`` (the number of processes sharing the games). With ``record_dir`` (an existing
    folder) each game is also saved there as a game record (:mod:`cardzoo.train.records`), named
    by :func:`~cardzoo.train.records.record_filename`; each worker writes its own games. With
    ``game_log`` the result also lists every game's seats and finishing places (``game_log``).
    ``executor`` (e.g. :func:`cardzoo.train.ray_eval.ray_executor`) plays the chunks of games
    instead of local processes: it maps :func:`play_chunk` over the jobs, results in any order.
    """
    _check_numbers(games, workers, seed)
    module = load(game)
    config = dict(config or {})
    module.env(num_players=players, **config)  # fail fast on bad options, before any work
    sides = game_sides(game, players, config)
    by_side = len(sides) < players and 0 < len(agent_specs) <= len(sides)
    specs = lineup(agent_specs, len(sides) if by_side else players)
    for spec in set(specs):
        make_agent(spec, module.GAME.name)  # fail fast on bad agent specs
    out = TournamentResult(
        module.GAME.name,
        players,
        games,
        seed,
        config,
        [AgentResult(name, spec) for name, spec in zip(_labels(specs), specs)],
        sides=sides,
        side_lineup=by_side,
    )
    started = time.perf_counter()
    # At most ~10,000 jobs, made lazily: a long tournament must not queue millions of jobs.
    chunk = max(1, min(max(50, games // 10_000), games // (workers * 4) or 1))
    jobs = (
        (
            game,
            specs,
            players,
            seed,
            config,
            g,
            min(g + chunk, games),
            record_dir,
            games,
            game_log,
            by_side,
        )
        for g in range(0, games, chunk)
    )
    workers = min(workers, -(-games // chunk))  # no idle processes
    _run_jobs(jobs, workers, executor, out, progress)
    if out.game_log is not None:
        out.game_log.sort(key=lambda entry: entry["game"])  # workers finish in any order
    out.mean_turns /= games
    out.mean_steps /= games
    out.seconds = time.perf_counter() - started
    return out


def _check_numbers(games: int, workers: int, seed: int) -> None:
    if not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be >= 1 and at most {MAX_GAMES:,}, got {games}")
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"workers must be >= 1 and at most {MAX_WORKERS}, got {workers}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


def _run_jobs(
    jobs: Iterator[tuple],
    workers: int,
    executor: Callable[[Iterator[tuple]], Iterable[dict[str, Any]]] | None,
    out: TournamentResult,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Play the jobs (in this process, a process pool or the executor) and merge into ``out``."""
    done = 0
    if executor is not None:
        partials, workers = executor(jobs), 1
    elif workers == 1:
        partials = map(_play_games, jobs)
    else:
        import multiprocessing

        pool = multiprocessing.get_context("spawn").Pool(workers, initializer=_ignore_ctrl_c)
        partials = pool.imap_unordered(_play_games, jobs)
    finished = False
    try:
        for part in partials:
            _merge(out, part)
            done += part["games"]
            if progress is not None:
                progress(done, out.games)
        finished = True
    finally:
        if workers > 1:
            if finished:
                pool.close()
            else:  # Ctrl-C or an error: stop the workers now instead of finishing the queue
                pool.terminate()
            pool.join()


def play_chunk(job: tuple) -> dict[str, Any]:
    """Play one chunk of a tournament (a job made by :func:`run_tournament`); counts to merge."""
    return _play_games(job)


def _ignore_ctrl_c() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops them (no traceback per worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play_games(job: tuple) -> dict[str, Any]:
    """Play games ``first..last-1`` of a tournament; returns counts to merge."""
    game, specs, players, seed, config, first, last, record_dir, games, log, by_side = job
    module = load(game)
    env = module.env(num_players=players, **config)
    plain = module.GAME.name
    part: dict[str, Any] = {
        "games": last - first,
        "turns": 0,
        "steps": 0,
        "truncated": 0,
        "reasons": {},
        "records": [[0, 0, 0] for _ in specs],  # wins, draws, losses per lineup slot
        "standings": [[0.0, 0.0, 0.0] for _ in specs],  # sums of place, score, margin per slot
        "log": [] if log else None,
    }
    for g in range(first, last):
        game_seed = seed * 1_000_003 + g
        env.reset(seed=game_seed)
        unwrapped = env.unwrapped
        sides = unwrapped.game_state.teams()
        if by_side:
            side_of = {q: i for i, side in enumerate(sides) for q in side}
            slot_of_seat = {q: (side_of[q] - g) % len(sides) for q in range(players)}
        else:
            slot_of_seat = {(i + g) % players: i for i in range(players)}
        seat_specs = [specs[slot_of_seat[q]] for q in range(players)]
        # the agent in seat (i + g) % players is seeded with i, as before side lineups existed
        agents = {}
        for i in range(players):
            q = (i + g) % players
            agents[q] = make_agent(seat_specs[q], plain, seed=game_seed * 16 + i)
        recorder = None
        if record_dir is not None:
            recorder = GameRecorder(
                unwrapped, game_seed, seat_specs, config, {"seed": seed, "game": g}
            )
        steps = _play_one(env, agents, recorder)
        part["steps"] += steps
        if recorder is not None:
            name = record_filename(plain, players, g, games)
            write_record(recorder.finish(), os.path.join(record_dir, name))
        _count_game(part, unwrapped, g, steps, slot_of_seat, len(specs), by_side)
    return part


def _play_one(env: Any, agents: dict[int, Any], recorder: GameRecorder | None) -> int:
    """Play the dealt game of ``env`` to its end; the number of decisions taken."""
    unwrapped = env.unwrapped
    steps = 0
    for agent_id in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = unwrapped.seat_of(agent_id)
        action = agents[seat].act(
            obs["observation"], obs["action_mask"], seat=Seat(unwrapped.game_state, seat)
        )
        if recorder is not None:
            recorder.decide(action)
        env.step(action)
        steps += 1
    return steps


def _count_game(
    part: dict[str, Any],
    unwrapped: Any,
    g: int,
    steps: int,
    slot_of_seat: dict[int, int],
    slots: int,
    by_side: bool,
) -> None:
    """Add finished game ``g`` to a chunk's counts (and its game log, when kept)."""
    state = unwrapped.game_state
    sides = state.teams()
    part["turns"] += state.turn
    result = unwrapped.outcome()
    if result.truncated:
        part["truncated"] += 1
    reason = result.end_reason
    part["reasons"][reason] = part["reasons"].get(reason, 0) + 1
    scores = state.scores()
    team_places = side_places(result, scores)
    margins = side_margins(sides, scores)
    # one count per side in a side lineup, else one per seat (partners each get the team's)
    counted = [side[0] for side in sides] if by_side else range(state.num_players)
    first_seat = {}
    for q in counted:
        slot = slot_of_seat[q]
        first_seat[slot] = q
        part["records"][slot][RESULTS.index(result.team_result(q))] += 1
        standing = part["standings"][slot]
        standing[0] += team_places[q]
        standing[1] += side_score(result.team_of(q), scores)
        standing[2] += margins[q]
    if part["log"] is None:
        return
    order = [first_seat[i] for i in range(slots)]
    if by_side:
        seats = [list(result.team_of(q)) for q in order]
        places = [team_places[q] for q in order]
    else:
        seats = order
        seat_places = finishing_places(result, scores)
        places = [seat_places[q] for q in order]
    entry = {"game": g, "seats": seats, "places": places}
    entry["results"] = [result.team_result(q) for q in order]
    entry["scores"] = [side_score(result.team_of(q), scores) for q in order]
    entry["winners"] = list(result.winners)
    entry["end_reason"] = reason
    entry["turns"] = state.turn
    entry["steps"] = steps
    part["log"].append(entry)


def _merge(out: TournamentResult, part: dict[str, Any]) -> None:
    out.mean_turns += part["turns"]  # divided by the game count at the end
    out.mean_steps += part["steps"]
    out.truncated += part["truncated"]
    for reason, count in part["reasons"].items():
        out.end_reasons[reason] = out.end_reasons.get(reason, 0) + count
    if part["log"] is not None:
        if out.game_log is None:
            out.game_log = []
        out.game_log.extend(part["log"])
    for record, counts, standing in zip(out.agents, part["records"], part["standings"]):
        for result, times in zip(RESULTS, counts):
            record.count(result, times)
        record.add_standing(*standing)


def _labels(specs: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def progress_bar(label: str, stream: Any = sys.stderr) -> Callable[[int, int], None]:
    """A dependency-free progress bar on stderr.

    On a terminal it redraws one line (at most ~10 times a second); in a log (not a terminal) it
    writes a plain line at every tenth of the run instead.
    """
    start = time.perf_counter()
    last = [0.0, 0]  # time of the last redraw, last tenth logged
    interactive = hasattr(stream, "isatty") and stream.isatty()

    def update(done: int, total: int) -> None:
        now = time.perf_counter()
        rate = done / max(now - start, 1e-9)
        eta = (total - done) / rate if rate else 0.0
        if not interactive:
            tenth = 10 * done // total
            if tenth > last[1]:
                last[1] = tenth
                stream.write(f"{label}: {done}/{total} games, {rate:.1f} games/s\n")
                stream.flush()
            return
        if done < total and now - last[0] < 0.1:
            return
        last[0] = now
        width = 30
        filled = int(width * done / total)
        stream.write(
            f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
            f"{rate:.1f} games/s, eta {eta:.0f} s"
        )
        if done == total:
            stream.write("\n")
        stream.flush()

    return update
