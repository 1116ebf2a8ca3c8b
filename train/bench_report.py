"""How ``cardzoo bench`` shows its results: machine header, Markdown tables, targets, PNG plot."""

from __future__ import annotations

import datetime
import math
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

#: Distributions whose versions the header lists (absent ones are left out).
PACKAGES = (
    "cardzoo",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "rlcard",
    "pygame-ce",
    "torch",
    "stable-baselines3",
    "sb3-contrib",
    "matplotlib",
)
API_LABELS = {
    "env": "env()",
    "raw_env": "raw_env()",
    "engine": "engine",
    "native": "RLCard API",
    "train": "train",
    "determinize": "determinize",
}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _commit() -> str | None:
    """The git commit of the cardzoo checkout, when run from one."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() or None


def machine_info() -> dict[str, Any]:
    """CPU, cores, memory, OS, Python, the date and the load when the run starts."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count()
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "memory_gb": _memory_gb(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_1min_start": round(os.getloadavg()[0], 2),
        "cardzoo_commit": _commit(),
    }


def package_versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _num(value: float | None, digits: int = 0) -> str:
    if value is None:
        return ""
    return f"{value:,.{digits}f}"


def _ratio(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}x"


def header(report: dict[str, Any]) -> str:
    m, s = report["machine"], report["settings"]
    versions = ", ".join(f"{k} {v}" for k, v in report["versions"].items())
    commit = f", cardzoo commit {m['cardzoo_commit']}" if m.get("cardzoo_commit") else ""
    return (
        f"Machine: {m['cpu']}, {m['usable_cores']} usable cores, {m['memory_gb']} GB, "
        f"{m['os']}, Python {m['python']}; {m['date']}{commit}.\n"
        f"Load average (1 min): {m['load_1min_start']} at the start, "
        f"{m.get('load_1min_end', '?')} at the end.\n"
        f"Versions: {versions}.\n"
        f"Best and median of {s['repeats']} measurements of {s['seconds']:g} s each, interleaved; "
        f"random legal play; whole run {m.get('bench_wall_s', '?')} s."
    )


