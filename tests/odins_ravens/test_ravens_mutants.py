"""Contract points of the Odin's Ravens engine that mutation testing found unchecked.

Each test names the point it checks: what ``State.from_position``'s docstring and signature promise
for hand-set positions (what it builds, and the clear error for each bad argument), and the
engine contract of ``envs/core.py``. They were written against the mutants that survived
``make mutation`` (see ``docs/mutation.md`` and ``docs/mutation_odins_ravens_survivors.md``): a
test here fails when the point it names is broken. Only the public API is used (``State``,
``Config``, the moves, ``view``, ``census``, ``determinize``), so the tests do not depend on how the
engine's modules are laid out.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import (
    Config,
    EndTurn,
    Extend,
    Fly,
    MagicWay,
    Odin,
    Orient,
    Reorder,
    State,
    Target,
)

LETTERS = "FMPSW"  # the land types of docs/rules/odins_ravens.md, in the engine's order
CARD_NAMES = (*LETTERS, "O1", "O2", "O3", "O4")  # the kinds of a player's card
P0, P1 = "FMPSW", "MPSWF"  # a row of five mixed land cards (F/M, M/P, P/S, S/W, W/F)


def types(letters: str) -> list[int]:
    return [LETTERS.index(c) for c in letters]


def position(**kw) -> State:
    kw.setdefault("paths", (P0, P1))
    return State.from_position(**kw)


def census_adds_up(s: State) -> bool:
    return [sum(col) for col in zip(*s.census().values())] == list(s.card_totals)


def error(**kw) -> str:
    """The message of the ``ValueError`` a bad hand-set position raises."""
    with pytest.raises(ValueError) as info:
        position(**kw)
    return str(info.value)


# ---------------------------------------------------------------------------------------------
# What a hand-set position builds


def test_hand_set_position_starts_a_race_as_a_dealt_game_starts_one():
    """Everything a turn or race has not touched yet reads as at the start of a dealt game."""
    fresh = State(Config(), seed=5).view(1)
    s = position(current_player=1, hands=(["F"], ["M", "P"]))
    v = s.view(1)
    for field in (
        "phase",
        "target_op",
        "swap_first",
        "pending_land",
        "orient_for",
        "rearranged",
        "stone",
        "used_hand",
        "used_aux",
        "o2b_used",
        "race_turn",
        "turn",
        "last_race",
        "reshuffled",
        "terminal",
        "winners",
    ):
        assert getattr(v, field) == getattr(fresh, field), field
    assert v.current_player == v.race_first == s.first_player == 1
    assert s.num_players == 2 and s.move_count == 0
    assert s.terminal is False and s.end_reason is None and s.winners() == ()
    assert not s.truncated


def test_hand_set_position_records_the_given_winner_of_the_last_race_only():
    v = position(last_race_winner=1, totals=(3, 0), race=2).view(0)
    assert v.last_race == (1, 0, -1)  # winner 1; no points or Magic Way bonus are recorded
    assert v.totals == (3, 0) and v.race == 2


def test_move_count_counts_the_moves_from_a_hand_set_position():
    s = position(hands=(["F"], []))
    s.apply(EndTurn())
    assert s.move_count == 1


def test_hand_set_position_census_adds_up_with_the_default_land_deck():
    """The land cards not in the row make up the land deck; the five Magic Way cards other than
    the active one lie face down."""
    s = position(magic_way=2)
    assert census_adds_up(s)
    census = s.census()
    assert sum(census["track"]) == 5 and sum(census["land_deck"]) == 35
    face_down = census["magic_way_face_down"]
    active = census["magic_way_active"]
    assert sum(active) == 1 and sum(face_down) == 5
    assert all(a + f == 1 for a, f in zip(active, face_down) if a + f)


def test_default_magic_way_card_is_the_first_of_the_config():
    cfg = Config()
    assert position().view(0).magic_way == cfg.magic_way_cards[0]
    assert position(magic_way=5).view(0).magic_way == cfg.magic_way_cards[5]


def test_hand_set_position_deals_reproducibly_from_its_seed_which_defaults_to_0():
    assert position(seed=3).render() == position(seed=3).render()
    assert position().render() == position(seed=0).render()
    assert position(seed=0).render() != position(seed=1).render()


def test_draw_piles_are_given_top_first():
    """The refill after the turn takes the given draw pile's first cards."""
    s = position(hands=(["F", "M"], []), draw_piles=(["W", "W", "W", "O1"], ["F"] * 5))
    s.apply(EndTurn())
    s.apply(Extend(False))
    assert s.view(0).hand == (1, 1, 0, 0, 3, 0, 0, 0, 0)


