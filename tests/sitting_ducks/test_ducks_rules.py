"""Scenario tests for the Sitting Ducks Gallery rules engine (rules spec ``sitting_ducks.md``).

Every worked example of spec §12 is its own test (``test_example_NN_*``), every ruling of §11 one
or more ``test_ruling_NN_*``, every card a ``test_card_*``. Positions are hand-set with
``State.from_position`` in the spec's notation: slot 0 (front) first, ``R``/``B``/``G`` = the
ducks of seats 0/1/2, ``~`` water, ``B/R`` a stack (B on top, R hidden), ``R*1`` a duck under the
Bottoms Up card of seat 1, decks top first. Three players, Red to move, unless a test says
otherwise.
"""

from __future__ import annotations

import pytest
from cardzoo.envs.core import IllegalMoveError
from cardzoo.envs.sitting_ducks import Config, Discard, Place, Play, State
from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    BUMP_LEFT,
    BUMP_RIGHT,
    DISORDERLY_CONDUCKT,
    DOUBLE_BARREL,
    DUCK_AND_COVER,
    DUCK_SHUFFLE,
    FAST_FORWARD,
    HANG_BACK,
    LINE_FORWARD,
    MISFIRE,
    MOVE_AHEAD,
    QUICK_SHOT,
    SHOOT,
    TAKE_AIM,
    TWO_BIRDS,
    WATER,
)
from cardzoo.envs.sitting_ducks.moves import DISCARD_BASE, MOVE_INDEX, MOVES
from cardzoo.envs.sitting_ducks.units import unit_text

R, B, G, Y = 0, 1, 2, 3
CFG = Config()


def position(row, hand=(), mover=R, cfg=CFG, hands=None, **kw) -> State:
    """``mover`` to play from ``hand`` (the other seats get random cards unless ``hands``)."""
    hands = {mover: list(hand)} if hands is None else hands
    return State.from_position(cfg, row=row, hands=hands, current_player=mover, **kw)


def row(state: State) -> list[str]:
    return [unit_text(u) for u in state.row]


def targets(state: State) -> set[int]:
    return {s for s in range(6) if state.targets >> s & 1}


def play(state: State, move) -> list[int]:
    """Apply ``move``; return the ducks it shot, per colour."""
    before = state.shot[:]
    state.apply(move)
    return [a - b for a, b in zip(state.shot, before)]


def legal(state: State) -> set:
    return set(state.legal_moves())


def snapshot(state: State):
    return (
        state.render(),
        state.census(),
        state.legal_move_ids(),
        [state.view(p) for p in range(state.num_players)],
        state.move_count,
    )


# ---------------------------------------------------------------------------------------------
# §12 worked examples


def test_example_01_shoot_targets_stay():
    s = position(["R", "B", "~", "G", "R", "~"], [SHOOT], targets={1, 3}, deck=["B"])
    assert play(s, Play(SHOOT, 1)) == [0, 1, 0]
    assert row(s) == ["R", "~", "G", "R", "~", "B"]
    assert targets(s) == {3}
    assert row(s)[3] == "R"


def test_example_02_shoot_water():
    s = position(["~", "R", "B", "G", "R", "B"], [SHOOT], targets={0})
    assert play(s, Play(SHOOT, 0)) == [0, 0, 0]
    assert row(s) == ["~", "R", "B", "G", "R", "B"]
    assert targets(s) == set()


def test_example_03_line_forward():
    s = position(["R", "B", "~", "G", "R", "~"], [LINE_FORWARD], targets={0, 4}, deck=["G"])
    s.apply(Play(LINE_FORWARD))
    assert row(s) == ["B", "~", "G", "R", "~", "G"]
    assert targets(s) == {0, 4}
    assert s.deck[0] == R  # the bottom of the duck deck
    assert s.known_bottom_cards() == [R]


def test_example_04_fast_forward():
    s = position(["B", "~", "G", "R", "~", "G"], [FAST_FORWARD])
    assert legal(s) == {Play(FAST_FORWARD, 3)}
    s.apply(Play(FAST_FORWARD, 3))
    assert row(s) == ["R", "B", "~", "G", "~", "G"]
    # A unit already in slot 0 cannot be fast-forwarded: the card is not playable.
    s = position(["R", "~", "G", "B", "~", "G"], [FAST_FORWARD, SHOOT])
    assert not any(isinstance(m, Play) and m.card == FAST_FORWARD for m in legal(s))
    assert legal(s) == {Discard(FAST_FORWARD), Discard(SHOOT)}


def test_example_05_hang_back_with_water():
    s = position(["R", "~", "B", "G", "~", "B"], [HANG_BACK, MOVE_AHEAD])
    assert legal(s) == {Play(HANG_BACK, 0, 1)}  # Move Ahead on slot 0 is illegal
    s.apply(Play(HANG_BACK, 0, 1))
    assert row(s) == ["~", "R", "B", "G", "~", "B"]


