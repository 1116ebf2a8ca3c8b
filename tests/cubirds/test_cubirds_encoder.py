"""The Cubirds encoder: every observation piece equals what ``State.view`` says (seats relative),
every global-state piece equals the engine (seats absolute), and the mask is the legal moves."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.encoders.cubirds import CubirdsEncoder
from cardzoo.envs.cubirds.game import Config, State, View, row_blocks
from cubirds_worlds import random_states


def expected_pieces(view: View) -> dict[str, np.ndarray]:
    """The observation rebuilt from the view alone, piece by piece."""
    n, me = view.num_players, view.player

    def rel(q: int) -> int:
        return (q - me) % n

    e = {
        "phase": np.zeros(3),
        "to_act": np.zeros(n),
        "my_hand": np.array(view.hand),
        "hand_sizes": np.zeros(n),
        "known_hands": np.zeros((n, 8)),
        "exact": np.zeros((n, 8)),
        "collections": np.zeros((n, 8)),
        "rows": np.zeros((4, 8, 8)),
        "draw_size": np.array([view.draw_size]),
        "draw_pool": np.array(view.draw_pool),
        "draw_pool_unknown": np.array([view.draw_pool_unknown]),
        "discard_size": np.array([view.discard_size]),
        "discard_seen": np.array(view.discard_known),
    }
    if not view.terminal:
        e["to_act"][rel(view.current_player)] = 1
        if view.phase is not None:  # only the player to act sees the decision pending
            assert view.current_player == me
            e["phase"][view.phase] = 1
        else:
            assert view.current_player != me
    for q in range(n):
        e["hand_sizes"][rel(q)] = view.hand_sizes[q]
        e["known_hands"][rel(q)] = view.known_hands[q]
        e["exact"][rel(q)] = view.exact[q]
        e["collections"][rel(q)] = view.collections[q]
    for r, row in enumerate(view.rows):
        for b, (s, count) in enumerate(row_blocks(row)):
            e["rows"][r, b, s] = count
    return e


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_piece_matches_the_view(n):
    enc = CubirdsEncoder(Config(num_players=n))
    assert enc.size == 286 + 26 * n
    high = enc.high
    steps = 0
    for seed in range(8):
        for state in random_states(n, seed):
            if enc.config != state.config:
                enc = CubirdsEncoder(state.config)
            for player in range(n):
                obs = enc.encode(state, player)
                assert obs.dtype == np.int8 and (obs >= 0).all() and (obs <= high).all()
                got = enc.split(obs)
                want = expected_pieces(state.view(player))
                assert got.keys() == want.keys()
                for name in want:
                    assert np.array_equal(got[name], want[name]), (name, seed, state.move_count)
            steps += 1
    assert steps > 500


def expected_state(s: State) -> dict[str, np.ndarray]:
    """The global state rebuilt from the engine."""
    n = s.num_players
    census = s.census()
    e = {
        "phase": np.zeros(3),
        "to_act": np.zeros(n),
        "hands": np.array([census[f"hand{q}"] for q in range(n)]),
        "known_hands": np.array(s.known),
        "exact": np.array(s.exact),
        "collections": np.array([census[f"collection{q}"] for q in range(n)]),
        "rows": np.zeros((4, 8, 8)),
        "draw_pile": np.array(census["draw"]),
        "discard_pile": np.array(census["discard"]),
    }
    if not s.terminal:
        e["phase"][s.phase] = 1
        e["to_act"][s.current_player] = 1
    for r, row in enumerate(s.rows):
        for b, (species, count) in enumerate(row_blocks(row)):
            e["rows"][r, b, species] = count
    return e


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_global_state_piece_matches_the_engine(n):
    enc = CubirdsEncoder(Config(num_players=n))
    assert enc.state_size == 275 + 33 * n
    high = enc.state_high
    for seed in range(6):
        for state in random_states(n, seed, every=2):
            vec = enc.encode_state(state)
            assert vec.dtype == np.int8 and vec.shape == (enc.state_size,)
            assert (vec >= 0).all() and (vec <= high).all()
            got = enc.split_state(vec)
            want = expected_state(state)
            assert got.keys() == want.keys()
            for name in want:
                assert np.array_equal(got[name], want[name]), (name, seed, state.move_count)


def test_global_state_does_not_depend_on_who_looks_but_shows_every_hand():
    s = State(Config(num_players=3), seed=11)
    enc = CubirdsEncoder(s.config)
    got = enc.split_state(enc.encode_state(s))
    assert got["hands"].tolist() == s.hands
    assert got["hands"].sum() == 24 and got["draw_pile"].sum() == len(s.draw)


def test_mask_is_the_legal_moves():
    for config in (Config(num_players=3), Config(num_players=2, flock_step="always")):
        enc = CubirdsEncoder(config)
        for state in random_states(config.num_players, 3, config=config):
            mask = enc.mask(state)
            assert np.flatnonzero(mask).tolist() == state.legal_move_ids()
        assert state.terminal and not enc.mask(state).any()


def test_one_encoder_serving_many_games_in_turn_encodes_each_as_a_fresh_one(monkeypatch):
    # The batched training env encodes K games with one encoder, so its row caches meet the
    # games in turn; the shared row-piece cache must give each game's own rows (built here from
    # the engine's row_blocks, not from any cache), and stay within its bound.
    import cardzoo.encoders.cubirds as module

    monkeypatch.setattr(module, "_MAX_ROW_PIECES", 16)
    monkeypatch.setattr(module, "_ROW_PIECES", {})
    games = [[s.clone() for s in random_states(3, seed, every=3)] for seed in range(4)]
    shared = CubirdsEncoder(Config(num_players=3))
    compared = 0
    for i in range(max(len(g) for g in games)):
        for g in games:
            if i < len(g):
                state = g[i]
                expected = np.zeros_like(shared.split(shared.encode(state, 0))["rows"])
                for r, row in enumerate(state.rows):
                    for b, (s, count) in enumerate(row_blocks(row)):
                        expected[r, b, s] = count
                for p in range(3):
                    assert np.array_equal(shared.split(shared.encode(state, p))["rows"], expected)
                    compared += 1
                assert len(module._ROW_PIECES) <= 16
    assert compared > 100
