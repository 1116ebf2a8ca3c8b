"""Cubirds text renders: the referee's (every hand shown) and one seat's (built from its view)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardzoo.envs.cubirds.data import NUM_SPECIES, PHASE_NAMES, SPECIES_NAMES

if TYPE_CHECKING:
    from cardzoo.envs.cubirds.game import State
    from cardzoo.envs.cubirds.hidden import View


def render_state(state: State) -> str:
    """The text of :meth:`State.render`: the whole state, every hand shown."""
    status = (
        f"game over ({state.end_reason}), winners {list(state.winners())}"
        if state.terminal
        else f"seat {state.current_player} to {PHASE_NAMES[state.phase]}"
    )
    lines = [
        f"Cubirds, {state.num_players} players, round {state.round}, turn {state.turn}: {status}",
        f"draw pile {len(state.draw)} cards, discard pile {state.discard_size} cards",
        "rows (left -> right):",
    ]
    for r, row in enumerate(state.rows):
        lines.append(f"  {r}: {_spell_row(row)}")
    lines.append(f"{'seat':<5} {'collection':<30} hand")
    for q in range(state.num_players):
        collection = _spell(state.collections[q]) or "-"
        lines.append(f"{q:<5} {collection:<30} {_spell(state.hands[q]) or '-'}")
    return "\n".join(lines)


def render_view(view: View) -> str:
    """The text of :meth:`State.render_for`: a function of one seat's view only."""
    me, n = view.player, view.num_players
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    elif view.phase is not None:
        status = f"my turn (seat {me}) to {PHASE_NAMES[view.phase]}"
    else:
        status = f"seat {view.current_player}'s turn"
    unseen = sum(view.draw_pool) + view.draw_pool_unknown - view.draw_size
    pool = _spell(view.draw_pool) or "-"
    if view.draw_pool_unknown:
        pool += f", {view.draw_pool_unknown} unknown"
    lines = [
        f"Cubirds, {n} players, round {view.round}, turn {view.turn}: {status}",
        f"seen by seat {me}",
        f"draw pile {view.draw_size} cards (order unknown); its pool: {pool}; "
        f"{unseen} of those drawn unseen since",
        f"discard pile {view.discard_size} cards, known: {_spell(view.discard_known) or '-'}",
        "rows (left -> right):",
    ]
    for r, row in enumerate(view.rows):
        lines.append(f"  {r}: {_spell_row(row)}")
    lines.append(f"{'seat':<7}{'hand':>5}  {'collection':<30} known in hand; holds no other")
    for q in range(n):
        seat = f"{q} (me)" if q == me else str(q)
        known = _spell(view.known_hands[q]) or "-"
        exact = [SPECIES_NAMES[s].split()[-1] for s in range(NUM_SPECIES) if view.exact[q][s]]
        lines.append(
            f"{seat:<7}{view.hand_sizes[q]:>5}  {_spell(view.collections[q]) or '-':<30} "
            f"{known}; {', '.join(exact) or '-'}"
        )
    lines.append(f"my hand: {_spell(view.hand) or '-'}")
    return "\n".join(lines)


def row_blocks(row: list[int] | tuple[int, ...]) -> list[tuple[int, int]]:
    """The row as ``(species, count)`` runs from the left; the §4.1 invariant keeps each species
    in one run, so a row has at most 8."""
    blocks: list[list[int]] = []
    for species in row:
        if blocks and blocks[-1][0] == species:
            blocks[-1][1] += 1
        else:
            blocks.append([species, 1])
    return [(s, c) for s, c in blocks]


def _spell(counts: list[int] | tuple[int, ...]) -> str:
    """Counts per species as "2 Owl, 1 Robin" (short names keep the table narrow)."""
    return ", ".join(f"{c} {SPECIES_NAMES[s].split()[-1]}" for s, c in enumerate(counts) if c)


def _spell_row(row: list[int] | tuple[int, ...]) -> str:
    """A row as its blocks from the left: "2 Owl | 1 Robin"."""
    return " | ".join(f"{c} {SPECIES_NAMES[s]}" for s, c in row_blocks(row))