def test_example_06_duck_and_cover():
    start = ["~", "G", "R", "B", "~", "G"]
    s = position(start, [DUCK_AND_COVER], deck=["R"])
    assert legal(s) == {Play(DUCK_AND_COVER, 2, 3), Play(DUCK_AND_COVER, 2, 1)}
    s.apply(Play(DUCK_AND_COVER, 2, 3))
    assert row(s) == ["~", "G", "B/R", "~", "G", "R"]
    s = position(start, [DUCK_AND_COVER], deck=["R"])
    s.apply(Play(DUCK_AND_COVER, 2, 1))
    assert row(s) == ["~", "G/R", "B", "~", "G", "R"]


def test_example_07_shot_at_a_stack():
    s = position(["~", "G", "B/R", "~", "G", "R"], [SHOOT], targets={2})
    assert play(s, Play(SHOOT, 2)) == [0, 1, 0]
    assert row(s) == ["~", "G", "R", "~", "G", "R"]
    assert targets(s) == set()


@pytest.mark.parametrize("card", [SHOOT, QUICK_SHOT])
def test_example_08_bottoms_up_on_a_stack_top(card):
    hands = {B: [BOTTOMS_UP], G: [card]}
    s = position(["~", "G", "B/R", "~", "G", "R"], mover=B, hands=hands, targets={2})
    s.apply(Play(BOTTOMS_UP, 2))
    assert row(s)[2] == "B*1/R"
    assert s.current_player == G
    assert play(s, Play(card, 2)) == [1, 0, 0]  # the hidden R was exposed and hit
    assert row(s) == ["~", "G", "B*1", "~", "G", "R"]
    assert targets(s) == set()


def test_example_09_bottoms_up_on_a_single_duck():
    s = position(["R*2", "B", "G", "~", "~", "B"], [SHOOT, QUICK_SHOT], targets={0})
    assert Play(QUICK_SHOT, 0) not in legal(s)
    assert Play(QUICK_SHOT, 1) in legal(s)
    assert play(s, Play(SHOOT, 0)) == [0, 0, 0]
    assert row(s) == ["R*2", "B", "G", "~", "~", "B"]  # Green's card stays until Green's turn
    assert targets(s) == set()


def test_example_10_bottoms_up_expiry():
    hands = {B: [BOTTOMS_UP], G: [TAKE_AIM], R: [TAKE_AIM]}
    s = position(["R", "B", "G", "~", "~", "B"], mover=B, hands=hands, draw_pile=[SHOOT] * 3)
    s.apply(Play(BOTTOMS_UP, 1))
    before = s.discard[BOTTOMS_UP]
    for mover, slot in ((G, 3), (R, 4)):
        assert s.current_player == mover and row(s)[1] == "B*1"
        assert s.discard[BOTTOMS_UP] == before
        s.apply(Play(TAKE_AIM, slot))
    assert s.current_player == B
    assert row(s)[1] == "B"  # removed at the start of Blue's turn, before Blue plays
    assert s.discard[BOTTOMS_UP] == before + 1


def test_example_11_two_birds():
    s = position(["~", "G", "R", "B", "G", "~"], [TWO_BIRDS], targets={2, 3}, deck=["R", "~"])
    assert play(s, Play(TWO_BIRDS, 2, 3)) == [1, 1, 0]
    assert row(s) == ["~", "G", "G", "~", "R", "~"]
    assert targets(s) == set()
    s = position(["~", "G", "R", "B", "G", "~"], [TWO_BIRDS, LINE_FORWARD], targets={1, 3})
    assert legal(s) == {Play(LINE_FORWARD)}


def test_example_12_misfire():
    s = position(["R", "B", "G", "R", "~", "B"], [MISFIRE], targets={1}, deck=["~"])
    assert legal(s) == {Play(MISFIRE, 1, 0), Play(MISFIRE, 1, 2)}
    assert play(s, Play(MISFIRE, 1, 2)) == [0, 0, 1]
    assert row(s) == ["R", "B", "R", "~", "B", "~"]
    assert targets(s) == set()


def test_example_13_win():
    s = position(["R", "~", "~", "R", "B", "~"], [QUICK_SHOT], deck=["R"])
    assert s.ducks_in_play(G) == 0 and s.ducks_in_play(B) == 1
    s.apply(Play(QUICK_SHOT, 4))
    assert s.terminal and s.winners() == (R,)
    assert s.end_reason == "last_one_standing" and s.current_player == -1


def test_example_14_draw():
    s = position(["~", "~", "R", "B", "~", "~"], [TWO_BIRDS], mover=G, targets={2, 3}, deck=["~"])
    s.apply(Play(TWO_BIRDS, 2, 3))
    assert s.terminal and s.winners() == ()
    assert s.end_reason == "nobody_left"


