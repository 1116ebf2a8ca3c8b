"""Game records (issue 18, item 1): ``cardzoo eval --record DIR`` and ``cardzoo replay FILE``.

Every game and named variant is recorded through the eval entry point and replayed; a replay is
compared with the original play step by step (global state vector and every seat's view); a
tampered record is refused with the step or field named; the replay command prints the steps and
its misuse ends in one error line with exit code 2.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cardzoo.agents import RandomAgent
from cardzoo.envs import ENV_MODULES, load
from cardzoo.train.records import (
    GameRecorder,
    RecordError,
    describe_result,
    load_record,
    record_filename,
    replay_record,
    replay_steps,
    write_record,
)
from train_helpers import run_cli as run


def cases() -> list[tuple[str, str | None, int]]:
    """(env module, variant or None, player count) for every game and each named variant."""
    found = []
    for name in ENV_MODULES:
        game = load(name).GAME
        for variant in (None, *game.variants):
            overrides = game.variants.get(variant, {}) if variant else {}
            found.append((name, variant, overrides.get("num_players", min(game.player_counts))))
    return found


def record_games(
    folder: Path, game: str, players: int, capsys: Any, *extra: str
) -> tuple[dict[str, Any], list[Path]]:
    """``cardzoo eval`` of heuristic vs random with ``--record folder``; its JSON and files."""
    summary = folder.parent / f"{folder.name}.json"
    argv = ["eval", game, "--agents", "heuristic,random", "--players", str(players)]
    argv += ["--workers", "1", "--quiet", "--record", str(folder), "--json", str(summary)]
    code, out, err = run([*argv, *extra], capsys)
    assert code == 0, err
    return json.loads(summary.read_text()), sorted(folder.iterdir())


@pytest.mark.parametrize(("module", "variant", "players"), cases())
def test_every_game_and_variant_is_recorded_by_eval_and_replays(
    module, variant, players, tmp_path, capsys
):
    extra = ["--games", "2", "--seed", "3"] + (["--variant", variant] if variant else [])
    summary, files = record_games(tmp_path / "records", module, players, capsys, *extra)
    plain = load(module).GAME.name
    assert [f.name for f in files] == [record_filename(plain, players, g, 2) for g in range(2)]
    wins = {"heuristic": 0, "random": 0}
    for g, path in enumerate(files):
        record = load_record(str(path))
        assert (record["env"], record["variant"], record["players"]) == (module, variant, players)
        assert record["seed"] == 3 * 1_000_003 + g and record["tournament"] == {
            "seed": 3,
            "game": g,
        }
        sides = summary["sides"]
        heuristic_seats = [q for q, spec in enumerate(record["agents"]) if spec == "heuristic"]
        if summary["side_lineup"]:  # team games: one agent per side, rotating by one side a game
            assert heuristic_seats == sides[g % len(sides)]
        else:  # the lineup rotates by one seat a game
            assert heuristic_seats == [g % players]
        env = replay_record(record)
        assert env.game_state.terminal or env.game_state.truncated
        assert env.game_state.move_count == len(record["decisions"]) > 0
        winners = record["result"]["winners"]
        if sorted(winners) in sides:  # one side won alone (partners win together)
            wins[record["agents"][winners[0]]] += 1
            results = record["result"]["results"]
            assert [results[q] for q in range(players)] == [
                "win" if q in winners else "loss" for q in range(players)
            ]
    # the records tell the same story as the tournament's own tally
    assert {a["spec"]: a["wins"] for a in summary["agents"]} == wins


def play_and_watch(module: str, players: int, seed: int) -> tuple[dict[str, Any], list[Any]]:
    """Play one random game with a recorder; what every seat saw and the global state after
    each step (the deal included)."""
    env = load(module).env(num_players=players, render_mode="ansi")
    env.reset(seed=seed)
    recorder = GameRecorder(env, seed, ["random"] * players)
    agent = RandomAgent(seed)

    def snapshot() -> Any:
        seats = [env.observe(a)["observation"].copy() for a in env.possible_agents]
        return env.state().copy(), seats, env.render()

    seen = [snapshot()]
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"])
        recorder.decide(action)
        env.step(action)
        seen.append(snapshot())
    return recorder.finish(), seen


@pytest.mark.parametrize("module", ENV_MODULES)
def test_a_replay_is_bit_exact_at_every_step(module, tmp_path):
    players = min(load(module).GAME.player_counts)
    record, seen = play_and_watch(module, players, seed=11)
    path = tmp_path / "game.json"
    write_record(record, str(path))
    replayed = []

    def watch(step: int, decision: Any, env: Any) -> None:
        seats = [env.observe(a)["observation"].copy() for a in env.possible_agents]
        replayed.append((env.state().copy(), seats, env.render()))

    replay_record(load_record(str(path)), watch)
    assert len(replayed) == len(seen) == len(record["decisions"]) + 1
    for step, (ours, theirs) in enumerate(zip(replayed, seen)):
        assert np.array_equal(ours[0], theirs[0]), f"global state differs after step {step}"
        for seat, (a, b) in enumerate(zip(ours[1], theirs[1])):
            assert np.array_equal(a, b), f"seat {seat}'s observation differs after step {step}"
        assert ours[2] == theirs[2], step


def test_records_do_not_depend_on_the_number_of_workers(tmp_path, capsys):
    one = record_games(tmp_path / "one", "cubirds", 2, capsys, "--games", "6")[1]
    argv = ["eval", "cubirds", "--games", "6", "--workers", "2", "--quiet"]
    code, _, err = run([*argv, "--record", str(tmp_path / "two")], capsys)
    assert code == 0, err
    two = sorted((tmp_path / "two").iterdir())
    assert [p.name for p in one] == [p.name for p in two]
    assert [p.read_bytes() for p in one] == [p.read_bytes() for p in two]


# -- refused records ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> dict[str, Any]:
    """One finished two-player Cubirds record (random play)."""
    return play_and_watch("cubirds_v0", 2, seed=5)[0]


def legal_ids_before(record: dict[str, Any], step: int) -> list[int]:
    """The legal action ids at ``step`` (1-based) of the record's game."""
    cut = copy.deepcopy(record)
    cut["decisions"] = cut["decisions"][: step - 1]
    env = load(record["game"]).env(num_players=record["players"])
    env.reset(seed=record["seed"])
    for decision in cut["decisions"]:
        env.step(decision["action"])
    return env.legal_actions()


