"""The opponent pool of self-play: the current policy, frozen snapshots of it, and baselines.

Pure self-play tends to chase its own tail (each new policy beats the last one and forgets older
tricks); mixing in frozen snapshots and fixed baselines keeps the learner honest. Each game draws
its opponents from the pool with one uniform number of the game's own random stream.

Default mixing: 60% the current policy ("self"), 20% snapshots (uniform among them), 20%
baselines (uniform among them). An empty group's weight goes to the others in proportion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from cardzoo.train.opponents import NumpyActor, Opponent, PolicyOpponent, make_opponent

DEFAULT_WEIGHTS = (0.6, 0.2, 0.2)  # self, snapshots, baselines
SELF = "self"


class OpponentPool:
    """Who sits in the opponents' seats.

    Args:
        game: plain game name (for the baseline agents).
        baselines: agent specs always in the pool (e.g. ``("heuristic", "random")``).
        weights: mixing weights of (current policy, snapshots, baselines); need not sum to 1.
        max_snapshots: the pool keeps the newest this many snapshots.
        self_play: whether the current policy (set with :meth:`set_current`) is an opponent.
    """

    def __init__(
        self,
        game: str,
        baselines: Sequence[str | Opponent] = ("heuristic", "random"),
        weights: Sequence[float] = DEFAULT_WEIGHTS,
        max_snapshots: int = 10,
        self_play: bool = True,
    ) -> None:
        if len(weights) != 3 or any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(
                f"weights are three non-negative numbers (self, snapshots, baselines) with a "
                f"positive sum, got {tuple(weights)}"
            )
        if max_snapshots < 0:
            raise ValueError(f"max_snapshots must be >= 0, got {max_snapshots}")
        self.game = game
        self.weights = tuple(float(w) for w in weights)
        self.max_snapshots = max_snapshots
        self.baselines = [make_opponent(b, game) for b in baselines]
        names = [b.name for b in self.baselines]
        if len(set(names)) != len(names):
            raise ValueError(f"baseline names must be distinct, got {names}")
        self.current: PolicyOpponent | None = None
        self.self_play = self_play
        self.snapshots: list[PolicyOpponent] = []
        self._members: list[Opponent] = []
        self._cdf = np.zeros(0)
        self._rebuild()

    @classmethod
    def fixed(cls, opponents: Sequence[str | Opponent] | str, game: str) -> OpponentPool:
        """A pool of fixed opponents only, drawn uniformly (no self-play, no snapshots)."""
        if isinstance(opponents, (str, Opponent)):
            opponents = [opponents]
        if not opponents:
            raise ValueError("at least one opponent is needed")
        return cls(game, opponents, weights=(0.0, 0.0, 1.0), max_snapshots=0, self_play=False)

    # -- membership -----------------------------------------------------------------------------

    def set_current(self, actor: NumpyActor) -> None:
        """The learner's latest weights: the "self" opponent plays with them from now on."""
        if self.current is None:
            self.current = PolicyOpponent(SELF, actor)
            self._rebuild()
        else:
            self.current.actor = actor  # same object: grouping by opponent stays valid

    def add_snapshot(self, actor: NumpyActor, label: str) -> None:
        """Freeze ``actor`` as an opponent named ``label``; the oldest goes past the cap."""
        if self.max_snapshots == 0:
            return
        if any(s.name == label for s in self.snapshots) or label == SELF:
            raise ValueError(f"snapshot name {label!r} is already in use")
        self.snapshots.append(PolicyOpponent(label, actor))
        del self.snapshots[: -self.max_snapshots]
        self._rebuild()

    @property
    def members(self) -> list[Opponent]:
        return list(self._members)

    def probabilities(self) -> dict[str, float]:
        """Each member's chance to be drawn for one seat."""
        probs = np.diff(self._cdf, prepend=0.0)
        return {m.name: float(p) for m, p in zip(self._members, probs)}

    def _rebuild(self) -> None:
        groups: list[tuple[float, list[Opponent]]] = [
            (self.weights[0], [self.current] if self.current and self.self_play else []),
            (self.weights[1], list(self.snapshots)),
            (self.weights[2], list(self.baselines)),
        ]
        members, probs = [], []
        for weight, group in groups:
            for m in group:
                members.append(m)
                probs.append(weight / len(group))
        total = sum(probs)
        if not members or total <= 0:
            can_grow = (self.self_play and self.weights[0] > 0) or (
                self.max_snapshots > 0 and self.weights[1] > 0
            )
            if not can_grow:
                raise ValueError(
                    "the opponent pool is empty (or all its weights are 0): give baselines, or "
                    "a positive weight to the current policy or to snapshots"
                )
            members, probs, total = [], [], 1.0  # members come with set_current/add_snapshot
        self._members = members
        self._cdf = np.cumsum(probs) / total if probs else np.zeros(0)

    # -- drawing --------------------------------------------------------------------------------

    def sample(self, rng: np.random.Generator) -> Opponent:
        """One member, drawn with one uniform number from ``rng``."""
        if not self._members:
            raise ValueError(
                "the opponent pool has no member yet: call set_current() (or add_snapshot())"
            )
        i = int(np.searchsorted(self._cdf, rng.random(), side="right"))
        return self._members[min(i, len(self._members) - 1)]

    # -- saving ---------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to rebuild the pool (weights as numpy arrays)."""
        return {
            "game": self.game,
            "baselines": [b.name for b in self.baselines],
            "weights": list(self.weights),
            "max_snapshots": self.max_snapshots,
            "self_play": self.self_play,
            "current": None if self.current is None else self.current.actor.to_dict(),
            "snapshots": [{"name": s.name, "actor": s.actor.to_dict()} for s in self.snapshots],
        }

    @classmethod
    def from_state_dict(cls, data: dict[str, Any]) -> OpponentPool:
        pool = cls(
            data["game"],
            data["baselines"],
            data["weights"],
            data["max_snapshots"],
            data["self_play"],
        )
        pool.load_weights(data)
        return pool

    def load_weights(self, data: dict[str, Any]) -> None:
        """Take the current policy and the snapshots from a :meth:`state_dict`."""
        if data["current"] is not None:
            self.set_current(NumpyActor.from_dict(data["current"]))
        self.snapshots = [
            PolicyOpponent(s["name"], NumpyActor.from_dict(s["actor"])) for s in data["snapshots"]
        ]
        self._rebuild()
