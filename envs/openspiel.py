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

Parameters: ``players`` (the player count, the Config's ``num_players``), ``variant`` (a named
variant of the env, "" for none), ``seed`` (-1: seeded from the OS) and every rule option with a
scalar default (:func:`rule_parameters`). With ``seed=s``, the first ``new_initial_state()`` deals
the same game as ``env.reset(seed=s)``, and later ones the games the env would deal on later
``reset()`` calls without a seed.

Observations: ``observation_tensor(player)`` is the env's observation for that seat (the game's
default encoder, as float32); its ``dict`` has one entry per encoder piece, reshaped to the piece's
shape. ``observation_string`` is ``render_for(player)``: what the seat sees now.
``information_state_string`` is perfect-recall: ``render_for(player)`` followed by a digest of the
seat's whole information history (:meth:`CardzooState.information_history`), so two states give
the same string only if the seat saw the same things in the same order; equal strings therefore
come with equal legal actions, which OpenSpiel's ISMCTS relies on. No information-state tensor.
Keeping the histories costs an encoding per seat per move; the parameter ``perfect_recall=False``
skips them (for ``rl_environment`` agents, which read the observation tensor), and then
``information_state_string`` is an error.
Actions are the env's action ids (the engine's move ids); ``action_to_string`` is the move's text.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import fields
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


#: Game parameters that are not rule options: the player count (OpenSpiel's usual name for it),
#: the named variant ("" for none), the seed, and whether states keep the perfect-recall
#: information histories (``information_state_string`` needs them; off saves their cost).
NON_RULE_PARAMETERS = ("players", "variant", "seed", "perfect_recall")


def rule_parameters(spec: Any) -> dict[str, Any]:
    """The game's rule options that OpenSpiel can carry, with their defaults.

    OpenSpiel parameters are bool, int, float or str: every ``Config`` field with such a default
    is one (``first_player`` as a string: ``"random"`` or a seat, e.g. ``"0"``). Fields whose
    default is a tuple or ``None`` (Odin's Ravens' fixed land cards, Sitting Ducks' action deck)
    are left out: they keep their defaults. ``num_players`` is the ``players`` parameter.
    """
    default = spec.config_cls()
    out: dict[str, Any] = {}
    for f in fields(spec.config_cls):
        value = getattr(default, f.name)
        if f.name == "num_players" or not isinstance(value, bool | int | float | str):
            continue
        out[f.name] = str(value) if f.name == "first_player" else value
    return out


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
        parameter_specification={
            "players": default.num_players,
            "variant": "",
            "seed": -1,
            "perfect_recall": True,
            **rule_parameters(spec),
        },
    )


def config_from_parameters(spec: Any, params: dict[str, Any]) -> Any:
    """The engine ``Config`` for OpenSpiel game parameters (ValueError naming a bad one).

    OpenSpiel fills in every parameter the user left out with its default, so a parameter equal
    to its default counts as not given: a variant's choice then stands.
    """
    defaults = rule_parameters(spec)
    variant = params.get("variant", "") or None
    options: dict[str, Any] = {}
    players = params.get("players", spec.config_cls().num_players)
    if players != spec.config_cls().num_players:
        options["num_players"] = players
    for name, default in defaults.items():
        value = params.get(name, default)
        if value == default and type(value) is type(default):
            continue
        if name == "first_player" and isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)  # a seat, given as text
        options[name] = value
    try:
        return spec.make_config(variant, **options)  # ValueError names the bad option
    except (TypeError, ValueError) as err:
        hint = " (the 'players' parameter)" if "num_players" in str(err) else ""
        raise ValueError(f"bad python_cardzoo_{spec.name} parameters: {err}{hint}") from err


class CardzooGame(pyspiel.Game):
    """One cardzoo game for OpenSpiel; ``spec`` is the env's :class:`GameSpec`."""

    spec: Any  # set by each registered subclass
    game_type: pyspiel.GameType

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        spec = self.spec
        self.config = config_from_parameters(spec, params or {})
        self.encoder = spec.encoders[spec.default_encoder](self.config)
        players = self.config.num_players
        seed = int((params or {}).get("seed", -1))
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoder.num_actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=(self.config.max_turns + 1) * MOVES_PER_TURN_BOUND,
        )
        # The parameters the game really has (a variant's choices included), so that
        # str(game) loads the same game again.
        self.perfect_recall = bool((params or {}).get("perfect_recall", True))
        resolved = {
            "players": players,
            "variant": (params or {}).get("variant", ""),
            "seed": seed,
            "perfect_recall": self.perfect_recall,
        }
        for name, default in rule_parameters(spec).items():
            value = getattr(self.config, name)
            resolved[name] = str(value) if isinstance(default, str) else value
        super().__init__(self.game_type, info, resolved)
        self._obs_buffer = np.zeros(self.encoder.size, np.float32)
        # The env's own seeding: one generator, a child seed per dealt game.
        self._rng = np.random.default_rng(None if seed < 0 else seed)

    def new_initial_state(self) -> CardzooState:
        engine = self.spec.state_cls(self.config, seed=child_seed(self._rng))
        return CardzooState(self, engine)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> CardzooObserver | CardzooInfoStateObserver:
        if params:
            raise ValueError(f"cardzoo observers take no parameters; got {params}")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return CardzooInfoStateObserver()
        return CardzooObserver(self.encoder)