def test_example_15_forced_discard():
    hand = [HANG_BACK, MOVE_AHEAD, FAST_FORWARD]
    s = position(["R", "B", "~", "R", "B", "~"], hand, mover=G, draw_pile=[SHOOT])
    assert legal(s) == {Discard(k) for k in hand}
    s.apply(Discard(MOVE_AHEAD))
    assert s.discard[MOVE_AHEAD] == 1
    assert sorted(s.hands[G]) == sorted([HANG_BACK, FAST_FORWARD, SHOOT])  # drew back to 3
    assert s.current_player == R
    s = position(["R", "B", "~", "R", "B", "~"], [HANG_BACK, TAKE_AIM, SHOOT], mover=G)
    assert legal(s) == {Play(TAKE_AIM, x) for x in range(6)}
    with pytest.raises(IllegalMoveError):
        s.apply(Discard(HANG_BACK))


def test_example_16_bump_limits():
    s = position(["R", "B", "G", "R", "B", "G"], [BUMP_LEFT, BUMP_RIGHT], targets={0})
    assert legal(s) == {Play(BUMP_RIGHT, 0, 1)}  # Bump Left cannot move the target on slot 0
    s = position(["R", "B", "G", "R", "B", "G"], [BUMP_RIGHT], targets={2, 3})
    assert legal(s) == {Play(BUMP_RIGHT, 3, 4)}  # not the target on 2: slot 3 is targeted


def test_example_17_double_barrel_fallback():
    s = position(["R", "B", "G", "R", "B", "G"], [DOUBLE_BARREL], targets={0, 2, 4})
    assert legal(s) == {Play(DOUBLE_BARREL, x) for x in (1, 3, 5)}
    s.apply(Play(DOUBLE_BARREL, 3))
    assert targets(s) == {0, 2, 3, 4}


def test_example_18_stack_returns():
    cfg = Config(points_games=1)
    s = position(["B/R", "G", "~", "R", "B", "~"], [LINE_FORWARD], cfg=cfg, deck=["G"])
    s.apply(Play(LINE_FORWARD))
    assert s.deck[:2] == [R, B]  # bottom first: R at the very bottom, B above it
    assert s.known_bottom_cards() == [R, B]
    assert row(s) == ["G", "~", "R", "B", "~", "G"]
    assert s.points == [1, 1, 0]


def test_example_19_first_player():
    for seed in range(2000):
        s = State(CFG, seed=seed)
        if row(s)[:3] == ["~", "~", "G"]:
            assert s.current_player == G
            return
    pytest.fail("no seed dealt a row starting ~ ~ G")


# ---------------------------------------------------------------------------------------------
# §11 rulings


def test_ruling_01_quick_shot_count_is_one_and_configurable():
    assert State(CFG, seed=0).card_totals[QUICK_SHOT] == 1
    cfg = Config(action_deck_counts={"quick_shot": 3})
    s = State(cfg, seed=0)
    assert s.card_totals[QUICK_SHOT] == 3 and sum(s.card_totals[:16]) == 54
    assert Config(action_deck_counts="quick_shot:2, shoot:11").action_deck_counts[:4] == (
        10,
        11,
        1,
        2,
    )


def test_ruling_02_original_52_card_edition():
    s = State(CFG, seed=1)
    assert sum(s.card_totals[:16]) == 52
    assert len(s.draw) == 52 - 9 and all(len(h) == 3 for h in s.hands)


def test_ruling_03_shots_at_water_or_covered_ducks_only_remove_the_target():
    start = ["~", "R*2", "B", "G", "~", "R"]
    s = position(start, [SHOOT], targets={0})
    assert play(s, Play(SHOOT, 0)) == [0, 0, 0] and targets(s) == set()
    s = position(start, [SHOOT], targets={1})
    assert play(s, Play(SHOOT, 1)) == [0, 0, 0] and targets(s) == set()
    assert row(s)[:2] == ["~", "R*2"]
    s = position(start, [MISFIRE], targets={1})
    assert play(s, Play(MISFIRE, 1, 0)) == [0, 0, 0] and targets(s) == set()
    s = position(start, [TWO_BIRDS], targets={0, 1})
    assert play(s, Play(TWO_BIRDS, 0, 1)) == [0, 0, 0] and targets(s) == set()
    # Quick Shot only at an exposed duck: never water, never a covered duck.
    s = position(start, [QUICK_SHOT])
    assert legal(s) == {Play(QUICK_SHOT, x) for x in (2, 3, 5)}