def test_hand_and_aux_cards_count_as_drawn_since_the_reshuffle():
    s = position(hands=(["F", "M", "O2"], ["S"]), aux=(["W", "P"], []))
    assert s.view(0).drawn_since == (5, 1)


def test_opponents_aux_cards_stay_hidden_cards_in_a_determinized_world():
    """Seat 1 sees that seat 0 holds 3 hand and 2 aux cards; a world sampled for seat 1 keeps
    those sizes and every card of the census."""
    s = position(hands=(["F", "M", "O2"], ["S"]), aux=(["W", "P"], []))
    seen = s.view(1)
    for seed in range(3):
        world = s.determinize(1, seed)
        assert census_adds_up(world)
        w = world.view(1)
        assert (w.hand_sizes, w.aux_sizes, w.draw_sizes) == (
            seen.hand_sizes,
            seen.aux_sizes,
            seen.draw_sizes,
        )


def test_census_zones_hold_what_they_are_named_for():
    """Census kinds: ``9*seat + kind`` for a seat's cards, ``18 + pair kind`` for land cards,
    ``33 + card`` for the Magic Way cards (``State.census``'s docstring)."""

    def cards(zone: list[int]) -> dict[int, int]:
        return {i: n for i, n in enumerate(zone) if n}

    pairs = [(a, b) for a in range(5) for b in range(a, 5)]
    row = [
        18 + pairs.index((min(a, b), max(a, b))) for a, b in zip((0, 1, 2, 3, 4), (1, 2, 3, 4, 0))
    ]
    s = position(
        hands=(["F", "O1"], ["S"]),
        aux=(["W"], []),
        draw_piles=(["M", "M"], ["P"]),
        magic_way_rows=(["O2"], []),
        magic_way=2,
    )
    c = s.census()
    assert cards(c["hand0"]) == {0: 1, 5: 1} and cards(c["hand1"]) == {9 + 3: 1}
    assert cards(c["aux0"]) == {4: 1} and cards(c["aux1"]) == {}
    assert cards(c["draw0"]) == {1: 2} and cards(c["draw1"]) == {9 + 2: 1}
    assert cards(c["magic_way0"]) == {6: 1} and cards(c["magic_way1"]) == {}
    deck = [5, 5, 5, 5, 5, 2, 2, 2, 2]  # the default make-up of a seat's deck
    assert cards(c["discard0"]) == cards([n - u for n, u in zip(deck, [1, 2, 0, 0, 1, 1, 1, 0, 0])])
    assert sum(c["discard1"][9:18]) == sum(deck) - 2
    assert cards(c["track"]) == {k: row.count(k) for k in row}
    assert sum(c["land_deck"]) == 35 and cards(c["land_in_hand"]) == {}
    assert cards(c["magic_way_active"]) == {33 + 2: 1}
    assert cards(c["magic_way_face_down"]) == {33 + i: 1 for i in (0, 1, 3, 4, 5)}
    # the extension draws the top land card: it is in hand until it is oriented
    s.apply(EndTurn())
    s.apply(Extend(True))
    after = s.census()
    drawn = [b - a for b, a in zip(c["land_deck"], after["land_deck"])]
    assert sum(drawn) == 1 and after["land_in_hand"] == drawn
    assert census_adds_up(s)


def test_a_second_o2_a_in_a_turn_rearranges_the_whole_auxiliary_deck_again():
    """O2-A: the player puts the auxiliary deck in any order, one choice per card below the
    top; a second O2-A in the same turn starts again from the top."""
    s = position(hands=(["O2", "O2"], []), aux=(["F", "M", "P"], []))
    for order in ((2, 0, 1), (1, 2, 0)):  # P F M, then M P F (kinds, top first)
        s.apply(Odin(1, 0, False))
        for kind in order[:2]:
            s.apply(Reorder(kind))
        v = s.view(0)
        assert v.aux == order and v.rearranged == 0
        assert EndTurn() in s.legal_moves()  # back in the play phase


