"""Cubirds as an SVG picture: the four rows, each seat's collection and hand.

A seat's picture is drawn from its :meth:`State.view` alone (other hands as face-down counts plus
the cards publicly known to be in them); ``seat=None`` is the all-seeing table of replays.
"""

from __future__ import annotations

from typing import Any

from cardzoo.envs.cubirds.data import NUM_SPECIES, PHASE_NAMES, SPECIES_NAMES
from cardzoo.envs.cubirds.render import row_blocks
from cardzoo.envs.svg import Card, Section, page, who

#: One fill per species, in species order (Flamingo ... Robin).
COLOURS = ("#f4a3c0", "#8d6e63", "#ffb74d", "#81c784", "#e57373", "#546e7a", "#c5b358", "#ef8a5b")


def _species(counts: Any, note: str = "") -> list[Card]:
    return [
        Card(SPECIES_NAMES[s], COLOURS[s], counts[s], note) for s in range(NUM_SPECIES) if counts[s]
    ]


def svg_for(state: Any, seat: int | None) -> str:
    """The picture of ``state`` seen by ``seat`` (its view only), or all-seeing for ``None``."""
    # all-seeing: any seat's view gives the public part (no one is to move once it is over)
    view = state.view(max(state.current_player, 0) if seat is None else seat)
    n = view.num_players
    # Hands shown face up: the viewer's own, or every hand for the all-seeing table.
    hands = [state.hands[q] if seat is None else view.hand if q == seat else None for q in range(n)]
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    else:
        phase = PHASE_NAMES[state.phase] if seat is None else None
        if seat is not None and view.phase is not None:
            phase = PHASE_NAMES[view.phase]
        status = f"seat {view.current_player} to {phase or 'play'}"
    status = (
        f"round {view.round}, turn {view.turn}: {status}; draw pile {view.draw_size} cards, "
        f"discard pile {view.discard_size} cards"
    )
    sections = [
        Section(
            f"row-{r}",
            f"Row {r + 1} (left to right)",
            [Card(SPECIES_NAMES[s], COLOURS[s], c) for s, c in row_blocks(row)],
        )
        for r, row in enumerate(view.rows)
    ]
    for q in range(n):
        me = " (me)" if q == seat else ""
        sections.append(
            Section(f"collection-{q}", f"Seat {q}{me}: collection", _species(view.collections[q]))
        )
        if hands[q] is not None:
            cards = _species(hands[q])
        else:
            cards = [Card("hand", count=view.hand_sizes[q], face_down=True)]
            cards += _species(view.known_hands[q], "known")
        sections.append(
            Section(f"hand-{q}", f"Seat {q}{me}: hand, {view.hand_sizes[q]} cards", cards)
        )
    return page(f"Cubirds, {n} players - {who(seat)}", status, sections)
