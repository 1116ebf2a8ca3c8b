"""Hand-set Odin's Ravens positions (scenario tests, analysis): :func:`from_position`.

``State.from_position`` is a classmethod that calls :func:`from_position` here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from cardzoo.envs.core import make_rng
from cardzoo.envs.odins_ravens import hidden
from cardzoo.envs.odins_ravens.config import Config, card_totals
from cardzoo.envs.odins_ravens.data import (
    CODE_PAIR,
    KIND_NAMES,
    LAND_KIND_BASE,
    LAND_LETTERS,
    MAGIC_WAY_KIND_BASE,
    NUM_KINDS,
    NUM_MAGIC_WAY_CARDS,
    NUM_PAIRS,
    NUM_TYPES,
    PAIR_KIND,
    PAIRS,
)

if TYPE_CHECKING:
    from cardzoo.envs.odins_ravens.game import State


def from_position(
    cls: type[State],
    config: Config | None = None,
    *,
    paths: tuple[Sequence[Any], Sequence[Any]],
    pos: tuple[int, int] = (-1, -1),
    stone: tuple[int, int] | None = None,
    hands: Sequence[Sequence[Any]] = ((), ()),
    aux: Sequence[Sequence[Any]] = ((), ()),
    draw_piles: Sequence[Sequence[Any]] | None = None,
    magic_way: int = 0,
    magic_way_rows: Sequence[Sequence[Any]] = ((), ()),
    land_deck: Sequence[tuple[Any, Any]] | None = None,
    current_player: int = 0,
    totals: tuple[int, int] = (0, 0),
    race: int = 1,
    last_race_winner: int = -1,
    used: tuple[int, int] = (0, 0),
    seed: int | None = 0,
) -> State:
    """A hand-set position at the start of ``current_player``'s plays (play phase).

    ``paths`` are the land types of both paths (ints 0..4 or letters ``"FMPSW"``), card 0
    first; ``stone`` is ``(card, path seat)``. Cards are kinds 0..8 or names (``"M"``,
    ``"O3"``). ``aux`` piles and ``draw_piles`` are listed **top first**; a seat's cards not
    placed anywhere (by default the whole rest of its deck) go to its discard pile, so the
    census adds up. ``land_deck`` lists land cards top first; by default the land cards not
    in the row, in a seeded random order. ``used`` = cards already taken this turn from hand
    and from the auxiliary deck.
    """
    config = Config() if config is None else config
    state = cls.__new__(cls)
    state.config = config
    state.num_players = 2
    state.rng = make_rng(seed)
    state.first_player = current_player
    _place_track(state, paths, land_deck)
    _place_pieces(state, pos, stone, magic_way)
    state.hands, state.aux, state.draws = [], [], []
    state.discards, state.magic_way_rows, state.logs = [], [], []
    for p in range(2):
        _place_cards(state, p, (hands, aux, magic_way_rows), draw_piles)
    state.known_from = [hidden.NO_CHECKPOINT, hidden.NO_CHECKPOINT]
    state._beliefs = [None, None]
    state.reshuffled = [[0] * NUM_KINDS, [0] * NUM_KINDS]
    state.drawn_since = [sum(state.hands[p]) + len(state.aux[p]) for p in range(2)]
    state.totals = list(totals)
    state.race = race
    state.race_turn = 0
    state.turn = 0
    state.move_count = 0
    state.race_first = current_player
    state.last_race = (last_race_winner, 0, -1)
    state.terminal = False
    state.end_reason = None
    state._winners = ()
    state._start_turn(current_player)
    state.used_hand, state.used_aux = used
    return state


def _place_track(
    state: State,
    paths: tuple[Sequence[Any], Sequence[Any]],
    land_deck: Sequence[tuple[Any, Any]] | None,
) -> None:
    """The row and the land deck (by default the land cards the row leaves, seeded order)."""
    p0 = [_land_type(x) for x in paths[0]]
    p1 = [_land_type(x) for x in paths[1]]
    if len(p0) != len(p1) or not p0:
        raise ValueError("paths: two lists of the same, non-zero length")
    state.paths = [p0, p1]
    available = card_totals(state.config)[LAND_KIND_BASE:MAGIC_WAY_KIND_BASE]
    for a, b in zip(p0, p1):
        available[PAIR_KIND[a][b]] -= 1
    if min(available) < 0:
        raise ValueError("paths: the row uses land cards the make-up does not have")
    if land_deck is None:
        rest = [PAIRS[i][0] * NUM_TYPES + PAIRS[i][1] for i in range(NUM_PAIRS)]
        rest = [c for c, n in zip(rest, available) for _ in range(n)]
        state.land_deck = [rest[i] for i in state.rng.permutation(len(rest))]
    else:
        deck = [_land_type(a) * NUM_TYPES + _land_type(b) for a, b in land_deck]
        for c in deck:
            available[CODE_PAIR[c]] -= 1
        if any(available):
            raise ValueError("land_deck: row + land deck must be exactly the 40 land cards")
        state.land_deck = deck[::-1]
    state.land_known = 0


def _place_pieces(
    state: State, pos: tuple[int, int], stone: tuple[int, int] | None, magic_way: int
) -> None:
    """The ravens, the Odin stone and the active Magic Way card."""
    L = len(state.paths[0])
    # §7: the race ends the moment a raven stands on the last card, so no turn starts there.
    if not all(-1 <= x < L - 1 for x in pos):
        raise ValueError(
            f"pos: raven positions must be -1..{L - 2} (a raven on the last card, {L - 1}, "
            f"has ended the race), got {pos}"
        )
    state.pos = list(pos)
    if stone is None:
        state.stone_card, state.stone_path = -1, -1
    else:
        card, path = stone
        if not 0 <= card < L or path not in (0, 1) or pos[path] == card:
            raise ValueError(f"stone: (card, path) on an empty space of the row, got {stone}")
        state.stone_card, state.stone_path = card, path
    if not 0 <= magic_way < NUM_MAGIC_WAY_CARDS:
        raise ValueError(f"magic_way: a card index 0..5, got {magic_way}")
    down = [i for i in range(NUM_MAGIC_WAY_CARDS) if i != magic_way]
    state._set_magic_way(magic_way, down)


def _place_cards(
    state: State,
    p: int,
    seats: tuple[Sequence[Sequence[Any]], Sequence[Sequence[Any]], Sequence[Sequence[Any]]],
    draw_piles: Sequence[Sequence[Any]] | None,
) -> None:
    """Seat ``p``'s hand, aux deck (top first), Magic Way row and draw pile (top first; by
    default the rest of its deck in a seeded order, else the rest is its discard pile), and
    the event log the opponent would have seen for them. ``seats`` holds the hands, aux decks
    and Magic Way rows of both seats."""
    hands, aux, magic_way_rows = seats
    left = state.config.deck
    hand = _take(hands[p], "hands", left, p)
    state.hands.append([hand.count(k) for k in range(NUM_KINDS)])
    state.aux.append(_take(aux[p], "aux", left, p)[::-1])
    state.magic_way_rows.append(_take(magic_way_rows[p], "magic_way_rows", left, p))
    if draw_piles is None:
        pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        draw = [pile[i] for i in state.rng.permutation(len(pile))]
        for k in draw:
            left[k] -= 1
    else:
        draw = _take(draw_piles[p], "draw_piles", left, p)[::-1]
    state.draws.append(draw)
    state.discards.append(left)
    hidden_cards = [
        state.hands[p][k] + state.aux[p].count(k) + draw.count(k) for k in range(NUM_KINDS)
    ]
    log = [(hidden.RESHUFFLE, tuple(hidden_cards))]
    log.append((hidden.DRAW, len(hand) + len(state.aux[p])))
    log += [hidden.STASH_EVENT] * len(state.aux[p])
    state.logs.append(log)


def _take(cards: Sequence[Any], what: str, left: list[int], p: int) -> list[int]:
    """``cards`` as kinds, taken from seat ``p``'s cards ``left`` (counts per kind)."""
    out = [_kind(c) for c in cards]
    for k in out:
        left[k] -= 1
        if left[k] < 0:
            raise ValueError(f"{what}: seat {p} has no more {KIND_NAMES[k]} cards")
    return out


def _land_type(x: Any) -> int:
    if isinstance(x, str):
        letter = x.strip().upper()[:1]
        if letter in LAND_LETTERS:
            return LAND_LETTERS.index(letter)
        raise ValueError(f"unknown land type {x!r}; land types: {', '.join(LAND_LETTERS)}")
    if not _is_int(x) or not 0 <= x < NUM_TYPES:
        raise ValueError(f"land type must be 0..{NUM_TYPES - 1} or a letter, got {x!r}")
    return int(x)


def _kind(x: Any) -> int:
    if isinstance(x, str):
        name = x.strip().upper()
        if name in KIND_NAMES:
            return KIND_NAMES.index(name)
        raise ValueError(f"unknown card {x!r}; cards: {', '.join(KIND_NAMES)}")
    if not _is_int(x) or not 0 <= x < NUM_KINDS:
        raise ValueError(f"card kind must be 0..{NUM_KINDS - 1} or a name, got {x!r}")
    return int(x)


def _is_int(x: Any) -> bool:
    """An int or numpy integer, not a bool: a float such as 0.5 must not pass as kind 0."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)