def test_the_stone_fills_only_its_own_space():
    """§1: a space is empty without a raven or the stone on it; the stone on card 2 of seat
    0's path leaves card 2's other space and the rest of that path empty, so O4-A may put it
    there."""
    s = position(stone=(2, 0), hands=(["O4"], []))
    assert not s.space_is_empty(2, 0)
    assert s.space_is_empty(2, 1) and s.space_is_empty(3, 0) and s.space_is_empty(0, 0)
    s.apply(Odin(3, 0, False))  # O4-A: put the stone on an empty space
    targets = {(m.card, m.own_path) for m in s.legal_moves()}
    assert {(3, True), (2, False), (0, True)} <= targets and (2, True) not in targets


def test_no_target_decision_is_pending_once_o3_a_is_done():
    s = position(hands=(["O3"], []))
    s.apply(Odin(2, 0, False))  # O3-A: rotate an empty card
    assert s.view(0).target_op != -1
    s.apply(Target(1))
    v = s.view(0)
    assert v.target_op == -1 and v.paths[0][1] == 2 and v.paths[1][1] == 1


def test_no_card_choice_is_pending_once_o4_b_has_swapped():
    s = position(hands=(["O4"], []))
    s.apply(Odin(3, 1, False))  # O4-B: swap two empty cards
    s.apply(Target(0))
    assert s.view(0).swap_first == 0
    s.apply(Target(3))
    v = s.view(0)
    assert v.swap_first == -1 and v.target_op == -1
    assert v.paths == (tuple(types("SMPFW")), tuple(types("WPSMF")))


# ---------------------------------------------------------------------------------------------
# Cards and land types: names, letters, numbers


def test_card_kinds_may_be_given_as_numbers_0_to_8():
    s = position(hands=([0, np.int64(8), "o4", " f "], []))
    assert s.view(0).hand == (2, 0, 0, 0, 0, 0, 0, 0, 2)


def test_land_types_may_be_given_as_numbers_or_words_read_by_their_first_letter():
    words = ("forest", "Mountain", " plains", "SNOW", "water ")
    s = position(paths=(words, [1, 2, 3, 4, 0]))
    assert s.view(0).paths == ((0, 1, 2, 3, 4), (1, 2, 3, 4, 0))


@pytest.mark.parametrize("card", [9, -1, True, False, 0.5, 1.0, None])
def test_card_kind_out_of_range_is_refused_by_name(card):
    msg = error(hands=([card], []))
    assert msg == f"card kind must be 0..8 or a name, got {card!r}"


def test_unknown_card_name_error_lists_the_card_names():
    assert error(hands=(["O5"], [])) == f"unknown card 'O5'; cards: {', '.join(CARD_NAMES)}"


@pytest.mark.parametrize("land", [5, -1, True, 0.5, None])
def test_land_type_out_of_range_is_refused_by_name(land):
    msg = error(paths=([land, 1, 2, 3, 4], [1, 2, 3, 4, 0]))
    assert msg == f"land type must be 0..4 or a letter, got {land!r}"


def test_unknown_land_letter_error_lists_the_land_types():
    msg = error(paths=("FMPSX", P1))
    assert msg == f"unknown land type 'X'; land types: {', '.join(LETTERS)}"


# ---------------------------------------------------------------------------------------------
# Bad hand-set positions: a ValueError naming the argument and what is allowed


@pytest.mark.parametrize("paths", [("FMP", "MP"), ("", "")])
def test_paths_must_have_the_same_non_zero_length(paths):
    assert error(paths=paths) == "paths: two lists of the same, non-zero length"


def test_paths_may_use_only_the_land_cards_of_the_make_up():
    # F/F is a double: the default make-up has two of them
    assert error(paths=("FFF", "FFF")) == "paths: the row uses land cards the make-up does not have"


def test_land_deck_must_complete_the_forty_land_cards():
    msg = "land_deck: row + land deck must be exactly the 40 land cards"
    assert error(land_deck=[("F", "M")]) == msg