def tampered(record: dict[str, Any], change: Any) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def test_an_action_made_illegal_is_refused_naming_the_step(sample):
    step = 7
    legal = legal_ids_before(sample, step)
    illegal = next(a for a in range(75) if a not in legal)
    bad = tampered(sample, lambda r: r["decisions"][step - 1].update(action=illegal))
    with pytest.raises(RecordError, match=rf"^step {step}: action {illegal} \(.*\) is illegal"):
        replay_record(bad)


def test_another_legal_action_with_the_old_text_is_refused_naming_the_step(sample):
    step = next(k for k in range(1, 40) if len(legal_ids_before(sample, k)) > 1)
    played = sample["decisions"][step - 1]["action"]
    other = next(a for a in legal_ids_before(sample, step) if a != played)
    bad = tampered(sample, lambda r: r["decisions"][step - 1].update(action=other))
    words = rf"^step {step}: action {other} is '.*' in cubirds_v0, the record says '.*'$"
    with pytest.raises(RecordError, match=words):
        replay_record(bad)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: r["decisions"][2].update(move="lay all Owls somewhere"), "step 3: action"),
        (lambda r: r["decisions"][4].update(action=9999), "step 5: action 9999 is out of range"),
        (lambda r: r["decisions"][3].update(seat=1 - r["decisions"][3]["seat"]), "step 4: the"),
        (lambda r: r["decisions"][5].update(action=True), "step 6: field action must be int"),
        (lambda r: r["decisions"].pop(), "the record ends after this step, but the game goes on"),
        (lambda r: r["decisions"].append(r["decisions"][-1]), "the game is already over"),
        (lambda r: r.update(env="cubirds_v1"), "field env: the record was made with cubirds_v1"),
        (lambda r: r.update(game="chess"), "field game: unknown game 'chess'"),
        (lambda r: r["config"].update(max_turns=999), "field config: rule option max_turns"),
        (lambda r: r["options"].update(colour="red"), "unknown Cubirds option(s) ['colour']"),
        (lambda r: r.update(seed=r["seed"] + 1), "step "),  # another deal: some step fails
        (lambda r: r.update(seed=-1), "field seed: seed must be a non-negative int"),
        (lambda r: r["result"].update(winners=[]), "field result.winners: the replay gives"),
        (lambda r: r["result"].update(rewards=[0.0, 0.0]), "field result.rewards"),
        (lambda r: r.update(format_version=2), "field format_version: this cardzoo reads version"),
        (lambda r: r.pop("agents"), "field agents: missing"),
        (lambda r: r.update(players="2"), "field players: expected int, got '2'"),
        (lambda r: r.update(format="something"), "not a game record"),
    ],
    ids=lambda value: value.split(":")[0] if isinstance(value, str) else "",
)
def test_a_tampered_record_is_refused_naming_what_is_wrong(sample, change, words):
    bad = tampered(sample, change)
    with pytest.raises(RecordError) as caught:
        replay_record(bad)
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_untampered_sample_replays(sample):
    """The control of the tampering tests: the same record, unchanged, replays."""
    assert replay_record(copy.deepcopy(sample)).game_state.terminal


