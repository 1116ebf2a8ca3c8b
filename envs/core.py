"""The contract every cardzoo rules engine follows, and the small helpers they share.

A rules engine lives in ``envs/<game>/`` and imports nothing from RL libraries. It exposes:

``Config``
    A frozen dataclass holding the player count (``num_players``), every rule option of the game's
    rules spec with the documented defaults, and ``max_turns``, the env's truncation cap.
    ``__post_init__`` validates each field and raises ``ValueError`` naming the option and its
    allowed values (use :func:`check_option`).

``MOVES`` / ``MOVE_INDEX``
    The game's *move universe*: a tuple of every move that can ever be legal, each a small,
    hashable, readable value (a named tuple) whose ``str()`` reads like the rulebook, and the
    inverse mapping ``MOVE_INDEX[move] -> id``. Move ids are stable across versions of the engine;
    encoders use them as (or map them to) action ids, so the hot path never builds move objects.

``State``
    The whole game state, a subclass of :class:`GameState` (which supplies ``legal_moves``,
    ``apply`` and the input checks). It owns its ``numpy.random.Generator`` (never the global
    RNGs) and offers:

    - ``State(config, seed=None)``: a new game, shuffled and dealt;
    - attributes ``config``, ``num_players``, ``current_player`` (``-1`` once terminal),
      ``terminal`` (bool) and ``turn`` (completed turns, used for the ``max_turns`` truncation);
    - ``legal_move_ids() -> list[int]`` (ascending) and ``legal_moves() -> list[Move]``;
    - ``apply(move)``: accepts a move or a move id; an illegal one raises :class:`IllegalMoveError`
      and leaves the state unchanged;
    - ``is_legal(move_id) -> bool`` (cheap, no list built) and ``apply_id(move_id)``, the unchecked
      fast path the env uses after its own legality check;
    - ``winners() -> tuple[int, ...]`` once terminal (empty tuple = nobody won, e.g. a draw);
    - ``scores() -> tuple[float, ...]``, the game's own score per player, where it has one;
    - ``teams() -> tuple[tuple[int, ...], ...]``: the sides sharing a result (:class:`GameState`
      gives one per seat; a game with partnerships overrides it);
    - ``clone()``: a cheap, independent copy (including the RNG state);
    - ``view(player)``: a read-only record of everything that player may see and nothing else
      (rules spec, section "Information");
    - ``determinize(player, rng)``: a clone in which everything ``player`` cannot see has been
      resampled consistently with what they can see (used by the hidden-information tests and by
      search agents);
    - ``census() -> dict[str, list[int]]``: card counts per card kind for every zone; the zones
      always add up to the property ``card_totals`` (used by the conservation tests);
    - ``end_reason``: why the game ended (a short string), ``None`` while it goes on; the class
      attribute ``END_REASONS`` lists every value it can take;
    - ``truncated``: whether a truncation cap of the config was reached (the env ends the episode
      as truncated, not scored). :class:`GameState` gives ``turn >= config.max_turns``; a game
      with more caps overrides it;
    - ``move_count``: moves applied since the deal (the env uses it to notice outside changes);
    - ``render_for(player) -> str``: what one seat may see, as text (a function of its view);
    - ``render() -> str``: a human-readable table of the whole state with card names.

A turn made of several decisions (Cubirds: lay, then maybe draw, then maybe flock) is a sequence of
moves by the same ``current_player``; each decision is one environment step.
"""

from __future__ import annotations

import functools
import gc
from abc import abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import fields
from typing import Any, ClassVar, TypeVar

