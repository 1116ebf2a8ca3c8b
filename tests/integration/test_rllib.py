"""cardzoo on Ray/RLlib (cardzoo.train.rllib, train_ray, eval --ray): docs/ray.md.

Marked ``ray`` (deselect with ``-m "not ray"``) and skipped without the ``ray`` extra. Ray is
started with ``num_cpus`` set on purpose (the CI machine has 2 cores) and shut down after use.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from cardzoo.envs import games, load  # noqa: E402
from cardzoo.train import rllib  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402

pytestmark = pytest.mark.ray

CASES = [(m.GAME.name, n) for m in games() for n in m.GAME.player_counts]


class CheckedEnv(rllib.CardzooMultiAgentEnv):
    """Counts every action that reaches the env and every illegal one (class-wide: the env
    runner builds its own instances)."""

    steps = 0
    illegal: list[tuple[str, int]] = []
    actions: set[int] = set()

    def step(self, action_dict: dict) -> tuple:
        agent = self.env.agent_selection
        for action in action_dict.values():
            CheckedEnv.steps += 1
            CheckedEnv.actions.add(int(action))
            if not self.env.game_state.is_legal(int(action)):
                CheckedEnv.illegal.append((agent, int(action)))
                # play a legal one instead, so that sampling goes on and every case is counted
                action_dict = {agent: self.env.legal_actions()[0]}
        return super().step(action_dict)


def _sample(game: str, players: int, steps: int, spec=None) -> list:
    CheckedEnv.steps, CheckedEnv.illegal, CheckedEnv.actions = 0, [], set()
    config = rllib.ppo_config(rllib.env_config(game, players), hidden=(16,), seed=3)
    config.environment(CheckedEnv)
    if spec is not None:
        config.rl_module(rl_module_spec=rllib.MultiRLModuleSpec(rl_module_specs={"main": spec}))
    runner = MultiAgentEnvRunner(config=config)
    try:
        return runner.sample(num_timesteps=steps, random_actions=False)
    finally:
        runner.stop()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_masked_module_never_sends_an_illegal_action(game: str, players: int) -> None:
    _sample(game, players, 300)
    assert CheckedEnv.steps >= 300
    assert CheckedEnv.illegal == []
    assert len(CheckedEnv.actions) > 3  # the untrained policy explores, not one fixed move


class UnmaskedModule(rllib.MaskedPPOTorchRLModule):
    """The masked module with its mask taken off (the logits as the network gives them)."""

    def _forward(self, batch: dict, **kwargs) -> dict:
        _, inner = rllib._split(batch, False)
        return rllib.DefaultPPOTorchRLModule._forward(self, inner, **kwargs)


def test_without_the_mask_illegal_actions_do_reach_the_env() -> None:
    # The control of the test above: the same sampling without the mask sends illegal actions.
    spec = rllib.RLModuleSpec(module_class=UnmaskedModule, model_config={"fcnet_hiddens": [16]})
    _sample("beasty_bar", 2, 200, spec)
    assert CheckedEnv.illegal


def _play_scripted(game: str, players: int, seed: int) -> tuple[MultiAgentEpisode, dict, list]:
    """Play one game through the env into an RLlib episode, each seat taking a seeded random
    legal action; returns the episode, the final step's rewards and the (seat, action) moves."""
    env = rllib.CardzooMultiAgentEnv({"game": game, "players": players})
    obs, infos = env.reset(seed=seed)
    episode = MultiAgentEpisode(
        observation_space=env.observation_spaces,
        action_space=env.action_spaces,
        agent_to_module_mapping_fn=rllib.self_play_mapping,
    )
    episode.add_env_reset(observations=obs, infos=infos)
    movers = []
    rng = np.random.default_rng(seed)
    while True:
        (agent,) = obs
        mask = obs[agent]["action_mask"]
        assert set(np.unique(mask)) <= {0.0, 1.0} and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        movers.append((agent, action))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        episode.add_env_step(
            observations=obs,
            actions={agent: action},
            rewards=rewards,
            infos=infos,
            terminateds=terms,
            truncateds=truncs,
        )
        if terms["__all__"] or truncs["__all__"]:
            return episode, rewards, movers
        assert set(rewards) == {agent} and rewards[agent] == 0.0


@pytest.mark.parametrize(("game", "players"), [("beasty_bar", 3), ("cubirds", 2)])
def test_final_reward_reaches_every_seat(game: str, players: int) -> None:
    episode, rewards, movers = _play_scripted(game, players, seed=4)
    # the same game through the plain AEC env, for the expected result
    ref = load(game).raw_env(num_players=players)
    ref.reset(seed=4)
    for agent, action in movers:
        assert ref.agent_selection == agent
        ref.step(action)
    expected = {a: float(r) for a, r in zip(ref.possible_agents, ref.unwrapped.outcome().rewards)}
    assert rewards == expected
    assert any(v != 0 for v in expected.values())  # a decided game: the check can fail
    assert episode.is_terminated
    last_mover = movers[-1][0]
    seats = [agent for agent, _ in movers]
    for agent, reward in expected.items():
        sa = episode.agent_episodes[agent]
        # each seat's final reward is credited to its own last action, also for the seats
        # whose last move came before the move that ended the game
        assert sa.get_rewards()[-1] == reward
        assert sum(sa.get_rewards()) == reward
        assert len(sa) == seats.count(agent)
    assert any(a != last_mover for a in expected)


