"""Each RL library's own documented PettingZoo route, run on our envs, so these stay working.

- Stable-Baselines3 + sb3-contrib: the route of PettingZoo's SB3 action-masking tutorial (an AEC
  env seen as one Gymnasium env whose current agent changes every step, masks through
  ``ActionMasker``) with ``MaskablePPO`` learning a few hundred steps on float32 observations.
- Stable-Baselines3's ``make_vec_env`` on every registered Gymnasium id, unmodified: it asks for
  ``render_mode="rgb_array"`` and falls back on a ``TypeError``, which our ``RenderModeError`` is.
- TorchRL: ``PettingZooWrapper(use_mask=True)`` and a short masked random rollout.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo.utils
import pytest
from cardzoo.envs import games
from cardzoo.envs.base import RenderModeError

sb3_contrib = pytest.importorskip("sb3_contrib")
from sb3_contrib.common.wrappers import ActionMasker  # noqa: E402

GAMES = [pytest.param(m, id=m.GAME.env_name) for m in games()]


class TurnTakingGymView(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The SB3 tutorial's view of an AEC env: one Gymnasium env, whoever is to act plays."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        first = self.possible_agents[0]
        self.observation_space = super().observation_space(first)["observation"]
        self.action_space = super().action_space(first)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        super().step(action)
        return super().last()

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"].astype(bool)


@pytest.mark.parametrize("module", GAMES)
def test_sb3_tutorial_route_trains_maskable_ppo(module):
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    env = TurnTakingGymView(module.env(obs_dtype="float32"))
    env.reset(seed=0)
    masked = ActionMasker(env, lambda e: e.action_mask())
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", masked, n_steps=64, batch_size=32, n_epochs=1, seed=0, verbose=0
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    # The trained policy only picks legal actions when given the mask.
    obs, _ = env.reset(seed=1)
    for _ in range(20):
        mask = env.action_mask()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, _, term, trunc, _ = env.step(int(action))
        if term or trunc:
            break


@pytest.mark.parametrize("module", GAMES)
def test_torchrl_pettingzoo_wrapper_masked_rollout(module):
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(
        module.env(obs_dtype="float32"), use_mask=True, categorical_actions=True, seed=0
    )
    rollout = env.rollout(40, break_when_any_done=False)
    assert rollout.batch_size[0] == 40
    masks = [k for k in rollout.keys(True, True) if isinstance(k, tuple) and k[-1] == "mask"]
    assert masks, "the rollout must carry the action masks"


# -- Stable-Baselines3's make_vec_env on the registered Gymnasium ids -----------------------------

# Gymnasium warns that "rgb_array" is not among the view's render modes before SB3 falls back.
RGB_WARNING = "ignore:.*render_mode='rgb_array'.*:UserWarning"


def _registered_ids() -> list[str]:
    import cardzoo.train  # noqa: F401 (registers the ids)

    return sorted(i for i in gymnasium.registry if i.startswith("cardzoo/"))


def test_every_game_has_a_registered_gymnasium_id():
    from cardzoo.train.single_agent import gym_id

    assert _registered_ids() == sorted(gym_id(m) for m in games())


@pytest.mark.filterwarnings(RGB_WARNING)
def test_unsupported_render_mode_is_both_value_and_type_error():
    # A ValueError for callers that caught it before, a TypeError for SB3's fallback; Gymnasium
    # re-raises it as type(e)(message), so it must keep its class through gymnasium.make.
    for env_id in _registered_ids():
        with pytest.raises(RenderModeError, match="render_mode 'rgb_array'") as info:
            gymnasium.make(env_id, render_mode="rgb_array")
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    # The PettingZoo envs draw "rgb_array" with the render extra (tests/conformance/
    # test_render_rgb.py checks their refusal without it); a mode they never draw is refused.
    for module in games():
        with pytest.raises(RenderModeError, match="rgb_array_list"):
            module.env(render_mode="rgb_array_list")


@pytest.mark.filterwarnings(RGB_WARNING)
@pytest.mark.parametrize("env_id", _registered_ids())
def test_sb3_make_vec_env_works_with_every_registered_id(env_id):
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = make_vec_env(env_id, n_envs=4, seed=0)
    assert isinstance(vec, DummyVecEnv) and vec.num_envs == 4
    assert vec.get_attr("render_mode") == [None] * 4, "built again without a render mode"
    obs = vec.reset()
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(40):
        masks = get_action_masks(vec)  # what MaskablePPO asks for
        assert masks.shape == obs["action_mask"].shape
        assert np.array_equal(masks, obs["action_mask"]) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = vec.step(actions)
        assert rewards.shape == (4,) and np.all(np.abs(rewards) <= 1.0)
        for done, info, reward in zip(dones, infos, rewards):
            if done:
                finished += 1
                assert info["end_reason"] >= 0 and "episode" in info  # SB3's Monitor saw it
                assert info["episode"]["r"] == reward  # win/loss: one reward, at the end
            else:
                assert reward == 0.0
    if env_id == "cardzoo/BeastyBar-v0":  # 12 learner turns a game: the ends were checked
        assert finished >= 4
    vec.close()


@pytest.mark.filterwarnings(RGB_WARNING)
def test_maskable_ppo_learns_on_sb3_make_vec_env():
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("cardzoo/BeastyBar-v0", n_envs=2, seed=0)
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy", vec, n_steps=32, batch_size=32, n_epochs=1, seed=0, verbose=0
    )
    model.learn(total_timesteps=128)
    assert model.num_timesteps >= 128
    obs = vec.reset()
    from sb3_contrib.common.maskable.utils import get_action_masks

    masks = get_action_masks(vec)
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(m[a] for m, a in zip(masks, actions))
    vec.close()


@pytest.mark.filterwarnings(RGB_WARNING)
def test_sb3_make_vec_env_in_worker_processes_with_the_module_qualified_id():
    # Workers start without cardzoo.train imported; "module:id" makes Gymnasium import it.
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = make_vec_env(
        "cardzoo.train:cardzoo/BeastyBar-v0", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv
    )
    try:
        obs = vec.reset()
        masks = np.stack(vec.env_method("action_masks"))
        assert np.array_equal(masks, obs["action_mask"]) and masks.any(axis=1).all()
        obs, rewards, dones, _ = vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        assert obs["observation"].shape == (2, 169) and rewards.shape == (2,)
    finally:
        vec.close()
