"""``cardzoo bench``: decisions/s of every game, its engine and encoder, peers, memory, training.

    cardzoo bench [GAME...] [--players N...] [--seconds S] [--repeats R] [--peers] [--train]
        [--memory-games G] [--train-seconds T] [--json FILE] [--plot FILE]
        [--variant NAME] [KEY=VALUE...]

What is measured, for every game and player count (docs/benchmark.md has the details):

- ``env`` and ``raw_env``: the standard AEC loop under random legal play (``env.last()``, a
  uniformly random unmasked action, ``env.step()``; resets included). **Decisions** are the steps
  with a real action; steps also count the ``None`` steps that retire finished agents (about 40%
  of a leduc hand), so decisions are the fair unit across games;
- ``engine``: the rules engine alone (deal, ``legal_move_ids`` + ``apply_id``; no tensors);
- ``encoder``: microseconds per observation and per action mask, on 512 consecutive decision
  states of random games;
- ``determinize``: microseconds per ``state.determinize(current_player, rng)`` at early, middle
  and late positions of seeded random games (``bench_loops.POSITIONS``, calls repeated at each
  after a first, untimed one), and *along* other seeded games: one call at every decision, each
  at a new position, as an agent in a real game makes them (``bench_loops.along_loop``; at
  least four whole games per repeat, never a game met before);
- on the ``env`` row: ``reset()`` and construction time, and the memory one env holds after
  ``G`` random games (1,000 by default; see ``bench_loops.private_bytes``);
- with ``--peers``: PettingZoo ``leduc_holdem_v4``, ``texas_holdem_v4``, ``connect_four_v3``
  (``env()`` and ``raw_env()``) and RLCard's own leduc API, with the same loop;
- with ``--train``: ``MaskablePPO.learn`` learner steps/s and total decisions/s for K = 1, 8, 64
  batched games (``bench_train.measure``, self-play opponents), per game at its smallest
  player count.

Each timed measurement runs for ``S`` seconds; all of them run once per repeat, in alternating
order, so that a change of machine load touches every row alike. Rows report the best and the
median of the repeats, and decisions per CPU second (what the process itself got done, less
sensitive to other processes on a shared machine).

The JSON written by ``--json`` is the schema documented in docs/benchmark.md (``SCHEMA``).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
from cardzoo.train.bench_loops import (
    ALONG,
    POSITIONS,
    Sample,
    aec_loop,
    along_loop,
    encoder_loop,
    engine_loop,
    game_positions,
    play_games,
    private_bytes,
    repeat_loop,
    sample_states,
)
from cardzoo.train.bench_peers import REFERENCE, Peer, load_peers

#: Version of the JSON layout; bumped when a field changes meaning or disappears.
SCHEMA = 2  # 2 (session 9): the determinize figures' meaning changed (see docs/benchmark.md)
#: Training throughput is measured for these batch sizes (K games side by side).
TRAIN_ENVS = (1, 8, 64)
#: Memory is measured after this many decisions at most, whatever the number of games asked:
#: long games (Odin's Ravens under random play: about 1,400 decisions) would take minutes.
MEMORY_MAX_DECISIONS = 200_000
ENCODER_STATES = 512
#: Seeded random games whose early, middle and late positions ``determinize`` is timed at.
DETERMINIZE_GAMES = 16
#: The along figure: whole games from this seed on (apart from the positions' games, so that
#: nothing the positions' calls kept serves it), at least this many in each repeat.
ALONG_SEED = 1000
ALONG_MIN_GAMES = 4
#: Games per opponent of the training runs' evaluations: the first one is inside the time budget.
TRAIN_EVAL = 10


@dataclass
class Settings:
    """What to measure and for how long."""

    games: list[ModuleType]
    players: dict[str, list[int]]  # env name -> player counts to measure
    seconds: float = 1.0
    repeats: int = 3
    peers: bool = False
    train: bool = False
    memory_games: int = 1000
    train_seconds: float = 15.0
    #: Rule options and ``variant`` for the measured game (one game only), as for ``env()``.
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.seconds > 0:
            raise ValueError(f"--seconds must be > 0, got {self.seconds}")
        if isinstance(self.repeats, bool) or not isinstance(self.repeats, int) or self.repeats < 1:
            raise ValueError(f"--repeats must be an int >= 1, got {self.repeats!r}")
        if self.memory_games < 0:
            raise ValueError(f"--memory-games must be >= 0, got {self.memory_games}")
        if not self.train_seconds > 0:
            raise ValueError(f"--train-seconds must be > 0, got {self.train_seconds}")
        if self.options and len(self.games) != 1:
            raise ValueError("rule options and --variant need exactly one game to measure")

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": [m.GAME.env_name for m in self.games],
            "players": self.players,
            "seconds": self.seconds,
            "repeats": self.repeats,
            "peers": self.peers,
            "train": self.train,
            "memory_games": self.memory_games,
            "memory_max_decisions": MEMORY_MAX_DECISIONS,
            "train_seconds": self.train_seconds,
            "train_envs": list(TRAIN_ENVS),
            "options": dict(self.options),
        }


def env_options(spec: Any, n: int, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``env()`` arguments of ``n`` seats: ``num_players``, plus the named variant that allows
    that count when the standard game does not (Sitting Ducks Gallery's 2-player ``duel``), plus
    ``extra`` (rule options, and a ``variant`` that replaces the default one)."""
    extra = dict(extra or {})
    if "variant" in extra or n in spec.player_counts:
        return {**extra, "num_players": n}
    for name, options in spec.variants.items():
        if options.get("num_players") == n:
            return {"variant": name, **extra, "num_players": n}
    raise ValueError(f"{spec.env_name} is not played by {n} players")


