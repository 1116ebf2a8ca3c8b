"""Sitting Ducks Gallery as an SVG picture: the row of six slots with their targets, stacks and
Bottoms Up covers, each seat's ducks and hand, the piles.

A seat's picture is drawn from its :meth:`State.view` alone (other hands as face-down counts,
secret colours as "?"); ``seat=None`` is the all-seeing table of replays.
"""

from __future__ import annotations

from typing import Any

from cardzoo.envs.sitting_ducks.data import (
    CARD_NAMES,
    COLOUR_NAMES,
    DUCKS_PER_COLOUR,
    PHASE_NAMES,
    WATER,
)
from cardzoo.envs.svg import Card, Section, page, who

#: Fills of the duck colours (red .. orange), then water and a gap.
FILLS = ("#e53935", "#1e88e5", "#43a047", "#fdd835", "#8e24aa", "#fb8c00", "#b3e5fc", "#eeeeee")
ACTION_FILL = "#f2efe6"


def _slot(i: int, top: int, under: int, cover: int, target: bool) -> Card:
    name = f"{COLOUR_NAMES[top]} duck" if top < WATER else "water" if top == WATER else "gap"
    notes = [f"slot {i + 1}, target" if target else f"slot {i + 1}"]
    if under >= 0:
        name += f" over {COLOUR_NAMES[under]}"
    if cover >= 0:
        notes.append(f"covered: seat {cover}")
    return Card(name, FILLS[top], 1, "\n".join(notes), mark=target)


def svg_for(state: Any, seat: int | None) -> str:
    """The picture of ``state`` seen by ``seat`` (its view only), or all-seeing for ``None``."""
    # all-seeing: any seat's view gives the public part (no one is to move once it is over)
    view = state.view(max(state.current_player, 0) if seat is None else seat)
    n, k = view.num_players, view.num_colours
    owners = tuple(state.colour_owner) if seat is None else view.colour_owners
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    else:
        status = f"seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    row = [_slot(i, *slot, view.targets[i]) for i, slot in enumerate(view.row)]
    piles = [
        Card("duck deck", count=view.deck_size, face_down=True),
        Card("action draw pile", count=view.draw_size, face_down=True),
    ]
    piles += [Card(CARD_NAMES[c], ACTION_FILL, m, "discarded") for c, m in enumerate(view.discard)]
    sections = [
        Section("row", "The row (front slot first; a red outline marks a target)", row),
        Section("piles", "Piles", [c for c in piles if c.count]),
    ]
    unknown = [c for c in range(k) if owners[c] < 0]
    for q in range(n):
        me = " (me)" if q == seat else ""
        ducks = [
            Card(
                f"{COLOUR_NAMES[c]} ducks",
                FILLS[c],
                1,
                f"{DUCKS_PER_COLOUR - view.shot[c]} in play",
            )
            for c in range(k)
            if owners[c] == q
        ]
        if not ducks and unknown:
            ducks = [Card("colour", count=1, face_down=True)]
        hand = state.hands[q] if seat is None else view.hand if q == seat else None
        if hand is None:
            cards = [Card("hand", count=view.hand_sizes[q], face_down=True)]
        else:
            cards = [Card(CARD_NAMES[c], ACTION_FILL) for c in sorted(hand)]
        points = f", {view.points[q]} points" if view.games else ""
        sections.append(
            Section(f"hand-{q}", f"Seat {q}{me}: ducks and hand{points}", ducks + cards)
        )
    title = f"Sitting Ducks Gallery, {n} players, {view.mode} mode - {who(seat)}"
    return page(title, f"turn {view.turn}: {status}", sections)
