"""Scenario tests for the Cubirds engine against ``docs/rules/cubirds.md``.

Positions are hand-set with ``State.from_position``; cards are written with the rules' letters
(F O T D P M W R), rows left to right, the draw pile top first. Section numbers (§) are those of
docs/rules/cubirds.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.core import IllegalMoveError
from cardzoo.envs.cubirds.data import SPECIES_LETTERS
from cardzoo.envs.cubirds.game import (
    DRAW_PHASE,
    FLOCK_PHASE,
    GAME_OVER,
    LAY_PHASE,
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    Config,
    Draw,
    Flock,
    Lay,
    State,
)

F, O, T, D, P, M, W, R = range(8)  # noqa: E741 (O is the spec letter for Owl)
LEFT, RIGHT = 0, 1
TAKE, DECLINE = Draw(True), Draw(False)
PASS = Flock(None)

# Default rows: row 0 is the rulebook's [F, O, P]; no row holds a Duck, so laying D never captures.
ROWS = ("FOP", "WRT", "WRM", "FTW")
LONG_DRAW = "RW" * 30  # enough for any deal in these scenarios


def ids(cards: str) -> list[int]:
    return [SPECIES_LETTERS.index(c) for c in cards]


def cnt(cards: str) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[SPECIES_LETTERS.index(c)] += 1
    return counts


def pos(
    hands,
    rows=ROWS,
    draw="",
    discard="",
    collections=None,
    current_player=0,
    **options,
) -> State:
    config = Config(num_players=len(hands), **options)
    return State.from_position(
        config,
        hands=list(hands),
        rows=list(rows),
        draw=draw,
        discard=discard,
        collections=collections,
        current_player=current_player,
    )


def draw_top_first(state: State) -> list[int]:
    return state.draw[::-1]


def totals(state: State) -> list[int]:
    out = [0] * 8
    for zone in state.census().values():
        for s, c in enumerate(zone):
            out[s] += c
    return out


def snapshot(state: State):
    return (
        state.render(),
        state.census(),
        state.phase,
        state.current_player,
        state.legal_move_ids(),
        state.terminal,
        state.discard_size,
        [k[:] for k in state.known],
    )


# ---------------------------------------------------------------------------------------------
# §10 worked examples


def test_example_01_parrot_capture_with_refill():
    s = pos(["PPOM", "DD"], draw="PTRRWW")
    s.apply(Lay(P, 0, LEFT))
    assert s.hands[0] == cnt("OMFO")
    assert s.rows[0] == ids("TPPPP")
    assert draw_top_first(s) == ids("RRWW")  # exactly P and T were drawn, no 2-card draw
    # No flock possible and no Draw offered: the turn is over, seat 1 lays next.
    assert s.phase == LAY_PHASE
    assert s.current_player == 1
    assert s.rows[1:] == [ids(r) for r in ROWS[1:]]


def test_example_01_no_draw_offered_when_a_flock_is_possible():
    # Same capture, but with a third Owl the turn stops in phase 2: Flock/Pass only, no Draw.
    s = pos(["PPOOM", "DD"], draw="PTRRWW")
    s.apply(Lay(P, 0, LEFT))
    assert s.hands[0] == cnt("OOMFO")
    assert s.rows[0] == ids("TPPPP")
    assert s.phase == FLOCK_PHASE
    assert s.current_player == 0
    assert s.legal_moves() == [Flock(O), PASS]
    with pytest.raises(IllegalMoveError):
        s.apply(TAKE)


@pytest.mark.parametrize(
    ("species", "end", "expected"),
    [(O, LEFT, "ODRT"), (O, RIGHT, "DRTO"), (M, LEFT, "MDRT"), (M, RIGHT, "DRTM")],
)
@pytest.mark.parametrize("take", [True, False])
def test_example_02_no_capture_optional_draw(species, end, expected, take):
    s = pos(["PPOM", "DD"], rows=("FOP", "DRT", "WRM", "FTW"), draw="FTRRWW")
    s.apply(Lay(species, 1, end))
    assert s.rows[1] == ids(expected)
    remaining = {O: "PPM", M: "PPO"}[species]
    assert s.hands[0] == cnt(remaining)
    assert s.phase == DRAW_PHASE and s.current_player == 0
    assert s.legal_moves() == [DECLINE, TAKE]
    s.apply(Draw(take))
    if take:
        assert s.hands[0] == cnt(remaining + "FT")
        assert draw_top_first(s) == ids("RRWW")
    else:
        assert s.hands[0] == cnt(remaining)
        assert draw_top_first(s) == ids("FTRRWW")
    assert s.phase == LAY_PHASE and s.current_player == 1  # nothing to flock: turn over


def test_example_03_adjacent_same_species_no_capture():
    s = pos(["OD", "DD"], rows=("FOP", "WRT", "ODR", "FTW"), draw="RRWW")
    s.apply(Lay(O, 2, LEFT))
    assert s.rows[2] == ids("OODR")
    assert s.hands[0] == cnt("D")
    assert s.phase == DRAW_PHASE
    assert s.legal_moves() == [DECLINE, TAKE]


def _to_flock_phase(hand: str, collection: str = "", **options) -> State:
    """Seat 0 holds ``hand`` + a Duck, lays the Duck (no capture) and declines the draw."""
    s = pos([hand + "D", "OOT"], draw=LONG_DRAW, collections=[collection, "R"], **options)
    s.apply(Lay(D, 0, RIGHT))
    assert s.phase == DRAW_PHASE
    s.apply(DECLINE)
    return s


def test_example_04_small_flock():
    s = _to_flock_phase("MMMMMMO")  # the Owl keeps the round going
    assert s.phase == FLOCK_PHASE
    assert s.legal_moves() == [Flock(M), PASS]
    s.apply(Flock(M))
    assert s.collections[0] == cnt("M")
    assert s.discard == cnt("MMMMM")
    assert s.discard_public == cnt("MMMMM")
    assert s.hands[0] == cnt("O")
    assert not s.terminal and s.current_player == 1


def test_example_05_big_flock():
    s = _to_flock_phase("MMMMMMMO")
    s.apply(Flock(M))
    assert s.collections[0] == cnt("MM")
    assert s.discard == cnt("MMMMM")
    assert s.hands[0] == cnt("O")


def test_example_06_flock_too_small():
    s = _to_flock_phase("MMMMFF")
    assert s.phase == FLOCK_PHASE
    assert Flock(M) not in s.legal_moves()
    assert s.legal_moves() == [Flock(F), PASS]
    with pytest.raises(IllegalMoveError):
        s.apply(Flock(M))
    # With only the 4 Magpies there is nothing to decide: phase 2 is skipped.
    s = _to_flock_phase("MMMM")
    assert s.phase == LAY_PHASE and s.current_player == 1
    assert s.hands[0] == cnt("MMMM")


def test_example_07_win_by_two_triples():
    s = _to_flock_phase("TTTO", collection="TTFFF")
    assert s.legal_moves() == [Flock(T), PASS]
    s.apply(Flock(T))
    assert s.collections[0] == cnt("TTTFFF")
    assert s.discard == cnt("TT")
    assert s.terminal and s.phase == GAME_OVER
    assert s.winners() == (0,)
    assert s.end_reason == "win"
    assert s.current_player == -1
    assert s.legal_moves() == []


def test_example_08_win_by_seven_species():
    s = _to_flock_phase("WWWWWWO", collection="FOTDPM")
    s.apply(Flock(W))
    assert s.collections[0] == cnt("FOTDPMW")
    assert s.discard == cnt("WWWWW")
    assert s.terminal and s.winners() == (0,) and s.end_reason == "win"


def test_example_09_round_end_by_flock():
    # 3 players, seat 1 is active; after laying its Duck it holds exactly 2 Flamingos.
    deal = "R" * 8 + "W" * 8 + "D" * 8 + "PP"
    s = pos(["OOTT", "FFD", "WWR"], draw=deal, collections=["T", "O", "M"], current_player=1)
    s.apply(Lay(D, 2, LEFT))
    assert s.rows[2] == ids("DWRM")
    s.apply(DECLINE)
    assert s.legal_moves() == [Flock(F), PASS]
    s.apply(Flock(F))
    assert not s.terminal
    assert s.collections == [cnt("T"), cnt("OF"), cnt("M")]
    # Discard: 1 F from the flock plus the other two hands.
    assert s.discard == cnt("F" + "OOTT" + "WWR")
    assert s.discard_size == 8
    # Seat 1 deals first (top 8 cards), then clockwise, and plays first.
    assert s.hands == [cnt("D" * 8), cnt("R" * 8), cnt("W" * 8)]
    assert s.hand_sizes == [8, 8, 8]
    assert draw_top_first(s) == ids("PP")
    assert s.round == 2
    assert s.current_player == 1 and s.phase == LAY_PHASE


def test_example_10_hand_emptied_by_lay_default():
    s = pos(["D", "OOT"], draw="FF" + LONG_DRAW)
    assert s.config.draw_after_empty_hand is False
    s.apply(Lay(D, 0, RIGHT))
    assert s.rows[0] == ids("FOPD")
    # The round ended at once: no draw phase, the 2 Flamingos on top went to the new deal.
    assert s.round == 2
    assert s.phase == LAY_PHASE and s.current_player == 0
    assert s.discard == cnt("OOT")
    assert s.hands[0] == cnt("FF" + "RWRWRW")
    assert s.hand_sizes == [8, 8]
    assert len(s.draw) == len(LONG_DRAW) + 2 - 16


def test_example_10_hand_emptied_by_lay_draw_allowed():
    s = pos(["D", "OOT"], draw="FF" + LONG_DRAW, draw_after_empty_hand=True)
    s.apply(Lay(D, 0, RIGHT))
    assert s.round == 1
    assert s.phase == DRAW_PHASE and s.current_player == 0
    assert s.legal_moves() == [DECLINE, TAKE]
    s.apply(TAKE)
    # The turn continues: the two Flamingos make a small flock.
    assert s.hands[0] == cnt("FF")
    assert s.phase == FLOCK_PHASE and s.current_player == 0 and s.round == 1
    assert s.legal_moves() == [Flock(F), PASS]


def test_example_10_draw_allowed_then_declined_ends_round():
    s = pos(["D", "OOT"], draw=LONG_DRAW, draw_after_empty_hand=True)
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.round == 2
    assert s.discard == cnt("OOT")
    assert s.hand_sizes == [8, 8]
    assert s.current_player == 0 and s.phase == LAY_PHASE


def _failed_deal_position(discard: str, collections) -> State:
    # 3 players; seat 0 lays its only card, the other hands (3 + 3) are discarded.
    return pos(["D", "OOT", "WWR"], draw="RRRRRWWWWW", discard=discard, collections=collections)


def test_example_11_failed_deal():
    s = _failed_deal_position("MMMM", ["FOTDP", "FOT", "MMWRR"])  # 10 + 4 + 6 = 20 < 24
    s.apply(Lay(D, 0, LEFT))
    assert s.terminal and s.phase == GAME_OVER
    assert s.end_reason == "failed_deal"
    assert s.winners() == (0, 2)
    assert s.round == 1
    assert s.hand_sizes == [0, 0, 0]
    assert s.discard == cnt("MMMM" + "OOT" + "WWR")


def test_example_11_deal_succeeds_at_exactly_8n_cards():
    s = _failed_deal_position("MMMMMMMM", ["FOTDP", "FOT", "MMWRR"])  # 10 + 8 + 6 = 24
    before = totals(s)
    s.apply(Lay(D, 0, LEFT))
    assert not s.terminal
    assert s.round == 2
    assert s.hand_sizes == [8, 8, 8]
    assert len(s.draw) + s.discard_size == 0
    assert totals(s) == before


def test_example_12_midturn_exhaustion_end_game():
    s = pos(["PPM", "OOT"], collections=["FOT", "DP"])
    assert s.config.midturn_exhaustion == "end_game"
    s.apply(Lay(P, 0, LEFT))
    assert s.terminal and s.phase == GAME_OVER
    assert s.end_reason == "exhaustion"
    assert s.winners() == (0,)
    assert s.rows[0] == ids("PPP")
    assert s.hands[0] == cnt("MFO")


def test_example_12_midturn_exhaustion_end_game_tie():
    s = pos(["PPM", "OOT"], collections=["FO", "DP"])
    s.apply(Lay(P, 0, LEFT))
    assert s.terminal and s.winners() == (0, 1)


def test_example_12_midturn_exhaustion_partial():
    s = pos(["PPM", "D"], collections=["FOT", "DP"], midturn_exhaustion="partial")
    s.apply(Lay(P, 0, LEFT))
    assert not s.terminal
    assert s.rows[0] == ids("PPP")  # stays single-species
    assert s.hands[0] == cnt("MFO")
    assert s.phase == LAY_PHASE and s.current_player == 1
    # The game ends at the next failed deal: seat 1 empties its hand, 0 + 3 cards < 16.
    s.apply(Lay(D, 1, LEFT))
    assert s.terminal and s.end_reason == "failed_deal"
    assert s.winners() == (0,)


# ---------------------------------------------------------------------------------------------
# §3.1 captures


def test_capture_several_blocks_left_end():
    s = pos(["PPM", "DD"], rows=("DRROPPT", "WRT", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(P, 0, LEFT))
    assert s.rows[0] == ids("PPPPT")
    assert s.hands[0] == cnt("MDRRO")
    assert s.known[0] == cnt("DRRO")
    assert draw_top_first(s) == ids(LONG_DRAW)  # no refill: two species remain
    assert s.current_player == 1  # no draw, no flock


def test_capture_several_blocks_right_end():
    s = pos(["PM", "DD"], rows=("TPPORRD", "WRT", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(P, 0, RIGHT))
    assert s.rows[0] == ids("TPPP")
    assert s.hands[0] == cnt("MORRD")
    assert draw_top_first(s) == ids(LONG_DRAW)


def test_capture_right_end_with_refill_at_right():
    s = pos(["PPM", "DD"], rows=("POF", "WRT", "WRM", "FTW"), draw="PDRR")
    s.apply(Lay(P, 0, RIGHT))
    assert s.hands[0] == cnt("MOF")
    assert s.rows[0] == ids("PPPPD")
    assert draw_top_first(s) == ids("RR")


def test_capture_uses_nearest_card_of_the_species():
    # Not reachable in play (P is split), so this checks the §3.1 formula literally:
    # left end -> smallest index j with row[j] == s; right end -> largest such index.
    s = pos(["PM", "DD"], rows=("FPOPT", "WRT", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(P, 0, LEFT))
    assert s.hands[0] == cnt("MF")
    assert s.rows[0] == ids("PPOPT")
    s = pos(["PM", "DD"], rows=("FPOPT", "WRT", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(P, 0, RIGHT))
    assert s.hands[0] == cnt("MT")
    assert s.rows[0] == ids("FPOPP")


def test_lay_next_to_same_species_at_right_end_captures_nothing():
    s = pos(["RD", "DD"], rows=("FOP", "WTR", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(R, 1, RIGHT))
    assert s.rows[1] == ids("WTRR")
    assert s.hands[0] == cnt("D")
    assert s.phase == DRAW_PHASE


def test_species_already_in_row_does_not_matter_for_legality():
    s = pos(["PFO", "DD"], draw=LONG_DRAW)
    assert s.legal_moves() == [Lay(sp, r, e) for sp in (F, O, P) for r in range(4) for e in (0, 1)]
    assert len(s.legal_move_ids()) == 24
    assert s.legal_move_ids() == sorted(s.legal_move_ids())


# ---------------------------------------------------------------------------------------------
# §3.1 refills and §5 reshuffles


def test_refill_several_same_species_cards_left_end():
    s = pos(["PPM", "DD"], draw="PPPTRR")
    s.apply(Lay(P, 0, LEFT))
    assert s.rows[0] == ids("TPPPPPP")
    assert draw_top_first(s) == ids("RR")


def test_refill_triggers_reshuffle_of_discard():
    s = pos(["PPM", "DD"], draw="", discard="TT")
    s.apply(Lay(P, 0, LEFT))
    assert s.rows[0] == ids("TPPP")
    assert s.draw == ids("T")
    assert s.discard == [0] * 8 and s.discard_size == 0
    assert s.discard_public == [0] * 8
    assert not s.terminal


def test_refill_reshuffle_in_the_middle_of_a_refill():
    s = pos(["PPM", "DD"], draw="P", discard="TP")
    before = totals(s)
    s.apply(Lay(P, 0, LEFT))
    # P from the pile, then the discard (T, P) is reshuffled; refill stops at the first T.
    assert s.rows[0] in (ids("TPPPP"), ids("TPPPPP"))
    assert s.discard_size == 0
    assert totals(s) == before


def test_refill_partial_with_some_cards_left():
    s = pos(["PPM", "DD"], draw="PP", midturn_exhaustion="partial")
    s.apply(Lay(P, 0, LEFT))
    assert s.rows[0] == ids("PPPPP")
    assert not s.terminal and s.current_player == 1


# ---------------------------------------------------------------------------------------------
# §3.1 optional 2-card draw


def test_draw_take_and_decline_hand_contents():
    s = pos(["DM", "OO"], draw="FWRR")
    s.apply(Lay(D, 1, LEFT))
    s.apply(TAKE)
    assert s.hands[0] == cnt("MFW")
    assert s.hand_sizes[0] == 3
    assert s.known[0] == [0] * 8  # drawn cards are private
    assert draw_top_first(s) == ids("RR")
    s = pos(["DM", "OO"], draw="FWRR")
    s.apply(Lay(D, 1, LEFT))
    s.apply(DECLINE)
    assert s.hands[0] == cnt("M")
    assert draw_top_first(s) == ids("FWRR")


def test_draw_triggers_reshuffle():
    s = pos(["DM", "OO"], draw="R", discard="WWW")
    s.apply(Lay(D, 1, LEFT))
    s.apply(TAKE)
    assert s.hands[0] == cnt("MRW")
    assert s.draw == ids("WW")
    assert s.discard_size == 0 and s.discard == [0] * 8
    assert not s.terminal


def test_draw_that_completes_a_flock_leads_to_flock_phase():
    s = pos(["DFO", "OO"], draw="FWRR")
    s.apply(Lay(D, 1, LEFT))
    s.apply(TAKE)
    assert s.phase == FLOCK_PHASE
    assert s.legal_moves() == [Flock(F), PASS]


@pytest.mark.parametrize(("draw", "discard"), [("R", ""), ("", "R"), ("", "")])
def test_draw_with_fewer_than_two_cards_ends_game_under_end_game(draw, discard):
    s = pos(["DM", "OO"], draw=draw, discard=discard, collections=["F", "TO"])
    s.apply(Lay(D, 1, LEFT))
    assert s.phase == DRAW_PHASE  # the option is still offered
    s.apply(TAKE)
    assert s.terminal and s.end_reason == "exhaustion"
    assert s.winners() == (1,)
    assert s.hands[0] == cnt("M")  # nothing was drawn


def test_draw_with_exactly_two_cards_across_piles_does_not_end_game():
    s = pos(["DM", "OO"], draw="R", discard="W", collections=["F", "TO"])
    s.apply(Lay(D, 1, LEFT))
    s.apply(TAKE)
    assert not s.terminal
    assert s.hands[0] == cnt("MRW")
    assert len(s.draw) == 0 and s.discard_size == 0


def test_declining_the_draw_with_empty_piles_does_not_end_game():
    s = pos(["DM", "OO"], collections=["F", "TO"])
    s.apply(Lay(D, 1, LEFT))
    s.apply(DECLINE)
    assert not s.terminal and s.current_player == 1


@pytest.mark.parametrize(("draw", "expected"), [("R", "MR"), ("", "M")])
def test_draw_partial_takes_what_exists(draw, expected):
    s = pos(["DM", "OO"], draw=draw, midturn_exhaustion="partial")
    s.apply(Lay(D, 1, LEFT))
    s.apply(TAKE)
    assert not s.terminal
    assert s.hands[0] == cnt(expected)
    assert s.current_player == 1


def test_draw_after_empty_hand_take_with_no_flock_passes_turn():
    s = pos(["D", "OOT"], draw="FOR", draw_after_empty_hand=True)
    s.apply(Lay(D, 0, RIGHT))
    s.apply(TAKE)
    assert s.hands[0] == cnt("FO")
    assert s.phase == LAY_PHASE and s.current_player == 1 and s.round == 1


def test_draw_after_empty_hand_partial_with_no_cards_ends_round():
    s = pos(["D", "OOT"], draw="", midturn_exhaustion="partial", draw_after_empty_hand=True)
    s.apply(Lay(D, 0, RIGHT))
    s.apply(TAKE)
    # The hand is still empty: the round ends and the deal fails (3 cards < 16).
    assert s.terminal and s.end_reason == "failed_deal"


# ---------------------------------------------------------------------------------------------
# §3.2 flocks


def test_flock_size_is_not_a_choice():
    s = _to_flock_phase("WWWWWWWWWO")  # 9 W: big flock
    assert s.legal_moves() == [Flock(W), PASS]  # a single Warbler option
    s.apply(Flock(W))
    assert s.collections[0] == cnt("WW")
    assert s.discard == cnt("W" * 7)


def test_flock_one_below_big_banks_one():
    s = _to_flock_phase("WWWWWWWWO")  # 8 W: 6 <= 8 < 9
    s.apply(Flock(W))
    assert s.collections[0] == cnt("W")
    assert s.discard == cnt("W" * 7)


def test_flock_exactly_big_banks_two_and_smallest_species():
    s = _to_flock_phase("FFFO")  # Flamingo 2/3
    s.apply(Flock(F))
    assert s.collections[0] == cnt("FF")
    assert s.discard == cnt("F")
    assert s.hands[0] == cnt("O")
    assert s.current_player == 1


def test_flock_choices_listed_and_only_one_flock_per_turn():
    s = _to_flock_phase("FFOOOTT")
    assert s.legal_moves() == [Flock(F), Flock(O), PASS]
    s.apply(Flock(F))
    assert s.phase == LAY_PHASE and s.current_player == 1
    assert s.hands[0] == cnt("OOOTT")


def test_voluntary_pass_keeps_cards():
    s = _to_flock_phase("FFO")
    s.apply(PASS)
    assert s.hands[0] == cnt("FFO")
    assert s.collections[0] == [0] * 8
    assert s.current_player == 1 and s.phase == LAY_PHASE


def test_flock_phase_skipped_when_only_pass_is_legal():
    s = _to_flock_phase("FOTPMWR")
    assert s.phase == LAY_PHASE and s.current_player == 1
    assert s.hands[0] == cnt("FOTPMWR")


def test_auto_skipped_flock_looks_like_a_voluntary_pass():
    # Same public history and the same unseen cards (seat 0's hand + the draw pile); seat 0's
    # hidden hand could flock in one position and not in the other.
    a = pos(["DFF", "OOT"], draw="O" + LONG_DRAW)
    b = pos(["DFO", "OOT"], draw="F" + LONG_DRAW)
    for s in (a, b):
        s.apply(Lay(D, 0, RIGHT))
        s.apply(DECLINE)
    assert a.phase == FLOCK_PHASE and b.phase == LAY_PHASE
    a.apply(PASS)
    assert a.view(1) == b.view(1)
    assert a.view(0) != b.view(0)


def test_flock_emptying_hand_ends_round_two_players():
    s = pos(["DFF", "OOT"], draw=LONG_DRAW, collections=["O", "T"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(F))
    assert s.round == 2
    assert s.collections == [cnt("OF"), cnt("T")]
    assert s.discard == cnt("F" + "OOT")
    assert s.current_player == 0 and s.hand_sizes == [8, 8]


# ---------------------------------------------------------------------------------------------
# §3.5 win conditions and order of the end-of-turn checks


@pytest.mark.parametrize(
    ("collection", "hand", "wins"),
    [
        ("FOTDPM", "WWWWWW", True),  # 7 species
        ("FOTDP", "WWWWWW", False),  # 6 species
        ("FOTDPM", "MMMMM", False),  # flocked species already present: still 6
        ("FOTDPMR", "OOO", True),  # already 7 (hand-set), flocking keeps it
        ("TTFFF", "TTT", True),  # two triples
        ("TFFF", "TTT", False),  # T reaches 2 only
        ("TTTF", "FFF", True),  # big flock banks 2: F 1 -> 3
        ("TTTFF", "FF", True),  # small flock: F 2 -> 3
        ("TTTOOWWMM", "FF", False),  # one triple and many pairs
        ("FFFFFF", "OOO", False),  # a single big pile is one triple
    ],
)
def test_win_conditions_and_just_below(collection, hand, wins):
    s = _to_flock_phase(hand + "R", collection=collection)
    flocked = SPECIES_LETTERS.index(hand[0])
    s.apply(Flock(flocked))
    assert s.terminal is wins
    if wins:
        assert s.winners() == (0,) and s.end_reason == "win"
    else:
        assert s.winners() == () and s.end_reason is None
        assert s.current_player == 1 and s.hands[0] == cnt("R")


def test_win_check_before_empty_hand_round_end():
    s = pos(["TTTD", "OOW"], draw=LONG_DRAW, collections=["TTFFF", "R"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(T))
    assert s.hand_sizes[0] == 0
    assert s.terminal and s.end_reason == "win" and s.winners() == (0,)
    assert s.round == 1  # no new round was started
    assert s.hands[1] == cnt("OOW")  # the other hand was not discarded
    assert draw_top_first(s) == ids(LONG_DRAW)


def test_lay_never_wins_only_a_flock_does():
    # Seat 1 already satisfies a win condition (hand-set); other seats' turns do not end the game.
    s = pos(["DO", "OO"], draw=LONG_DRAW, collections=["F", "TTTFFF"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert not s.terminal and s.current_player == 1


def test_turn_passes_clockwise_and_wraps():
    s = pos(["DO", "DO", "DO"], draw=LONG_DRAW, current_player=2)
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.current_player == 0


# ---------------------------------------------------------------------------------------------
# §4 round end and the new deal


@pytest.mark.parametrize("reveal", [True, False])
def test_round_end_discards_other_hands_and_visibility(reveal):
    s = pos(
        ["DFF", "OOT", "WWRM"],
        draw=LONG_DRAW,
        collections=["O", "T", "P"],
        reveal_round_end_discards=reveal,
    )
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(F))
    assert s.round == 2
    assert s.discard == cnt("F" + "OOT" + "WWRM")
    assert s.discard_size == 8
    flock_part = cnt("F")
    if reveal:
        assert s.discard_public == cnt("F" + "OOT" + "WWRM")
        own = ["", "", ""]
    else:
        assert s.discard_public == flock_part
        own = ["", "OOT", "WWRM"]  # each seat still knows the hand it threw away
    for q in range(3):
        known = [a + b for a, b in zip(s.discard_public, cnt(own[q]))]
        assert list(s.view(q).discard_known) == known
        assert s.view(q).discard_size == 8


def test_new_deal_reshuffles_discard_when_draw_runs_out():
    # 2 players: 10 in the draw pile, 2 discarded + the other hand of 6 -> 18 >= 16.
    s = pos(["D", "OOOTTT"], draw="RRRRRRRRWW", discard="MM")
    before = totals(s)
    s.apply(Lay(D, 0, RIGHT))
    assert not s.terminal and s.round == 2
    assert s.current_player == 0 and s.phase == LAY_PHASE
    assert s.hands[0] == cnt("RRRRRRRR")  # the ender is dealt first, from the top
    assert s.hand_sizes == [8, 8]
    assert s.hands[1][W] == 2
    assert s.discard_size == 0 and s.discard == [0] * 8 and s.discard_public == [0] * 8
    assert len(s.draw) == 2
    rest = [s.hands[1][k] + s.draw.count(k) for k in range(8)]
    assert rest == cnt("WW" + "MMOOOTTT")
    assert totals(s) == before


def test_round_end_deal_order_with_ender_in_the_middle():
    deal = "F" * 8 + "O" * 8 + "T" * 8 + "P" * 8
    s = pos(["MM", "MM", "D", "MM"], draw=deal, current_player=2)
    s.apply(Lay(D, 0, RIGHT))
    assert s.hands == [cnt("T" * 8), cnt("P" * 8), cnt("F" * 8), cnt("O" * 8)]
    assert s.current_player == 2 and s.round == 2


def test_failed_deal_all_tied_share_victory():
    s = pos(["D", "OO", "WW", "RR"], draw="MMMM", collections=["FO", "TD", "PM", "WR"])
    s.apply(Lay(D, 0, RIGHT))
    assert s.terminal and s.end_reason == "failed_deal"
    assert s.winners() == (0, 1, 2, 3)


def test_failed_deal_single_largest_collection_wins_even_if_not_ender():
    s = pos(["D", "OO"], draw="MMMM", collections=["FO", "TDD"])
    s.apply(Lay(D, 0, RIGHT))
    assert s.terminal and s.winners() == (1,)
    assert s.scores() == (2.0, 3.0)


# ---------------------------------------------------------------------------------------------
# §2 setup and §8 configuration


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup(n):
    for seed in range(5):
        s = State(Config(num_players=n), seed=seed)
        assert all(len(row) == 3 and len(set(row)) == 3 for row in s.rows)
        assert s.hand_sizes == [8] * n
        assert all(sum(c) == 1 for c in s.collections)
        assert s.discard_size == 0
        assert len(s.draw) == 110 - 12 - 9 * n
        assert totals(s) == [7, 10, 10, 13, 13, 17, 20, 20]
        assert s.phase == LAY_PHASE and s.round == 1 and s.turn == 0


class RecordingRng(np.random.Generator):
    """A real generator that records the pack before and after every shuffle, so the setup can be
    replayed by hand from the same shuffled packs."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.shuffled: list[tuple[list[int], list[int]]] = []

    def shuffle(self, x, axis=0):
        before = list(x)
        super().shuffle(x, axis)
        self.shuffled.append((before, list(x)))


