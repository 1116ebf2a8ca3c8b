"""The action cards' effects on the row, the targets and the duck deck (spec §4, §6).

An extra room of the Sitting Ducks engine: ``game.py`` decides what is legal and runs the turn,
and calls :func:`resolve` once a card is played, :func:`fill_gaps` after it. These functions
change the state in place; the caller has checked the move.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    BUMP_LEFT,
    BUMP_RIGHT,
    DOUBLE_BARREL,
    DUCK_AND_COVER,
    DUCK_SHUFFLE,
    FAST_FORWARD,
    GAP,
    HANG_BACK,
    LINE_FORWARD,
    MISFIRE,
    MOVE_AHEAD,
    NONE,
    NUM_SLOTS,
    POINTS_RETURNED,
    QUICK_SHOT,
    SHOOT,
    TAKE_AIM,
    TWO_BIRDS,
    WATER,
)
from cardzoo.envs.sitting_ducks.units import (
    GAP_UNIT,
    U_COVER,
    U_EXPOSED,
    U_TOP,
    U_UNDER,
    unit,
    with_cover,
)

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State


def resolve(state: State, p: int, kind: int, a: int, b: int) -> None:
    """The effect of card ``kind`` played by ``p`` with the choices ``a`` and ``b``."""
    row = state.row
    if kind == TAKE_AIM:
        state.targets |= 1 << a
    elif kind == SHOOT or kind == QUICK_SHOT:
        _shoot(state, a)
        state.targets &= ~(1 << a)
    elif kind == DOUBLE_BARREL:
        state.targets |= 1 << a
        if b >= 0:
            state.targets |= 1 << b
    elif kind == MISFIRE:
        _shoot(state, b)
        state.targets &= ~(1 << a)
    elif kind == TWO_BIRDS:
        _shoot(state, b)  # the higher slot first (§6)
        _shoot(state, a)
        state.targets &= ~(1 << a | 1 << b)
    elif kind == BUMP_LEFT or kind == BUMP_RIGHT:
        state.targets = (state.targets & ~(1 << a)) | 1 << b
    elif kind == LINE_FORWARD:
        _line_forward(state)
    elif kind == MOVE_AHEAD or kind == HANG_BACK:
        row[a], row[b] = row[b], row[a]
    elif kind == FAST_FORWARD:
        row.insert(0, row.pop(a))
    elif kind == DUCK_SHUFFLE:
        _duck_shuffle(state)
    elif kind == DUCK_AND_COVER:
        row[b] = unit(U_TOP[row[b]], U_TOP[row[a]])
        del row[a]
        row.append(refill(state))
    elif kind == BOTTOMS_UP:
        row[a] = with_cover(row[a], p)
    # DISORDERLY_CONDUCKT: the order comes in the Place moves.


def _shoot(state: State, i: int) -> None:
    """§4: shoot slot ``i`` (the caller removes the target)."""
    row = state.row
    u = row[i]
    if U_EXPOSED[u] < 0:
        return  # water, gap, or a single duck under Bottoms Up
    top, under, cover = U_TOP[u], U_UNDER[u], U_COVER[u]
    if under < 0:
        state.shot[top] += 1
        del row[i]
        row.append(refill(state))
    elif cover < 0:
        state.shot[top] += 1
        row[i] = unit(under)
    else:
        state.shot[under] += 1
        row[i] = unit(top, NONE, cover)


def refill(state: State) -> int:
    """The unit for slot 5 from the top of the duck deck, or a gap if it is empty (§4)."""
    deck = state.deck
    if not deck:
        return GAP_UNIT
    card = deck.pop()
    if state.known_bottom > len(deck):
        state.known_bottom = len(deck)
    return unit(card)


def fill_gaps(state: State) -> None:
    row = state.row
    if GAP_UNIT in row:
        for s in range(NUM_SLOTS):
            if row[s] == GAP_UNIT and state.deck:
                row[s] = refill(state)


def _line_forward(state: State) -> None:
    row, deck = state.row, state.deck
    u = row.pop(0)
    top, under = U_TOP[u], U_UNDER[u]
    if U_COVER[u] >= 0:
        state.discard[BOTTOMS_UP] += 1
    if top != GAP:
        deck.insert(0, top)
        state.known_bottom += 1
        if under >= 0:
            deck.insert(0, under)  # the top duck lies above the hidden one (§4)
            state.known_bottom += 1
        if state.config.points_games:
            owner = state.colour_owner
            if top < WATER:
                state.points[owner[top]] += POINTS_RETURNED
            if under >= 0:
                state.points[owner[under]] += POINTS_RETURNED
    row.append(refill(state))


def _duck_shuffle(state: State) -> None:
    deck = state.deck
    for u in state.row:
        if U_COVER[u] >= 0:
            state.discard[BOTTOMS_UP] += 1
        if U_TOP[u] != GAP:
            deck.append(U_TOP[u])
        if U_UNDER[u] >= 0:
            deck.append(U_UNDER[u])
    state.deck = deck = [deck[i] for i in state.rng.permutation(len(deck))]
    state.known_bottom = 0
    state.row = [refill(state) for _ in range(NUM_SLOTS)]