import numpy as np
from numpy.random.bit_generator import ISeedSequence


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the current state. The state is left unchanged."""


#: ``GameState.teams()`` when every seat plays alone, per player count.
_SOLO_TEAMS: dict[int, tuple[tuple[int, ...], ...]] = {}


#: Every piece of the engine contract that is not a plain method of :class:`GameState`, with what it
#: is: the env, the encoders, the agents, the search code and the conformance suite rely on each.
#: Methods are declared below as abstract methods; these are the attributes. A ``State`` class
#: that lacks one fails when it is defined (:meth:`GameState.__init_subclass__`).
CONTRACT_ATTRIBUTES: dict[str, str] = {
    "MOVES": "class attribute: tuple of every move that can ever be legal, indexed by move id",
    "MOVE_INDEX": "class attribute: dict move -> move id (the inverse of MOVES)",
    "TITLE": "class attribute: the game's name as shown in errors and renders",
    "PHASE_NAMES": "class attribute: the name of each phase number (errors, encoders, renders)",
    "END_REASONS": "class attribute: every value end_reason can take",
    "config": "attribute: the game's frozen Config",
    "num_players": "attribute: the player count",
    "current_player": "attribute: the seat to move, -1 once terminal",
    "terminal": "attribute: whether the game has ended",
    "phase": "attribute: the current phase number (an index into PHASE_NAMES)",
    "turn": "attribute: completed turns, compared with config.max_turns",
    "move_count": "attribute: moves applied since the deal",
    "end_reason": "attribute: why the game ended (one of END_REASONS), None while it goes on",
    "card_totals": "property: card count per kind over every zone (what census() adds up to)",
}


class GameState:
    """What every engine's ``State`` shares, and the contract it must fulfil.

    It supplies moves by object or id (:meth:`legal_moves`, :meth:`apply` with its checks and
    errors), :meth:`teams`, :attr:`truncated` and the seat check. A subclass provides every
    abstract method below and every entry of :data:`CONTRACT_ATTRIBUTES`; one that does not fails
    when its class statement runs, with a ``TypeError`` naming each missing piece. A partial base
    meant to be subclassed further passes ``abstract=True`` in its class statement.
    """

    __slots__ = ()
    MOVES: ClassVar[tuple[Any, ...]]
    MOVE_INDEX: ClassVar[dict[Any, int]]
    TITLE: ClassVar[str]
    PHASE_NAMES: ClassVar[tuple[str, ...]]
    END_REASONS: ClassVar[tuple[str, ...]]
    config: Any
    num_players: int
    current_player: int
    terminal: bool
    phase: int
    turn: int
    move_count: int
    end_reason: str | None

    def __init_subclass__(cls, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if abstract:
            return
        missing = [
            f"{name} ({what})"
            for name, what in CONTRACT_ATTRIBUTES.items()
            if not hasattr(cls, name)
        ]
        for name in dir(cls):
            member = getattr(cls, name, None)
            if getattr(member, "__isabstractmethod__", False):
                summary = (member.__doc__ or "").strip().splitlines()[0]
                missing.append(f"{name}() ({summary})")
        if missing:
            listed = "\n  - ".join(missing)
            raise TypeError(
                f"{cls.__module__}.{cls.__qualname__} does not fulfil the cardzoo engine contract "
                f"(cardzoo.envs.core); it lacks:\n  - {listed}"
            )

    # --- the methods every engine provides --------------------------------------------------

    @abstractmethod
    def legal_move_ids(self) -> list[int]:
        """Ids of the current player's legal moves, ascending (a new list)."""

    @abstractmethod
    def is_legal(self, move_id: int) -> bool:
        """Whether the move with this id is legal now (cheap: builds no list)."""

    @abstractmethod
    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env's unchecked fast path)."""

    @abstractmethod
    def winners(self) -> tuple[int, ...]:
        """The winning seats once terminal (empty: nobody won)."""

    @abstractmethod
    def scores(self) -> tuple[float, ...]:
        """The game's own score per seat."""

    @abstractmethod
    def clone(self) -> GameState:
        """A cheap, independent copy, RNG state included."""

    @abstractmethod
    def view(self, player: int) -> Any:
        """A read-only record of everything ``player`` may see and nothing else."""

    @abstractmethod
    def determinize(self, player: int, rng: np.random.Generator | int | None = None) -> GameState:
        """A copy with everything ``player`` cannot see resampled from what it has seen."""

    @abstractmethod
    def census(self) -> dict[str, list[int]]:
        """Card counts per kind for every zone (they add up to ``card_totals``)."""

    @abstractmethod
    def render(self) -> str:
        """The whole table as text, hidden cards included."""

    @abstractmethod
    def render_for(self, player: int) -> str:
        """What one seat may see, as text (a function of its view)."""

    @property
    def truncated(self) -> bool:
        """Whether the game was cut by ``config.max_turns`` (never true once it has ended)."""
        return not self.terminal and self.turn >= self.config.max_turns

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The sides of the game, each a tuple of seats that share one result (ascending).

        By default every seat plays alone; a game with partnerships overrides it. Read by
        :func:`cardzoo.envs.outcome.outcome` for team results.
        """
        n = self.num_players
        teams = _SOLO_TEAMS.get(n)
        if teams is None:  # built once per player count: it is read at the end of every game
            teams = _SOLO_TEAMS[n] = tuple((q,) for q in range(n))
        return teams

    def legal_moves(self) -> list[Any]:
        """The legal moves for the current player."""
        return [self.MOVES[i] for i in self.legal_move_ids()]

    def apply(self, move: Any) -> None:
        """Play ``move`` (a move or its id) for the current player.

        Raises :class:`IllegalMoveError` (state unchanged) if it is not legal now.
        """
        move_id = self._move_id(move)
        if not self.is_legal(move_id):
            self._reject(move)
        self.apply_id(move_id)

    def _move_id(self, move: Any) -> int:
        if isinstance(move, (int, np.integer)) and not isinstance(move, bool):
            if not 0 <= move < len(self.MOVES):
                raise IllegalMoveError(f"move id {move} is out of range 0..{len(self.MOVES) - 1}")
            return int(move)
        try:
            return self.MOVE_INDEX[move]
        except (KeyError, TypeError):
            raise IllegalMoveError(f"{move!r} is not a {self.TITLE} move") from None

    def _reject(self, move: Any) -> None:
        if self.terminal:
            raise IllegalMoveError(f"the game is over; no move is legal (got {move!r})")
        shown = self.MOVES[move] if isinstance(move, (int, np.integer)) else move
        legal = "; ".join(str(m) for m in self.legal_moves())
        raise IllegalMoveError(
            f"illegal move for seat {self.current_player} in the "
            f"{self.PHASE_NAMES[self.phase]} phase: {shown}. Legal: {legal}"
        )

    def _check_seat(self, player: Any) -> None:
        """Raise ``ValueError`` unless ``player`` is a seat index of this game."""
        n = self.num_players
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
        if not 0 <= player < n:
            raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")


def plain_scalar(value: Any) -> Any:
    """``value`` with numpy scalars turned into their Python equivalents (``np.int64(3)`` -> 3,
    ``np.True_`` -> True); anything else unchanged."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def normalize_config(config: Any) -> None:
    """Turn every numpy scalar field of a frozen ``Config`` dataclass into a Python scalar.

    Called first in each engine's ``Config.__post_init__``: numpy integers and bools are accepted
    wherever Python ones are, and the validated config holds only plain values.
    """
    for f in fields(config):
        value = getattr(config, f.name)
        if isinstance(value, np.generic):
            object.__setattr__(config, f.name, value.item())


