"""Text renders: the referee's table of a whole state, and one player's view (from View only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardzoo.envs.sitting_ducks.data import (
    CARD_NAMES,
    COLOUR_LETTERS,
    COLOUR_NAMES,
    DUCKS_PER_COLOUR,
    NUM_SLOTS,
)
from cardzoo.envs.sitting_ducks.units import card_letter, unit, unit_text

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State
    from cardzoo.envs.sitting_ducks.hidden import View

_PHASES = ("play", "choose the new order", "game over")


def _cards(kinds) -> str:
    return ", ".join(CARD_NAMES[k] for k in sorted(kinds)) or "-"


def _counts(counts) -> str:
    return ", ".join(f"{CARD_NAMES[k]} {c}" for k, c in enumerate(counts) if c) or "empty"


def _status(terminal, winners, current, phase) -> str:
    if terminal:
        who = ", ".join(str(q) for q in winners) if winners else "nobody (a draw)"
        return f"game over, winners: {who}"
    return f"seat {current} to {_PHASES[phase]}"


def _header(mode, n, turn, game, games, status) -> str:
    match = f", game {min(game + 1, games)} of {games}" if games else ""
    return f"Sitting Ducks Gallery, {n} players, {mode} mode{match}, turn {turn}: {status}"


def _row_lines(units: list[int], targets: list[bool], reorder) -> list[str]:
    cells = [unit_text(u) for u in units]
    width = max(5, *(len(c) + 1 for c in cells))
    lines = [
        ("slot    " + "".join(f"{s:<{width}}" for s in range(NUM_SLOTS))).rstrip(),
        ("target  " + "".join(f"{'X' if t else '.':<{width}}" for t in targets)).rstrip(),
        ("row     " + "".join(f"{c:<{width}}" for c in cells)).rstrip(),
    ]
    if reorder:
        lines.append("new order so far (old slots): " + " ".join(str(j) for j in reorder))
    return lines


def _deck_line(size, counts, num_colours, bottom) -> str:
    parts = [f"{COLOUR_LETTERS[c]} {counts[c]}" for c in range(num_colours)]
    parts.append(f"water {counts[num_colours]}")
    line = f"duck deck {size} cards ({', '.join(parts)})"
    if bottom:
        line += "; known bottom, bottom first: " + " ".join(card_letter(c) for c in bottom)
    return line


def render_view(view: View) -> str:
    """What ``view.player`` sees, as text."""
    v = view
    games = v.games
    lines = [
        _header(
            v.mode,
            v.num_players,
            v.turn,
            v.game,
            games,
            _status(v.terminal, v.winners, v.current_player, v.phase),
        ),
        f"you are seat {v.player}",
    ]
    units = [unit(top, under, cover) for top, under, cover in v.row]
    lines += _row_lines(units, list(v.targets), v.reorder)
    lines.append(_deck_line(v.deck_size, v.deck_counts, v.num_colours, v.deck_bottom))
    lines.append(f"action draw pile {v.draw_size} cards; discard pile: {_counts(v.discard)}")
    lines.append(
        "ducks shot: "
        + ", ".join(f"{COLOUR_NAMES[c]} {v.shot[c] - 1}" for c in range(v.num_colours))
    )
    for q in range(v.num_players):
        colours = [COLOUR_NAMES[c] for c, owner in enumerate(v.colour_owners) if owner == q]
        if not colours:
            maybe = [COLOUR_NAMES[c] for c in range(v.num_colours) if v.colour_evidence[q] >> c & 1]
            colours = ["? (" + "/".join(maybe) + ")"]
        hand = _cards(v.hand) if q == v.player else f"{v.hand_sizes[q]} cards"
        points = f", {v.points[q]} points" if games else ""
        lines.append(f"seat {q}: {' and '.join(colours)}{points}; hand: {hand}")
    return "\n".join(lines)


def render_state(state: State) -> str:
    """The whole state, every hand, colour and card order shown (the referee's view)."""
    s = state
    games = s.config.points_games
    lines = [
        _header(
            s.mode,
            s.num_players,
            s.turn,
            s.game,
            games,
            _status(s.terminal, s.winners(), s.current_player, s.phase),
        )
    ]
    if s.terminal:
        lines[0] += f" ({s.end_reason})"
    lines += _row_lines(s.row, [bool(s.targets >> i & 1) for i in range(NUM_SLOTS)], s.reorder)
    lines.append(
        f"duck deck {len(s.deck)} cards, top first: "
        + (" ".join(card_letter(c) for c in reversed(s.deck)) or "-")
        + f" (bottom {min(s.known_bottom, len(s.deck))} known)"
    )
    lines.append(
        f"action draw pile {len(s.draw)} cards, top first: "
        + (", ".join(CARD_NAMES[k] for k in reversed(s.draw)) or "-")
    )
    lines.append(f"discard pile: {_counts(s.discard)}")
    for q in range(s.num_players):
        colours = [
            f"{COLOUR_NAMES[c]} ({DUCKS_PER_COLOUR - s.shot[c]} in play)"
            for c in range(s.num_colours)
            if s.colour_owner[c] == q
        ]
        points = f", {s.points[q]} points" if games else ""
        lines.append(f"seat {q}: {' and '.join(colours)}{points}; hand: {_cards(s.hands[q])}")
    return "\n".join(lines)
