"""The small max-flow with lower bounds behind determinize's exact searches."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds.flow import BoundedFlow


def test_lower_bounds_are_met_or_reported_infeasible():
    # source 0 -> a (1) -> sink 3, source -> b (2) -> sink; a->sink must carry 2..3.
    net = BoundedFlow(4)
    sa = net.add(0, 1, 0, 5)
    sb = net.add(0, 2, 0, 5)
    a_t = net.add(1, 3, 2, 3)
    b_t = net.add(2, 3, 1, 1)
    assert net.solve(0, 3)
    assert 2 <= net.flow(a_t) <= 3 and net.flow(b_t) == 1
    assert net.flow(sa) == net.flow(a_t) and net.flow(sb) == net.flow(b_t)
    net = BoundedFlow(3)
    net.add(0, 1, 0, 1)
    net.add(1, 2, 2, 2)  # needs 2 units through a node that can get only 1
    assert not net.solve(0, 2)


def test_random_order_gives_different_feasible_solutions():
    # Two species, two batches of 2 cards; each species has 2 cards: many solutions.
    seen = set()
    for seed in range(30):
        net = BoundedFlow(6)
        s0, s1 = net.add(0, 2, 2, 2), net.add(0, 3, 2, 2)
        e = [net.add(u, v, 0, 2) for u in (2, 3) for v in (4, 5)]
        net.add(4, 1, 2, 2)
        net.add(5, 1, 2, 2)
        assert net.solve(0, 1, np.random.default_rng(seed))
        flows = tuple(net.flow(x) for x in e)
        assert flows[0] + flows[2] == 2 and flows[1] + flows[3] == 2  # batches full
        assert flows[0] + flows[1] == 2 and net.flow(s0) == net.flow(s1) == 2
        seen.add(flows)
    assert len(seen) >= 2


def test_bad_bounds_are_refused():
    with pytest.raises(ValueError, match="low 3 > high 2"):
        BoundedFlow(2).add(0, 1, 3, 2)
