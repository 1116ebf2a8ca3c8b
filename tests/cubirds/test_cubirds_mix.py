"""The moves that bring the replay stages' worlds towards the posterior (session 30,
:mod:`cardzoo.envs.cubirds.hidden_mix`).

The replay stages find worlds consistent with everything the seat saw, but their distribution is
off (the search stages solve each pile to one solution). The mixer's chain has the exact
posterior as its stationary distribution, so moving a stage's worlds can only bring them closer.
On the small hand-made logs the complete search's worlds, moved by the default number of moves,
pass the chi-square comparison against the brute-force reference, which flags them as found.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden, hidden_mix
from cardzoo.envs.cubirds.data import EV_RESHUFFLE, EV_ROUND_END, EV_SOURCE
from cardzoo.envs.cubirds.game import Config
from cardzoo.envs.cubirds.hidden_mix import Mixer
from cardzoo.envs.cubirds.hidden_replay import _Plan
from cubirds_posterior import marginals, reference
from cubirds_small_logs import face_down_log, face_down_three_log, four_seat_log, two_pile_log
from cubirds_worlds import agrees_with_what_was_seen, explained_by_its_log, random_states
from scipy.stats import chi2_contingency

SAMPLES = 2000
ALPHA = 1e-4  # per position, over all its marginals (Bonferroni)

LOGS = [(face_down_log, 2), (face_down_three_log, 3), (two_pile_log, 3), (four_seat_log, 4)]


def _world(result: tuple, n: int, log: list[tuple]) -> tuple:
    """A replay result in the reference's terms (seat 0's view): the other seats' hidden cards,
    then what they threw away at each face-down round end, and the draw pile's content."""
    hidden_cards, left, _, _, _, leftovers = result
    world = tuple(tuple(hidden_cards[q]) for q in range(1, n))
    for i, ev in enumerate(log):
        if ev[0] == EV_ROUND_END:
            world += tuple(tuple(leftovers[i][q]) for q in range(1, n))
    return world, tuple(left)


def _worst_p_value(a: Counter, b: Counter) -> float:
    ma, mb = marginals(a), marginals(b)
    worst, tested = 1.0, 0
    for key in ma:
        values = sorted(set(ma[key]) | set(mb[key]))
        if len(values) > 1:
            table = [[ma[key][v] for v in values], [mb[key][v] for v in values]]
            worst = min(worst, chi2_contingency(table)[1])
            tested += 1
    return worst * max(tested, 1)


@pytest.mark.parametrize(("make", "n"), LOGS)
def test_the_complete_searchs_worlds_moved_match_the_reference(make, n):
    log = make()
    rng = np.random.default_rng(3)
    ref, _ = reference(log, 0, n, rng, SAMPLES, 10**7)
    assert sum(ref.values()) == SAMPLES
    plan = _Plan(log, 0, n)
    mixer = Mixer(plan)
    found, moved = Counter(), Counter()
    kept = 0
    for _ in range(SAMPLES):
        result = plan.sample_complete(rng)
        found[_world(result, n, log)] += 1
        batches, k = mixer.mix(result[4], list(result[1]), rng)
        kept += k
        moved_result = plan._replay(batches)
        assert moved_result is not None  # every move keeps the world consistent
        moved[_world(moved_result, n, log)] += 1
    assert kept > 0
    assert _worst_p_value(ref, found) < ALPHA  # the search's worlds as found: off (self-test)
    assert _worst_p_value(ref, moved) > ALPHA


def test_a_fed_piles_change_moves_one_of_its_slots_with_the_posteriors_odds():
    # face_down_three_log: pile 1 is made of the hands thrown away in pile 0. When a move
    # changes a thrown hand by one card of x more and one of y less, pile 1's content changes
    # alike, one of its y slots (drawn by another seat or still in the draw pile) becomes an x,
    # and the move's odds carry N[y] / (N[x] + 1) * (C[x] + 1) / C[y]. Every such (x, y).
    log = face_down_three_log()
    plan = _Plan(log, 0, 3)
    result = plan.sample_complete(np.random.default_rng(4))
    mixer = Mixer(plan)
    assert mixer.fed_piles == [1]
    reserved = plan.pile_source[1][2]
    tried = set()
    for y in range(8):
        for x in range(8):
            left = list(result[1])
            every = [[list(result[4][i]) for i, _, _ in boxes] for boxes in mixer.boxes]
            every[1].append(left)
            world = hidden_mix._World(mixer, every, result[4])
            slots = [sum(box[s] for box in every[1]) for s in range(8)]
            content = [r + n for r, n in zip(reserved, slots)]
            assert world.content[1] == content
            if x == y or not slots[y]:
                continue
            world.uniforms = iter([0.0])
            world.fed = {1: [0] * 8}
            world.fed[1][x], world.fed[1][y] = 1, -1
            world.gap = {1: [-c for c in world.fed[1]]}
            ratio = world._settle([])
            n_part = slots[y] / (slots[x] + 1)
            c_part = (content[x] + 1) / content[y]
            assert ratio == pytest.approx(n_part * c_part)
            tried.add((n_part != 1, c_part != 1))
            after = [sum(box[s] for box in every[1]) for s in range(8)]
            assert after[x] == slots[x] + 1 and after[y] == slots[y] - 1
            assert not any(world.gap.get(1, ()))
    assert (True, True) in tried  # (both factors told apart from 1 somewhere)


