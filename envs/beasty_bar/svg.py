"""Beasty Bar as an SVG picture: the queue, Heaven's Gate (the bar), the "That's it" door and
the hands, each animal in its owner's colour.

A seat's picture is drawn from its :meth:`State.view` alone (other hands and draw piles as
face-down counts); ``seat=None`` is the all-seeing table of replays.
"""

from __future__ import annotations

from typing import Any

from cardzoo.envs.beasty_bar.data import NAMES, PHASE_NAMES, SPECIES
from cardzoo.envs.svg import Card, Section, page, who

#: One fill per seat (the colour of its animals).
SEAT_COLOURS = ("#e57373", "#64b5f6", "#81c784", "#ffd54f")


def _animal(strength: int, owner: int, note: str = "") -> Card:
    return Card(NAMES[strength], SEAT_COLOURS[owner], 1, note or f"{strength}, seat {owner}")


def _door(key: str, label: str, per_seat: Any) -> Section:
    cards = [_animal(a, q) for q, animals in enumerate(per_seat) for a in animals]
    return Section(key, label, cards)


def svg_for(state: Any, seat: int | None) -> str:
    """The picture of ``state`` seen by ``seat`` (its view only), or all-seeing for ``None``."""
    # all-seeing: any seat's view gives the public part (no one is to move once it is over)
    view = state.view(max(state.current_player, 0) if seat is None else seat)
    n = view.num_players
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    else:
        status = f"seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    scores = ", ".join(f"seat {q}: {view.bar_scores[q]}" for q in range(n))
    sections = [
        Section(
            "queue",
            "Queue (Heaven's Gate first, \"That's it\" at the back)",
            [_animal(a, o, f"place {i + 1}\n{a}, seat {o}") for i, (a, o) in enumerate(view.queue)],
        ),
        _door("bar", "Heaven's Gate: in the bar", view.bar),
        _door("thats-it", '"That\'s it": turned away', view.thats_it),
    ]
    for q in range(n):
        me = " (me)" if q == seat else ""
        if seat is None:
            hand = sorted(SPECIES[c] for c in state.hands[q])
            aside = sorted(SPECIES[c] for c in state.set_asides[q])
        elif q == seat:
            hand, aside = list(view.hand), list(view.set_aside)
        else:
            hand = aside = None
        cards = (
            [_animal(a, q) for a in hand]
            if hand is not None
            else [Card("hand", count=view.hand_sizes[q], face_down=True)]
        )
        if view.draw_sizes[q]:
            cards.append(Card("draw pile", count=view.draw_sizes[q], face_down=True))
        if aside:
            cards += [_animal(a, q, "set aside") for a in aside]
        elif view.set_aside_sizes[q]:
            cards.append(Card("set aside", count=view.set_aside_sizes[q], face_down=True))
        label = f"Seat {q}{me}: hand ({view.hand_sizes[q]}), draw pile ({view.draw_sizes[q]})"
        sections.append(Section(f"hand-{q}", label, cards))
    title = f"Beasty Bar, {n} players - {who(seat)}"
    return page(title, f"turn {view.turn}: {status}; bar scores {scores}", sections)
