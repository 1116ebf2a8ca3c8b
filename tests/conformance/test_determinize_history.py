"""``determinize``'s sample for a given rng does not depend on what the process computed before
(issue 16), on every game, mode, variant and player count (``conformance_cases.CASES``).

The samplers keep what they build (per record, per position, per seat) so that an agent that
determinizes at every decision pays only for what is new; a kept piece that is not exactly what
a build from scratch gives, or a choice that tips on the last bit of a sum made in another order,
would make the same position and rng give another world depending on the calls before it. Found
once (session 9): a six-player Sitting Ducks position built from scratch chose another proposal
than the same position reached with its seats' memos kept (``now.TIE_SLACK``).

Along one seeded random game per case, the seat to play determinizes at every decision (as an
agent does, everything kept carried along); at about ``COMPARED`` of those decisions a clone is
kept, and at the end each clone is determinized again with the same rng, latest first (so that
whatever was kept for later positions is in place, and a record's walks must be built again
for a shorter record): every seat must see the same in both samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from cardzoo.train.bench_loops import game_moves
from conformance_cases import CASES

#: Decisions of the game at most (random Odin's Ravens games run past a thousand), and how many
#: of them are checked again.
DECISIONS = 200
COMPARED = 16


def views(state: Any) -> tuple:
    return tuple(state.view(q) for q in range(state.num_players))


@pytest.mark.parametrize("module,config", CASES)
def test_the_sample_does_not_depend_on_the_calls_before_it(module, config):
    spec = module.GAME
    cfg = spec.make_config(**config)
    (moves,) = game_moves(spec.state_cls, cfg, 1, seed=300)
    moves = moves[:DECISIONS]
    every = max(1, len(moves) // COMPARED)
    state = spec.state_cls(cfg, seed=300)
    kept = []
    for i, move in enumerate(moves):
        player = state.current_player
        sample = state.determinize(player, np.random.default_rng(i))
        if i % every == 0:
            kept.append((i, player, state.clone(), views(sample)))
        state.apply_id(move)
    assert len(kept) >= min(COMPARED, len(moves))
    for i, player, clone, seen in reversed(kept):
        again = clone.determinize(player, np.random.default_rng(i))
        assert views(again) == seen, (
            f"decision {i}, seat {player}: determinize(default_rng({i})) gave another world "
            "when called again after later positions"
        )
