"""The four games as OpenSpiel (``pyspiel``) Python games, from the same rules engines.

>>> from cardzoo.envs.openspiel import register_games
>>> register_games()
>>> game = pyspiel.load_game("python_cardzoo_cubirds", {"players": 3, "seed": 7})

Importing this module imports ``pyspiel`` (the ``cardzoo[openspiel]`` extra), so nothing else in
the package imports it. :func:`register_games` registers every game of
``cardzoo.envs.ENV_MODULES`` as ``python_cardzoo_<game>``: sequential, imperfect information,
terminal rewards equal to the env's default ``reward="win_loss"`` (winners share +1, losers share
-1, a truncated game gives 0 to all), which always sum to zero, so every game is ``ZERO_SUM``.

**Chance is SAMPLED_STOCHASTIC.** Each game deals and draws with the engine's own seeded RNG
instead of exposing chance nodes. That rules out every algorithm that needs explicit chance nodes
and their probabilities: exact CFR and exploitability on the full tree, MCCFR with chance sampling
or chance enumeration, expectiminimax. The reason: the engines shuffle whole piles at once; turning
each draw into a chance outcome with exact probabilities is a separate piece of work per game.
Sampling algorithms (random play, MCTS / ISMCTS with :meth:`CardzooState.resample_from_infostate`,
``rl_environment`` agents) work.

Parameters: ``players`` (the env's default player count) and ``seed`` (-1: seeded from the OS).
With ``seed=s``, the first ``new_initial_state()`` deals the same game as ``env.reset(seed=s)``,
and later ones the games the env would deal on later ``reset()`` calls without a seed.

Observations: ``observation_tensor(player)`` is the env's observation for that seat (the game's
default encoder, as float32); its ``dict`` has one entry per encoder piece, reshaped to the piece's
shape. ``observation_string`` and ``information_state_string`` are both ``render_for(player)``:
what the seat sees now, not a perfect-recall history (no information-state tensor is provided).
Actions are the env's action ids (the engine's move ids); ``action_to_string`` is the move's text.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from cardzoo.envs import games
from cardzoo.envs.core import child_seed
from cardzoo.envs.outcome import outcome

#: Short-name prefix of every registered game: ``python_cardzoo_<game>``.
PREFIX = "python_cardzoo_"
#: Generous bound on engine moves per counted turn, for ``max_game_length`` (measured in random
#: play: at most 3 in Cubirds, 1 in Beasty Bar, 6 in Sitting Ducks, 15 in Odin's Ravens).
MOVES_PER_TURN_BOUND = 64


def _game_type(spec: Any) -> pyspiel.GameType:
    default = spec.config_cls()
    return pyspiel.GameType(
        short_name=PREFIX + spec.name,
        long_name=f"cardzoo {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(spec.player_counts),
        min_num_players=min(spec.player_counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": default.num_players, "seed": -1},
    )


class CardzooGame(pyspiel.Game):
    """One cardzoo game for OpenSpiel; ``spec`` is the env's :class:`GameSpec`."""

    spec: Any  # set by each registered subclass
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        spec = self.spec
        players = int(params.get("players", spec.config_cls().num_players))
        seed = int(params.get("seed", -1))
        self.config = spec.make_config(num_players=players)  # ValueError names a bad count
        self.encoder = spec.encoders[spec.default_encoder](self.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoder.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=(self.config.max_turns + 1) * MOVES_PER_TURN_BOUND,
        )
        super().__init__(self.game_type, info, {"players": players, "seed": seed})
        # The env's own seeding: one generator, a child seed per dealt game.
        self._rng = np.random.default_rng(None if seed < 0 else seed)

    def new_initial_state(self) -> CardzooState:
        engine = self.spec.state_cls(self.config, seed=child_seed(self._rng))
        return CardzooState(self, engine)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> CardzooObserver:
        if params:
            raise ValueError(f"cardzoo observers take no parameters; got {params}")
        return CardzooObserver(self.encoder)


class _EngineBox:
    """Holds the engine state. OpenSpiel clones a Python state with ``copy.deepcopy`` (which
    also copies its history); this box makes that copy the engine's own fast ``clone()``."""

    __slots__ = ("engine",)

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def __deepcopy__(self, memo: dict[int, Any]) -> _EngineBox:
        return _EngineBox(self.engine.clone())


class CardzooState(pyspiel.State):
    """An OpenSpiel state wrapping one engine ``State`` (:attr:`engine`)."""

    def __init__(self, game: CardzooGame, engine: Any) -> None:
        super().__init__(game)
        self._box = _EngineBox(engine)

    @property
    def engine(self) -> Any:
        """The engine ``State`` this OpenSpiel state wraps."""
        return self._box.engine

    def _ended(self) -> bool:
        return self.engine.terminal or self.engine.truncated

    def current_player(self) -> int:
        if self._ended():
            return pyspiel.PlayerId.TERMINAL
        return self.engine.current_player

    def _legal_actions(self, player: int) -> list[int]:
        if self._ended() or player != self.engine.current_player:
            return []
        return self.engine.legal_move_ids()

    def _apply_action(self, action: int) -> None:
        # OpenSpiel has already checked the action against legal_actions().
        self.engine.apply_id(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.engine.MOVES[action])

    def is_terminal(self) -> bool:
        return self._ended()

    def returns(self) -> list[float]:
        if not self._ended():
            return [0.0] * self.engine.num_players
        return list(outcome(self.engine).rewards)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardzooState:
        """A copy with everything ``player_id`` cannot see resampled by the engine's
        ``determinize``; the sampler (a callable giving floats in [0, 1)) seeds its RNG."""
        seed = int(probability_sampler() * 2**31)
        twin = CardzooState(self.get_game(), self.engine.determinize(player_id, seed))
        return twin

    def __str__(self) -> str:
        return self.engine.render()


class CardzooObserver:
    """OpenSpiel PyObserver: the encoder's observation (float32) and ``render_for`` text."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.tensor = np.zeros(encoder.size, np.float32)
        self.dict = {
            name: self.tensor[piece.slice].reshape(piece.shape)
            for name, piece in encoder.pieces.items()
        }

    def set_from(self, state: CardzooState, player: int) -> None:
        self.encoder.encode_to(state.engine, player, self.tensor)

    def string_from(self, state: CardzooState, player: int) -> str:
        return state.engine.render_for(player)


def register_games() -> list[str]:
    """Register every cardzoo game with OpenSpiel (again: no-op); returns the short names."""
    registered = set(pyspiel.registered_names())
    names = []
    for module in games():
        spec = module.raw_env.game
        name = PREFIX + spec.name
        names.append(name)
        if name in registered:
            continue
        game_type = _game_type(spec)
        title = "".join(ch for ch in spec.title if ch.isalnum())
        cls = type(f"Cardzoo{title}Game", (CardzooGame,), {})
        cls.spec = spec
        cls.game_type = game_type
        pyspiel.register_game(game_type, cls)
    return names
