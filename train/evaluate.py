"""Batched, seat-rotated evaluation of a policy against a fixed opponent.

Many games are played side by side; in each round the policy decides for every game where it is
to move in one forward pass, and each opponent for its group of games. Game ``g`` is dealt from
``(seed, g)`` alone and the policy sits in seat ``g % N``, so every evaluation of a run sees the
same deals and the same seat balance. Outcomes are counted as in tournaments
(:class:`~cardzoo.train.tournament.WinDrawLoss`): a *win* is being the only winner; a *draw* is a
shared victory, a game nobody won, or a truncated game.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from cardzoo.agents.policy import NumpyActor
from cardzoo.envs import load
from cardzoo.envs.outcome import outcome
from cardzoo.train.opponents import PolicyOpponent, Table, state_factory
from cardzoo.train.pool import OpponentPool
from cardzoo.train.tournament import WinDrawLoss

#: Games for a 95% interval of at most +-5 points at any win rate (1.96^2 / (4 * 0.05^2) = 385).
DEFAULT_EVAL_GAMES = 400


@dataclass
class EvalResult(WinDrawLoss):
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_length: float  # learner decisions per game

    def to_dict(self) -> dict[str, Any]:
        low, high = self.interval
        return {**asdict(self), "win_rate": self.win_rate, "ci_low": low, "ci_high": high}


def evaluate(
    game: str,
    actor: NumpyActor,
    opponent: str,
    games: int = DEFAULT_EVAL_GAMES,
    num_players: int | None = None,
    seed: int = 0,
    deterministic: bool = True,
    batch: int = 64,
    env_options: dict[str, Any] | None = None,
) -> EvalResult:
    """Play ``games`` games of ``actor`` (one seat) against ``opponent`` (every other seat)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    module = load(game)
    if num_players is None:
        num_players = min(module.GAME.player_counts)
    env = module.raw_env(num_players=num_players, **(env_options or {}))
    encoder = env.encoder
    if actor.obs_size != encoder.size or actor.num_actions != encoder.num_actions:
        raise ValueError(
            f"the policy takes {actor.obs_size} inputs and {actor.num_actions} actions; "
            f"{module.GAME.env_name} at {num_players} players has {encoder.size} and "
            f"{encoder.num_actions}"
        )
    n = env.config.num_players
    new_game = state_factory(module, env.config)
    pool = OpponentPool.fixed([opponent], module.GAME.name)
    learner = PolicyOpponent("policy", actor, deterministic)
    result = EvalResult(opponent, 0, 0, 0, 0, 0.0)
    decisions = 0
    next_game = 0

    def start() -> Table | None:
        nonlocal next_game
        if next_game >= games:
            return None
        g = next_game
        next_game += 1
        table = Table(new_game, np.random.default_rng([seed, g]))
        table.deal(pool, g % n, learner)
        return table

    active = [t for t in (start() for _ in range(min(batch, games))) if t is not None]
    while active:
        groups: dict[int, tuple[Any, list[Table]]] = {}
        for t in active:
            player = t.seats[t.state.current_player]
            groups.setdefault(id(player), (player, []))[1].append(t)
        for player, tables in groups.values():
            actions = player.act_batch(tables, encoder)
            for t, a in zip(tables, actions):
                t.state.apply_id(a)
            if player is learner:
                decisions += len(tables)
        still = []
        for t in active:
            state = t.state
            if state.terminal or state.truncated:
                result.count(outcome(state).result(t.learner))
                t = start()
            if t is not None:
                still.append(t)
        active = still
    result.mean_length = decisions / games
    return result
