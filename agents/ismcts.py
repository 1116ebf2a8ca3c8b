"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS), for every cardzoo game.

Written once on the engine contract (``cardzoo.envs.core``): it calls only ``determinize``,
``legal_move_ids``, ``apply_id``, ``current_player``, ``terminal``/``truncated``, ``winners`` and
``teams`` (through :func:`cardzoo.envs.outcome.outcome`), so any game that fulfils the contract,
at any player count, gets it without game code. Specs: ``ismcts:N`` (random rollouts) and
``ismcts-h:N`` (the game's heuristic plays the rollouts), N iterations per decision.

One decision (Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree Search"):

1. **Determinize.** Each iteration samples a full game from the acting seat's point of view,
   ``seat.determinize(rng)``: everything the seat cannot see is resampled consistently with
   what it has seen. The agent never touches the real game; the :class:`~cardzoo.agents.base.Seat`
   handle is all it gets, so its decision is a function of the seat's information and its seed.
2. **Select.** From the root (the seat's information set), descend a tree whose edges are
   ``(mover, move id)``: every player's moves, the opponents' included, as seen in the sample.
   Only children whose move is legal *in this sample* compete, by UCB1 with availability counts:
   ``mean + C * sqrt(ln(available) / visits)``, where ``available`` counts the iterations in which
   the move was legal at this node (a move that is rarely possible is not penalised for it).
3. **Expand** one untried legal move (chosen at random) and stop descending.
4. **Roll out** to the end of the game (or its truncation cap): uniform random legal moves, or
   with ``ismcts-h`` the game's heuristic agent in every seat, each seat acting through a
   :class:`SampleSeat` on the sample (whose ``determinize`` gives the sample itself).
5. **Back up.** Each node on the path adds the reward of the player who made the move into it
   (the mover recorded in this iteration), so each player's nodes maximise that player's result;
   this is what makes the search sound for three or more players.

**Reward**, in [0, 1], from the engine's winners and teams: a side among ``k`` winning sides gets
``1 / k`` (a sole win is 1, a shared win splits it), a side that did not win gets 0, and a game
nobody won (a draw, or a truncated game) gives every side ``1 / number of sides``. Every seat of a
side (a partnership in a team game) gets the side's reward.

The move played is the root child visited most often (ties: higher mean reward, then lower id).
With a single legal move the agent plays it without searching. The tree is built afresh for every
decision. Everything random comes from the agent's seed: the same seed and the same information
give the same decision.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
from cardzoo.agents.base import Agent, Seat, SeatAgent
from cardzoo.envs.core import child_seed
from cardzoo.envs.outcome import outcome

#: Upper bound on iterations per decision: far beyond any useful search, low enough that a typo
#: (extra digits) fails at once instead of thinking for days.
MAX_ITERATIONS = 10_000_000

#: Default UCB exploration constant, for rewards in [0, 1] (about 1/sqrt(2), the usual choice).
DEFAULT_EXPLORATION = 0.7


def parse_iterations(spec: str, argument: str) -> int:
    """The N of an ``ismcts:N`` / ``ismcts-h:N`` spec; ``ValueError`` naming the spec otherwise."""
    kind = spec.partition(":")[0]
    text = argument.strip()
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ITERATIONS:
        raise ValueError(
            f"agent spec {spec!r}: {kind}:N needs N, the iterations per move, as a whole number "
            f"1..{MAX_ITERATIONS:,} (e.g. {kind}:100); got {argument!r}"
        )
    return int(text)


class Node:
    """Statistics of one edge ``(mover, move)`` of the search tree, and the edges below it."""

    __slots__ = ("children", "visits", "total", "available")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0  # iterations that went through this edge
        self.total = 0.0  # sum of the mover's rewards over those iterations
        self.available = 0  # iterations in which this move was legal at the parent


def side_rewards(state: Any) -> list[float]:
    """Reward in [0, 1] per seat of a finished (terminal or truncated) game; see the module
    docstring: winning sides share 1, the others get 0, nobody winning gives each side an equal
    share."""
    result = outcome(state)
    teams = result.teams
    winning = result.winning_teams
    rewards = [0.0] * state.num_players
    sides = winning or teams
    share = 1.0 / len(sides)
    for side in sides:
        for q in side:
            rewards[q] = share
    return rewards


class SampleSeat:
    """The seat handle the rollout agent gets: seat ``player`` of a *sample* (a determinization
    being played out), with the same methods as :class:`~cardzoo.agents.base.Seat`.

    One difference: :meth:`determinize` returns a copy of the sample itself instead of resampling
    it. A rollout is already played in one world drawn from the searching seat's information, so
    nothing of the real game can leak; the heuristic then plays that world with its cards in view
    (as in perfect-information Monte Carlo), and a rollout step costs a clone instead of a fresh
    determinization (which costs up to a millisecond, and which the Sitting Ducks engine cannot
    always do from a sample: see docs/ismcts.md).
    """

    __slots__ = ("_sample", "player")

    def __init__(self, sample: Any, player: int) -> None:
        self._sample = sample
        self.player = player

    @property
    def num_players(self) -> int:
        return self._sample.num_players

    @property
    def config(self) -> Any:
        return self._sample.config

    @property
    def current_player(self) -> int:
        return self._sample.current_player

    @property
    def phase(self) -> int:
        return self._sample.phase

    @property
    def terminal(self) -> bool:
        return self._sample.terminal

    def view(self) -> Any:
        return self._sample.view(self.player)

    def legal_move_ids(self) -> list[int]:
        sample = self._sample
        return sample.legal_move_ids() if sample.current_player == self.player else []

    def legal_moves(self) -> list[Any]:
        moves = self._sample.MOVES
        return [moves[i] for i in self.legal_move_ids()]

    def is_legal(self, move_id: int) -> bool:
        sample = self._sample
        return sample.current_player == self.player and sample.is_legal(move_id)

    def determinize(self, rng: Any = None, **options: Any) -> Any:
        """A copy of the sample (see the class docstring); ``rng`` and the game's options
        (``Seat.determinize``) are not used."""
        return self._sample.clone()

    def move_text(self, move_id: int) -> str:
        return str(self._sample.MOVES[move_id])

    def render(self) -> str:
        return self._sample.render_for(self.player)


class ISMCTSAgent(SeatAgent):
    """SO-ISMCTS with ``iterations`` per decision (see the module docstring).

    ``rollout`` is ``None`` for uniform random rollouts, or an agent (with ``act(..., seat=)``)
    that plays every seat of the rollouts, e.g. the game's heuristic. ``exploration`` is the UCB
    constant C. ``name`` labels the agent in tournament tables.
    """

    def __init__(
        self,
        iterations: int,
        *,
        rollout: Agent | None = None,
        exploration: float = DEFAULT_EXPLORATION,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
            raise ValueError(f"ISMCTSAgent: iterations must be an int, got {iterations!r}")
        if not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(
                f"ISMCTSAgent: iterations must be 1..{MAX_ITERATIONS:,}, got {iterations}"
            )
        if not exploration >= 0:  # also rejects NaN
            raise ValueError(f"ISMCTSAgent: exploration must be >= 0, got {exploration!r}")
        self.iterations = int(iterations)
        self.rollout_agent = rollout
        self.exploration = float(exploration)
        self.rng = np.random.default_rng(seed)  # for determinize
        self.random = random.Random(child_seed(self.rng))  # for moves: faster per draw
        prefix = "ismcts" if rollout is None else "ismcts-h"
        self.name = name or f"{prefix}:{self.iterations}"
        #: Iterations run by the last search (0 when the move was forced), for measurements.
        self.last_iterations = 0

    def forced(self) -> None:
        self.last_iterations = 0

    def choose(self, seat: Seat, legal: list[int]) -> int:
        """The move id (= action id) chosen by the search for the seat to move."""
        root = self.search(seat)
        return self._best(root, seat.player, seat.num_players, legal)

    def search(self, seat: Seat) -> Node:
        """Run the iterations for ``seat`` (the seat to move); returns the root of the tree.

        A child is keyed by ``move_id * num_players + mover``."""
        root = Node()
        n = seat.num_players
        for _ in range(self.iterations):
            self._iterate(seat.determinize(self.rng), root, n)
        self.last_iterations = self.iterations
        return root

    def _iterate(self, sample: Any, root: Node, n: int) -> None:
        """One iteration on ``sample`` (a determinization, played on in place)."""
        node = root
        path: list[tuple[Node, int]] = []
        draw = self.random.random
        c = self.exploration
        while not sample.terminal and not sample.truncated:
            mover = sample.current_player
            legal = sample.legal_move_ids()
            children = node.children
            untried = []
            best = None
            best_move = -1
            best_score = -math.inf
            for m in legal:
                child = children.get(m * n + mover)
                if child is None:
                    untried.append(m)
                    continue
                child.available += 1
                # visits >= 1: a child is created in an iteration that then backs up through it
                visits = child.visits
                score = child.total / visits + c * math.sqrt(math.log(child.available) / visits)
                if score > best_score:
                    best, best_move, best_score = child, m, score
            if untried:
                move = untried[int(draw() * len(untried))]
                child = children[move * n + mover] = Node()
                child.available = 1
                sample.apply_id(move)
                path.append((child, mover))
                break
            sample.apply_id(best_move)
            path.append((best, mover))
            node = best
        self._rollout(sample)
        rewards = side_rewards(sample)
        for child, mover in path:
            child.visits += 1
            child.total += rewards[mover]

    def _rollout(self, sample: Any) -> None:
        """Play ``sample`` to its end: random legal moves, or the rollout agent in every seat."""
        agent = self.rollout_agent
        if agent is None:
            draw = self.random.random
            while not sample.terminal and not sample.truncated:
                legal = sample.legal_move_ids()
                sample.apply_id(legal[int(draw() * len(legal))])
            return
        while not sample.terminal and not sample.truncated:
            q = sample.current_player
            sample.apply(agent.act(None, None, seat=SampleSeat(sample, q)))

    @staticmethod
    def _best(root: Node, player: int, n: int, legal: list[int]) -> int:
        """The most visited legal root move (ties: higher mean reward, then lower id)."""
        best, best_key = legal[0], (-1, 0.0)
        for m in legal:  # ascending: on a full tie the first (lowest id) stays
            child = root.children.get(m * n + player)
            if child is None or not child.visits:
                continue
            key = (child.visits, child.total / child.visits)
            if key > best_key:
                best, best_key = m, key
        return best


def make_ismcts(spec: str, game: str, seed: int | None = None) -> ISMCTSAgent:
    """The agent of an ``ismcts:N`` or ``ismcts-h:N`` spec for ``game`` (a plain game name).

    With ``ismcts-h`` the rollouts are played by the game's heuristic agent, seeded from ``seed``
    (through a generator of its own, so the two streams never coincide)."""
    kind, _, argument = spec.partition(":")
    if kind not in ("ismcts", "ismcts-h"):
        raise ValueError(f"not an ISMCTS spec: {spec!r} (expected ismcts:N or ismcts-h:N)")
    iterations = parse_iterations(spec, argument)
    rollout = None
    if kind == "ismcts-h":
        from cardzoo.agents import make_agent

        rollout_seed = None if seed is None else child_seed(np.random.default_rng([seed, 1]))
        try:
            rollout = make_agent("heuristic", game, seed=rollout_seed)
        except ValueError as err:
            raise ValueError(f"agent spec {spec!r}: {err}") from None
    return ISMCTSAgent(iterations, rollout=rollout, seed=seed, name=spec)
