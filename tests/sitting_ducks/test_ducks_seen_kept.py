"""Session 8: ``hidden.record_as_seen_by`` keeps what each seat knows of a record and reads only
the entries added since: the same record as one read afresh, along games and their forks."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import Config, State, hidden


def _seen_afresh(log: list, length: int, player: int) -> list:
    kept = dict(hidden._SEEN)
    hidden._SEEN.clear()
    try:
        return hidden.record_as_seen_by(log, length, player)
    finally:
        hidden._SEEN.clear()
        hidden._SEEN.update(kept)


class _Counted(list):
    """A record that counts the entries read through slices."""

    read = 0

    def __getitem__(self, i):
        out = super().__getitem__(i)
        if isinstance(i, slice):
            type(self).read += len(out)
        return out


def test_kept_records_as_seen_equal_records_read_afresh():
    """Along seeded games (determinize for the seat to play at every decision, clones forking
    on) the kept record equals one read afresh; a returned record is the caller's own; a
    longer position reads only its new entries (fails on the old path, which read them all)."""
    for n, mode, seed in [(2, "team", 1), (4, "hidden", 2), (3, "standard", 3)]:
        state = State(Config(num_players=n, mode=mode), seed=seed)
        pick = np.random.default_rng(seed)
        clones = []
        while not state.terminal:
            for p in {state.current_player, 0}:
                got = hidden.record_as_seen_by(state._log, state._log_len, p)
                assert got == _seen_afresh(state._log, state._log_len, p)
                got.append(("sample's own",))
                assert hidden.record_as_seen_by(state._log, state._log_len, p)[-1] != got[-1]
                state.determinize(p, pick)
            if len(state._log) % 9 == 0:
                clones.append(state.clone())
            legal = state.legal_move_ids()
            state.apply_id(legal[int(pick.integers(len(legal)))])
        for clone in clones:  # shorter records sharing the list, then forked copies
            p = clone.current_player
            assert hidden.record_as_seen_by(clone._log, clone._log_len, p) == _seen_afresh(
                clone._log, clone._log_len, p
            )
            if not clone.terminal:
                clone.apply_id(clone.legal_move_ids()[0])
                got = hidden.record_as_seen_by(clone._log, clone._log_len, p)
                assert got == _seen_afresh(clone._log, clone._log_len, p)
    log = _Counted(state._log)
    hidden.record_as_seen_by(log, len(log) - 5, 1)
    _Counted.read = 0
    hidden.record_as_seen_by(log, len(log), 1)
    assert _Counted.read <= 5
