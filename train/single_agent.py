"""Single-agent Gymnasium views of the cardzoo games: a learner in one seat, opponents inside.

>>> import gymnasium, cardzoo.train
>>> env = gymnasium.make("cardzoo/BeastyBar-v0", opponents="heuristic", num_players=2)

The learner's seat is drawn at random each game (or fixed with ``learner_seat``); every other seat
is played inside ``step()`` by the given opponents, and only the learner's observations and
rewards come out. In a team game (Sitting Ducks Gallery's ``variant="team"``) the learner's
partners play the pool's current policy when the pool has one (self-play,
:meth:`OpponentPool.set_current`), else they are drawn like the opponents; partners share the
learner's reward. Without ``num_players`` the variant or rule options set the seat count:
``gymnasium.make("cardzoo/SittingDucksGallery-v0", variant="duel")`` is the two-seat game.
The learner's final reward arrives on its last step even when an opponent's move ends the game;
hitting ``max_turns`` is reported as truncation, not termination.

The observation is the PettingZoo env's dict (``"observation"``, ``"action_mask"``); the mask is
also served by ``action_masks()``, the sb3-contrib convention. An illegal action ends the game
with -1 for the learner by default (``illegal_action="terminate"``: libraries that ignore masks
keep running); ``illegal_action="raise"`` raises instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from cardzoo.envs import games, load
from cardzoo.envs.base import RenderModeError
from cardzoo.train.opponents import Opponent, Table
from cardzoo.train.pool import OpponentPool

#: A game that ends before the learner's first decision (possible only with tiny ``max_turns``)
#: is dealt again, at most this many times in a row.
MAX_REDEALS = 100


def gym_id(module: Any) -> str:
    """Gymnasium id of a game module, e.g. ``"cardzoo/BeastyBar-v0"``."""
    game = module.GAME
    return f"cardzoo/{re.sub(r'[^0-9A-Za-z]', '', game.title)}-v{game.version}"


def register_envs() -> None:
    """Register every game with Gymnasium (done when ``cardzoo.train`` is imported).

    The ids (``cardzoo/Cubirds-v0``, ``cardzoo/BeastyBar-v0``, ``cardzoo/OdinsRavens-v0``,
    ``cardzoo/SittingDucksGallery-v0``) make a :class:`SingleAgentEnv`.

    Render modes: the views draw text only (``render_mode="ansi"``). Any other mode raises
    :class:`~cardzoo.envs.base.RenderModeError`, which is a ``ValueError`` and also a
    ``TypeError``. That is on purpose: Stable-Baselines3's ``make_vec_env(env_id)`` calls
    ``gymnasium.make(env_id, render_mode="rgb_array")`` and, on a ``TypeError`` only, makes the
    env again without a render mode, so ``make_vec_env("cardzoo/BeastyBar-v0", n_envs=4)``
    works as it is (Gymnasium logs a warning that ``"rgb_array"`` is not among the env's
    render modes). The views do not claim ``"rgb_array"``: that would promise images they do
    not draw. Code that caught the ``ValueError`` still catches it.

    Worker processes (``make_vec_env(..., vec_env_cls=SubprocVecEnv)``) start a fresh
    interpreter that has not imported ``cardzoo.train``; name the module in the id so Gymnasium
    imports it there: ``make_vec_env("cardzoo.train:cardzoo/BeastyBar-v0", vec_env_cls=...)``.
    """
    for module in games():
        env_id = gym_id(module)
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="cardzoo.train.single_agent:SingleAgentEnv",
                kwargs={"game": module.GAME.name},
            )


def raw_env_for(module: Any, num_players: int | None, **env_options: Any) -> Any:
    """The game's raw env at ``num_players`` seats; ``None`` leaves the count to the rule options
    (a variant such as Sitting Ducks Gallery's ``"duel"`` sets it), else the game's default."""
    if num_players is None:
        return module.raw_env(**env_options)
    return module.raw_env(num_players=num_players, **env_options)


def make_pool(opponents: Any, game: str) -> OpponentPool:
    """An :class:`OpponentPool` from a pool, an opponent spec or a list of them."""
    if isinstance(opponents, OpponentPool):
        return opponents
    if isinstance(opponents, str):
        opponents = [s.strip() for s in opponents.split(",") if s.strip()]
    if isinstance(opponents, Opponent):
        opponents = [opponents]
    if not isinstance(opponents, Sequence):
        raise TypeError(
            "opponents must be a spec ('random', 'heuristic', 'random,heuristic'), a list of "
            f"specs or Opponents, or an OpponentPool; got {opponents!r}"
        )
    return OpponentPool.fixed(list(opponents), game)


def check_learner_seat(seat: Any, num_players: int) -> None:
    """Raise ``ValueError`` unless ``seat`` is None (random seats) or a seat index."""
    if seat is None:
        return
    if isinstance(seat, bool) or not isinstance(seat, int | np.integer):
        ok = False
    else:
        ok = 0 <= seat < num_players
    if not ok:
        raise ValueError(f"learner_seat must be None or a seat 0..{num_players - 1}, got {seat!r}")


class SingleAgentEnv(gymnasium.Env):
    """One learner against opponents played inside ``step()``.

    Args:
        game: plain or versioned game name (``"beasty_bar"``).
        opponents: ``"random"``, ``"heuristic"``, any agent spec, a comma-separated list (one is
            drawn per seat and game), a list of specs or :class:`Opponent` objects, or an
            :class:`OpponentPool`.
        num_players: seats at the table (default: what the variant or rule options set, else
            the game's smallest player count).
        learner_seat: the learner's seat, or ``None`` (default) for a random seat every game.
        illegal_action: ``"terminate"`` (default: the learner loses, -1) or ``"raise"``.
        render_mode: ``None`` or ``"ansi"`` (``render()`` returns the learner's-eye view).
        **env_options: passed to the PettingZoo env (rule options, ``encoder``, ``variant``...).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        opponents: Any = "random",
        num_players: int | None = None,
        learner_seat: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        **env_options: Any,
    ) -> None:
        module = load(game)
        if render_mode not in (None, "ansi"):
            # Also a TypeError: see register_envs() for why.
            raise RenderModeError(f"invalid render_mode {render_mode!r}; allowed: None, 'ansi'")
        if "reward" in env_options and env_options["reward"] != "win_loss":
            raise ValueError("the single-agent views use reward='win_loss' only")
        self.aec = raw_env_for(module, num_players, illegal_action=illegal_action, **env_options)
        n = self.aec.config.num_players
        check_learner_seat(learner_seat, n)
        self.game = module.GAME
        self.pool = make_pool(opponents, self.game.name)
        self.learner_seat = None if learner_seat is None else int(learner_seat)
        self.render_mode = render_mode
        self.encoder = self.aec.encoder
        self.observation_space = self.aec.observation_space("player_0")
        self.action_space = gymnasium.spaces.Discrete(self.encoder.num_actions)
        self.metadata = {
            **self.metadata,
            **{k: self.aec.metadata[k] for k in ("encoder", "encoder_version")},
        }
        self._table: Table | None = None
        self._agent = ""
        self._mask = np.zeros(self.encoder.num_actions, dtype=np.int8)

    # -- Gymnasium API --------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game; with a ``seed``, the same seed always gives the same game and opponents."""
        if options:
            raise ValueError(f"reset() takes no options, got {sorted(options)}")
        super().reset(seed=seed)
        if seed is not None or self._table is None:
            self._table = Table(self._new_game, self.np_random)
        table = self._table
        for _ in range(MAX_REDEALS):
            # with partnerships, a pool with a current policy (self-play) plays the partners
            table.deal(self.pool, self.learner_seat, partner=self.pool.current)
            self._agent = self.aec.possible_agents[table.learner]
            done, _ = self._play_opponents()
            if not done:
                return self._observe(), self._info()
        raise RuntimeError(
            f"{MAX_REDEALS} games in a row ended before the learner's first decision "
            f"(max_turns={self.aec.max_turns} is too small)"
        )

    def step(self, action: int) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        table = self._table
        if table is None:
            raise RuntimeError("step() called before reset()")
        aec = self.aec
        if aec.terminations[self._agent] or aec.truncations[self._agent]:
            raise RuntimeError("step() called after the game ended; call reset()")
        if isinstance(action, np.ndarray) and action.shape == (1,):
            action = action[0]  # vectorised libraries hand single actions as shape (1,)
        if isinstance(action, np.integer):
            action = int(action)
        aec.step(action)
        table.steps += 1
        reward = aec.rewards[self._agent]
        done, more = self._play_opponents()
        reward += more
        terminated = aec.terminations[self._agent]
        truncated = aec.truncations[self._agent] and not terminated
        return self._observe(), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner now (all zero once the game is over)."""
        return self._mask.copy()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        if self._table is None:
            return f"{self.game.title}: call reset() first"
        return self.aec.render_for(self._agent)

    def close(self) -> None:
        self.aec.close()

    # -- internals ------------------------------------------------------------------------------

    def _new_game(self, seed: int) -> Any:
        self.aec.reset(seed=seed)
        return self.aec.game_state

    def _play_opponents(self) -> tuple[bool, float]:
        """Opponents move until the learner must act or the game is over; returns (over, the
        learner's rewards from those moves)."""
        aec, table = self.aec, self._table
        agent = self._agent
        reward = 0.0
        while not (aec.terminations[agent] or aec.truncations[agent]):
            state = table.state
            player = table.seats[state.current_player]
            if player is None:
                return False, reward
            (action,) = player.act_batch([table], self.encoder)
            aec.step(action)
            reward += aec.rewards[agent]
        return True, reward

    def _observe(self) -> dict[str, np.ndarray]:
        obs = self.aec.observe(self._agent)
        self._mask[:] = obs["action_mask"]
        return obs

    def _info(self) -> dict[str, Any]:
        table = self._table
        info = self.aec.infos[self._agent]
        return {
            "learner_seat": table.learner,
            "opponents": table.names,
            "winners": np.array(info["winners"], dtype=np.int8),
            "end_reason": info["end_reason"],
        }