@pytest.mark.parametrize("pos", [(-2, -1), (-1, 5), (7, 0), (4, 0), (0, 4)])
def test_raven_positions_must_be_on_the_row_or_before_it_but_not_on_its_last_card(pos):
    """§7: a raven on the last card has ended the race, so a turn cannot start that way."""
    msg = "pos: raven positions must be -1..3 (a raven on the last card, 4, has ended the race)"
    assert error(pos=pos) == f"{msg}, got {pos}"


def test_ravens_may_stand_anywhere_from_before_the_row_to_the_card_before_its_last():
    assert position(pos=(-1, 3)).view(0).pos == (-1, 3)
    assert position(pos=(3, -1)).view(1).pos == (3, -1)


@pytest.mark.parametrize("stone", [(5, 0), (-1, 0), (0, 2), (2, 0)])
def test_stone_must_lie_on_an_empty_space_of_the_row(stone):
    # seat 0's raven stands on card 2: its space there is not empty
    msg = error(pos=(2, -1), stone=stone)
    assert msg == f"stone: (card, path) on an empty space of the row, got {stone}"


def test_stone_may_lie_on_the_last_card_or_on_a_card_a_raven_holds_on_the_other_path():
    assert position(pos=(2, -1), stone=(4, 1)).view(0).stone == (4, 1)
    assert position(pos=(2, -1), stone=(2, 1)).view(0).stone == (2, 1)


@pytest.mark.parametrize("magic_way", [6, -1])
def test_magic_way_must_be_a_card_index_0_to_5(magic_way):
    assert error(magic_way=magic_way) == f"magic_way: a card index 0..5, got {magic_way}"


@pytest.mark.parametrize(
    ("argument", "cards"),
    [
        ("hands", {"hands": (["F"] * 6, [])}),
        ("aux", {"aux": ([], ["O1"] * 3)}),
        ("magic_way_rows", {"magic_way_rows": (["W"] * 6, [])}),
        ("draw_piles", {"draw_piles": ([], ["O4"] * 3)}),
    ],
)
def test_more_cards_than_a_seats_deck_holds_are_refused_naming_the_argument(argument, cards):
    seat = 0 if cards[argument][0] else 1
    kind = (cards[argument][0] or cards[argument][1])[0]
    assert error(**cards) == f"{argument}: seat {seat} has no more {kind} cards"


def test_cards_of_one_seat_are_counted_across_its_zones():
    # five F cards per seat: three in hand and two in the aux deck use them up
    assert re.fullmatch(
        "magic_way_rows: seat 0 has no more F cards",
        error(hands=(["F"] * 3, []), aux=(["F"] * 2, []), magic_way_rows=(["F"], [])),
    )


# ---------------------------------------------------------------------------------------------
# Scores and renders


def test_scores_are_the_totals_when_the_winner_leads_on_totals():
    """The half point only breaks a tie on totals (§8); a clear winner scores its total."""
    s = position(pos=(3, -1), hands=(["W"], []), totals=(10, 0))
    s.apply(Fly(0))  # onto the last card: 5 points, the game is over
    assert s.terminal and s.winners() == (0,)
    assert s.scores() == (15.0, 0.0)


def test_renders_name_the_odin_symbol_of_the_magic_way_card():
    s = position(magic_way=0)  # the Magic Way card Mountain + Odin
    assert "M+Odin" in s.render() and "M+Odin" in s.render_for(1)