def player_counts(spec: Any) -> list[int]:
    """Every seat count the game is played with: the standard ones, then those of variants."""
    extra = [o["num_players"] for o in spec.variants.values() if "num_players" in o]
    return sorted({*spec.player_counts, *extra})


def select(
    names: list[str] | None,
    players: list[int] | None,
    all_games: list[ModuleType],
    options: dict[str, Any] | None = None,
) -> tuple[list[ModuleType], dict[str, list[int]]]:
    """The games and player counts to measure.

    Games named explicitly must each be playable by one of ``players``; with no game named, the
    games with none of those counts are left out (``--players 2`` skips a 3-6 player game).
    With ``options`` (rule options, ``variant``; one game), the counts are those they allow.
    """
    from cardzoo.envs import load

    chosen = all_games if not names else [load(name) for name in dict.fromkeys(names)]
    if options and len(chosen) != 1:
        raise ValueError("rule options and --variant need exactly one game to measure")
    modules, counts = [], {}
    for module in chosen:
        spec = module.GAME
        counts_here = _allowed_counts(spec, options) if options else player_counts(spec)
        if players is None:
            wanted = counts_here
        else:
            wanted = [n for n in counts_here if n in players]
            if not wanted and names:
                raise ValueError(
                    f"{spec.env_name} is played by {counts_here} players, "
                    f"not {sorted(set(players))}"
                )
        if wanted:
            modules.append(module)
            counts[spec.env_name] = wanted
    if not modules:
        raise ValueError(f"no game is played by {sorted(set(players or []))} players")
    return modules, counts


def _allowed_counts(spec: Any, options: dict[str, Any]) -> list[int]:
    """The seat counts whose config ``options`` allow (a variant that sets the count allows
    that one alone); a ValueError saying why if none."""
    fixed = spec.variants.get(options.get("variant"), {}).get("num_players")
    allowed, errors = [], []
    for n in [fixed] if fixed else player_counts(spec):
        try:
            spec.make_config(**env_options(spec, n, options))
        except ValueError as err:
            errors.append(str(err))
        else:
            allowed.append(n)
    if not allowed:
        raise ValueError(errors[0])
    return allowed


@dataclass
class Task:
    """A measurement repeated once per repeat; ``samples`` collects what each repeat gave."""

    key: tuple[str, str, int, str]  # suite, env, players, api
    run: Callable[[float], dict[str, Sample]]
    samples: list[dict[str, Sample]] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)  # env() arguments but num_players
    load: list[float] = field(default_factory=list)


