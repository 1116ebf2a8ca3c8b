"""A policy trained on an opt-in encoder (Cubirds ``lookahead``) plays in any env: it encodes its
seat's view with its own encoder (``Seat.observe``), which accepts only the library's encoders."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents import make_agent
from cardzoo.agents.base import Seat
from cardzoo.encoders.base import Encoder
from cardzoo.encoders.cubirds import CubirdsEncoder, CubirdsLookaheadEncoder
from cardzoo.envs import cubirds_v0
from cardzoo.envs.cubirds.game import Config, State
from train_helpers import run_cli


def test_seat_observe_is_the_encoders_vector_and_refuses_foreign_encoders():
    state = State(Config(num_players=3), seed=4)
    encoder = CubirdsLookaheadEncoder(state.config)
    for p in range(3):
        assert np.array_equal(Seat(state, p).observe(encoder), encoder.encode(state, p))

    class Peeking(CubirdsEncoder):  # a subclass outside the library could read hidden cards
        pass

    for bad in (Peeking(state.config), "lookahead", None):
        with pytest.raises(TypeError, match="cardzoo's encoders"):
            Seat(state, 0).observe(bad)
    assert isinstance(encoder, Encoder)


def test_a_lookahead_policy_plays_in_a_default_encoder_env(tmp_path, capsys):
    out = tmp_path / "run"
    code, _, err = run_cli(
        ["train", "cubirds", "encoder=lookahead", "--timesteps", "128", "--envs", "1",
         "--eval-games", "2", "--out", str(out), "--set", "n_steps=128", "--set",
         "batch_size=64"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    agent = make_agent(f"ppo:{out}", "cubirds", seed=0)
    env = cubirds_v0.env(num_players=2)  # the default encoder: another observation size
    env.reset(seed=3)
    state = env.unwrapped.game_state
    own = CubirdsLookaheadEncoder(state.config)
    moves = 0
    for name in env.agent_iter(max_iter=60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        p = env.unwrapped.agents.index(name)
        move = agent.act(obs["observation"], obs["action_mask"], seat=Seat(state, p))
        # the move the network picks from the lookahead vector of this seat
        logits = agent.actor.logits(own.encode(state, p)[None].astype(np.float32))[0]
        logits[obs["action_mask"] == 0] = -np.inf
        assert move == int(np.argmax(logits))
        env.step(move)
        moves += 1
    assert moves > 20
    # without a seat it cannot encode, and the env's vector has the wrong size: a clear error
    with pytest.raises(ValueError, match="observation of shape"):
        agent.act(obs["observation"], obs["action_mask"])