# ---------------------------------------------------------------------------------------------
# Bad rule options: a ValueError naming the option, the value and what is allowed


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 3}, "invalid value 3 for option 'num_players'; allowed: the int 2"),
        (
            {"land_cards": [(0, 1)] * 39 + [(0, 5)]},
            "option 'land_cards': (0, 5) has a value outside 0..4",
        ),
        (
            {"land_cards": [(0, 1)] * 39 + [(0, 2.5)]},
            "option 'land_cards': (0, 2.5) is not a pair of ints",
        ),
        (
            {"land_cards": [(0, 1)] * 39 + [(True, 1)]},
            "option 'land_cards': (True, 1) is not a pair of ints",
        ),
        (
            {"magic_way_cards": [(0, 1)] * 5 + [(0, 6)]},
            "option 'magic_way_cards': (0, 6) has a value outside 0..5",
        ),
        (
            {"magic_way_cards": [(0, 1)] * 5 + [(3, 3)]},
            "option 'magic_way_cards': (3, 3) shows the same symbol twice",
        ),
        ({"land_cards": 7}, "option 'land_cards' must be a list of 40 pairs of ints"),
        (
            {"land_cards": [(0, 1)] * 39},
            f"option 'land_cards' must be a list of 40 pairs, got {[(0, 1)] * 39!r}",
        ),
        (
            {"flight_cards_per_type": 13},
            "invalid value 13 for option 'flight_cards_per_type'; allowed: an int in 1..12",
        ),
        (
            {"flight_cards_per_type": 0},
            "invalid value 0 for option 'flight_cards_per_type'; allowed: an int in 1..12",
        ),
        (
            {"odin_copies_per_type": 7},
            "invalid value 7 for option 'odin_copies_per_type'; allowed: an int in 0..6",
        ),
        (
            {"odin_copies_per_type": -1},
            "invalid value -1 for option 'odin_copies_per_type'; allowed: an int in 0..6",
        ),
        (
            {"joker_requires_no_match": 1},
            "invalid value 1 for option 'joker_requires_no_match'; allowed: False, True",
        ),
        (
            {"max_turns_per_race": 0},
            "invalid value 0 for option 'max_turns_per_race'; allowed: an int >= 1",
        ),
        ({"max_turns": 0}, "invalid value 0 for option 'max_turns'; allowed: an int >= 1"),
        (
            {"first_player": 2},
            "invalid value 2 for option 'first_player'; allowed: 'random', 0, 1",
        ),
    ],
    ids=[
        "players",
        "land-range",
        "land-float",
        "land-bool",
        "magic-range",
        "magic-double",
        "land-not-a-list",
        "land-39",
        "flight-13",
        "flight-0",
        "odin-7",
        "odin-minus-1",
        "joker-1",
        "race-cap-0",
        "game-cap-0",
        "first-player-2",
    ],
)
def test_bad_options_are_refused_with_the_option_the_value_and_what_is_allowed(options, message):
    with pytest.raises(ValueError) as info:
        Config(**options)
    assert str(info.value) == message


def test_land_cards_may_repeat_a_land_type_on_one_card():
    """Doubles are land cards (§2): the make-up may hold them, unlike a Magic Way card."""
    cfg = Config(land_cards=[(2, 2)] * 40)
    assert cfg.land_cards == ((2, 2),) * 40


@pytest.mark.parametrize(("flight", "odin"), [(1, 0), (12, 6)])
def test_deck_make_up_options_take_their_bounds(flight, odin):
    cfg = Config(flight_cards_per_type=flight, odin_copies_per_type=odin)
    assert cfg.deck == [flight] * 5 + [odin] * 4
    assert State(cfg, seed=0).card_totals[:9] == cfg.deck


# ---------------------------------------------------------------------------------------------
# Odin options are offered only with a target (rules decision 16), short rows included


def odin_options(s: State) -> set[tuple[int, int]]:
    """The (Odin type 0..3, option 0 = A / 1 = B) pairs the player to act is offered."""
    return {(m.odin, m.option) for m in s.legal_moves() if isinstance(m, Odin)}


def test_o3_needs_an_empty_card_and_o3_b_a_row_of_two():
    """O3-A rotates and O3-B removes an empty card (§6 item 3; B is illegal when L = 1). A
    two-card row with a raven on card 0 has one empty card: both options, aimed at card 1; with
    the stone on card 1 as well, neither."""
    s = position(paths=("FM", "MP"), pos=(0, -1), hands=(["O3"], []))
    assert {(2, 0), (2, 1)} <= odin_options(s)
    s.apply(Odin(2, 1, False))
    assert s.legal_moves() == [Target(1)]
    s = position(paths=("FM", "MP"), pos=(0, -1), stone=(1, 1), hands=(["O3"], []))
    assert not {(2, 0), (2, 1)} & odin_options(s)


def test_o1_b_is_blocked_only_by_the_stone_on_the_card_ahead_on_the_movers_path():
    """O1-B moves the player's raven 1 space forward; it may not enter the stone's space, and
    only that space blocks it."""
    assert (0, 1) not in odin_options(position(pos=(0, 2), stone=(1, 0), hands=(["O1"], [])))
    for stone in ((1, 1), (3, 0)):  # ahead on the other path; further on my own path
        assert (0, 1) in odin_options(position(pos=(0, 2), stone=stone, hands=(["O1"], []))), stone