class CachedLegalMoves:
    """For engines whose legal moves take real work: computed once per position, on demand.

    The subclass has a ``_legal`` slot (set to None whenever the position changes; copies may
    share the list, which is never changed in place) and a ``_compute_legal()`` method.
    """

    __slots__ = ()
    _legal: list[int] | None

    def _compute_legal(self) -> list[int]:
        raise NotImplementedError

    def legal_move_ids(self) -> list[int]:
        """Ids of the legal moves for the current player, ascending."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal[:]

    def is_legal(self, move_id: int) -> bool:
        """Whether the move with this id is legal now."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return move_id in legal


def check_option(name: str, value: Any, allowed: Iterable[Any]) -> None:
    """Raise ``ValueError`` naming ``name`` and the allowed values unless ``value`` is allowed."""
    allowed = list(allowed)
    value = plain_scalar(value)
    # bool is an int subclass: True must not pass as the seat index 1, nor 1 as True.
    ok = any(value == a and type(value) is type(a) for a in allowed)
    if not ok:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"invalid value {value!r} for option {name!r}; allowed: {shown}")


def check_int_range(name: str, value: Any, low: int, high: int | None = None) -> None:
    """Raise ``ValueError`` unless ``value`` is an int in ``[low, high]`` (None: no cap)."""
    value = plain_scalar(value)
    if high is None:
        bounds = f"an int >= {low}"
    elif high == low:  # a single value: "2", not "an int in 2..2"
        bounds = f"the int {low}"
    else:
        bounds = f"an int in {low}..{high}"
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"option {name!r} must be {bounds}, got {value!r}")
    if value < low or (high is not None and value > high):
        raise ValueError(f"invalid value {value!r} for option {name!r}; allowed: {bounds}")


