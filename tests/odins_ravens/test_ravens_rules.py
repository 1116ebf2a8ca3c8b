"""Scenario tests for the Odin's Ravens plays (rules doc ``docs/rules/odins_ravens.md``).

Every worked example of the rules spec §12 is its own test (``test_example_NN_*``), built from a
hand-set position (``State.from_position``); then one test per play type and payment rule.
Paths are written as letter strings, card 0 first (F, M, P, S, W); seat 0 moves unless stated.
"""

from __future__ import annotations

import pytest
from cardzoo.envs.core import IllegalMoveError
from cardzoo.envs.odins_ravens import (
    MOVE_INDEX,
    Config,
    Discard,
    EndTurn,
    Fly,
    Joker,
    MagicWay,
    Odin,
    Stash,
    StoneEntry,
    Target,
    deal_track,
)
from cardzoo.envs.odins_ravens.data import LAND_LETTERS
from cardzoo.envs.odins_ravens.game import EXTEND, GAME_OVER, PLAY
from ravens_helpers import ok, position, snapshot, types

F, M, P, S, W = range(5)


# ---------------------------------------------------------------------------------------------
# §12 worked examples


def test_example_01_fly_onto_the_first_card():
    s = position("MFPSWFPSW", hands=[["M"], []])
    s.apply(Fly(0))
    assert s.pos == [0, -1]


def test_example_02_a_group_is_flown_across_at_once():
    s = position("FPSMMWFPS", pos=(2, -1), hands=[["M"], []])
    s.apply(Fly(0))
    assert s.pos[0] == 4  # two spaces, to the last M of the group


def test_example_03_joker_pair():
    s = position("FPSMWFPSW", pos=(2, -1), hands=[["F", "F"], []])
    assert not ok(s, Fly(0)), "a single F cannot pay for an M space"
    s.apply(Joker(F, 0))
    assert s.pos[0] == 3
    s = position("FPSMMWFPS", pos=(2, -1), hands=[["F", "F"], []])
    s.apply(Joker(F, 0))
    assert s.pos[0] == 4  # a joker flies across the whole group too


def test_example_04_magic_way_matches_its_symbols():
    # Magic Way card 0 shows Odin + Mountain.
    s = position("FPSMWFPSW", hands=[["M", "F", "O1", "O3"], []], magic_way=0)
    assert ok(s, MagicWay(M)) and ok(s, MagicWay(5)) and ok(s, MagicWay(7))
    assert not ok(s, MagicWay(F))
    s.apply(MagicWay(7))
    assert s.magic_way_rows[0] == [7] and s.pos == [-1, -1]  # no move, no Odin action


@pytest.mark.parametrize(
    "hand, aux, move",
    [
        (["M", "M"], [], StoneEntry((), 0)),
        (["M", "F", "F"], [], StoneEntry((F,), 0)),
        (["F", "F"], ["W", "W"], StoneEntry((F, W), 2)),
    ],
    ids=["2M", "1M+2F", "2F+2W"],
)
def test_example_05_stone_entry_payments(hand, aux, move):
    s = position("FPSMMWFPS", pos=(2, -1), stone=(3, 0), hands=[hand, []], aux=[aux, []])
    assert ok(s, move)
    s.apply(move)
    assert (s.stone_card, s.pos[0]) == (-1, 4)  # stone off the board, end of the group
    assert sum(s.hands[0]) == 0 and s.aux[0] == []


def test_example_05_one_payment_does_not_enter_the_stone():
    s = position("FPSMMWFPS", pos=(2, -1), stone=(3, 0), hands=[["M", "F", "F"], []])
    assert not ok(s, Fly(0)) and not ok(s, Joker(F, 0))
    # four cards never come from the hand alone (3 per turn): 2F+2W needs the aux deck
    s = position("FPSMMWFPS", pos=(2, -1), stone=(3, 0), hands=[["F", "F", "W", "W"], []])
    assert not any(ok(s, StoneEntry((F, W), a)) for a in (1, 2, 3))
    assert StoneEntry((F, W), 0) not in MOVE_INDEX