# ---------------------------------------------------------------------------------------------
# Attaching land cards (O2-B and the extension)


def test_the_drawn_land_card_shows_what_it_is_attached_for():
    """While a drawn land card waits to be oriented, the status line names why it was drawn."""
    s = position(hands=(["O2"], []))
    s.apply(Odin(1, 1, False))  # O2-B
    assert "(O2-B: land card" in s.render()
    s = position(hands=([], []))
    s.apply(EndTurn())
    s.apply(Extend(True))
    assert "(extension: land card" in s.render()


def test_orienting_a_land_card_puts_the_chosen_land_type_on_my_path():
    """Orient(high_mine): the card's higher-numbered land type goes on the mover's path and the
    other on the opponent's, or the other way round."""
    tried = 0
    for seed in range(40):
        for high_mine in (True, False):
            s = position(hands=([], []), current_player=1, seed=seed)
            s.apply(EndTurn())
            s.apply(Extend(True))
            low, high = sorted(divmod(s.view(1).pending_land, 5))
            if low == high:  # a double looks the same either way round
                break
            s.apply(Orient(high_mine))
            mine, theirs = (high, low) if high_mine else (low, high)
            paths = s.view(1).paths
            assert (paths[1][-1], paths[0][-1]) == (mine, theirs), (seed, high_mine)
            tried += 1
    assert tried >= 20


def test_once_a_land_card_is_attached_nothing_reads_as_pending():
    """After the extension's card (the turn then passes) and after both O2-B cards (back to
    the play phase), the view's land-card fields read as in a fresh game: no card in hand and
    no reason to orient one."""
    fresh = State(Config(), seed=5).view(0)
    s = position(hands=([], []))
    s.apply(EndTurn())
    s.apply(Extend(True))
    s.apply(s.legal_moves()[0])
    v = s.view(0)
    assert v.current_player == 1
    assert (v.pending_land, v.orient_for) == (fresh.pending_land, fresh.orient_for)
    s = position(hands=(["O2"], []))
    s.apply(Odin(1, 1, False))
    for _ in range(2):
        assert s.view(0).pending_land >= 0
        s.apply(s.legal_moves()[0])
    v = s.view(0)
    assert EndTurn() in s.legal_moves()
    assert (v.pending_land, v.orient_for) == (fresh.pending_land, fresh.orient_for)


def test_two_removed_cards_are_both_known_at_the_bottom_of_the_land_deck():
    """O3-B puts the removed card face down under the land deck, where both players know it:
    after two removals both cards are known."""
    s = position(hands=(["O3", "O3"], []))
    row = list(zip(*s.view(0).paths))
    removed = []
    for _ in range(2):
        s.apply(Odin(2, 1, False))
        removed.append(row.pop(1))
        s.apply(Target(1))
    codes = sorted(a * 5 + b for a, b in removed)
    assert sorted(s.view(0).land_known) == codes == sorted(s.view(1).land_known)


# ---------------------------------------------------------------------------------------------
# Flights across a group, and the Magic Way from the auxiliary deck


def test_a_group_flight_stops_only_for_the_stone_on_the_flyers_own_path():
    """§5: a raven flies across a group of equal land spaces to its end; only the stone on its
    own path stops it (the stone on the other path's space of the same card does not)."""
    from ravens_helpers import position as letters_position

    for stone in (None, (1, 1), (3, 0)):
        s = letters_position("MMSPFWPSF", pos=(-1, -1), stone=stone, hands=[["M"], []])
        s.apply(Fly(0))
        assert s.view(0).pos[0] == 1, stone
    s = letters_position("MMSPFWPSF", pos=(-1, -1), stone=(1, 0), hands=[["M"], []])
    s.apply(Fly(0))
    assert s.view(0).pos[0] == 0


def test_the_auxiliary_top_card_may_go_to_the_magic_way_whatever_its_kind():
    """§5 item 4: a card matching the active Magic Way card may be played into the row from
    the top of the auxiliary deck, the first land type (F) included."""
    from ravens_helpers import position as letters_position

    for kind, card in (("F", 3), ("M", 0), ("P", 3)):  # card 3: Plains + Forest; 0: Odin + M
        s = letters_position("FPSMWFPSW", aux=[[kind], []], magic_way=card)
        assert MagicWay(None) in s.legal_moves(), kind
    s = letters_position("FPSMWFPSW", aux=[["F"], []], magic_way=0)
    assert MagicWay(None) not in s.legal_moves()


