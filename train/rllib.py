"""cardzoo games on RLlib's new API stack: a ``MultiAgentEnv`` and an action-masking PPO module.

Needs the ``ray`` extra (``pip install 'cardzoo[ray]'``, RLlib pinned). See docs/ray.md.

- :class:`CardzooMultiAgentEnv`: any game and player count. Only the seat to act reports an
  observation (``{"observation": float32 vector, "action_mask": float32 0/1}``); when the game
  ends, every seat gets its final observation and reward, whoever made the last move, so each
  seat's last action is credited with the result.
- :class:`MaskedPPOTorchRLModule`: RLlib's default PPO network on the observation alone, with the
  logits of illegal actions pushed to the float minimum (they are never sampled). With
  ``model_config={"mask_as_input": True}`` the mask is also fed to the network.
- :class:`RandomMaskedRLModule`: a uniformly random legal action (a baseline and league member).
- The heuristic as a league member: it needs the game state, which an RLModule never sees, so the
  env plays it. :func:`hand_env_seats` (an ``on_episode_created`` callback, set by
  :func:`ppo_config`) asks the policy mapping for every seat of the new episode and hands the
  seats mapped to :data:`HEURISTIC` to the env before it deals; the env then makes their moves
  itself and they never reach RLlib (no observation, action or reward).
- :func:`ppo_config`: a ``PPOConfig`` wired for one game (spaces, modules, policy mapping).
- :func:`export_policy`: the trained policy's actor as plain numpy arrays, which the agent spec
  ``rllib:PATH`` (:mod:`cardzoo.agents.rllib_policy`) plays without Ray.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from cardzoo.agents import HEURISTICS, Seat, make_agent
from cardzoo.agents.rllib_policy import EXPORT_FILE, EXPORT_FORMAT
from cardzoo.envs import load
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

#: The module id of the policy being trained.
MAIN = "main"
#: The module id of the random baseline.
RANDOM = "random"
#: The "module id" of the seats the env plays itself with the game's heuristic (no RLModule).
HEURISTIC = "heuristic"
#: Deals tried at reset before giving up when the env-played seats end every game before an
#: RLlib-played seat is to move (in practice the first deal always reaches one).
MAX_DEALS = 100


def _env_options(config: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(game module, env keyword arguments) from an env config dict; unknown keys fail."""
    known = {"game", "players", "options", "reward", "illegal_action"}
    unknown = sorted(set(config) - known)
    if unknown:
        raise ValueError(f"unknown cardzoo env config key(s) {unknown}; known: {sorted(known)}")
    if "game" not in config:
        raise ValueError("the env config needs a game, e.g. {'game': 'beasty_bar'}")
    module = load(config["game"])
    players = config.get("players") or min(module.GAME.player_counts)
    kwargs = {
        **dict(config.get("options") or {}),
        "num_players": players,
        "obs_dtype": "float32",
        "reward": config.get("reward", "win_loss"),
        "illegal_action": config.get("illegal_action", "raise"),
    }
    return module, kwargs