def test_example_06_stone_inside_a_group():
    s = position("FPSMMMWFP", pos=(2, -1), stone=(4, 0), hands=[["M", "M", "M"], []])
    s.apply(Fly(0))
    assert s.pos[0] == 3  # stops before the stone
    assert not ok(s, Fly(0))
    s.apply(StoneEntry((), 0))
    assert (s.stone_card, s.pos[0]) == (-1, 5)  # then through the rest of the group


def test_example_07_o1_moves_exactly_one_space():
    s = position("FPSMMWFPS", pos=(2, -1), hands=[["O1"], []])
    s.apply(Odin(0, 1, 0))
    assert s.pos[0] == 3  # not 4: no group movement
    s = position("FPSMMWFPS", pos=(2, -1), stone=(3, 0), hands=[["O1"], []])
    assert not ok(s, Odin(0, 1, 0)), "O1-B may not enter the stone's space"
    s = position("FPSMMWFPS", pos=(2, -1), hands=[["O1"], []])
    assert not ok(s, Odin(0, 0, 0)), "O1-A from the start is illegal"
    s = position("FPSMMWFPS", pos=(2, 0), hands=[["O1"], []])
    s.apply(Odin(0, 0, 0))
    assert s.pos[1] == -1  # from card 0 back to the start


def test_example_08_race_points_are_the_lead():
    track = "FPSMWFPSWFMM"  # L = 12, card 10 and 11 are M
    s = position(track, pos=(9, 7), hands=[["M"], []])
    s.apply(Fly(0))  # onto 10 and across the group to 11, the last card
    assert s.last_race == (0, 11 - 7, -1) and s.totals == [4, 0]
    # removing the empty last card first: L = 11, reaching card 10 scores 10 - 7
    s = position(track, pos=(9, 7), hands=[["O3", "M"], []])
    s.apply(Odin(2, 1, 0))
    s.apply(Target(11))
    assert s.track_length == 11 and s.race == 1
    s.apply(Fly(0))
    assert s.last_race == (0, 10 - 7, -1) and s.totals == [3, 0]


def test_example_09_finish_by_shortening_the_path():
    s = position("FPSMWFPSWFMP", pos=(10, 7), hands=[["O3", "M"], []])
    s.apply(Odin(2, 1, 0))
    s.apply(Target(11))
    assert s.totals == [3, 0] and s.last_race == (0, 3, -1)
    assert s.race == 2 and s.turn == 1  # ended at once: a new race, seat 1 (fewer points) starts
    assert s.current_player == 1 and s.pos == [-1, -1]


@pytest.mark.parametrize("active", [0, 1])
def test_example_10_both_ravens_on_the_last_card(active):
    s = position(
        "FPSMWFPSWFMP",
        pos=(10, 10),
        hands=[["O3"], ["O3"]],
        magic_way_rows=[["M", "M"], ["M"]],
        current_player=active,
    )
    s.apply(Odin(2, 1, 0))
    s.apply(Target(11))
    # 0 race points, the active player wins the race, and the Magic Way is still scored
    assert s.last_race == (active, 0, 0)
    assert s.totals == [3, 0]
    assert s.current_player == 1  # seat 1 has fewer points


def test_example_10_the_active_player_wins_the_tie_on_the_last_card():
    s = position("FPSMWFPSWFMP", pos=(10, 10), hands=[[], ["O3"]], current_player=1)
    s.apply(Odin(2, 1, 0))
    s.apply(Target(11))
    assert s.last_race == (1, 0, -1) and s.totals == [0, 0]
    assert s.current_player == 1, "equal totals: the race winner starts the next race"


def test_example_11_magic_way_scoring():
    track = dict(p0="FPSMWFPSWF", p1="WFMPSWFPSM", pos=(7, 8), hands=[[], ["M"]], current_player=1)
    s = position(**track, magic_way_rows=[["M", "M", "O1"], ["M", "O2"]])
    s.apply(Fly(0))  # seat 1 reaches card 9, the last: 9 - 7 = 2 points
    assert s.last_race == (1, 2, 0) and s.totals == [3, 2]  # both score in one race
    s = position(**track, magic_way_rows=[["M", "O1"], ["M", "O2"]])
    s.apply(Fly(0))
    assert s.last_race == (1, 2, -1) and s.totals == [0, 2]  # 2 vs 2: nobody gets the 3