def test_ruling_04_misfire_uses_the_target_of_t_only():
    s = position(["R", "B", "G", "R", "~", "B"], [MISFIRE], targets={1, 2}, deck=["~"])
    assert legal(s) == {Play(MISFIRE, 1, 0), Play(MISFIRE, 1, 2), Play(MISFIRE, 2, 1)} | {
        Play(MISFIRE, 2, 3)
    }
    assert play(s, Play(MISFIRE, 1, 2)) == [0, 0, 1]
    assert targets(s) == {2}  # N's own target stays
    # N may be water or a covered duck: only T's target goes.
    s = position(["R", "B*2", "~", "R", "~", "B"], [MISFIRE], targets={0, 3})
    assert play(s, Play(MISFIRE, 0, 1)) == [0, 0, 0] and targets(s) == {3}
    assert play(
        position(["R", "B", "~", "R", "~", "B"], [MISFIRE], targets={3}), Play(MISFIRE, 3, 2)
    ) == [
        0,
        0,
        0,
    ]


def test_ruling_05_duck_and_cover_limits():
    # Not under water, not under a duck of its own colour, not under a stack or a covered duck.
    s = position(["~", "R", "R", "B/G", "~", "G*1"], [DUCK_AND_COVER, LINE_FORWARD])
    assert legal(s) == {Play(LINE_FORWARD)}
    s = position(["G*1", "R", "~", "~", "B", "~"], [DUCK_AND_COVER, LINE_FORWARD])
    assert legal(s) == {Play(LINE_FORWARD)}
    # A covered duck cannot hide, and a stack cannot hide again (never more than two deep).
    s = position(["R*1", "B", "G/R", "B", "~", "~"], [DUCK_AND_COVER, LINE_FORWARD])
    assert legal(s) == {Play(LINE_FORWARD)}
    s = position(["R", "B", "~", "~", "~", "~"], [DUCK_AND_COVER])
    assert legal(s) == {Play(DUCK_AND_COVER, 0, 1)}


def test_ruling_06_returned_stack_is_two_cards_top_drawn_first():
    # All five water cards in the row and the stack: the duck deck is empty.
    s = position(["B/R", "~", "~", "~", "~", "~"], [LINE_FORWARD], mover=G)
    assert s.deck == []
    s.apply(Play(LINE_FORWARD))
    # The returned pair is the whole deck: B (the top duck) comes back into the row first.
    assert row(s) == ["~", "~", "~", "~", "~", "B"] and s.deck == [R]
    assert s.known_bottom_cards() == [R]


def test_ruling_06_empty_duck_deck_leaves_a_gap():
    # With five water cards and at least two live ducks, row + deck always fill six slots: a gap
    # can only appear in the shot that ends the game (here the second bird).
    s = position(["~", "~", "R", "B", "~", "~"], [TWO_BIRDS], mover=G, targets={2, 3}, deck=["~"])
    s.apply(Play(TWO_BIRDS, 2, 3))
    assert row(s) == ["~", "~", "~", "~", "~", "_"]
    assert s.terminal and sum(s.census()["row"]) == 5


def gap_state(units, deck, hand, mover=R) -> State:
    """Gaps never occur in live play (see above), so this bypasses card conservation: a
    position is set, then its row and deck are overwritten to exercise the gap rules (§4)."""
    from cardzoo.envs.sitting_ducks.units import parse_card, parse_unit

    s = position(["R", "B", "G", "~", "~", "~"], hand, mover=mover)
    s.row = [parse_unit(u, 3, 1) for u in units]
    s.deck = [parse_card(c, 3) for c in deck][::-1]
    s._legal = None
    return s


def test_gap_behaves_as_water():
    s = gap_state(["_", "B", "R", "_", "G", "~"], [], [TAKE_AIM, QUICK_SHOT, HANG_BACK])
    ids = legal(s)
    assert Play(TAKE_AIM, 0) in ids and Play(TAKE_AIM, 3) in ids
    assert {m.slot for m in ids if m.card == QUICK_SHOT} == {1, 2, 4}
    assert Play(HANG_BACK, 2, 3) in ids  # swaps with a gap like with water
    s.apply(Play(HANG_BACK, 2, 3))
    assert row(s) == ["_", "B", "_", "R", "G", "~"]


def test_gap_disappears_on_line_forward_and_refills_lowest_first():
    s = gap_state(["_", "B", "_", "R", "_", "G"], [], [LINE_FORWARD])
    s.apply(Play(LINE_FORWARD))
    assert row(s) == ["B", "_", "R", "_", "G", "_"] and s.deck == []
    s = gap_state(["~", "B", "_", "R", "_", "G"], [], [LINE_FORWARD])
    s.apply(Play(LINE_FORWARD))
    # The water goes to the empty deck and refills slot 5; no card is left for the gaps.
    assert row(s) == ["B", "_", "R", "_", "G", "~"]
    s = gap_state(["B/R", "G", "_", "~", "R", "_"], [], [LINE_FORWARD])
    s.apply(Play(LINE_FORWARD))
    # Two cards return: B refills slot 5, then R fills the lowest gap (slot 1).
    assert row(s) == ["G", "R", "~", "R", "_", "B"] and s.deck == []


