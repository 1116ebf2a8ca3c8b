"""Scenario tests for the four Odin cards, both options each, and their target conditions
(rules doc ``docs/rules/odins_ravens.md``, "Odin cards")."""

from __future__ import annotations

import pytest
from cardzoo.envs.odins_ravens import (
    MOVE_INDEX,
    EndTurn,
    Fly,
    Odin,
    Orient,
    Reorder,
    StoneTarget,
    Target,
)
from cardzoo.envs.odins_ravens.game import ORIENT, PLAY, REARRANGE, TARGET_CARD, TARGET_SPACE
from ravens_helpers import full_land_deck, ok, position, types

F, M, P, S, W = range(5)
O1, O2, O3, O4 = 5, 6, 7, 8


def legal_targets(s) -> list[int]:
    return [m.card for m in s.legal_moves() if isinstance(m, Target)]


# -- O1 ---------------------------------------------------------------------------------------


def test_o1_b_reaching_the_last_card_ends_the_race():
    s = position("FPSMWFPSM", pos=(7, 3), hands=[["O1"], []])
    s.apply(Odin(0, 1, 0))
    assert s.last_race == (0, 8 - 3, -1) and s.race == 2


def test_o1_a_cannot_move_the_opponent_onto_the_stone():
    s = position("FPSMWFPSW", pos=(-1, 3), stone=(2, 1), hands=[["O1"], []])
    assert not ok(s, Odin(0, 0, 0))
    s = position("FPSMWFPSW", pos=(-1, 3), stone=(2, 0), hands=[["O1"], []])
    s.apply(Odin(0, 0, 0))  # a stone on the other path is no obstacle
    assert s.pos[1] == 2


def test_odin_card_from_the_aux_top_and_it_is_discarded():
    s = position("FPSMWFPSW", aux=[["O1", "F"], []])
    assert ok(s, Odin(0, 1, 1)) and not ok(s, Odin(0, 1, 0))
    s.apply(Odin(0, 1, 1))
    assert s.pos[0] == 0 and s.discards[0][O1] == 1 and s.used_aux == 1 and s.aux[0] == [F]


# -- O2 ---------------------------------------------------------------------------------------


def test_o2_a_rearranges_the_aux_deck_in_any_order():
    s = position("FPSMWFPSW", hands=[["O2"], []], aux=[["F", "F", "M", "W"], []])
    s.apply(Odin(1, 0, 0))
    assert s.phase == REARRANGE
    steps = 0
    for kind in (W, F, M):  # the new order, top first: W, F, M, then the last F
        s.apply(Reorder(kind))
        steps += 1
    assert steps == 3 and s.phase == PLAY
    assert s.aux[0][::-1] == [W, F, M, F]


def test_o2_a_takes_len_minus_one_steps_even_when_forced():
    s = position("FPSMWFPSW", hands=[["O2"], []], aux=[["M", "M", "M"], []])
    s.apply(Odin(1, 0, 0))
    for _ in range(2):
        assert s.phase == REARRANGE and s.legal_moves() == [Reorder(M)]
        s.apply(Reorder(M))
    assert s.phase == PLAY and s.aux[0] == [M, M, M]


@pytest.mark.parametrize("aux", [[], ["W"]])
def test_o2_a_with_zero_or_one_aux_card_is_a_legal_no_op(aux):
    s = position("FPSMWFPSW", hands=[["O2"], []], aux=[aux, []])
    assert ok(s, Odin(1, 0, 0))
    s.apply(Odin(1, 0, 0))
    assert s.phase == PLAY and s.aux[0] == types("".join(aux))


def test_o2_a_played_from_the_aux_leaves_the_deck_first():
    s = position("FPSMWFPSW", aux=[["O2", "S", "M"], []])
    s.apply(Odin(1, 0, 1))
    assert s.phase == REARRANGE
    s.apply(Reorder(M))
    assert s.phase == PLAY and s.aux[0][::-1] == [M, S]