def _code(a: int, b: int) -> int:
    return a * 5 + b


def test_example_12_setup_placement():
    # deck top = last element; every card arrives as coded (flip returns False)
    deck = [_code(S, P), _code(P, S), _code(F, F), _code(F, M), _code(F, W)]
    p0, p1, known = deal_track(deck, 3, lambda: False)
    assert (p0[0], p1[0]) == (F, W)
    assert (p0[1], p1[1]) == (M, F)  # (F, M) clashes on P0, rotated it fits
    assert (p0[2], p1[2]) == (P, S)  # the double (F, F) clashes on P1 both ways: skipped
    assert deck == [_code(F, F), _code(S, P)] and known == 1  # under the deck, seen


def test_example_13_the_race_ends_at_once():
    s = position(
        "FPSMWFPSM",
        pos=(7, 2),
        hands=[["M", "F", "F", "O1"], []],
        totals=(10, 0),
    )
    deck = len(s.land_deck)
    s.apply(Fly(0))  # onto card 8 = L-1 with the first play: 8 - 2 = 6 points, game over
    assert s.terminal and s.phase == GAME_OVER and s.totals == [16, 0]
    assert s.legal_move_ids() == []  # no more plays, no extension
    assert sum(s.hands[0]) == 3 and len(s.land_deck) == deck  # no refill, no land card drawn


def test_example_14_removal_shifts_indices():
    s = position("FPSMWFPSW", pos=(4, 2), stone=(6, 1), hands=[["O3"], []])
    s.apply(Odin(2, 1, 0))
    assert not s.is_legal(MOVE_INDEX[Target(4)]) and not s.is_legal(MOVE_INDEX[Target(2)])
    s.apply(Target(3))
    assert s.track_length == 8 and s.pos == [3, 2] and (s.stone_card, s.stone_path) == (5, 1)
    assert s.paths[0] == types("FPSWFPSW")


def test_example_15_fewer_points_start_the_next_race():
    # seat 0 at 7 wins by 8 - 6 = 2 points
    s = position("FPSMWFPSM", pos=(7, 6), hands=[["M"], []], totals=(3, 7))
    s.apply(Fly(0))
    assert s.totals == [5, 7] and s.race == 2 and s.current_player == 0 and s.race_first == 0
    s = position("FPSMWFPSM", pos=(7, 6), hands=[["M"], []], totals=(5, 4), current_player=0)
    s.apply(Fly(0))
    assert s.totals == [7, 4] and s.current_player == 1  # seat 1 has fewer points
    s = position("FPSMWFPSM", pos=(7, 6), hands=[["M"], []], totals=(4, 6))
    s.apply(Fly(0))
    assert s.totals == [6, 6] and s.current_player == 0  # equal: the race winner starts


def test_example_15_game_end_and_its_tie_rule():
    # 13 vs 12: seat 0 wins the race by 4, seat 1 gets the Magic Way's 3
    s = position(
        "FPSMWFPSM", pos=(7, 4), hands=[["M"], []], totals=(9, 9), magic_way_rows=[[], ["M"]]
    )
    s.apply(Fly(0))
    assert s.totals == [13, 12] and s.terminal and s.winners() == (0,)
    # 12 vs 12: seat 1 wins the race (and so the game) by 3, seat 0 gets the Magic Way's 3
    s = position(
        "FPSMWFPSM",
        "WFMPSWFPM",
        pos=(5, 7),
        hands=[[], ["M"]],
        totals=(9, 9),
        magic_way_rows=[["M"], []],
        current_player=1,
    )
    s.apply(Fly(0))
    assert s.totals == [12, 12] and s.terminal and s.winners() == (1,)
    assert s.end_reason == "score_reached" and s.scores() == (12.0, 12.5)


