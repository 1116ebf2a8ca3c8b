"""``cardzoo bench`` (loops, memory walk, rows, targets, report, CLI) and the hot spots it found:
the lazy RNG copy of ``clone_rng`` and ``RandomAgent``'s pick."""

from __future__ import annotations

import copy
import gc
import json
import pickle
import random
import tracemalloc

import numpy as np
import pytest
from cardzoo.agents import RandomAgent
from cardzoo.envs import beasty_bar_v0, games, load
from cardzoo.envs.core import LazyGenerator, clone_rng, make_rng
from cardzoo.train import bench, bench_report
from cardzoo.train.bench_loops import (
    aec_loop,
    along_loop,
    encoder_loop,
    engine_loop,
    game_moves,
    game_positions,
    play_games,
    private_bytes,
    sample_states,
)
from cardzoo.train.cli import main

# -- clone_rng: a lazy copy that draws exactly what an eager copy draws -------------------------


def eager_copy(rng: np.random.Generator) -> np.random.Generator:
    """What clone_rng did before it became lazy: a new bit generator set to the same state."""
    bit_generator = type(rng.bit_generator)(0)
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


@pytest.mark.parametrize("kind", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox])
def test_clone_rng_draws_what_an_eager_copy_draws(kind):
    rng = np.random.Generator(kind(12))
    rng.random(5)
    reference = eager_copy(rng)
    clone = clone_rng(rng)
    rng.integers(100, size=50)  # the original moves on; the copy keeps the state it was given
    assert (
        clone.integers(1 << 40, size=20).tolist() == reference.integers(1 << 40, size=20).tolist()
    )
    assert clone.permutation(30).tolist() == reference.permutation(30).tolist()
    assert repr(clone.bit_generator.state) == repr(reference.bit_generator.state)


def test_clone_rng_is_lazy_and_copies_of_copies_are_independent():
    rng = np.random.default_rng(3)
    reference = eager_copy(rng)
    first = clone_rng(rng)
    assert type(first) is LazyGenerator and first._generator is None
    second = clone_rng(first)  # a copy of an unused copy shares the snapshot, builds nothing
    assert second._generator is None
    expected = reference.random(6).tolist()
    assert first.random(6).tolist() == expected
    assert first._generator is not None
    third = clone_rng(first)  # a copy of a used copy starts where that one is now
    assert third.random(3).tolist() == reference.random(3).tolist()
    assert second.random(6).tolist() == expected  # untouched by first's draws


def test_clone_rng_passes_for_a_generator_and_pickles_as_one():
    rng = np.random.default_rng(8)
    clone = clone_rng(rng)
    assert isinstance(clone, np.random.Generator)
    assert make_rng(clone) is clone
    for restored in (pickle.loads(pickle.dumps(clone)), copy.deepcopy(clone), copy.copy(clone)):
        assert type(restored) is np.random.Generator
        assert restored.random(4).tolist() == eager_copy(rng).random(4).tolist()
    assert clone.random(4).tolist() == rng.random(4).tolist()  # copies did not advance it


@pytest.mark.parametrize("module", games(), ids=lambda m: m.GAME.name)
def test_engine_clone_draws_the_numbers_of_the_original(module):
    spec = module.GAME
    state = spec.state_cls(spec.make_config(num_players=spec.player_counts[0]), seed=5)
    pick = random.Random(1).random
    for _ in range(7):
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick() * len(legal))])
    reference = eager_copy(state.rng)
    clone = state.clone()
    assert type(clone.rng) is LazyGenerator and clone.rng._generator is None
    state.rng.random(9)
    assert clone.rng.integers(1 << 30, size=8).tolist() == (
        reference.integers(1 << 30, size=8).tolist()
    )


# -- RandomAgent ----------------------------------------------------------------------------


def test_random_agent_picks_what_flatnonzero_would_pick():
    masks = np.random.default_rng(0).integers(0, 2, size=(300, 45)).astype(np.int8)
    masks[:, 7] = 1
    agent, rng = RandomAgent(seed=11), np.random.default_rng(11)
    for mask in masks:
        legal = np.flatnonzero(mask)
        assert agent.act(None, mask) == int(legal[rng.integers(legal.size)])


