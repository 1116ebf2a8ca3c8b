"""The Beasty Bar encoder: every observation piece equals what ``State.view`` says (seats
relative); every global-state piece equals the engine's full state (seats absolute)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.encoders.beasty_bar import BeastyBarEncoder
from cardzoo.envs import beasty_bar_v0
from cardzoo.envs.beasty_bar import Config, State
from cardzoo.envs.beasty_bar.data import (
    CROCODILE,
    HIPPO,
    LION,
    MONKEY,
    PARROT,
    POINTS,
    SEAL,
    SKUNK,
)


def expected_pieces(view, cfg: Config) -> dict[str, np.ndarray]:
    """The observation rebuilt from the view alone, piece by piece."""
    n = view.num_players
    me = view.player

    def rel(q: int) -> int:
        return (q - me) % n

    e = {
        "phase": np.zeros(2),
        "to_act": np.zeros(n),
        "round_position": np.zeros(n),
        "my_hand": np.zeros(12),
        "queue_species": np.zeros((4, 12)),
        "queue_owner": np.zeros((4, n)),
        "bar": np.zeros((n, 12)),
        "thats_it": np.zeros((n, 12)),
        "unplayed": np.zeros((n, 12)),
        "hand_sizes": np.zeros(n),
        "draw_sizes": np.zeros(n),
        "my_set_aside": np.zeros(12),
        "set_aside_sizes": np.zeros(n),
        "turns_left": np.zeros(1),
        "scores": np.zeros(n),
        "bar_strength_sums": np.zeros(n),
    }
    if not view.terminal:
        e["phase"][view.phase] = 1
        e["to_act"][rel(view.current_player)] = 1
    e["round_position"][(me - view.first_player) % n] = 1
    for s in view.hand:
        e["my_hand"][s - 1] = 1
    for i, (s, owner) in enumerate(view.queue):
        e["queue_species"][i, s - 1] = 1
        e["queue_owner"][i, rel(owner)] = 1
    for q in range(n):
        r = rel(q)
        for s in view.bar[q]:
            e["bar"][r, s - 1] = 1
            e["bar_strength_sums"][r] += s
            e["scores"][r] += POINTS[s] if cfg.scoring == "points" else 1
        for s in view.thats_it[q]:
            e["thats_it"][r, s - 1] = 1
        for s in view.unplayed[q]:
            e["unplayed"][r, s - 1] = 1
        e["hand_sizes"][r] = view.hand_sizes[q]
        e["draw_sizes"][r] = view.draw_sizes[q]
        e["set_aside_sizes"][r] = view.set_aside_sizes[q]
    for s in view.set_aside:
        e["my_set_aside"][s - 1] = 1
    if view.phase == 0:
        e["turns_left"][0] = (12 - cfg.set_aside) * n
    else:
        e["turns_left"][0] = sum(view.hand_sizes) + sum(view.draw_sizes)
    relative = [(me + i) % n for i in range(n)]
    assert tuple(e["scores"]) == tuple(view.bar_scores[q] for q in relative)
    assert tuple(e["bar_strength_sums"]) == tuple(view.bar_sums[q] for q in relative)
    return e


@pytest.mark.parametrize(
    "cfg",
    [
        Config(num_players=2),
        Config(num_players=3, scoring="points"),
        Config(num_players=4),
        Config(num_players=2, scoring="points", set_aside=4),
    ],
)
def test_every_piece_matches_the_view(cfg):
    enc = BeastyBarEncoder(cfg)
    assert enc.size == 75 + 47 * cfg.num_players
    for seed in range(15):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while True:
            for player in range(cfg.num_players):
                obs = enc.encode(s, player)
                assert obs.dtype == np.int8
                got = enc.split(obs)
                want = expected_pieces(s.view(player), cfg)
                assert got.keys() == want.keys()
                for name in want:
                    assert np.array_equal(got[name], want[name]), (name, seed, s.turn)
            if s.terminal:
                break
            s.apply(rng.choice(s.legal_move_ids()))


def test_mask_is_the_legal_moves():
    cfg = Config(num_players=3)
    enc = BeastyBarEncoder(cfg)
    s = State(cfg, seed=3)
    rng = random.Random(0)
    while not s.terminal:
        assert np.flatnonzero(enc.mask(s)).tolist() == s.legal_move_ids()
        s.apply(rng.choice(s.legal_move_ids()))
    assert not enc.mask(s).any()


# ---------------------------------------------------------------------------------------------
# The global state (PettingZoo state()): full information, absolute seats


def expected_state(s: State) -> dict[str, np.ndarray]:
    """The global state rebuilt from the engine: zones from census(), order from the piles."""
    n = s.num_players
    census = {zone: np.array(counts).reshape(n, 12) for zone, counts in s.census().items()}
    e = {
        "phase": np.zeros(2),
        "to_act": np.zeros(n),
        "first_player": np.zeros(n),
        "hands": np.array([census[f"hand{q}"][q] for q in range(n)]),
        "draw_piles": np.array([census[f"draw{q}"][q] for q in range(n)]),
        "draw_order": np.zeros((n, 8, 12)),
        "set_aside": np.array([census[f"set_aside{q}"][q] for q in range(n)]),
        "queue_species": np.zeros((4, 12)),
        "queue_owner": np.zeros((4, n)),
        "bar": census["bar"],
        "thats_it": census["thats_it"],
        "turns_left": np.zeros(1),
        "bar_scores": np.array(s.bar_scores()),
        "bar_strength_sums": np.array(s.bar_strength_sums()),
    }
    for q in range(n):  # a seat's own zones hold only its own colour
        for zone in ("hand", "draw", "set_aside"):
            assert census[f"{zone}{q}"].sum() == census[f"{zone}{q}"][q].sum()
        for i, card in enumerate(reversed(s.draws[q])):  # top card first
            e["draw_order"][q, i, card % 12] = 1
    if not s.terminal:
        e["phase"][s.phase] = 1
        e["to_act"][s.current_player] = 1
    e["first_player"][s.first_player] = 1
    for i, (animal, owner) in enumerate(s.animals("queue")):
        e["queue_species"][i, animal - 1] = 1
        e["queue_owner"][i, owner] = 1
    if s.phase == 0:
        e["turns_left"][0] = (12 - s.config.set_aside) * n
    else:
        e["turns_left"][0] = sum(len(h) for h in s.hands) + sum(len(d) for d in s.draws)
    return e


@pytest.mark.parametrize(
    "cfg",
    [
        Config(num_players=2),
        Config(num_players=3, scoring="points"),
        Config(num_players=4),
        Config(num_players=3, scoring="points", set_aside=4),
    ],
)
def test_every_global_state_piece_matches_the_engine(cfg):
    enc = BeastyBarEncoder(cfg)
    n = cfg.num_players
    assert enc.state_size == 51 + 164 * n
    high = enc.state_high
    for seed in range(12):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while True:
            vec = enc.encode_state(s)
            assert vec.dtype == np.int8 and vec.shape == (enc.state_size,)
            assert (vec >= 0).all() and (vec <= high).all()
            got = enc.split_state(vec)
            want = expected_state(s)
            assert got.keys() == want.keys()
            for name in want:
                assert np.array_equal(got[name], want[name]), (name, seed, s.move_count)
            if s.terminal:
                break
            s.apply(rng.choice(s.legal_move_ids()))


def test_global_state_of_a_hand_set_position():
    cfg = Config(num_players=2, first_player=1)
    s = State.from_position(
        cfg,
        queue=[(HIPPO, 1)],
        hands=[[LION, SEAL], [MONKEY]],
        draw_piles=[[SKUNK, PARROT], []],  # top first
        bar=[(CROCODILE, 0)],
        current_player=0,
        first_player=1,
    )
    got = BeastyBarEncoder(cfg).split_state(BeastyBarEncoder(cfg).encode_state(s))
    assert got["phase"].tolist() == [0, 1]
    assert got["to_act"].tolist() == [1, 0] and got["first_player"].tolist() == [0, 1]
    assert np.flatnonzero(got["hands"][0]).tolist() == [SEAL - 1, LION - 1]
    assert np.flatnonzero(got["hands"][1]).tolist() == [MONKEY - 1]
    assert np.flatnonzero(got["draw_piles"][0]).tolist() == [SKUNK - 1, PARROT - 1]
    order = [np.flatnonzero(row).tolist() for row in got["draw_order"][0]]
    assert order == [[SKUNK - 1], [PARROT - 1]] + [[]] * 6
    assert not got["draw_order"][1].any() and not got["set_aside"].any()
    assert np.flatnonzero(got["queue_species"][0]).tolist() == [HIPPO - 1]
    assert got["queue_owner"][0].tolist() == [0, 1] and not got["queue_owner"][1:].any()
    assert got["bar"][0, CROCODILE - 1] == 1 and got["bar"].sum() == 1
    assert got["turns_left"].tolist() == [5]
    assert got["bar_scores"].tolist() == [1, 0]
    assert got["bar_strength_sums"].tolist() == [10, 0]


def test_env_state_is_the_encoders_global_state():
    env = beasty_bar_v0.env(num_players=3, set_aside=4, scoring="points")
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    enc = env.unwrapped.encoder
    for _agent in env.agent_iter():
        vec = env.state()
        assert env.state_space.contains(vec)
        assert np.array_equal(vec, enc.encode_state(env.unwrapped.game_state))
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