def _our_tasks(module: ModuleType, n: int, extra: dict[str, Any] | None = None) -> list[Task]:
    spec = module.GAME
    name = spec.env_name
    options = env_options(spec, n, extra)
    config = spec.make_config(**options)
    encoder = module.raw_env(**options).encoder
    states = sample_states(spec.state_cls, config, ENCODER_STATES)
    positions = game_positions(spec.state_cls, config, DETERMINIZE_GAMES)
    along_seed = [ALONG_SEED]  # goes on from repeat to repeat: no game is met twice
    along_runs = [0]  # the first run is the warm-up: one game is enough there

    def env_run(seconds: float) -> dict[str, Sample]:
        return {"play": aec_loop(module.env(**options), seconds)}

    def raw_run(seconds: float) -> dict[str, Sample]:
        return {"play": aec_loop(module.raw_env(**options), seconds)}

    def engine_run(seconds: float) -> dict[str, Sample]:
        return {"play": engine_loop(spec.state_cls, config, seconds)}

    def encoder_run(seconds: float) -> dict[str, Sample]:
        encode, mask = encoder.encode, encoder.mask
        return {
            "obs": encoder_loop(lambda s: encode(s, s.current_player), states, seconds / 2),
            "mask": encoder_loop(mask, states, seconds / 2),
        }

    def determinize_run(seconds: float) -> dict[str, Sample]:
        # One rng for every call, as a search agent passes its own.
        rng = np.random.default_rng(0)

        def call(s: Any) -> Any:
            return s.determinize(s.current_player, rng)

        share = seconds / (len(positions) + 1)
        timed = {}
        for name, found in positions.items():
            for state in found:  # the first call at a position is what the along figure times
                call(state)
            timed[name] = encoder_loop(call, found, share)
        least = ALONG_MIN_GAMES if along_runs[0] else 1
        along_runs[0] += 1
        along = along_loop(call, spec.state_cls, config, share, along_seed[0], least)
        along_seed[0] += along.episodes
        timed[ALONG] = along
        return timed

    def setup_run(seconds: float) -> dict[str, Sample]:
        env = module.env(**options)
        env.reset(seed=0)
        return {
            "construct": repeat_loop(lambda: module.env(**options), seconds / 4),
            "reset": repeat_loop(env.reset, seconds / 4),
        }

    ours = ("cardzoo", name, n)
    shown = {k: v for k, v in options.items() if k != "num_players"}
    runs = [env_run, raw_run, engine_run, encoder_run, determinize_run, setup_run]
    apis = ["env", "raw_env", "engine", "encoder", "determinize", "setup"]
    return [Task((*ours, api), run, options=shown) for api, run in zip(apis, runs)]


def _peer_task(peer: Peer) -> Task:
    return Task(
        (peer.suite, peer.env, peer.players, peer.api),
        lambda seconds, peer=peer: {"play": peer.measure(seconds)},
    )


def _rates(samples: list[Sample]) -> dict[str, Any]:
    steps = [s.steps / s.wall for s in samples]
    decisions = [s.decisions / s.wall for s in samples]
    return {
        "steps_per_s": max(steps),
        "steps_per_s_median": statistics.median(steps),
        "decisions_per_s": max(decisions),
        "decisions_per_s_median": statistics.median(decisions),
        "cpu_decisions_per_s": max(s.decisions / s.cpu for s in samples if s.cpu > 0)
        if any(s.cpu > 0 for s in samples)
        else None,
        "episodes": sum(s.episodes for s in samples),
        "decisions": sum(s.decisions for s in samples),
    }


def _micros(samples: list[Sample]) -> tuple[float, float, float]:
    """Best, median and best-CPU microseconds per call."""
    per = [s.wall / s.steps * 1e6 for s in samples]
    cpu = [s.cpu / s.steps * 1e6 for s in samples]
    return min(per), statistics.median(per), min(cpu)


