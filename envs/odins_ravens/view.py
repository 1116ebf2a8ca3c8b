"""What one seat of Odin's Ravens may see: :class:`View` and :func:`build_view` (rules spec §10).

Split from ``hidden.py`` (which re-exports both): that module keeps what a seat may *deduce*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardzoo.envs.odins_ravens.data import CODE_PAIR, NUM_KINDS, NUM_PAIRS

if TYPE_CHECKING:
    from cardzoo.envs.odins_ravens.game import State


@dataclass(frozen=True)
class View:
    """Everything one player may see (rules spec §10), and nothing else.

    Per-seat tuples are indexed by absolute seat. ``hand`` and ``discards`` are counts per kind;
    ``aux`` is the viewer's own auxiliary deck, **top first**; ``magic_way_rows`` list the kinds
    in play order. ``land_known`` lists the land deck's seen bottom cards in the order they will
    be drawn (codes ``5*a+b``). ``logs`` are the public event logs of both seats this race (see
    ``hidden.py``); ``reshuffled``/``drawn_since`` summarise a seat's last reshuffle.
    """

    player: int
    current_player: int
    phase: int
    target_op: int
    swap_first: int
    pending_land: int
    orient_for: int
    rearranged: int
    paths: tuple[tuple[int, ...], tuple[int, ...]]
    pos: tuple[int, int]
    stone: tuple[int, int]
    magic_way: tuple[int, int]
    magic_way_rows: tuple[tuple[int, ...], ...]
    discards: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    aux: tuple[int, ...]
    draw_counts: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    aux_sizes: tuple[int, ...]
    draw_sizes: tuple[int, ...]
    land_deck_size: int
    land_deck_counts: tuple[int, ...]
    land_known: tuple[int, ...]
    used_hand: int
    used_aux: int
    o2b_used: bool
    totals: tuple[int, int]
    race: int
    race_turn: int
    turn: int
    race_first: int
    last_race: tuple[int, int, int]
    reshuffled: tuple[tuple[int, ...], ...]
    drawn_since: tuple[int, ...]
    logs: tuple[tuple[tuple, ...], ...]
    terminal: bool
    winners: tuple[int, ...]


def build_view(state: State, player: int) -> View:
    """What ``player`` may see of ``state`` (§10); the seat is checked by ``State.view``."""
    known = state.land_deck[: state.land_known]
    land_counts = [0] * NUM_PAIRS
    for c in state.land_deck:
        land_counts[CODE_PAIR[c]] += 1
    draw_counts = [0] * NUM_KINDS
    for k in state.draws[player]:
        draw_counts[k] += 1
    return View(
        player=player,
        current_player=state.current_player,
        phase=state.phase,
        target_op=state.target_op,
        swap_first=state.swap_first,
        pending_land=state.pending_land,
        orient_for=state.orient_for,
        rearranged=state.rearranged,
        paths=(tuple(state.paths[0]), tuple(state.paths[1])),
        pos=(state.pos[0], state.pos[1]),
        stone=(state.stone_card, state.stone_path),
        magic_way=state.config.magic_way_cards[state.magic_way],
        magic_way_rows=tuple(tuple(r) for r in state.magic_way_rows),
        discards=tuple(tuple(d) for d in state.discards),
        hand=tuple(state.hands[player]),
        aux=tuple(reversed(state.aux[player])),
        draw_counts=tuple(draw_counts),
        hand_sizes=tuple(sum(h) for h in state.hands),
        aux_sizes=tuple(len(a) for a in state.aux),
        draw_sizes=tuple(len(d) for d in state.draws),
        land_deck_size=len(state.land_deck),
        land_deck_counts=tuple(land_counts),
        land_known=tuple(reversed(known)),
        used_hand=state.used_hand,
        used_aux=state.used_aux,
        o2b_used=state.o2b_used,
        totals=(state.totals[0], state.totals[1]),
        race=state.race,
        race_turn=state.race_turn,
        turn=state.turn,
        race_first=state.race_first,
        last_race=state.last_race,
        reshuffled=tuple(tuple(r) for r in state.reshuffled),
        drawn_since=tuple(state.drawn_since),
        logs=tuple(tuple(g) for g in state.logs),
        terminal=state.terminal,
        winners=state._winners,
    )
