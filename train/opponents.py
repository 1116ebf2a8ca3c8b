"""The players of the seats a learner does not hold, decided many games at a time.

A :class:`Table` is one game in progress: the rules engine, who plays each seat, and the game's own
random stream. Every random choice made for a table (the deal, the learner's seat, the opponents,
their sampled moves) comes from that stream, so a game played alone and the same game played in a
batch of many go exactly the same way.

An opponent decides for a whole group of tables at once (:meth:`Opponent.act_batch`): a policy
network does one forward pass for the group; agents of the ``Agent`` protocol (heuristics) are
asked table by table, each table holding its own seeded instance.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cardzoo.agents import Seat, make_agent
from cardzoo.agents.policy import NumpyActor
from cardzoo.envs.core import child_seed


class Table:
    """One game: engine ``state``, the player of each seat (``None``: the learner), an RNG."""

    __slots__ = ("new_game", "state", "rng", "seats", "learner", "agents", "steps", "names")

    def __init__(self, new_game: Callable[[int], Any], rng: np.random.Generator) -> None:
        self.new_game = new_game  # game seed -> a freshly dealt engine state
        self.rng = rng
        self.state: Any = None
        self.seats: list[Opponent | None] = []
        self.learner = -1  # the learner's seat, -1 when every seat is played by an opponent
        self.agents: dict[str, Any] = {}  # spec -> this table's own agent instance
        self.steps = 0  # learner decisions in the current game
        self.names: tuple[str, ...] = ()  # opponents of the current game, in seat order

    def deal(
        self,
        pool: Any,
        learner_seat: int | None,
        learner: Opponent | None = None,
        partner: Opponent | None = None,
    ) -> None:
        """A new game from this table's stream: the deal, the learner's seat (random unless
        ``learner_seat`` is given), then one opponent per other seat drawn from ``pool``.

        ``learner`` plays the learner's seat inside the batch (evaluation); ``None`` leaves it
        to the caller. ``partner`` (if given) plays the seats of the learner's partners
        (``state.teams()``), which then draw nothing from the pool and are not in ``names``;
        in a game without partnerships it changes nothing.
        """
        rng = self.rng
        self.state = state = self.new_game(child_seed(rng))
        n = state.num_players
        seat = int(rng.integers(n)) if learner_seat is None else learner_seat
        self.learner = seat
        partners: tuple[int, ...] = ()
        if partner is not None:
            partners = next(t for t in state.teams() if seat in t)
        self.seats = [
            learner if s == seat else partner if s in partners else pool.sample(rng)
            for s in range(n)
        ]
        self.names = tuple(
            p.name for s, p in enumerate(self.seats) if s != seat and s not in partners
        )
        self.steps = 0

    def player_to_act(self) -> Opponent | None:
        return self.seats[self.state.current_player]


class Opponent:
    """Plays seats of many tables: ``act_batch`` returns one action id per table, each table's
    acting seat being ``table.state.current_player``."""

    name: str = "opponent"

    def act_batch(self, tables: list[Table], encoder: Any) -> list[int]:
        raise NotImplementedError


class RandomOpponent(Opponent):
    """Uniform over the legal moves, drawn from each table's stream."""

    name = "random"

    def act_batch(self, tables: list[Table], encoder: Any) -> list[int]:
        actions = []
        for t in tables:
            legal = t.state.legal_move_ids()
            actions.append(legal[int(t.rng.integers(len(legal)))])
        return actions


class AgentOpponent(Opponent):
    """Any agent spec of :func:`cardzoo.agents.make_agent` (e.g. ``"heuristic"``).

    Each table gets its own instance the first time it meets this opponent, seeded from the
    table's stream, so results do not depend on how tables are grouped.
    """

    def __init__(self, spec: str, game: str) -> None:
        make_agent(spec, game)  # fail now on a bad spec, not in the middle of a rollout
        self.name = spec
        self.spec = spec
        self.game = game

    def act_batch(self, tables: list[Table], encoder: Any) -> list[int]:
        actions = []
        for t in tables:
            agent = t.agents.get(self.spec)
            if agent is None:
                seed = child_seed(t.rng)
                agent = t.agents[self.spec] = make_agent(self.spec, self.game, seed=seed)
            state = t.state
            seat = state.current_player
            obs = encoder.encode(state, seat)
            actions.append(int(agent.act(obs, encoder.mask(state), seat=Seat(state, seat))))
        return actions


def actor_from_sb3(policy: Any) -> NumpyActor:
    """A numpy copy of the actor of an SB3 ``ActorCriticPolicy`` with a flat observation."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    extractor = policy.pi_features_extractor
    if not isinstance(extractor, FlattenExtractor):
        raise ValueError(f"only flat observations are supported, got {type(extractor).__name__}")
    layers = []
    activation = None
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, nn.Linear):
            layers.append(_linear(module))
        elif isinstance(module, (nn.Tanh, nn.ReLU)):
            kind = "tanh" if isinstance(module, nn.Tanh) else "relu"
            if activation not in (None, kind):
                raise ValueError("mixed activations are not supported")
            activation = kind
        else:
            raise ValueError(f"unsupported layer in the policy network: {module}")
    layers.append(_linear(policy.action_net))
    return NumpyActor(layers, activation or "tanh")


def _linear(module: Any) -> tuple[np.ndarray, np.ndarray]:
    w = module.weight.detach().cpu().numpy().T.copy()
    b = module.bias.detach().cpu().numpy().copy()
    return w, b


class PolicyOpponent(Opponent):
    """A policy network: one forward pass per group of tables, moves sampled from its
    distribution (or its most likely move when ``deterministic``)."""

    def __init__(self, name: str, actor: NumpyActor, deterministic: bool = False) -> None:
        self.name = name
        self.actor = actor
        self.deterministic = deterministic
        self._obs: np.ndarray | None = None
        self._masks: np.ndarray | None = None

    def act_batch(self, tables: list[Table], encoder: Any) -> list[int]:
        g = len(tables)
        if self._obs is None or len(self._obs) < g or self._obs.shape[1] != encoder.size:
            self._obs = np.zeros((max(g, 8), encoder.size), dtype=encoder.dtype)
            self._masks = np.zeros((max(g, 8), encoder.num_actions), dtype=np.int8)
        obs, masks = self._obs[:g], self._masks[:g]
        for i, t in enumerate(tables):
            state = t.state
            encoder.encode_to(state, state.current_player, obs[i])
            encoder.mask_to(state, masks[i])
        rngs = None if self.deterministic else [t.rng for t in tables]
        return self.actor.act(obs, masks, rngs, self.deterministic)


def state_factory(module: Any, config: Any) -> Any:
    """game seed -> engine state, dealt as the PettingZoo env's ``reset(seed=...)`` deals it."""
    state_cls = module.GAME.state_cls

    def new_game(seed: int) -> Any:
        return state_cls(config, seed=child_seed(np.random.default_rng(seed)))

    return new_game


def make_opponent(spec: str | Opponent, game: str) -> Opponent:
    """An opponent from a spec: ``"random"``, any other agent spec, or an :class:`Opponent`."""
    if isinstance(spec, Opponent):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"an opponent is a spec string or an Opponent, got {spec!r}")
    if spec == "random":
        return RandomOpponent()
    return AgentOpponent(spec, game)
