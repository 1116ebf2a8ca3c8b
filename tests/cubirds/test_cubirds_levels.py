"""The joint count level by level (``Programme.build_levels``, :mod:`.hidden_levels`, session 27)
against the depth-first build (``Programme.build``): the same count to the last bit, the same
steps and states counted (so the same limits fit), and the same samples from the same generator,
on the joint programmes of positions along random games and on single seats' programmes
without pile conditions."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_count, hidden_levels
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.game import Config
from cardzoo.envs.cubirds.hidden_count import Programme
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cubirds_worlds import random_states
from test_cubirds_exact_counting import LIMITS, _seat_boxes, joint_programme_inputs


def _used(prog: Programme) -> tuple[int, int]:
    """The states and steps a depth-first build from scratch spent."""
    return LIMITS[0] - prog._budget[0], LIMITS[1] - prog._budget[1]


def _same_samples(a: Programme, b: Programme, draws: int = 20) -> None:
    ra, rb = np.random.default_rng(11), np.random.default_rng(11)
    for _ in range(draws):
        assert a.sample_counts(ra) == b.sample_counts(rb)


def _compare(args: tuple, **kwargs) -> str:
    """Both builds of one programme compared; 'fit', 'large' (past LIMITS) or 'none' (no
    world: a count of 0, nothing to sample). ``kwargs``: more of the programme (``feeds``)."""
    deep, levels = Programme(*args, **kwargs), Programme(*args, **kwargs)
    fits = deep.build(*LIMITS)
    assert levels.build_levels(*LIMITS) == fits
    if not fits:
        return "large"
    assert levels.total == deep.total  # equal to the last bit: the same sums in the same order
    assert levels.states_steps == _used(deep)
    states, steps = _used(deep)
    # One state or one step fewer: the level-by-level build does not fit either.
    assert not Programme(*args, **kwargs).build_levels(states - 1, steps)
    assert not Programme(*args, **kwargs).build_levels(states, steps - 1)
    if deep.total == 0.0:
        return "none"
    _same_samples(deep, levels)
    return "fit"


@pytest.mark.parametrize("listed", [256, 0])
@pytest.mark.parametrize("n", [3, 5])
def test_levels_count_and_sample_what_the_depth_first_build_does(n, listed, monkeypatch):
    # (``listed``: past how many choices a state keeps them as arrays; 0: every state)
    monkeypatch.setattr(hidden_levels, "_LISTED", listed)
    seen = [_compare(args) for _, args in joint_programme_inputs(n, seeds=2, every=6)]
    assert seen.count("fit") >= 20
    assert seen.count("large") >= 1 or n == 3


@pytest.mark.parametrize("n", [2, 3])
def test_levels_count_piles_fed_by_thrown_hands_as_the_depth_first_build_does(n):
    # Session 33: face-down round ends, a reshuffled pile holding thrown-away hands (the
    # programme's ``feeds``), counted level by level too (before, depth first only).
    seen = []
    config = Config(num_players=n, reveal_round_end_discards=False)
    for seed in range(3):
        for state in random_states(n, seed, every=3, config=config):
            if state.terminal:
                continue
            try:
                model = ExactModel(state.log, state.current_player, n)
                model._boxes()
            except he.TooLarge:
                continue
            fed = {j: (p["known"], p["feeds"]) for j, p in enumerate(model.piles) if p["feeds"]}
            if fed:
                args = (model.box_size, model.box_pile, model.box_label, model.iv_req, model.avail)
                seen.append(_compare(args, feeds=fed))
    assert seen.count("fit") >= 4 and seen.count("large") >= 1


def test_a_fed_pile_bounds_an_interval_by_all_it_may_hold(monkeypatch):
    # By hand: seat q drew 2 cards of species 0 from pile 0 (all it held) and threw them away
    # face down; they feed pile 1 (public part: one card of species 0, one of species 1), from
    # which q drew two boxes of 2 and laid 3 of species 0 (the first box also holds the
    # species-1 card). Pile 1 holds 3 of species 0 only with the thrown cards, so its bound
    # must count them: one world, weight 1/2! * 1/2! * 3!/1! = 1.5, both builds.
    monkeypatch.setattr(hidden_count, "GREEDY_ORDER", False)  # (species 0 first: two classes)

    def label(*first, rest):
        return (*first, *[rest] * (8 - len(first)))

    boxes = [2, 2, 2, 0], [0, 1, 1, 1]
    labels = [label(0, rest=-1), label(1, 2, rest=-2), label(1, -2, rest=-2), label(rest=-2)]
    avail = [[2, *[0] * 7], [1, 1, *[0] * 6]]
    feeds = {1: ([0] * 8, [{0}, *[set() for _ in range(7)]])}
    args = (*boxes, labels, [-1, 3, 1], avail)
    assert _compare(args, feeds=feeds) == "fit"
    built = Programme(*args, feeds=feeds)
    assert built.build_levels(*LIMITS) and built.total == 1.5


def test_a_larger_try_goes_on_from_the_levels_a_smaller_one_counted(monkeypatch):
    # Session 33: a try that does not fit keeps the levels it counted whole; a try with larger
    # limits lists only the levels after them, and counts, states and steps counted and
    # samples are a fresh build's.
    listed = []
    real = hidden_levels.Levels._list

    def spy(self, k, *args):
        listed.append(k)
        return real(self, k, *args)

    monkeypatch.setattr(hidden_levels.Levels, "_list", spy)
    small = (LIMITS[0] // 16, LIMITS[1] // 16)
    went_on = 0
    for _, args in joint_programme_inputs(5, seeds=2, every=6):
        fresh = Programme(*args)
        listed.clear()
        if not fresh.build_levels(*LIMITS):
            continue
        levels_fresh = list(listed)
        prog = Programme(*args)
        if prog.build_levels(*small):
            continue
        counted = len(prog._levels_done[0])
        listed.clear()
        assert prog.build_levels(*LIMITS)
        assert listed == levels_fresh[counted:]  # (the level it stopped in, listed again)
        assert prog.total == fresh.total and prog.states_steps == fresh.states_steps
        _same_samples(prog, fresh)
        went_on += counted > 0
    assert went_on >= 5


def test_levels_without_pile_conditions_count_what_the_depth_first_build_does():
    # One seat's boxes, no pile conditions (``avail`` None) and an uneven tilt per species.
    tilt = [1.0 + 0.37 * s for s in range(8)]
    compared = 0
    for state in random_states(4, 3, every=9, config=Config(num_players=4)):
        if state.terminal:
            continue
        model = ExactModel(state.log, state.current_player, 4)
        model._boxes()
        for boxes in _seat_boxes(model):
            sizes = [model.box_size[g] for g in boxes]
            labels = [model.box_label[g] for g in boxes]
            args = (sizes, [0] * len(boxes), labels, model.iv_req, None, tilt)
            compared += _compare(args) == "fit"
    assert compared >= 10


def test_the_model_counts_its_large_tries_level_by_level(monkeypatch):
    # ``_build_joint`` with a share past LEVELS_SHARE: the small depth-first try first
    # (LEVELS_FIRST of the limits), then every level at once within the whole share.
    calls = []
    real = Programme.build_levels

    def spy(self, *limits):
        calls.append(limits)
        return real(self, *limits)

    monkeypatch.setattr(Programme, "build_levels", spy)
    for model, args in joint_programme_inputs(5, seeds=1, every=7):
        if len(model.piles) < 2:
            continue
        deep = Programme(*args)
        if deep.build(*(int(v * LIMITS_SHARE) for v in model_limits())) and _used_more(deep):
            model.limits = model_limits()
            model._partial_joint = (None, 0.0)
            assert model._build_joint(LIMITS_SHARE)
            assert calls[-1] == tuple(int(v * LIMITS_SHARE) for v in model.limits)
            assert model.joint.total == deep.total
            return
    pytest.fail("no position whose joint count needs more than the small first try")


def test_the_small_depth_first_try_comes_only_below_the_class_bound(monkeypatch):
    # Session 28: from LEVELS_FIRST_CLASSES classes of boxes on, the small depth-first try
    # rarely fits, so the large try counts level by level at once; below, the small try first.
    depth_first = []
    real = Programme.build

    def spy(self, *limits, **kwargs):
        depth_first.append(limits)
        return real(self, *limits, **kwargs)

    monkeypatch.setattr(Programme, "build", spy)
    seen = set()
    for model, _ in joint_programme_inputs(5, seeds=1, every=5):
        if len(model.piles) < 2:
            continue
        wide = model._classes() >= he.LEVELS_FIRST_CLASSES
        model.limits = model_limits()
        model._partial_joint = (None, 0.0)
        depth_first.clear()
        model._build_joint(LIMITS_SHARE)
        first = tuple(int(v * he.LEVELS_FIRST) for v in model.limits)
        assert depth_first == ([] if wide else [first])
        seen.add(wide)
    assert seen == {False, True}


LIMITS_SHARE = 4.0  # (past hidden_exact.LEVELS_SHARE)


def model_limits() -> tuple[int, int]:
    return (hidden_count.MAX_STATES, hidden_count.MAX_OPTIONS)


def _used_more(deep: Programme) -> bool:
    """Whether a depth-first build spent more than the small first try's limits."""
    states = int(LIMITS_SHARE * hidden_count.MAX_STATES) - deep._budget[0]
    steps = int(LIMITS_SHARE * hidden_count.MAX_OPTIONS) - deep._budget[1]
    first = he.LEVELS_FIRST
    return states > first * hidden_count.MAX_STATES or steps > first * hidden_count.MAX_OPTIONS


