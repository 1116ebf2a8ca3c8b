"""The small max-flow with lower bounds behind determinize's exact searches."""

from __future__ import annotations

import itertools

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


def _random_network(rng: np.random.Generator) -> tuple[int, list[tuple[int, int, int, int]]]:
    """A small random network with lower bounds (node 0 the source, 1 the sink)."""
    n = int(rng.integers(3, 9))
    edges = []
    for _ in range(int(rng.integers(2, 16))):
        u, v = rng.choice(n, 2, replace=False).tolist()
        low = int(rng.integers(0, 3))
        edges.append((u, v, low, low + int(rng.integers(0, 4))))
    return n, edges


def _meets_bounds(net: BoundedFlow, n: int, edges: list, handles: list[int]) -> bool:
    """Every edge within its bounds, and every node but the source and sink balanced."""
    flows = [net.flow(h) for h in handles]
    balance = [0] * n
    for (u, v, low, high), f in zip(edges, flows):
        if not low <= f <= high:
            return False
        balance[u] -= f
        balance[v] += f
    return all(b == 0 for b in balance[2:])


def test_a_check_without_rng_agrees_with_the_random_solution():
    # Without an rng the network is only checked (blocking flows, session 23); with one a
    # random solution is found (shortest augmenting paths). Both must agree on whether a
    # solution exists, and the check's flow must meet every bound too.
    answers = set()
    for seed in range(400):
        n, edges = _random_network(np.random.default_rng(seed))
        nets = []
        for _ in range(2):
            net = BoundedFlow(n)
            nets.append((net, [net.add(*e) for e in edges]))
        checked = nets[0][0].solve(0, 1)
        solved = nets[1][0].solve(0, 1, np.random.default_rng(seed))
        assert checked == solved, (seed, edges)
        if checked:
            assert _meets_bounds(*nets[0][:1], n, edges, nets[0][1])
            assert _meets_bounds(*nets[1][:1], n, edges, nets[1][1])
        answers.add(checked)
    assert answers == {True, False}


def _afresh(plan, g, avail, bounds, rng, least=None, groups=()):
    """``flow.pile_flow`` as it was before its networks were kept (session 28): the network
    made edge by edge at every call, in the same order."""
    from cardzoo.envs.cubirds.flow import SINK, SOURCE, SPECIES_NODE

    batches = plan.pile_batches[g]
    # Node numbers: the species, then each interval, then each group followed by its members.
    numbers = itertools.count(SPECIES_NODE + 8)
    interval_node = {iv: next(numbers) for iv in bounds}
    group_node = []
    for group in groups:
        group_node.append(next(numbers))
        interval_node.update((iv, next(numbers)) for iv in group[3])
    node = next(numbers)
    net = BoundedFlow(node + len(batches))
    closed = g < plan.last_pile
    for s in range(8):
        low = (avail[s] if least is None else max(least[s], 0)) if closed else 0
        net.add(SOURCE, SPECIES_NODE + s, low, avail[s])
    for iv, (low, high) in bounds.items():
        net.add(SPECIES_NODE + plan.species_of[iv], interval_node[iv], low, high)
    for (s, low, high, ivs), v in zip(groups, group_node):
        net.add(SPECIES_NODE + s, v, low, high)
        for iv in ivs:
            net.add(v, interval_node[iv], 0, plan.by_pile[iv][g])
    rows = []
    for b, (_, i, _, k, ivs) in enumerate(batches):
        v = node + b
        net.add(v, SINK, k, k)
        rows.append(
            (i, [net.add(interval_node.get(ivs[s], SPECIES_NODE + s), v, 0, k) for s in range(8)])
        )
    if not net.solve(SOURCE, SINK, rng):
        return None
    return {i: tuple(net.flow(e) for e in row) for i, row in rows}


def test_a_kept_pile_network_solves_as_one_made_afresh(monkeypatch):
    """The complete search's pile networks are made once per plan and copied (session 29).
    At the bench's late four-player face-down positions, every check and every seeded solution
    of the complete search equals that of the network made edge by edge (the same edges in the
    same order: a seeded solution depends on it), failures included."""
    import copy

    from cardzoo.envs.cubirds import Config, State, flow, hidden_replay
    from cardzoo.train.bench_loops import game_positions

    kept_flow, compared = flow.pile_flow, [0, 0]

    def both(plan, g, avail, bounds, rng, least=None, groups=()):
        fresh = _afresh(plan, g, avail, bounds, copy.deepcopy(rng), least, groups)
        got = kept_flow(plan, g, avail, bounds, rng, least, groups)
        assert got == fresh
        compared[got is None] += 1
        return got

    monkeypatch.setattr(flow, "pile_flow", both)
    config = Config(num_players=4, reveal_round_end_discards=False)
    for k, state in enumerate(game_positions(State, config, 6)["late"]):
        plan = hidden_replay._Plan(state.log, state.current_player, 4)
        for seed in range(3):
            plan.sample_complete(np.random.default_rng(100 * k + seed))
    assert min(compared) >= 200, compared


def test_the_exact_search_samples_alike_with_kept_and_new_networks():
    """The exact search's pile networks (``flow.solve_pile``) are kept per plan too (session
    29): a plan whose networks served many searches samples what a new plan samples with the
    same generator, at the bench's late four-player face-down positions."""
    from cardzoo.envs.cubirds import Config, State, hidden_replay
    from cardzoo.train.bench_loops import game_positions

    config = Config(num_players=4, reveal_round_end_discards=False)
    served = 0
    for k, state in enumerate(game_positions(State, config, 8)["late"]):
        worn = hidden_replay._Plan(state.log, state.current_player, 4)
        for seed in range(4):
            worn.sample_exact(np.random.default_rng(seed))
        for seed in range(4, 8):
            new = hidden_replay._Plan(state.log, state.current_player, 4)
            a = worn.sample_exact(np.random.default_rng(seed))
            assert a == new.sample_exact(np.random.default_rng(seed)), (k, seed)
            served += a is not None
        assert any(isinstance(key, int) for key in worn.flows)
    assert served >= 8, served
