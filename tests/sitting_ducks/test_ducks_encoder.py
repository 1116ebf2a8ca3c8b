"""The Sitting Ducks encoder: every named piece equals what ``State.view`` says."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.encoders.sitting_ducks import SittingDucksEncoder
from cardzoo.envs.sitting_ducks import Config, State
from cardzoo.envs.sitting_ducks.data import GAP, WATER


def expected_pieces(view, cfg: Config, enc: SittingDucksEncoder) -> dict[str, np.ndarray]:
    """The observation rebuilt from the view alone, piece by piece."""
    n, k = view.num_players, view.num_colours
    me = view.player
    base = view.my_colours[0] if view.mode == "hidden" else me

    def rs(q: int) -> int:
        return (q - me) % n

    def rc(c: int) -> int:
        return (c - base) % k

    e = {name: np.zeros(p.shape) for name, p in enc.pieces.items()}
    if not view.terminal:
        e["phase"][view.phase] = 1
        e["to_act"][rs(view.current_player)] = 1
    for kind in view.hand:
        e["my_hand"][kind] += 1
    for q in range(n):
        e["hand_sizes"][rs(q)] = view.hand_sizes[q]
        e["points"][rs(q)] = min(view.points[q], 127)
    in_row = [0] * k
    for s, (top, under, cover) in enumerate(view.row):
        if top < WATER:
            e["row_top"][s, rc(top)] = 1
            in_row[top] += 1
        else:
            e["row_top"][s, k + (top == GAP)] = 1
        if under >= 0:
            e["row_under"][s, rc(under)] = 1
            in_row[under] += 1
        if cover >= 0:
            e["row_cover"][s, rs(cover)] = 1
        if any(c in view.my_colours for c in (top, under)):
            e["row_mine"][s] = 1
        e["targets"][s] = view.targets[s]
    for i, j in enumerate(view.reorder):
        e["reorder"][i, j] = 1
    for c in range(k):
        e["ducks_in_row"][rc(c)] = in_row[c]
        e["ducks_in_deck"][rc(c)] = view.deck_counts[c]
        e["ducks_shot"][rc(c)] = view.shot[c] - 1
        owner = view.colour_owners[c]
        if owner >= 0:
            e["colour_seat"][rc(c), rs(owner)] = 1
        else:
            for q in range(n):
                if view.colour_evidence[q] >> c & 1:
                    e["colour_seat"][rc(c), rs(q)] = 1
    e["water_in_deck"][0] = view.deck_counts[k]
    e["deck_size"][0] = view.deck_size
    if cfg.observe_duck_deck_bottom:
        for i, card in enumerate(view.deck_bottom):
            e["deck_bottom"][i, k if card == WATER else rc(card)] = 1
    e["discard"][:] = view.discard
    e["draw_size"][0] = view.draw_size
    e["game"][0] = view.game
    return e


CONFIGS = [
    Config(num_players=3),
    Config(num_players=6),
    Config(num_players=4, mode="hidden"),
    Config(num_players=2, mode="team"),
    Config(num_players=4, mode="team"),
    Config(num_players=3, points_games=2, observe_duck_deck_bottom=True),
]


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.mode}")
def test_every_piece_matches_the_view(cfg):
    enc = SittingDucksEncoder(cfg)
    n, k = cfg.num_players, cfg.num_colours
    assert enc.size == 98 + 9 * n + 15 * k + k * n + (
        (5 * k + 5) * (k + 1) if cfg.observe_duck_deck_bottom else 0
    )
    for seed in range(4):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while True:
            for player in range(n):
                obs = enc.encode(s, player)
                assert obs.dtype == np.int8 and (obs <= enc.high).all()
                got = enc.split(obs)
                want = expected_pieces(s.view(player), cfg, enc)
                for name in want:
                    assert np.array_equal(got[name], want[name]), (name, seed, s.turn)
            if s.terminal:
                break
            s.apply(rng.choice(s.legal_move_ids()))


def test_relative_colours_put_mine_first():
    cfg = Config(num_players=4, mode="hidden")
    s = State.from_position(
        cfg, row=["G", "R", "B", "Y", "~", "~"], hands={0: [0]}, colours=[2, 0, 1, 3]
    )
    enc = SittingDucksEncoder(cfg)
    pieces = enc.split(enc.encode(s, 0))
    assert pieces["row_top"][0, 0] == 1  # green is seat 0's colour: relative index 0
    assert pieces["row_mine"].tolist() == [1, 0, 0, 0, 0, 0]
    assert pieces["colour_seat"][0].tolist() == [1, 0, 0, 0]
    assert pieces["colour_seat"][1:].sum() == 9  # the others: any of the three other seats


def test_global_state_shows_everything():
    cfg = Config(num_players=3, mode="hidden")
    s = State(cfg, seed=8)
    enc = SittingDucksEncoder(cfg)
    g = enc.split_state(enc.encode_state(s))
    assert g["hands"].sum() == 9 and g["draw_pile"].sum() == len(s.draw)
    assert g["duck_deck"].sum() == len(s.deck)
    assert [int(np.argmax(row)) for row in g["colour_owner"]] == s.colour_owner
    assert g["to_act"][s.current_player] == 1


def test_mask_is_the_legal_moves():
    cfg = Config(num_players=3)
    enc = SittingDucksEncoder(cfg)
    s = State(cfg, seed=3)
    rng = random.Random(0)
    while not s.terminal:
        assert np.flatnonzero(enc.mask(s)).tolist() == s.legal_move_ids()
        s.apply(rng.choice(s.legal_move_ids()))
    assert not enc.mask(s).any()