def test_o2_b_attaches_two_seen_land_cards_in_chosen_orientations():
    deck = [("M", "W"), ("S", "S")] + [("F", "P")] * 2
    s = position("FPSMWFPSW", hands=[["O2"], []], land_deck=full_land_deck(deck, "FPSMWFPSW"))
    s.apply(Odin(1, 1, 0))
    assert s.phase == ORIENT and s.pending_land == M * 5 + W
    assert s.view(1).pending_land == M * 5 + W  # the card is seen by both players
    assert ok(s, Orient(True)) and ok(s, Orient(False))
    s.apply(Orient(True))  # W (the higher type) on my path
    assert (s.paths[0][9], s.paths[1][9]) == (W, M)
    assert s.phase == ORIENT and s.legal_moves() == [Orient(False)]  # a double: one way
    s.apply(Orient(False))
    assert s.track_length == 11 and s.phase == PLAY and s.o2b_used
    assert s.paths[0][9:] == [W, S], "equal neighbours are allowed when attaching"


def test_o2_b_at_most_once_per_turn():
    s = position("FPSMWFPSW", hands=[["O2", "O2"], []])
    s.apply(Odin(1, 1, 0))
    while s.phase == ORIENT:
        s.apply(s.legal_move_ids()[0])
    assert not ok(s, Odin(1, 1, 0)) and ok(s, Odin(1, 0, 0))


@pytest.mark.parametrize("left, attached", [(0, 0), (1, 1)])
def test_o2_b_with_fewer_than_two_land_cards_attaches_what_exists(left, attached):
    s = position("FPSMWFPSW", hands=[["O2"], []])
    s.land_deck = s.land_deck[:left]
    s.apply(Odin(1, 1, 0))
    while s.phase == ORIENT:
        s.apply(s.legal_move_ids()[0])
    assert s.track_length == 9 + attached and s.phase == PLAY and s.land_deck == []


# -- O3 ---------------------------------------------------------------------------------------


def test_o3_a_rotates_an_empty_card():
    s = position("FPSMWFPSW", "WFMPSWFPS", pos=(1, 2), stone=(4, 0), hands=[["O3"], []])
    s.apply(Odin(2, 0, 0))
    assert s.phase == TARGET_CARD
    assert legal_targets(s) == [0, 3, 5, 6, 7, 8]  # no raven or stone on either half
    s.apply(Target(3))
    assert (s.paths[0][3], s.paths[1][3]) == (P, M)


def test_o3_a_rotating_a_double_changes_nothing():
    s = position("FPSMMFPSW", "WFMMPSWFP", hands=[["O3"], []])
    before = [p[:] for p in s.paths]
    s.apply(Odin(2, 0, 0))
    s.apply(Target(3))  # card 3 is M/M
    assert s.paths == before and s.phase == PLAY and s.discards[0][O3] == 1


def test_o3_b_removes_an_empty_card_under_the_land_deck():
    s = position("FPSMWFPSW", pos=(4, 2), hands=[["O3"], []])
    deck = len(s.land_deck)
    s.apply(Odin(2, 1, 0))
    assert 2 not in legal_targets(s) and 4 not in legal_targets(s)  # cards under a raven
    s.apply(Target(7))
    assert s.track_length == 8 and s.paths[0] == types("FPSMWFPW")
    assert len(s.land_deck) == deck + 1 and s.land_deck[0] // 5 == S  # P0 half of card 7
    assert s.land_known == 1 and s.view(1).land_known == (s.land_deck[0],)


def test_o3_b_removed_card_goes_to_the_bottom_and_is_drawn_last():
    s = position("FPSMWFPSW", hands=[["O3"], []])
    removed = (s.paths[0][5], s.paths[1][5])
    s.apply(Odin(2, 1, 0))
    s.apply(Target(5))
    assert divmod(s.land_deck[0], 5) == removed  # index 0 = the bottom


