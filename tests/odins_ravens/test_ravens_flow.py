"""Setup, turn flow, refill, extension, races, game end, truncation caps and configuration of the
Odin's Ravens engine (rules doc ``docs/rules/odins_ravens.md``)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.envs import odins_ravens_v0
from cardzoo.envs.odins_ravens import (
    MOVE_INDEX,
    Config,
    Discard,
    EndTurn,
    Extend,
    Fly,
    Odin,
    Orient,
    State,
    deal_track,
)
from cardzoo.envs.odins_ravens.data import HAND_SIZE, MAGIC_WAY_CARDS, NUM_KINDS, START_TRACK
from cardzoo.envs.odins_ravens.game import EXTEND, ORIENT, PLAY
from cardzoo.envs.odins_ravens.moves import PAYMENTS
from ravens_helpers import full_land_deck, ok, position

F, M, P, S, W = range(5)


def code(a: int, b: int) -> int:
    return 5 * a + b


# -- setup ------------------------------------------------------------------------------------


def test_setup_deals_a_fresh_race():
    for seed in range(30):
        s = State(Config(), seed=seed)
        p0, p1 = s.paths
        assert len(p0) == START_TRACK and s.pos == [-1, -1] and s.stone_card == -1
        assert len(s.land_deck) == 40 - START_TRACK
        assert all(sum(h) == HAND_SIZE for h in s.hands) and s.aux == [[], []]
        assert all(len(d) == 33 - HAND_SIZE for d in s.draws)
        assert s.magic_way_rows == [[], []] and len(s.magic_way_down) == 5
        assert s.race == 1 and s.totals == [0, 0] and s.current_player == s.first_player
        # no two equal neighbours on either path unless the guard had to accept one
        clashes = sum(p[k] == p[k + 1] for p in (p0, p1) for k in range(START_TRACK - 1))
        assert clashes == 0


def test_setup_guard_accepts_a_card_once_every_card_left_was_rejected():
    # after F/W, W/W and F/F clash whichever way they lie: both go under the deck, then the
    # guard takes the next one (W/W again) as dealt; both ways clash equally, so the dealt
    # orientation is kept
    deck = [code(F, F), code(W, W), code(F, W)]
    p0, p1, known = deal_track(deck, 2, lambda: False)
    assert (p0, p1) == ([F, W], [W, W])
    assert deck == [code(F, F)] and known == 1  # the other rejected card, seen, at the bottom


def test_setup_rotation_avoids_a_clash():
    deck = [code(F, M), code(F, W)]  # F/M after F/W: clash on P0 only; turned: M/F fits
    p0, p1, known = deal_track(deck, 2, lambda: False)
    assert (p0[1], p1[1]) == (M, F) and known == 0


def test_setup_random_orientation_is_used():
    deck = [code(M, P), code(F, W)]
    p0, p1, _ = deal_track(deck[:], 2, lambda: True)
    assert (p0[0], p1[0]) == (W, F) and (p0[1], p1[1]) == (P, M)


def test_first_player_option():
    assert State(Config(first_player=1), seed=0).current_player == 1
    firsts = {State(Config(), seed=s).current_player for s in range(20)}
    assert firsts == {0, 1}


# -- refill and reshuffle ---------------------------------------------------------------------


def test_refill_draws_to_five_after_the_turn():
    s = position("MFPSWFPSW", hands=[["M", "F", "F"], []], draw_piles=[["S", "W", "P"], []])
    s.apply(Fly(0))
    s.apply(EndTurn())
    s.apply(Extend(False))
    assert s.hands[0][F] == 2 and s.hands[0][S] == 1 and s.hands[0][W] == 1
    assert s.hands[0][P] == 1 and s.draws[0] == []


def test_refill_reshuffles_the_discard_pile_when_the_draw_pile_runs_out():
    s = position("MFPSWFPSW", hands=[["M", "F"], []], draw_piles=[["S"], []])
    discard = s.discards[0][:]
    s.apply(Fly(0))  # M onto the discard pile too
    s.apply(EndTurn())
    s.apply(Extend(False))
    assert sum(s.hands[0]) == 5
    assert sum(s.discards[0]) == 0
    assert len(s.draws[0]) == sum(discard) + 1 - 3  # the old discards + M, minus 3 drawn
    assert s.reshuffled[0][M] == discard[M] + 1


def test_refill_stops_when_draw_and_discard_piles_are_empty():
    # every card of seat 0 is in hand, aux or the Magic Way row: nothing to draw
    hand = ["M", "F", "F"]
    aux = ["F", "F", "F", "M", "M", "M", "M", "P", "P", "P", "P", "P", "S", "S", "S", "S"]
    aux += ["S", "W", "W", "W", "W", "W", "O1", "O1", "O2", "O2", "O3", "O3", "O4", "O4"]
    s = position("MFPSWFPSW", hands=[hand, []], aux=[aux, []], draw_piles=[[], []])
    assert sum(s.discards[0]) == 0
    s.apply(Discard(F))
    s.apply(EndTurn())
    s.apply(Extend(False))
    assert sum(s.hands[0]) == 2 + 1  # the discarded F came back through a reshuffle
    s2 = position("MFPSWFPSW", hands=[hand, []], aux=[aux, []], draw_piles=[[], []])
    s2.apply(Fly(0))
    s2.apply(EndTurn())
    s2.apply(Extend(False))
    assert sum(s2.hands[0]) == 3 and s2.draws[0] == []  # only the M was there to draw


# -- extension --------------------------------------------------------------------------------


def test_extension_is_decided_before_seeing_the_card_and_oriented_after():
    deck = full_land_deck([("F", "S")], "MFPSWFPSW")
    s = position("MFPSWFPSW", hands=[["M"], []], land_deck=deck)
    s.apply(EndTurn())
    assert s.phase == EXTEND and s.pending_land == -1
    assert s.legal_moves() == [Extend(False), Extend(True)]
    s.apply(Extend(True))
    assert s.phase == ORIENT and s.pending_land == code(F, S)
    s.apply(Orient(True))  # S on my path
    assert (s.paths[0][-1], s.paths[1][-1]) == (S, F) and s.track_length == 10
    assert s.current_player == 1 and s.phase == PLAY and s.turn == 1


def test_extension_for_seat_one_orients_relative_to_the_mover():
    deck = full_land_deck([("F", "S")], "MFPSWFPSW")
    s = position("MFPSWFPSW", hands=[[], ["M"]], land_deck=deck, current_player=1)
    s.apply(EndTurn())
    s.apply(Extend(True))
    s.apply(Orient(True))
    assert (s.paths[0][-1], s.paths[1][-1]) == (F, S)  # S on seat 1's path


def test_extension_is_not_offered_with_an_empty_land_deck():
    s = position("MFPSWFPSW", hands=[["M"], []])
    s.land_deck = []
    s.apply(EndTurn())
    assert s.current_player == 1 and s.phase == PLAY and s.turn == 1


def test_at_most_three_land_cards_per_turn():
    s = position("MFPSWFPSW", hands=[["O2", "O2"], []])
    s.apply(Odin(1, 1, 0))
    while s.phase == ORIENT:
        s.apply(Orient(False))
    s.apply(EndTurn())
    s.apply(Extend(True))
    s.apply(Orient(False))
    assert s.track_length == 9 + 3 and s.current_player == 1


# -- races and the game -----------------------------------------------------------------------


def test_next_race_resets_everything_but_the_totals():
    s = position(
        "FPSMWFPSM",
        pos=(7, 2),
        stone=(4, 1),
        hands=[["M", "F"], ["O1"]],
        aux=[["S"], ["W", "W"]],
        magic_way_rows=[["M"], []],
    )
    s.apply(Fly(0))
    assert s.totals == [6 + 3, 0] and s.race == 2
    assert s.track_length == START_TRACK and s.pos == [-1, -1] and s.stone_card == -1
    assert s.aux == [[], []] and s.magic_way_rows == [[], []]
    assert all(sum(h) == HAND_SIZE for h in s.hands)
    assert all(sum(d) == 0 for d in s.discards) and all(len(d) == 28 for d in s.draws)
    assert len(s.land_deck) == 31 and s.turn == 1 and s.race_turn == 0
    assert s.current_player == 1 and s.race_first == 1 and s.phase == PLAY


def test_scores_and_winners_before_the_end():
    s = State(Config(), seed=3)
    assert s.winners() == () and s.scores() == (0.0, 0.0) and s.end_reason is None


def test_game_to_twelve_in_random_play_has_one_winner_with_the_higher_total():
    for seed in range(40):
        s = State(Config(max_turns_per_race=10_000, max_turns=100_000), seed=seed)
        rng = random.Random(seed)
        while not s.terminal:
            ids = s.legal_move_ids()
            s.apply(ids[rng.randrange(len(ids))])
        t0, t1 = s.totals
        assert max(t0, t1) >= 12 and len(s.winners()) == 1
        w = s.winners()[0]
        assert s.totals[w] >= s.totals[1 - w] and s.scores()[w] > s.scores()[1 - w]
        if t0 == t1:
            assert s.last_race[0] == w


# -- truncation caps --------------------------------------------------------------------------


def test_race_cap_truncates_without_a_result():
    s = State(Config(max_turns_per_race=3), seed=0)
    while not s.truncated:
        s.apply(MOVE_INDEX[EndTurn()])
        if s.phase == EXTEND:
            s.apply(Extend(False))
    assert s.race_turn == 3 and s.turn == 3 and not s.terminal and s.winners() == ()


def test_game_cap_counts_turns_over_races():
    s = position("FPSMWFPSM", pos=(7, 2), hands=[["M"], []], config=Config(max_turns=2))
    s.apply(Fly(0))  # the race-ending turn counts
    assert s.turn == 1 and s.race_turn == 0 and not s.truncated
    s.apply(MOVE_INDEX[EndTurn()])
    s.apply(Extend(False))
    assert s.truncated and s.turn == 2


@pytest.mark.parametrize("cap", ["max_turns_per_race", "max_turns"])
def test_env_truncates_at_either_cap(cap):
    env = odins_ravens_v0.env(**{cap: 4})
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    while True:
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            break
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    state = env.unwrapped.game_state
    assert trunc and not term and state.truncated and state.turn == 4
    assert env.unwrapped.end_reasons[info["end_reason"]] == "truncated"


def test_env_max_turns_is_the_game_cap_until_a_race_cap():
    env = odins_ravens_v0.env(max_turns_per_race=50, max_turns=700)
    assert env.unwrapped.max_turns == 700
    env.reset(seed=2)
    assert env.unwrapped.max_turns == 700


# -- configuration ----------------------------------------------------------------------------


def test_default_make_ups():
    cfg = Config()
    assert len(cfg.land_cards) == 40 and cfg.magic_way_cards == MAGIC_WAY_CARDS
    assert cfg.deck == [5] * 5 + [2] * 4 and cfg.deck_size == 33
    assert Config(land_cards=list(cfg.land_cards)) == cfg


@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 3}, "num_players"),
        ({"first_player": 2}, "first_player"),
        ({"land_cards": [(0, 1)] * 39}, "land_cards"),
        ({"land_cards": [(0, 5)] * 40}, "land_cards"),
        ({"land_cards": 7}, "land_cards"),
        ({"magic_way_cards": [(5, 5)] * 6}, "magic_way_cards"),
        ({"magic_way_cards": [(0, 6)] * 6}, "magic_way_cards"),
        ({"flight_cards_per_type": 0}, "flight_cards_per_type"),
        ({"odin_copies_per_type": 7}, "odin_copies_per_type"),
        ({"joker_requires_no_match": 1}, "joker_requires_no_match"),
        ({"max_turns_per_race": 0}, "max_turns_per_race"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_bad_options_are_refused_by_name(options, words):
    with pytest.raises(ValueError, match=words):
        Config(**options)


def test_other_make_ups_play():
    cfg = Config(flight_cards_per_type=3, odin_copies_per_type=0)
    s = State(cfg, seed=0)
    assert s.card_totals[:NUM_KINDS] == [3] * 5 + [0] * 4
    rng = random.Random(0)
    for _ in range(2000):
        if s.terminal:
            break
        s.apply(rng.choice(s.legal_move_ids()))
        assert [sum(c) for c in zip(*s.census().values())] == s.card_totals


# -- invariants over random games -------------------------------------------------------------


@pytest.mark.parametrize("cfg", [Config(), Config(joker_requires_no_match=True)])
def test_random_games_keep_every_card_in_exactly_one_place(cfg):
    steps = 0
    for seed in range(25):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        totals = s.card_totals
        while not s.terminal and not s.truncated:
            ids = s.legal_move_ids()
            assert ids and ids == sorted(ids) and ids == [a for a in range(264) if s.is_legal(a)]
            if s.phase == PLAY:  # the fast joker test agrees with the general payment rule
                p = s.current_player
                t = s.paths[p][s.pos[p] + 1]
                stone = s.stone_card == s.pos[p] + 1 and s.stone_path == p
                payable = [m for m in range(11, 26) if s._payable(p, t, PAYMENTS[m])]
                jokers = [] if stone else payable
                assert [m for m in ids if 11 <= m < 26] == jokers
            s.apply(ids[rng.randrange(len(ids))])
            steps += 1
            assert [sum(c) for c in zip(*s.census().values())] == totals
            assert -1 <= s.pos[0] < s.track_length and -1 <= s.pos[1] < s.track_length
            assert 0 <= s.used_hand <= 3 and 0 <= s.used_aux <= 3
            assert sum(s.hands[0]) <= HAND_SIZE and sum(s.hands[1]) <= HAND_SIZE
            if s.stone_card >= 0:
                assert s.pos[s.stone_path] != s.stone_card
    assert steps > 10_000


def test_play_phase_moves_are_offered_only_in_the_play_phase():
    s = position("MFPSWFPSW", hands=[["M", "O2"], []], aux=[["F", "S", "M"], []])
    s.apply(Odin(1, 0, 0))
    assert s.phase != PLAY and not ok(s, Fly(0)) and not ok(s, EndTurn())
