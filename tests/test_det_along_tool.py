"""``tools/det_along.py``, the measuring tool the determinize notes cite: it runs, ``--set``
changes a setting (and refuses one that does not exist), ``--slowest`` says where the dearest
calls were, ``--no-warm-up`` leaves out the untimed first call, and ``--no-calls`` plays the
same games without calling ``determinize`` (the baseline for instruction counts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "det_along.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TOOL), "beasty_bar", "2", "--games", "1", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_tool_times_calls_and_sets_a_setting():
    done = _run("--repeat", "2", "--set", "cubirds.hidden_exact.REJECT_TRIES=300")
    assert done.returncode == 0, done.stderr
    assert "set cardzoo.envs.cubirds.hidden_exact.REJECT_TRIES = 300" in done.stdout
    assert "first call at each position: calls=" in done.stdout
    assert "2 more calls at each position" in done.stdout


def test_slowest_lists_the_dearest_first_calls_by_game_and_decision():
    done = _run("--slowest", "3")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if " ms  game " in line]
    assert len(rows) == 3
    times = [float(row[0]) for row in rows]
    assert times == sorted(times, reverse=True)
    assert all(row[3] == "0," and row[4] == "decision" and row[5].isdigit() for row in rows)


def test_slowest_with_repeats_lists_the_positions_whose_repeated_calls_cost_most():
    # (Session 34: a search pays the repeated calls; where they are dear matters as much.)
    done = _run("--slowest", "2", "--repeat", "2")
    assert done.returncode == 0, done.stderr
    first = [line.split() for line in done.stdout.splitlines() if " ms  game " in line]
    again = [line.split() for line in done.stdout.splitlines() if " ms  again at game " in line]
    assert len(first) == 2 and len(again) == 2
    times = [float(row[0]) for row in again]
    assert times == sorted(times, reverse=True)
    assert all(row[5] == "0," and row[6] == "decision" and row[7].isdigit() for row in again)


def test_the_untimed_warm_up_can_be_left_out():
    # (Session 33: one untimed call before the games, so imports on first use are not timed.)
    done = _run("--no-warm-up", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    assert "first call at each position: calls=" in done.stdout


def test_no_calls_plays_the_games_only_and_a_missing_setting_is_refused():
    done = _run("--no-calls")
    assert done.returncode == 0, done.stderr
    assert "first call" not in done.stdout
    bad = _run("--set", "cubirds.hidden_exact.NO_SUCH_SETTING=1")
    assert bad.returncode != 0
    assert "NO_SUCH_SETTING" in bad.stderr
