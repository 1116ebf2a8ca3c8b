"""The content of one row slot (a *unit*, spec §1) packed into a small int, with lookup tables.

A unit is ``top | (under + 1) << 3 | (cover + 1) << 6``:

- ``top``: a duck colour 0..5, ``WATER`` (6) or ``GAP`` (7);
- ``under``: the colour of the duck hidden beneath (a stack made by Duck and Cover), or ``NONE``;
- ``cover``: the seat whose Bottoms Up card lies on the top duck, or ``NONE``.

Ints keep the row a list of six small immutable values: every movement card only reorders that
list, and the tables below answer the rules' questions (exposed duck, colours present, ...) with
one index.
"""

from __future__ import annotations

from cardzoo.envs.sitting_ducks.data import (
    COLOUR_LETTERS,
    GAP,
    GAP_LETTER,
    NONE,
    WATER,
    WATER_LETTER,
)

NUM_UNIT_CODES = 512


def unit(top: int, under: int = NONE, cover: int = NONE) -> int:
    """Pack a unit."""
    return top | (under + 1) << 3 | (cover + 1) << 6


def _tables() -> tuple[tuple[int, ...], ...]:
    top_t, under_t, cover_t, exposed_t, colours_t, free_t, coverable_t = ([] for _ in range(7))
    for u in range(NUM_UNIT_CODES):
        top, under, cover = u & 7, ((u >> 3) & 7) - 1, (u >> 6) - 1
        duck = top < WATER
        top_t.append(top)
        under_t.append(under)
        cover_t.append(cover)
        # §1 "exposed duck": the one a shot at this slot hits.
        if not duck:
            exposed = NONE
        elif cover < 0:
            exposed = top
        else:
            exposed = under  # NONE for a single covered duck; the bottom duck of a stack
        exposed_t.append(exposed)
        mask = 0
        if duck:
            mask |= 1 << top
        if under >= 0:
            mask |= 1 << under
        colours_t.append(mask)
        # A single duck with no Bottoms Up: may hide (Duck and Cover) or be hidden under.
        free_t.append(top if duck and under < 0 and cover < 0 else NONE)
        coverable_t.append(duck and cover < 0)
    return tuple(tuple(t) for t in (top_t, under_t, cover_t, exposed_t, colours_t, free_t)) + (
        tuple(coverable_t),
    )


#: Per unit code: top card, hidden duck, cover seat, exposed duck colour (or NONE), bitmask of
#: the duck colours present, colour of a free single duck (or NONE), "Bottoms Up may cover it".
U_TOP, U_UNDER, U_COVER, U_EXPOSED, U_COLOURS, U_FREE, U_COVERABLE = _tables()

GAP_UNIT = unit(GAP)


def uncovered(u: int) -> int:
    """The unit without its Bottoms Up card."""
    return u & 63


def with_cover(u: int, seat: int) -> int:
    """The unit with ``seat``'s Bottoms Up card on its top duck."""
    return (u & 63) | (seat + 1) << 6


def card_letter(card: int) -> str:
    """The letter of a duck-deck card (or gap)."""
    if card == WATER:
        return WATER_LETTER
    if card == GAP:
        return GAP_LETTER
    return COLOUR_LETTERS[card]


def unit_text(u: int) -> str:
    """The spec's notation: ``R``, ``B/R`` (B on top of a hidden R), ``R*1`` (Bottoms Up played
    by seat 1 on R), ``B*1/R``, ``~`` (water), ``_`` (gap)."""
    text = card_letter(U_TOP[u])
    if U_COVER[u] >= 0:
        text += f"*{U_COVER[u]}"
    if U_UNDER[u] >= 0:
        text += "/" + COLOUR_LETTERS[U_UNDER[u]]
    return text


def parse_card(text: str, num_colours: int) -> int:
    """A duck-deck card from its letter (``R``, ``B``, ... or ``~``)."""
    t = text.strip().upper()
    if t == WATER_LETTER:
        return WATER
    if t in COLOUR_LETTERS[:num_colours]:
        return COLOUR_LETTERS.index(t)
    letters = ", ".join(COLOUR_LETTERS[:num_colours])
    raise ValueError(f"unknown duck-deck card {text!r}; use {letters} or {WATER_LETTER}")


def parse_unit(text: str, num_colours: int, default_cover: int) -> int:
    """A unit from the spec's notation (see :func:`unit_text`); ``R*`` without a seat means a
    Bottoms Up played by ``default_cover``."""
    t = text.strip()
    if t == GAP_LETTER:
        return GAP_UNIT
    top_text, _, under_text = t.partition("/")
    cover = NONE
    if "*" in top_text:
        top_text, _, seat = top_text.partition("*")
        cover = int(seat) if seat else default_cover
    top = parse_card(top_text, num_colours)
    under = parse_card(under_text, num_colours) if under_text else NONE
    if under == WATER or (under >= 0 and top == WATER):
        raise ValueError(f"unit {text!r}: a stack is two ducks, never water")
    if cover >= 0 and top == WATER:
        raise ValueError(f"unit {text!r}: Bottoms Up never lies on water")
    if under >= 0 and under == top:
        raise ValueError(f"unit {text!r}: a duck never hides under its own colour")
    return unit(top, under, cover)
