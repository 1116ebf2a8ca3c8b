"""``hidden._completions`` finds the ways to deal a state with no masked token from its pools
alone, kept per pools (``_pools_ways``), and skips the look for masked tokens when no
``NO_MATCH`` was taken in (issue 16, speed, 2026-12-02, session 8): the ways, the cut and the
final weights are exactly (bit for bit) those of the plain per-epoch loop (``_epoch_ways``) on
every state, at the beliefs of seeded random games, default rules and
``joker_requires_no_match``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden
from cardzoo.envs.odins_ravens.labels import _masked_sizes


def _plain_completions(state):
    """The uncached per-epoch loop over every state, masked tokens looked for every time."""
    return hidden._epoch_ways(state[2], _masked_sizes(state[3], state[4]))


def _beliefs(strict, seeds=range(3), every=7):
    for seed in seeds:
        s = State(Config(joker_requires_no_match=strict), seed=seed)
        moves = random.Random(seed)
        while not s.terminal and not s.truncated and s.move_count < 700:
            s.apply(moves.choice(s.legal_move_ids()))
            if s.move_count % every == 0:
                belief = s.belief(s.move_count // every % 2)
                if belief.states is not None:
                    yield belief


@pytest.mark.parametrize("strict", [False, True], ids=["default", "strict"])
def test_the_ways_are_those_of_the_plain_loop(strict):
    seen = masked = 0
    for belief in _beliefs(strict):
        for st in belief.states:
            plain = _plain_completions(st)
            assert hidden._completions(st, belief.masks) == plain
            assert hidden._completions(st) == plain
            seen += 1
            masked += bool(_masked_sizes(st[3], st[4]))
        final = np.cumsum(
            [w * _plain_completions(st) for st, w in zip(belief.states, belief.weights)]
        )
        fresh = hidden.Belief(belief.states, belief.weights, None, 0, belief.masks)
        assert (fresh._final_weights() == final / final[-1]).all()
    assert seen > 1000
    assert bool(masked) == strict  # the strict games do reach states with masked tokens


def test_the_cut_is_that_of_the_plain_loop():
    cut = 0
    for belief in _beliefs(False, seeds=range(2), every=5):
        states, weights = belief.states, belief.weights
        if len(states) < 40:
            continue
        limit = len(states) // 2
        mass = [w * _plain_completions(st) for st, w in zip(states, weights)]
        order = sorted(range(len(states)), key=mass.__getitem__, reverse=True)
        kept = hidden._cut(states, weights, limit, belief.masks)
        assert len(kept[0]) <= limit
        assert set(kept[0]) <= {states[i] for i in order[: len(kept[0])]}
        assert kept == hidden._cut(states, weights, limit)  # the flag changes nothing
        cut += 1
    assert cut


def test_the_ways_of_a_state_are_kept_per_pools():
    hidden._pools_ways.cache_clear()
    belief = next(b for b in _beliefs(False) if len(b.states) > 20)
    for st in belief.states:
        hidden._completions(st, False)
    info = hidden._pools_ways.cache_info()
    assert info.misses == len({st[2] for st in belief.states})
    assert info.hits == len(belief.states) - info.misses