# ---------------------------------------------------------------------------------------------
# A dealt game


def test_a_dealt_game_has_made_no_move_yet_and_counts_each_move():
    s = State(Config(), seed=3)
    assert s.move_count == 0
    s.apply_id(s.legal_move_ids()[0])
    assert s.move_count == 1


def test_a_config_of_another_kind_is_refused_naming_its_type():
    with pytest.raises(TypeError, match="config must be an odins_ravens Config, got dict"):
        State({"num_players": 2})


def test_dealt_land_cards_lie_either_way_round_equally_often():
    """§3: each dealt land card arrives in a random orientation (a fair coin; the clash rule
    treats both paths alike), so over many deals the lower land type of a card lies on seat 0's
    path about half the time (measured 0.499 over 10,690 cards; sd about 0.005)."""
    low_on_0 = cards = 0
    for seed in range(1500):
        paths = State(Config(), seed=seed).view(0).paths
        for a, b in zip(*paths):
            if a != b:
                cards += 1
                low_on_0 += a < b
    assert cards > 10_000
    assert 0.47 < low_on_0 / cards < 0.53


def test_every_land_card_rejected_while_dealing_is_known_at_the_bottom():
    """§3: a card that would clash goes face up to the bottom of the land deck, so both players
    know it: a deal that rejects several cards starts with several known bottom cards (measured
    over seeds 0-1499: 600 deals of 1500 start with 2 or more)."""
    counts = [len(State(Config(), seed=seed).view(0).land_known) for seed in range(500)]
    assert max(counts) >= 4
    assert sum(c >= 2 for c in counts) >= 100
    for seed in range(20):  # and they are the bottom of the land deck, in drawing order
        s = State(Config(), seed=seed)
        known = s.view(1).land_known
        assert len(known) == s.land_known


IDLE = ("phase", "target_op", "swap_first", "pending_land", "orient_for", "rearranged")
IDLE_VALUES = (0, -1, -1, -1, -1, 0)  # the play phase; nothing chosen, drawn or rearranged yet
SPENT = ("used_hand", "used_aux", "o2b_used")


def test_no_decision_is_pending_and_nothing_is_spent_when_a_turn_starts():
    """Every turn starts in the play phase with no pending choice and nothing used yet, also
    after a turn that used cards, an O2-B and an O4-B swap."""
    s = State(Config(), seed=2)
    first = s.current_player
    v = s.view(first)
    assert tuple(getattr(v, f) for f in IDLE) == IDLE_VALUES
    assert tuple(getattr(v, f) for f in SPENT) == (0, 0, False)
    s = position(hands=(["O2", "O4", "F"], []), aux=(["M"], []))
    s.apply(Odin(1, 1, False))  # O2-B: two land cards attached
    for _ in range(2):
        s.apply(s.legal_moves()[0])
    s.apply(Odin(3, 1, False))  # O4-B: swap two empty cards
    s.apply(Target(0))
    s.apply(Target(3))
    s.apply(EndTurn())
    s.apply(Extend(False))
    v = s.view(1)
    assert v.current_player == 1
    assert tuple(getattr(v, f) for f in IDLE) == IDLE_VALUES
    assert tuple(getattr(v, f) for f in SPENT) == (0, 0, False)


def test_drawn_since_counts_the_cards_drawn_from_the_current_draw_pile():
    """``drawn_since`` (what the opponent counts of a seat's draws since its last reshuffle):
    the size of the pile made at that reshuffle (the whole deck at a race's start) minus the
    cards left in it, at every step of random games."""
    checks = 0
    for seed in range(4):
        s = State(Config(), seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(1500):
            if s.terminal:
                break
            v = s.view(0)
            for p in range(2):
                pile = sum(v.reshuffled[p]) if any(v.reshuffled[p]) else sum(s.config.deck)
                assert v.drawn_since[p] == pile - v.draw_sizes[p], (seed, s.move_count, p)
                checks += 1
            ids = s.legal_move_ids()
            s.apply_id(ids[rng.integers(len(ids))])
    assert checks > 5000