def setup_by_the_rules(n: int, dealer: int, rng: RecordingRng):
    """Rules §2 replayed from the recorded shuffles (the pack's top is its last card)."""
    assert len(rng.shuffled) == 2, "one shuffle of the cards, one after the rows are built"
    pack = rng.shuffled[0][1][:]
    assert sorted(pack) == sorted(
        s for s in range(8) for _ in range([7, 10, 10, 13, 13, 17, 20, 20][s])
    )
    rows, aside = [], []
    for _ in range(4):
        row = []
        while len(row) < 3:
            card = pack.pop()
            (aside if card in row else row).append(card)
        rows.append(row)
    before, after = rng.shuffled[1]
    # §2.3: the cards put aside go back into the pack, which is shuffled to form the draw pile.
    assert sorted(before) == sorted(pack + aside)
    pack = after[:]
    hands = [None] * n
    for i in range(n):  # §2.4: 8 cards at a time, dealer first, clockwise
        seat = (dealer + i) % n
        hands[seat] = cnt("".join(SPECIES_LETTERS[pack.pop()] for _ in range(8)))
    collections = [None] * n
    for i in range(n):  # §2.5: then one collection card each, in the same order
        seat = (dealer + i) % n
        collections[seat] = cnt(SPECIES_LETTERS[pack.pop()])
    return rows, aside, hands, collections, pack


