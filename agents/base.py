"""The agent protocol shared by every player of a cardzoo game.

An agent picks an action id from an observation and its action mask. Agents that need the rules
(heuristics, search) also receive the engine ``state`` and their ``player`` seat, and must use only
what that seat may see: ``state.view(player)``, ``state.legal_moves()``, or a
``state.determinize(player, rng)`` sample to look ahead on. Reading hidden fields of ``state``
directly would be cheating; the tournament cannot stop it, so the tests of each heuristic do.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act``; ``name`` labels it in tournament tables."""

    name: str

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        """Return a legal action id (one whose mask entry is 1)."""
        ...


class RandomAgent:
    """Uniform over the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        if type(action_mask) is not np.ndarray or action_mask.ndim != 1:
            action_mask = np.ravel(action_mask)  # lists, and masks of shape (1, n)
        # The same ascending indices as np.flatnonzero, at a fraction of its call overhead.
        legal = action_mask.nonzero()[0]
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])
