"""Text renders of a Beasty Bar game: the referee's (every hand shown) and one seat's (its view)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardzoo.envs.beasty_bar.config import Config
from cardzoo.envs.beasty_bar.data import (
    NAMES,
    NUM_ANIMALS,
    OWNER,
    PHASE_NAMES,
    SET_ASIDE_PHASE,
    SPECIES,
    card_name,
)
from cardzoo.envs.beasty_bar.hidden import View

if TYPE_CHECKING:
    from cardzoo.envs.beasty_bar.game import State


def render(state: State) -> str:
    """The text of :meth:`State.render`: a table of the whole state, every hand shown."""
    n = state.num_players
    total = sum(len(h) + len(d) for h, d in zip(state.hands, state.draws, strict=True))
    if state.terminal:
        status = f"game over, winners {list(state.winners())}"
    else:
        status = f"seat {state.current_player} to {PHASE_NAMES[state.phase]}"
    lines = [
        f"Beasty Bar, {n} players, scoring {state.config.scoring}, turn {state.turn} "
        f"({total} cards left to play), {status}",
        "queue (gate -> exclusion): "
        + (" ".join(f"{i}:{card_name(c)}" for i, c in enumerate(state.queue)) or "(empty)"),
    ]
    scores = state.bar_scores()
    sums = state.bar_strength_sums()
    header = f"{'seat':<5}{'score':>6}{'sum':>5}  {'hand':<34}{'draw':>5}  bar / THAT'S IT"
    lines.append(header)

    def names(cards: list[int]) -> str:
        return ", ".join(NAMES[SPECIES[c]] for c in sorted(cards)) or "-"

    for q in range(n):
        hand = names(state.hands[q])
        row = f"{q:<5}{scores[q]:>6g}{sums[q]:>5}  {hand:<34}{len(state.draws[q]):>5}  "
        row += f"{names([c for c in state.bar if OWNER[c] == q])} / "
        row += names([c for c in state.thats_it if OWNER[c] == q])
        if state.set_asides[q]:
            row += f"  (set aside: {names(state.set_asides[q])})"
        lines.append(row)
    return "\n".join(lines)


def render_view(view: View, config: Config) -> str:
    """The text of :meth:`State.render_for`: a function of one seat's view (and the public
    config) only."""

    def names(animals: tuple[int, ...]) -> str:
        return ", ".join(NAMES[a] for a in animals) or "-"

    me, n = view.player, view.num_players
    left = sum(view.hand_sizes) + sum(view.draw_sizes)
    if view.phase == SET_ASIDE_PHASE:
        left = (NUM_ANIMALS - config.set_aside) * n  # the set-aside choices are not turns
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    else:
        status = f"seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    queue = " ".join(f"{i}:{NAMES[a]}({o})" for i, (a, o) in enumerate(view.queue))
    mine = "my animals to choose from" if view.phase == SET_ASIDE_PHASE else "my hand"
    lines = [
        f"Beasty Bar, {n} players, scoring {config.scoring}, turn {view.turn} "
        f"({left} cards left to play), {status}",
        f"seen by seat {me} (seat {view.first_player} played first)",
        f"queue (gate -> exclusion): {queue or '(empty)'}",
        f"{mine}: {names(view.hand)}; cards in my draw pile: {view.draw_sizes[me]} (order unknown)",
    ]
    if config.set_aside:
        lines.append(f"my set-aside animals: {names(view.set_aside)}")
    aside = f"{'aside':>6}" if config.set_aside else ""
    lines.append(f"{'seat':<7}{'score':>6}{'sum':>5}{'hand':>6}{'draw':>6}{aside}  bar / THAT'S IT")
    for q in range(n):
        seat = f"{q} (me)" if q == me else str(q)
        aside = f"{view.set_aside_sizes[q]:>6}" if config.set_aside else ""
        lines.append(
            f"{seat:<7}{view.bar_scores[q]:>6}{view.bar_sums[q]:>5}{view.hand_sizes[q]:>6}"
            f"{view.draw_sizes[q]:>6}{aside}  {names(view.bar[q])} / {names(view.thats_it[q])}"
        )
    parts = "hand + draw pile + set aside" if config.set_aside else "hand + draw pile"
    for q in range(n):
        if q != me:
            lines.append(f"seat {q} not yet played ({parts}): {names(view.unplayed[q])}")
    return "\n".join(lines)