@pytest.mark.parametrize(("n", "dealer"), [(2, 0), (2, 1), (3, 2), (4, 1), (5, 3)])
def test_setup_order_rows_reshuffle_hands_then_collections(n, dealer):
    # Fails if the cards put aside are not shuffled back into the pack, if hands are dealt one
    # card at a time or not from the dealer, or if collection cards come before the hands.
    aside_seen = False
    for seed in range(20):
        rng = RecordingRng(seed)
        s = State(Config(num_players=n, first_player=dealer), seed=rng)
        rows, aside, hands, collections, rest = setup_by_the_rules(n, dealer, rng)
        assert s.rows == rows
        assert s.hands == hands and s.hand_sizes == [8] * n
        assert s.collections == collections
        assert s.draw == rest and s.discard == [0] * 8 and s.discard_size == 0
        assert s.current_player == dealer
        aside_seen |= bool(aside)
    assert aside_seen  # the set-aside step really happened in some of these setups


def test_setup_with_a_random_dealer_deals_from_that_dealer():
    dealers = set()
    for seed in range(30):
        rng = RecordingRng(seed)
        s = State(Config(num_players=3), seed=rng)
        dealer = s.current_player
        dealers.add(dealer)
        _, _, hands, collections, rest = setup_by_the_rules(3, dealer, rng)
        assert s.hands == hands and s.collections == collections and s.draw == rest
    assert dealers == {0, 1, 2}