def _empty_row(key: tuple[str, str, int, str], task: Task, settings: Settings) -> dict[str, Any]:
    suite, env, players, api = key
    return {
        "suite": suite,
        "env": env,
        "players": players,
        "api": api,
        "steps_per_s": None,
        "steps_per_s_median": None,
        "decisions_per_s": None,
        "decisions_per_s_median": None,
        "cpu_decisions_per_s": None,
        "ratio_to_leduc_env": None,
        "cpu_ratio_to_leduc_env": None,
        "repeats": len(task.samples),
        "seconds": settings.seconds,
        "load_1min": round(statistics.mean(task.load), 2) if task.load else None,
        "options": dict(task.options),
    }


def _rows(tasks: list[Task], settings: Settings) -> list[dict[str, Any]]:
    """One row per measurement; the setup task's numbers go on the env row of the same game."""
    rows: dict[tuple[str, str, int, str], dict[str, Any]] = {}
    for task in tasks:
        suite, env, players, api = task.key
        if api == "setup":
            continue
        row = _empty_row(task.key, task, settings)
        if api == "encoder":
            for part in ("obs", "mask"):
                best, median, cpu = _micros([s[part] for s in task.samples])
                row[f"{part}_us"] = round(best, 3)
                row[f"{part}_us_median"] = round(median, 3)
                row[f"cpu_{part}_us"] = round(cpu, 3)
        elif api == "determinize":
            row["determinize_games"] = DETERMINIZE_GAMES
            row["along_games"] = min(s[ALONG].episodes for s in task.samples)
            for part in (*POSITIONS, ALONG):
                best, median, cpu = _micros([s[part] for s in task.samples])
                row[f"{part}_us"] = round(best, 2)
                row[f"{part}_us_median"] = round(median, 2)
                row[f"cpu_{part}_us"] = round(cpu, 2)
        else:
            row.update(_rates([s["play"] for s in task.samples]))
        rows[task.key] = row
    for task in tasks:
        suite, env, players, api = task.key
        if api != "setup":
            continue
        row = rows[(suite, env, players, "env")]
        best, median, _ = _micros([s["construct"] for s in task.samples])
        row["construct_ms"] = round(best / 1000, 3)
        row["construct_ms_median"] = round(median / 1000, 3)
        best, median, _ = _micros([s["reset"] for s in task.samples])
        row["reset_us"] = round(best, 2)
        row["reset_us_median"] = round(median, 2)
    return list(rows.values())


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """``ratio_to_leduc_env`` (best decisions/s) and ``cpu_ratio_to_leduc_env`` on every row."""
    reference = next(
        (r for r in rows if (r["suite"], r["env"], r["api"]) == REFERENCE and r["decisions_per_s"]),
        None,
    )
    if reference is None:
        return
    for row in rows:
        if row["decisions_per_s"] is not None and row["api"] != "train":
            row["ratio_to_leduc_env"] = round(
                row["decisions_per_s"] / reference["decisions_per_s"], 3
            )
        if row.get("cpu_decisions_per_s") and reference.get("cpu_decisions_per_s"):
            row["cpu_ratio_to_leduc_env"] = round(
                row["cpu_decisions_per_s"] / reference["cpu_decisions_per_s"], 3
            )