def test_random_agent_takes_lists_and_row_masks():
    assert RandomAgent(0).act(None, [0, 0, 1, 0]) == 2
    assert RandomAgent(0).act(None, np.array([[0, 1, 0]], dtype=np.int8)) == 1


# -- loops ----------------------------------------------------------------------------------


def test_aec_loop_counts_decisions_apart_from_the_none_steps():
    # seconds=0: exactly one episode. Beasty Bar 2p: 24 turns, then one None step per agent.
    sample = aec_loop(beasty_bar_v0.env(), 0.0)
    assert sample.episodes == 1
    assert sample.decisions == 24 and sample.steps == 26
    assert sample.wall > 0 and sample.cpu >= 0


def test_engine_loop_plays_whole_games():
    spec = beasty_bar_v0.raw_env().game
    sample = engine_loop(spec.state_cls, spec.make_config(num_players=3), 0.0)
    assert (sample.episodes, sample.decisions, sample.steps) == (1, 36, 36)


def test_sample_states_are_consecutive_decision_states():
    spec = load("cubirds").GAME
    config = spec.make_config(num_players=2)
    states = sample_states(spec.state_cls, config, 40)
    assert len(states) == 40
    assert all(not s.terminal for s in states)
    # consecutive: each state is one move past the previous one of the same game
    counts = [s.move_count for s in states]
    assert counts[:10] == list(range(10))
    encoder = load("cubirds").raw_env().encoder
    sample = encoder_loop(encoder.mask, states, 0.0)
    assert sample.steps == 40 and sample.episodes == 1


def test_game_positions_are_shares_of_each_game():
    spec = beasty_bar_v0.raw_env().game
    config = spec.make_config(num_players=2)
    found = game_positions(spec.state_cls, config, 3, seed=4)
    # Beasty Bar 2p: 24 decisions a game; 10%, 50% and 90% of them
    assert {name: [s.move_count for s in states] for name, states in found.items()} == {
        "early": [2, 2, 2],
        "middle": [12, 12, 12],
        "late": [21, 21, 21],
    }
    # the positions of seeded games: the same game again, three different deals
    again = game_positions(spec.state_cls, config, 3, seed=4)
    assert [s.render() for s in again["middle"]] == [s.render() for s in found["middle"]]
    assert len({s.render() for s in found["middle"]}) == 3
    late = found["late"][0]
    assert not late.terminal and late.determinize(late.current_player, 0).view(
        late.current_player
    ) == late.view(late.current_player)


def test_along_loop_calls_once_at_every_decision_of_the_seeded_games():
    spec = beasty_bar_v0.raw_env().game
    config = spec.make_config(num_players=2)
    games = game_moves(spec.state_cls, config, 3, seed=4)
    seen = []
    sample = along_loop(lambda s: seen.append(s.render()), spec.state_cls, config, 0.0, 4, 2)
    # no time asked: the two games asked for, whole, one call per decision of each, at the
    # position reached by replaying that game's moves from its seed
    assert sample.steps == sample.decisions == len(seen) == len(games[0]) + len(games[1])
    assert sample.episodes == 2 and 0 < sample.cpu and 0 < sample.wall
    expected = []
    for game, moves in enumerate(games[:2]):
        state = spec.state_cls(config, seed=4 + game)
        for move in moves:
            expected.append(state.render())
            state.apply_id(move)
    assert seen == expected
    # given time, it goes on with new games (seeds 6, 7, ...), never the same game again
    firsts = []

    def first_positions(s):
        if s.move_count == 0:
            firsts.append(s.render())

    longer = along_loop(first_positions, spec.state_cls, config, 0.05, 4)
    assert longer.episodes == len(firsts) >= 3
    starts = [spec.state_cls(config, seed=4 + g).render() for g in range(len(firsts))]
    assert firsts == starts and len(set(firsts)) == len(firsts)