def test_example_16_play_limits():
    s = position(
        "FPSMMWFPS",
        pos=(2, -1),
        stone=(3, 0),
        hands=[["F", "F", "W", "W", "M"], []],
        aux=[["W", "W", "F"], []],
        used=(3, 0),
    )
    # no 4th card from hand: no stash, no hand fly, no hand Magic Way or discard
    assert all(not ok(s, m) for m in (Stash(F), Discard(F), MagicWay(M), Fly(0)))
    assert not ok(s, StoneEntry((F, W), 2)), "2 from hand + 2 from aux needs hand cards"
    s = position(
        "FPSMMWFPS",
        pos=(2, -1),
        stone=(3, 0),
        hands=[["F", "F", "W", "W", "M"], []],
        aux=[["W", "W", "F"], []],
        used=(1, 0),
    )
    assert ok(s, StoneEntry((F, W), 2))  # 2 F from hand + the 2 W on top of the aux deck
    s.apply(StoneEntry((F, W), 2))
    assert s.used_hand == 3 and s.used_aux == 2 and s.pos[0] == 4 and s.aux[0] == [F]


# ---------------------------------------------------------------------------------------------
# Each play type


def test_stash_puts_a_hand_card_on_top_and_it_may_be_played_this_turn():
    s = position("MFPSWFPSW", hands=[["F", "M"], []], aux=[["W"], []])
    s.apply(Stash(M))
    assert s.aux[0] == [W, M] and s.hands[0][M] == 0 and s.used_hand == 1
    assert ok(s, Fly(1))  # the stashed M is the aux top: it may fly this turn (§11 ruling 15)
    s.apply(Fly(1))
    assert s.pos[0] == 0 and s.used_aux == 1 and s.aux[0] == [W]


def test_fly_from_the_aux_top_only():
    s = position("MFPSWFPSW", hands=[[], []], aux=[["F", "M"], []])  # top F, below it M
    assert not ok(s, Fly(1)) and not ok(s, Fly(0))
    s = position("MFPSWFPSW", hands=[[], []], aux=[["M", "F"], []])
    assert ok(s, Fly(1))


@pytest.mark.parametrize(
    "hand, aux, move",
    [
        (["S", "S"], [], Joker(S, 0)),
        (["S"], ["S"], Joker(S, 1)),
        ([], ["S", "S", "F"], Joker(S, 2)),
    ],
    ids=["hand+hand", "hand+aux", "aux+aux"],
)
def test_joker_sources(hand, aux, move):
    s = position("MFPSWFPSW", hands=[hand, []], aux=[aux, []])
    assert [m for m in s.legal_moves() if isinstance(m, Joker)] == [move]
    s.apply(move)
    assert s.pos[0] == 0 and s.discards[0][S] == 2


def test_joker_never_uses_odin_cards_and_mixed_pairs_do_not_pay():
    s = position("MFPSWFPSW", hands=[["O1", "O1", "F", "S"], []])
    assert not any(isinstance(m, Joker) for m in s.legal_moves())


def test_joker_allowed_while_holding_a_match_and_of_the_target_type():
    s = position("MFPSWFPSW", hands=[["M", "M", "F", "F"], []])
    assert ok(s, Fly(0)) and ok(s, Joker(F, 0))
    assert ok(s, Joker(M, 0)), "a joker of the target type itself is legal (pointless)"


def test_joker_requires_no_match_option():
    cfg = Config(joker_requires_no_match=True)
    s = position("MFPSWFPSW", config=cfg, hands=[["M", "F", "F"], []])
    assert ok(s, Fly(0)) and not ok(s, Joker(F, 0))
    s = position("MFPSWFPSW", config=cfg, hands=[["F", "F"], []], aux=[["M"], []])
    assert not ok(s, Joker(F, 0)), "the aux top is a match"
    s = position("MFPSWFPSW", config=cfg, hands=[["F", "F"], []], aux=[["S", "M"], []])
    assert ok(s, Joker(F, 0)), "only the top of the aux deck counts"
    s = position("MFPSWFPSW", config=cfg, hands=[["M", "M"], []])
    assert not ok(s, Joker(M, 0))
    # stone entry: a pair is fine for the second payment once the only M pays the first
    s = position("MFPSWFPSW", config=cfg, stone=(0, 0), hands=[["M", "F", "F"], []])
    assert ok(s, StoneEntry((F,), 0))
    s = position("MFPSWFPSW", config=cfg, stone=(0, 0), hands=[["M", "M", "F", "F"], []])
    assert not ok(s, StoneEntry((F,), 0)) and ok(s, StoneEntry((), 0))
    s = position("MFPSWFPSW", config=cfg, stone=(0, 0), hands=[["F", "F"], []], aux=[["M"], []])
    assert ok(s, StoneEntry((F,), 1)), "the aux top M pays the first payment"


