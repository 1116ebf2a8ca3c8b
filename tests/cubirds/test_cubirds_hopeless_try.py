"""Session 26: a joint programme that goes on from a try that exceeded its limits (with a larger
share of them) gives up at once where that try got almost nowhere (``hidden_count.HOPELESS``,
``Programme.progress``): along seeded five-player games such larger tries failed after 0.2 s
each, and every one that fitted came after a try that had got further.

Since session 27 the large tries count level by level from scratch (``hidden_exact.LEVELS_SHARE``,
where a failing try costs a fifth as much) and this applies only to depth-first tries; the
tests here set the shares as they were (``_as_in_session_26``)."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State
from cardzoo.envs.cubirds import hidden_count as hc
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.train.bench_loops import game_position


@pytest.fixture(autouse=True)
def _as_in_session_26(monkeypatch):
    monkeypatch.setattr(he, "LEVELS_SHARE", float("inf"))
    monkeypatch.setattr(he, "MULTI_JOINT_SHARE", 2.0)
    monkeypatch.setattr(he, "LAST_JOINT_SHARE", 0.0)  # (no last try: session 32)


def _tries(state: State, monkeypatch) -> list[tuple]:
    """Each joint try of a fresh build of ``state``'s model: (share, fitted, the progress of the
    try it goes on from or None, states its walk counted)."""
    counted = [0]
    count = hc.Programme._count

    def counting(self, k, caps):
        if caps not in self.tables[k]:
            counted[0] += 1
        return count(self, k, caps)

    tries = []
    build_joint = he.ExactModel._build_joint

    def recording(self, share=1):
        joint = self._partial_joint[0]
        before, counted[0] = (None if joint is None else joint.progress), 0
        tries.append((share, build_joint(self, share), before, counted[0]))
        return tries[-1][1]

    monkeypatch.setattr(hc.Programme, "_count", counting)
    monkeypatch.setattr(he.ExactModel, "_build_joint", recording)
    he._BUILT.clear()
    model = he.ExactModel(state.log, state.current_player, state.num_players)
    assert model.build() and model.joint is None and model.seats is not None
    return tries


def _samples(state: State) -> list:
    he._BUILT.clear()
    rng = np.random.default_rng(3)
    p = state.current_player
    return [state.determinize(p, rng).view(q) for _ in range(4) for q in range(5)]


def test_a_larger_try_after_one_that_got_nowhere_gives_up_at_once(monkeypatch):
    # Five players, seeded game 1001 after 134 decisions (two piles): the joint programme at
    # twice the limits gets 3.8e-5 of the way; at 64 times them it would count about 0.2 s
    # and still not fit. The chains serve either way, with the same samples.
    state = game_position(State, Config(num_players=5), 1001, 134)
    (small, _, first, _), (share, fitted, before, counted) = _tries(state, monkeypatch)[-2:]
    assert small == he.MULTI_JOINT_SHARE and first is None
    assert share == he.RARE_JOINT_SHARE and not fitted
    assert 0.0 < before < hc.HOPELESS and counted == 0
    samples = _samples(state)
    monkeypatch.setattr(hc, "HOPELESS", 0.0)  # as before session 26
    *_, (share, fitted, before, counted) = _tries(state, monkeypatch)
    assert share == he.RARE_JOINT_SHARE and not fitted and counted > 1000
    assert _samples(state) == samples


def test_a_try_that_got_further_is_still_made_and_fits(monkeypatch):
    # The same game two decisions later: the try at twice the limits gets 8.8e-4 of the way
    # (the least of the 49 larger tries that fitted along 16 seeded five-player games).
    state = game_position(State, Config(num_players=5), 1001, 136)
    he._BUILT.clear()
    model = he.ExactModel(state.log, state.current_player, state.num_players)
    assert model.build() and model.joint is not None


@pytest.mark.parametrize("decisions", [134, 136])
def test_progress_grows_as_a_programme_goes_on_with_more_of_its_limits(monkeypatch, decisions):
    # Each build goes on from the states the one before counted, so it gets at least as far.
    monkeypatch.setattr(hc, "HOPELESS", 0.0)
    state = game_position(State, Config(num_players=5), 1001, decisions)
    he._BUILT.clear()
    model = he.ExactModel(state.log, state.current_player, state.num_players)
    model._boxes()
    joint = hc.Programme(model.box_size, model.box_pile, model.box_label, model.iv_req, model.avail)
    seen = [0.0]
    for share in (0.5, 1, 2, 4, 8, 16, 32):
        if joint.build(int(hc.MAX_STATES * share), int(hc.MAX_OPTIONS * share)):
            fitted = True
            break
        assert seen[-1] <= joint.progress < 1.0
        seen.append(joint.progress)
    else:
        fitted = False
    assert seen[-1] > 100 * seen[2] > 0.0  # (0.5 and 1 times the limits: 0 and 1e-5 at 134)
    assert fitted == (decisions == 136)  # 134: still about 1 % of the way at the end
