"""The seats' walks kept per record (``walks.py``) give what a walk from the start gives.

``determinize`` at every decision extends each seat's walk (its weights over the hands it may
hold) by the record's new steps only. Along seeded games (2 to 4 players, hidden mode too,
determinized for the seat to play at every decision, as an agent does) every posterior built
with the kept walks must equal one built with nothing kept, in its weights and its samples;
and so must the same positions visited again backwards, when the kept walks belong to longer
records (a clone's record forks: its walks must start afresh).
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, crowded, exact, reshuffled, walks
from cardzoo.envs.sitting_ducks.exact import draw_step, play_step


def _posterior(state: State, player: int):
    try:
        return exact._posterior(state, player)
    except reshuffled.NotCovered:
        return None


def _fingerprint(post) -> tuple:
    """The posterior's assignment weights, its chains' weights, and three samples."""
    if post is None:
        return (None,)
    parts = [np.asarray(post.choice_cum).tolist()]
    for chain in getattr(post, "chains", []):
        parts.append((np.asarray(chain.cum).tolist(), chain.log_weight))
    for seat_list in getattr(post, "proposals", []):
        parts.append([(q, seat.log_weight, list(seat.cum)) for q, seat in seat_list])
    parts.append([post.draw(np.random.default_rng(seed)) for seed in range(3)])
    return tuple(parts)


def _fresh(monkeypatch, state: State, player: int) -> tuple:
    monkeypatch.setattr(walks, "_RECORDS", {})
    monkeypatch.setattr(reshuffled, "_PREFIXES", {})
    return _fingerprint(_posterior(state, player))


def _same(a: tuple, b: tuple) -> None:
    assert len(a) == len(b)
    assert np.allclose(_flat(a[:-1]), _flat(b[:-1]), rtol=1e-9, atol=0.0)
    assert a[-1] == b[-1]


def _flat(x) -> list[float]:
    out: list[float] = []
    for item in x if isinstance(x, (list, tuple)) else [x]:
        if isinstance(item, (list, tuple)):
            out.extend(_flat(item))
        else:
            out.append(float(item))
    return out


@pytest.mark.parametrize("n,mode,seed", [(2, "team", 5), (3, "standard", 1), (4, "hidden", 2)])
def test_kept_walks_along_a_game_equal_walks_from_the_start(monkeypatch, n, mode, seed):
    state = State(Config(num_players=n, mode=mode), seed=seed)
    pick = np.random.default_rng(seed)
    earlier, checked, reshuffled_seen = [], 0, False
    while not state.terminal and checked < 70:
        player = state.current_player
        carried = _fingerprint(_posterior(state, player))
        kept = dict(walks._RECORDS)
        _same(carried, _fresh(monkeypatch, state, player))
        monkeypatch.setattr(walks, "_RECORDS", kept)  # go on with the walks kept so far
        reshuffled_seen |= any(e[3] is not None for e in state._log[1 : state._log_len])
        if checked % 5 == 0:
            earlier.append(state.clone())
        checked += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert checked == 70 and reshuffled_seen
    fork = np.random.default_rng(seed + 100)
    for clone in reversed(earlier):  # the kept walks are now a longer record's
        for _ in range(4):  # then the clone's record forks from the kept one
            player = clone.current_player
            _same(_fingerprint(_posterior(clone, player)), _fresh(monkeypatch, clone, player))
            if clone.terminal:
                break
            legal = clone.legal_move_ids()
            clone.apply_id(legal[int(fork.integers(len(legal)))])


def test_a_walk_is_extended_only_from_a_prefix_of_its_steps():
    """Extended by new steps, a kept walk equals a walk from the start; steps that do not
    begin with the kept ones (or another origin) start afresh; a walk no hand explains stays
    so."""
    memo: dict = {}
    start = walks.from_deal(3)
    steps = [(0, None), None, (5, None), None, (0, None), None]
    for cut in range(len(steps) + 1):
        got = walks.walk(memo, ("deal", 1, 0), start, steps[:cut], 0)
        want = walks.advance(*start(), steps[:cut], 0)
        assert got[1] == want[1] and got[2] == pytest.approx(want[2])
        assert np.allclose(got[0], want[0])
    other = [(7, None), None, (1, None), None, (2, None), None, (3, None)]  # longer, forked
    got = walks.walk(memo, ("deal", 1, 0), start, other, 0)
    assert np.allclose(got[0], walks.advance(*start(), other, 0)[0])
    # The same steps from another start (another origin): walked from that start.
    two = walks.from_deal(2)
    moved = walks.walk(memo, ("deal", 1, 0), two, [*other, None], 0, origin="two")
    want = walks.advance(*two(), [*other, None], 0)
    assert moved[1] == want[1] and np.allclose(moved[0], want[0])
    # A forced discard with every kind playable (mask 0): no hand explains it.
    none = [(2, None), None, (3, (0,))]
    assert walks.walk(memo, ("x",), start, none, 0)[2] == float("-inf")
    assert walks.walk(memo, ("x",), start, [*none, None], 0)[2] == float("-inf")


def test_the_step_functions_walk_what_the_kept_walk_walks():
    """``walks.advance`` is the product of ``play_step``/``draw_step`` normalised at each step."""
    v, size = walks.from_deal(3)()
    total = 0.0
    for step in [(1, None), None, (4, None)]:
        v, size = draw_step(v, size) if step is None else play_step(v, size, *step, 0)
        total += np.log(v.sum())
        v = v / v.sum()
    got = walks.advance(*walks.from_deal(3)(), [(1, None), None, (4, None)], 0)
    assert got[1] == size and got[2] == pytest.approx(total) and np.allclose(got[0], v)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_draw_over_rows_gives_each_rows_own_draw_to_the_bit(seed):
    """``draw_step`` on rows of weights (taken with the hands as rows since session 43) gives,
    row by row, the very bits of the same step on that row alone, at every hand size."""
    rng = np.random.default_rng(seed)
    for size in range(exact.MAX_HAND):
        hands = len(exact._HANDS[size].hands)
        v = rng.random((13, hands)) * (rng.random((13, hands)) < 0.3)
        got, new_size = draw_step(v, size)
        assert new_size == size + 1 and got.shape == (13, len(exact._HANDS[size + 1].hands))
        for i in range(len(v)):
            assert np.array_equal(got[i], draw_step(v[i], size)[0])


def test_the_trial_made_in_two_parts_decides_as_the_whole_trial(monkeypatch):
    """At five players after a reshuffle a fixed trial decides whether the position is covered;
    it is made in parts (``TRIAL_PARTS``), stopping once enough were accepted. Along a seeded
    game, at thresholds on both sides of each position's acceptance, the answer equals that
    of all ``TRIAL`` proposals at once."""
    state = State(Config(num_players=5), seed=4)
    pick = np.random.default_rng(4)
    checked, outcomes = 0, set()
    while not state.terminal and checked < 30:
        if any(e[3] is not None for e in state._log[1 : state._log_len]):
            monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)
            post = reshuffled.Posterior(state, state.current_player)
            whole = post._proposals(np.random.default_rng(0), reshuffled.TRIAL)[2].mean()
            for least in (1 / 4096, 1 / 1024, 0.01, 0.05, 0.1, 0.2, 0.4, 0.7):
                monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", least)
                assert post._trial_accepts() == (whole >= least)
                outcomes.add(whole >= least)
            checked += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert checked == 30 and outcomes == {True, False}


def test_closed_splits_kept_for_more_hands_alive_weigh_as_a_fresh_sum(monkeypatch):
    """At five players two reshuffles in, the splits before the last reshuffle are kept and,
    as the current pile's record rules hands out, only filtered (``crowded._still_alive``):
    every posterior along a seeded game equals one built with nothing kept, in its weights
    and its samples, at positions where the filter dropped splits too."""
    filtered = []
    still_alive = crowded._still_alive

    def counting(kept, seats, b, was, alive):
        out = still_alive(kept, seats, b, was, alive)
        filtered.append(kept is not None and out is not None and len(out[0]) < len(kept[0]))
        return out

    monkeypatch.setattr(crowded, "_still_alive", counting)
    state = State(Config(num_players=5), seed=3)
    pick = np.random.default_rng(3)
    compared = 0
    while not state.terminal and compared < 20:
        if sum(e[3] is not None for e in state._log[1 : state._log_len]) >= 2:
            player = state.current_player
            filtered.clear()
            carried = _fingerprint(_posterior(state, player))
            if any(filtered):
                kept = dict(crowded._MEMOS)
                monkeypatch.setattr(crowded, "_MEMOS", {})
                _same(carried, _fresh(monkeypatch, state, player))
                monkeypatch.setattr(crowded, "_MEMOS", kept)
                compared += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert compared == 20
