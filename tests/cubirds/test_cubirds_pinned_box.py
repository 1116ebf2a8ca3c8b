"""Cubirds ``determinize`` at positions with several piles: one seat's box pinned to what the
other seats left of a pile drawn to its end (:mod:`cardzoo.envs.cubirds.hidden_pin`).

The whole sampler is checked against the rejection reference in
``test_cubirds_exact_posterior.py::test_two_piles_since_the_source_are_sampled_exactly``. Here
its two parts, on chains of random 4-player games: the weight of every content of the pinned box
(``Z(R) / M``) against the chain's own counts, and the draw of the other boxes given the pinned
one against the chain's draws that happen to put that content in the box.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import product

import numpy as np
from cardzoo.envs.cubirds import hidden_exact
from cardzoo.envs.cubirds.hidden_pin import PinnedBox
from cubirds_worlds import seat_chains
from scipy.stats import chi2, chi2_contingency


def _compositions(m: int, k: int):
    if k == 0:
        if m == 0:
            yield ()
        return
    for v in range(m + 1):
        for rest in _compositions(m - v, k - 1):
            yield (v, *rest)


def test_pinned_weights_add_up_to_the_chain(monkeypatch):
    # Summed over every content R of the pinned box, Z(R) (= exp(log_weight + log_top)) must
    # give the chain's total, and the largest must be M (log_weight 0 there, never above).
    # Catches: a forward pass that forgets to divide a choice's share by what follows it, an
    # open-card weight without its factorials, a top taken without the open cards' best.
    # With bounds on the box's species, M is the largest Z(R) over the R within them (catches
    # a top that ignores the bounds of the closed species, or of the open ones).
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "CAP_BOXES", True)
    checked = bounded = 0
    for prog in seat_chains(range(60, 76)):
        for k in range(prog.n):
            pin = PinnedBox(prog, k)
            size = prog.box_size[pin.step]
            lo, hi = [1, 0, 0, 0, 0, 0, 0, 0], [size, 1, 1, 1, 1, 2, 1, 1]
            capped = PinnedBox(prog, k, (lo, hi))
            total, top, top_in = 0.0, -math.inf, -math.inf
            for x in pin.a_of:
                for o in _compositions(size - sum(x), len(pin.opened)):
                    counts = [0] * 8
                    for s, v in zip(pin.closed, x):
                        counts[s] = v
                    for s, v in zip(pin.opened, o):
                        counts[s] = v
                    w = pin.log_weight(counts)
                    top = max(top, w)
                    total += math.exp(w + pin.log_top)
                    if all(a <= v <= z for a, v, z in zip(lo, counts, hi)):
                        top_in = max(top_in, capped.log_weight(counts))
            assert math.isclose(total, prog.total, rel_tol=1e-9)
            assert abs(top) < 1e-9
            if top_in > -math.inf:
                assert abs(top_in) < 1e-9
                bounded += 1
            checked += 1
    assert checked >= 20 and bounded >= 10


def test_pinned_box_draws_the_chain_given_the_box(monkeypatch):
    # A chain of 6 boxes pinned in the middle (steps before and after it): the other boxes
    # drawn given the pinned content must match the chain's draws that put that content there
    # (chi-square on every box's count of every species). Catches drawing the states before
    # the box, or the state at it, without their weights.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "CAP_BOXES", True)
    prog = next(p for p in seat_chains(range(70, 74)) if p.n == 6 and p.box_size[0] == 1)
    rng = np.random.default_rng(11)
    k = 2
    pin = PinnedBox(prog, k)
    free = [prog.sample_counts(rng) for _ in range(20000)]
    common = Counter(tuple(f[k]) for f in free).most_common(1)[0][0]
    want = [f for f in free if tuple(f[k]) == common]
    assert len(want) >= 1000
    got = [pin.sample(rng, list(common)) for _ in range(len(want))]
    assert all(tuple(g[k]) == common for g in got)
    worst, tested = 1.0, 0
    for b, s in product(range(prog.n), range(8)):
        a, c = Counter(f[b][s] for f in want), Counter(g[b][s] for g in got)
        values = sorted(set(a) | set(c))
        if len(values) > 1:
            table = [[a[v] for v in values], [c[v] for v in values]]
            worst = min(worst, chi2_contingency(table)[1])
            tested += 1
    assert tested >= 5
    assert worst * tested > 1e-4


def test_capped_open_cards_are_drawn_by_their_weights(monkeypatch):
    # Several piles: no box holds more of a species than its pile held, so a box's open cards
    # are spread species by species. At a capped step with several open species, the spreads
    # of m cards drawn must follow prod tilt**o / o! over the spreads within the caps (and
    # never exceed a cap). Catches drawing a species' count without what the species after it
    # can still take, or without its cap.
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    monkeypatch.setattr(hidden_exact, "CAP_BOXES", True)
    prog, r, want = next(
        (p, r, w)
        for p in seat_chains(range(60, 76))
        for r in range(p.n)
        if p.open_caps[r] is not None and any(c < p.box_size[r] for c in p.open_caps[r])
        for w in [_spreads(p, r)]
        if len(w) >= 5
    )
    opened, m = prog.boxes[r][3], prog.box_size[r]
    assert math.isclose(sum(want.values()), prog.boxes[r][4][m], rel_tol=1e-9)
    rng = np.random.default_rng(4)
    got: Counter = Counter()
    draws = 20000
    for _ in range(draws):
        counts = [0] * 8
        prog.fill_open(r, m, rng, counts)
        got[tuple(counts[s] for s in opened)] += 1
    assert set(got) <= set(want)
    total = sum(want.values())
    stat = sum((got[o] - draws * w / total) ** 2 / (draws * w / total) for o, w in want.items())
    assert chi2.sf(stat, len(want) - 1) > 1e-4


def _spreads(prog, r: int) -> dict:
    """Every spread of step ``r``'s whole box on its open species within their caps, with its
    weight ``prod tilt**o / o!``."""
    tilt, caps, m = prog.open_tilts[r], prog.open_caps[r], prog.box_size[r]
    out = {}
    for o in _compositions(m, len(tilt)):
        if all(v <= c for v, c in zip(o, caps)):
            w = math.prod(t**v / math.factorial(v) for t, v in zip(tilt, o))
            if w > 0.0:
                out[o] = w
    return out