def test_setup_is_reproducible_from_seed():
    a = State(Config(num_players=3), seed=42)
    b = State(Config(num_players=3), seed=42)
    c = State(Config(num_players=3), seed=43)
    assert a.render() == b.render()
    assert a.render() != c.render()


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_first_player_fixed_seat(seat):
    for seed in range(10):
        s = State(Config(num_players=4, first_player=seat), seed=seed)
        assert s.current_player == seat


def test_first_player_random_covers_seats():
    seats = {State(Config(num_players=3), seed=seed).current_player for seed in range(60)}
    assert seats == {0, 1, 2}


def test_config_defaults():
    c = Config()
    assert (c.num_players, c.first_player, c.draw_after_empty_hand) == (2, "random", False)
    assert (c.midturn_exhaustion, c.reveal_round_end_discards, c.max_turns) == (
        "end_game",
        True,
        1000,
    )


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": "3"}, "num_players"),
        ({"first_player": 5}, "first_player"),
        ({"num_players": 3, "first_player": 3}, "first_player"),
        ({"first_player": -1}, "first_player"),
        ({"first_player": "x"}, "first_player"),
        ({"first_player": True}, "first_player"),
        ({"midturn_exhaustion": "x"}, "midturn_exhaustion"),
        ({"midturn_exhaustion": None}, "midturn_exhaustion"),
        ({"draw_after_empty_hand": 1}, "draw_after_empty_hand"),
        ({"draw_after_empty_hand": 0}, "draw_after_empty_hand"),
        ({"draw_after_empty_hand": "yes"}, "draw_after_empty_hand"),
        ({"reveal_round_end_discards": 0}, "reveal_round_end_discards"),
        ({"reveal_round_end_discards": 1}, "reveal_round_end_discards"),
        ({"max_turns": 0}, "max_turns"),
        ({"max_turns": -5}, "max_turns"),
        ({"max_turns": 10.0}, "max_turns"),
    ],
)
def test_config_validation(kwargs, option):
    with pytest.raises(ValueError, match=option):
        Config(**kwargs)