def test_no_moves_leave_the_world_as_found(monkeypatch):
    log = face_down_three_log()
    plan = _Plan(log, 0, 3)
    result = plan.sample_complete(np.random.default_rng(1))
    batches, kept = Mixer(plan).mix(result[4], list(result[1]), np.random.default_rng(2), 0)
    assert kept == 0 and batches == result[4]


@pytest.mark.parametrize("n", [4, 5])
def test_moved_worlds_agree_with_everything_seen_along_face_down_games(n):
    # Four- and five-player games with face-down discards, where the replay serves most late
    # positions: every moved world must agree with the seat's view and its log.
    rng = np.random.default_rng(n)
    config = Config(num_players=n, reveal_round_end_discards=False)
    mixed = 0
    for state in random_states(n, 1000 + n, every=7, config=config):
        if state.terminal:
            continue
        p = state.current_player
        sample = state.determinize(p, rng)
        if hidden.plan_for(state, p).exact_model is None:
            mixed += 1
        agrees_with_what_was_seen(state, sample, p)
        explained_by_its_log(sample)
    assert mixed >= 5


def _world_of(plan: _Plan, result: tuple) -> tuple[Mixer, list, hidden_mix._World]:
    mixer = Mixer(plan)
    left = list(result[1])
    every = [[list(result[4][i]) for i, _, _ in boxes] for boxes in mixer.boxes]
    every[plan.last_pile].append(left)
    return mixer, every, hidden_mix._World(mixer, every, result[4])


def test_a_pile_is_settled_outside_the_moves_boxes():
    # The slot that takes the missing species is picked among the pile's slots outside the
    # boxes the move swapped (the way back picks among the same ones).
    plan = _Plan(face_down_three_log(), 0, 3)
    result = plan.sample_complete(np.random.default_rng(4))
    for u in (0.0, 0.3, 0.6, 0.999):
        mixer, every, world = _world_of(plan, result)
        boxes = every[1]
        y = next(s for s in range(8) if sum(box[s] for box in boxes) > 1)
        x = next(s for s in range(8) if s != y)
        busy = [next(box for box in boxes if box[y])]  # one box holding a y: off limits
        before = [list(box) for box in boxes]
        world.uniforms = iter([u])
        world.fed = {1: [0] * 8}
        world.fed[1][x], world.fed[1][y] = 1, -1
        world.gap = {1: [-c for c in world.fed[1]]}
        ratio = world._settle(busy)
        free = [box for box in before if box is not None]
        ny = sum(b[y] for b, box in zip(free, boxes) if box is not busy[0])
        nx = sum(b[x] for b, box in zip(free, boxes) if box is not busy[0])
        content = world.content[1]
        assert ratio == pytest.approx(ny / (nx + 1) * (content[x] + 1) / content[y])
        assert busy[0] == before[boxes.index(busy[0])]  # untouched
        changed = [i for i, (a, b) in enumerate(zip(before, boxes)) if a != b]
        assert len(changed) == 1


def test_a_double_move_keeps_both_swaps_boxes_off_the_settling():
    # Both swaps' boxes are the move's: settling must not pick in them (the way back swaps
    # them first). Seen through the boxes handed to the settling.
    plan = _Plan(face_down_three_log(), 0, 3)
    result = plan.sample_complete(np.random.default_rng(1))
    mixer, every, world = _world_of(plan, result)
    piles, odds = mixer._piles(every)
    seen = []
    world._settle = lambda busy: seen.append(list(busy)) or 0.0
    rng = np.random.default_rng(0)
    for _ in range(2000):
        row = rng.random(8).tolist()
        first = hidden_mix._swap(piles, odds, row[1], row[2], row[3])
        if first is not None:
            world.move(first, (piles, odds, row), 0.0)  # (settling refused: always undone)
    doubles = [busy for busy in seen if len(busy) == 4]
    assert doubles and all(len(busy) in (2, 4) for busy in seen)