def test_env_refuses_wrong_seat_and_illegal_action() -> None:
    env = rllib.CardzooMultiAgentEnv({"game": "beasty_bar", "players": 2})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    before = env.env.game_state.move_count
    with pytest.raises(ValueError, match=f"expected an action for {agent} only"):
        env.step({other: 0})
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal action"):
        env.step({agent: illegal})
    assert env.env.game_state.move_count == before
    with pytest.raises(ValueError, match="unknown cardzoo env config key"):
        rllib.CardzooMultiAgentEnv({"game": "beasty_bar", "seats": 2})


@pytest.mark.parametrize("mask_as_input", [False, True])
def test_export_plays_what_the_module_plays(tmp_path, mask_as_input: bool) -> None:
    import torch
    from cardzoo.agents import make_agent
    from cardzoo.agents.rllib_policy import load_export
    from cardzoo.train.tournament import run_tournament

    env_cfg = rllib.env_config("beasty_bar", 3)
    env = rllib.CardzooMultiAgentEnv(env_cfg)
    module = rllib.MaskedPPOTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config=rllib.module_spec((24, 16), mask_as_input=mask_as_input).model_config,
    )
    rllib.export_policy(module, str(tmp_path / "export"), env_cfg, iteration=7)
    info, actor = load_export(tmp_path)
    assert info["iteration"] == 7 and info["num_players"] == 3
    assert info["mask_as_input"] is mask_as_input
    # the same logits on the legal actions as the torch module, for observations of real games
    rows = []
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        for _ in range(5):
            (agent,) = obs
            rows.append(obs[agent])
            legal = np.flatnonzero(obs[agent]["action_mask"])
            obs, *_ = env.step({agent: int(legal[seed % len(legal)])})
    batch = {
        key: torch.from_numpy(np.stack([r[key] for r in rows]))
        for key in ("observation", "action_mask")
    }
    with torch.no_grad():
        logits = module.forward_inference({"obs": batch})["action_dist_inputs"].numpy()
    inputs = batch["observation"].numpy()
    if mask_as_input:
        inputs = np.concatenate([inputs, batch["action_mask"].numpy()], axis=1)
    legal = batch["action_mask"].numpy() > 0
    np.testing.assert_allclose(actor.logits(inputs)[legal], logits[legal], rtol=1e-4, atol=1e-5)
    agent = make_agent(f"rllib:{tmp_path}", "beasty_bar")
    for row, z, ok in zip(rows, logits, legal):
        assert agent.act(row["observation"], row["action_mask"]) == int(
            np.flatnonzero(ok)[np.argmax(z[ok])]
        )
    result = run_tournament("beasty_bar", [f"rllib:{tmp_path}", "random"], 6, 3, seed=1)
    assert result.agents[0].games == 6
    with pytest.raises(ValueError, match="trained for 3 players, not 2|beasty_bar_v0, not"):
        make_agent(f"rllib:{tmp_path}", "cubirds")
    with pytest.raises(ValueError, match="needs a path"):
        make_agent("rllib:", "beasty_bar")
    with pytest.raises(ValueError, match="no RLlib policy export"):
        make_agent(f"rllib:{tmp_path}/missing", "beasty_bar")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train-ray"], "give a game"),
        (["train-ray", "beasty_bar", "--iterations", "0"], "--iterations must be"),
        (["train-ray", "beasty_bar", "--num-env-runners", "-1"], "--num-env-runners must be"),
        (["train-ray", "beasty_bar", "--snapshot-threshold", "-0.5"], "--snapshot-threshold"),
        (["train-ray", "beasty_bar", "--players", "7"], "num_players"),
        (["train-ray", "beasty_bar", "--hidden", "0"], "--hidden"),
        (["train-ray", "--resume", "{tmp}"], "not a train-ray run folder"),
    ],
)
def test_train_ray_usage_errors_fail_before_ray_starts(argv, message, tmp_path, capsys) -> None:
    import ray
    from cardzoo.train.cli import main

    running = ray.is_initialized()
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv + ["--out", str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err
    assert ray.is_initialized() == running  # no Ray started (nor stopped)
    assert not (tmp_path / "run").exists()


# -- on a two-node Ray cluster (one machine): eval --ray, train-ray, resume --------------------


@pytest.fixture(scope="module")
def cluster():
    """A head and a worker node of one CPU each on this machine; the driver connected to it."""
    import ray
    from ray.cluster_utils import Cluster

    small = {"num_cpus": 1, "object_store_memory": 80 * 1024**2, "include_dashboard": False}
    nodes = Cluster(initialize_head=True, head_node_args=small)
    nodes.add_node(num_cpus=1, object_store_memory=80 * 1024**2)
    ray.init(address=nodes.address, log_to_driver=False)
    try:
        nodes.wait_for_nodes()
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()


def test_eval_on_ray_equals_the_local_result(cluster) -> None:
    from cardzoo.train.ray_eval import ray_executor
    from cardzoo.train.tournament import run_tournament

    args = ("beasty_bar", ["heuristic", "random"], 120, 3)
    local = run_tournament(*args, seed=5, workers=1, game_log=True).to_dict()
    # the same chunks (4 tasks of 30 games over the two nodes): the same result, bit for bit
    on_ray = run_tournament(*args, seed=5, workers=1, game_log=True, executor=ray_executor())
    assert on_ray.to_dict() | {"seconds": 0} == local | {"seconds": 0}
    # other chunks (as with a local --workers 4): every count equal, float means to rounding
    wide = run_tournament(*args, seed=5, workers=4, game_log=True, executor=ray_executor())
    wide = wide.to_dict()
    assert wide["game_log"] == local["game_log"]
    for mine, theirs in zip(wide["agents"], local["agents"]):
        for key, value in theirs.items():
            same = pytest.approx(value, rel=1e-12) if isinstance(value, float) else value
            assert mine[key] == same, key
        assert (mine["wins"], mine["draws"]) == (theirs["wins"], theirs["draws"])
    other_seed = run_tournament(*args, seed=6, workers=1).to_dict()
    assert [a["wins"] for a in other_seed["agents"]] != [a["wins"] for a in local["agents"]]


def test_ray_without_an_address_starts_its_own_even_beside_a_cluster(cluster, tmp_path) -> None:
    # A cluster runs on this machine and RAY_ADDRESS names it: without --address the command
    # still starts its own local Ray (joining would refuse the --workers CPUs; seen in CI when
    # another test's cluster was up).
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, RAY_ADDRESS=cluster.address, PYTHONWARNINGS="ignore")
    out = tmp_path / "ray.json"
    argv = ["eval", "beasty_bar", "--agents", "heuristic,random", "--games", "4"]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cardzoo"), *argv, "--ray", "--workers", "1"]
        + ["--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(out.read_text())["games"] == 4


def test_eval_ray_flags_are_checked(capsys) -> None:
    from cardzoo.train.cli import main

    assert main(["eval", "beasty_bar", "--games", "2", "--address", "auto"]) == 2
    assert "--address needs --ray" in capsys.readouterr().err
    assert main(["eval", "beasty_bar", "--ray", "--record", "/tmp/x"]) == 2
    assert "--record cannot be used with --ray" in capsys.readouterr().err


def test_train_ray_on_two_nodes_checkpoints_and_resumes(cluster, tmp_path, capsys) -> None:
    import json

    from cardzoo.train.cli import main

    out = tmp_path / "run"
    common = ["--address", cluster.address, "--eval-games", "4", "--quiet"]
    first = ["train-ray", "beasty_bar", "--num-env-runners", "2", "--iterations", "1"]
    small = ["--batch", "200", "--hidden", "16", "--out", str(out)]
    assert main(first + small + common + ["--snapshot-threshold", "1.5"]) == 0  # 1.5: never
    (row,) = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert row["iteration"] == 1 and row["env_steps"] >= 200
    assert len(row["runner_nodes"]) == 2 and len(set(row["runner_nodes"])) == 2  # both nodes
    assert set(row["eval"]) == {"random", "heuristic"}
    assert (out / "checkpoints" / "iter-000001" / "rllib_checkpoint.json").is_file()
    exported = np.load(out / "export" / "policy.npz")["w0"].copy()
    # resumed: RLlib's checkpoint restored (iteration 2 follows), the export moves on
    # and a snapshot of main joins the league (threshold 0: whatever its win rate)
    again = ["train-ray", "--resume", str(out), "--num-env-runners", "2", "--iterations", "1"]
    assert main(again + common + ["--snapshot-threshold", "0"]) == 0
    rows = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in rows] == [1, 2]
    assert "snapshot_added" not in rows[0] and rows[1]["snapshot_added"] == "main_v1"
    assert rows[1]["league"] == ["main", "random", "heuristic", "main_v1"]
    assert rows[1]["league_shares"] == {m: 0.25 for m in rows[1]["league"]}
    assert json.loads((out / "run.json").read_text())["snapshots"] == ["main_v1"]
    assert (out / "checkpoints" / "iter-000002").is_dir()
    assert not np.array_equal(np.load(out / "export" / "policy.npz")["w0"], exported)
    assert main(["eval", "beasty_bar", "--agents", f"rllib:{out},random", "--games", "4"]) == 0
    assert f"rllib:{out}" in capsys.readouterr().out
