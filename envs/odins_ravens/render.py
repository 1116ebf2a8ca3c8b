"""Text renders of an Odin's Ravens game: the referee's (everything) and one seat's (its view)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cardzoo.envs.odins_ravens.config import Config
from cardzoo.envs.odins_ravens.data import (
    FOR_O2B,
    GAME_OVER,
    KIND_NAMES,
    LAND_LETTERS,
    NUM_KINDS,
    NUM_TYPES,
    ODIN_SYMBOL,
    OP_NAMES,
    ORIENT,
    PHASE_NAMES,
    REARRANGE,
    TARGET_CARD,
    TARGET_SCORE,
)
from cardzoo.envs.odins_ravens.hidden import View

if TYPE_CHECKING:
    from cardzoo.envs.odins_ravens.game import State


def land_name(code: int) -> str:
    """``"F/M"``: the land types of a card (seat 0's path first, as placed)."""
    return f"{LAND_LETTERS[code // NUM_TYPES]}/{LAND_LETTERS[code % NUM_TYPES]}"


def symbols_name(symbols: Sequence[int]) -> str:
    return "+".join("Odin" if s == ODIN_SYMBOL else LAND_LETTERS[s] for s in symbols)


def _counts(counts: Sequence[int]) -> str:
    return " ".join(KIND_NAMES[k] for k in range(NUM_KINDS) for _ in range(counts[k])) or "-"


def _cards(kinds: Sequence[int]) -> str:
    return " ".join(KIND_NAMES[k] for k in kinds) or "-"


def _track(paths: Sequence[Sequence[int]], pos: Sequence[int], stone: tuple[int, int]) -> list[str]:
    """Three lines: card indices, then each path with its raven (``*``) and the stone (``#``)."""
    L = len(paths[0])
    lines = ["card  " + "".join(f"{k:>4}" for k in range(L))]
    for p in range(2):
        cells = []
        for k in range(L):
            mark = "*" if pos[p] == k else "#" if stone == (k, p) else " "
            cells.append(f"{LAND_LETTERS[paths[p][k]]:>3}{mark}")
        start = "*" if pos[p] == -1 else " "
        lines.append(f"P{p} {start} " + "".join(cells))
    return lines


def _status(current: int, phase: int, target_op: int, pending: int, orient_for: int) -> str:
    if phase == GAME_OVER:
        return "game over"
    text = f"seat {current} to {PHASE_NAMES[phase]}"
    if phase == TARGET_CARD:
        text += f" ({OP_NAMES[target_op]})"
    if phase == ORIENT:
        why = "O2-B" if orient_for == FOR_O2B else "extension"
        text += f" ({why}: land card {land_name(pending)})"
    return text


def _header(
    config: Config,
    race: int,
    totals: Sequence[int],
    turn: int,
    race_turn: int,
    status: str,
    used: tuple[int, int],
    o2b_used: bool,
) -> str:
    return (
        f"Odin's Ravens, race {race}, totals {totals[0]}-{totals[1]} (to {TARGET_SCORE}), "
        f"turn {turn} "
        f"(race turn {race_turn}/{config.max_turns_per_race}), {status}; used this turn: "
        f"{used[0]} from hand, {used[1]} from aux{', O2-B done' if o2b_used else ''}"
    )


def render_state(s: State) -> str:
    """Every zone of the game, hidden cards included."""
    status = _status(s.current_player, s.phase, s.target_op, s.pending_land, s.orient_for)
    if s.terminal:
        status += f", winner seat {s.winners()[0]}"
    lines = [
        _header(
            s.config,
            s.race,
            s.totals,
            s.turn,
            s.race_turn,
            status,
            (s.used_hand, s.used_aux),
            s.o2b_used,
        )
    ]
    lines += _track(s.paths, s.pos, (s.stone_card, s.stone_path))
    deck = " ".join(land_name(c) for c in reversed(s.land_deck))
    lines.append(f"land deck (top first; last {s.land_known} seen): {deck or '-'}")
    down = ", ".join(symbols_name(s.config.magic_way_cards[i]) for i in s.magic_way_down)
    lines.append(
        f"Magic Way: {symbols_name(s.config.magic_way_cards[s.magic_way])} (face down: {down})"
    )
    for p in range(2):
        lines.append(
            f"seat {p}: raven {s.pos[p]}, hand {_counts(s.hands[p])}, aux (top first) "
            f"{_cards(reversed(s.aux[p]))}, draw (top first) {_cards(reversed(s.draws[p]))}, "
            f"discard {_counts(s.discards[p])}, Magic Way {_cards(s.magic_way_rows[p])}"
        )
    return "\n".join(lines)


def render_view(v: View, config: Config) -> str:
    """What one seat may see (a function of its view and the public config only)."""
    me = v.player
    status = _status(v.current_player, v.phase, v.target_op, v.pending_land, v.orient_for)
    if v.terminal:
        status += f", winner seat {v.winners[0]}"
    lines = [
        _header(
            config,
            v.race,
            v.totals,
            v.turn,
            v.race_turn,
            status,
            (v.used_hand, v.used_aux),
            v.o2b_used,
        ),
        f"seen by seat {me}; seat {v.race_first} started this race",
    ]
    lines += _track(v.paths, v.pos, v.stone)
    known = " ".join(land_name(c) for c in v.land_known)
    lines.append(
        f"land deck: {v.land_deck_size} cards; seen at its bottom (next first): {known or '-'}"
    )
    lines.append(f"Magic Way: {symbols_name(v.magic_way)}")
    if v.phase == REARRANGE and v.current_player == me:
        lines.append(f"rearranging: the top {v.rearranged} cards of my aux deck are placed")
    lines.append(
        f"my hand: {_counts(v.hand)}; my aux (top first): {_cards(v.aux)}; "
        f"my draw pile: {v.draw_sizes[me]} cards ({_counts(v.draw_counts)}, order unknown)"
    )
    for p in range(2):
        who = f"seat {p} (me)" if p == me else f"seat {p}"
        lines.append(
            f"{who}: raven {v.pos[p]}, hand {v.hand_sizes[p]} cards, aux {v.aux_sizes[p]}, "
            f"draw {v.draw_sizes[p]}, discard {_counts(v.discards[p])}, "
            f"Magic Way {_cards(v.magic_way_rows[p])}"
        )
    winner, points, bonus = v.last_race
    if winner >= 0 and v.race > 1:
        extra = f", Magic Way +3 to seat {bonus}" if bonus >= 0 else ", Magic Way tied"
        lines.append(f"last race: seat {winner} won {points} points{extra}")
    return "\n".join(lines)


assert NUM_TYPES == len(LAND_LETTERS)
