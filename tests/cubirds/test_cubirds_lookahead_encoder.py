"""The opt-in Cubirds ``lookahead`` encoder: the default pieces unchanged, then each legal move's
one-ply value (the heuristic's) and each lay's captures, for the acting seat only, computed from
what that seat may see."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents.base import Seat
from cardzoo.agents.cubirds_heuristic import CubirdsHeuristic
from cardzoo.encoders.cubirds import CubirdsEncoder, CubirdsLookaheadEncoder
from cardzoo.envs.cubirds.game import LAY_PHASE, NUM_LAY_MOVES, Config
from cubirds_worlds import random_states


@pytest.mark.parametrize("n", [2, 4])
def test_default_pieces_are_the_default_encoders_and_extras_only_for_the_acting_seat(n):
    config = Config(num_players=n)
    base, look = CubirdsEncoder(config), CubirdsLookaheadEncoder(config)
    assert look.size == base.size + 75 + NUM_LAY_MOVES
    acting_nonzero = 0
    for seed in range(3):
        for state in random_states(n, seed, every=3):
            for p in range(n):
                parts = look.split(look.encode(state, p))
                assert np.array_equal(look.encode(state, p)[: base.size], base.encode(state, p))
                extra = np.concatenate([parts["move_value"], parts["lay_captures"]])
                if p != state.current_player:
                    assert not extra.any()
                else:
                    legal = np.zeros(75, bool)
                    legal[state.legal_move_ids()] = True
                    # every legal move reads 1..61, every illegal one 0
                    assert (parts["move_value"][legal] >= 1).all()
                    assert not parts["move_value"][~legal].any()
                    assert parts["move_value"].max() == CubirdsLookaheadEncoder.TOP
                    acting_nonzero += 1
    assert acting_nonzero > 100


def test_lay_captures_are_what_the_engine_captures():
    enc = CubirdsLookaheadEncoder(Config(num_players=3))
    checked = 0
    for seed in range(4):
        for state in random_states(3, seed, every=2):
            if state.phase != LAY_PHASE or state.current_player < 0:
                continue
            p = state.current_player
            caps = enc.split(enc.encode(state, p))["lay_captures"]
            for m in state.legal_move_ids():
                after = state.clone()
                hand_before = sum(after.hands[p])
                laid = after.hands[p][m >> 3]
                after.apply(m)
                if laid < hand_before and after.current_player == p:
                    # captured cards join the hand; the laid ones leave it
                    assert sum(after.hands[p]) - hand_before + laid == caps[m], m
                    checked += 1
    assert checked > 200


@pytest.mark.parametrize("n", [2, 3])
def test_the_best_move_value_is_the_heuristics_choice(n):
    """Playing the argmax of ``move_value`` is playing the heuristic (where it has no tie)."""
    enc = CubirdsLookaheadEncoder(Config(num_players=n))
    agent = CubirdsHeuristic(seed=1)
    same = 0
    for seed in range(3):
        for state in random_states(n, seed, every=2):
            p = state.current_player
            if p < 0:
                continue
            values = enc.split(enc.encode(state, p))["move_value"]
            best = np.flatnonzero(values == values.max())
            scored = dict(
                (m, v) for v, m in agent.move_values(state.view(p), state.legal_move_ids())
            )
            top = max(scored.values())
            heuristic_best = sorted(m for m, v in scored.items() if v >= top - 1e-9)
            assert set(heuristic_best) <= set(best.tolist())
            if len(best) == 1:
                assert agent.choose(Seat(state, p), state.legal_move_ids()) == best[0]
                same += 1
    assert same > 100


@pytest.mark.parametrize("n", [2, 4])
def test_lookahead_pieces_depend_only_on_what_the_seat_may_see(n):
    """A resampled world (other hands, draw pile) gives every seat the same vector."""
    enc = CubirdsLookaheadEncoder(Config(num_players=n))
    checked = 0
    for seed in range(3):
        for k, state in enumerate(random_states(n, seed, every=4)):
            if state.current_player < 0:
                continue
            for p in range(n):
                twin = state.determinize(p, np.random.default_rng(k))
                assert np.array_equal(enc.encode(state, p), enc.encode(twin, p))
                checked += 1
    assert checked > 50


def test_env_option_selects_it_and_names_it_in_the_metadata():
    from cardzoo.envs import cubirds_v0

    env = cubirds_v0.env(num_players=2, encoder="lookahead")
    env.reset(seed=0)
    assert env.unwrapped.metadata["encoder"] == "lookahead"
    assert env.unwrapped.metadata["encoder_version"] == "1"
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == (CubirdsLookaheadEncoder(Config(num_players=2)).size,)
