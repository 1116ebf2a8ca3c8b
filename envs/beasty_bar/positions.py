"""Hand-set Beasty Bar positions (scenario tests, analysis): :func:`from_position`.

``State.from_position`` is a classmethod that calls :func:`from_position` here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from cardzoo.envs.beasty_bar.config import Config
from cardzoo.envs.beasty_bar.data import (
    MAX_BEFORE_PLAY,
    MAX_PILE,
    NAMES,
    NUM_ANIMALS,
    PLAY_PHASE,
    card_name,
    card_of,
)
from cardzoo.envs.core import make_rng

if TYPE_CHECKING:
    from cardzoo.envs.beasty_bar.game import State


def strength(animal: int | str) -> int:
    """A strength from a strength or an animal name (case-insensitive)."""
    if isinstance(animal, str):
        try:
            return NAMES.index(animal.strip().capitalize())
        except ValueError:
            raise ValueError(
                f"unknown animal {animal!r}; animals: {', '.join(NAMES[1:])}"
            ) from None
    if isinstance(animal, bool) or not 1 <= animal <= NUM_ANIMALS:
        raise ValueError(f"animal strength must be 1..{NUM_ANIMALS}, got {animal!r}")
    return int(animal)


class _Cards:
    """Turns ``(animal, owner)`` pairs into cards, each at most once, for ``n`` seats."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.placed: set[int] = set()

    def card(self, animal: int | str, owner: int) -> int:
        n = self.n
        if not 0 <= owner < n:
            raise ValueError(f"owner must be a seat 0..{n - 1}, got {owner!r}")
        c = card_of(strength(animal), owner)
        if c in self.placed:
            raise ValueError(f"{card_name(c)} is placed twice")
        self.placed.add(c)
        return c

    def pairs(self, pairs: Iterable[tuple[Any, int]]) -> list[int]:
        return [self.card(a, o) for a, o in pairs]

    def per_seat(self, name: str, value: Sequence[Sequence[Any]] | None) -> list[list[int]]:
        n = self.n
        value = [[] for _ in range(n)] if value is None else value
        if len(value) != n:
            raise ValueError(f"{name}: expected {n} lists, got {len(value)}")
        return [[self.card(a, p) for a in cards] for p, cards in enumerate(value)]


def from_position(
    cls: type[State],
    config: Config | None,
    *,
    queue: Iterable[tuple[Any, int]],
    hands: Sequence[Sequence[Any]] | None,
    draw_piles: Sequence[Sequence[Any]] | None,
    bar: Iterable[tuple[Any, int]],
    thats_it: Iterable[tuple[Any, int]],
    set_aside: Sequence[Sequence[Any]] | None,
    current_player: int,
    first_player: int | None,
    turn: int,
    seed: int | None,
) -> State:
    """The body of :meth:`State.from_position` (see there for the arguments)."""
    config = Config() if config is None else config
    n = config.num_players
    state = cls.__new__(cls)
    state.config = config
    state.num_players = n
    state.rng = make_rng(seed)
    cards = _Cards(n)
    state.queue = cards.pairs(queue)
    if len(state.queue) > MAX_BEFORE_PLAY:
        raise ValueError(f"queue: at most {MAX_BEFORE_PLAY} animals before a turn")
    state.bar = cards.pairs(bar)
    state.hands = cards.per_seat("hands", hands)
    state.draws = [d[::-1] for d in cards.per_seat("draw_piles", draw_piles)]
    if any(len(d) > MAX_PILE for d in state.draws):
        raise ValueError(f"draw_piles: at most {MAX_PILE} cards per pile (12 minus a hand)")
    state.set_asides = cards.per_seat("set_aside", set_aside)
    state.thats_it = cards.pairs(thats_it)
    # Cards placed nowhere are out of the game: THAT'S IT keeps the census whole.
    state.thats_it += [c for c in range(NUM_ANIMALS * n) if c not in cards.placed]
    state.first_player = current_player if first_player is None else first_player
    state.turn = turn
    state.move_count = 0
    state.phase = PLAY_PHASE
    state.terminal = False
    state.end_reason = None
    state._legal = None
    state._winners = ()
    state.current_player = current_player
    if not any(state.hands):
        state._finish()
    elif not state.hands[current_player]:
        raise ValueError(f"current_player {current_player} has no card to play")
    return state
