"""Hand-set positions (scenario tests, analysis): the body of ``State.from_position``.

A position starts at the beginning of a player's turn. Every card is accounted for: ducks not
placed in the row or the duck deck are shot, water not placed goes to the bottom of the duck deck,
action cards not placed go to the draw pile (shuffled, under a given top). Each zone is checked as
it is placed, so an impossible position fails with a message naming the zone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.core import make_rng
from cardzoo.envs.sitting_ducks.config import Config
from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    CARD_KEYS,
    CARD_NAMES,
    DECK_DUCKS_PER_COLOUR,
    DUCKS_PER_COLOUR,
    HAND_SIZE,
    NUM_KINDS,
    NUM_SLOTS,
    NUM_WATER,
    PLAY_PHASE,
    WATER,
)
from cardzoo.envs.sitting_ducks.units import U_COVER, U_TOP, U_UNDER, parse_card, parse_unit

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State


def from_position(
    cls: type[State],
    config: Config | None,
    *,
    row: Iterable[str],
    targets: Iterable[int],
    deck: Iterable[str],
    hands: Mapping[int, Iterable[int | str]] | None,
    draw_pile: Iterable[int | str],
    discard: Iterable[int | str],
    current_player: int,
    colours: Iterable[int] | None,
    known_bottom: int,
    points: Iterable[int] | None,
    seed: int | None,
) -> State:
    """A state of class ``cls`` built from the zones given (see ``State.from_position``)."""
    config = Config() if config is None else config
    state = cls.__new__(cls)
    rng = make_rng(seed)
    state._init_common(config, rng)
    state._check_seat(current_player)
    state._assign_colours(colours)
    units = _place_row(state, row, targets, current_player)
    _place_ducks(state, units, deck, known_bottom)
    _place_action_cards(state, units, hands, draw_pile, discard, rng)
    if points is not None:
        state.points = [int(x) for x in points]
    state.phase = PLAY_PHASE
    state.first_player = current_player
    unseen = [0] * NUM_KINDS
    for kind in state.draw:
        unseen[kind] += 1
    for h in state.hands:
        for kind in h:
            unseen[kind] += 1
    state._log = [(-1, tuple(tuple(h) for h in state.hands), tuple(unseen))]
    state._log_len = 1
    state._begin_turn(current_player)
    if not state._check_end():
        if not state.hands[current_player]:
            raise ValueError(f"current_player {current_player} has no card to play")
    return state


def _place_row(
    state: State, row: Iterable[str], targets: Iterable[int], current_player: int
) -> list[int]:
    """The six units (a Bottoms Up without a seat belongs to the previous player) and the
    targets."""
    n, k = state.num_players, state.num_colours
    units = [parse_unit(t, k, (current_player + 1) % n) for t in row]
    if len(units) != NUM_SLOTS:
        raise ValueError(f"row: expected {NUM_SLOTS} units, got {len(units)}")
    for u in units:
        if U_COVER[u] >= n:
            raise ValueError(f"row: Bottoms Up of seat {U_COVER[u]} in a {n}-player game")
    state.row = units
    state.targets = 0
    for s in targets:
        if not 0 <= s < NUM_SLOTS:
            raise ValueError(f"targets: slots are 0..{NUM_SLOTS - 1}, got {s}")
        state.targets |= 1 << s
    return units


def _place_ducks(state: State, units: list[int], deck: Iterable[str], known_bottom: int) -> None:
    """The duck deck (given top first; unplaced water at the bottom) and the shot ducks."""
    k = state.num_colours
    deck_cards = [parse_card(t, k) for t in deck][::-1]
    placed = [0] * (k + 1)  # per colour, then water
    for u in units:
        for c in (U_TOP[u], U_UNDER[u]):
            if 0 <= c <= WATER:
                placed[min(c, k)] += 1
    for c in deck_cards:
        placed[min(c, k)] += 1
    for c in range(k):
        if placed[c] > DECK_DUCKS_PER_COLOUR:
            raise ValueError(f"{placed[c]} ducks of colour {c} placed; a colour has 5")
    if placed[k] > NUM_WATER:
        raise ValueError(f"{placed[k]} water cards placed; the game has {NUM_WATER}")
    state.deck = [WATER] * (NUM_WATER - placed[k]) + deck_cards
    if not 0 <= known_bottom <= len(state.deck):
        raise ValueError(f"known_bottom must be 0..{len(state.deck)}, got {known_bottom}")
    state.known_bottom = known_bottom
    state.shot = [DUCKS_PER_COLOUR - placed[c] for c in range(k)]


def _place_action_cards(
    state: State,
    units: list[int],
    hands: Mapping[int, Iterable[int | str]] | None,
    draw_pile: Iterable[int | str],
    discard: Iterable[int | str],
    rng: np.random.Generator,
) -> None:
    """Bottoms Up cards on the row, the discard pile, the hands given, the draw pile's top; the
    cards left are shuffled, deal the hands not given and lie under the draw pile's top."""
    pool = list(state.config.action_deck_counts)

    def take(card: int | str, where: str) -> int:
        kind = _kind_of(card)
        if pool[kind] == 0:
            raise ValueError(f"{where}: no {CARD_NAMES[kind]} card left to place")
        pool[kind] -= 1
        return kind

    for u in units:
        if U_COVER[u] >= 0:
            take(BOTTOMS_UP, "row (Bottoms Up)")
    state.discard = [0] * NUM_KINDS
    for card in discard:
        state.discard[take(card, "discard")] += 1
    given = dict(hands or {})
    state.hands = [[] for _ in range(state.num_players)]
    for q, cards in given.items():
        state._check_seat(q)
        state.hands[q] = [take(c, f"hand of seat {q}") for c in cards]
    top = [take(c, "draw_pile") for c in draw_pile]
    rest = [kind for kind in range(NUM_KINDS) for _ in range(pool[kind])]
    rest = [rest[i] for i in rng.permutation(len(rest))]
    for q in range(state.num_players):
        if q not in given:
            state.hands[q] = [rest.pop() for _ in range(min(HAND_SIZE, len(rest)))]
    state.draw = rest + top[::-1]


def _kind_of(card: int | str) -> int:
    """An action card kind from a kind or a snake_case / English name."""
    if isinstance(card, str):
        key = card.strip().lower().replace(" ", "_")
        if key in CARD_KEYS:
            return CARD_KEYS.index(key)
        raise ValueError(f"unknown action card {card!r}; cards: {', '.join(CARD_KEYS)}")
    if isinstance(card, bool) or not 0 <= card < NUM_KINDS:
        raise ValueError(f"action card kind must be 0..{NUM_KINDS - 1}, got {card!r}")
    return int(card)
