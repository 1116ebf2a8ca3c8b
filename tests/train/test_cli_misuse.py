"""Every misuse of the ``cardzoo`` command line ends in one usage error line, never a traceback.

The error is argparse's form, ``cardzoo <command>: error: <what was wrong>``, on stderr, and the
exit code is 2 (argparse's own errors exit through SystemExit(2) after its usage lines; the
others are returned by ``main`` with nothing else on stderr). Nothing here plays more than a few
games or trains at all: each misuse must be caught before the work starts.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from train_helpers import run_cli as run

HAS_TRAIN = importlib.util.find_spec("sb3_contrib") is not None
needs_train = pytest.mark.skipif(not HAS_TRAIN, reason="needs the train extra")


def assert_usage_error(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str], command: str | None = None
) -> str:
    """``argv`` fails with exit code 2 and one error line naming ``words``; returns that line."""
    code, out, err = run(argv, capsys)
    assert "Traceback" not in out + err
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    command = argv[0] if command is None else command
    prefix = f"cardzoo {command}: error: " if command else "cardzoo: error: "
    assert lines and lines[-1].startswith(prefix), err
    assert words in lines[-1], (words, lines[-1])
    # before the error line, only argparse's usage lines (if any)
    if len(lines) > 1:
        assert lines[0].startswith(f"usage: cardzoo {command}".rstrip()), err
        assert sum(": error: " in line for line in lines) == 1, err
    return lines[-1]


# -- eval ---------------------------------------------------------------------------------------

FAST_EVAL = ["--games", "2", "--workers", "1", "--quiet"]


def test_the_issue_command_runs(capsys):
    """A rule option right after the game name used to crash in the parser's error path."""
    argv = ["eval", "sitting_ducks_v0", "mode=team", "--agents", "heuristic,random"]
    code, out, err = run([*argv, "--players", "2", *FAST_EVAL], capsys)
    assert code == 0, err
    assert "'mode': 'team'" in out and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["eval", "cubirds", "max_turns=1", *FAST_EVAL],  # right after the game name
        ["eval", "cubirds", *FAST_EVAL, "max_turns=1"],  # after the flags
        ["eval", "cubirds", "--games", "2", "max_turns=1", "--workers", "1", "--quiet"],  # between
    ],
)
def test_rule_options_work_in_every_position(argv, capsys):
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "'max_turns': 1" in out and "truncated 2" in out


