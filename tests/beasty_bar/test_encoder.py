"""The Beasty Bar encoder: every named piece equals what ``State.view`` says, seats relative."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.encoders.beasty_bar import BeastyBarEncoder
from cardzoo.envs.beasty_bar import Config, State
from cardzoo.envs.beasty_bar.data import POINTS


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
    relative_scores = tuple(view.scores[(me + i) % n] for i in range(n))
    assert tuple(float(x) for x in e["scores"]) == relative_scores
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
