"""Session 8, two to four players: at each new reshuffle the closed piles' matrices
(``reshuffled._prefix``, kept per record) and every reshuffle's listed splits
(``reshuffled._split_lists``, kept by multiset and sizes) are not built again; the posteriors
equal those built with nothing kept, in their weights and their samples."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, reshuffled, walks
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