@pytest.mark.parametrize(
    "argv, words",
    [
        # game names
        (["eval", "nosuchgame"], "unknown game 'nosuchgame'"),
        (["eval", "cubirds_v9"], "unknown game 'cubirds_v9'"),
        (["eval"], "required: game"),
        (["eval", "mode=team", "sitting_ducks"], "expected a game name, got 'mode=team'"),
        (["eval", "cubirds", "beasty_bar"], "unexpected argument 'beasty_bar'"),
        # rule options in every position
        (["eval", "sitting_ducks_v0", "mode=tea", "--players", "4"], "mode"),
        (["eval", "cubirds", "colour=red", "--players", "2"], "unknown Cubirds option"),
        (["eval", "cubirds", "--players", "2", "colour=red"], "unknown Cubirds option"),
        (["eval", "cubirds", "--players", "2", "colour=red", "--seed", "1"], "unknown Cubirds"),
        (["eval", "cubirds", "max_turns=0"], "max_turns"),
        (["eval", "cubirds", "max_turns=abc"], "max_turns"),
        (["eval", "cubirds", "max_turns=1.5"], "max_turns"),
        (["eval", "cubirds", "max_turns=true"], "max_turns"),
        (["eval", "cubirds", "max_turns="], "max_turns"),
        (["eval", "cubirds", "=5"], "key=value, got '=5'"),
        (["eval", "cubirds", "max_turns"], "unexpected argument 'max_turns'"),
        (["eval", "cubirds", "max_turns=3", "max_turns=4"], "'max_turns' is given twice"),
        (["eval", "cubirds", "num_players=3"], "--players, not num_players="),
        (["eval", "cubirds", "variant=nope"], "unknown Cubirds variant 'nope'"),
        (["eval", "beasty_bar", "--variant", "nope"], "unknown Beasty Bar variant 'nope'"),
        (["eval", "beasty_bar", "--variant", "advanced", "variant=x"], "two variants"),
        (["eval", "cubirds", "--bogus"], "unrecognized option '--bogus'"),
        (["eval", "cubirds", "-x"], "unrecognized option '-x'"),
        # agent specs
        (["eval", "cubirds", "--agents", "genius"], "unknown agent spec 'genius'"),
        (["eval", "cubirds", "--agents", "heuristic,genius"], "unknown agent spec 'genius'"),
        (["eval", "cubirds", "--agents", "ppo:"], "needs a path"),
        (["eval", "cubirds", "--agents", "ppo-sample:"], "needs a path"),
        (["eval", "cubirds", "--agents", "ppo:/no/such/run"], "no checkpoint or run folder"),
        (["eval", "cubirds", "--agents", "random,random,random"], "3 agents given for a 2-p"),
        (["eval", "cubirds", "--agents", ","], "at least one agent"),
        (["eval", "cubirds", "--agents"], "--agents: expected one argument"),
        # numbers
        (["eval", "cubirds", "--games", "-1"], "--games must be an int from 1"),
        (["eval", "cubirds", "--games", "0"], "--games must be an int from 1"),
        (["eval", "cubirds", "--games", "abc"], "--games: invalid int value: 'abc'"),
        (["eval", "cubirds", "--games", "1e3"], "--games: invalid int value"),
        (["eval", "cubirds", "--games", str(10**18)], "--games must be an int from 1"),
        (["eval", "cubirds", "--players", "-1"], "--players must be an int >= 1"),
        (["eval", "cubirds", "--players", "0"], "--players must be an int >= 1"),
        (["eval", "cubirds", "--players", "9"], "num_players"),
        (["eval", "cubirds", "--players", str(10**20)], "num_players"),
        (["eval", "cubirds", "--players", "two"], "--players: invalid int value"),
        (["eval", "cubirds", "--seed", "-1"], "--seed must be an int >= 0"),
        (["eval", "cubirds", "--seed", "x"], "--seed: invalid int value"),
        (["eval", "cubirds", "--workers", "0"], "--workers must be an int from 1 to 64"),
        (["eval", "cubirds", "--workers", "-2"], "--workers must be an int from 1 to 64"),
        (["eval", "cubirds", "--workers", str(10**9)], "--workers must be an int from 1 to 64"),
    ],
)
def test_eval_misuse(argv, words, capsys):
    # --games 2 first so that a misuse the checks missed would still finish fast (and fail here)
    assert_usage_error([argv[0], "--games", "2", *argv[1:]], words, capsys, "eval")


def bad_paths(tmp_path: Path) -> list[tuple[str, str]]:
    """(path, words of the error) for output files that cannot be written."""
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    paths = [
        (str(tmp_path / "no" / "such" / "x.json"), "does not exist"),
        (str(a_file / "x.json"), "is not a folder"),
        (str(tmp_path), "it is a folder"),
        ("", "empty"),
    ]
    if os.path.isdir("/proc/self"):  # a place where nothing can be created, even by root
        paths.append(("/proc/cardzoo-test.json", "cannot write /proc/cardzoo-test.json"))
    return paths


def test_eval_and_demo_bad_output_paths(tmp_path, capsys):
    for path, words in bad_paths(tmp_path):
        assert_usage_error(["eval", "cubirds", "--json", path, *FAST_EVAL], words, capsys)
        assert_usage_error(["demo", "--json", path, "--games", "1", "--quiet"], words, capsys)
    assert (tmp_path / "a_file").read_text() == "x"  # untouched


def test_eval_a_file_that_is_not_a_checkpoint(tmp_path, capsys):
    fake = tmp_path / "ckpt-000000000001.pt"
    fake.write_bytes(b"not a checkpoint")
    empty = tmp_path / "empty_run"
    empty.mkdir()
    if HAS_TRAIN:
        words = "not a readable cardzoo checkpoint"
        assert_usage_error(["eval", "cubirds", "--agents", f"ppo:{fake}"], words, capsys)
    words = "has no checkpoint"
    assert_usage_error(["eval", "cubirds", "--agents", f"ppo:{empty}"], words, capsys)


