"""Session 8, two to four players: at each new reshuffle the closed piles' matrices
(``reshuffled._prefix``, kept per record) and every reshuffle's listed splits
(``reshuffled._split_lists``, kept by multiset and sizes) are not built again; the posteriors
equal those built with nothing kept, in their weights and their samples."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, crowded, reshuffled, walks
from test_ducks_walks import _fingerprint, _posterior, _same


@pytest.mark.parametrize("n,mode,seed,most", [(3, "standard", 0, 2), (4, "hidden", 5, 4)])
def test_kept_piles_and_splits_along_a_game_equal_a_fresh_build(monkeypatch, n, mode, seed, most):
    """Along a seeded game (the seat to play at every decision) each multiset's splits are
    listed once and each closed pile walked once per seat, viewer and colour key (both
    fail on the old code, which built them again at every reshuffle); every posterior two
    or more reshuffles in equals a fresh build."""
    walked, listed, counting = [], [], [True]
    advance, splits = reshuffled.advance, reshuffled.splits

    def counting_advance(v, size, steps, key):
        walked.extend([1] if counting[0] else [])
        return advance(v, size, steps, key)

    def counting_splits(pool, sizes):
        listed.extend([(tuple(pool), tuple(sizes))] if counting[0] else [])
        return splits(pool, sizes)

    monkeypatch.setattr(reshuffled, "advance", counting_advance)
    monkeypatch.setattr(reshuffled, "splits", counting_splits)
    monkeypatch.setattr(reshuffled, "_LISTS", {})
    state = State(Config(num_players=n, mode=mode), seed=seed)
    pick = np.random.default_rng(seed)
    seen = 0
    while not state.terminal:
        done = sum(e[3] is not None for e in state._log[1 : state._log_len])
        if done >= 1:
            player = state.current_player
            kept = _fingerprint(_posterior(state, player))
            counting[0] = False
            with monkeypatch.context() as m:
                m.setattr(walks, "_RECORDS", {})
                m.setattr(reshuffled, "_PREFIXES", {})
                m.setattr(reshuffled, "_LISTS", {})
                _same(kept, _fingerprint(_posterior(state, player)))
            counting[0] = True
            seen = max(seen, done)
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    piles = [k for k in walks.memo_for(state._log) if k[0] == "pile"]
    assert seen == most and len(piles) >= 2 * n
    assert len(listed) == len(set(listed))
    assert len(walked) == len(piles)


def test_five_players_walk_each_closed_pile_once_and_sample_as_a_fresh_build(monkeypatch):
    """Five players (``crowded.py``), session 29: each viewer's memo is made afresh at every
    reshuffle, and every closed pile's matrix used to be walked again there for every seat; now
    it is kept with the record (``walks.closed_pile``), walked once per seat, colour key and
    rows (the old code walks each again at every later reshuffle, for each viewer; since session
    34 the rows are the same for every viewer, so a pile is walked once for all). Along a
    seeded game, every posterior two or more reshuffles in, with its closed piles taken from
    the record, equals a build with nothing kept, in its weights and its samples."""
    walked = [0]
    advance = walks.advance

    def counting(v, size, steps, key):
        walked[0] += sys._getframe(1).f_code.co_name == "closed_pile"
        return advance(v, size, steps, key)

    monkeypatch.setattr(walks, "advance", counting)
    monkeypatch.setattr(walks, "_RECORDS", {})
    monkeypatch.setattr(crowded, "_MEMOS", {})
    state = State(Config(num_players=5), seed=11)
    pick = np.random.default_rng(11)
    compared, most = 0, 0
    while not state.terminal:
        done = sum(e[3] is not None for e in state._log[1 : state._log_len])
        if done >= 2:
            player = state.current_player
            carried = _fingerprint(_posterior(state, player))
            before, kept = walked[0], (dict(crowded._MEMOS), dict(walks._RECORDS))
            with monkeypatch.context() as m:
                m.setattr(crowded, "_MEMOS", {})
                m.setattr(walks, "_RECORDS", {})
                m.setattr(reshuffled, "_PREFIXES", {})
                _same(carried, _fingerprint(_posterior(state, player)))
            walked[0] = before  # (the fresh build's walks are not the game's)
            crowded._MEMOS.update(kept[0])
            walks._RECORDS.update(kept[1])
            compared += 1
            most = max(most, done)
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    closed = [k for k in walks.memo_for(state._log) if k[0] == "closed"]
    assert compared >= 40 and most >= 3
    # Since session 34 a closed pile is walked over the hands that fit in every seat's hands
    # (``split.held``), the same for every viewer: once per seat and pile in all (before, once
    # per viewer's rows too: at least 4 * most of them here).
    assert walked[0] == len(closed) and 0 < len(closed) <= 5 * (most - 1)


def _closed_bytes() -> int:
    return sum(
        v[0].nbytes
        for _, kept in walks._RECORDS.values()
        for k, v in kept.items()
        if isinstance(k, tuple) and k[:1] == ("closed",)
    )


def test_the_kept_closed_piles_stay_within_their_budget(monkeypatch):
    """The closed piles' matrices kept with the records are dropped together once they pass
    ``walks.CLOSED_BYTES`` (a finished game's are never asked for again); those still needed
    are walked again, and the posteriors equal builds with nothing kept."""
    # (Session 34: the matrices are walked over rows shared by every viewer, larger and fewer;
    # before, seed 11 and 100,000 bytes.)
    monkeypatch.setattr(walks, "CLOSED_BYTES", 130_000)
    monkeypatch.setattr(walks, "_closed_bytes", [0])
    monkeypatch.setattr(walks, "_RECORDS", {})
    monkeypatch.setattr(crowded, "_MEMOS", {})
    state = State(Config(num_players=5), seed=12)
    pick = np.random.default_rng(12)
    dropped = compared = 0
    while not state.terminal:
        if sum(e[3] is not None for e in state._log[1 : state._log_len]) >= 2:
            before = _closed_bytes()
            player = state.current_player
            carried = _fingerprint(_posterior(state, player))
            assert _closed_bytes() <= walks.CLOSED_BYTES
            dropped += _closed_bytes() < before
            if state.move_count % 5 == 0:
                kept = (dict(crowded._MEMOS), dict(walks._RECORDS), list(walks._closed_bytes))
                with monkeypatch.context() as m:
                    m.setattr(crowded, "_MEMOS", {})
                    m.setattr(walks, "_RECORDS", {})
                    m.setattr(reshuffled, "_PREFIXES", {})
                    _same(carried, _fingerprint(_posterior(state, player)))
                crowded._MEMOS.update(kept[0])
                walks._RECORDS.update(kept[1])
                walks._closed_bytes[:] = kept[2]
                compared += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert dropped >= 2 and compared >= 8, (dropped, compared)


def test_viewers_share_each_seats_walk_through_the_last_pile(monkeypatch):
    """Five players, session 34: a seat's walk through the last pile starts from the hands
    that fit in every seat's hands at the last reshuffle (``split.held``, the same for every
    viewer) and is kept with the record, so once two viewers have determinized a position,
    every seat's walk is up to date there and a third viewer walks nothing (before, each
    viewer walked its own rows: the third walked every seat again). Its posterior equals a
    build with nothing kept."""
    walked = []
    step = crowded._walk

    def counting(*args):
        walked.append(1)
        return step(*args)

    monkeypatch.setattr(crowded, "_walk", counting)
    monkeypatch.setattr(walks, "_RECORDS", {})
    monkeypatch.setattr(crowded, "_MEMOS", {})
    state = State(Config(num_players=5), seed=11)
    pick = np.random.default_rng(11)
    checked = 0
    while not state.terminal:
        if sum(e[3] is not None for e in state._log[1 : state._log_len]) >= 1:
            first, second, third = [(state.current_player + k) % 5 for k in range(3)]
            _posterior(state, first)
            _posterior(state, second)
            walked.clear()
            carried = _fingerprint(_posterior(state, third))
            assert not walked
            with monkeypatch.context() as m:
                m.setattr(crowded, "_MEMOS", {})
                m.setattr(walks, "_RECORDS", {})
                m.setattr(reshuffled, "_PREFIXES", {})
                _same(carried, _fingerprint(_posterior(state, third)))
            checked += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert checked >= 20
