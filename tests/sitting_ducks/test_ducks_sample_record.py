"""A world sampled by ``determinize`` carries no truth in its record of the game.

The engine keeps a record of every turn (``State._log``) for its samplers: the dealt hands, each
card played and each card drawn. Until this test existed, a sample kept the true record, so the
other seats' dealt cards and draws could be read back from it. Now a sample holds the record as
the observing seat knows it, and only that seat can determinize it again.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State
from cardzoo.envs.sitting_ducks.hidden import UNSEEN_DRAW


def played(seed: int, players: int, moves: int, **options) -> State:
    s = State(Config(num_players=players, **options), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if s.terminal:
            break
        ids = s.legal_move_ids()
        s.apply_id(ids[rng.integers(len(ids))])
    return s


def internals(s: State) -> dict[str, str]:
    """Every attribute of a state, as text (generators by their internal state)."""
    out = {}
    for name in State.__slots__:
        if hasattr(s, name):
            value = getattr(s, name)
            if isinstance(value, np.random.Generator):
                value = value.bit_generator.state
            out[name] = repr(value)
    return out


CASES = [(3, {}), (4, {}), (6, {}), (4, {"mode": "hidden"}), (4, {"mode": "team"})]


@pytest.mark.parametrize(("players", "options"), CASES)
def test_a_sample_records_only_the_observers_own_dealt_cards_and_draws(players, options):
    for seed in range(4):
        s = played(seed, players, 20 + 15 * seed, **options)
        if s.terminal:
            continue
        p = s.current_player
        d = s.determinize(p, np.random.default_rng(seed))
        true_log, log = s._log[: s._log_len], d._log[: d._log_len]
        assert len(log) == len(true_log)
        dealt = log[0][1]
        assert dealt[p] == true_log[0][1][p]
        assert all(dealt[q] == (-1,) * len(true_log[0][1][q]) for q in range(players) if q != p)
        for mine, true in zip(log[1:], true_log[1:]):
            if true[0] == p or true[4] < 0:
                assert mine == true
            else:  # another seat drew: that it drew is public, the card is not
                assert mine == (*true[:4], UNSEEN_DRAW)


@pytest.mark.parametrize(("players", "options"), CASES)
def test_a_samples_whole_state_is_a_function_of_what_the_seat_knows(players, options):
    """Hidden twins (the real state, and a world sampled from it for the same seat) give the
    same sample for the same rng: every attribute, the record included, not only the views."""
    for seed in range(3):
        s = played(seed, players, 25 + 10 * seed, **options)
        if s.terminal:
            continue
        p = s.current_player
        twin = s.determinize(p, np.random.default_rng(100 + seed))
        a = internals(s.determinize(p, np.random.default_rng(7)))
        b = internals(twin.determinize(p, np.random.default_rng(7)))
        assert a == b


def test_a_sample_cannot_be_determinized_for_another_seat():
    s = played(1, 4, 30)
    p = s.current_player
    d = s.determinize(p, np.random.default_rng(0))
    q = (p + 1) % 4
    before = internals(d)
    with pytest.raises(ValueError, match=f"seat {q}'s own dealt cards and draws are not in"):
        d.determinize(q, np.random.default_rng(0))
    assert internals(d) == before
    again = d.determinize(p, np.random.default_rng(1))  # the observer itself still can
    assert again.view(p) == s.view(p)