def test_the_determinize_row_never_meets_a_game_twice(monkeypatch):
    """Each repeat's along figure goes on from the seed where the last one stopped, and
    starts apart from the positions' games; every repeat covers whole games."""
    seeds = []
    real = bench.along_loop

    def spy(call, state_cls, config, seconds, seed=0, min_games=1):
        sample = real(call, state_cls, config, seconds, seed, min_games)
        seeds.append((seed, sample.episodes))
        return sample

    monkeypatch.setattr(bench, "along_loop", spy)
    modules, counts = bench.select(["beasty_bar"], [2], games())
    settings = bench.Settings(modules, counts, seconds=0.02, repeats=3, memory_games=0)
    report = bench.run(settings, report=lambda _: None)
    # the warm-up run (one game at least), then the three repeats (ALONG_MIN_GAMES at least)
    assert len(seeds) == 4 and seeds[0][0] == bench.ALONG_SEED >= bench.DETERMINIZE_GAMES
    for (seed, used), (after, _) in zip(seeds, seeds[1:]):
        assert after == seed + used
    assert all(used >= bench.ALONG_MIN_GAMES for _, used in seeds[1:])
    det = [r for r in report["rows"] if r["api"] == "determinize"][0]
    assert det["along_games"] == min(used for _, used in seeds[1:])


# -- memory ---------------------------------------------------------------------------------


class Holder:
    def __init__(self, shared: tuple) -> None:
        self.shared = shared
        self.mine = [10**12 + i for i in range(2000)]
        self.buffer = bytearray(40_000)


def test_private_bytes_counts_own_objects_not_shared_ones():
    shared = tuple(10**15 + i for i in range(5000))  # module-level data of both holders
    fresh = Holder(shared)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        holder = Holder(shared)
        traced = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    walked = private_bytes(holder, fresh)
    assert 0.9 * traced < walked < 1.1 * traced
    assert walked < 160_000  # own: about 120 kB; the shared tuple (200 kB) is not counted


def test_private_bytes_of_an_env_agrees_with_tracemalloc():
    warm = beasty_bar_v0.env(num_players=3)
    play_games(warm, 2, 10**6, seed=50)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        env = beasty_bar_v0.env(num_players=3)
        play_games(env, 5, 10**6)
        gc.collect()
        traced = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    fresh = beasty_bar_v0.env(num_players=3)
    play_games(fresh, 1, 10**6, seed=90)
    walked = private_bytes(env, fresh)
    assert 0.6 * traced < walked < 1.6 * traced, (walked, traced)


def test_play_games_stops_at_the_decision_budget():
    played, decisions = play_games(beasty_bar_v0.env(), 100, 30)
    assert played == 2 and decisions == 48  # 24 decisions a game; stops once 30 are passed


# -- selection and settings -----------------------------------------------------------------


def test_a_seat_count_only_a_variant_allows_is_measured_through_that_variant():
    from cardzoo.envs import sitting_ducks_v0

    assert bench.env_options(sitting_ducks_v0.GAME, 2) == {"variant": "duel", "num_players": 2}
    assert bench.env_options(sitting_ducks_v0.GAME, 4) == {"num_players": 4}
    duel = sitting_ducks_v0.env(**bench.env_options(sitting_ducks_v0.GAME, 2))
    assert len(duel.possible_agents) == 2
    with pytest.raises(ValueError, match="not played by 7 players"):
        bench.env_options(sitting_ducks_v0.GAME, 7)


def test_select_games_and_player_counts():
    modules, counts = bench.select(None, [2], games())
    # Sitting Ducks Gallery plays 2 seats only in its team variant ("duel"): measured through it
    assert counts["sitting_ducks_v0"] == [2]
    assert counts["cubirds_v0"] == [2]
    modules, counts = bench.select(None, [5], games())
    assert "odins_ravens_v0" not in [m.GAME.env_name for m in modules]  # 2 only: left out
    modules, counts = bench.select(["beasty_bar", "cubirds_v0"], [3, 4, 5], games())
    assert counts == {"beasty_bar_v0": [3, 4], "cubirds_v0": [3, 4, 5]}
    with pytest.raises(ValueError, match="odins_ravens_v0 is played by \\[2\\] players"):
        bench.select(["odins_ravens"], [3], games())
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        bench.select(["chess"], None, games())
    with pytest.raises(ValueError, match="no game is played by \\[9\\]"):
        bench.select(None, [9], games())


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("seconds", 0.0, "--seconds must be > 0"),
        ("repeats", 0, "--repeats must be an int >= 1"),
        ("memory_games", -1, "--memory-games must be >= 0"),
        ("train_seconds", -2.0, "--train-seconds must be > 0"),
    ],
)
def test_settings_reject_bad_values(field, value, message):
    modules, counts = bench.select(["beasty_bar"], [2], games())
    with pytest.raises(ValueError, match=message):
        bench.Settings(modules, counts, **{field: value})