STRICT = Config(joker_requires_no_match=True)


def entries(state) -> set:
    return {m for m in state.legal_moves() if isinstance(m, StoneEntry)}


def test_strict_joker_stone_entry_looks_below_the_aux_cards_it_takes():
    # Issue example: next space W with the stone, hand S S S O3 O4, aux W W W (top first). A W
    # from the aux plus the S pair would leave a W on top, and W W from the aux pays.
    hand = ["S", "S", "S", "O3", "O4"]
    s = position("WFPSWFPSW", config=STRICT, stone=(0, 0), hands=[hand, []], aux=[["W"] * 3, []])
    assert entries(s) == {StoneEntry((), 2)}
    # With a single W in the aux deck the pair is the only way left: legal.
    s = position("WFPSWFPSW", config=STRICT, stone=(0, 0), hands=[hand, []], aux=[["W"], []])
    assert entries(s) == {StoneEntry((S,), 1)}
    # The default reading allows both.
    s = position("WFPSWFPSW", stone=(0, 0), hands=[hand, []], aux=[["W"] * 3, []])
    assert {StoneEntry((), 2), StoneEntry((S,), 1)} <= entries(s)


def test_strict_joker_fly_looks_below_the_aux_cards_it_takes():
    # Next space M; aux S (top) over M: the S pair taking the top S uncovers the M.
    s = position("MFPSWFPSW", config=STRICT, hands=[["S", "S"], []], aux=[["S", "M"], []])
    assert ok(s, Joker(S, 0)), "taking nothing from the aux leaves the S on top"
    assert not ok(s, Joker(S, 1))
    s = position("MFPSWFPSW", config=STRICT, aux=[["S", "S", "M"], []])
    assert not ok(s, Joker(S, 2))
    s = position("MFPSWFPSW", config=STRICT, aux=[["S", "S", "F", "M"], []])
    assert ok(s, Joker(S, 2)), "only the card on top after the play counts"
    s = position("MFPSWFPSW", hands=[["S"], []], aux=[["S", "M"], []])
    assert ok(s, Joker(S, 1)), "the default reading does not look"


def test_strict_joker_not_while_a_match_stays_in_hand():
    s = position("MFPSWFPSW", config=STRICT, stone=(0, 0), hands=[["M", "M", "F", "F"], []])
    assert entries(s) == {StoneEntry((), 0)}, "M + pair of F would keep an M in hand"
    s = position("MFPSWFPSW", config=STRICT, stone=(0, 0), hands=[["M", "F", "F"], []])
    assert entries(s) == {StoneEntry((F,), 0)}
    # A match held counts even when this turn's hand limit keeps it from being played.
    s = position("MFPSWFPSW", config=STRICT, hands=[["M"], []], aux=[["F", "F"], []], used=(3, 0))
    assert not ok(s, Joker(F, 2))
    s = position("MFPSWFPSW", config=STRICT, hands=[["P"], []], aux=[["F", "F"], []], used=(3, 0))
    assert ok(s, Joker(F, 2))


def test_strict_joker_never_a_pair_of_the_target_type():
    s = position("MFPSWFPSW", config=STRICT, hands=[["M", "M"], []], aux=[["M", "M"], []])
    assert not any(isinstance(m, Joker) for m in s.legal_moves())
    assert ok(s, Fly(0)) and ok(s, Fly(1))
    s = position("MFPSWFPSW", config=STRICT, stone=(0, 0), hands=[["M", "M", "M"], []])
    assert entries(s) == {StoneEntry((), 0)}, "one M + a pair of M is not allowed"
    s = position("MFPSWFPSW", stone=(0, 0), hands=[["M", "M", "M"], []])
    assert entries(s) == {StoneEntry((), 0), StoneEntry((M,), 0)}, "default: legal, pointless"


