"""Odin's Ravens as an SVG picture: the two paths of land with both ravens (and the stone), the
Magic Way, the hands and auxiliary decks.

A seat's picture is drawn from its :meth:`State.view` alone (the opponent's hand, auxiliary deck
and draw pile as face-down counts); ``seat=None`` is the all-seeing table of replays.
"""

from __future__ import annotations

from typing import Any

from cardzoo.envs.odins_ravens.data import NUM_KINDS, NUM_TYPES, ODIN_SYMBOL, PHASE_NAMES
from cardzoo.envs.svg import Card, Section, page, who

#: Card names by kind: the five flight cards (land types), then Odin cards O1..O4.
KIND_LABELS = ("Forest", "Mountain", "Plains", "Snow", "Water", "Odin O1", "Odin O2", "Odin O3")
KIND_LABELS += ("Odin O4",)
#: Fills by land type, then the Odin cards.
FILLS = ("#2e7d32", "#8d8d8d", "#e6d36a", "#f5f7fa", "#4f8fd6", "#9c6ade")


def _kind(k: int, count: int = 1, note: str = "") -> Card:
    return Card(KIND_LABELS[k], FILLS[min(k, NUM_TYPES)], count, note)


def _counts(counts: Any) -> list[Card]:
    return [_kind(k, counts[k]) for k in range(NUM_KINDS) if counts[k]]


def _path(view: Any, p: int) -> Section:
    cards = []
    for k, land in enumerate(view.paths[p]):
        notes = []
        if view.pos[p] == k:
            notes.append(f"raven {p}")
        if view.stone == (k, p):
            notes.append("stone")
        cards.append(Card(KIND_LABELS[land], FILLS[land], 1, ", ".join(notes), mark=bool(notes)))
    start = ", raven at the start" if view.pos[p] < 0 else ""
    return Section(f"path-{p}", f"Path of seat {p}'s raven{start}", cards)


def _magic_way(view: Any) -> Section:
    names = ["Odin" if s == ODIN_SYMBOL else KIND_LABELS[s] for s in view.magic_way]
    cards = [Card(" + ".join(names), "#fff3c4", 1, "Magic Way card")]
    for p in range(2):
        cards += [_kind(k, 1, f"seat {p}") for k in view.magic_way_rows[p]]
    return Section("magic-way", "Magic Way (the card, then each seat's cards played to it)", cards)


def svg_for(state: Any, seat: int | None) -> str:
    """The picture of ``state`` seen by ``seat`` (its view only), or all-seeing for ``None``."""
    # all-seeing: any seat's view gives the public part (no one is to move once it is over)
    view = state.view(max(state.current_player, 0) if seat is None else seat)
    status = "game over" if view.terminal else f"seat {view.current_player} to "
    if not view.terminal:
        status += PHASE_NAMES[view.phase]
    status = (
        f"race {view.race}, totals {view.totals[0]}-{view.totals[1]}, turn {view.turn}: "
        f"{status}; land deck {view.land_deck_size} cards"
    )
    sections = [_path(view, 0), _path(view, 1), _magic_way(view)]
    for p in range(2):
        me = " (me)" if p == seat else ""
        if seat is None:
            hand, aux = state.hands[p], tuple(reversed(state.aux[p]))
        elif p == seat:
            hand, aux = view.hand, view.aux
        else:
            hand = aux = None
        if hand is None:
            cards = [Card("hand", count=view.hand_sizes[p], face_down=True)]
            cards.append(Card("aux deck", count=view.aux_sizes[p], face_down=True))
        else:
            cards = _counts(hand) + [_kind(k, 1, f"aux {i + 1}") for i, k in enumerate(aux)]
        if view.draw_sizes[p]:
            cards.append(Card("draw pile", count=view.draw_sizes[p], face_down=True))
        cards += [Card(c.name, c.colour, c.count, "discarded") for c in _counts(view.discards[p])]
        label = f"Seat {p}{me}: hand ({view.hand_sizes[p]}), aux deck (top first), piles"
        sections.append(Section(f"hand-{p}", label, cards))
    return page(f"Odin's Ravens - {who(seat)}", status, sections)