# -- rows, ratios, targets ------------------------------------------------------------------


REQUIRED = {
    "suite": str,
    "env": str,
    "players": int,
    "api": str,
    "steps_per_s": (float, type(None)),
    "decisions_per_s": (float, type(None)),
    "decisions_per_s_median": (float, type(None)),
    "cpu_decisions_per_s": (float, type(None)),
    "ratio_to_leduc_env": (float, type(None)),
}


@pytest.fixture(scope="module")
def small_report():
    modules, counts = bench.select(["beasty_bar"], [2], games())
    settings = bench.Settings(modules, counts, seconds=0.02, repeats=2, memory_games=3)
    return bench.run(settings, report=lambda _: None)


def test_run_writes_the_documented_schema(small_report):
    report = small_report
    assert report["schema"] == bench.SCHEMA == 2
    assert {"machine", "versions", "settings", "rows", "targets"} <= set(report)
    assert report["machine"]["usable_cores"] >= 1 and report["versions"]["numpy"]
    rows = {(r["suite"], r["env"], r["players"], r["api"]): r for r in report["rows"]}
    assert set(rows) == {("cardzoo", "beasty_bar_v0", 2, api) for api in
                         ("env", "raw_env", "engine", "encoder", "determinize")}  # fmt: skip
    for row in report["rows"]:
        for key, kind in REQUIRED.items():
            assert isinstance(row[key], kind), (key, row)
        assert row["repeats"] == 2
    env = rows[("cardzoo", "beasty_bar_v0", 2, "env")]
    assert env["decisions_per_s"] >= env["decisions_per_s_median"] > 0
    assert env["steps_per_s"] > env["decisions_per_s"]  # the None steps at each game's end
    assert env["reset_us"] > 0 and env["construct_ms"] > 0
    assert env["memory_games"] == 3 and 0 < env["memory_bytes"] < 10**6
    encoder = rows[("cardzoo", "beasty_bar_v0", 2, "encoder")]
    assert encoder["obs_us"] > 0 and encoder["mask_us"] > 0 and encoder["decisions_per_s"] is None
    assert env["ratio_to_leduc_env"] is None  # no peers, no ratio
    det = rows[("cardzoo", "beasty_bar_v0", 2, "determinize")]
    assert det["determinize_games"] == bench.DETERMINIZE_GAMES and det["decisions_per_s"] is None
    for part in ("early", "middle", "late", "along"):
        assert 0 < det[f"{part}_us"] <= det[f"{part}_us_median"] < 10**5
        assert det[f"cpu_{part}_us"] > 0
    kinds = {t["target"]: t for t in report["targets"]}
    assert set(kinds) == {
        "env() / raw_env() decisions/s",
        "memory per env (kB)",
        "determinize ms/call, slowest position or along a game",
    }
    worst = kinds["determinize ms/call, slowest position or along a game"]
    parts = (*bench.POSITIONS, "along")
    assert worst["value"] == round(max(det[f"{p}_us"] for p in parts) / 1000, 3)
    assert worst["bar"] == 0.2
    json.dumps(report)  # JSON-ready as is


def row(suite, env, players, api, dps, cpu=None, **extra):
    return {
        "suite": suite,
        "env": env,
        "players": players,
        "api": api,
        "decisions_per_s": dps,
        "cpu_decisions_per_s": cpu,
        "ratio_to_leduc_env": None,
        "cpu_ratio_to_leduc_env": None,
        **extra,
    }