# -- list, demo, bench, the command itself -----------------------------------------------------


@pytest.mark.parametrize(
    "argv, words, command",
    [
        ([], "required: command", ""),
        (["tournament", "cubirds"], "invalid choice: 'tournament'", ""),
        (["--bogus"], "", ""),
        (["list", "--bogus"], "unrecognized arguments: --bogus", "list"),
        (["list", "cubirds"], "unrecognized arguments: cubirds", "list"),
        (["list", "a=b"], "unrecognized arguments: a=b", "list"),
        (["demo", "a=b"], "unrecognized arguments: a=b", "demo"),
        (["demo", "cubirds"], "unrecognized arguments: cubirds", "demo"),
        (["demo", "--games", "0"], "--games must be an int from 1", "demo"),
        (["demo", "--games", "-5"], "--games must be an int from 1", "demo"),
        (["demo", "--games", "x"], "--games: invalid int value", "demo"),
        (["demo", "--games", str(10**12)], "--games must be an int from 1", "demo"),
        (["demo", "--workers", "0"], "--workers must be an int from 1", "demo"),
        (["demo", "--workers", str(10**6)], "--workers must be an int from 1", "demo"),
        (["demo", "--seed", "-3"], "--seed must be an int >= 0", "demo"),
        (["bench", "nosuchgame"], "unknown game 'nosuchgame'", "bench"),
        (["bench", "cubirds", "a=b"], "unknown Cubirds option(s) ['a']", "bench"),
        (["bench", "odins_ravens", "--players", "5"], "played by [2] players", "bench"),
        (["bench", "--players", "0"], "no game is played by [0] players", "bench"),
        (["bench", "--players", "x"], "player counts are integers", "bench"),
        (["bench", "--players", str(10**9)], "no game is played by", "bench"),
        (["bench", "--seconds", "0"], "--seconds must be > 0", "bench"),
        (["bench", "--seconds", "-1"], "--seconds must be > 0", "bench"),
        (["bench", "--seconds", "nan"], "--seconds must be > 0", "bench"),
        (["bench", "--seconds", "inf"], "--seconds must be > 0 and at most 3600", "bench"),
        (["bench", "--seconds", "1e9"], "--seconds must be > 0 and at most 3600", "bench"),
        (["bench", "--seconds", "soon"], "--seconds: invalid float value", "bench"),
        (["bench", "--train-seconds", "0"], "--train-seconds must be > 0", "bench"),
        (["bench", "--repeats", "0"], "--repeats must be an int from 1", "bench"),
        (["bench", "--repeats", str(10**6)], "--repeats must be an int from 1", "bench"),
        (["bench", "--memory-games", "-1"], "--memory-games must be an int from 0", "bench"),
        (["bench", "--memory-games", str(10**12)], "--memory-games must be an int from 0", "bench"),
        (["bench", "--bogus"], "unrecognized option '--bogus'", "bench"),
    ],
)
def test_other_commands_misuse(argv, words, command, capsys):
    assert_usage_error(argv, words, capsys, command)


def test_bench_bad_output_paths(tmp_path, capsys):
    for path, words in bad_paths(tmp_path):
        for flag in ("--json", "--plot"):
            assert_usage_error(["bench", "cubirds", flag, path], words, capsys)


# -- train --------------------------------------------------------------------------------------