def test_gap_dropped_by_duck_shuffle():
    s = gap_state(["_", "B", "_", "R", "G", "~"], ["~", "~", "~", "~"], [DUCK_SHUFFLE])
    s.apply(Play(DUCK_SHUFFLE))
    assert "_" not in row(s) and len(s.deck) == 2


def test_ruling_07_a_stack_is_yours_if_either_duck_is():
    s = position(["~", "G/R", "B", "~", "~", "~"], [HANG_BACK])
    assert legal(s) == {Play(HANG_BACK, 1, 2)}
    s.apply(Play(HANG_BACK, 1, 2))
    assert row(s)[:3] == ["~", "B", "G/R"]  # the whole stack moved
    s = position(["~", "G/R", "B", "~", "~", "~"], [FAST_FORWARD], mover=G)
    s.apply(Play(FAST_FORWARD, 1))
    assert row(s)[:3] == ["G/R", "~", "B"]


def test_ruling_07_an_eliminated_player_owns_nothing():
    own_cards = [HANG_BACK, MOVE_AHEAD, DUCK_AND_COVER]
    s = position(["R", "B", "~", "B", "R", "~"], own_cards, mover=G)
    assert s.ducks_in_play(G) == 0
    assert legal(s) == {Discard(k) for k in own_cards}


def test_ruling_08_bottoms_up_leaves_with_its_duck():
    s = position(["R*1", "B", "G", "~", "~", "B"], [LINE_FORWARD], deck=["G"])
    s.apply(Play(LINE_FORWARD))
    assert s.discard[BOTTOMS_UP] == 1 and s.deck[0] == R
    assert BOTTOMS_UP not in [k for k in s.census()["table"] if k]
    s = position(["R*1", "B*2/G", "G", "~", "~", "B"], [DUCK_SHUFFLE])
    s.apply(Play(DUCK_SHUFFLE))
    assert s.discard[BOTTOMS_UP] == 2
    assert all("*" not in u for u in row(s))


def test_ruling_08_bottoms_up_never_on_water_nor_twice():
    s = position(["~", "R*1", "B/G", "~", "_", "G"], [BOTTOMS_UP])
    assert legal(s) == {Play(BOTTOMS_UP, 2), Play(BOTTOMS_UP, 5)}
    s.apply(Play(BOTTOMS_UP, 2))
    assert row(s)[2] == "B*0/G"


@pytest.mark.parametrize("n", [2, 4, 6])
def test_ruling_09_team_player_counts(n):
    s = State(Config(num_players=n, mode="team"), seed=3)
    assert s.num_players == n
    assert s.num_colours == (4 if n == 2 else n)


@pytest.mark.parametrize("n, mode", [(3, "team"), (5, "team"), (2, "standard"), (2, "hidden")])
def test_ruling_09_other_counts_rejected(n, mode):
    with pytest.raises(ValueError, match="num_players"):
        Config(num_players=n, mode=mode)


def test_ruling_10_nobody_left_is_a_draw():
    test_example_14_draw()


def test_ruling_11_first_player_in_hidden_mode_is_random():
    firsts = set()
    for seed in range(60):
        s = State(Config(mode="hidden"), seed=seed)
        rule = next(s.colour_owner[int(u) & 7] for u in s.row if int(u) & 7 < WATER)
        firsts.add((s.current_player, s.current_player == rule))
    assert {p for p, _ in firsts} == {0, 1, 2}
    assert {same for _, same in firsts} == {True, False}  # not the §3.5 rule


def test_ruling_12_turn_order_clockwise_and_eliminated_players_keep_turns():
    hands = {q: [TAKE_AIM, TAKE_AIM, TAKE_AIM] for q in range(3)}
    s = position(["R", "B", "~", "B", "R", "~"], mover=R, hands=hands, draw_pile=[SHOOT] * 3)
    assert s.ducks_in_play(G) == 0
    order = []
    for slot in range(3):
        order.append(s.current_player)
        s.apply(Play(TAKE_AIM, slot))
    assert order == [R, B, G] and s.current_player == R


def test_ruling_13_always_playable_cards():
    full = position(["R", "B", "G", "R", "B", "G"], [LINE_FORWARD], targets=range(6))
    assert legal(full) == {Play(LINE_FORWARD)}
    for card in (DISORDERLY_CONDUCKT, DUCK_SHUFFLE):
        s = position(["~", "~", "~", "~", "R", "B"], [card], mover=G, targets=range(6))
        assert len(legal(s)) == 1


def test_ruling_14_hang_back_and_move_ahead_swap_with_any_unit():
    s = position(["B", "R", "~", "_", "G/B", "R"], [MOVE_AHEAD, HANG_BACK])
    assert legal(s) == {
        Play(MOVE_AHEAD, 1, 0),
        Play(MOVE_AHEAD, 5, 4),
        Play(HANG_BACK, 1, 2),
    }
    s.apply(Play(MOVE_AHEAD, 5, 4))
    assert row(s)[4:] == ["R", "G/B"]


