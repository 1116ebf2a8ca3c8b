"""PettingZoo API conformance: api_test, seed_test, metadata, spaces, rendering, registry."""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pettingzoo
import pytest
from cardzoo.envs import make
from conformance_cases import CASES
from pettingzoo.test import api_test, seed_test

# PettingZoo's api_test says this of every env whose observation is a dict with an action mask,
# which is the PettingZoo classic convention we follow on purpose. Anything else fails the test.
EXPECTED_WARNINGS = (
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
    # api_test's probe reset(options={"options": 1}); we warn rather than ignore silently.
    "reset() ignores the options ['options']: cardzoo envs take no reset options; rule options "
    "are given to env() (e.g. env(num_players=3))",
)


@pytest.mark.parametrize("module,config", CASES)
def test_pettingzoo_api_test(module, config):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(module.env(**config), num_cycles=500)
    unexpected = [str(w.message) for w in caught if str(w.message) not in EXPECTED_WARNINGS]
    assert not unexpected, unexpected


@pytest.mark.parametrize("module,config", CASES)
def test_pettingzoo_seed_test(module, config):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: module.env(**config), num_cycles=500)


@pytest.mark.parametrize("module,config", CASES)
def test_metadata_and_spaces(module, config):
    env = module.env(**config)
    n = config["num_players"]
    assert env.metadata["name"] == module.GAME.env_name
    # "rgb_array" is claimed only where the render extra (CairoSVG) is installed.
    rgb = ["rgb_array"] if importlib.util.find_spec("cairosvg") else []
    assert env.metadata["render_modes"] == ["ansi", "human", *rgb]
    assert env.metadata["is_parallelizable"] is False
    assert env.metadata["encoder_version"] == env.encoder.version
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        space = env.observation_space(agent)
        assert space["observation"].shape == (env.encoder.size,)
        assert space["action_mask"].shape == (env.encoder.num_actions,)
    # The encoder's named pieces tile the vector exactly.
    covered = sorted((p.start, p.start + p.size) for p in env.encoder.pieces.values())
    assert covered[0][0] == 0 and covered[-1][1] == env.encoder.size
    assert all(a[1] == b[0] for a, b in zip(covered, covered[1:]))
    assert module.GAME.name in env.encoder.describe()


@pytest.mark.parametrize("module,config", CASES)
def test_observation_size_depends_only_on_config(module, config):
    env = module.env(**config)
    sizes = set()
    for seed in range(3):
        env.reset(seed=seed)
        for _agent in env.agent_iter(max_iter=400):
            obs, _, term, trunc, _ = env.last()
            sizes.add(obs["observation"].shape)
            assert env.observation_space(env.agent_selection).contains(obs)
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[0]))
    assert sizes == {(env.encoder.size,)}


@pytest.mark.parametrize("module,config", CASES)
def test_render(module, config, capsys):
    env = module.env(render_mode="ansi", **config)
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and len(text.splitlines()) >= 3
    human = module.env(render_mode="human", **config)
    human.reset(seed=0)  # human mode renders after every reset and step
    assert capsys.readouterr().out.strip() == text.strip()
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()
    with pytest.raises(ValueError, match="render_mode"):
        module.env(render_mode="rgb_array_list", **config)  # a Gymnasium mode we do not draw


@pytest.mark.parametrize("module,config", CASES)
def test_registry_and_make(module, config):
    plain = module.GAME.name
    env_id = f"cardzoo/{plain}-v{module.GAME.version}"
    env = pettingzoo.make("aec", env_id, **config)
    assert env.metadata["name"] == module.GAME.env_name
    assert type(make(plain, **config)) is type(env)
    assert type(make(module.GAME.env_name, **config)) is type(env)
    with pytest.raises(ValueError, match="unknown game"):
        make("no_such_game")


@pytest.mark.parametrize("module,config", CASES)
def test_env_is_not_slower_than_raw_env_by_construction(module, config):
    # env() adds no wrapper layers: its checks are inline, so it is the same class.
    assert type(module.env(**config)) is module.raw_env
