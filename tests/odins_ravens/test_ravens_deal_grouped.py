"""``hidden._deal_state`` groups a label state's places by epoch in one pass and reads the
permutations as lists (issue 16, speed, 2026-12-02, session 8): the worlds it deals are exactly
those of the plain version below (a list of places, each epoch's picked out by a scan), for
the same rng, at label states of seeded random games with and without no-match masks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden
from cardzoo.envs.odins_ravens.data import NUM_KINDS
from cardzoo.envs.odins_ravens.labels import _entry_labels, _is_bag


def _plain_deal(state, rng):
    current, undrawn, pools, hand, aux = state
    places = [("hand", 0, label) for label, n in hand for _ in range(n)]
    for i, entry in enumerate(aux):
        places += [("aux", i, label) for label, n in _entry_labels(entry) for _ in range(n)]
    places += [("draw", 0, (current, 0))] * undrawn
    kinds = [-1] * len(places)
    for epoch, pool in enumerate(pools):
        mine = [j for j, place in enumerate(places) if place[2][0] == epoch]
        if mine:
            hidden._deal_epoch([places[j][2] for j in mine], list(pool), rng, mine, kinds)
    counts = [0] * NUM_KINDS
    blocks: list[list[int]] = [[] for _ in aux]
    draw = []
    for (zone, i, _), k in zip(places, kinds):
        if zone == "hand":
            counts[k] += 1
        elif zone == "aux":
            blocks[i].append(k)
        else:
            draw.append(k)
    out = []
    for entry, block in zip(aux, blocks):
        if _is_bag(entry):
            block = [block[j] for j in rng.permutation(len(block))]
        out += block
    return counts, out, draw


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_grouped_deal_equals_the_plain_deal(strict):
    compared = masked = 0
    for seed in range(3):
        s = State(Config(joker_requires_no_match=strict), seed=seed)
        moves = random.Random(seed)
        while not s.terminal and not s.truncated and s.move_count < 900:
            s.apply(moves.choice(s.legal_move_ids()))
            if s.move_count % 11:
                continue
            belief = s.belief(s.move_count // 11 % 2)
            if belief.states is None:
                continue
            for state in belief.states[:: max(1, len(belief.states) // 4)]:
                for k in range(2):
                    want = _plain_deal(state, np.random.default_rng(k))
                    assert hidden._deal_state(state, np.random.default_rng(k)) == want
                    compared += 1
                masked += any(label[1] for label, _ in state[3])
    assert compared > 300 and (masked > 0 or not strict)
