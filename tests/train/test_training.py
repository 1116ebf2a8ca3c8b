"""cardzoo train: smoke runs on every game, resume, Ctrl-C, atomic checkpoints, PolicyAgent."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cardzoo.agents import Seat, make_agent  # noqa: E402
from cardzoo.agents.policy import PolicyAgent, checkpoint_files, load_checkpoint  # noqa: E402
from cardzoo.envs import games, load  # noqa: E402
from cardzoo.train import checkpoint as checkpoint_module  # noqa: E402
from cardzoo.train.cli import main  # noqa: E402
from cardzoo.train.ppo import TrainConfig, Trainer  # noqa: E402
from cardzoo.train.tournament import run_tournament  # noqa: E402

GAMES = [m.GAME.name for m in games()]

# A few hundred steps: every part runs (updates, snapshots, evaluations, checkpoints, plot).
TINY = {
    "envs": 4,
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 1,
    "net_arch": [16],
    "threads": 1,
    "snapshot_every": 1,
    "max_snapshots": 2,
    "eval_every": 128,
    "eval_games": 8,
}


def tiny(game: str, timesteps: int = 256, **extra) -> TrainConfig:
    return TrainConfig(game=game, timesteps=timesteps, **{**TINY, **extra})


def rows(path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One tiny finished run per game, trained on first use: ``runs(game)``."""
    done = {}

    def get(game: str):
        if game not in done:
            folder = tmp_path_factory.mktemp(game)
            done[game] = (folder, Trainer(tiny(game), folder, quiet=True).run())
        return done[game]

    return get


@pytest.mark.parametrize("game", GAMES)
def test_smoke_training_writes_everything(runs, game):
    folder, summary = runs(game)
    assert summary["timesteps"] >= 256 and not summary["interrupted"]
    for name in ("config.json", "train.csv", "opponents.csv", "eval.csv", "summary.json"):
        assert (folder / name).exists(), name
    assert (folder / "learning_curve.png").stat().st_size > 1000
    assert list((folder / "tb").iterdir())  # TensorBoard event file
    train = rows(folder / "train.csv")
    assert [int(r["updates"]) for r in train] == list(range(1, len(train) + 1))
    assert all(float(r["rollout_s"]) > 0 and float(r["update_s"]) > 0 for r in train)
    evals = rows(folder / "eval.csv")
    assert {r["opponent"] for r in evals} == set(TrainConfig(game=game).eval_opponents)
    assert {int(r["timesteps"]) for r in evals} >= {0, summary["timesteps"]}
    for r in evals:
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"]) == 8
        assert float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"])
    # which opponents played is logged per update; the pool holds self, snapshots, baselines
    names = {r["opponent"] for r in rows(folder / "opponents.csv")}
    baselines = set(TrainConfig(game=game).baselines)
    assert names and names <= {"self"} | baselines | {n for n in names if n.startswith("snap-")}
    data = load_checkpoint(folder)
    assert data["timesteps"] == summary["timesteps"]
    assert len(data["pool"]["snapshots"]) == 2  # capped


def test_resume_continues_counters_pool_and_logs(tmp_path):
    first = Trainer(tiny("beasty_bar", 256), tmp_path, quiet=True).run()
    before = load_checkpoint(tmp_path)
    train_before = rows(tmp_path / "train.csv")
    config = TrainConfig.from_dict(
        {k: v for k, v in json.loads((tmp_path / "config.json").read_text()).items()
         if k != "cardzoo"} | {"timesteps": 512}
    )  # fmt: skip
    second = Trainer(config, tmp_path, resume=True, quiet=True).run()
    after = load_checkpoint(tmp_path)
    assert second["timesteps"] >= 512 > first["timesteps"]
    assert after["counters"]["updates"] > before["counters"]["updates"]
    assert after["counters"]["elapsed"] > before["counters"]["elapsed"]
    train = rows(tmp_path / "train.csv")
    assert train[: len(train_before)] == train_before  # old rows kept, new ones appended
    steps = [int(r["timesteps"]) for r in train]
    updates = [int(r["updates"]) for r in train]
    assert steps == sorted(set(steps)) and updates == list(range(1, len(train) + 1))
    # the snapshots taken before the stop are still in the pool (newest two kept)
    old = {s["name"] for s in before["pool"]["snapshots"]}
    new = [s["name"] for s in after["pool"]["snapshots"]]
    assert old & set(new) or all(int(n.split("-")[1]) > 256 for n in new)
    assert len(after["evals"]) > len(before["evals"])
    assert after["evals"][: len(before["evals"])] == before["evals"]


def test_ctrl_c_writes_a_checkpoint_and_resume_picks_it_up(tmp_path, monkeypatch):
    calls = {"n": 0}
    original = Trainer.after_update

    def interrupt_on_third(self, *args):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(Trainer, "after_update", interrupt_on_third)
    summary = Trainer(tiny("beasty_bar", 4096), tmp_path, quiet=True).run()
    assert summary["interrupted"] and 0 < summary["timesteps"] < 4096
    assert load_checkpoint(tmp_path)["timesteps"] == summary["timesteps"]
    monkeypatch.setattr(Trainer, "after_update", original)
    assert main(["train", "--resume", str(tmp_path), "--timesteps", "640", "--quiet"]) == 0
    assert load_checkpoint(tmp_path)["timesteps"] >= 640


