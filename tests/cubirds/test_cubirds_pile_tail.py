"""Cubirds ``determinize`` at positions with several piles: the last pile's tail
(:mod:`cardzoo.envs.cubirds.hidden_tail`, session 16), the seats drawing only from the last
pile and what is left of it, drawn last and together.

The tail's weights and draws against a brute-force count of every split, and the whole sampler
with a tail against the rejection reference on a hand-made log.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_exact
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.envs.cubirds.hidden_group import RestOfPile
from cardzoo.envs.cubirds.hidden_tail import PileTail
from cubirds_posterior import reference
from cubirds_small_logs import every_split, sampled_worlds, sole_log, worst_p_value

SAMPLES = 3000
ALPHA = 1e-4


def _members(rng: np.random.Generator, pile: list[int], sizes: list[int]) -> list[RestOfPile]:
    return [RestOfPile(size, (rng.random(8) + 0.1).tolist(), pile) for size in sizes]


def test_the_tail_weighs_and_draws_every_split_of_what_is_left():
    # Members of 2, 1 and 3 cards (random weights) in a pile of 9: for every way the other
    # seats could have taken 3 cards, T(L) / max T is the brute-force sum over the splits of
    # what they left, over the largest such sum; and the draws given one L follow its splits.
    rng = np.random.default_rng(5)
    pile = [2, 1, 0, 2, 1, 1, 2, 0]
    members = _members(rng, pile, [2, 1, 3])
    tail = PileTail(members, [0, 1, -1], pile, 10**6)
    assert tail.fits

    def weight(split):
        return math.exp(sum(m.contents(pile)[c] for m, c in zip(members, split)))

    sums = {}
    for taken in RestOfPile(3, [1.0] * 8, pile).contents(pile):
        left = [a - t for a, t in zip(pile, taken)]
        sums[taken] = sum(weight(s) for s in every_split(left, members))
    top = max(sums.values())
    for taken, total in sums.items():
        got = tail.log_weight(list(taken))
        if total == 0.0:
            assert got == -math.inf
        else:
            assert math.isclose(math.exp(got), total / top, rel_tol=1e-9)
    assert tail.log_weight([3, 0, 0, 0, 0, 0, 0, 0]) == -math.inf  # more than the pile held
    taken = max(sums, key=sums.get)
    left = [a - t for a, t in zip(pile, taken)]
    splits = every_split(left, members)
    drawn = Counter(tuple(tail.draw(rng, list(taken))) for _ in range(6000))
    assert set(drawn) <= set(splits)
    for s in splits:
        share = weight(s) / sums[taken]
        assert abs(drawn[s] / 6000 - share) < 5 * math.sqrt(share * (1 - share) / 6000) + 1e-3


def _model(monkeypatch, tail: bool) -> ExactModel:
    # Seat 1 draws only from the new pile, two of whose cards are left; seat 2's box in the
    # first pile is pinned alone (no pile split), so the new pile is left to the keep step.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "PIN_PILE", False)
    monkeypatch.setattr(hidden_exact, "TAIL_KEPT", 10**6 if tail else 0)
    model = ExactModel(sole_log(), 0, 3)
    assert len(model.piles) == 2 and model.build() and model.seats is not None
    assert model.pin is not None and model.pile_pin is None
    return model


@pytest.mark.parametrize("tail", [True, False])
def test_a_sampler_with_a_tail_matches_the_reference(tail, monkeypatch):
    model = _model(monkeypatch, tail)
    assert (model.tail is not None) == tail
    if tail:
        assert model.tail.places[-1] == -1 and len(model.tail.places) == 2
    rng = np.random.default_rng(13)
    ref, _ = reference(sole_log(), 0, 3, rng, SAMPLES, 10**6)
    got = sampled_worlds(model, rng, SAMPLES)
    assert all(sum(draw) == 2 for _, draw in got)
    assert worst_p_value(ref, got) > ALPHA


def test_a_tail_keeps_more_proposals(monkeypatch):
    # What the tail is for: with it no proposal fails the new pile's content.
    kept = {}
    for tail in (True, False):
        model = _model(monkeypatch, tail)
        rng = np.random.default_rng(2)
        kept[tail] = sum(model._sample_seats(rng) is not None for _ in range(2000))
    assert kept[True] > 1.5 * kept[False]


def test_the_rest_counts_the_contents_it_lists():
    """``RestOfPile.count`` (which decides whether the last pile may be pinned, without listing
    its contents; session 29: running sums instead of a sum per count) equals the number of
    contents ``contents`` lists, for random sizes, piles and open-card weights (some zero)."""
    rng = np.random.default_rng(29)
    for _ in range(300):
        pile = rng.integers(0, 9, 8).tolist()
        size = int(rng.integers(0, sum(pile) + 1))
        weights = (rng.random(8) * (rng.random(8) > 0.2)).tolist()
        rest = RestOfPile(size, weights, pile)
        assert rest.count() == len(rest.contents(pile)), (size, pile, weights)