@needs_train
@pytest.mark.parametrize(
    "argv, words",
    [
        # game names and rule options
        (["train", "chess"], "unknown game 'chess'"),
        (["train"], "give a game"),
        (["train", "mode=team", "sitting_ducks"], "expected a game name, got 'mode=team'"),
        (["train", "beasty_bar", "cubirds"], "unexpected argument 'cubirds'"),
        (["train", "beasty_bar", "colour=red"], "unknown Beasty Bar option"),
        (["train", "beasty_bar", "--players", "2", "colour=red"], "unknown Beasty Bar option"),
        (["train", "beasty_bar", "--quiet", "colour=red", "--players", "2"], "unknown Beasty Bar"),
        (["train", "beasty_bar", "max_turns=0"], "max_turns"),
        (["train", "beasty_bar", "max_turns"], "unexpected argument 'max_turns'"),
        (["train", "beasty_bar", "=1"], "key=value, got '=1'"),
        (["train", "beasty_bar", "num_players=3"], "--players, not num_players="),
        (["train", "beasty_bar", "max_turns=3", "max_turns=4"], "given twice"),
        (["train", "sitting_ducks", "mode=tea"], "mode"),
        (["train", "beasty_bar", "--bogus"], "unrecognized option '--bogus'"),
        # numbers
        (["train", "beasty_bar", "--players", "7"], "not 7"),
        (["train", "beasty_bar", "--players", "-1"], "not -1"),
        (["train", "beasty_bar", "--players", "x"], "--players: invalid int value"),
        (["train", "beasty_bar", "--timesteps", "0"], "timesteps must be an int from 1"),
        (["train", "beasty_bar", "--timesteps", "-5"], "timesteps must be an int from 1"),
        (["train", "beasty_bar", "--timesteps", "1e6"], "--timesteps: invalid int value"),
        (["train", "beasty_bar", "--timesteps", str(10**15)], "timesteps must be an int from 1"),
        (["train", "beasty_bar", "--envs", "0"], "envs must be an int from 1 to 4,096"),
        (["train", "beasty_bar", "--envs", str(10**11)], "envs must be an int from 1 to 4,096"),
        (["train", "beasty_bar", "--envs", "4096", "--set", "n_steps=512"], "rollout size"),
        (["train", "beasty_bar", "--workers", "0"], "workers must be an int from 1 to 64"),
        (["train", "beasty_bar", "--workers", str(10**8)], "workers must be an int from 1"),
        (["train", "beasty_bar", "--workers", "40"], "40 workers for 32 games"),
        (["train", "beasty_bar", "--seed", "-1"], "seed must be an int from 0"),
        (["train", "beasty_bar", "--seed", str(2**32)], "seed must be an int from 0"),
        (["train", "beasty_bar", "--eval-every", "0"], "eval_every must be an int >= 1"),
        (["train", "beasty_bar", "--eval-games", "0"], "eval_games must be an int from 1"),
        (["train", "beasty_bar", "--threads", "-1"], "threads must be an int from 0"),
        (["train", "beasty_bar", "--threads", str(10**6)], "threads must be an int from 0"),
        (["train", "beasty_bar", "--max-minutes", "-1"], "max_minutes must be a number >= 0"),
        (["train", "beasty_bar", "--max-minutes", "nan"], "max_minutes must be a number >= 0"),
        (["train", "beasty_bar", "--checkpoint-every", "-1"], "checkpoint_every must be an int"),
        (["train", "beasty_bar", "--checkpoint-every", "x"], "--checkpoint-every: invalid int"),
        # --set
        (["train", "beasty_bar", "--set", "x"], "key=value, got 'x'"),
        (["train", "beasty_bar", "--set", "speed=11"], "unknown training setting 'speed'"),
        (["train", "beasty_bar", "--set", "game=cubirds"], "unknown training setting 'game'"),
        (["train", "beasty_bar", "--set", "learning_rate=abc"], "learning_rate must be a number"),
        (["train", "beasty_bar", "--set", "learning_rate=-1"], "learning_rate must be a number >"),
        (["train", "beasty_bar", "--set", "gamma=2"], "gamma must be a number > 0.0 and <= 1.0"),
        (["train", "beasty_bar", "--set", "n_steps=0"], "n_steps must be an int from 1"),
        (["train", "beasty_bar", "--set", "threads=true"], "threads must be an int, got True"),
        (["train", "beasty_bar", "--set", "net_arch=a,b"], "net_arch must be an int, got 'a'"),
        (["train", "beasty_bar", "--set", "net_arch=0"], "net_arch must be one or more"),
        (["train", "beasty_bar", "--set", "net_arch="], "net_arch must be one or more"),
        (["train", "beasty_bar", "--set", "pool_weights=1"], "weights are three non-negative"),
        (["train", "beasty_bar", "--set", "pool_weights=-1,1,1"], "weights are three non-neg"),
        (["train", "beasty_bar", "--set", "baselines=genius"], "unknown agent spec 'genius'"),
        (["train", "beasty_bar", "--set", "eval_opponents=ppo:"], "needs a path"),
        (["train", "beasty_bar", "--set", "eval_opponents="], "eval_opponents must name"),
        (["train", "beasty_bar", "--set", "activation=gelu"], "activation must be 'relu'"),
        (["train", "beasty_bar", "--set", "max_snapshots=-1"], "max_snapshots must be an int"),
        (["train", "beasty_bar", "--set", "players=3", "--players", "2"], "players is given tw"),
        (["train", "beasty_bar", "--set", "n_epochs=2", "--set", "n_epochs=3"], "given twice"),
        # paths
        (["train", "--resume", "/no/such/run"], "not a run folder"),
        (["train", "beasty_bar", "--out", ""], "--out names an empty folder"),
    ],
)
def test_train_misuse(argv, words, capsys, tmp_path):
    out = [] if "--out" in argv or "--resume" in argv else ["--out", str(tmp_path / "run")]
    assert_usage_error([*argv, *out, "--quiet"], words, capsys, "train")
    assert not (tmp_path / "run").exists()  # nothing was started