def test_config_valid_values_accepted():
    for n in range(2, 6):
        for fp in ["random", *range(n)]:
            Config(num_players=n, first_player=fp)
    Config(draw_after_empty_hand=True, midturn_exhaustion="partial")
    Config(reveal_round_end_discards=False, max_turns=1)


# ---------------------------------------------------------------------------------------------
# Illegal moves leave the state unchanged


def _mid_turn_positions():
    lay = pos(["PPOM", "DD"], draw="PTRRWW")
    draw = pos(["PPOM", "DD"], draw="PTRRWW")
    draw.apply(Lay(M, 1, LEFT))
    flock = _to_flock_phase("MMMMFF")  # 4 Magpies: too few (small flock 5)
    over = _to_flock_phase("TTTO", collection="TTFFF")
    over.apply(Flock(T))
    return {"lay": lay, "draw": draw, "flock": flock, "over": over}


@pytest.mark.parametrize(
    ("where", "move", "message"),
    [
        ("lay", TAKE, "lay phase"),
        ("lay", DECLINE, "lay phase"),
        ("lay", Flock(P), "lay phase"),
        ("lay", PASS, "lay phase"),
        ("lay", Lay(F, 0, LEFT), "Pink Flamingos"),  # species not in hand
        ("lay", Lay(P, 4, LEFT), "not a Cubirds move"),  # no row 4
        ("lay", Lay(P, 0, 2), "not a Cubirds move"),
        ("lay", Lay(8, 0, 0), "not a Cubirds move"),
        ("lay", 75, "out of range"),
        ("lay", -1, "out of range"),
        ("lay", MOVE_INDEX[Lay(W, 0, 0)], "lay phase"),  # id of a lay of a species not held
        ("lay", "lay", "not a Cubirds move"),
        ("lay", None, "not a Cubirds move"),
        ("lay", 3.0, "not a Cubirds move"),
        ("lay", True, "not a Cubirds move"),
        ("lay", [0, 0, 0], "not a Cubirds move"),
        ("lay", object(), "not a Cubirds move"),
        ("draw", Lay(P, 0, LEFT), "draw phase"),
        ("draw", PASS, "draw phase"),
        ("draw", Flock(M), "draw phase"),
        ("flock", Flock(M), "flock phase"),  # flock too small
        ("flock", Flock(O), "flock phase"),  # none held
        ("flock", TAKE, "flock phase"),
        ("flock", Lay(M, 0, LEFT), "flock phase"),
        ("over", Lay(O, 0, LEFT), "game is over"),
        ("over", PASS, "game is over"),
        ("over", 0, "game is over"),
    ],
)
def test_illegal_moves_raise_and_leave_state_unchanged(where, move, message):
    s = _mid_turn_positions()[where]
    before = snapshot(s)
    with pytest.raises(IllegalMoveError, match=message) as info:
        s.apply(move)
    assert isinstance(info.value, ValueError)
    assert snapshot(s) == before


