"""``cardzoo play``: a human at the terminal against agents, driven here by scripted input."""

from __future__ import annotations

import functools
import io
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest
from cardzoo.envs import ENV_MODULES, load
from cardzoo.train.cli import main
from cardzoo.train.play import play
from cardzoo.train.records import load_record, replay_record


class Script:
    """Answers prompts from a list (then "1" forever, or EOF), and keeps every printed line."""

    def __init__(self, answers: Iterable[str] = (), then: str | None = "1") -> None:
        self.answers = list(answers)
        self.then = then
        self.prompts = 0
        self.out: list[str] = []

    def input(self, prompt: str) -> str:
        self.prompts += 1
        self.out.append(f"PROMPT {prompt}")
        if self.answers:
            return self.answers.pop(0)
        if self.then is None:
            raise EOFError
        return self.then

    def print(self, *parts: object) -> None:
        self.out.extend(" ".join(str(p) for p in parts).split("\n"))


def run_play(game: str, script: Script, **kwargs) -> object:
    return play(game, input_fn=script.input, print_fn=script.print, **kwargs)


def expected_result_lines(env, names: list[str], seat: int) -> list[str]:
    """The result lines built from a replayed env's own outcome (not from play's numbers)."""
    outcome = env.unwrapped.outcome()
    label = [f"seat {q} ({n})" for q, n in enumerate(names)]
    winners = ", ".join(label[q] for q in outcome.winners) or "nobody"
    rewards = ", ".join(f"{label[q]}: {float(r):+g}" for q, r in enumerate(outcome.rewards))
    return [f"winners: {winners}", f"rewards: {rewards}"]


@pytest.mark.parametrize("module", ENV_MODULES)
def test_a_whole_game_against_random_with_bad_inputs_first(module, tmp_path):
    script = Script(["x", "", "0", "999", "-1", " 1 "])
    played = run_play(module, script, seed=3, record_dir=str(tmp_path))
    assert played.result is not None and played.path is not None
    record = load_record(played.path)
    assert record == played.record
    players = load(module).GAME.make_config().num_players
    assert record["agents"] == ["human"] + ["random"] * (players - 1)
    human_moves = [d for d in record["decisions"] if d["seat"] == 0]
    # one prompt per human decision, plus the five refused answers
    assert script.prompts == len(human_moves) + 5
    env = replay_record(record)  # a fresh env re-plays every decision, checking each
    for line in expected_result_lines(env, record["agents"], 0):
        assert line in script.out
    winners = env.unwrapped.outcome().winners
    verdict = script.out[script.out.index(expected_result_lines(env, record["agents"], 0)[1]) + 1]
    if 0 in winners:
        assert verdict.startswith("you won")
    else:
        assert verdict == ("you lost" if winners else "nobody won")
    assert any(line.startswith("=== game over: ") for line in script.out)


def test_bad_input_changes_nothing():
    """The same game with refused answers sprinkled in is the same game, decision for decision;
    each refusal is one line naming the reason, and no new table is shown in between."""
    plain = run_play("cubirds", Script(), seed=5)
    noisy_script = Script(["1", "abc", "1", "", "1", "42", "0", "1"])
    noisy = run_play("cubirds", noisy_script, seed=5)
    assert noisy.record["decisions"] == plain.record["decisions"]
    assert noisy.result == plain.result
    out = noisy_script.out
    for reason in ("not a number: 'abc'", "empty input:", "out of range: 42", "out of range: 0"):
        [at] = [i for i, line in enumerate(out) if line.startswith(reason)]
        assert out[at - 1].startswith("PROMPT ") and out[at + 1].startswith("PROMPT ")


@pytest.mark.parametrize("seed", [2, 3])
def test_the_human_sees_only_their_seat_and_the_others_moves_in_words(seed):
    script = Script()
    played = run_play("beasty_bar", script, seed=seed, seat=1)
    record = played.record
    assert record["agents"] == ["random", "human"]
    # before each choice: the other seat's moves since the human's last one, in words
    expected, since = [], []
    for d in record["decisions"]:
        if d["seat"] == 1:
            expected.append(since)
            since = []
        else:
            since.append(f"  seat 0 (random): {d['move']}")
    shown = []
    for i, line in enumerate(script.out):
        if line == "=== your turn (seat 1) ===":
            block = []
            if script.out[i + 1] == "since your last move:":
                block = [
                    x for x in script.out[i + 2 : i + 2 + len(since) + 9] if x.startswith("  seat")
                ]
            shown.append(block)
    assert shown == expected and any(expected)
    text = "\n".join(script.out)
    assert "seen by seat 1" in text and "seen by seat 0" not in text