def test_ruling_15_fast_forward_not_on_slot_0():
    test_example_04_fast_forward()


# ---------------------------------------------------------------------------------------------
# §6 one test per card (beyond the worked examples above)


def test_card_take_aim_any_free_slot_water_included():
    s = position(["~", "R", "B", "G", "R", "~"], [TAKE_AIM], targets={1, 2})
    assert legal(s) == {Play(TAKE_AIM, x) for x in (0, 3, 4, 5)}
    s.apply(Play(TAKE_AIM, 0))
    assert targets(s) == {0, 1, 2}
    full = position(["~", "R", "B", "G", "R", "~"], [TAKE_AIM, SHOOT], targets=range(6))
    assert not any(m.card == TAKE_AIM for m in legal(full))


def test_card_shoot_needs_a_target():
    s = position(["~", "R", "B", "G", "R", "~"], [SHOOT, TAKE_AIM])
    assert not any(m.card == SHOOT for m in legal(s))
    s = position(["~", "R", "B", "G", "R", "~"], [SHOOT], targets={2, 4}, deck=["G"])
    assert legal(s) == {Play(SHOOT, 2), Play(SHOOT, 4)}
    assert play(s, Play(SHOOT, 4)) == [1, 0, 0]
    assert row(s) == ["~", "R", "B", "G", "~", "G"] and targets(s) == {2}


def test_card_double_barrel_targets_two_adjacent_free_slots():
    s = position(["~", "R", "B", "G", "R", "~"], [DOUBLE_BARREL], targets={2})
    assert legal(s) == {Play(DOUBLE_BARREL, x, x + 1) for x in (0, 3, 4)}
    s.apply(Play(DOUBLE_BARREL, 3, 4))
    assert targets(s) == {2, 3, 4}


def test_card_quick_shot_hits_an_untargeted_or_targeted_duck():
    s = position(["~", "R", "B", "G", "R", "~"], [QUICK_SHOT], targets={3}, deck=["B"])
    assert legal(s) == {Play(QUICK_SHOT, x) for x in (1, 2, 3, 4)}
    assert play(s, Play(QUICK_SHOT, 3)) == [0, 0, 1]
    assert row(s) == ["~", "R", "B", "R", "~", "B"] and targets(s) == set()
    s = position(["~", "R", "B", "G", "R", "~"], [QUICK_SHOT], targets={3}, deck=["B"])
    assert play(s, Play(QUICK_SHOT, 1)) == [1, 0, 0]
    assert targets(s) == {3}  # another slot's target is not used


def test_card_two_birds_on_a_stack_and_a_single_duck():
    s = position(["G/R", "B", "~", "R", "~", "G"], [TWO_BIRDS], mover=B, targets={0, 1})
    assert play(s, Play(TWO_BIRDS, 0, 1)) == [0, 1, 1]
    assert row(s)[:2] == ["R", "~"] and targets(s) == set()


def test_card_bump_left_and_right_move_one_target():
    s = position(["~", "R", "B", "G", "R", "~"], [BUMP_LEFT], targets={3, 5})
    assert legal(s) == {Play(BUMP_LEFT, 3, 2), Play(BUMP_LEFT, 5, 4)}
    s.apply(Play(BUMP_LEFT, 5, 4))
    assert targets(s) == {3, 4}
    s = position(["~", "R", "B", "G", "R", "~"], [BUMP_RIGHT], targets={3, 5})
    assert legal(s) == {Play(BUMP_RIGHT, 3, 4)}
    s.apply(Play(BUMP_RIGHT, 3, 4))
    assert targets(s) == {4, 5}


def test_card_bump_not_playable_without_targets():
    s = position(["~", "R", "B", "G", "R", "~"], [BUMP_LEFT, BUMP_RIGHT, SHOOT])
    assert legal(s) == {Discard(BUMP_LEFT), Discard(BUMP_RIGHT), Discard(SHOOT)}


def test_card_line_forward_water_to_the_deck():
    s = position(["~", "R", "B*2", "G", "R", "~"], [LINE_FORWARD], targets={2}, deck=["B"])
    s.apply(Play(LINE_FORWARD))
    assert row(s) == ["R", "B*2", "G", "R", "~", "B"]  # the cover travels with its duck
    assert targets(s) == {2} and s.deck[0] == WATER


def test_card_move_ahead_swaps_forward():
    s = position(["B", "~", "G", "R", "~", "G"], [MOVE_AHEAD])
    assert legal(s) == {Play(MOVE_AHEAD, 3, 2)}
    s.apply(Play(MOVE_AHEAD, 3, 2))
    assert row(s) == ["B", "~", "R", "G", "~", "G"]


def test_card_hang_back_not_from_slot_5():
    s = position(["B", "~", "G", "G", "~", "R"], [HANG_BACK, MOVE_AHEAD])
    assert legal(s) == {Play(MOVE_AHEAD, 5, 4)}


