"""The agent protocol shared by every player of a cardzoo game, and the seat handle agents get.

An agent picks an action id from an observation and its action mask:
``agent.act(observation, action_mask, *, seat=None)``. Agents that need the rules (heuristics,
search, a human at a prompt) also receive ``seat``, a :class:`Seat`: a handle bound to one seat
of a live game that offers only what that seat may know:

- ``seat.player``, ``seat.num_players``, ``seat.config`` (the rule options),
  ``seat.current_player``, ``seat.phase``, ``seat.terminal``: public facts of the game;
- ``seat.view()``: the engine's ``view(player)``, everything the seat may see and nothing else;
- ``seat.legal_move_ids()`` / ``seat.legal_moves()`` / ``seat.is_legal(id)``: the legal moves
  (they depend only on the mover's own cards and the public table);
- ``seat.determinize(rng)``: a full game state in which everything the seat cannot see has been
  sampled consistently with what it has seen, for look-ahead and search (``State.determinize``);
- ``seat.move_text(id)``: a move id as rulebook text; ``seat.render()``: the seat's table as text;
- ``seat.observe(encoder)``: the seat's observation by another of the game's encoders.

The handle holds no copy of the game (building one costs a few hundred nanoseconds), and the
engine state is not reachable through its attributes: it lives in a slot whose accessor is
removed from the class, so ``seat.state``, ``seat._state``, ``vars(seat)`` and ``dir(seat)`` find
nothing, and the handle is read-only and cannot be pickled or copied. Python has no true privacy
(``gc.get_referents`` still finds the state), so the heuristics' tests also check behaviour:
positions that differ only in hidden cards get the same moves.

The old keywords ``act(..., state=STATE, player=P)`` still work for one release: they are wrapped
into ``Seat(STATE, P)`` with a ``DeprecationWarning``.
"""

from __future__ import annotations

import warnings
from typing import Any, NoReturn, Protocol, runtime_checkable

import numpy as np


class Seat:
    """One seat of a live game, as that seat may know it (see the module docstring).

    ``Seat(state, player)`` binds the handle to an engine ``State`` and a seat index; it follows
    the game as moves are applied (it is a window, not a snapshot).
    """

    __slots__ = ("player", "_game")

    def __init__(self, state: Any, player: int) -> None:
        n = getattr(state, "num_players", None)
        if not isinstance(n, int) or not hasattr(state, "view"):
            raise TypeError(f"Seat: expected a game State, got {type(state).__name__}")
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
            raise ValueError(f"Seat: player must be a seat 0..{n - 1}, got {player!r}")
        if not 0 <= player < n:
            raise ValueError(f"Seat: player must be a seat 0..{n - 1}, got {player!r}")
        _set_player(self, int(player))
        _set_game(self, state)

    # -- public facts -----------------------------------------------------------------------------

    @property
    def num_players(self) -> int:
        return _game(self).num_players

    @property
    def config(self) -> Any:
        """The game's rule options (a frozen ``Config``)."""
        return _game(self).config

    @property
    def current_player(self) -> int:
        """The seat to move, ``-1`` once the game is over."""
        return _game(self).current_player

    @property
    def phase(self) -> int:
        """The current phase (an index into the engine's ``PHASE_NAMES``)."""
        return _game(self).phase

    @property
    def terminal(self) -> bool:
        return _game(self).terminal

    # -- what the seat may see --------------------------------------------------------------------

    def view(self) -> Any:
        """The engine's ``view(player)``: everything this seat may see, and nothing else.

        Built afresh on each call: keep it for the rest of the decision."""
        return _game(self).view(self.player)

    def observe(self, encoder: Any) -> np.ndarray:
        """This seat's observation vector by ``encoder``, one of cardzoo's own encoders (built for
        this game's config), e.g. another encoder than the env's for a policy trained on it.

        Only the library's encoders are accepted: each is tested to read only what the seat may
        see (the conformance suite resamples every hidden card and requires the same vector)."""
        from cardzoo.encoders.base import Encoder

        if not (isinstance(encoder, Encoder) and type(encoder).__module__.startswith(_OWN)):
            raise TypeError(f"observe: expected one of cardzoo's encoders, got {encoder!r}")
        return encoder.encode(_game(self), self.player)

    def legal_move_ids(self) -> list[int]:
        """Ids of the legal moves (ascending; empty unless this seat is to move)."""
        game = _game(self)
        if game.current_player != self.player:
            return []
        return game.legal_move_ids()

    def legal_moves(self) -> list[Any]:
        """The legal moves as move objects (empty unless this seat is to move)."""
        moves = _game(self).MOVES
        return [moves[i] for i in self.legal_move_ids()]

    def is_legal(self, move_id: int) -> bool:
        game = _game(self)
        return game.current_player == self.player and game.is_legal(move_id)

    def determinize(self, rng: np.random.Generator | int | None = None, **options: Any) -> Any:
        """A full, independent game state: what this seat cannot see sampled (from ``rng``)
        consistently with what it has seen. Play moves on it freely; it is not the real game.
        ``options`` go to the game's ``determinize`` (Sitting Ducks Gallery: ``exact``)."""
        return _game(self).determinize(self.player, rng, **options)

    def move_text(self, move_id: int) -> str:
        """The move with this id, as rulebook text."""
        moves = _game(self).MOVES
        if isinstance(move_id, bool) or not isinstance(move_id, (int, np.integer)):
            raise ValueError(f"move_text: a move id must be an int, got {move_id!r}")
        if not 0 <= move_id < len(moves):
            raise ValueError(f"move_text: move id {move_id} is out of range 0..{len(moves) - 1}")
        return str(moves[move_id])

    def render(self) -> str:
        """This seat's table as text (the engine's ``render_for(player)``)."""
        return _game(self).render_for(self.player)

    # -- a read-only window on a live game --------------------------------------------------------

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"a Seat is read-only (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"a Seat is read-only (cannot delete {name!r})")

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError("a Seat is bound to a live game: it cannot be pickled or copied")

    def __repr__(self) -> str:
        return f"<Seat {self.player} of {_game(self).TITLE}>"


