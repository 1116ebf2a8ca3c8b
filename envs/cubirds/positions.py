"""Cubirds hand-set positions (scenario tests, analysis): :meth:`State.from_position` builds them
here, and the card lists they are written in (species ids or the spec's letters) are read here."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.core import make_rng
from cardzoo.envs.cubirds import hidden
from cardzoo.envs.cubirds.config import Config
from cardzoo.envs.cubirds.data import EV_BATCH, NUM_ROWS, NUM_SPECIES, SPECIES_LETTERS

if TYPE_CHECKING:
    from cardzoo.envs.cubirds.game import State


def from_position(
    cls: type[State],
    config: Config | None,
    *,
    hands: list[list[int]] | list[str],
    rows: list[list[int]] | list[str],
    draw: list[int] | str,
    discard: list[int] | str,
    collections: list[list[int]] | list[str] | None,
    current_player: int,
    seed: int | None,
) -> State:
    """The body of :meth:`State.from_position` (its docstring says what the arguments mean)."""
    config = Config() if config is None else config
    n = config.num_players
    state = cls.__new__(cls)
    state._blank(config, make_rng(seed))
    state.hands = [species_counts(h) for h in hands]
    if len(state.hands) != n:
        raise ValueError(f"hands: expected {n} hands, got {len(state.hands)}")
    state.hand_sizes = [sum(h) for h in state.hands]
    coll = collections if collections is not None else [[] for _ in range(n)]
    state.collections = [species_counts(c) for c in coll]
    state.rows = [species_ids(r) for r in rows]
    if len(state.rows) != NUM_ROWS:
        raise ValueError(f"rows: expected {NUM_ROWS} rows, got {len(state.rows)}")
    state.draw = species_ids(draw)[::-1]
    state.discard = species_counts(discard)
    state.discard_size = sum(state.discard)
    state.discard_public = state.discard[:]
    state.discard_known = [bytearray(state.discard) for _ in range(n)]
    pack = species_counts(state.draw)
    for hand in state.hands:
        for s in range(NUM_SPECIES):
            pack[s] += hand[s]
    hidden.new_source(state, pack)
    for q, hand in enumerate(state.hands):
        if any(hand):
            state.log.append((EV_BATCH, q, tuple(hand)))
    state.current_player = current_player
    return state


def species_ids(cards: list[int] | str) -> list[int]:
    """Species ids from ids or spec letters; ``ValueError`` names a card that is neither."""
    return [_species(c) for c in cards]


def _species(card: object) -> int:
    if isinstance(card, str) and len(card) == 1 and card in SPECIES_LETTERS:
        return SPECIES_LETTERS.index(card)
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= card < NUM_SPECIES:
            return int(card)
    raise ValueError(
        f"unknown card {card!r}: a species id 0..{NUM_SPECIES - 1} or one of the letters "
        f"{SPECIES_LETTERS!r}"
    )


def species_counts(cards: list[int] | str) -> list[int]:
    """Cards per species, from species ids or spec letters."""
    counts = [0] * NUM_SPECIES
    for s in species_ids(cards):
        counts[s] += 1
    return counts
