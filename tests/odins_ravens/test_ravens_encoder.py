"""The Odin's Ravens encoder: every observation piece equals what ``State.view`` says (so it
depends on nothing hidden), seats relative; and the global state shows the hidden cards."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.encoders.odins_ravens import OdinsRavensEncoder
from cardzoo.envs.odins_ravens import Config, State
from cardzoo.envs.odins_ravens.game import CODE_PAIR

K = 9


def bits(value: int) -> np.ndarray:
    return np.array([value >> i & 1 for i in range(16)])


def expected_pieces(v, cfg: Config) -> dict[str, np.ndarray]:
    """The observation rebuilt from the view alone, piece by piece."""
    me, opp = v.player, 1 - v.player
    deck = cfg.deck_size
    e = {}
    e["phase"] = np.zeros(6)
    e["to_act"] = np.zeros(2)
    if not v.terminal:
        e["phase"][v.phase] = 1
        e["to_act"][int(v.current_player != me)] = 1
    e["target_op"] = np.zeros(4)
    if v.target_op >= 0:
        e["target_op"][v.target_op] = 1
    e["race_first"] = np.eye(2)[int(v.race_first != me)]
    L = len(v.paths[0])
    e["track_length"] = np.array([L])
    e["track_present"] = np.array([1] * L + [0] * (40 - L))
    for name, q in (("my_path", me), ("opp_path", opp)):
        a = np.zeros((40, 5))
        a[np.arange(L), list(v.paths[q])] = 1
        e[name] = a
    e["ravens"] = np.zeros((2, 41))
    e["ravens"][0, v.pos[me] + 1] = 1
    e["ravens"][1, v.pos[opp] + 1] = 1
    e["stone"] = np.zeros((40, 2))
    if v.stone[0] >= 0:
        e["stone"][v.stone[0], int(v.stone[1] != me)] = 1
    e["pending_land"] = np.zeros(15)
    if v.pending_land >= 0:
        e["pending_land"][CODE_PAIR[v.pending_land]] = 1
    e["swap_first"] = np.zeros(40)
    if v.swap_first >= 0:
        e["swap_first"][v.swap_first] = 1
    e["my_hand"] = np.array(v.hand)
    e["my_aux"] = np.zeros((deck, K))
    for i, k in enumerate(v.aux):
        e["my_aux"][i, k] = 1
    e["rearranged"] = np.array([v.rearranged])
    e["my_draw"] = np.array(v.draw_counts)
    unseen = np.array(cfg.deck) - np.array(v.discards[opp])
    for k in v.magic_way_rows[opp]:
        unseen[k] -= 1
    e["opp_unseen"] = unseen
    e["hand_sizes"] = np.array([v.hand_sizes[me], v.hand_sizes[opp]])
    e["aux_sizes"] = np.array([v.aux_sizes[me], v.aux_sizes[opp]])
    e["draw_sizes"] = np.array([v.draw_sizes[me], v.draw_sizes[opp]])
    e["discards"] = np.array([v.discards[me], v.discards[opp]])
    e["magic_way"] = np.zeros(6)
    e["magic_way"][list(v.magic_way)] = 1
    rows = np.zeros((2, K))
    for r, q in ((0, me), (1, opp)):
        for k in v.magic_way_rows[q]:
            rows[r, k] += 1
    e["magic_way_rows"] = rows
    e["magic_way_counts"] = rows.sum(axis=1)
    e["used_this_turn"] = np.array([v.used_hand, v.used_aux])
    e["o2b_used"] = np.array([v.o2b_used])
    e["land_deck_size"] = np.array([v.land_deck_size])
    e["land_deck_counts"] = np.array(v.land_deck_counts)
    e["land_known"] = np.zeros(40)
    for i, c in enumerate(v.land_known):
        e["land_known"][i] = CODE_PAIR[c] + 1
    e["race"] = np.array([v.race])
    e["totals"] = np.array([v.totals[me], v.totals[opp]])
    winner, points, bonus = v.last_race
    last = np.zeros(5)
    if winner >= 0:
        last[int(winner != me)] = 1
        last[2] = points
    if bonus >= 0:
        last[3 + int(bonus != me)] = 1
    e["last_race"] = last
    e["reshuffled"] = np.array([v.reshuffled[me], v.reshuffled[opp]])
    e["drawn_since"] = np.array([v.drawn_since[me], v.drawn_since[opp]])
    e["race_turn"] = bits(v.race_turn)
    e["turn"] = bits(v.turn)
    return e


def random_states(cfg: Config, games: int):
    for seed in range(games):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        while not s.terminal and not s.truncated:
            yield s
            s.apply(rng.choice(s.legal_move_ids()))
        yield s


@pytest.mark.parametrize("cfg", [Config(), Config(flight_cards_per_type=3, odin_copies_per_type=1)])
def test_every_piece_equals_the_view(cfg):
    enc = OdinsRavensEncoder(cfg)
    assert enc.size == 869 + 9 * cfg.deck_size and enc.state_size == 770 + 18 * cfg.deck_size
    n = 0
    for i, s in enumerate(random_states(cfg, 4)):
        if i % 7:
            continue
        for p in (0, 1):
            got = enc.split(enc.encode(s, p))
            want = expected_pieces(s.view(p), cfg)
            assert set(got) == set(want)
            for name, value in want.items():
                assert np.array_equal(got[name], value.reshape(got[name].shape)), name
            n += 1
    assert n > 100


def test_observations_stay_in_their_bounds_and_differ_by_seat():
    enc = OdinsRavensEncoder(Config())
    for i, s in enumerate(random_states(Config(), 3)):
        if i % 11:
            continue
        a, b = enc.encode(s, 0), enc.encode(s, 1)
        assert (a >= 0).all() and (a <= enc.high).all() and (b <= enc.high).all()
        assert not np.array_equal(a, b)
        g = enc.encode_state(s)
        assert (g >= 0).all() and (g <= enc.state_high).all()


def test_global_state_shows_both_hands_and_aux_decks():
    enc = OdinsRavensEncoder(Config())
    for i, s in enumerate(random_states(Config(), 2)):
        if i % 13:
            continue
        g = enc.split_state(enc.encode_state(s))
        assert np.array_equal(g["hands"], np.array(s.hands))
        for p in (0, 1):
            aux = g["aux"][p]
            assert aux.sum() == len(s.aux[p])
            assert [int(np.argmax(r)) for r in aux[: len(s.aux[p])]] == s.aux[p][::-1]
            assert g["draws"][p].sum() == len(s.draws[p])
        assert g["land_deck_counts"].sum() == len(s.land_deck)
        assert g["magic_way_face_down"].sum() == 5 and g["magic_way"][s.magic_way] == 1