_OWN = "cardzoo.encoders."  # the module prefix of the library's encoders

# The game lives in the slot "_game", whose descriptor is taken off the class: only this module
# can read it, and no attribute lookup on a Seat reaches the engine state.
_set_player = Seat.__dict__["player"].__set__
_GAME_SLOT = Seat.__dict__["_game"]
_set_game = _GAME_SLOT.__set__
_game = _GAME_SLOT.__get__
del Seat._game


def seat_from(
    seat: Seat | None, state: Any, player: int | None, who: str, stacklevel: int = 3
) -> Seat | None:
    """The seat handle an ``act`` was given, wrapping the deprecated ``state=``/``player=``
    keywords into one (with a ``DeprecationWarning`` naming ``who``, reported ``stacklevel``
    frames up: the default points at the caller of ``act``)."""
    if state is None and player is None:
        return seat
    warnings.warn(
        f"{who}.act(state=..., player=...) is deprecated and will be removed in the next "
        "release; pass seat=Seat(state, player) instead",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    if seat is not None:
        raise ValueError(f"{who}.act: give seat= alone, not together with state=/player=")
    if state is None or player is None:
        return None
    return Seat(state, player)


def acting_seat(seat: Seat | None, state: Any, player: int | None, who: str) -> Seat:
    """For agents that need the game: the handle (see :func:`seat_from`), checked to be present
    and to be the seat to move. Raises ``ValueError`` naming ``who`` otherwise."""
    if state is not None or player is not None:
        seat = seat_from(seat, state, player, who, stacklevel=4)
    if seat is None:
        raise ValueError(f"{who} needs seat=Seat(state, player), the handle of the seat to move")
    mover = seat.current_player
    if mover != seat.player:
        raise ValueError(f"{who}: seat {seat.player} is not to move (seat {mover} is)")
    return seat


class SeatAgent:
    """Base of the agents that decide from their seat's handle (the heuristics, ISMCTS): ``act``
    finds the seat, plays a move that has no alternative at once, and otherwise asks
    :meth:`choose`."""

    name = "seat agent"

    def act(
        self,
        observation: Any,
        action_mask: Any,
        *,
        seat: Seat | None = None,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        seat = acting_seat(seat, state, player, type(self).__name__)
        legal = seat.legal_move_ids()
        if len(legal) == 1:
            self.forced()
            return legal[0]
        return self.choose(seat, legal)

    def forced(self) -> None:
        """Called when the only legal move is played without thinking (a hook for statistics)."""

    def choose(self, seat: Seat, legal: list[int]) -> int:
        """The move id to play among ``legal`` (two or more), from what ``seat`` may know."""
        raise NotImplementedError


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act``; ``name`` labels it in tournament tables."""

    name: str

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        seat: Seat | None = None,
    ) -> int:
        """Return a legal action id (one whose mask entry is 1). ``seat`` is the acting seat's
        handle, given by every caller that has the game (agents that need it raise
        ``ValueError`` without it)."""
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
        seat: Seat | None = None,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        if state is not None or player is not None:
            seat_from(seat, state, player, "RandomAgent")
        if type(action_mask) is not np.ndarray or action_mask.ndim != 1:
            action_mask = np.ravel(action_mask)  # lists, and masks of shape (1, n)
        # The same ascending indices as np.flatnonzero, at a fraction of its call overhead.
        legal = action_mask.nonzero()[0]
        if legal.size == 0:
            raise ValueError("RandomAgent.act: the action mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])