def test_o3_b_can_make_the_opponent_win_the_race():
    s = position("FPSMWFPSWF", pos=(4, 8), hands=[["O3"], []])
    s.apply(Odin(2, 1, 0))
    s.apply(Target(9))  # seat 1's raven now stands on the last card
    assert s.last_race == (1, 8 - 4, -1) and s.totals == [0, 4] and s.race == 2


def test_o3_b_is_illegal_on_a_one_card_path():
    s = position("F", "M", hands=[["O3"], []])
    assert ok(s, Odin(2, 0, 0)) and not ok(s, Odin(2, 1, 0))


def test_o3_needs_an_empty_card():
    # a raven on card 0 and the stone on card 1 (no raven may stand on the last card: §7)
    s = position("FP", "MW", pos=(0, -1), stone=(1, 1), hands=[["O3"], []])
    assert not ok(s, Odin(2, 0, 0)) and not ok(s, Odin(2, 1, 0))


# -- O4 ---------------------------------------------------------------------------------------


def test_o4_a_puts_the_stone_on_an_empty_space_of_either_path():
    s = position("FPSMWFPSW", pos=(3, 5), hands=[["O4", "O4"], []])
    s.apply(Odin(3, 0, 0))
    assert s.phase == TARGET_SPACE
    legal = s.legal_moves()
    assert StoneTarget(3, True) not in legal and StoneTarget(5, False) not in legal
    assert StoneTarget(3, False) in legal and StoneTarget(5, True) in legal
    assert len(legal) == 2 * 9 - 2
    s.apply(StoneTarget(6, False))
    assert (s.stone_card, s.stone_path) == (6, 1)
    s.apply(Odin(3, 0, 0))  # moving it: its own space is not empty
    assert StoneTarget(6, False) not in s.legal_moves()
    s.apply(StoneTarget(4, True))
    assert (s.stone_card, s.stone_path) == (4, 0)


def test_o4_a_clears_the_stone_from_the_own_path():
    s = position("FPSMWFPSW", pos=(2, -1), stone=(3, 0), hands=[["O4", "M"], []])
    assert not ok(s, Fly(0))
    s.apply(Odin(3, 0, 0))
    s.apply(StoneTarget(0, False))
    s.apply(Fly(0))
    assert s.pos[0] == 3


def test_o4_b_swaps_two_empty_cards_without_rotating():
    s = position("FPSMWFPSW", pos=(2, -1), stone=(6, 1), hands=[["O4"], []])
    p0, p1 = s.paths[0][:], s.paths[1][:]
    s.apply(Odin(3, 1, 0))
    first = legal_targets(s)
    assert 2 not in first and 6 not in first and 8 not in first  # the last empty has no partner
    s.apply(Target(3))
    assert legal_targets(s) == [4, 5, 7, 8]  # a second card after the first
    s.apply(Target(8))
    assert (s.paths[0][3], s.paths[1][3]) == (p0[8], p1[8])
    assert (s.paths[0][8], s.paths[1][8]) == (p0[3], p1[3])
    assert s.phase == PLAY


def test_o4_b_needs_two_empty_cards():
    s = position("FPS", "MWF", pos=(0, 1), hands=[["O4"], []])
    assert ok(s, Odin(3, 0, 0)) and not ok(s, Odin(3, 1, 0))


def test_odin_options_without_a_target_are_not_offered():
    s = position("FPSMWFPSW", pos=(-1, -1), stone=(0, 0), hands=[["O1"], []])
    assert not ok(s, Odin(0, 0, 0)) and not ok(s, Odin(0, 1, 0))
    assert not any(isinstance(m, Odin) for m in s.legal_moves())


def test_end_turn_is_always_legal_in_the_play_phase():
    s = position("FPSMWFPSW", hands=[[], []])
    assert s.legal_moves() == [EndTurn()]
    assert MOVE_INDEX[EndTurn()] == 130