def test_a_joint_count_past_twice_the_limits_serves_first_by_default(monkeypatch):
    # The bench's five-player middle game 12 (two piles): its joint count exceeds twice the
    # limits, the several piles' first try before session 27, so the chains and their pilots
    # were built before the larger try (64 times them) took over. At sixteen times them,
    # counted level by level, the first try fits: no chains built, the same count.
    from cardzoo.envs.cubirds import State
    from cardzoo.train.bench_loops import game_position

    state = game_position(State, Config(num_players=5), 12, 0.5)
    chains = []
    real = ExactModel._build_seats

    def spy(self):
        chains.append(self)
        return real(self)

    monkeypatch.setattr(ExactModel, "_build_seats", spy)
    totals = []
    for share in (he.MULTI_JOINT_SHARE, 2.0):
        monkeypatch.setattr(he, "MULTI_JOINT_SHARE", share)
        he._BUILT.clear()
        model = ExactModel(state.log, state.current_player, 5)
        assert model.build() and len(model.piles) == 2
        assert model.seats is None and model.joint.levels is not None
        totals.append((model.joint.total, len(chains)))
    assert totals[0][0] == totals[1][0]
    assert totals[0][1] == 0 and totals[1][1] == 1  # chains built only at twice the limits


def test_thirteen_classes_keeping_few_go_to_the_larger_joint_try(monkeypatch):
    # The bench's five-player middle game 5: two piles, 13 classes of boxes, the pilot keeping
    # about 5 % of its proposals (fewer than FEW_KEPT of RARE_DRAWS, more than RARE_KEPT). With
    # FEW_CLASSES at 14 (session 27; 10 before) its larger joint try is made, and fits.
    from cardzoo.envs.cubirds import State
    from cardzoo.train.bench_loops import game_position

    state = game_position(State, Config(num_players=5), 5, 0.5)
    models, now = {}, he.FEW_CLASSES
    for few in (now, 10):
        monkeypatch.setattr(he, "FEW_CLASSES", few)
        he._BUILT.clear()
        model = models[few] = ExactModel(state.log, state.current_player, 5)
        assert model.build() and len(model.piles) == 2 and model._classes() == 13
    assert models[now].seats is None and models[now].joint is not None
    assert models[10].seats is not None and models[10].joint is None
    kept = models[10]._pilot_kept(he.RARE_DRAWS, 10**9)
    assert he.RARE_KEPT <= kept < he.FEW_KEPT


def test_a_programme_without_a_world_counts_zero_both_ways():
    # Two boxes of one pile holding 3 cards in all, a closed interval asking 4 of species 0 of
    # the first box: no filling meets it. Both builds fit and count 0.
    sizes, piles = [2, 1], [0, 0]
    labels = [(0, *[-1] * 7), tuple([-1] * 8)]
    args = (sizes, piles, labels, [4], [[2, 1, 0, 0, 0, 0, 0, 0]])
    deep, levels = Programme(*args), Programme(*args)
    assert deep.build(*LIMITS) and levels.build_levels(*LIMITS)
    assert deep.total == levels.total == 0.0
    assert levels.states_steps == _used(deep)