# -- the replay command ---------------------------------------------------------------------------


@pytest.fixture
def sample_file(sample, tmp_path) -> Path:
    path = tmp_path / "cubirds-2p-g0.json"
    write_record(sample, str(path))
    return path


def test_replay_prints_every_step_in_order_and_the_result(sample, sample_file, capsys):
    code, out, err = run(["replay", str(sample_file)], capsys)
    assert code == 0 and err == ""
    n = len(sample["decisions"])
    assert "all-seeing view" in out and f"== step 0/{n}: the deal ==" in out
    position = 0
    for k, decision in enumerate(sample["decisions"], 1):
        header = f"== step {k}/{n}: seat {decision['seat']} (random): {decision['move']} =="
        position = out.index(header, position)  # present, and after the previous step
    assert out.rstrip().endswith(describe_result(sample))
    # every table shown is the all-seeing render() after that step
    tables = [s.table for s in replay_steps(sample)]
    assert all(t in out for t in tables)


def test_replay_of_one_step_from_a_seat_shows_only_what_that_seat_sees(sample, sample_file, capsys):
    code, out, err = run(["replay", str(sample_file), "--seat", "1", "--step", "4"], capsys)
    assert code == 0, err
    expected = replay_steps(sample, seat=1)[4]
    assert expected.table in out and "== step 4/" in out
    assert "== step 3/" not in out and "== step 5/" not in out
    # the all-seeing table of that step lists both hands; seat 1's view is another text
    assert replay_steps(sample)[4].table not in out


def test_replay_misuse_ends_in_one_error_line(sample, sample_file, tmp_path, capsys):
    not_json = tmp_path / "notes.txt"
    not_json.write_text("hello")
    other_json = tmp_path / "other.json"
    other_json.write_text('{"game": "cubirds"}')
    bad = tmp_path / "bad.json"
    write_record(tampered(sample, lambda r: r["decisions"][8].update(move="pass")), str(bad))
    misuses = [
        ([str(tmp_path / "missing.json")], "cannot read"),
        ([str(tmp_path)], "cannot read"),
        ([str(not_json)], "is not a game record: not JSON"),
        ([str(other_json)], "not a game record"),
        ([str(bad)], "step 9: action"),
        ([str(sample_file), "--seat", "2"], "--seat must be 0..1"),
        ([str(sample_file), "--seat", "-1"], "--seat must be 0..1"),
        ([str(sample_file), "--step", "100000"], "--step must be an int from 0 to"),
        ([str(sample_file), "--seat", "x"], "invalid int value"),
        ([], "the following arguments are required: file"),
        ([str(sample_file), "extra"], "unrecognized arguments: extra"),
    ]
    for argv, words in misuses:
        code, out, err = run(["replay", *argv], capsys)
        lines = err.strip().splitlines()
        assert code == 2, (argv, err)
        assert lines[-1].startswith("cardzoo replay: error: ") and words in lines[-1], (argv, err)
        assert "Traceback" not in err and out == ""
        assert all(line.startswith("usage:") for line in lines[:-1]) or len(lines) == 1


def test_eval_record_misuse_ends_in_one_error_line(tmp_path, capsys):
    a_file = tmp_path / "file"
    a_file.write_text("")
    record_games(tmp_path / "full", "cubirds", 2, capsys, "--games", "1")
    base = ["eval", "cubirds", "--games", "1", "--workers", "1", "--quiet", "--record"]
    for folder, words in [
        (str(a_file), "not a folder"),
        (str(a_file / "sub"), "cannot make the folder"),
        (str(tmp_path / "full"), "already holds cubirds-2p-g*.json records"),
        (" ", "--record names an empty folder"),
    ]:
        code, out, err = run([*base, folder], capsys)
        assert code == 2, (folder, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cardzoo eval: error: "), err
        assert words in err and out == ""
    # the folder already holding 2-player records takes 3-player ones
    argv = ["eval", "cubirds", "--players", "3", *base[2:], str(tmp_path / "full")]
    code, _, err = run(argv, capsys)
    assert code == 0, err


def test_a_record_cut_short_names_its_last_step(sample):
    cut = len(sample["decisions"]) - 3
    bad = tampered(sample, lambda r: r.update(decisions=r["decisions"][:cut]))
    with pytest.raises(RecordError, match=rf"^step {cut}: the record ends after this step, but"):
        replay_record(bad)


def test_a_record_starts_only_with_a_fresh_game():
    env = load("beasty_bar").env(num_players=2)
    env.reset(seed=0)
    env.step(env.legal_actions()[0])
    with pytest.raises(ValueError, match="right after env.reset"):
        GameRecorder(env, 0, ["random", "random"])
    env.reset(seed=0)
    with pytest.raises(ValueError, match="1 agent names given for 2 seats"):
        GameRecorder(env, 0, ["random"])