def check_first_player(value: Any, num_players: int) -> None:
    """Validate the common ``first_player`` option: ``"random"`` or a seat index."""
    check_option("first_player", value, ["random", *range(num_players)])


_Call = TypeVar("_Call", bound=Callable[..., Any])


def collector_paused(function: _Call) -> _Call:
    """``function`` with Python's cyclic garbage collector paused while it runs, and enabled
    again after (also when it raises) if it was enabled; left alone if it was not.

    For code that builds many small containers which die by their reference counts (the
    Cubirds counting tables, Odin's Ravens' label states): a collection in the middle finds
    nothing to free, but moves what is alive at that moment to the older generations and so
    brings on the full collections, which walk every object of the process (about 56 ms with
    torch and Stable-Baselines3 imported, measured 2026-12-05). The pause is process-wide:
    another thread's allocations meanwhile are not collected either, and a ``gc.disable()``
    another thread makes meanwhile is undone when ``function`` returns."""

    @functools.wraps(function)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()

    return paused  # type: ignore[return-value]


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A private generator from a seed (int or None) or an existing generator (used as is)."""
    if isinstance(seed, np.random.Generator):
        return seed
    seed = plain_scalar(seed)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"seed must be an int, None or numpy.random.Generator, got {seed!r}")
    return np.random.default_rng(seed)


def clone_rng(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in exactly the same state as ``rng``, copied lazily.

    Only the bit generator's state is read now; the generator itself is built the first time the
    copy is used. Searches clone a state per candidate move and most clones never draw, so they
    skip the costly part. Later draws from ``rng`` do not affect the copy.
    """
    if type(rng) is LazyGenerator:
        return rng._copy()
    bit_generator = rng.bit_generator
    return LazyGenerator(type(bit_generator), bit_generator.state)