class CardzooMultiAgentEnv(MultiAgentEnv):
    """A cardzoo game as an RLlib ``MultiAgentEnv`` (new API stack).

    ``config``: ``game`` (plain or versioned name), ``players`` (default: the game's smallest
    count), ``options`` (rule options dict), ``reward`` (``"win_loss"`` or ``"score"``) and
    ``illegal_action`` (``"raise"``, the default, or ``"terminate"``). Agent ids are the
    PettingZoo ones, ``player_0`` ... ``player_{N-1}``.

    ``reset``/``step`` return an observation for the seat to act only. When the game ends
    (terminated or truncated), every seat gets its last observation (mask all zeros) and its
    final reward in the same step, with ``__all__`` done. An action for a seat that is not to
    act, or an illegal one, raises ``ValueError`` and the game is left as it was.

    :meth:`play_seats` names seats that the env plays itself with the game's heuristic in the
    next episode (see :func:`hand_env_seats`): their moves are made inside ``reset``/``step``
    on the engine state, and those seats never appear in what the env returns, not even at the
    end (only the RLlib-played seats get their final observation and reward).
    """

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        module, kwargs = _env_options(dict(config or {}))
        self.env = module.raw_env(**kwargs)
        self.game = module.GAME.name
        self.num_players = self.env.config.num_players
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        encoder = self.env.encoder
        space = gym.spaces.Dict(
            {
                "observation": gym.spaces.Box(
                    0.0, np.asarray(encoder.high, np.float32), (encoder.size,), np.float32
                ),
                "action_mask": gym.spaces.Box(0.0, 1.0, (encoder.num_actions,), np.float32),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {
            a: gym.spaces.Discrete(encoder.num_actions) for a in self.possible_agents
        }
        self.env_seats: frozenset[str] = frozenset()  # played by the env in this episode
        self._next_env_seats: frozenset[str] = frozenset()
        self._heuristic: Any = None

    def play_seats(self, agents: Any) -> None:
        """Let the env play ``agents`` (agent ids) with the heuristic in the next episode only;
        every other seat is RLlib's. Fails on an unknown id, when no seat would be left to RLlib,
        or when the game has no heuristic."""
        agents = frozenset(agents)
        unknown = sorted(agents - set(self.possible_agents))
        if unknown:
            raise ValueError(f"play_seats: unknown agent id(s) {unknown}; {self.possible_agents}")
        if agents and len(agents) == len(self.possible_agents):
            raise ValueError("play_seats: at least one seat must be left to RLlib")
        if agents and self.game not in HEURISTICS:
            raise ValueError(f"play_seats: {self.game} has no heuristic agent")
        self._next_env_seats = agents

    def _play_env_seats(self) -> None:
        """Make the moves of the env-played seats until an RLlib seat is to act or the game
        ends; the heuristic decides on the engine state through its seat handle."""
        env = self.env
        while env.outcome() is None and env.agent_selection in self.env_seats:
            seat = env.seat_of(env.agent_selection)
            raw = env.observe(env.agent_selection)
            action = self._heuristic.act(
                raw["observation"], raw["action_mask"], seat=Seat(env.game_state, seat)
            )
            env.step(int(action))

    def _obs(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(agent)
        return {
            "observation": raw["observation"],
            "action_mask": raw["action_mask"].astype(np.float32),
        }

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.env_seats, self._next_env_seats = self._next_env_seats, frozenset()
        if self.env_seats and (self._heuristic is None or seed is not None):
            self._heuristic = make_agent(HEURISTIC, self.game, seed=seed)
        for _ in range(MAX_DEALS):
            self.env.reset(seed=seed)
            self._play_env_seats()
            if self.env.outcome() is None:
                break
            seed = None if seed is None else seed + 1  # over before RLlib moved: deal again
        else:
            raise RuntimeError(f"{MAX_DEALS} deals ended before an RLlib-played seat was to act")
        self.agents = [a for a in self.possible_agents if a not in self.env_seats]
        agent = self.env.agent_selection
        return {agent: self._obs(agent)}, {}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        env = self.env
        if env.game_state is None:
            raise ValueError("step() called before reset(); call reset() first")
        if env.outcome() is not None:
            raise ValueError("step() called after the game ended; call reset() first")
        agent = env.agent_selection
        if set(action_dict) != {agent}:
            raise ValueError(
                f"expected an action for {agent} only (the seat to act), got actions for "
                f"{sorted(action_dict)}"
            )
        env.step(int(action_dict[agent]))  # an illegal action raises; the state is unchanged
        self._play_env_seats()
        result = env.outcome()
        if result is None:
            nxt = env.agent_selection
            return {nxt: self._obs(nxt)}, {agent: 0.0}, {"__all__": False}, {"__all__": False}, {}
        # The game is over: every RLlib-played seat's final observation and reward in this step.
        mine = [a for a in self.possible_agents if a not in self.env_seats]
        obs = {a: self._obs(a) for a in mine}
        rewards = {a: float(result.rewards[env.seat_of(a)]) for a in mine}
        done = {a: True for a in mine}
        not_done = {a: False for a in mine}
        if result.truncated:
            terminateds, truncateds = {**not_done, "__all__": False}, {**done, "__all__": True}
        else:
            terminateds, truncateds = {**done, "__all__": True}, {**not_done, "__all__": False}
        infos = {a: {"result": result.result(env.seat_of(a))} for a in mine}
        self.agents = []
        return obs, rewards, terminateds, truncateds, infos


def _model_option(model_config: Any, key: str, default: Any) -> Any:
    if model_config is None:
        return default
    if isinstance(model_config, dict):
        return model_config.get(key, default)
    return getattr(model_config, key, default)


def _split(batch: dict[str, Any], mask_as_input: bool) -> tuple[Any, dict[str, Any]]:
    """(action mask, a shallow copy of ``batch`` whose observation is the network input)."""
    obs = batch[Columns.OBS]
    mask = obs["action_mask"]
    net_input = obs["observation"]
    if mask_as_input:
        import torch

        net_input = torch.cat([net_input, mask], dim=-1)
    return mask, {**batch, Columns.OBS: net_input}


def _masked(output: dict[str, Any], mask: Any) -> dict[str, Any]:
    import torch

    # log(1) = 0 keeps a legal logit; log(0) = -inf, clamped to the float minimum so that
    # softmax and the entropy stay finite, makes an illegal action's probability zero.
    output[Columns.ACTION_DIST_INPUTS] = output[Columns.ACTION_DIST_INPUTS] + torch.clamp(
        torch.log(mask), min=FLOAT_MIN
    )
    return output


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module with illegal actions masked out of the logits.

    The observation space must be a Dict with ``observation`` and ``action_mask`` (what
    :class:`CardzooMultiAgentEnv` reports). The networks see ``observation`` only, unless
    ``model_config["mask_as_input"]`` is true (then the mask is appended to it).
    """

    def __init__(
        self,
        *,
        observation_space: gym.Space | None = None,
        action_space: gym.Space | None = None,
        inference_only: bool | None = None,
        learner_only: bool = False,
        model_config: Any = None,
        catalog_class: Any = None,
        **kwargs: Any,
    ) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space) != {
            "observation",
            "action_mask",
        }:
            raise ValueError(
                "MaskedPPOTorchRLModule needs a Dict observation space with the keys "
                f"'observation' and 'action_mask', got {observation_space}"
            )
        self.mask_as_input = bool(_model_option(model_config, "mask_as_input", False))
        self.observation_space_with_mask = observation_space
        inner = observation_space["observation"]
        if self.mask_as_input:
            size = inner.shape[0] + observation_space["action_mask"].shape[0]
            inner = gym.spaces.Box(-np.inf, np.inf, (size,), np.float32)
        # The parent builds its networks for the plain observation (or observation + mask).
        super().__init__(
            observation_space=inner,
            action_space=action_space,
            inference_only=inference_only,
            learner_only=learner_only,
            model_config=model_config,
            catalog_class=catalog_class,
            **kwargs,
        )

    def setup(self) -> None:
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch, self.mask_as_input)
        return _masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch, self.mask_as_input)
        return _masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            _, batch = _split(batch, self.mask_as_input)
        return super().compute_values(batch, embeddings)


def _as_numpy(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


class RandomMaskedRLModule(RLModule):
    """A uniformly random legal action; never trained (keep it out of ``policies_to_train``)."""

    def setup(self) -> None:
        self._rng = np.random.default_rng()

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        masks = _as_numpy(batch[Columns.OBS]["action_mask"]) > 0
        actions = np.empty(len(masks), dtype=np.int64)
        for row, legal in enumerate(masks):
            actions[row] = self._rng.choice(np.flatnonzero(legal))
        return {Columns.ACTIONS: actions}

    def _forward_train(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError("the random module is not trained")

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Nothing to compile (RLlib calls this on every module of a torch learner)."""


def module_spec(hidden: list[int] | tuple[int, ...] = (256, 256), **model: Any) -> RLModuleSpec:
    """The spec of the masked PPO module: MLP actor and critic with ``hidden`` layers (tanh),
    a single linear policy head (what :func:`export_policy` reads)."""
    return RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={
            "fcnet_hiddens": list(hidden),
            "fcnet_activation": "tanh",
            "head_fcnet_hiddens": [],
            "vf_share_layers": False,
            **model,
        },
    )


def random_spec() -> RLModuleSpec:
    return RLModuleSpec(module_class=RandomMaskedRLModule)


def env_config(
    game: str, players: int | None = None, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The env config of :class:`CardzooMultiAgentEnv` (checked by building one env)."""
    config = {"game": game, "players": players, "options": dict(options or {})}
    probe = CardzooMultiAgentEnv(config)
    config["game"], config["players"] = probe.game, probe.num_players
    return config


def main_vs(opponent: str, seats: int) -> Callable[..., str]:
    """A policy mapping: one seat per episode plays ``main`` (which one follows the episode id,
    so every seat gets its share), every other seat plays ``opponent``."""

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[1])
        return MAIN if hash(episode.id_) % seats == seat else opponent

    return mapping


def self_play_mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
    """Every seat plays ``main`` (pure self-play)."""
    return MAIN


def hand_env_seats(*, episode: Any, env: Any, env_index: int, **kwargs: Any) -> None:
    """RLlib's ``on_episode_created`` callback: the policy mapping decides every seat of the new
    episode now, and the seats it gives :data:`HEURISTIC` go to the env, which plays them itself
    (RLlib creates the episode before the sub-env deals it, on the first and every later reset).
    """
    subs = getattr(env, "envs", None)  # RLlib's vector env of MultiAgentEnvs
    sub = subs[env_index].unwrapped if subs is not None else getattr(env, "unwrapped", env)
    if isinstance(sub, CardzooMultiAgentEnv):
        sub.play_seats(a for a in sub.possible_agents if episode.module_for(a) == HEURISTIC)


def ppo_config(
    env: dict[str, Any],
    *,
    modules: dict[str, RLModuleSpec] | None = None,
    mapping: Callable[..., str] = self_play_mapping,
    num_env_runners: int = 0,
    num_learners: int = 0,
    envs_per_runner: int = 1,
    hidden: list[int] | tuple[int, ...] = (256, 256),
    seed: int | None = 0,
    train_batch_size: int = 4000,
    minibatch_size: int = 256,
    num_epochs: int = 4,
    lr: float = 3e-4,
) -> PPOConfig:
    """A PPO config for one cardzoo game: ``main`` (masked PPO, trained) plus ``modules``
    (frozen ones, e.g. ``{"random": random_spec()}``), chosen per agent by ``mapping``. A seat
    that ``mapping`` gives :data:`HEURISTIC` (no module needed) is played by the env with the
    game's heuristic (:func:`hand_env_seats`).

    RLlib's env pre-check is off: it steps with unmasked random actions, which a card game
    rejects as illegal (the env itself is tested in tests/integration/test_rllib.py).
    """
    specs = {MAIN: module_spec(hidden), **(modules or {})}
    return (
        PPOConfig()
        .environment(CardzooMultiAgentEnv, env_config=env, disable_env_checking=True)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=envs_per_runner,
            num_cpus_per_env_runner=1,
            # RLlib drops a sample that takes over 60 s by default (0 steps in the iteration);
            # a big batch on a busy or small runner takes longer, so wait for it.
            sample_timeout_s=None,
        )
        .learners(num_learners=num_learners, num_cpus_per_learner=1 if num_learners else "auto")
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .callbacks(on_episode_created=hand_env_seats)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=lr,
        )
        .debugging(seed=seed)
    )


def _linear_layers(module: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The actor's dense layers (W as (in, out), b) and its hidden activation name."""
    import torch

    layers, activations = [], set()
    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder  # separate or shared
    for part in (actor, module.pi):
        for layer in part.modules():
            if isinstance(layer, torch.nn.Linear):
                w = layer.weight.detach().cpu().numpy().T
                b = layer.bias.detach().cpu().numpy()
                layers.append((w, b))
            elif isinstance(layer, torch.nn.Tanh):
                activations.add("tanh")
            elif isinstance(layer, torch.nn.ReLU):
                activations.add("relu")
            elif isinstance(layer, (torch.nn.LayerNorm, torch.nn.Dropout)):
                raise ValueError(f"cannot export a policy with {type(layer).__name__} layers")
    if len(activations) > 1:
        raise ValueError(f"cannot export a policy mixing activations {sorted(activations)}")
    return layers, activations.pop() if activations else "tanh"


def export_policy(module: Any, folder: str, env: dict[str, Any], **info: Any) -> str:
    """Write ``module``'s actor (a :class:`MaskedPPOTorchRLModule`) to ``folder/policy.npz``
    with what it was trained for; returns the file. ``rllib:folder`` plays it."""
    game_env = load(env["game"]).raw_env(
        num_players=env["players"], **dict(env.get("options") or {})
    )
    layers, activation = _linear_layers(module)
    meta = {
        "format": EXPORT_FORMAT,
        "env_name": game_env.game.env_name,
        "game": game_env.game.name,
        "num_players": game_env.config.num_players,
        "options": dict(env.get("options") or {}),
        "encoder": game_env.metadata["encoder"],
        "encoder_version": game_env.encoder.version,
        "mask_as_input": bool(getattr(module, "mask_as_input", False)),
        "activation": activation,
        **info,
    }
    os.makedirs(folder, exist_ok=True)
    arrays = {f"w{i}": w for i, (w, _) in enumerate(layers)}
    arrays.update({f"b{i}": b for i, (_, b) in enumerate(layers)})
    path = os.path.join(folder, EXPORT_FILE)
    tmp = os.path.join(folder, "policy.tmp.npz")
    np.savez(tmp, meta=np.array(json.dumps(meta)), **arrays)
    os.replace(tmp, path)  # a reader never sees half a file
    return path