def test_a_checkpoint_cut_mid_write_is_never_the_latest(tmp_path, monkeypatch):
    Trainer(tiny("beasty_bar", 128), tmp_path, quiet=True).run()
    good = checkpoint_files(tmp_path)[-1]

    def crash_mid_write(obj, fh):
        fh.write(b"PK\x03\x04 half a checkpoint")
        raise KeyboardInterrupt

    monkeypatch.setattr(checkpoint_module.torch, "save", crash_mid_write)
    with pytest.raises(KeyboardInterrupt):
        checkpoint_module.write_checkpoint(tmp_path, 10**9, {"x": 1})
    assert checkpoint_files(tmp_path)[-1] == good
    assert not list((tmp_path / "checkpoints").glob(".ckpt-*"))  # temporary file removed
    # a hard crash (no cleanup) leaves a temporary file: it is not a checkpoint either
    (tmp_path / "checkpoints" / ".ckpt-abc.tmp").write_bytes(b"garbage")
    assert checkpoint_files(tmp_path)[-1] == good
    assert load_checkpoint(tmp_path)["path"] == str(good)


@pytest.mark.parametrize("game", GAMES)
def test_policy_agent_round_trip(runs, game):
    folder, _ = runs(game)
    agent = make_agent(f"ppo:{folder}", game, seed=0)
    assert isinstance(agent, PolicyAgent) and agent.deterministic
    sampled = make_agent(f"ppo-sample:{folder}", game, seed=0)
    assert not sampled.deterministic
    players = TrainConfig(game=game).players
    env = load(game).env(num_players=players)
    env.reset(seed=0)
    for name in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.seat_of(name)
        action = agent.act(
            obs["observation"], obs["action_mask"], seat=Seat(env.unwrapped.game_state, seat)
        )
        assert obs["action_mask"][action] == 1
        env.step(action)
    result = run_tournament(game, [f"ppo:{folder}", "random"], 6, players, seed=1)
    assert result.agents[0].games == 6


def test_policy_agent_in_cardzoo_eval(runs, capsys):
    folder, _ = runs("beasty_bar")
    argv = ["eval", "beasty_bar", "--agents", f"ppo:{folder},random", "--games", "4"]
    assert main([*argv, "--quiet", "--workers", "1"]) == 0
    assert "ppo:" in capsys.readouterr().out


def test_policy_agent_refuses_another_game_players_or_encoder(runs, monkeypatch):
    folder, _ = runs("beasty_bar")
    other = next(g for g in GAMES if g != "beasty_bar")
    with pytest.raises(ValueError, match="trained on beasty_bar_v0"):
        make_agent(f"ppo:{folder}", other)
    with pytest.raises(ValueError, match="trained for 2 players"):
        PolicyAgent(folder, "beasty_bar", num_players=3)
    agent = PolicyAgent(folder, "beasty_bar")
    env = load("beasty_bar").env(num_players=3)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.act(obs["observation"], obs["action_mask"], seat=Seat(env.unwrapped.game_state, 0))
    with pytest.raises(ValueError, match="observation of shape"):
        agent.act(np.zeros(5, dtype=np.int8), obs["action_mask"])
    encoder_cls = load("beasty_bar").GAME.encoders["default"]
    monkeypatch.setattr(encoder_cls, "version", "999")
    with pytest.raises(ValueError, match="encoder 'default' version"):
        PolicyAgent(folder, "beasty_bar")
    with pytest.raises(ValueError, match="no checkpoint or run folder"):
        make_agent("ppo:/no/such/run", "beasty_bar")
    with pytest.raises(ValueError, match="needs a path"):
        make_agent("ppo:", "beasty_bar")


@pytest.mark.parametrize(
    "argv,words",
    [
        (["train", "chess"], "unknown game"),
        (["train", "beasty_bar", "--players", "7"], "not 7"),
        (["train", "beasty_bar", "colour=red"], "unknown Beasty Bar option"),
        (["train", "beasty_bar", "--set", "speed=11"], "unknown training setting"),
        (["train", "--resume", "/no/such/run"], "not a run folder"),
        (["train"], "give a game"),
    ],
)
def test_train_cli_errors_are_clear(argv, words, capsys):
    assert main([*argv, "--quiet"]) == 2
    assert words in capsys.readouterr().err


def test_train_cli_refuses_to_overwrite_a_run(runs, capsys):
    folder, _ = runs("beasty_bar")
    assert main(["train", "beasty_bar", "--out", str(folder), "--quiet"]) == 2
    assert "--resume" in capsys.readouterr().err


def test_update_threads_are_chosen_by_timing(tmp_path):
    from cardzoo.train.ppo import THREAD_TRIALS, default_threads

    trainer = Trainer(tiny("beasty_bar", 768, threads=0), tmp_path, quiet=True)
    trainer.run()  # 6 updates: 2 candidates x THREAD_TRIALS timed, then the faster kept
    assert THREAD_TRIALS * 2 <= 6
    assert trainer.thread_trials == {}
    assert trainer.update_threads in {1, default_threads()}