def test_stone_entry_two_pairs_of_the_same_type():
    s = position("MFPSWFPSW", stone=(0, 0), hands=[["F", "F"], []], aux=[["F", "F"], []])
    assert ok(s, StoneEntry((F, F), 2))
    s.apply(StoneEntry((F, F), 2))
    assert s.pos[0] == 0 and s.stone_card == -1


def test_joker_hand_and_aux_limits():
    s = position("MFPSWFPSW", hands=[["S", "S", "F"], []], aux=[["S", "S"], []], used=(2, 0))
    assert not ok(s, Joker(S, 0)) and ok(s, Joker(S, 1)) and ok(s, Joker(S, 2))
    s = position("MFPSWFPSW", hands=[["S", "S", "F"], []], aux=[["S", "S"], []], used=(0, 2))
    assert ok(s, Joker(S, 0)) and ok(s, Joker(S, 1)) and not ok(s, Joker(S, 2))
    s = position("MFPSWFPSW", hands=[["S", "S", "F"], []], aux=[["S", "S"], []], used=(3, 3))
    assert not any(isinstance(m, Joker) for m in s.legal_moves())


def test_stone_entry_hand_and_aux_limits():
    s = position("MFPSWFPSW", stone=(0, 0), hands=[["M", "F", "F"], []], used=(1, 0))
    assert not ok(s, StoneEntry((F,), 0)), "3 more hand cards after 1 used is 4"
    s = position("MFPSWFPSW", stone=(0, 0), aux=[["M", "M", "F"], []], used=(0, 2))
    assert not ok(s, StoneEntry((), 2)) and not ok(s, StoneEntry((), 1))


def test_stone_on_the_other_path_does_not_block():
    s = position("MFPSWFPSW", stone=(0, 1), hands=[["M"], []])
    s.apply(Fly(0))
    assert s.pos[0] == 0 and s.stone_card == 0


def test_discard_without_effect_counts_as_a_play():
    s = position("MFPSWFPSW", hands=[["O2", "M", "F"], []], aux=[["S"], []])
    s.apply(Discard(6))
    s.apply(Discard(None))
    assert s.discards[0][6] == 1 and s.discards[0][S] == 1 and (s.used_hand, s.used_aux) == (1, 1)
    assert s.pos == [-1, -1] and s.aux[0] == []


def test_magic_way_from_the_aux_top():
    s = position("MFPSWFPSW", aux=[["M", "F"], []], magic_way=0)
    assert ok(s, MagicWay(None))
    s.apply(MagicWay(None))
    assert s.magic_way_rows[0] == [M] and s.used_aux == 1
    assert not ok(s, MagicWay(None)), "F does not match Odin + Mountain"


def test_aux_limit_of_three_cards_per_turn():
    s = position("MFPSWFPSW", aux=[["F", "F", "F", "F"], []])
    for _ in range(3):
        s.apply(Discard(None))
    assert s.used_aux == 3 and not ok(s, Discard(None)) and not ok(s, Fly(1))


def test_illegal_moves_raise_and_change_nothing():
    s = position("MFPSWFPSW", hands=[["F"], []])
    before = snapshot(s)
    for bad in (Fly(0), Joker(F, 0), Stash(M), Target(3), 999, -1, "fly"):
        with pytest.raises(IllegalMoveError):
            s.apply(bad)
        assert snapshot(s) == before


def test_end_turn_offers_the_extension_then_refills():
    s = position("MFPSWFPSW", hands=[["M", "F"], []])
    s.apply(Fly(0))
    s.apply(EndTurn())
    assert s.phase == EXTEND and s.current_player == 0
    s.apply(MOVE_INDEX[EndTurn()] + 1)  # Extend(False)
    assert s.phase == PLAY and s.current_player == 1 and sum(s.hands[0]) == 5 and s.turn == 1


def test_land_letters_are_the_spec_types():
    assert LAND_LETTERS == ("F", "M", "P", "S", "W")