def test_only_a_reshuffle_is_fed_by_thrown_hands():
    # A source after a face-down round end (a hand-set position) has a public content: the
    # thrown hands feed no pile there.
    log = [
        ev if ev[0] != EV_RESHUFFLE else (EV_SOURCE, (1, 3, 1, 0, 0, 0, 0, 0))
        for ev in face_down_log()
    ]
    assert Mixer(_Plan(log, 0, 2)).fed_piles == []
    assert Mixer(_Plan(face_down_log(), 0, 2)).fed_piles == [1]


def test_the_factorial_ratio_is_exact():
    # (c + delta)! / c!, for the several cards a move can change in one fed pile's species.
    for c in range(0, 7):
        for delta in range(-3, 4):
            want = 0.0 if c + delta < 0 else math.factorial(c + delta) / math.factorial(c)
            assert hidden_mix._factorial_ratio(c, delta) == pytest.approx(want)


def _replayed_positions(n: int, seed: int, most: int):
    """Up to ``most`` positions of a seeded face-down game that the replay serves, as (plan,
    a world of its search stages), each with a pile fed by thrown hands."""
    config = Config(num_players=n, reveal_round_end_discards=False)
    rng = np.random.default_rng(seed)
    found = 0
    for state in random_states(n, seed, every=5, config=config):
        if state.terminal or found == most:
            continue
        kept = hidden.plan_for(state, state.current_player)
        if hidden.exact_model(kept) is not None:
            continue
        result = kept.replay.sample_complete(rng)
        if result is not None and Mixer(kept.replay).fed_piles:
            found += 1
            yield kept.replay, result


def test_quick_double_swaps_decide_as_the_general_way(monkeypatch):
    # Session 35: a double swap is judged on the counts alone where no card of it lies in a
    # thrown hand, or where it breaks a requirement that no settling edits; the whole mix then
    # reaches the same world with the same moves kept as when every move goes the general way.
    outcomes = Counter()
    quick = hidden_mix._World._quick

    def counted(world, swap, then):
        got = quick(world, swap, then)
        outcomes[got] += 1
        return got

    positions = list(_replayed_positions(3, 1000, 4))
    assert len(positions) == 4
    for plan, result in positions:
        runs = []
        for way in (counted, lambda world, swap, then: None):
            monkeypatch.setattr(hidden_mix._World, "_quick", way)
            runs.append(Mixer(plan).mix(result[4], list(result[1]), np.random.default_rng(5)))
        assert runs[0] == runs[1]
        assert runs[0][1] > 0
    assert outcomes[0] > 0 and outcomes[1] > 0 and outcomes[None] > 0


def test_a_double_swap_breaking_a_requirement_no_settling_edits_is_never_kept(monkeypatch):
    # The general way settles every fed pile before judging the requirements; where a double
    # swap broke one whose boxes lie in no fed pile, what it settles cannot mend it. Checked
    # with the short cut off (no quick way, no interval ``sure``) on moves that settle.
    settle = hidden_mix._World._settle
    doomed = Counter()
    monkeypatch.setattr(hidden_mix._World, "_quick", lambda world, swap, then: None)

    def watched(world, busy):
        world.doomed = any(d and world.sure_ivs[iv] for iv, d in world.change.items())
        return settle(world, busy)

    move = hidden_mix._World.move

    def judged(world, swap, then, u):
        world.doomed = None
        got = move(world, swap, then, u)
        if then is not None and world.doomed is not None:
            doomed[(world.doomed, got)] += 1
        return got

    monkeypatch.setattr(hidden_mix._World, "_settle", watched)
    monkeypatch.setattr(hidden_mix._World, "move", judged)
    init = hidden_mix._World.__init__

    def keeps_sure(world, mixer, every, batches):
        init(world, mixer, every, batches)
        world.sure_ivs, mixer.sure = mixer.sure, [False] * len(mixer.sure)

    monkeypatch.setattr(hidden_mix._World, "__init__", keeps_sure)
    for plan, result in _replayed_positions(3, 1000, 3):
        Mixer(plan).mix(result[4], list(result[1]), np.random.default_rng(6))
    assert doomed[(True, 0)] > 100 and doomed[(False, 1)] > 0
    assert doomed[(True, 1)] == 0