def test_ratios_and_targets():
    rows = [
        row("pettingzoo", "leduc_holdem_v4", 2, "env", 1000.0, cpu=2000.0),
        row("cardzoo", "cubirds_v0", 2, "env", 8000.0, cpu=10000.0, memory_bytes=70_000),
        row("cardzoo", "cubirds_v0", 2, "raw_env", 8200.0),
        row("cardzoo", "cubirds_v0", 2, "engine", 14000.0),
        row("cardzoo", "cubirds_v0", 5, "env", 6000.0, memory_bytes=30_000),
        row("cardzoo", "cubirds_v0", 5, "raw_env", 6600.0),
        row("cardzoo", "cubirds_v0", 2, "encoder", None),
    ]
    bench.add_ratios(rows)
    assert rows[1]["ratio_to_leduc_env"] == 8.0 and rows[1]["cpu_ratio_to_leduc_env"] == 5.0
    assert rows[0]["ratio_to_leduc_env"] == 1.0 and rows[6]["ratio_to_leduc_env"] is None
    found = {(t["target"], t["players"]): t for t in bench.check_targets(rows)}
    assert found[("env() decisions/s / leduc env()", 2)]["ok"]
    assert found[("env() decisions/s / leduc env()", 2)]["cpu_value"] == 5.0
    assert found[("memory per env (kB)", 2)]["cpu_value"] is None
    assert found[("env() decisions/s / leduc env()", 5)]["ok"]  # 6x
    assert not found[("engine decisions/s / leduc env()", 2)]["ok"]  # 14x < 15x
    assert found[("env() / raw_env() decisions/s", 2)]["ok"]  # 0.976
    assert not found[("env() / raw_env() decisions/s", 5)]["ok"]  # 0.909
    assert not found[("memory per env (kB)", 2)]["ok"] and found[("memory per env (kB)", 5)]["ok"]
    scaling = found[("5p / 2p env() decisions/s", 5)]
    assert scaling["value"] == 0.75 and not scaling["ok"]


def test_train_rows_come_from_bench_train(monkeypatch):
    import cardzoo.train.bench_train as bench_train

    calls = []

    def fake_measure(game, envs, opponents, seconds, players=None, eval_games=400):
        calls.append((game, envs, opponents, seconds, players, eval_games))
        if envs == 64:
            raise ZeroDivisionError  # no rollout finished in time
        return {
            # two complete rollouts of envs * 256 steps, then a quarter of one cut by the budget
            "learner_steps": envs * 256 * 2 + envs * 64,
            "learner_steps_per_s": 1000,
            "decisions_per_s": 2000,
            "learner_steps_per_cpu_s": 1500,
            "rollout_share": 0.6,
            "update_share": 0.4,
            "wall_s": 3.0,
            "load_1min": [1.0, 1.5],
        }

    monkeypatch.setattr(bench_train, "measure", fake_measure)
    notes = []
    rows = bench.train_rows([load("sitting_ducks")], 4.0, notes.append)
    assert calls == [("sitting_ducks", k, "self", 4.0, 3, bench.TRAIN_EVAL) for k in (1, 8, 64)]
    # the untimed quarter rollout is taken out: 1000 * 2 / 2.25
    assert [(r["api"], r["envs"], r["steps_per_s"], r["decisions_per_s"]) for r in rows] == [
        ("train", 1, 889, 1778),
        ("train", 8, 889, 1778),
    ]
    assert rows[1]["timed_learner_steps"] == 8 * 512
    assert "K=64: no complete rollout" in notes[-1]
    table = bench_report.train_table(rows)
    assert "| `sitting_ducks_v0` | 3 | 8 | 889 | 1,778 |" in table


def test_complete_share():
    assert bench._complete_share(1024, 2, 256) == 1.0
    assert bench._complete_share(1100, 2, 256) == 1024 / 1100
    assert bench._complete_share(500, 2, 256) == 0.0


# -- report ---------------------------------------------------------------------------------