def summary_table(rows: list[dict[str, Any]]) -> str:
    """One line per game and player count (the README's table): decisions/s of ``env()``,
    ``raw_env()`` and the engine, ratios to leduc ``env()`` (wall, CPU), us per observation,
    memory per env."""
    index = {(r["suite"], r["env"], r["players"], r["api"]): r for r in rows}
    lines = [
        "| env | players | `env()` decisions/s | `raw_env()` | engine alone "
        "| `env()` / leduc `env()` (wall, CPU) | engine / leduc (wall, CPU) | us/observation "
        "| memory per env |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["suite"] != "cardzoo" or r["api"] != "env":
            continue
        key = (r["env"], r["players"])
        raw = index.get(("cardzoo", *key, "raw_env"), {})
        engine = index.get(("cardzoo", *key, "engine"), {})
        encoder = index.get(("cardzoo", *key, "encoder"), {})
        memory = ""
        if r.get("memory_bytes") is not None:
            memory = f"{r['memory_bytes'] / 1024:.0f} kB after {r['memory_games']:,} games"

        def ratios(row: dict[str, Any]) -> str:
            if row.get("ratio_to_leduc_env") is None:
                return ""
            return f"{_ratio(row['ratio_to_leduc_env'])}, {_ratio(row['cpu_ratio_to_leduc_env'])}"

        lines.append(
            f"| `{r['env']}` | {r['players']} | {_num(r['decisions_per_s'])}"
            f" | {_num(raw.get('decisions_per_s'))} | {_num(engine.get('decisions_per_s'))}"
            f" | {ratios(r)} | {ratios(engine)} | {_num(encoder.get('obs_us'), 1)} | {memory} |"
        )
    return "\n".join(lines) if len(lines) > 2 else ""


def throughput_table(rows: list[dict[str, Any]]) -> str:
    """Decisions/s (best, median, per CPU second), steps/s and the ratio to leduc env()."""
    lines = [
        "| suite | env | players | api | decisions/s | median | per CPU s | steps/s "
        "| x leduc env() | x leduc (CPU) |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if r["api"] in ("encoder", "determinize", "train"):
            continue
        lines.append(
            f"| {r['suite']} | `{r['env']}` | {r['players']} | {API_LABELS.get(r['api'], r['api'])}"
            f" | {_num(r['decisions_per_s'])} | {_num(r['decisions_per_s_median'])}"
            f" | {_num(r['cpu_decisions_per_s'])} | {_num(r['steps_per_s'])}"
            f" | {_ratio(r['ratio_to_leduc_env'])} | {_ratio(r['cpu_ratio_to_leduc_env'])} |"
        )
    return "\n".join(lines)


def detail_table(rows: list[dict[str, Any]]) -> str:
    """Per game and player count: encoder, reset, construction, memory."""
    env_rows = {(r["env"], r["players"]): r for r in rows if r["suite"] == "cardzoo"
                and r["api"] == "env"}  # fmt: skip
    enc_rows = {(r["env"], r["players"]): r for r in rows if r["api"] == "encoder"}
    keys = list(dict.fromkeys([*env_rows, *enc_rows]))
    if not keys:
        return ""
    lines = [
        "| env | players | us/observation | us/mask | reset() us | construction ms "
        "| memory kB (after games) | memory kB after 1 game |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key in keys:
        e, c = env_rows.get(key, {}), enc_rows.get(key, {})
        memory = ""
        if e.get("memory_bytes") is not None:
            memory = f"{e['memory_bytes'] / 1024:.1f} ({e['memory_games']:,})"
        one = e.get("memory_1_game_bytes")
        lines.append(
            f"| `{key[0]}` | {key[1]} | {_num(c.get('obs_us'), 1)} | {_num(c.get('mask_us'), 1)}"
            f" | {_num(e.get('reset_us'), 1)} | {_num(e.get('construct_ms'), 2)} | {memory}"
            f" | {'' if one is None else f'{one / 1024:.1f}'} |"
        )
    return "\n".join(lines)


def determinize_table(rows: list[dict[str, Any]]) -> str:
    """Microseconds per ``determinize`` call at early, middle and late positions (repeated
    there) and along whole games (one call per decision): best of the repeats (median, per CPU
    second)."""
    found = [r for r in rows if r["api"] == "determinize"]
    if not found:
        return ""
    lines = [
        "| env | players | determinize us: early | middle | late | along a game "
        "| (median: early, middle, late, along) | (per CPU s: early, middle, late, along) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    parts = ("early", "middle", "late", "along")
    for r in found:
        best = " | ".join(_num(r[f"{p}_us"], 1) for p in parts)
        median = ", ".join(_num(r[f"{p}_us_median"], 1) for p in parts)
        cpu = ", ".join(_num(r[f"cpu_{p}_us"], 1) for p in parts)
        lines.append(f"| `{r['env']}` | {r['players']} | {best} | {median} | {cpu} |")
    return "\n".join(lines)


def train_table(rows: list[dict[str, Any]]) -> str:
    train = [r for r in rows if r["api"] == "train"]
    if not train:
        return ""
    lines = [
        "| env | players | K | learner steps/s | decisions/s | per CPU s | rollout | update "
        "| load |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in train:
        lines.append(
            f"| `{r['env']}` | {r['players']} | {r['envs']} | {_num(r['learner_steps_per_s'])}"
            f" | {_num(r['decisions_per_s'])} | {_num(r.get('learner_steps_per_cpu_s'))}"
            f" | {r['rollout_share']:.0%} | {r['update_share']:.0%} | {r['load_1min']} |"
        )
    return "\n".join(lines)


def targets_text(targets: list[dict[str, Any]]) -> str:
    if not targets:
        return "Targets: none checkable (run with --peers for the ratios)."
    lines = ["Targets (docs/benchmark.md; judged on wall-clock rates):"]
    for t in targets:
        mark = "ok  " if t["ok"] else "MISS"
        cpu = "" if t.get("cpu_value") is None else f"; per CPU second {t['cpu_value']:,.2f}"
        lines.append(
            f"  {mark} {t['target']:<38} {t['env']} {t['players']}p: {t['value']:,.2f} "
            f"(bar {t['bar']:g}{cpu})"
        )
    return "\n".join(lines)


def markdown(report: dict[str, Any]) -> str:
    """The whole report as Markdown: header, summary, full tables, targets."""
    rows = report["rows"]
    parts = [header(report), summary_table(rows), throughput_table(rows), detail_table(rows)]
    parts.append(determinize_table(rows))
    parts += [train_table(rows), targets_text(report["targets"])]
    return "\n\n".join(p for p in parts if p) + "\n"


def plot(report: dict[str, Any], path: str) -> None:
    """Bars of decisions/s (log scale) of every env, engine and peer row; a second panel with
    training throughput by K when measured. Needs matplotlib (the ``train`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in report["rows"] if r["api"] not in ("encoder", "train")]
    rows = [r for r in rows if r["decisions_per_s"]]
    train = [r for r in report["rows"] if r["api"] == "train"]
    colours = {
        ("cardzoo", "env"): ("#1f77b4", "cardzoo env()"),
        ("cardzoo", "raw_env"): ("#9ecae1", "cardzoo raw_env()"),
        ("cardzoo", "engine"): ("#2ca02c", "cardzoo engine alone"),
        ("pettingzoo", "env"): ("#d62728", "PettingZoo env()"),
        ("pettingzoo", "raw_env"): ("#f4a582", "PettingZoo raw_env()"),
        ("rlcard", "native"): ("#ff7f0e", "RLCard's own API"),
    }
    panels = 2 if train else 1
    height = 1.6 + 0.24 * max(len(rows), 1)
    fig, axes = plt.subplots(
        panels,
        1,
        figsize=(9, height + (2.8 if train else 0)),
        gridspec_kw={"height_ratios": [height, 2.8]} if train else None,
        squeeze=False,
    )
    ax = axes[0][0]
    y = list(range(len(rows)))[::-1]
    values = [r["decisions_per_s"] for r in rows]
    shown = set()
    for yi, r in zip(y, rows):
        colour, label = colours.get((r["suite"], r["api"]), ("grey", r["api"]))
        ax.barh(yi, r["decisions_per_s"], color=colour, label=None if label in shown else label)
        shown.add(label)
        ax.text(r["decisions_per_s"] * 1.05, yi, f"{r['decisions_per_s']:,.0f}", va="center",
                fontsize=6)  # fmt: skip
    ax.plot([r["decisions_per_s_median"] for r in rows], y, "k|", markersize=7,
            label="median of repeats")  # fmt: skip
    labels = [f"{r['env']} {r['players']}p {API_LABELS.get(r['api'], r['api'])}" for r in rows]
    ax.set_yticks(y, labels, fontsize=7)
    ax.set_xscale("log")
    if values:
        ax.set_xlim(10 ** math.floor(math.log10(min(values) / 1.2)), max(values) * 4)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("decisions per second (best of the repeats; log scale)", fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    reference = next((r for r in rows if r["env"] == "leduc_holdem_v4" and r["api"] == "env"), None)
    if reference:
        ax.axvline(reference["decisions_per_s"], color="#d62728", linestyle="--", linewidth=0.8,
                   label="leduc_holdem_v4 env()")  # fmt: skip
    m = report["machine"]
    ax.set_title(
        f"cardzoo bench, random legal play: {m['cpu']}, {m['usable_cores']} cores, "
        f"load {m['load_1min_start']}, {m['date']}",
        fontsize=8,
    )
    ax.legend(loc="upper right", fontsize=6, framealpha=0.9)
    if train:
        _plot_training(axes[1][0], train)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _plot_training(ax2: Any, train: list[dict[str, Any]]) -> None:
    """The second panel of :func:`plot`: learner steps/s per game, grouped by K."""
    games = list(dict.fromkeys(r["env"] for r in train))
    ks = sorted({r["envs"] for r in train})
    width = 0.8 / max(len(games), 1)
    for i, game in enumerate(games):
        by_k = {r["envs"]: r["learner_steps_per_s"] for r in train if r["env"] == game}
        ax2.bar(
            [j + i * width for j in range(len(ks))],
            [by_k.get(k, 0) for k in ks],
            width,
            label=game,
        )
    ax2.set_xticks([j + 0.4 - width / 2 for j in range(len(ks))], [f"K={k}" for k in ks])
    ax2.set_ylabel("learner steps/s", fontsize=8)
    ax2.tick_params(labelsize=7)
    ax2.set_title("MaskablePPO training (self-play opponents)", fontsize=8)
    ax2.legend(fontsize=7)
