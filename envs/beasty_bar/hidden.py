"""What one Beasty Bar seat may see (rules doc §11), and resampling what it may not.

Hidden: the cards in other seats' hands, every draw pile's order and the contents of other seats'
draw piles and set-aside cards. Each seat's animals not yet played are public as a whole (every
colour is the same twelve animals), so a sample only re-splits them between the zones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.beasty_bar.data import OWNER, SPECIES
from cardzoo.envs.core import child_rng, make_rng

if TYPE_CHECKING:
    from cardzoo.envs.beasty_bar.game import State


@dataclass(frozen=True)
class View:
    """Everything one player may see (rules doc §11), and nothing else.

    Animals are strengths 1..12; per-seat tuples are indexed by absolute seat. ``queue`` lists
    ``(strength, owner)`` from the gate (index 0) to the back. ``bar`` and ``thats_it`` hold the
    sorted strengths per owner (their order never matters). ``unplayed[q]`` is seat q's animals not
    yet played (hand + draw pile + set-aside cards), public because every colour is the same 12
    animals. ``set_aside`` is the viewer's own set-aside cards only. ``bar_scores`` (own animals
    in the bar, or their points), ``bar_sums`` (their strength sum) and ``scores`` (the two
    combined, :meth:`State.scores`) are per seat.
    """

    player: int
    num_players: int
    current_player: int
    first_player: int
    phase: int
    turn: int
    terminal: bool
    hand: tuple[int, ...]
    queue: tuple[tuple[int, int], ...]
    bar: tuple[tuple[int, ...], ...]
    thats_it: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    draw_sizes: tuple[int, ...]
    set_aside_sizes: tuple[int, ...]
    unplayed: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...]
    bar_scores: tuple[int, ...]
    bar_sums: tuple[int, ...]
    scores: tuple[float, ...]
    winners: tuple[int, ...]


def view(state: State, player: int) -> View:
    """The body of :meth:`State.view`: what seat ``player`` (already checked) may see."""
    n = state.num_players
    bar: list[list[int]] = [[] for _ in range(n)]
    for c in state.bar:
        bar[OWNER[c]].append(SPECIES[c])
    out: list[list[int]] = [[] for _ in range(n)]
    for c in state.thats_it:
        out[OWNER[c]].append(SPECIES[c])
    hands, draws, asides = state.hands, state.draws, state.set_asides
    return View(
        player=player,
        num_players=n,
        current_player=state.current_player,
        first_player=state.first_player,
        phase=state.phase,
        turn=state.turn,
        terminal=state.terminal,
        hand=tuple(sorted(SPECIES[c] for c in hands[player])),
        queue=tuple((SPECIES[c], OWNER[c]) for c in state.queue),
        bar=tuple(tuple(sorted(b)) for b in bar),
        thats_it=tuple(tuple(sorted(t)) for t in out),
        hand_sizes=tuple(len(h) for h in hands),
        draw_sizes=tuple(len(d) for d in draws),
        set_aside_sizes=tuple(len(a) for a in asides),
        unplayed=tuple(
            tuple(sorted(SPECIES[c] for c in hands[q] + draws[q] + asides[q])) for q in range(n)
        ),
        set_aside=tuple(sorted(SPECIES[c] for c in asides[player])),
        bar_scores=state.bar_scores(),
        bar_sums=state.bar_strength_sums(),
        scores=state.scores(),
        winners=state._winners,
    )


def determinize(state: State, player: int, rng: np.random.Generator | int | None) -> State:
    """The body of :meth:`State.determinize` (seat already checked): a clone with each opponent's
    unplayed animals re-split between hand, draw pile and set-aside cards, ``player``'s own draw
    pile reordered and a new RNG.

    Every pool is sorted before it is shuffled, so the sample is a function of ``player``'s view
    and ``rng`` alone (a shuffle of the true order would let anyone who knows the seed read the
    hidden order back).
    """
    rng = make_rng(rng)
    new = state.clone(copy_rng=False)
    for q in range(state.num_players):
        if q == player:
            pile = sorted(state.draws[q])
            new.draws[q] = [pile[i] for i in rng.permutation(len(pile)).tolist()]
            continue
        hand, aside = state.hands[q], state.set_asides[q]
        pool = sorted(hand + aside + state.draws[q])
        pool = [pool[i] for i in rng.permutation(len(pool)).tolist()]
        h, a = len(hand), len(aside)
        new.hands[q] = pool[:h]
        new.set_asides[q] = pool[h : h + a]
        new.draws[q] = pool[h + a :]
    new.rng = child_rng(rng)  # built on first use
    new._legal = None
    return new