def test_legal_move_objects_and_ids_agree():
    assert len(MOVES) == NUM_MOVES == 75
    assert len(MOVE_INDEX) == NUM_MOVES
    assert [MOVE_INDEX[m] for m in MOVES] == list(range(NUM_MOVES))
    assert MOVE_INDEX[Draw(False)] == 64 and MOVE_INDEX[Draw(True)] == 65
    assert MOVE_INDEX[Flock(0)] == 66 and MOVE_INDEX[Flock(1)] == 67 and MOVE_INDEX[PASS] == 74
    assert MOVE_INDEX[Lay(2, 1, RIGHT)] == 19


def test_apply_by_id_equals_apply_by_move():
    a = pos(["PPOM", "DD"], rows=("FOP", "DRT", "WRM", "FTW"), draw="FTRRWW")
    b = pos(["PPOM", "DD"], rows=("FOP", "DRT", "WRM", "FTW"), draw="FTRRWW")
    a.apply(Lay(O, 1, LEFT))
    b.apply(MOVE_INDEX[Lay(O, 1, LEFT)])
    a.apply(TAKE)
    b.apply(65)
    assert a.render() == b.render()
    assert a.hands[0] == cnt("PPMFT")


# ---------------------------------------------------------------------------------------------
# §7 public information: known hands and views


