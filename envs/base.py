"""One PettingZoo AEC implementation that drives any cardzoo rules engine through any encoder.

A game module (``cubirds_v0``, ...) describes its game with a :class:`GameSpec` and subclasses
:class:`CardGameEnv` only to attach its metadata and doc page. Turn order, rewards, truncation,
input checking and rendering live here, once, for every game.

Checks that PettingZoo's classic envs get from stacked wrappers (order enforcing, bounds,
illegal-move termination) are done inline here, so ``env()`` costs no more than ``raw_env()``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
from cardzoo.envs.core import IllegalMoveError, child_seed
from cardzoo.envs.outcome import (
    END_ILLEGAL_ACTION,
    END_TRUNCATED,
    ENV_END_REASONS,
    REWARD_MODES,
    Outcome,
    outcome,
)
from cardzoo.envs.raster import rasteriser_installed, rasteriser_missing, svg_to_rgb
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv


class IllegalActionError(IllegalMoveError):
    """An action the env cannot accept now: illegal move, bad id or type, wrong time.

    A ``ValueError``; the game state is unchanged when it is raised.
    """


class ResetRequiredError(RuntimeError):
    """A method or attribute that needs a game was used before ``reset()``: call it first.

    Every method of the env that reads the game raises it before the first ``reset()``; the
    methods that need no game (the spaces, ``action_to_move``, ``close``) work at any time.
    """


class ResetRequiredAttributeError(ResetRequiredError, AttributeError):
    """The per-game attributes (``agents``, ``agent_selection``, ``rewards``, ...) before
    ``reset()``. Also an ``AttributeError``, so ``hasattr()`` and ``getattr(env, name, default)``
    keep working as for any missing attribute."""


class RenderModeError(ValueError, TypeError):
    """A ``render_mode`` the env does not support.

    A ``ValueError`` (a bad value) and also a ``TypeError``: Gymnasium-based tools such as
    Stable-Baselines3's ``make_vec_env`` ask for ``render_mode="rgb_array"`` and, on a
    ``TypeError``, build the env again without a render mode. cardzoo's envs draw
    ``"rgb_array"`` only when the ``render`` extra (CairoSVG) is installed and loads; without it
    they decline rather than return a fake image.
    """


ILLEGAL_ACTION_MODES = ("raise", "terminate")
OBS_DTYPES = ("int8", "float32")
#: Options of the env itself (every other keyword is a rule option of the game's ``Config``).
ENV_OPTIONS = ("encoder", "render_mode", "illegal_action", "reward", "obs_dtype", "variant")
# REWARD_MODES and ENV_END_REASONS (the end reasons the env adds after the engine's
# ``END_REASONS``) are defined with the outcome in cardzoo.envs.outcome and importable from here.

#: Attributes that ``reset()`` sets (PettingZoo's per-game state); reading one before the first
#: ``reset()`` raises :class:`ResetRequiredAttributeError`.
EPISODE_ATTRIBUTES = frozenset(
    (
        "agents",
        "num_agents",
        "agent_selection",
        "rewards",
        "terminations",
        "truncations",
        "infos",
        "_cumulative_rewards",
    )
)


def reset_required(what: str) -> ResetRequiredError:
    """The error for ``what`` (e.g. ``"step()"``) used before the first ``reset()``."""
    return ResetRequiredError(f"{what} called before reset(); call reset() first")


@dataclass(frozen=True)
class GameSpec:
    """What the generic env needs to know about one game."""

    name: str  # plain name, e.g. "cubirds"
    version: int  # env version: the module is f"{name}_v{version}"
    title: str  # display name, e.g. "Cubirds"
    config_cls: type  # the engine's frozen Config dataclass
    state_cls: type  # the engine's State
    encoders: dict[str, Callable[[Any], Any]]  # encoder name -> class taking the config
    default_encoder: str = "default"
    player_counts: tuple[int, ...] = (2,)
    variants: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> config overrides
    #: Rule option -> its non-default values that change the rules or what players see; the
    #: conformance suite runs one case per value (at the smallest player count).
    option_values: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    #: ``svg(state, seat)``: the game's SVG picture of ``state`` seen by ``seat`` (built from
    #: ``state.view(seat)`` only), or all-seeing for ``None``; see :meth:`CardGameEnv.render_svg`.
    svg: Callable[[Any, int | None], str] | None = None

    @property
    def env_name(self) -> str:
        return f"{self.name}_v{self.version}"

    def config_options(self) -> list[str]:
        return [f.name for f in fields(self.config_cls)]

    def make_config(self, variant: str | None = None, **options: Any) -> Any:
        """Build the game's Config from a named variant (or none) and rule options on top of it.

        Unknown option names get a ValueError listing the rule options and the env options.
        """
        valid = self.config_options()
        unknown = [k for k in options if k not in valid]
        if unknown:
            raise ValueError(
                f"unknown {self.title} option(s) {unknown}; rule options: {', '.join(valid)}; "
                f"env options: {', '.join(ENV_OPTIONS)}"
            )
        if variant is not None:
            if variant not in self.variants:
                raise ValueError(
                    f"unknown {self.title} variant {variant!r}; available: "
                    f"{', '.join(self.variants) or 'none'}"
                )
            overrides = self.variants[variant]
            explicit = options
            options = {**overrides, **options}
            try:
                return self.config_cls(**options)
            except ValueError as err:
                # Say what the variant chose (the options not given explicitly): they are part
                # of what was rejected, e.g. the mode that decides the allowed player counts.
                chosen = [f"{k}={v!r}" for k, v in overrides.items() if k not in explicit]
                if not chosen:
                    raise
                raise ValueError(f"{err} (variant {variant!r} sets {', '.join(chosen)})") from err
        return self.config_cls(**options)


class CardGameEnv(AECEnv, EzPickle):
    """PettingZoo AEC env for a cardzoo game. Use a game module's ``env()``/``raw_env()``.

    Args:
        encoder: name of one of the game's encoders (``metadata["encoders"]`` lists them).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns text), ``"human"`` (prints it)
            or ``"rgb_array"`` (``render()`` returns the table picture as an ``(H, W, 3)`` uint8
            array; needs the ``render`` extra, else :class:`RenderModeError`).
        illegal_action: ``"raise"`` (default) raises :class:`IllegalActionError` naming the action,
            the player and the legal actions, leaving the state unchanged; ``"terminate"`` is the
            PettingZoo classic behaviour: the offender gets -1, everyone else 0, the game ends.
        reward: ``"win_loss"`` (default): 0 until the end, then winners share +1 and losers share
            -1 (a draw, or everyone winning, gives 0 to all); ``"score"``: at the end, each player
            gets its game score minus the mean score of the others (zero-sum).
        obs_dtype: ``"int8"`` (default, the fastest) or ``"float32"`` (what torch-based
            libraries take without a cast); applies to observations and ``state()``.
        variant: a named variant of the game (``metadata["variants"]``), e.g. ``"online"``: a set
            of rule options; options given explicitly override it.
        **config: the game's rule options (see the game's ``Config``), e.g. ``num_players=3``.

    ``infos[agent]`` has the same keys at every step: ``"winners"``, an int8 0/1 vector over seats
    (all 0 until the game ends), and ``"end_reason"``, an index into ``env.end_reasons`` (-1 while
    the game goes on). Once the game is over, :meth:`outcome` gives the same by name, with the
    rewards, the teams and each seat's result; :meth:`seat_of` maps an agent to its seat.

    Before the first ``reset()``, every method that reads the game (``step``, ``observe``,
    ``last``, ``state``, ``render``, ``legal_actions``, ``view``, ...) raises
    :class:`ResetRequiredError`, and the per-game attributes (``agents``, ``rewards``, ...) raise
    its ``AttributeError`` form; the spaces and ``action_to_move`` need no game.
    """

    game: GameSpec  # set by each game module's subclass
    # "rgb_array" is listed only when CairoSVG is installed (checked without importing it).
    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human", *(["rgb_array"] if rasteriser_installed() else [])],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        encoder: str | None = None,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        reward: str = "win_loss",
        obs_dtype: str = "int8",
        variant: str | None = None,
        **config: Any,
    ) -> None:
        EzPickle.__init__(
            self, encoder, render_mode, illegal_action, reward, obs_dtype, variant, **config
        )
        super().__init__()
        game = self.game
        self.config = game.make_config(variant, **config)
        encoder = game.default_encoder if encoder is None else encoder
        self._check_options(encoder, render_mode, illegal_action, reward, obs_dtype)
        self.encoder = game.encoders[encoder](self.config)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.reward_mode = reward
        self.variant = variant
        self.max_turns: int = self.config.max_turns
        #: What ``infos[agent]["end_reason"]`` indexes: the engine's reasons, then the env's.
        self.end_reasons: tuple[str, ...] = (*game.state_cls.END_REASONS, *ENV_END_REASONS)
        self._truncated_index = self.end_reasons.index(END_TRUNCATED)
        # None when observations are the encoder's own dtype (no cast on the hot path).
        self._cast = None if obs_dtype == np.dtype(self.encoder.dtype).name else np.dtype(obs_dtype)
        obs_type = np.dtype(obs_dtype).type

        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._build_spaces(obs_type)
        # The metadata names the encoder in use, so logged runs record what they trained on.
        self.metadata = {
            **self.metadata,
            "encoder": encoder,
            "encoder_version": self.encoder.version,
            "variants": list(game.variants),
        }
        #: The rules engine (``State``) of the current game; None before ``reset()``. Search on
        #: ``game_state.clone()``: applying moves to it directly is refused by the next ``step()``.
        self.game_state: Any = None
        self._rng: np.random.Generator | None = None
        self._mask: np.ndarray | None = None  # mask of the agent to act, built lazily
        self._move_count = 0  # engine moves applied through step(): detects outside changes
        self._outcome: Outcome | None = None  # set when the game ends

    def _check_options(
        self,
        encoder: str,
        render_mode: str | None,
        illegal_action: str,
        reward: str,
        obs_dtype: str,
    ) -> None:
        """Raise a clear error for any constructor option outside what it allows."""
        game = self.game
        if encoder not in game.encoders:
            raise ValueError(
                f"unknown encoder {encoder!r} for {game.name}; available: {list(game.encoders)}"
            )
        if render_mode == "rgb_array" and (missing := rasteriser_missing()) is not None:
            # Refused at construction (not at the first render()), so tools that fall back to
            # no render mode on this error (Stable-Baselines3's make_vec_env) still can.
            raise RenderModeError(missing)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise RenderModeError(
                f"invalid render_mode {render_mode!r}; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(
                f"invalid illegal_action {illegal_action!r}; allowed: {list(ILLEGAL_ACTION_MODES)}"
            )
        if reward not in REWARD_MODES:
            raise ValueError(f"invalid reward {reward!r}; allowed: {list(REWARD_MODES)}")
        if obs_dtype not in OBS_DTYPES:
            raise ValueError(f"invalid obs_dtype {obs_dtype!r}; allowed: {list(OBS_DTYPES)}")

    def _build_spaces(self, obs_type: type) -> None:
        """Observation, action and global-state spaces, shared by every agent."""
        num_actions = self.encoder.num_actions
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=0,
                    high=self.encoder.high,
                    shape=(self.encoder.size,),
                    dtype=obs_type,
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        #: The global (full-information) state's space, for centralised critics: see ``state()``.
        self.state_space = spaces.Box(
            low=0,
            high=self.encoder.state_high,
            shape=(self.encoder.state_size,),
            dtype=obs_type,
        )

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. The same ``seed`` always gives the same game.

        Without a seed, the env draws the next game from its own generator (seeded from the OS
        on first use), never from the global ``random``/``np.random`` states. There are no
        reset ``options`` (any given are ignored with a warning): rule options go to ``env()``.
        """
        if options:
            # A warning, not an error: PettingZoo's own api_test probes reset() with a dummy
            # option and expects it to be accepted.
            warnings.warn(
                f"reset() ignores the options {sorted(options)}: cardzoo envs take no reset "
                "options; rule options are given to env() (e.g. env(num_players=3))",
                UserWarning,
                stacklevel=2,
            )
        if seed is not None:
            if isinstance(seed, np.integer):
                seed = int(seed)
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.game_state = self.game.state_cls(self.config, seed=child_seed(self._rng))
        self._move_count = self.game_state.move_count
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        n = self.config.num_players
        self.infos: dict[str, dict[str, Any]] = {
            a: {"winners": np.zeros(n, dtype=np.int8), "end_reason": -1} for a in self.agents
        }
        self._mask = None
        self._outcome = None
        self.agent_selection = self.agents[self.game_state.current_player]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        """Play ``action`` (an action id) for ``agent_selection``."""
        state = self.game_state
        if state is None:
            raise reset_required("step()")
        if state.move_count != self._move_count:
            self._raise_out_of_step()
        agent = self.agent_selection
        if self.terminations.get(agent, True) or self.truncations.get(agent, True):
            if not self.agents:
                raise IllegalActionError(
                    "step() called after the episode ended and every agent was removed; "
                    "call reset() to start a new game"
                )
            if action is not None:
                raise IllegalActionError(
                    f"{agent} is done (the game has ended); its only valid action is None, "
                    f"got {action!r}"
                )
            self._was_dead_step(action)
            return

        if type(action) is not int:
            action = self._coerce_action(action, agent)
        if not 0 <= action < self.encoder.num_actions:
            raise IllegalActionError(
                f"action {action} for {agent} is out of range 0..{self.encoder.num_actions - 1}"
            )
        if not state.is_legal(action):
            if self.illegal_action == "raise":
                raise IllegalActionError(self._illegal_message(action, agent))
            self._end_for_illegal(agent)
            return

        state.apply_id(action)
        self._move_count += 1
        self._mask = None
        if state.terminal:
            self._end_game()
        elif state.truncated:
            self._outcome = outcome(state, self.reward_mode)
            reason = self._truncated_index
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a]["end_reason"] = reason
        else:
            self.agent_selection = self.possible_agents[state.current_player]
        if self.render_mode == "human":
            self.render()

    def step_as(self, agent: str, action: int | None) -> None:
        """``step(action)`` after checking that it is ``agent``'s turn (out-of-turn guard)."""
        if self.game_state is None:
            raise reset_required("step_as()")
        if agent != self.agent_selection:
            raise IllegalActionError(
                f"it is {self.agent_selection}'s turn, not {agent}'s; action {action!r} rejected"
            )
        self.step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": vector, "action_mask": int8 mask}`` for ``agent``.

        The mask is all zeros for an agent that is not to act.
        """
        state = self.game_state
        if state is None:
            raise reset_required("observe()")
        seat = self._seat.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        obs = self.encoder.encode(state, seat)
        if self._cast is not None:
            obs = obs.astype(self._cast)
        if seat == state.current_player and agent == self.agent_selection:
            if self._mask is None:
                self._mask = self.encoder.mask(state)
            mask = self._mask.copy()
        else:
            mask = np.zeros(self.encoder.num_actions, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state as one fixed-size vector (every hand, the piles, whose turn it is).

        For centralised critics (MAPPO, QMIX-style) only: it shows hidden cards, so an acting
        policy must use ``observe()``. ``env.unwrapped.encoder.describe_state()`` lists its pieces.
        The rules engine itself is ``env.unwrapped.game_state``.
        """
        if self.game_state is None:
            raise reset_required("state()")
        return self.encoder.encode_state(self.game_state)

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of ``agent_selection``."""
        if self.game_state is None:
            raise reset_required("last()")
        if not self.agents:
            raise RuntimeError(
                "last() called after the episode ended and every agent was removed; "
                "call reset() to start a new game"
            )
        if self.game_state.move_count != self._move_count:
            self._raise_out_of_step()
        return super().last(observe)

    def render(self) -> str | np.ndarray | None:
        """The whole game (every hand: a spectator's view), as text or as a picture.

        ``render_mode="ansi"`` returns the text; ``"human"`` prints it, and the env also prints
        it after every ``reset()`` and ``step()``. ``"rgb_array"`` returns the all-seeing table
        picture (:meth:`render_svg` with ``seat=None``) as an ``(H, W, 3)`` uint8 array. For what
        one seat may see, use :meth:`render_for` or ``render_svg(seat)``.
        """
        if self.game_state is None:
            raise reset_required("render()")
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.render_mode == "rgb_array":
            return svg_to_rgb(self.render_svg(None))
        text = self.game_state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_for(self, agent: str) -> str:
        """The game as ``agent`` sees it: its own hand, the public cards, others' hand sizes.

        Built only from what that seat may see (what a human player would be shown).
        """
        if self.game_state is None:
            raise reset_required("render_for()")
        return self.game_state.render_for(self.seat_of(agent))

    def render_svg(self, seat: int | None = None) -> str:
        """The table as SVG text: what seat ``seat`` (0..N-1) may see, or all-seeing for
        ``None`` (every hand shown, for replays). Cards are drawn as labelled shapes."""
        if self.game_state is None:
            raise reset_required("render_svg()")
        if self.game.svg is None:
            raise NotImplementedError(f"{self.game.title} has no SVG picture")
        if isinstance(seat, np.integer):
            seat = int(seat)
        n = self.config.num_players
        if seat is not None and (type(seat) is not int or not 0 <= seat < n):
            raise ValueError(f"seat must be None or an int seat 0..{n - 1}, got {seat!r}")
        return self.game.svg(self.game_state, seat)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """PettingZoo's agent iterator; refused before ``reset()`` (it would yield nothing)."""
        if self.game_state is None:
            raise reset_required("agent_iter()")
        return super().agent_iter(max_iter)

    def close(self) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        # Reached only when normal lookup fails, so it costs nothing once reset() has run. The
        # instance dict is read directly: this runs on half-built copies too (unpickling).
        if name in EPISODE_ATTRIBUTES and self.__dict__.get("game_state") is None:
            raise ResetRequiredAttributeError(f"env.{name} read before reset(); call reset() first")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- copying: a copy or pickle of a live env continues the same game ------------------------

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # -- helpers for agents and humans ----------------------------------------------------------

    def seat_of(self, agent: str) -> int:
        """The seat index (0..N-1, the engine's player number) of ``agent``, e.g. ``"player_1"``
        -> 1. Raises ``ValueError`` for a name that is not one of ``possible_agents``."""
        seat = self._seat.get(agent)
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}; agents: {self.possible_agents}")
        return seat

    def outcome(self) -> Outcome | None:
        """How the current game ended (rewards, winners, teams, results, end reason by name),
        or ``None`` while it goes on. See :mod:`cardzoo.envs.outcome`."""
        if self.game_state is None:
            raise reset_required("outcome()")
        return self._outcome

    def legal_actions(self) -> list[int]:
        """Legal action ids for the agent to act (empty once the game is over)."""
        if self.game_state is None:
            raise reset_required("legal_actions()")
        return self.game_state.legal_move_ids()

    def view(self, agent: str) -> Any:
        """The engine's readable record of what ``agent`` may see (``State.view``)."""
        if self.game_state is None:
            raise reset_required("view()")
        return self.game_state.view(self.seat_of(agent))

    def action_to_move(self, action: int) -> Any:
        """The move an action id stands for (its ``str()`` reads like the rulebook)."""
        if type(action) is not int:
            action = self._coerce_action(action, "action_to_move")
        if not 0 <= action < self.encoder.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range 0..{self.encoder.num_actions - 1}"
            )
        return self.encoder.action_to_move(action)

    # -- internals ------------------------------------------------------------------------------

    def _coerce_action(self, action: Any, agent: str) -> int:
        if isinstance(action, (np.integer,)) or (
            isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
        ):
            return int(action)
        raise IllegalActionError(
            f"action for {agent} must be an int action id, got {type(action).__name__} {action!r}"
        )

    def _raise_out_of_step(self) -> None:
        raise RuntimeError(
            "the rules engine (env.unwrapped.game_state) was advanced outside the env: "
            f"{self.game_state.move_count - self._move_count:+d} moves not made through step(). "
            "Search on game_state.clone() (or determinize()); reset() starts a new game"
        )

    def _illegal_message(self, action: int, agent: str) -> str:
        legal = self.game_state.legal_move_ids()
        shown = ", ".join(f"{a} ({self.encoder.action_to_move(a)})" for a in legal)
        return (
            f"illegal action {action} ({self.encoder.action_to_move(action)}) for {agent}; "
            f"legal actions: {shown}"
        )

    def _end_game(self) -> None:
        self._outcome = result = outcome(self.game_state, self.reward_mode)
        winners = result.winners_vector()
        reason = self.end_reasons.index(result.end_reason)
        for a, v in zip(self.possible_agents, result.rewards):
            self.rewards[a] = v
            self.terminations[a] = True
            self.infos[a] = {"winners": winners.copy(), "end_reason": reason}
        self._accumulate_rewards()

    def _end_for_illegal(self, agent: str) -> None:
        self._outcome = result = Outcome.illegal_action(self.game_state, self._seat[agent])
        reason = self.end_reasons.index(END_ILLEGAL_ACTION)
        for a in self.agents:
            self.rewards[a] = result.rewards[self._seat[a]]
            self.terminations[a] = True
            self.infos[a]["end_reason"] = reason
        self._accumulate_rewards()