def test_card_fast_forward_moves_a_stack_with_its_cover():
    s = position(["B", "~", "G", "B*2/R", "~", "G"], [FAST_FORWARD], targets={0, 3})
    s.apply(Play(FAST_FORWARD, 3))
    assert row(s) == ["B*2/R", "B", "~", "G", "~", "G"] and targets(s) == {0, 3}


def test_card_disorderly_conduckt_order_in_steps():
    s = position(["R", "B/G", "~", "G*2", "B", "~"], [DISORDERLY_CONDUCKT], targets={0, 3})
    s.apply(Play(DISORDERLY_CONDUCKT))
    assert s.current_player == R and s.phase == 1
    assert legal(s) == {Place(x) for x in range(6)}
    for step, old in enumerate([5, 4, 3, 2, 1]):
        assert legal(s) == {Place(x) for x in range(6) if x not in [5, 4, 3, 2, 1][:step]}
        s.apply(Place(old))
    # The sixth unit took the last slot by itself; stacks and covers moved, targets stayed.
    assert row(s) == ["~", "B", "G*2", "~", "B/G", "R"]
    assert targets(s) == {0, 3} and s.current_player == B and s.turn == 1


def test_card_disorderly_conduckt_identity_allowed():
    s = position(["R", "B/G", "~", "G*2", "B", "~"], [DISORDERLY_CONDUCKT])
    s.apply(Play(DISORDERLY_CONDUCKT))
    for old in range(5):
        s.apply(Place(old))
    assert row(s) == ["R", "B/G", "~", "G*2", "B", "~"]


def test_card_duck_shuffle_splits_stacks_and_deals_six():
    s = position(["R", "B/G", "~", "G*2", "B", "~"], [DUCK_SHUFFLE], targets={1}, deck=["R"])
    s.known_bottom = 2
    before = sorted(
        s.deck + [c for u in s.row for c in (int(u) & 7, (int(u) >> 3 & 7) - 1) if c >= 0]
    )
    s.apply(Play(DUCK_SHUFFLE))
    after = sorted(s.deck + [int(u) & 7 for u in s.row])
    assert after == before
    assert all("/" not in u and "*" not in u for u in row(s))
    assert s.discard[BOTTOMS_UP] == 1 and s.known_bottom == 0 and targets(s) == {1}


def test_card_duck_and_cover_then_the_stack_moves_as_one():
    hands = {R: [DUCK_AND_COVER], B: [HANG_BACK]}
    s = position(["~", "G", "R", "B", "~", "G"], hands=hands, deck=["R"])
    s.apply(Play(DUCK_AND_COVER, 2, 3))
    assert row(s) == ["~", "G", "B/R", "~", "G", "R"]
    assert s.census()["row"][16 + R] == 2  # the hidden R is still in the row
    s.apply(Play(HANG_BACK, 2, 3))  # Blue moves the stack (its top duck is blue)
    assert row(s) == ["~", "G", "~", "B/R", "G", "R"]


def test_card_bottoms_up_on_any_duck():
    s = position(["~", "G", "R", "B/G", "~", "B"], [BOTTOMS_UP])
    assert legal(s) == {Play(BOTTOMS_UP, x) for x in (1, 2, 3, 5)}
    s.apply(Play(BOTTOMS_UP, 1))
    assert row(s)[1] == "G*0" and s.census()["table"][BOTTOMS_UP] == 1


# ---------------------------------------------------------------------------------------------
# Setup (§3), turn (§5), end (§7)


@pytest.mark.parametrize(
    "cfg, deck",
    [
        (Config(num_players=3), 20),
        (Config(num_players=4), 25),
        (Config(num_players=6), 35),
        (Config(num_players=2, mode="team"), 25),
        (Config(num_players=4, mode="hidden"), 25),
    ],
)
def test_setup(cfg, deck):
    for seed in range(20):
        s = State(cfg, seed=seed)
        assert len(s.deck) + 6 == deck
        assert s.targets == 0 and s.shot == [1] * s.num_colours
        assert all(len(h) == 3 for h in s.hands) and len(s.draw) == 52 - 3 * cfg.num_players
        assert s.discard == [0] * 16 and s.turn == 0 and s.move_count == 0
        if cfg.mode != "hidden":
            first_duck = next(int(u) & 7 for u in s.row if int(u) & 7 < WATER)
            assert s.current_player == s.colour_owner[first_duck]


def test_shooting_your_own_last_duck_makes_the_other_player_win():
    s = position(["R", "~", "B", "~", "~", "~"], [QUICK_SHOT], deck=["B"])
    assert s.ducks_in_play(R) == 1 and s.ducks_in_play(G) == 0
    s.apply(Play(QUICK_SHOT, 0))
    assert s.terminal and s.winners() == (B,)


