"""Batched, seat-rotated evaluation of a policy against a fixed opponent.

Many games are played side by side; in each round the policy decides for every game where it is
to move in one forward pass, and each opponent for its group of games. Game ``g`` is dealt from
``(seed, g)`` alone and the policy sits in seat ``g % N``, so every evaluation of a run sees the
same deals and the same seat balance. Outcomes are counted as in tournaments
(:class:`~cardzoo.train.tournament.WinDrawLoss`), side by side: a *win* is being the only winning
side; a *draw* is a victory shared between sides, a game nobody won, or a truncated game.

In a team game the policy plays its partners' seats too (the team is the policy) and the
opponent every other seat, so the win rate is the team's, against a fair share of one over the
number of sides (:attr:`EvalResult.fair_share`). Mean rank, score and score margin are kept as
in tournaments (:func:`~cardzoo.train.tournament.side_places`).
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
from cardzoo.train.single_agent import raw_env_for
from cardzoo.train.tournament import WinDrawLoss, side_margins, side_places, side_score

#: Games for a 95% interval of at most +-5 points at any win rate (1.96^2 / (4 * 0.05^2) = 385).
DEFAULT_EVAL_GAMES = 400


@dataclass
class EvalResult(WinDrawLoss):
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    mean_length: float  # learner decisions per game (the learner's own seat)
    mean_rank: float = 0.0  # the policy's side's finishing place, 1 is first
    mean_score: float = 0.0  # the policy's side's score
    mean_margin: float = 0.0  # that score minus the mean score of the other sides
    fair_share: float = 0.0  # 1 / number of sides: the win rate of an even match

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
    """Play ``games`` games of ``actor`` (one seat and its partners' seats) against
    ``opponent`` (every other seat)."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    module = load(game)
    env = raw_env_for(module, num_players, **(env_options or {}))
    encoder = env.encoder
    n = env.config.num_players
    if actor.obs_size != encoder.size or actor.num_actions != encoder.num_actions:
        raise ValueError(
            f"the policy takes {actor.obs_size} inputs and {actor.num_actions} actions; "
            f"{module.GAME.env_name} at {n} players has {encoder.size} and "
            f"{encoder.num_actions}"
        )
    new_game = state_factory(module, env.config)
    pool = OpponentPool.fixed([opponent], module.GAME.name)
    learner = PolicyOpponent("policy", actor, deterministic)
    result = EvalResult(opponent, 0, 0, 0, 0, 0.0)
    sums = [0.0, 0.0, 0.0]  # place, score, margin of the policy's side
    decisions = 0
    next_game = 0

    def start() -> Table | None:
        nonlocal next_game
        if next_game >= games:
            return None
        g = next_game
        next_game += 1
        table = Table(new_game, np.random.default_rng([seed, g]))
        table.deal(pool, g % n, learner, partner=learner)
        return table

    active = [t for t in (start() for _ in range(min(batch, games))) if t is not None]
    while active:
        groups: dict[int, tuple[Any, list[Table]]] = {}
        for t in active:
            player = t.seats[t.state.current_player]
            groups.setdefault(id(player), (player, []))[1].append(t)
        for player, tables in groups.values():
            if player is learner:  # its own seat only, not its partners'
                decisions += sum(t.state.current_player == t.learner for t in tables)
            actions = player.act_batch(tables, encoder)
            for t, a in zip(tables, actions):
                t.state.apply_id(a)
        still = []
        for t in active:
            state = t.state
            if state.terminal or state.truncated:
                end = outcome(state)
                scores = state.scores()
                result.fair_share = 1 / len(end.teams)
                result.count(end.team_result(t.learner))
                sums[0] += side_places(end, scores)[t.learner]
                sums[1] += side_score(end.team_of(t.learner), scores)
                sums[2] += side_margins(end.teams, scores)[t.learner]
                t = start()
            if t is not None:
                still.append(t)
        active = still
    result.mean_length = decisions / games
    result.mean_rank, result.mean_score, result.mean_margin = (x / games for x in sums)
    return result
