"""Each RL library's own documented PettingZoo route, run on our envs, so these stay working.

- Stable-Baselines3 + sb3-contrib: the route of PettingZoo's SB3 action-masking tutorial (an AEC
  env seen as one Gymnasium env whose current agent changes every step, masks through
  ``ActionMasker``) with ``MaskablePPO`` learning a few hundred steps on float32 observations.
- TorchRL: ``PettingZooWrapper(use_mask=True)`` and a short masked random rollout.
"""

from __future__ import annotations

import gymnasium
import pettingzoo.utils
import pytest
from cardzoo.envs import games

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