@needs_train
def test_train_bad_run_folders(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    cases = [
        (a_file, "is a file, not a folder"),
        (a_file / "run", "cannot write in the run folder"),
    ]
    if os.path.isdir("/proc/self"):
        cases.append((Path("/proc/cardzoo-test-run"), "cannot write in the run folder"))
    for folder, words in cases:
        argv = ["train", "beasty_bar", "--out", str(folder), "--timesteps", "64", "--quiet"]
        line = assert_usage_error(argv, words, capsys)
        assert str(folder) in line
    # --resume of a file, of a folder that is no run, and a second --out
    assert_usage_error(["train", "--resume", str(a_file)], "not a run folder", capsys)
    assert_usage_error(["train", "--resume", str(tmp_path)], "not a run folder", capsys)
    argv = ["train", "--resume", str(tmp_path), "--out", str(tmp_path / "other")]
    assert_usage_error(argv, "--out cannot change when resuming", capsys)
    assert a_file.read_text() == "x"


@needs_train
def test_trainer_checks_its_folder_before_building(tmp_path):
    from cardzoo.train.ppo import TrainConfig, Trainer

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    trainer = Trainer(TrainConfig(game="beasty_bar", timesteps=64), a_file / "run", quiet=True)
    with pytest.raises(ValueError, match="cannot write in the run folder"):
        trainer.run()
    assert not hasattr(trainer, "model")  # failed before SB3 was touched


# -- the installed script -------------------------------------------------------------------


def cardzoo_script() -> str:
    script = Path(sys.executable).parent / "cardzoo"
    if not script.exists():
        pytest.skip("the cardzoo script is not installed next to this Python")
    return str(script)


def test_installed_script_issue_command_and_a_misuse(tmp_path):
    script = cardzoo_script()
    argv = ["eval", "sitting_ducks_v0", "mode=team", "--agents", "heuristic,random"]
    ok = subprocess.run(
        [script, *argv, "--players", "2", "--games", "2", "--workers", "1", "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "sitting_ducks, 2 players" in ok.stdout
    bad = subprocess.run(
        [script, "eval", "sitting_ducks_v0", "mode=tea", "--players", "2", "--games", "2"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert re.fullmatch(r"cardzoo eval: error: [^\n]*mode[^\n]*\n", bad.stderr), bad.stderr


@needs_train
def test_installed_script_train_into_a_file(tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    bad = subprocess.run(
        [cardzoo_script(), "train", "beasty_bar", "--out", str(a_file), "--quiet"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr == f"cardzoo train: error: run folder '{a_file}' is a file, not a folder\n"