@pytest.mark.parametrize("answer", ["q", "Q", None])
def test_quit_or_end_of_input_abandons_and_saves_nothing(answer, tmp_path):
    script = Script([] if answer is None else ["2", "x", answer], then=None)
    played = run_play("odins_ravens", script, seed=1, record_dir=str(tmp_path))
    assert played.result is None and played.record is None and played.path is None
    assert script.out[-1] == "game abandoned"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "opponents, agents, seed",
    [
        (["heuristic"], ["heuristic"] * 3, 4),  # the last spec fills the spare seats
        (["random", "heuristic", "random"], ["random", "heuristic", "random"], 1),
    ],
)
def test_team_variant_and_spare_seats(opponents, agents, seed):
    """Seats 0 and 2 are a team. The seeds were picked so that the human's team loses in the
    first case and wins in the second (as measured); the verdict is checked against the replay."""
    script = Script()
    played = run_play(
        "sitting_ducks", script, seed=seed, opponents=opponents, options={"variant": "team"}
    )
    assert played.record["agents"] == ["human", *agents]
    assert played.record["variant"] == "team"
    winners = replay_record(played.record).unwrapped.outcome().winners
    assert sorted(winners) in ([0, 2], [1, 3])  # a team wins together
    if 0 in winners:
        assert f"you won, together with seat 2 ({agents[1]})" in script.out
    else:
        assert "you lost" in script.out


def test_records_never_overwrite_each_other(tmp_path):
    first = run_play("beasty_bar", Script(), seed=9, record_dir=str(tmp_path))
    second = run_play("beasty_bar", Script(), seed=9, record_dir=str(tmp_path))
    assert Path(first.path).name == "beasty_bar-2p-play-s9.json"
    assert Path(second.path).name == "beasty_bar-2p-play-s9-2.json"
    assert load_record(second.path) == load_record(first.path)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"seat": 2}, "--seat must be 0..1"),
        ({"opponents": ["random", "random"]}, "2 opponents given for a 2-player game"),
        ({"opponents": ["nobody"]}, "unknown agent spec 'nobody'"),
        ({"seed": -1}, "--seed must be >= 0"),
        ({"players": 9}, "num_players"),
    ],
)
def test_misuse_fails_before_the_game_starts(kwargs, words):
    script = Script()
    with pytest.raises(ValueError, match=words.replace(".", r"\.")):
        run_play("cubirds", script, **kwargs)
    assert script.out == [] and script.prompts == 0


# -- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, words",
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "cubirds", "--seat", "5"], "--seat must be 0..1"),
        (["play", "cubirds", "--opponents", "ppo:/no/such/file"], "no checkpoint"),
        (["play", "cubirds", "--players", "0"], "--players must be"),
        (["play", "cubirds", "colour=blue"], "unknown Cubirds option"),
        (["play", "cubirds", "--variant", "nope"], "unknown Cubirds variant"),
        (["play", "cubirds", "--record", ""], "--record names an empty folder"),
    ],
)
def test_cli_misuse_is_one_line_and_exit_2(argv, words, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a prompt would abandon, exit 0
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("cardzoo play: error: ") and words in err


def test_cli_record_flag_and_ctrl_c(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 40))
    assert main(["play", "beasty_bar", "--seed", "7", "--record", str(tmp_path / "r")]) == 0
    [path] = (tmp_path / "r").iterdir()
    replay_record(load_record(str(path)))
    assert f"game record written to {path}" in capsys.readouterr().out

    def interrupt(prompt: str) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("cardzoo.train.play.play", functools.partial(play, input_fn=interrupt))
    assert main(["play", "beasty_bar", "--seed", "7", "--record", str(tmp_path / "s")]) == 130
    assert "cardzoo play: interrupted" in capsys.readouterr().err
    assert list((tmp_path / "s").iterdir()) == []


def test_installed_script_plays_to_the_end_with_piped_input():
    script = Path(sys.executable).parent / "cardzoo"
    if not script.exists():
        pytest.skip("the cardzoo script is not installed next to this Python")
    done = subprocess.run(
        [str(script), "play", "beasty_bar", "--seed", "1"],
        input="x\n" + "1\n" * 40, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "not a number: 'x'" in done.stdout and "=== game over: " in done.stdout
    quit_ = subprocess.run(
        [str(script), "play", "beasty_bar", "--seed", "1"],
        input="", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert quit_.returncode == 0 and quit_.stdout.rstrip().endswith("game abandoned")