class _EngineBox:
    """Holds the engine state and the game's encoder. OpenSpiel clones a Python state with
    ``copy.deepcopy`` (which also copies its history); this box makes that copy the engine's own
    fast ``clone()`` and shares the encoder. Pickled (``state.serialize()``) as both."""

    __slots__ = ("engine", "encoder", "buffer")

    def __init__(self, engine: Any, encoder: Any) -> None:
        self.engine = engine
        self.encoder = encoder
        self.buffer = np.zeros(encoder.size, np.float32)

    def __deepcopy__(self, memo: dict[int, Any]) -> _EngineBox:
        return _EngineBox(self.engine.clone(), self.encoder)

    def __getstate__(self) -> tuple[Any, Any]:
        return self.engine, self.encoder

    def __setstate__(self, state: tuple[Any, Any]) -> None:
        self.__init__(*state)

    def observe(self, player: int) -> bytes:
        """What ``player`` sees now: the bytes of its observation (the env's encoder)."""
        self.encoder.encode_to(self.engine, player, self.buffer)
        return self.buffer.tobytes()


def _chain(digest: bytes, event: bytes) -> bytes:
    return hashlib.blake2b(digest + event, digest_size=16).digest()


#: Tags that start a player's information history: a dealt game, or a resampled world in which
#: the player's past is unknown (the other seats of ``resample_from_infostate``'s twin).
_DEALT = b"dealt"
_RESAMPLED = b"resampled"


class CardzooState(pyspiel.State):
    """An OpenSpiel state wrapping one engine ``State`` (:attr:`engine`).

    Besides the engine it keeps, per player, a digest of that player's information history (see
    :meth:`information_history`), updated on every move.
    """

    def __init__(
        self, game: CardzooGame, engine: Any, recall: list[tuple[int, bytes]] | None = None
    ) -> None:
        super().__init__(game)
        self._box = _EngineBox(engine, game.encoder)
        if recall is None and game.perfect_recall:
            recall = [(0, _chain(_DEALT, self._box.observe(p))) for p in range(engine.num_players)]
        self._recall = recall  # None: not kept (perfect_recall=False)

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
        box = self._box
        mover = box.engine.current_player
        box.engine.apply_id(int(action))
        # Each seat's history grows by what it learnt from this move: who moved, the action if
        # it was its own (other seats' actions only through what they changed on the table),
        # and its observation afterwards.
        recall = self._recall
        if recall is None:
            return
        for p, (count, digest) in enumerate(recall):
            own = int(action) if p == mover else -1
            event = struct.pack("<ii", mover, own) + box.observe(p)
            recall[p] = (count + 1, _chain(digest, event))

    def information_history(self, player: int) -> tuple[int, str]:
        """``player``'s information history: (moves seen, hex digest).

        The digest chains, from the deal on, one event per move: the seat that moved, the action
        if ``player`` made it, and ``player``'s observation after it (the env's observation
        vector, a function of what that seat may see). Two states give equal digests exactly
        when (up to a 128-bit hash collision) the player has seen the same things in the same
        order: a perfect-recall information state.
        """
        if self._recall is None:
            raise ValueError(
                f"no information history: {self.get_game()} was loaded with perfect_recall=False"
            )
        count, digest = self._recall[player]
        return count, digest.hex()

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
        ``determinize``; the sampler (a callable giving floats in [0, 1)) seeds its RNG.

        The copy keeps ``player_id``'s information history. The other seats' histories in the
        resampled world are unknown: each restarts from its observation there.
        """
        seed = int(probability_sampler() * 2**31)
        game = self.get_game()
        box = _EngineBox(self.engine.determinize(player_id, seed), game.encoder)
        recall = self._recall and [
            self._recall[p] if p == player_id else (0, _chain(_RESAMPLED, box.observe(p)))
            for p in range(len(self._recall))
        ]
        return CardzooState(game, box.engine, recall)

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


class CardzooInfoStateObserver:
    """OpenSpiel PyObserver for perfect recall: strings only (no information-state tensor).

    The string is ``render_for(player)`` (readable) followed by the player's information history
    (:meth:`CardzooState.information_history`), which makes it perfect-recall.
    """

    def __init__(self) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: CardzooState, player: int) -> None:
        raise pyspiel.SpielError("cardzoo games provide no information-state tensor")

    def string_from(self, state: CardzooState, player: int) -> str:
        count, digest = state.information_history(player)
        return f"{state.engine.render_for(player)}\n[information history: {count} moves, {digest}]"


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
