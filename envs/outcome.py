"""How a game ended, defined once: rewards, winners, teams, each seat's result and the end reason.

Every place that reads the end of a game uses :func:`outcome` (or :meth:`Outcome.illegal_action`):
the PettingZoo env (``CardGameEnv.outcome()``), the batched training env, evaluation and
tournaments. It needs only the rules engine, so search code can use it without an env.

End reasons are names: the engine's ``END_REASONS`` plus the env's :data:`ENV_END_REASONS`
(``"illegal_action"``, ``"truncated"``). Never find one by its position in a tuple.

A seat's *result* (:meth:`Outcome.result`) is ``"win"`` when it is the only winner, ``"draw"``
when it shares the victory, when nobody won or when the game was truncated, and ``"loss"``
otherwise. :meth:`Outcome.team_result` judges sides instead of seats: a partnership that wins
together has won. With no partnerships both agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: The env's own end reasons, after the engine's ``END_REASONS``.
END_ILLEGAL_ACTION = "illegal_action"
END_TRUNCATED = "truncated"
ENV_END_REASONS = (END_ILLEGAL_ACTION, END_TRUNCATED)

#: Reward schemes (the env's ``reward=`` option).
REWARD_MODES = ("win_loss", "score")

#: A seat's (or a side's) result, in this order wherever results are counted.
WIN, DRAW, LOSS = "win", "draw", "loss"
RESULTS = (WIN, DRAW, LOSS)


def win_loss_rewards(winners: tuple[int, ...], num_players: int) -> tuple[float, ...]:
    """Winners share +1 and losers share -1; nobody or everybody winning is a draw (all 0)."""
    k = len(winners)
    if k == 0 or k == num_players:
        return (0.0,) * num_players
    win, lose = 1.0 / k, -1.0 / (num_players - k)
    return tuple([win if q in winners else lose for q in range(num_players)])


def score_rewards(scores: tuple[float, ...]) -> tuple[float, ...]:
    """Each seat's score minus the mean score of the others (zero-sum)."""
    n = len(scores)
    total = sum(scores)
    return tuple(float(s - (total - s) / (n - 1)) for s in scores)


@dataclass(frozen=True)
class Outcome:
    """The end of one game. Build it with :func:`outcome` or :meth:`illegal_action`."""

    #: Why the game ended: one of the engine's ``END_REASONS`` or :data:`ENV_END_REASONS`.
    end_reason: str
    #: Winning seats (empty: nobody won, the game was truncated, or ended by an illegal move).
    winners: tuple[int, ...]
    #: Final reward per seat, for the reward scheme it was built with.
    rewards: tuple[float, ...]
    #: The sides, each a tuple of seats sharing one result (``State.teams()``).
    teams: tuple[tuple[int, ...], ...]
    #: The seat whose illegal move ended the game (``end_reason == "illegal_action"``), else -1.
    offender: int = -1

    @classmethod
    def illegal_action(cls, state: Any, offender: int) -> Outcome:
        """The game ended because ``offender`` tried an illegal move: it gets -1, others 0."""
        n = state.num_players
        rewards = tuple(-1.0 if q == offender else 0.0 for q in range(n))
        return cls(END_ILLEGAL_ACTION, (), rewards, tuple(state.teams()), offender)

    @property
    def num_players(self) -> int:
        return len(self.rewards)

    @property
    def truncated(self) -> bool:
        """Cut by a truncation cap (``max_turns``, ...) rather than ended by the rules."""
        return self.end_reason == END_TRUNCATED

    def winners_vector(self) -> np.ndarray:
        """int8 0/1 vector over seats: 1 for each winner (the env's ``infos["winners"]``)."""
        vector = np.zeros(self.num_players, dtype=np.int8)
        vector[list(self.winners)] = 1
        return vector

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The side ``seat`` belongs to."""
        for team in self.teams:
            if seat in team:
                return team
        raise ValueError(f"seat {seat!r} is in no team of {self.teams}")

    @property
    def winning_teams(self) -> tuple[tuple[int, ...], ...]:
        """The sides with at least one winner."""
        winners = self.winners
        return tuple(t for t in self.teams if any(q in winners for q in t))

    def result(self, seat: int) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for ``seat`` (see the module docstring).

        Judged seat by seat: partners who win together each get ``"draw"`` (a shared victory);
        :meth:`team_result` counts that as a win.
        """
        self._check_seat(seat)
        return self._judge(seat == self.offender, self.winners, seat)

    def team_result(self, seat: int) -> str:
        """The result of ``seat``'s side: ``"win"`` if it is the only side with a winner,
        ``"draw"`` if it shares the victory with another side or nobody won, else ``"loss"``."""
        self._check_seat(seat)
        team = self.team_of(seat)
        return self._judge(self.offender in team, self.winning_teams, team)

    def _judge(self, offended: bool, winning: tuple, side: Any) -> str:
        """One rule for a seat and for a side: an illegal move loses for its side (the others
        draw); otherwise the only winning side wins, a shared victory or no winner is a draw."""
        if self.offender >= 0:
            return LOSS if offended else DRAW
        if not winning:
            return DRAW
        if side in winning:
            return WIN if len(winning) == 1 else DRAW
        return LOSS

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise ValueError(f"seat must be an int 0..{self.num_players - 1}, got {seat!r}")
        if not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be 0..{self.num_players - 1}, got {seat!r}")


def outcome(state: Any, reward: str = "win_loss") -> Outcome:
    """The outcome of a finished game: ended by the rules (``state.terminal``) or cut by its
    truncation cap (``state.truncated``: everyone gets 0, nobody wins).

    ``reward`` is ``"win_loss"`` (winners share +1, losers share -1) or ``"score"`` (each seat's
    ``scores()`` minus the mean of the others). Raises ``ValueError`` while the game goes on.
    """
    if reward not in REWARD_MODES:
        raise ValueError(f"invalid reward {reward!r}; allowed: {list(REWARD_MODES)}")
    n = state.num_players
    if state.terminal:
        winners = tuple(state.winners())
        if reward == "score":
            rewards = score_rewards(state.scores())
        else:
            rewards = win_loss_rewards(winners, n)
        return Outcome(state.end_reason, winners, rewards, tuple(state.teams()))
    if state.truncated:
        return Outcome(END_TRUNCATED, (), (0.0,) * n, tuple(state.teams()))
    raise ValueError("the game is still going on: it has no outcome yet")