def measure_memory(
    module: ModuleType,
    n: int,
    games: int,
    report: Callable[[str], None],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Bytes one env holds after one game and after ``games`` games of random play."""
    options = env_options(module.GAME, n, extra)
    fresh = module.env(**options)
    play_games(fresh, 1, MEMORY_MAX_DECISIONS, seed=10**6)
    env = module.env(**options)
    play_games(env, 1, MEMORY_MAX_DECISIONS)
    one = private_bytes(env, fresh)
    played, decisions = play_games(env, games - 1, MEMORY_MAX_DECISIONS, seed=1)
    after = private_bytes(env, fresh)
    report(
        f"memory {module.GAME.env_name} {n}p: {one / 1024:.1f} kB after 1 game, "
        f"{after / 1024:.1f} kB after {played + 1} games"
    )
    return {"memory_bytes": after, "memory_games": played + 1, "memory_1_game_bytes": one}


def _complete_share(steps: int, envs: int, n_steps: int) -> float:
    """Share of ``steps`` learner steps that belong to complete rollouts of ``envs * n_steps``.

    ``bench_train.measure`` divides every learner step by the time of the complete rollouts and
    updates only: the rollout cut by the time budget adds steps but not their time (SB3 stops
    it from a step callback, so its end is never timed). Scaling the rates by this share keeps
    the untimed steps out.
    """
    block = envs * n_steps
    return (steps // block * block) / steps if steps else 0.0


def train_rows(
    modules: list[ModuleType], seconds: float, report: Callable[[str], None]
) -> list[dict[str, Any]]:
    """Learner steps/s of ``cardzoo train`` for each K of ``TRAIN_ENVS``, per game (fewest
    players), through ``bench_train.measure`` with self-play opponents and short evaluations
    (the first one counts against the time budget)."""
    from cardzoo.train.bench_train import measure
    from cardzoo.train.ppo import TrainConfig

    n_steps = TrainConfig.__dataclass_fields__["n_steps"].default
    rows = []
    for module in modules:
        spec = module.GAME
        players = spec.player_counts[0]
        for k in TRAIN_ENVS:
            label = f"train {spec.env_name} {players}p K={k}"
            try:
                m = measure(spec.name, k, "self", seconds, players=players, eval_games=TRAIN_EVAL)
            except ZeroDivisionError:  # stopped before its first rollout was complete
                m = None
            share = _complete_share(m["learner_steps"], k, n_steps) if m else 0.0
            if not share:
                report(f"{label}: no complete rollout in {seconds:g} s; raise --train-seconds")
                continue
            learner = round(m["learner_steps_per_s"] * share)
            decisions = round(m["decisions_per_s"] * share)
            row = {
                "suite": "cardzoo",
                "env": spec.env_name,
                "players": players,
                "api": "train",
                "steps_per_s": learner,
                "steps_per_s_median": learner,
                "decisions_per_s": decisions,
                "decisions_per_s_median": decisions,
                "cpu_decisions_per_s": None,
                "ratio_to_leduc_env": None,
                "cpu_ratio_to_leduc_env": None,
                "repeats": 1,
                "seconds": seconds,
                "load_1min": m["load_1min"][-1],
                "envs": k,
                "opponents": "self",
                "learner_steps_per_s": learner,
                "learner_steps_per_cpu_s": m.get("learner_steps_per_cpu_s"),
                "rollout_share": m.get("rollout_share"),
                "update_share": m.get("update_share"),
                "learner_steps": m["learner_steps"],
                "timed_learner_steps": round(m["learner_steps"] * share),
                "wall_s": m.get("wall_s"),
            }
            rows.append(row)
            report(
                f"{label}: {learner:,} learner steps/s, {decisions:,} decisions/s "
                f"(load {row['load_1min']})"
            )
    return rows


def run(settings: Settings, report: Callable[[str], None] = print) -> dict[str, Any]:
    """Measure everything ``settings`` asks for; returns the JSON-ready report."""
    from cardzoo.train.bench_report import machine_info, package_versions

    started = time.perf_counter()
    machine = machine_info()
    tasks: list[Task] = []
    if settings.peers:
        tasks += [_peer_task(p) for p in load_peers(report)]
    for module in settings.games:
        for n in settings.players[module.GAME.env_name]:
            tasks += _our_tasks(module, n, settings.options)

    # A short untimed pass first: imports, caches and first-episode costs stay out of the rows.
    warmup = min(0.1, settings.seconds / 5)
    for task in tasks:
        task.run(warmup)
    for repeat in range(settings.repeats):
        # Alternate the order: a load that drifts during the run touches first and last alike.
        for task in tasks if repeat % 2 == 0 else reversed(tasks):
            task.load.append(os.getloadavg()[0])
            task.samples.append(task.run(settings.seconds))
        report(
            f"repeat {repeat + 1}/{settings.repeats} done "
            f"({time.perf_counter() - started:.0f} s, load {os.getloadavg()[0]:.2f})"
        )
    rows = _rows(tasks, settings)

    if settings.memory_games:
        for module in settings.games:
            for n in settings.players[module.GAME.env_name]:
                row = next(
                    r
                    for r in rows
                    if r["env"] == module.GAME.env_name and r["players"] == n and r["api"] == "env"
                )
                row.update(
                    measure_memory(module, n, settings.memory_games, report, settings.options)
                )
    if settings.train:
        rows += train_rows(settings.games, settings.train_seconds, report)
    add_ratios(rows)

    machine["load_1min_end"] = round(os.getloadavg()[0], 2)
    machine["bench_wall_s"] = round(time.perf_counter() - started, 1)
    return {
        "schema": SCHEMA,
        "machine": machine,
        "versions": package_versions(),
        "settings": settings.to_dict(),
        "rows": rows,
        "targets": check_targets(rows),
    }


# -- targets (docs/benchmark.md, "Targets") ----------------------------------------------

ENV_TO_LEDUC = 4.0  # every game's env() at least 4x leduc env() in decisions/s
ENGINE_TO_LEDUC = 15.0  # the raw engine at least 15x
ENV_TO_RAW = 0.95  # env() within 5% of raw_env()
MEMORY_LIMIT = 64 * 1024  # bytes per env after the memory games
SCALING = ("cubirds_v0", 2, 5, 0.8)  # Cubirds 5p within 20% of Cubirds 2p
DETERMINIZE_MS = 0.2  # search agents call it once per simulation: at most 0.2 ms a call


def _cpu_share(a: dict[str, Any], b: dict[str, Any]) -> float | None:
    if a.get("cpu_decisions_per_s") and b.get("cpu_decisions_per_s"):
        return a["cpu_decisions_per_s"] / b["cpu_decisions_per_s"]
    return None


def check_targets(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every target the rows allow to check: what, for which row, the value, the bar, pass.

    ``ok`` judges ``value``, from the wall-clock rates the targets are stated in; ``cpu_value``
    is the same quantity from decisions per CPU second, for reading a run on a busy machine.
    """
    found: list[dict[str, Any]] = []

    def add(
        target: str, row: dict[str, Any], value: float, bar: float, ok: bool, cpu: float | None
    ) -> None:
        found.append(
            {
                "target": target,
                "env": row["env"],
                "players": row["players"],
                "value": round(value, 3),
                "cpu_value": None if cpu is None else round(cpu, 3),
                "bar": bar,
                "ok": ok,
            }
        )

    ours = {(r["env"], r["players"], r["api"]): r for r in rows if r["suite"] == "cardzoo"}
    for (env, players, api), row in ours.items():
        ratio, cpu = row.get("ratio_to_leduc_env"), row.get("cpu_ratio_to_leduc_env")
        if api == "env" and ratio is not None:
            add("env() decisions/s / leduc env()", row, ratio, ENV_TO_LEDUC,
                ratio >= ENV_TO_LEDUC, cpu)  # fmt: skip
        if api == "engine" and ratio is not None:
            add("engine decisions/s / leduc env()", row, ratio, ENGINE_TO_LEDUC,
                ratio >= ENGINE_TO_LEDUC, cpu)  # fmt: skip
        raw = ours.get((env, players, "raw_env"))
        if api == "env" and raw and raw["decisions_per_s"]:
            share = row["decisions_per_s"] / raw["decisions_per_s"]
            add("env() / raw_env() decisions/s", row, share, ENV_TO_RAW, share >= ENV_TO_RAW,
                _cpu_share(row, raw))  # fmt: skip
        if api == "determinize":
            worst = max(row[f"{part}_us"] for part in (*POSITIONS, ALONG)) / 1000
            cpu_worst = max(row[f"cpu_{part}_us"] for part in (*POSITIONS, ALONG)) / 1000
            add("determinize ms/call, slowest position or along a game", row, worst, DETERMINIZE_MS,
                worst <= DETERMINIZE_MS, cpu_worst)  # fmt: skip
        if api == "env" and row.get("memory_bytes") is not None:
            add("memory per env (kB)", row, row["memory_bytes"] / 1024, MEMORY_LIMIT / 1024,
                row["memory_bytes"] < MEMORY_LIMIT, None)  # fmt: skip
    name, few, many, share = SCALING
    low, high = ours.get((name, few, "env")), ours.get((name, many, "env"))
    if low and high:
        value = high["decisions_per_s"] / low["decisions_per_s"]
        add(f"{many}p / {few}p env() decisions/s", high, value, share, value >= share,
            _cpu_share(high, low))  # fmt: skip
    return found
