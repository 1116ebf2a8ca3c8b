"""The warm start by imitation (cardzoo.train.imitation): the teacher's games are recorded as the
training env would see them, and cloning moves the policy towards the teacher's moves."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from cardzoo.envs import load
from cardzoo.envs.core import child_seed
from cardzoo.envs.outcome import outcome
from cardzoo.train.imitation import agreement, clone, collect_demonstrations
from cardzoo.train.opponents import state_factory
from cardzoo.train.single_agent import raw_env_for
from cardzoo.train.vec_env import BatchedCardEnv
from sb3_contrib import MaskablePPO
from train_helpers import run_cli


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [("beasty_bar", 3, {}), ("cubirds", 2, {}), ("sitting_ducks", None, {"variant": "duel"})],
)
def test_demonstrations_replay_to_the_recorded_games(game, players, options):
    """Replaying each recorded game's moves from the same deal gives the recorded observations,
    legal moves only, and the seat's true final reward."""
    demos = collect_demonstrations(game, 300, num_players=players, seed=3, **options)
    assert len(demos) >= 300
    assert demos.games[-1] == demos.games.max()
    assert np.all(demos.masks[np.arange(len(demos)), demos.actions] == 1)
    module = load(game)
    env = raw_env_for(module, players, **options)
    new_game = state_factory(module, env.config)
    rng = np.random.default_rng(3)
    i = 0
    for g in range(int(demos.games.max()) + 1):
        state = new_game(child_seed(rng))
        for _ in range(state.num_players):  # the teachers' seeds, drawn after the deal
            child_seed(rng)
        seats = []
        while not (state.terminal or state.truncated):
            assert demos.games[i] == g
            seat = state.current_player
            assert np.array_equal(demos.obs[i], env.encoder.encode(state, seat))
            seats.append(seat)
            state.apply_id(int(demos.actions[i]))
            i += 1
        rewards = outcome(state).rewards
        assert demos.returns[i - len(seats) : i].tolist() == [rewards[s] for s in seats]
    assert i == len(demos)


def test_demonstrations_refuse_bad_input():
    with pytest.raises(ValueError, match="decisions"):
        collect_demonstrations("beasty_bar", 0)
    with pytest.raises(ValueError):
        collect_demonstrations("beasty_bar", 10, teacher="no_such_agent")


def _policy(game: str, players: int) -> object:
    venv = BatchedCardEnv(game, 2, num_players=players, seed=0)
    model = MaskablePPO("MlpPolicy", venv, device="cpu", seed=0)
    return model.policy


def test_cloning_moves_the_policy_towards_the_teacher():
    torch.manual_seed(0)
    demos = collect_demonstrations("beasty_bar", 3000, num_players=2, seed=1)
    policy = _policy("beasty_bar", 2)
    before = agreement(policy, demos)
    report = clone(policy, demos, epochs=10, batch_size=256)
    assert report.decisions == len(demos)
    assert report.held_out_agreement > before + 0.15
    assert agreement(policy, demos) > before + 0.15


def test_train_warm_start_writes_its_report(tmp_path, capsys):
    out = tmp_path / "run"
    code, _, err = run_cli(
        ["train", "beasty_bar", "--timesteps", "256", "--envs", "2", "--eval-games", "4",
         "--out", str(out), "--set", "n_steps=128", "--set", "batch_size=64",
         "--set", "warm_start=heuristic", "--set", "warm_start_decisions=200"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    report = json.loads((out / "warm_start.json").read_text())
    assert report["decisions"] >= 200
    assert 0.0 <= report["held_out_agreement"] <= 1.0
    assert "agreement with heuristic" in err


def test_train_refuses_an_unknown_teacher(tmp_path, capsys):
    code, _, err = run_cli(
        ["train", "beasty_bar", "--out", str(tmp_path / "r"), "--set", "warm_start=nobody"],
        capsys,
    )
    assert code == 2
    assert "nobody" in err


@pytest.mark.parametrize(("extra", "expected"), [([], 5e-4), (["warm_start_lr=2e-3"], 2e-3)])
def test_the_clone_is_fitted_with_warm_start_lr_when_set(
    tmp_path, capsys, monkeypatch, extra, expected
):
    """A gentle PPO step need not be the cloning step: warm_start_lr overrides learning_rate."""
    import cardzoo.train.imitation as imitation

    seen = []
    real_clone = imitation.clone

    def spy(policy, demos, epochs, batch_size, learning_rate, *rest):
        seen.append(learning_rate)
        return real_clone(policy, demos, epochs, batch_size, learning_rate, *rest)

    monkeypatch.setattr(imitation, "clone", spy)
    sets = ["learning_rate=5e-4", "n_steps=128", "batch_size=64", "warm_start=heuristic",
            "warm_start_decisions=100", *extra]  # fmt: skip
    code, _, err = run_cli(
        ["train", "beasty_bar", "--timesteps", "128", "--envs", "1", "--eval-games", "2",
         "--out", str(tmp_path / "run"), *[a for s in sets for a in ("--set", s)]],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert seen == [expected]
