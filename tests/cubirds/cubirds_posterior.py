"""A brute-force reference for the exact posterior of Cubirds' ``determinize`` (issue 16).

The exact distribution (defined in :mod:`cardzoo.envs.cubirds.hidden_exact`) is the uniform one
over card-level histories that agree with everything the seat saw. This module samples it by
rejection, written independently of the engine's samplers: every pile is a uniformly shuffled
multiset; the cards the seat saw leave it (public draws, its own unseen draws) are taken out of it
up front, which is exact because a shuffled pile is exchangeable; every other seat's unseen draw
then takes its cards uniformly without replacement from what is left; a world is kept only when
every lay and flock of another seat revealed exactly the hidden count it has in that world.

Face-down round ends: each other seat's hidden hand is thrown away there, and a world also lists
those thrown-away cards. A pile that a reshuffle makes of them (with the public discards and the
seat's own thrown-away cards) has a content that differs from world to world: it is shuffled
whole and drawn card by card, a world kept only if the seat saw exactly the cards it drew and
the public ones (session 20). Slow: for tiny positions only.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_CLOSE,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
    NUM_SPECIES,
)

S = range(NUM_SPECIES)


def _piles(log: list[tuple], player: int) -> list[list[int] | None]:
    """Per pile: its cards less those ``player`` saw leave it (None: a pile made of hands
    thrown away face down, whose content depends on the world)."""
    out: list[list[int] | None] = []
    ended = False
    for ev in log:
        if ev[0] in (EV_SOURCE, EV_RESHUFFLE):
            if ended and ev[0] == EV_SOURCE:
                raise ValueError("a source after face-down discards is not supported")
            out.append(None if ended else list(ev[1]))
            ended = False
        elif out[-1] is None:
            continue
        elif ev[0] == EV_PUBLIC:
            out[-1][ev[1]] -= 1
        elif ev[0] == EV_BATCH and ev[1] == player:
            for s in S:
                out[-1][s] -= ev[2][s]
        elif ev[0] == EV_ROUND_END:
            ended = True
    if any(c < 0 for pile in out if pile is not None for c in pile):
        raise ValueError("the log takes more cards from a pile than it holds")
    return out


def one_try(log: list[tuple], player: int, n: int, rng: np.random.Generator) -> tuple | None:
    """One world from the prior conditioned on what ``player`` saw leave the piles, or None when
    a lay or flock of another seat disagrees with it. A world: (per other seat its hidden cards
    not publicly known, as a tuple of counts, then per face-down round end the hidden cards each
    other seat threw away; the draw pile's content)."""
    piles = _piles(log, player)
    left: list[int] = []
    pile = -1
    hidden = [[0] * NUM_SPECIES for _ in range(n)]
    thrown: list[tuple] = []
    pending = [0] * NUM_SPECIES  # thrown away face down since the current pile was made
    whole = False  # the current pile is drawn card by card, the seen cards checked
    for ev in log:
        tag = ev[0]
        if tag in (EV_SOURCE, EV_RESHUFFLE):
            pile += 1
            whole = piles[pile] is None
            content = [a + b for a, b in zip(ev[1], pending)] if whole else piles[pile]
            left = [s for s in S for _ in range(content[s])]
            rng.shuffle(left)
            pending = [0] * NUM_SPECIES
        elif whole and (tag == EV_PUBLIC or (tag == EV_BATCH and ev[1] == player)):
            seen = [0] * NUM_SPECIES
            for _ in range(1 if tag == EV_PUBLIC else sum(ev[2])):
                if not left:
                    return None
                seen[left.pop()] += 1
            if seen != ([int(s == ev[1]) for s in S] if tag == EV_PUBLIC else list(ev[2])):
                return None
        elif tag == EV_BATCH and ev[1] != player:
            k = sum(ev[2])
            if k > len(left):
                return None
            for _ in range(k):
                hidden[ev[1]][left.pop()] += 1
        elif tag == EV_CLOSE and ev[1] != player:
            q, s, h = ev[1], ev[2], ev[3]
            if hidden[q][s] != h:
                return None
            hidden[q][s] = 0
        elif tag == EV_ROUND_END:
            for q in range(n):
                hand = list(ev[1][q]) if q == player else hidden[q]
                pending = [a + b for a, b in zip(pending, hand)]
                if q != player:
                    thrown.append(tuple(hidden[q]))
                    hidden[q] = [0] * NUM_SPECIES
    draw = [0] * NUM_SPECIES
    for s in left:
        draw[s] += 1
    world = tuple(tuple(hidden[q]) for q in range(n) if q != player) + tuple(thrown)
    return world, tuple(draw)


def reference(
    log: list[tuple], player: int, n: int, rng: np.random.Generator, count: int, max_tries: int
) -> tuple[Counter, int]:
    """``count`` worlds by rejection (fewer if ``max_tries`` runs out), and the tries made."""
    got: Counter = Counter()
    tries = 0
    while sum(got.values()) < count and tries < max_tries:
        tries += 1
        w = one_try(log, player, n, rng)
        if w is not None:
            got[w] += 1
    return got, tries


def world_of(state, player: int) -> tuple:
    """The same description of a (determinized) state: other seats' hidden cards not publicly
    known, then those they threw away face down (as its log says), and the draw pile's
    content."""
    n = state.num_players
    hidden = tuple(
        tuple(h - k for h, k in zip(state.hands[q], state.known[q]))
        for q in range(n)
        if q != player
    )
    for ev in state.log:
        if ev[0] == EV_ROUND_END:
            hidden += tuple(tuple(ev[1][q]) for q in range(n) if q != player)
    draw = [0] * NUM_SPECIES
    for s in state.draw:
        draw[s] += 1
    return hidden, tuple(draw)


def marginals(worlds: Counter) -> dict[tuple, Counter]:
    """Per (other seat, species): the distribution of its hidden count; and per species the draw
    pile's count (keyed ("draw", s))."""
    out: dict[tuple, Counter] = {}
    for (hidden, draw), c in worlds.items():
        for i, h in enumerate(hidden):
            for s in S:
                out.setdefault((i, s), Counter())[h[s]] += c
        for s in S:
            out.setdefault(("draw", s), Counter())[draw[s]] += c
    return out


def tv(a: Counter, b: Counter) -> float:
    """Total-variation distance of two empirical distributions."""
    na, nb = sum(a.values()), sum(b.values())
    keys = set(a) | set(b)
    return 0.5 * sum(abs(a[k] / na - b[k] / nb) for k in keys)