def test_markdown_and_plot(small_report, tmp_path):
    text = bench_report.markdown(small_report)
    assert "Machine:" in text and "Versions:" in text
    assert "| cardzoo | `beasty_bar_v0` | 2 | env() |" in text
    summary = bench_report.summary_table(small_report["rows"])
    assert summary.count("\n") == 2 and summary.splitlines()[2].startswith(
        "| `beasty_bar_v0` | 2 |"
    )
    assert "kB after 3 games |" in summary
    assert "| `beasty_bar_v0` | 2 |" in text  # the encoder/reset/memory table
    assert "Targets (docs/benchmark.md" in text
    table = bench_report.determinize_table(small_report["rows"])
    assert table.splitlines()[2].startswith("| `beasty_bar_v0` | 2 | ")
    assert table in text and "determinize" not in bench_report.throughput_table(
        small_report["rows"]
    )
    pytest.importorskip("matplotlib")
    path = tmp_path / "bench.png"
    bench_report.plot(small_report, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- CLI ------------------------------------------------------------------------------------


def test_cli_bench_writes_json(tmp_path, capsys):
    path = tmp_path / "b.json"
    argv = ["bench", "beasty_bar", "--players", "2", "--seconds", "0.01", "--repeats", "1"]
    assert main([*argv, "--memory-games", "0", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "| cardzoo | `beasty_bar_v0` | 2 | engine |" in out
    data = json.loads(path.read_text())
    assert data["settings"]["players"] == {"beasty_bar_v0": [2]}
    assert all("memory_bytes" not in r for r in data["rows"])


def test_cli_bench_measures_a_variant_or_rule_options(tmp_path, monkeypatch):
    """``--variant`` and ``key=value`` words (before or after the flags) reach every env and
    state the bench builds, the counts are those they allow, and each row says what it ran."""
    from cardzoo.envs import sitting_ducks_v0

    built = []
    real_env = sitting_ducks_v0.env

    def spy(**kwargs):
        built.append(kwargs)
        return real_env(**kwargs)

    monkeypatch.setattr(sitting_ducks_v0, "env", spy)
    quick = ["--seconds", "0.01", "--repeats", "1", "--memory-games", "0"]
    path = tmp_path / "hidden.json"
    assert main(["bench", "sitting_ducks", "--variant", "hidden", *quick, "--json", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["settings"]["players"] == {"sitting_ducks_v0": [3, 4, 5, 6]}
    assert data["settings"]["options"] == {"variant": "hidden"}
    assert {r["players"] for r in data["rows"]} == {3, 4, 5, 6}
    assert all(r["options"] == {"variant": "hidden"} for r in data["rows"])
    assert built and all(kw.get("variant") == "hidden" for kw in built)
    path = tmp_path / "strict.json"
    words = ["odins_ravens", *quick, "joker_requires_no_match=true", "--json", str(path)]
    assert main(["bench", *words]) == 0
    rows = json.loads(path.read_text())["rows"]
    assert rows and all(r["options"] == {"joker_requires_no_match": True} for r in rows)
    # the duel sets its count: 2 alone, and the row says so (as the default 2-player row does)
    assert bench.select(["sitting_ducks"], None, games(), {"variant": "duel"})[1] == {
        "sitting_ducks_v0": [2]
    }
    assert bench.env_options(sitting_ducks_v0.GAME, 2) == {"variant": "duel", "num_players": 2}
    assert bench.env_options(sitting_ducks_v0.GAME, 4, {"mode": "points"}) == {
        "mode": "points",
        "num_players": 4,
    }


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "cubirds", "beasty_bar", "flock_step=always"], "exactly one game"),
        (["bench", "cubirds", "bogus=1"], "unknown Cubirds option(s) ['bogus']"),
        (["bench", "sitting_ducks", "--variant", "duel", "--players", "4"], "by [2] players"),
        (["bench", "sitting_ducks", "--variant", "nosuch"], "unknown Sitting Ducks Gallery"),
        (["bench", "odins_ravens", "--players", "4"], "played by [2] players"),
        (["bench", "--seconds", "0"], "--seconds must be > 0"),
        (["bench", "chess"], "unknown game 'chess'"),
        (["bench", "--json", "/no/such/folder/b.json"], "does not exist"),
    ],
)
def test_cli_bench_rejects_bad_input(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_peers_use_the_same_loop():
    pytest.importorskip("rlcard")
    from cardzoo.train.bench_peers import load_peers

    peers = {(p.suite, p.env, p.api): p for p in load_peers(lambda _: None)}
    leduc = peers[("pettingzoo", "leduc_holdem_v4", "env")].measure(0.0)
    assert leduc.episodes == 1 and 0 < leduc.decisions < leduc.steps
    native = peers[("rlcard", "leduc-holdem", "native")].measure(0.0)
    assert native.episodes == 1 and native.decisions == native.steps > 0