class _NoSeed(ISeedSequence):
    """A seed sequence that costs nothing: the state it gives is overwritten at once."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> np.ndarray:
        return np.zeros(n_words, dtype=dtype)


_NO_SEED = _NoSeed()


def _generator_from_state(kind: type, state: dict[str, Any]) -> np.random.Generator:
    """A new ``Generator`` on a ``kind`` bit generator (e.g. ``PCG64``) set to ``state``."""
    bit_generator = kind(_NO_SEED)
    bit_generator.state = state
    return np.random.Generator(bit_generator)


class LazyGenerator:
    """What :func:`clone_rng` returns: a ``numpy.random.Generator`` built on first use.

    It holds a snapshot of the original's bit-generator state (a dict, never mutated; copies of an
    unused copy share it) and forwards every attribute to the real generator, built from the
    snapshot when first needed, so draws give exactly the numbers the original would have given
    at the time of the copy. ``isinstance(x, numpy.random.Generator)`` holds; pickling and
    ``copy`` turn it into a plain ``Generator`` in the same state.
    """

    __slots__ = ("_kind", "_snapshot", "_generator")

    def __init__(self, kind: type, snapshot: dict[str, Any]) -> None:
        self._kind = kind
        self._snapshot = snapshot
        self._generator: np.random.Generator | None = None

    def _real(self) -> np.random.Generator:
        generator = self._generator
        if generator is None:
            generator = self._generator = _generator_from_state(self._kind, self._snapshot)
            self._snapshot = None  # the generator now holds (and advances) the state
        return generator

    def _state(self) -> dict[str, Any]:
        if self._generator is None:
            return self._snapshot
        return self._generator.bit_generator.state

    def _copy(self) -> LazyGenerator:
        return LazyGenerator(self._kind, self._state())

    def __getattr__(self, name: str) -> Any:
        # Called only for names not found on this class: every Generator method and attribute.
        return getattr(self._real(), name)

    # isinstance() consults __class__ after type(): callers that check for a Generator accept it.
    @property
    def __class__(self) -> type:  # type: ignore[override]
        return np.random.Generator

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _generator_from_state, (self._kind, self._state())

    def __copy__(self) -> np.random.Generator:
        return _generator_from_state(self._kind, self._state())

    def __deepcopy__(self, memo: dict[int, Any]) -> np.random.Generator:
        return _generator_from_state(self._kind, self._state())

    def __repr__(self) -> str:
        return f"LazyGenerator({self._kind.__name__})"


class SeededGenerator(LazyGenerator):
    """``numpy.random.default_rng(seed)``, built the first time it is used (:func:`child_rng`).

    Building a seeded generator costs about 20-40 us (its seed sequence), a large share of a
    cheap ``determinize`` call, and most resampled states are searched and dropped without ever
    drawing. Its draws are those of ``default_rng(seed)``; an unused one is copied as the seed
    alone, a used one as a :class:`LazyGenerator` of its current state.
    """

    __slots__ = ("_seed",)

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64, {})
        self._seed = seed

    def _real(self) -> np.random.Generator:
        generator = self._generator
        if generator is None:
            generator = self._generator = np.random.default_rng(self._seed)
        return generator

    def _state(self) -> dict[str, Any]:
        return self._real().bit_generator.state

    def _copy(self) -> LazyGenerator:
        if self._generator is None:
            return SeededGenerator(self._seed)
        return LazyGenerator(self._kind, self._state())


def child_rng(rng: np.random.Generator) -> np.random.Generator:
    """A new, independent generator for a copy or a sample, seeded by one draw from ``rng``
    (:func:`child_seed`) and built on first use: what every game's ``determinize`` gives the
    state it returns."""
    return SeededGenerator(child_seed(rng))


def resolve_first_player(value: int | str, num_players: int, rng: np.random.Generator) -> int:
    """The seat that starts: a fixed seat, or one drawn from the game's own RNG."""
    if value == "random":
        return int(rng.integers(num_players))
    return int(value)


def child_seed(rng: np.random.Generator) -> int:
    """A seed for a new, independent generator, drawn from ``rng`` (one draw, any int63).

    Used wherever a game, a copy or a sample gets its own generator from a parent one: the seed
    is a plain int, so the child can be rebuilt and logged.
    """
    bit_generator = rng.bit_generator
    if type(bit_generator) is np.random.PCG64:
        # ``integers(2**63)`` on PCG64 is one 64-bit draw halved (NumPy's Lemire method with a
        # power-of-two range never rejects): the same number at a quarter of the cost, which
        # every ``determinize`` pays (``test_child_seed_is_a_draw_of_integers_below_2_to_63``).
        return int(bit_generator.random_raw()) >> 1
    return int(rng.integers(2**63))


# Move types are named tuples; two moves of different types with the same fields (say a lay and a
# draw of the same numbers) must still differ as keys of MOVE_INDEX. Engines set these three as
# ``__eq__``, ``__ne__`` and ``__hash__`` of their move classes.


def typed_eq(self: tuple, other: object) -> bool:
    """Equal only to a move of the very same type with the same fields."""
    return type(self) is type(other) and tuple.__eq__(self, other)


def typed_ne(self: tuple, other: object) -> bool:
    """The negation of :func:`typed_eq`."""
    return not typed_eq(self, other)


def typed_hash(self: tuple) -> int:
    """A hash that includes the type's name, consistent with :func:`typed_eq`."""
    return hash((type(self).__name__, *self))
