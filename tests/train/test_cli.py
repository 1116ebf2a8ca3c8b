"""The cardzoo CLI and the tournament runner."""

from __future__ import annotations

import json

import pytest
from cardzoo.train.cli import main, parse_option
from cardzoo.train.tournament import lineup, run_tournament, wilson_interval


def test_list_prints_every_game(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "cubirds_v0" in out and "2-5" in out and "75" in out
    from cardzoo.envs import cubirds_v0

    size = cubirds_v0.raw_env(num_players=2).unwrapped.encoder.size
    assert f"2p:{size}" in out  # observation size of the 2-player encoder


def test_eval_writes_json_and_table(tmp_path, capsys):
    path = tmp_path / "r.json"
    argv = ["eval", "cubirds_v0", "--agents", "random,random", "--games", "20", "--players", "3"]
    code = main([*argv, "--seed", "1", "--quiet", "--workers", "1", "--json", str(path)])
    assert code == 0
    out = capsys.readouterr().out
    assert "win rate" in out and "95% CI" in out and "mean length" in out
    data = json.loads(path.read_text())
    assert data["game"] == "cubirds" and data["players"] == 3 and data["games"] == 20
    names = [a["name"] for a in data["agents"]]
    assert names == ["random", "random#2", "random#3"]
    for a in data["agents"]:
        assert a["games"] == 20
        assert a["wins"] + a["draws"] + a["losses"] == 20
        low, high = a["win_rate_ci95"]
        assert low <= a["win_rate"] <= high
    # Every game has exactly one outcome per seat: sole wins never exceed the game count.
    assert sum(a["wins"] for a in data["agents"]) <= 20


def test_eval_rule_options_reach_the_game(capsys):
    argv = ["eval", "cubirds", "--agents", "random", "--games", "3", "--players", "2", "--quiet"]
    assert main([*argv, "--workers", "1", "max_turns=1"]) == 0
    out = capsys.readouterr().out
    assert "truncated 3" in out  # every game hit the 1-turn cap


@pytest.mark.parametrize(
    "argv,words",
    [
        (["eval", "nosuchgame", "--games", "1"], "unknown game"),
        (["eval", "cubirds", "--agents", "genius", "--games", "1"], "unknown agent spec"),
        (["eval", "cubirds", "--games", "1", "colour=red"], "unknown Cubirds option"),
        (["eval", "cubirds", "--games", "1", "midturn_exhaustion=never"], "midturn_exhaustion"),
        (["eval", "cubirds", "--games", "1", "--players", "9"], "num_players"),
        (["eval", "cubirds", "--games", "0"], "games must be"),
    ],
)
def test_eval_errors_are_clear(argv, words, capsys):
    assert main([*argv, "--quiet", "--workers", "1"]) == 2
    assert words in capsys.readouterr().err


def test_parse_option_types():
    assert parse_option("a=true") == ("a", True)
    assert parse_option("a=False") == ("a", False)
    assert parse_option("n=3") == ("n", 3)
    assert parse_option("x=0.5") == ("x", 0.5)
    assert parse_option("mode=partial") == ("mode", "partial")


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_lineup_fills_spare_seats_with_the_last_spec():
    assert lineup(["heuristic", "random"], 4) == ["heuristic", "random", "random", "random"]
    with pytest.raises(ValueError, match="3 agents"):
        lineup(["a", "b", "c"], 2)


def test_results_do_not_depend_on_worker_count():
    one = run_tournament("cubirds", ["random", "random"], 12, 2, seed=5, workers=1)
    two = run_tournament("cubirds", ["random", "random"], 12, 2, seed=5, workers=2)
    assert [a.to_dict() for a in one.agents] == [a.to_dict() for a in two.agents]
    assert one.mean_turns == two.mean_turns and one.end_reasons == two.end_reasons


def test_seats_rotate():
    # With identical agents and rotation, each lineup slot plays every seat equally often;
    # over many games random-vs-random is near the fair share.
    result = run_tournament("cubirds", ["random"], 200, 2, seed=0)
    rates = [a.win_rate for a in result.agents]
    assert all(0.35 < r < 0.65 for r in rates), rates


def test_progress_bar_in_a_log_writes_plain_lines():
    import io

    from cardzoo.train.tournament import progress_bar

    log = io.StringIO()
    update = progress_bar("cubirds 2p", stream=log)
    for done in range(1, 101):
        update(done, 100)
    lines = log.getvalue().splitlines()
    assert len(lines) == 10 and "\r" not in log.getvalue()
    assert lines[-1].startswith("cubirds 2p: 100/100 games")


def test_eval_checks_the_json_path_before_playing(tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "dir" / "x.json"
    argv = ["eval", "beasty_bar", "--games", "100000", "--quiet", "--json", str(missing)]
    assert main(argv) == 2  # 100,000 games would take minutes: it must fail first
    err = capsys.readouterr().err
    assert "does not exist" in err and str(missing.parent) in err


def test_eval_named_variant(capsys):
    argv = ["eval", "beasty_bar", "--agents", "random", "--games", "4", "--quiet"]
    assert main([*argv, "--workers", "1", "--variant", "advanced"]) == 0
    assert "'variant': 'advanced'" in capsys.readouterr().out
    assert main([*argv, "--workers", "1", "--variant", "nonsense"]) == 2
    assert "unknown Beasty Bar variant" in capsys.readouterr().err


def test_run_tournament_bounds():
    from cardzoo.train.tournament import MAX_GAMES, MAX_WORKERS

    with pytest.raises(ValueError, match="games must be >= 1 and at most 1,000,000,000"):
        run_tournament("cubirds", ["random"], MAX_GAMES + 1, 2)
    with pytest.raises(ValueError, match="workers must be >= 1 and at most 64"):
        run_tournament("cubirds", ["random"], 2, 2, workers=MAX_WORKERS + 1)
    with pytest.raises(ValueError, match="seed must be >= 0"):
        run_tournament("cubirds", ["random"], 2, 2, seed=-1)
