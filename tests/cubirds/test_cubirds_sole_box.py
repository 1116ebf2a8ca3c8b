"""Cubirds ``determinize`` at positions with several piles (session 16): a box drawn alone from
a pile drawn to its end holds that pile's content, and its chain knows it
(``hidden_exact.CAP_SOLE_BOXES``); a pile's split counted on its grid with NumPy
(``hidden_pin._counted_by_grid``) equals the count in a dict; where no split fits the usual
steps and the rejection keeps few, the split is tried with more (``WIDE_PILE_STEPS``).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_exact, hidden_pin
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.envs.cubirds.hidden_group import RestOfPile
from cardzoo.envs.cubirds.hidden_pin import PinnedPile
from cubirds_posterior import reference
from cubirds_small_logs import every_split, sampled_worlds, sole_log, worst_p_value

SAMPLES = 3000
ALPHA = 1e-4


def _model(monkeypatch, sole: bool) -> ExactModel:
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "CAP_SOLE_BOXES", sole)
    model = ExactModel(sole_log(), 0, 3)
    assert len(model.piles) == 2 and model.build() and model.seats is not None
    return model


@pytest.mark.parametrize("sole", [True, False])
def test_a_box_drawn_alone_from_an_emptied_pile_holds_its_content(sole, monkeypatch):
    # With the cap, seat 2's chain proposes nothing but the first pile's unseen cards for its
    # box there; without it (the control) some proposals put other cards in it.
    model = _model(monkeypatch, sole)
    rng = np.random.default_rng(1)
    (boxes, chain) = next((b, c) for b, c in model.seats if model._seat(b[0]) == 2)
    first = boxes.index(next(g for g in boxes if model.box_pile[g] == 0))
    pile = model.avail[0]
    assert sum(pile) == model.box_size[boxes[first]] == 4
    held = Counter(tuple(chain.sample_counts(rng, [0] * 8)[first]) for _ in range(500))
    assert (set(held) == {tuple(pile)}) == sole


@pytest.mark.parametrize("sole", [True, False])
def test_sole_boxes_capped_are_sampled_exactly(sole, monkeypatch):
    # The whole sampler (the new pile pinned with what is left of it, seat 2's chain capped or
    # not) against the rejection reference: every seat's and the pile's count per species.
    model = _model(monkeypatch, sole)
    assert model.pile_pin is not None and model.pile_pin.index == 1
    rng = np.random.default_rng(11)
    ref, _ = reference(sole_log(), 0, 3, rng, SAMPLES, 10**6)
    assert sum(ref.values()) == SAMPLES
    got = sampled_worlds(model, rng, SAMPLES)
    assert worst_p_value(ref, got) > ALPHA


def test_a_split_counted_on_the_grid_equals_the_dict_count(monkeypatch):
    # Members with random weights (what is left of a pile, every species open) split a pile:
    # the counts made with NumPy and in a dict give each split the same probability, and those
    # probabilities are the members' weights normalised (brute force over every split).
    rng = np.random.default_rng(4)
    pile = [2, 1, 0, 2, 1, 1, 2, 1]
    sizes = [2, 3, 1, 4]
    members = [RestOfPile(size, (rng.random(8) + 0.1).tolist(), pile) for size in sizes]
    got = {}
    monkeypatch.setattr(hidden_pin, "GRID_PAIRS", 0)  # every step on the grid, however small
    monkeypatch.setattr(hidden_pin, "GRID_SPARSITY", 10**9)
    for cells in (0, hidden_pin.GRID_CELLS):
        monkeypatch.setattr(hidden_pin, "GRID_CELLS", cells)
        split = PinnedPile(members, list(range(len(members))), pile)
        assert split.fits
        got[cells] = split
    splits = every_split(pile, members)
    weights = [math.exp(sum(m.contents(pile)[c] for m, c in zip(members, s))) for s in splits]
    for s, w in zip(splits, weights):
        by_dict, by_grid = (got[c].probability(s) for c in got)
        assert math.isclose(by_dict, by_grid, rel_tol=1e-9)
        assert math.isclose(by_grid, w / sum(weights), rel_tol=1e-9)
    # And the draws follow them.
    drawn = Counter(got[hidden_pin.GRID_CELLS].draw(rng) for _ in range(4000))
    top = max(range(len(splits)), key=weights.__getitem__)
    share = weights[top] / sum(weights)
    assert abs(drawn[splits[top]] / 4000 - share) < 5 * math.sqrt(share / 4000) + 1e-3


@pytest.mark.parametrize("wide", [True, False])
def test_a_split_past_the_usual_steps_is_tried_wider_where_few_are_kept(wide, monkeypatch):
    # No split fits PILE_STEPS here (set to 1); with WIDE_PILE_STEPS the pilot (which keeps
    # fewer than WIDE_KEPT, set out of reach) leads to the new pile split with what is left of
    # it, and the sampler still matches the reference. Without it: the single pinned box.
    monkeypatch.setattr(hidden_pin, "PILE_STEPS", 1)
    monkeypatch.setattr(hidden_exact, "WIDE_KEPT", 10**6)
    monkeypatch.setattr(hidden_exact, "WIDE_PILE_STEPS", 10**6 if wide else 0)
    model = _model(monkeypatch, True)
    assert (model.pile_pin is not None) == wide and (model.pin is None) == wide
    if not wide:
        return
    assert model.pile_pin.index == 1 and model.pile_pin.places[-1] == -1
    rng = np.random.default_rng(12)
    ref, _ = reference(sole_log(), 0, 3, rng, SAMPLES, 10**6)
    got = sampled_worlds(model, rng, SAMPLES)
    assert worst_p_value(ref, got) > ALPHA