def test_known_after_capture_reset_by_lay_of_that_species():
    s = pos(["PPOM", "DOO"], rows=("FOP", "WRT", "WRM", "FTW"), draw="PTRRWWRRWW")
    s.apply(Lay(P, 0, LEFT))
    assert s.known[0] == cnt("FO")
    assert s.view(1).known_hands[0] == tuple(cnt("FO"))
    assert s.known[1] == [0] * 8
    s.apply(Lay(D, 1, LEFT))  # seat 1
    s.apply(DECLINE)
    s.apply(Lay(O, 2, RIGHT))  # seat 0 lays both Owls (one of them known)
    assert s.known[0] == cnt("F")
    assert s.hands[0] == cnt("MF")


def test_known_reset_by_flock_of_that_species():
    s = pos(["PPF", "DOO"], rows=("FOP", "WRT", "WRM", "FTW"), draw="PTRRWW")
    s.apply(Lay(P, 0, LEFT))
    assert s.known[0] == cnt("FO")
    assert s.phase == FLOCK_PHASE
    s.apply(Flock(F))
    assert s.known[0] == cnt("O")
    assert s.collections[0] == cnt("F")


def test_known_reset_at_round_end():
    s = pos(["PP", "D"], rows=("FOPT", "WRT", "WRM", "FTW"), draw=LONG_DRAW)
    s.apply(Lay(P, 0, LEFT))
    assert s.rows[0] == ids("PPPT")
    assert s.known[0] == cnt("FO") and s.current_player == 1
    s.apply(Lay(D, 1, LEFT))  # seat 1 empties its hand
    assert s.round == 2
    assert s.known == [[0] * 8, [0] * 8]
    assert s.discard == cnt("FO")


def test_view_shows_own_hand_only():
    # Seat 1's hidden hand differs; the cards seat 0 has not seen (seat 1's hand and the draw
    # pile) are the same.
    a = pos(["PPOM", "DDTT"], draw="WWRR" + LONG_DRAW)
    b = pos(["PPOM", "WWRR"], draw="DDTT" + LONG_DRAW)
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)
    v = a.view(0)
    assert v.hand == tuple(cnt("PPOM"))
    assert v.hand_sizes == (4, 4)
    assert a.view(1).hand == tuple(cnt("DDTT"))
    assert not hasattr(v, "hands") and not hasattr(v, "draw")
    assert v.draw_size == len(LONG_DRAW) + 4
    assert v.rows == tuple(tuple(ids(r)) for r in ROWS)
    with pytest.raises(ValueError):
        a.view(2)


def test_view_draw_pile_order_is_hidden():
    a = pos(["PPOM", "DDTT"], draw="FORW")
    b = pos(["PPOM", "DDTT"], draw="WROF")
    assert a.view(0) == b.view(0) and a.view(1) == b.view(1)
