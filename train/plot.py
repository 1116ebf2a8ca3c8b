"""The learning-curve plot of a training run: win rate against each baseline over timesteps."""

from __future__ import annotations

import csv
import os
from pathlib import Path


def read_eval(run_dir: str | os.PathLike) -> dict[str, list[dict[str, float]]]:
    """``eval.csv`` of a run folder, grouped by opponent."""
    curves: dict[str, list[dict[str, float]]] = {}
    with open(Path(run_dir) / "eval.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            point = {k: float(row[k]) for k in ("timesteps", "win_rate", "ci_low", "ci_high")}
            if row.get("fair_share"):  # runs from before the column have no fair share line
                point["fair_share"] = float(row["fair_share"])
            curves.setdefault(row["opponent"], []).append(point)
    return curves


def plot_learning_curve(run_dir: str | os.PathLike, path: str | os.PathLike | None = None) -> Path:
    """Write the PNG (default ``<run_dir>/learning_curve.png``) and return its path."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    path = Path(path) if path is not None else run_dir / "learning_curve.png"
    curves = read_eval(run_dir)
    title = run_dir.name
    config = run_dir / "config.json"
    if config.exists():
        import json

        from cardzoo.envs import load

        cfg = json.loads(config.read_text())
        name = load(cfg["game"]).GAME.title
        rules = " ".join(f"{k}={v}" for k, v in cfg.get("options", {}).items())
        title = f"{name}, {cfg['players']} players{', ' + rules if rules else ''}: self-play PPO"
        title += f" (seed {cfg['seed']})"
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=120)
    for opponent, points in curves.items():
        x = [p["timesteps"] / 1e6 for p in points]
        ax.plot(x, [p["win_rate"] for p in points], marker="o", ms=3, label=f"vs {opponent}")
        low = [p["ci_low"] for p in points]
        high = [p["ci_high"] for p in points]
        ax.fill_between(x, low, high, alpha=0.25)
    shares = {p["fair_share"] for points in curves.values() for p in points if "fair_share" in p}
    if len(shares) == 1:  # the win rate of an even match: 1 / sides (a team's, in team games)
        share = shares.pop()
        ax.axhline(share, color="grey", ls="--", lw=1, label=f"fair share {share:.2f}")
    ax.set_xlabel("learner steps (millions)")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.set_title(title)
    if curves:  # a run stopped during its first evaluation has no point yet
        ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