def test_the_game_goes_on_while_two_players_have_ducks():
    s = position(["R", "~", "B", "G", "~", "~"], [QUICK_SHOT])
    s.apply(Play(QUICK_SHOT, 3))
    assert not s.terminal and s.current_player == B


def test_action_deck_reshuffles_the_discard_pile():
    cfg = Config()
    hands = {0: [SHOOT], 1: [SHOOT] * 3, 2: [SHOOT] * 3}
    rest = [TAKE_AIM] * 10 + [SHOOT] * 5
    s = State.from_position(
        cfg, row=["R", "B", "G", "~", "~", "~"], hands=hands, discard=rest, targets={0}
    )
    # Every other card lies in the draw pile: empty it first by checking the counts.
    assert len(s.draw) == 52 - 7 - 15
    s.draw = []  # a position whose draw pile ran out (the other cards move to the discard pile)
    for kind in range(16):
        s.discard[kind] = cfg.action_deck_counts[kind] - sum(h.count(kind) for h in s.hands)
    pile = s.discard[:]
    s.apply(Play(SHOOT, 0))
    pile[SHOOT] += 1
    assert sum(s.discard) == 0 and len(s.draw) == sum(pile) - 1
    assert sorted(s.draw + [s.hands[0][-1]]) == sorted(k for k in range(16) for _ in range(pile[k]))


def test_no_draw_when_both_piles_are_empty():
    cfg = Config(action_deck_counts={k: 0 for k in range(16)} | {"bottoms_up": 12})
    hands = {0: [BOTTOMS_UP] * 4, 1: [BOTTOMS_UP] * 4, 2: [BOTTOMS_UP] * 4}
    s = State.from_position(cfg, row=["R", "B", "G", "~", "~", "~"], hands=hands)
    assert s.draw == [] and sum(s.discard) == 0
    s.apply(Play(BOTTOMS_UP, 0))
    assert len(s.hands[0]) == 3 and s.current_player == 1


def test_move_count_and_turn():
    s = position(["R", "B/G", "~", "G*2", "B", "~"], [DISORDERLY_CONDUCKT])
    s.apply(Play(DISORDERLY_CONDUCKT))
    s.apply(Place(2))
    assert (s.turn, s.move_count) == (0, 2)
    for old in (0, 1, 3, 4):
        s.apply(Place(old))
    assert (s.turn, s.move_count) == (1, 6)


def test_illegal_moves_raise_and_change_nothing():
    s = position(["R", "B", "~", "G", "R", "~"], [SHOOT, TAKE_AIM], targets={1})
    before = snapshot(s)
    for bad in (Play(SHOOT, 0), Play(QUICK_SHOT, 1), Discard(SHOOT), Place(0), 109, -1, 110, "x"):
        with pytest.raises(IllegalMoveError):
            s.apply(bad)
        assert snapshot(s) == before


def test_move_universe():
    assert len(MOVES) == 110 and len(set(map(str, MOVES))) == 110
    assert all(MOVE_INDEX[m] == i for i, m in enumerate(MOVES))
    assert MOVES[DISCARD_BASE] == Discard(TAKE_AIM)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"mode": "secret"}, "mode"),
        ({"num_players": 7}, "num_players"),
        ({"points_games": -1}, "points_games"),
        ({"mode": "hidden", "points_games": 2}, "points_games"),
        ({"action_deck_counts": {"joker": 2}}, "joker"),
        ({"action_deck_counts": (1,) * 15}, "16 counts"),
        ({"action_deck_counts": {"shoot": -1}}, "shoot"),
        ({"action_deck_counts": (0,) * 16}, "total"),
        ({"observe_duck_deck_bottom": 1}, "observe_duck_deck_bottom"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_bad_config(options, words):
    with pytest.raises(ValueError, match=words):
        Config(**options)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"row": ["R", "B", "G", "~", "~"]}, "6 units"),
        ({"row": ["R", "B", "X", "~", "~", "~"]}, "unknown duck-deck card"),
        ({"row": ["R/R", "B", "G", "~", "~", "~"]}, "own colour"),
        ({"row": ["~/R", "B", "G", "~", "~", "~"]}, "never water"),
        ({"row": ["~*1", "B", "G", "~", "~", "~"]}, "never lies on water"),
        ({"row": ["R", "B", "G", "~", "~", "~"], "deck": ["R"] * 5}, "a colour has 5"),
        ({"row": ["R", "B", "G", "~", "~", "~"], "hands": {0: ["bottoms_up"] * 4}}, "Bottoms"),
        ({"row": ["R", "B", "G", "~", "~", "~"], "targets": [6]}, "targets"),
        ({"row": ["R", "B", "G", "~", "~", "~"], "current_player": 3}, "seat"),
    ],
)
def test_bad_positions(kwargs, words):
    with pytest.raises(ValueError, match=words):
        State.from_position(CFG, **kwargs)
