"""Self-play training with sb3-contrib's ``MaskablePPO``: ``cardzoo train GAME``.

One run folder holds everything (``--out DIR``):

- ``config.json``: the training settings (``--resume DIR`` reads them back);
- ``checkpoints/ckpt-<timesteps>.pt``: policy, optimizer, opponent pool, RNG states, counters
  and evaluation history, written atomically (the newest 3 are kept);
- ``train.csv``: one row per PPO update (speed, rollout/update time, losses, pool size);
- ``opponents.csv``: per update, the games against each pool member and their outcomes;
- ``eval.csv``: periodic seat-rotated evaluations against the baselines, with 95% intervals;
- ``tb/``: the same numbers for TensorBoard (``tensorboard --logdir DIR/tb``);
- ``learning_curve.png``: win rate against each baseline over timesteps (written at the end,
  also after Ctrl-C).

Checkpoints are written at every evaluation (``eval_every``), every ``checkpoint_every`` learner
steps if set, at the end, and on Ctrl-C (the model as it stands, so nothing learned is lost).

The learner plays one seat of K batched games (:class:`~cardzoo.train.vec_env.BatchedCardEnv`);
the other seats are drawn per game from an :class:`~cardzoo.train.pool.OpponentPool`: the current
policy, snapshots of it taken every ``snapshot_every`` updates, and the baselines. In a team game
(Sitting Ducks Gallery's ``mode=team`` at 4 or 6 players) the learner's partners play its current
policy and share its reward; only the opponents come from the pool, and evaluation counts the
team's wins (see :mod:`cardzoo.train.evaluate`).
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TextIO

import numpy as np

# Idle torch threads sleep instead of spinning: on a machine shared with other work, spinning
# threads made PPO updates several times slower. Only effective before torch is imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
from cardzoo.agents import HEURISTICS, make_agent
from cardzoo.agents.policy import checkpoint_files, load_checkpoint, to_numpy
from cardzoo.envs import __version__, load
from cardzoo.train.checkpoint import write_checkpoint
from cardzoo.train.evaluate import DEFAULT_EVAL_GAMES, EvalResult, evaluate
from cardzoo.train.opponents import actor_from_sb3
from cardzoo.train.pool import OpponentPool
from cardzoo.train.single_agent import raw_env_for
from cardzoo.train.vec_env import BatchedCardEnv, SubprocBatchedEnv
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure


@dataclass
class TrainConfig:
    """Every setting of a training run (saved as ``config.json`` in the run folder)."""

    game: str
    players: int | None = None  # None: the count the variant/options set, else the smallest
    timesteps: int = 20_000_000  # learner decisions
    envs: int = 32  # K games side by side
    workers: int = 1  # processes sharing the K games (more than 1 only pays on bigger machines)
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)  # rule options of the game
    # PPO (sb3-contrib MaskablePPO); one update = envs * n_steps learner decisions.
    n_steps: int = 256
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 1e-3  # at the start; falls linearly to lr_final at `timesteps`
    lr_final: float = 1e-4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    activation: str = "relu"
    # torch threads of the PPO update (rollouts use 1); 0: automatic: the first updates try one
    # thread per core and a single thread, and the faster is kept (a busy machine makes extra
    # threads wait for cores; an idle one gains from them)
    threads: int = 0
    # opponent pool
    pool_weights: list[float] = field(default_factory=lambda: [0.6, 0.2, 0.2])
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    snapshot_every: int = 25  # updates
    max_snapshots: int = 10
    # evaluation and checkpoints
    eval_every: int = 1_000_000  # timesteps
    eval_games: int = DEFAULT_EVAL_GAMES
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    checkpoint_every: int = 0  # timesteps; 0: checkpoints only at evaluations (and end, Ctrl-C)
    max_minutes: float = 0.0  # wall-clock budget (0: none); the run stops cleanly when spent
    # warm start by imitation (train/imitation.py): an agent spec, e.g. "heuristic"; "" for none
    warm_start: str = ""
    warm_start_decisions: int = 200_000  # teacher decisions recorded (whole games)
    warm_start_epochs: int = 8
    # the cloning step size; 0: the PPO learning_rate (a gentle fine-tune wants a small PPO step
    # but a clone fitted with it underfits)
    warm_start_lr: float = 0.0

    def __post_init__(self) -> None:
        module = load(self.game)  # unknown game: ValueError naming the games
        self.game = module.GAME.name
        self._check_types()
        if "num_players" in self.options:
            raise ValueError("give the player count as players (--players), not num_players=")
        if self.players is None:  # a variant may set it (Sitting Ducks Gallery's "duel": 2)
            self.players = raw_env_for(module, None, **self.options).config.num_players
        # With rule options (a variant, a mode) the allowed counts can differ: env() checks them.
        if not self.options and self.players not in module.GAME.player_counts:
            raise ValueError(
                f"{module.GAME.title} is played by {list(module.GAME.player_counts)} players, "
                f"not {self.players}"
            )
        for name, (low, high) in _INT_RANGES.items():
            value = getattr(self, name)
            if value < low or (high is not None and value > high):
                allowed = f">= {low:,}" if high is None else f"from {low:,} to {high:,}"
                raise ValueError(f"{name} must be an int {allowed}, got {value!r}")
        if self.envs * self.n_steps > MAX_ROLLOUT:
            raise ValueError(
                f"envs * n_steps is the rollout size and must be at most {MAX_ROLLOUT:,}, got "
                f"{self.envs} * {self.n_steps} = {self.envs * self.n_steps:,}"
            )
        if self.workers > self.envs:
            raise ValueError(f"{self.workers} workers for {self.envs} games: at most one per game")
        for name, (low, high, open_low) in _FLOAT_RANGES.items():
            value = getattr(self, name)
            if not (math.isfinite(value) and (value > low if open_low else value >= low)
                    and (high is None or value <= high)):  # fmt: skip
                bound = f"> {low}" if open_low else f">= {low}"
                raise ValueError(
                    f"{name} must be a number {bound}{'' if high is None else f' and <= {high}'}, "
                    f"got {value!r}"
                )
        if not self.net_arch or any(not 1 <= n <= MAX_LAYER for n in self.net_arch):
            raise ValueError(
                f"net_arch must be one or more layer sizes from 1 to {MAX_LAYER:,}, "
                f"got {self.net_arch}"
            )
        if self.activation not in ("relu", "tanh"):
            raise ValueError(f"activation must be 'relu' or 'tanh', got {self.activation!r}")
        if self.game not in HEURISTICS:  # a game without a heuristic yet: random only
            self.baselines = [b for b in self.baselines if b != "heuristic"]
            self.eval_opponents = [b for b in self.eval_opponents if b != "heuristic"]
        if not self.eval_opponents:
            raise ValueError("eval_opponents must name at least one agent")
        # unknown agent specs, bad weights: ValueError naming what is allowed
        OpponentPool(self.game, self.baselines, self.pool_weights, self.max_snapshots)
        OpponentPool.fixed(self.eval_opponents, self.game)
        if self.warm_start:
            make_agent(self.warm_start, self.game)  # an unknown teacher fails before training
        module.env(num_players=self.players, **self.options)  # bad rule options fail here

    def _check_types(self) -> None:
        """Each setting has its declared type (``--set lr=abc`` must not reach SB3)."""
        for f in fields(self):
            value = getattr(self, f.name)
            kind = str(f.type)
            if kind == "int | None" and value is None:
                continue
            if kind.startswith("list["):
                if not isinstance(value, (list, tuple)):
                    raise ValueError(f"{f.name} must be a list ({kind}), got {value!r}")
                value = list(value)
                setattr(self, f.name, value)
                items, item_kind = value, kind[5:-1]
            else:
                items, item_kind = [value], kind.split(" | ")[0]
            for item in items:
                if not _has_type(item, item_kind):
                    raise ValueError(f"{f.name} must be {_TYPE_WORDS[item_kind]}, got {item!r}")
            if kind == "float":
                setattr(self, f.name, float(value))
            elif kind == "list[float]":
                setattr(self, f.name, [float(v) for v in value])

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown training settings {unknown}")
        return cls(**data)


#: Bounds of the integer settings (None: no upper bound). The upper ones are far beyond any
#: useful run; they make a typo fail at once instead of hanging on memory or processes.
_INT_RANGES: dict[str, tuple[int, int | None]] = {
    "timesteps": (1, 10**12),
    "envs": (1, 4096),
    "workers": (1, 64),
    "seed": (0, 2**32 - 1),  # NumPy's legacy seeding, which SB3 uses, takes 32 bits
    "n_steps": (1, 2**20),
    "batch_size": (1, 2**20),
    "n_epochs": (1, 1000),
    "threads": (0, 1024),
    "snapshot_every": (1, None),
    "max_snapshots": (0, 1000),
    "eval_every": (1, None),
    "eval_games": (1, 10**9),
    "checkpoint_every": (0, None),
    "warm_start_decisions": (1, 10**8),
    "warm_start_epochs": (1, 1000),
}
#: Bounds of the float settings: (low, high or None, whether low itself is excluded).
_FLOAT_RANGES: dict[str, tuple[float, float | None, bool]] = {
    "learning_rate": (0.0, None, True),
    "lr_final": (0.0, None, False),
    "gamma": (0.0, 1.0, True),
    "gae_lambda": (0.0, 1.0, False),
    "clip_range": (0.0, None, True),
    "ent_coef": (0.0, None, False),
    "vf_coef": (0.0, None, False),
    "max_minutes": (0.0, None, False),
    "warm_start_lr": (0.0, None, False),
}
MAX_ROLLOUT = 2**20  # envs * n_steps: the rollout buffer holds this many observations
MAX_LAYER = 65536
_TYPE_WORDS = {"int": "an int", "float": "a number", "str": "a string", "dict[str, Any]": "a dict"}


def _has_type(value: Any, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    return isinstance(value, dict)


def prepare_run_folder(out: str | os.PathLike) -> Path:
    """Create the run folder if needed and check that files can be written in it, so that a bad
    ``--out`` fails in one line before anything starts (not in SB3's logger later on)."""
    if not str(out).strip():
        raise ValueError("the run folder name is empty")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"run folder {str(path)!r} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as err:
        raise ValueError(
            f"cannot write in the run folder {str(path)!r}: {err.strerror or err}"
        ) from None
    return path


TRAIN_COLUMNS = [
    "timesteps", "updates", "wall_s", "steps_per_s", "rollout_s", "update_s", "other_s",
    "episodes", "win_rate", "ep_length", "opponent_moves", "policy_loss", "value_loss",
    "entropy_loss", "approx_kl", "clip_fraction", "explained_variance", "pool_size",
]  # fmt: skip
OPPONENT_COLUMNS = ["timesteps", "updates", "opponent", "games", "wins", "draws", "losses"]
EVAL_COLUMNS = [
    "timesteps", "wall_s", "opponent", "games", "wins", "draws", "losses", "win_rate",
    "ci_low", "ci_high", "mean_length", "mean_rank", "mean_score", "mean_margin", "fair_share",
]  # fmt: skip
_ALL = "*"  # key of the all-games record in the per-update stats (not an opponent name)
_SB3_KEYS = {
    "policy_loss": "train/policy_gradient_loss",
    "value_loss": "train/value_loss",
    "entropy_loss": "train/entropy_loss",
    "approx_kl": "train/approx_kl",
    "clip_fraction": "train/clip_fraction",
    "explained_variance": "train/explained_variance",
}


THREAD_TRIALS = 2  # updates timed per candidate thread count


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class Trainer:
    """Runs (or resumes) one training run in the folder ``out``."""

    def __init__(
        self,
        config: TrainConfig,
        out: str | os.PathLike,
        resume: bool = False,
        quiet: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.config = config
        self.out = Path(out)
        self.resume = resume
        self.quiet = quiet
        self.stream = sys.stderr if stream is None else stream  # the stderr of now, not of import
        self.evals: list[dict[str, Any]] = []
        self.elapsed = 0.0  # wall seconds of training before this process (resume)
        self.next_eval = 0
        self.next_checkpoint = 0  # used when config.checkpoint_every > 0
        self.opponent_moves = 0
        self.interrupted = False
        self.start_timesteps = 0

    # -- setup ----------------------------------------------------------------------------------

    def _build(self) -> None:
        cfg = self.config
        self.update_threads = cfg.threads or default_threads()
        # automatic choice: candidate thread counts, each tried on THREAD_TRIALS updates
        self.thread_trials: dict[int, list[float]] = {}
        if not cfg.threads and self.update_threads > 1:
            self.thread_trials = {self.update_threads: [], 1: []}
        # SB3 builds a validated Categorical at every rollout step; the checks cost more than
        # the sampling and the masks are exact.
        torch.distributions.Distribution.set_default_validate_args(False)
        self.module = load(cfg.game)
        self.pool = OpponentPool(
            cfg.game, cfg.baselines, cfg.pool_weights, cfg.max_snapshots, self_play=True
        )
        if cfg.workers > 1:
            self.venv = SubprocBatchedEnv(
                cfg.game, cfg.envs, self.pool, cfg.players, None, cfg.seed, cfg.workers,
                **cfg.options,
            )  # fmt: skip
        else:
            self.venv = BatchedCardEnv(
                cfg.game, cfg.envs, self.pool, cfg.players, seed=cfg.seed, **cfg.options
            )
        activation = torch.nn.ReLU if cfg.activation == "relu" else torch.nn.Tanh
        self.model = MaskablePPO(
            "MlpPolicy",
            self.venv,
            learning_rate=_linear_schedule(cfg.learning_rate, cfg.lr_final),
            n_steps=cfg.n_steps,
            batch_size=cfg.batch_size,
            n_epochs=cfg.n_epochs,
            gamma=cfg.gamma,
            gae_lambda=cfg.gae_lambda,
            clip_range=cfg.clip_range,
            ent_coef=cfg.ent_coef,
            vf_coef=cfg.vf_coef,
            policy_kwargs={
                "net_arch": {"pi": list(cfg.net_arch), "vf": list(cfg.net_arch)},
                "activation_fn": activation,
            },
            seed=cfg.seed,
            device="cpu",
            verbose=0,
        )
        formats = ["tensorboard"] if _has_tensorboard() else []
        self.model.set_logger(configure(str(self.out / "tb"), formats))

    def _start_files(self) -> None:
        if self.resume:
            for name in ("train.csv", "opponents.csv", "eval.csv"):
                if not (self.out / name).exists():
                    raise ValueError(f"{self.out} is not a complete run folder: {name} is missing")
        else:
            self.out.mkdir(parents=True, exist_ok=True)
            meta = {**asdict(self.config), "cardzoo": __version__}
            (self.out / "config.json").write_text(json.dumps(meta, indent=2) + "\n")
            for name, columns in (
                ("train.csv", TRAIN_COLUMNS),
                ("opponents.csv", OPPONENT_COLUMNS),
                ("eval.csv", EVAL_COLUMNS),
            ):
                with open(self.out / name, "w", newline="") as fh:
                    csv.writer(fh).writerow(columns)
        # A run begun before eval.csv had its last columns keeps its own header when resumed.
        with open(self.out / "eval.csv", newline="") as fh:
            self._eval_columns = [c for c in next(csv.reader(fh), []) if c in EVAL_COLUMNS]
        self._csv = {
            name: open(self.out / f"{name}.csv", "a", newline="")
            for name in ("train", "opponents", "eval")
        }

    def _restore(self) -> None:
        data = load_checkpoint(self.out)
        model = self.model
        model.policy.load_state_dict(data["policy"])
        model.policy.optimizer.load_state_dict(data["optimizer"])
        counters = data["counters"]
        model.num_timesteps = int(counters["timesteps"])
        model._n_updates = int(counters["updates"])
        self.elapsed = float(counters["elapsed"])
        self.next_eval = int(counters["next_eval"])
        every = self.config.checkpoint_every  # may differ from the first run's: not restored
        self.next_checkpoint = (model.num_timesteps // every + 1) * every if every else 0
        self.opponent_moves = int(counters["opponent_moves"])
        self.pool.load_weights(to_numpy(data["pool"]))
        rng = data["rng"]
        self.venv.restore_rngs(rng["tables"])
        torch.set_rng_state(rng["torch"])
        np.random.set_state(("MT19937", rng["numpy"].numpy().astype(np.uint32), *rng["numpy_rest"]))
        self.evals = list(data["evals"])
        self._drop_rows_after(model.num_timesteps)

    def _drop_rows_after(self, timesteps: int) -> None:
        """Rows logged after the checkpoint (a run killed between checkpoints) are replayed by
        the resumed run: drop them so each timestep appears once."""
        for name in ("train.csv", "opponents.csv", "eval.csv"):
            path = self.out / name
            with open(path, newline="") as fh:
                rows = list(csv.reader(fh))
            kept = [rows[0]] + [r for r in rows[1:] if int(r[0]) <= timesteps]
            if len(kept) != len(rows):
                with open(path, "w", newline="") as fh:
                    csv.writer(fh).writerows(kept)

    # -- running --------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """Train until ``config.timesteps`` (or the time budget, or Ctrl-C); returns a summary."""
        cfg = self.config
        prepare_run_folder(self.out)  # a bad folder fails here, before anything starts
        self._build()
        self._start_files()
        if self.resume:
            self._restore()
        model = self.model
        self.actor = actor_from_sb3(model.policy)
        self.pool.set_current(self.actor)
        self.venv.sync_pool(self.pool)
        self.started = time.perf_counter()
        self.start_timesteps = model.num_timesteps
        self.timing = {"rollout": 0.0, "update": 0.0, "other": 0.0}
        self._bar_time = 0.0
        torch.set_num_threads(1)  # see _Callback._on_rollout_start
        callback = _Callback(self)
        remaining = cfg.timesteps - model.num_timesteps
        try:
            if not self.resume:
                if cfg.warm_start:
                    self._warm_start()
                self._evaluate()
                self._checkpoint()
            if remaining > 0:
                model.learn(
                    remaining, callback=callback, reset_num_timesteps=False, log_interval=None
                )
            unused = self._drop_unfinished_rollout(callback)  # the time budget ran out in one
            if unused:
                self._say(f"\ntime budget spent: {_unused_text(unused)}")
            torch.set_num_threads(1)
            callback.finish_update()
            if self.evals and self.evals[-1]["timesteps"] < model.num_timesteps:
                self._evaluate()
            self._checkpoint()
        except KeyboardInterrupt:
            self.interrupted = True
            self._on_interrupt(callback)
        finally:
            for fh in self._csv.values():
                fh.close()
            self.venv.close()
        summary = self.summary()
        try:
            from cardzoo.train.plot import plot_learning_curve

            summary["plot"] = str(plot_learning_curve(self.out))
        except ImportError:
            summary["plot"] = None  # matplotlib missing: the CSV has the curve
        (self.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        return summary

    def _warm_start(self) -> None:
        """Behaviour cloning of ``config.warm_start`` before the first evaluation."""
        from cardzoo.train.imitation import clone, collect_demonstrations

        cfg = self.config
        self._say(f"warm start: recording {cfg.warm_start_decisions:,} {cfg.warm_start} moves")
        demos = collect_demonstrations(
            cfg.game, cfg.warm_start_decisions, cfg.warm_start, cfg.players, cfg.seed,
            **cfg.options,
        )  # fmt: skip
        report = clone(
            self.model.policy, demos, cfg.warm_start_epochs, cfg.batch_size,
            cfg.warm_start_lr or cfg.learning_rate, cfg.vf_coef, cfg.seed,
        )  # fmt: skip
        self.actor = actor_from_sb3(self.model.policy)
        self.pool.set_current(self.actor)
        self.venv.sync_pool(self.pool)
        (self.out / "warm_start.json").write_text(json.dumps(asdict(report), indent=2) + "\n")
        self._say(
            f"warm start: {report.decisions:,} moves of {report.games:,} games, agreement with "
            f"{cfg.warm_start} {report.held_out_agreement:.3f} on held-out games "
            f"({report.train_agreement:.3f} trained on; epochs kept: actor {report.policy_epochs}, "
            f"critic {report.value_epochs}), {report.seconds:.0f} s"
        )

    def _drop_unfinished_rollout(self, callback: _Callback) -> int:
        """A stop inside a rollout (Ctrl-C, the time budget): its decisions never reach an
        update, so the step count goes back to the last update's. Returns the decisions
        dropped."""
        if callback.rollout_from is None:
            return 0
        unused = self.model.num_timesteps - callback.rollout_from
        self.model.num_timesteps = callback.rollout_from
        callback.rollout_from = None
        return unused

    def _on_interrupt(self, callback: _Callback) -> None:
        """Ctrl-C: keep what was learned, in a checkpoint, and say what was not."""
        unused = self._drop_unfinished_rollout(callback)
        text = f"\ninterrupted at {self.model.num_timesteps:,} learner steps"
        if unused:
            text += f" ({_unused_text(unused)})"
        self._say(text + ": writing a checkpoint")
        self._checkpoint()

    # -- torch threads of the updates ---------------------------------------------------------

    def next_update_threads(self) -> int:
        """Threads for the coming update: a candidate still on trial, else the choice made."""
        for threads, times in self.thread_trials.items():
            if len(times) < THREAD_TRIALS:
                self._trying = threads
                return threads
        self._trying = None
        return self.update_threads

    def record_update_time(self, seconds: float) -> None:
        trying = getattr(self, "_trying", None)
        if trying is None:
            return
        self.thread_trials[trying].append(seconds)
        if all(len(t) >= THREAD_TRIALS for t in self.thread_trials.values()):
            self.update_threads = min(self.thread_trials, key=lambda n: sum(self.thread_trials[n]))
            self._say(f"PPO updates on {self.update_threads} torch thread(s): "
                      + ", ".join(f"{n}: {sum(t) / len(t):.2f} s" for n, t in
                                  self.thread_trials.items()))  # fmt: skip
            self.thread_trials = {}

    # -- after every update ---------------------------------------------------------------------

    def after_update(self, rollout_s: float, update_s: float, stats: dict[str, list[int]]) -> None:
        cfg, model = self.config, self.model
        t0 = time.perf_counter()
        self.actor = actor_from_sb3(model.policy)
        self.pool.set_current(self.actor)
        updates = model._n_updates // cfg.n_epochs  # SB3 counts one "update" per epoch
        if updates % cfg.snapshot_every == 0:
            self.pool.add_snapshot(self.actor, f"snap-{model.num_timesteps}")
        self.venv.sync_pool(self.pool)
        self.opponent_moves = self.venv.opponent_moves
        self._log_update(updates, rollout_s, update_s, stats)
        if model.num_timesteps >= self.next_eval:
            self._evaluate()
            self._checkpoint()
        elif cfg.checkpoint_every and model.num_timesteps >= self.next_checkpoint:
            self._checkpoint()
        self.timing["other"] += time.perf_counter() - t0

    def _log_update(
        self, updates: int, rollout_s: float, update_s: float, stats: dict[str, list[int]]
    ) -> None:
        model = self.model
        t = model.num_timesteps
        logger = model.logger
        values = dict(logger.name_to_value)
        games, wins, _, _, length = stats.pop(_ALL, [0, 0, 0, 0, 0])
        rollout_total = self.timing["rollout"] + self.timing["update"] + self.timing["other"]
        fresh = max(model.num_timesteps - self.start_timesteps, 1)
        row = {
            "timesteps": t,
            "updates": updates,
            "wall_s": round(self.wall(), 2),
            "steps_per_s": round(fresh / max(rollout_total, 1e-9), 1),
            "rollout_s": round(rollout_s, 4),
            "update_s": round(update_s, 4),
            "other_s": round(self.timing["other"], 2),
            "episodes": games,
            "win_rate": round(wins / games, 4) if games else "",
            "ep_length": round(length / games, 2) if games else "",
            "opponent_moves": self.venv.opponent_moves,
            "pool_size": len(self.pool.members),
        }
        for col, key in _SB3_KEYS.items():
            row[col] = round(float(values[key]), 6) if key in values else ""
        csv.writer(self._csv["train"]).writerow([row[c] for c in TRAIN_COLUMNS])
        writer = csv.writer(self._csv["opponents"])
        groups: dict[str, list[int]] = {}
        for name, (n, w, d, lost) in sorted(stats.items()):
            writer.writerow([t, updates, name, n, w, d, lost])
            group = "snapshots" if name.startswith("snap-") else name
            g = groups.setdefault(group, [0, 0])
            g[0] += n
            g[1] += w
        for group, (n, w) in groups.items():
            logger.record(f"pool/win_rate_vs_{group}", w / n)
            logger.record(f"pool/games_vs_{group}", n)
        logger.record("rollout/win_rate", row["win_rate"] or 0.0)
        if row["ep_length"] != "":
            logger.record("rollout/ep_len_mean", row["ep_length"])
        logger.record("time/learner_steps_per_s", row["steps_per_s"])
        logger.record("time/rollout_s", rollout_s)
        logger.record("time/update_s", update_s)
        logger.record("pool/size", row["pool_size"])
        logger.dump(step=t)
        for fh in self._csv.values():
            fh.flush()

    def _evaluate(self) -> list[EvalResult]:
        cfg, model = self.config, self.model
        t = model.num_timesteps
        results = []
        for opponent in cfg.eval_opponents:
            r = evaluate(
                cfg.game,
                self.actor,
                opponent,
                cfg.eval_games,
                cfg.players,
                seed=cfg.seed + 1_000_003,  # the same evaluation games all run long
                env_options=cfg.options,
            )
            results.append(r)
            row = {"timesteps": t, "wall_s": round(self.wall(), 2), **r.to_dict()}
            self.evals.append(row)
            csv.writer(self._csv["eval"]).writerow(
                [
                    round(row[c], 4) if isinstance(row[c], float) else row[c]
                    for c in self._eval_columns
                ]
            )
            model.logger.record(f"eval/win_rate_vs_{opponent}", r.win_rate)
            model.logger.record(f"eval/ci_low_vs_{opponent}", r.interval[0])
            model.logger.record(f"eval/ci_high_vs_{opponent}", r.interval[1])
            model.logger.record(f"eval/margin_vs_{opponent}", r.mean_margin)
        self._csv["eval"].flush()
        model.logger.dump(step=t)
        while self.next_eval <= t:
            self.next_eval += cfg.eval_every
        self._progress(force=True)
        return results

    def _checkpoint(self) -> Path:
        model = self.model
        every = self.config.checkpoint_every
        while every and self.next_checkpoint <= model.num_timesteps:
            self.next_checkpoint += every
        self.actor = actor_from_sb3(model.policy)  # also after an interrupted update
        np_state = np.random.get_state()
        encoder = self.venv.encoder
        data = {
            "env_name": self.module.GAME.env_name,
            "game": self.config.game,
            "num_players": self.config.players,
            "encoder": self.venv.metadata["encoder"],
            "encoder_version": str(encoder.version),
            "obs_size": encoder.size,
            "num_actions": encoder.num_actions,
            "config": asdict(self.config),
            "policy": model.policy.state_dict(),
            "optimizer": model.policy.optimizer.state_dict(),
            "actor": self.actor.to_dict(),
            "pool": self.pool.state_dict(),
            "rng": {
                "tables": self.venv.rng_states(),
                "torch": torch.get_rng_state(),
                "numpy": np_state[1].astype(np.int64),
                "numpy_rest": list(np_state[2:]),
            },
            "counters": {
                "timesteps": model.num_timesteps,
                "updates": model._n_updates,
                "elapsed": self.wall(),
                "next_eval": self.next_eval,
                "opponent_moves": self.venv.opponent_moves,
            },
            "evals": self.evals,
        }
        return write_checkpoint(self.out, model.num_timesteps, data)

    # -- reporting ------------------------------------------------------------------------------

    def wall(self) -> float:
        return self.elapsed + time.perf_counter() - self.started

    def _say(self, text: str) -> None:
        if not self.quiet:
            self.stream.write(text + "\n")
            self.stream.flush()

    def _progress(self, force: bool = False) -> None:
        if self.quiet:
            return
        now = time.perf_counter()
        interactive = hasattr(self.stream, "isatty") and self.stream.isatty()
        if not force and now - self._bar_time < (0.5 if interactive else 30.0):
            return
        self._bar_time = now
        cfg = self.config
        t = self.model.num_timesteps
        rate = (t - self.start_timesteps) / max(now - self.started, 1e-9)
        text = progress_line(f"{cfg.game} {cfg.players}p", t, cfg.timesteps, rate, self.evals)
        self.stream.write(("\r" + text) if interactive else (text + "\n"))
        self.stream.flush()

    def summary(self) -> dict[str, Any]:
        cfg, model = self.config, self.model
        busy = self.timing["rollout"] + self.timing["update"] + self.timing["other"]
        fresh = model.num_timesteps - self.start_timesteps
        final = {}
        for row in self.evals:
            final[row["opponent"]] = row
        return {
            "game": cfg.game,
            "players": cfg.players,
            "timesteps": model.num_timesteps,
            "interrupted": self.interrupted,
            "wall_s": round(self.wall(), 1),
            "learner_steps_per_s": round(fresh / busy, 1) if busy else None,
            "rollout_s": round(self.timing["rollout"], 1),
            "update_s": round(self.timing["update"], 1),
            "other_s": round(self.timing["other"], 1),
            "final_eval": list(final.values()),
            # the learner step of that evaluation (of the oldest row, should a Ctrl-C have cut
            # an evaluation short): older than `timesteps` after Ctrl-C
            "eval_timesteps": min((r["timesteps"] for r in final.values()), default=None),
            "checkpoint": str(checkpoint_files(self.out)[-1]),
        }


def summary_table(summary: dict[str, Any]) -> str:
    """The end-of-run table: the last evaluation against each baseline, and when it was taken."""
    lines = [
        f"{summary['game']}, {summary['players']} players: {summary['timesteps']:,} learner steps "
        f"in {_duration(summary['wall_s'])} "
        f"({summary['learner_steps_per_s'] or 0:,.0f} steps/s; rollout {summary['rollout_s']} s, "
        f"update {summary['update_s']} s, eval+logging {summary['other_s']} s)"
        + (" - interrupted" if summary.get("interrupted") else ""),
    ]
    at = summary.get("eval_timesteps")
    if at is not None:
        age = summary["timesteps"] - at
        lines.append(
            f"evaluation at {at:,} learner steps"
            + (f" ({age:,} steps before this checkpoint: not of the final policy)" if age else "")
        )
    lines.append(
        f"{'opponent':<12}{'games':>7}{'wins':>7}{'draws':>7}{'losses':>8}{'win rate':>10}   95% CI"
        f"{'':<11}margin"
    )
    shares = set()
    for r in summary["final_eval"]:
        margin = r.get("mean_margin")  # missing in evaluations of runs from older versions
        lines.append(
            f"{r['opponent']:<12}{r['games']:>7}{r['wins']:>7}{r['draws']:>7}{r['losses']:>8}"
            f"{r['win_rate']:>10.3f}   [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
            + ("" if margin is None else f"{margin:>+9.2f}")
            + (f"   (at {r['timesteps']:,} steps)" if r["timesteps"] != at else "")
        )
        if r.get("fair_share"):
            shares.add(r["fair_share"])
    if len(shares) == 1:
        lines.append(
            f"fair share {shares.pop():.3f} (1 / sides); "
            "margin: own side's score minus the other sides' mean"
        )
    lines.append(f"checkpoint: {summary['checkpoint']}")
    if summary.get("plot"):
        lines.append(f"learning curve: {summary['plot']}")
    return "\n".join(lines)


def progress_line(
    label: str, timesteps: int, total: int, rate: float, evals: list[dict[str, Any]]
) -> str:
    """One progress line. SB3 runs whole rollouts, so ``timesteps`` may pass ``total``: the line
    shows at most the total and an eta of at least 0. ``evals`` are eval.csv rows; the latest
    win rate against each opponent is shown with the step it was measured at."""
    shown = min(max(timesteps, 0), total)
    left = total - shown
    eta = left / rate if rate > 0 else (0.0 if left == 0 else math.inf)
    frac = shown / total if total > 0 else 1.0
    filled = int(30 * frac)
    bar = "#" * filled + "." * (30 - filled)
    last: dict[str, Any] = {}
    for row in evals:
        last[row["opponent"]] = row
    rates = " ".join(f"vs {k} {r['win_rate']:.3f}" for k, r in last.items())
    if last:
        rates += f" (eval at {_si(max(r['timesteps'] for r in last.values()))})"
    return (
        f"{label} [{bar}] {_si(shown)}/{_si(total)} steps {rate:,.0f}/s eta {_duration(eta)}"
        f" | {rates}"
    ).rstrip(" |")


class _Callback(BaseCallback):
    """Times rollouts and updates, gathers per-opponent results, runs the after-update work."""

    def __init__(self, trainer: Trainer) -> None:
        super().__init__()
        self.trainer = trainer
        self.stats: dict[str, list[int]] = {}
        self.rollout_started = 0.0
        self.rollout_s = 0.0
        self.rollout_ended: float | None = None
        # learner steps when the current rollout began; None outside a rollout
        self.rollout_from: int | None = None
        self.deadline = (
            trainer.started + 60 * trainer.config.max_minutes - trainer.elapsed
            if trainer.config.max_minutes
            else math.inf
        )

    def _on_rollout_start(self) -> None:
        # Rollouts and evaluations run small batches, where a second thread only adds
        # synchronisation (and, on a busy machine, waits for a core).
        torch.set_num_threads(1)
        self.finish_update()
        self.rollout_from = self.model.num_timesteps
        self.rollout_started = time.perf_counter()

    def finish_update(self) -> None:
        """The update that followed the last rollout is done: log it (once)."""
        if self.rollout_ended is None:
            return
        update_s = time.perf_counter() - self.rollout_ended
        self.rollout_ended = None
        trainer = self.trainer
        trainer.timing["update"] += update_s
        trainer.record_update_time(update_s)
        stats, self.stats = self.stats, {}
        trainer.after_update(self.rollout_s, update_s, stats)

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self.rollout_s = now - self.rollout_started
        self.trainer.timing["rollout"] += self.rollout_s
        self.rollout_ended = now
        self.rollout_from = None
        torch.set_num_threads(self.trainer.next_update_threads())

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            episode = info.get("episode")
            if episode is None:
                continue
            r = episode["r"]
            outcome = 1 if r > 0 else (2 if r == 0 else 3)
            for name in set(info["opponents"]):
                s = self.stats.setdefault(name, [0, 0, 0, 0])
                s[0] += 1
                s[outcome] += 1
            s = self.stats.setdefault(_ALL, [0, 0, 0, 0, 0])
            s[0] += 1
            s[outcome] += 1
            s[4] += episode["l"]
        self.trainer._progress()
        return time.perf_counter() < self.deadline


def _unused_text(unused: int) -> str:
    return f"the {unused:,} decisions of the unfinished rollout were not learned from"


def _linear_schedule(start: float, end: float) -> Any:
    """SB3 learning-rate schedule: ``start`` at the first update, ``end`` at ``timesteps``."""

    def rate(progress_remaining: float) -> float:
        return end + (start - end) * progress_remaining

    return rate


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _si(n: float) -> str:
    for unit, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.2f}{unit}"
    return str(int(n))


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"
