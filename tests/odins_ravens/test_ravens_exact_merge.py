"""Exact merges of label states in Odin's Ravens' ``hidden.Belief`` (issue 16, exactness):
a mask bit of a land type the token's pile has no card of left is dropped, and fully drawn piles
whose unrevealed cards are all of one kind are joined. Both only merge states that no later event
and no deal can tell apart, so the posterior is unchanged: checked against a belief built
without the merges (its states merged here, by an independent implementation of the same rule)
and against a brute-force count of every card-level history."""

from __future__ import annotations

from collections import Counter

import pytest
from cardzoo.envs.odins_ravens import Config, hidden
from cardzoo.envs.odins_ravens.data import NUM_TYPES
from cardzoo.envs.odins_ravens.hidden import (
    DRAW,
    FROM_AUX,
    FROM_HAND,
    NO_MATCH,
    RESHUFFLE,
    STASH,
    Belief,
)
from ravens_helpers import belief_within, shares
from test_ravens_determinize import (
    assert_samples_follow_brute_force,
    pool,
    random_positions,
)

F, M, P, S, W, O1 = range(6)


def _one_kind(counts: tuple[int, ...]) -> int:
    kinds = [k for k, n in enumerate(counts) if n]
    return kinds[0] if len(kinds) == 1 else -1


def canonical(state: tuple) -> tuple:
    """A form of a label state that does not depend on the merges: drop every mask bit of a
    type its pile has none of left, and label every token of a fully drawn pile holding one
    kind ``k`` only as ``("known", k)`` (such piles' pools are counted together per kind)."""
    current, undrawn, pools, hand, aux = state
    known: dict[int, int] = {}
    for e, p in enumerate(pools):
        kind = _one_kind(p) if p else -1
        if kind >= 0 and (e != current or not undrawn):
            known[e] = kind
    known_counts = [0] * 9
    for e, kind in known.items():
        known_counts[kind] += pools[e][kind]

    def fix(label):
        e, mask = label
        if e in known:
            return ("known", known[e])
        keep = sum(1 << t for t in range(NUM_TYPES) if pools[e][t])
        return (e, mask & keep)

    def bag(items):
        out: Counter = Counter()
        for label, n in items:
            out[fix(label)] += n
        return tuple(sorted(out.items(), key=repr))

    new_aux = tuple(bag(x) if isinstance(x[0], tuple) else fix(x) for x in aux)
    new_pools = tuple(() if e in known else p for e, p in enumerate(pools))
    return (current, undrawn, new_pools, tuple(known_counts), bag(hand), new_aux)


def _unmerged(log, monkeypatch, limit: int = 10**6) -> Belief | None:
    """The belief built without the merges; None once it passes ``limit`` states."""
    with monkeypatch.context() as m:
        m.setattr(hidden, "_join_known", lambda state, epoch: state)
        m.setattr(hidden, "_forget_spent_type", lambda state, epoch, kind: state)
        return belief_within(log, limit)


@pytest.mark.parametrize(
    "cfg", [Config(joker_requires_no_match=True), Config()], ids=["strict", "default"]
)
def test_merged_belief_equals_the_unmerged_one_merged(cfg, monkeypatch):
    monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
    compared = merged_away = 0
    for s in random_positions(cfg, range(2), every=41, limit=900):
        for seat in (0, 1):
            log = s.logs[seat]
            plain = _unmerged(log, monkeypatch, limit=2000)
            if plain is None:
                continue
            merged = Belief.start().advance(log)
            assert merged.dropped == 0
            want = shares([canonical(st) for st in plain.states], plain.weights)
            got = shares([canonical(st) for st in merged.states], merged.weights)
            assert set(got) == set(want)
            for st, share in want.items():
                assert got[st] == pytest.approx(share, rel=1e-9, abs=1e-15)
            compared += 1
            merged_away += len(plain.states) - len(merged.states)
    assert compared >= 20 and merged_away > 0


MERGE_LOGS = {
    # The first pile ends with one kind left (M), then the second too: their tokens join.
    "two piles left with one kind each": [
        (RESHUFFLE, pool(F=1, M=1, S=1)),
        (DRAW, 3),
        (FROM_HAND, F),
        (STASH,),
        (RESHUFFLE, pool(F=1, M=2)),
        (DRAW, 2),
        (FROM_HAND, S),
        (DRAW, 1),
        (FROM_HAND, F),
        (RESHUFFLE, pool(F=1, W=1, O1=1)),
        (DRAW, 1),
        (STASH,),
        (NO_MATCH, W, True),
    ],
    # Tokens known not to be F, then the pile's last F is played: the bit rules out nothing.
    "a mask of a type the pile has no more of": [
        (RESHUFFLE, pool(F=2, M=2, S=1)),
        (DRAW, 2),
        (NO_MATCH, F, False),
        (DRAW, 2),
        (STASH,),
        (FROM_HAND, F),
        (FROM_AUX, M),
        (DRAW, 1),
        (FROM_HAND, F),
        (STASH,),
    ],
}


@pytest.mark.parametrize("name", sorted(MERGE_LOGS))
def test_merged_beliefs_sample_the_brute_force_posterior(name, monkeypatch):
    log = MERGE_LOGS[name]
    # The log does exercise the merge: its label states differ from those built without it.
    assert set(Belief.start().advance(log).states) != set(_unmerged(log, monkeypatch).states)
    assert_samples_follow_brute_force(log, seed=5)
