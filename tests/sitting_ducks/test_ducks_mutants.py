"""Rules and contract points of the Sitting Ducks Gallery engine that mutation testing found
unchecked.

Each test names the rule or contract point it checks (rules doc ``docs/rules/sitting_ducks.md``;
the engine contract in ``envs/core.py``; ``State.from_position``'s docstring for hand-set
positions). They were written against the mutants that survived ``make mutation`` (see
``docs/mutation.md`` and ``docs/mutation_sitting_ducks_survivors.md``): a test here fails when the
point it names is broken. Rows are written front slot first in the spec's notation (``R``/``B``/
``G`` the ducks of seats 0/1/2, ``~`` water, ``B/R`` a stack, ``R*1`` Bottoms Up of seat 1 on R).
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from cardzoo.envs.sitting_ducks import Config, Discard, Place, Play, State
from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    CARD_KEYS,
    DISORDERLY_CONDUCKT,
    DOUBLE_BARREL,
    DUCK_AND_COVER,
    DUCK_SHUFFLE,
    GAME_OVER,
    HANG_BACK,
    LINE_FORWARD,
    MOVE_AHEAD,
    NUM_KINDS,
    ORDER_PHASE,
    SHOOT,
    TAKE_AIM,
)
from cardzoo.envs.sitting_ducks.units import U_COVER

R, B, G, Y = 0, 1, 2, 3
CFG = Config()  # three players, standard mode
ROW = ["R", "B", "G", "~", "~", "~"]


def position(row=ROW, hand=(SHOOT, SHOOT, SHOOT), mover=R, cfg=CFG, hands=None, **kw) -> State:
    """``mover`` to play from ``hand`` (the other seats are dealt from the cards not placed)."""
    hands = {mover: list(hand)} if hands is None else hands
    return State.from_position(cfg, row=row, hands=hands, current_player=mover, **kw)


def census_adds_up(s: State) -> bool:
    return [sum(col) for col in zip(*s.census().values())] == s.card_totals


def unseen_by(s: State, player: int) -> Counter:
    """The action cards ``player`` cannot see: the other hands and the draw pile."""
    cards = Counter(s.draw)
    for q, hand in enumerate(s.hands):
        if q != player:
            cards.update(hand)
    return cards


def finished_by_a_shot(cfg: Config = CFG) -> State:
    """Red shoots Blue's last duck; Green has none left (not placed = shot): Red wins."""
    s = position(["R", "B", "~", "~", "~", "~"], targets={1}, cfg=cfg)
    s.apply(Play(SHOOT, 1))
    return s


# ---------------------------------------------------------------------------------------------
# A new game (§3): State's arguments and the contract attributes at the deal


def test_state_without_config_plays_the_default_game():
    s = State(seed=5)
    assert s.config == Config() and s.num_players == 3
    assert s.render() == State(Config(), seed=5).render()


def test_state_refuses_a_config_that_is_not_a_sitting_ducks_config():
    with pytest.raises(TypeError, match="^config must be a sitting_ducks Config, got dict$"):
        State({"num_players": 3})


NEW_GAME_CONFIGS = [
    Config(),
    Config(num_players=6),
    Config(mode="hidden"),
    Config(num_players=2, mode="team"),
    Config(num_players=4, mode="team"),
    Config(points_games=2),
]


@pytest.mark.parametrize("cfg", NEW_GAME_CONFIGS)
def test_a_new_game_is_not_over_and_has_no_end_reason(cfg):
    # Engine contract (envs/core.py): ``terminal`` is a bool, ``end_reason`` None while the game
    # goes on; both the dealt game and a hand-set one start that way.
    dealt = State(cfg, seed=1)
    row = ["R", "B", "G", "Y", "~", "~"] if cfg.num_colours == 4 else ROW
    set_up = position(row, cfg=cfg, colours=[0, 1, 2] if cfg.mode == "hidden" else None)
    for s in (dealt, set_up, dealt.clone()):
        assert s.terminal is False and s.end_reason is None
        assert all(s.view(p).terminal is False for p in range(s.num_players))


@pytest.mark.parametrize("cfg", NEW_GAME_CONFIGS)
def test_the_first_player_is_the_seat_that_moves_first(cfg):
    # §3.5 (the owner of the front-most duck; hidden mode: a random seat) decides who starts;
    # ``first_player`` keeps that seat for the whole game.
    for seed in range(4):
        s = State(cfg, seed=seed)
        assert s.first_player == s.current_player
        first = s.current_player
        s.apply(s.legal_moves()[0])
        assert s.first_player == first


# ---------------------------------------------------------------------------------------------
# Hand-set positions: what from_position's docstring promises


def test_hand_set_position_without_config_is_the_default_game():
    s = State.from_position(row=ROW, hands={0: ["shoot"] * 3})
    assert s.config == Config() and s.num_players == 3


def test_hand_set_position_deals_the_unplaced_cards_reproducibly_from_its_seed():
    def dealt(**seed) -> tuple:
        s = position(**seed)
        return tuple(map(tuple, s.hands)), tuple(s.draw)

    assert dealt(seed=3) == dealt(seed=3)
    assert dealt() == dealt(seed=0)  # the documented default seed
    assert len({dealt(seed=x) for x in range(5)}) == 5


def test_bottoms_up_without_a_seat_is_played_by_the_next_seat():
    s = position(["R*", "B", "G", "~", "~", "~"], mover=R)
    assert U_COVER[s.row[0]] == B
    s = position(["R", "B", "G*", "~", "~", "~"], mover=G)
    assert U_COVER[s.row[2]] == R


def test_bottoms_up_on_the_table_comes_out_of_the_action_cards():
    # Seat 0's Bottoms Up lies on B while Blue moves: it is one of the game's 3 Bottoms Up cards.
    hands = {0: ["bottoms_up", "shoot", "shoot"], 1: ["bottoms_up", "shoot", "shoot"]}
    s = position(["R", "B*0", "G", "~", "~", "~"], mover=B, hands=hands)
    assert s.census()["table"][BOTTOMS_UP] == 1
    assert census_adds_up(s)
    assert BOTTOMS_UP not in s.hands[2] + s.draw  # all 3 are placed
    with pytest.raises(ValueError, match="no Bottoms Up card left"):
        position(["R", "B*0", "G", "~", "~", "~"], mover=B, hands={**hands, 2: ["bottoms_up"]})


def test_a_colour_may_have_all_five_deck_ducks_placed():
    s = position(["R", "B", "G", "~", "~", "~"], deck=["R", "R", "R", "R"])
    assert s.shot[R] == 1 and s.ducks_in_play(R) == 5


def test_duck_letters_beyond_the_games_colours_are_refused():
    with pytest.raises(ValueError, match="unknown duck-deck card 'Y'; use R, B, G or ~"):
        position(["R", "B", "Y", "~", "~", "~"])
    with pytest.raises(ValueError, match="unknown duck-deck card 'Y'; use R, B, G or ~"):
        position(deck=["Y"])
    four = Config(num_players=4)
    assert position(["R", "B", "G", "Y", "~", "~"], cfg=four).row[3] % 8 == Y


def test_discard_pile_counts_every_card_given():
    s = position(discard=["shoot", "shoot", "take_aim"])
    assert s.discard[SHOOT] == 2 and s.discard[TAKE_AIM] == 1 and sum(s.discard) == 3
    assert census_adds_up(s)


def test_draw_pile_is_given_top_first():
    s = position(hand=[LINE_FORWARD] * 3, draw_pile=["double_barrel", "take_aim", "shoot"])
    assert s.draw[-3:] == [SHOOT, TAKE_AIM, DOUBLE_BARREL]
    s.apply(Play(LINE_FORWARD))
    assert s.hands[R][-1] == DOUBLE_BARREL


def test_card_names_may_be_written_in_english():
    s = position(hand=["Take Aim", "line forward", " Duck Shuffle "])
    assert sorted(s.hands[R]) == [TAKE_AIM, LINE_FORWARD, DUCK_SHUFFLE]


def test_current_player_without_cards_is_refused_unless_the_game_is_over():
    with pytest.raises(ValueError, match="^current_player 0 has no card to play$"):
        position(hand=[])
    # Only Red has ducks: the position is already over, an empty hand does not matter.
    s = position(["R", "~", "~", "~", "~", "~"], hand=[])
    assert s.terminal and s.winners() == (R,)


HIDDEN = Config(mode="hidden")
NO_BOTTOMS_UP = Config(action_deck_counts={"bottoms_up": 0, "shoot": 15})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"colours": [0, 1, 2]}, "colours: only the hidden mode has secret colours"),
        (
            {"cfg": HIDDEN, "colours": [0, 0, 1]},
            "colours: expected a permutation of 0..2, got [0, 0, 1]",
        ),
        ({"row": ["R*3", "B", "G", "~", "~", "~"]}, "row: Bottoms Up of seat 3 in a 3-player game"),
        ({"targets": [6]}, "targets: slots are 0..5, got 6"),
        ({"row": ["~"] * 6}, "6 water cards placed; the game has 5"),
        ({"known_bottom": 3}, "known_bottom must be 0..2, got 3"),
        (
            {"cfg": NO_BOTTOMS_UP, "row": ["R*1", "B", "G", "~", "~", "~"]},
            "row (Bottoms Up): no Bottoms Up card left to place",
        ),
        ({"discard": ["double_barrel"] * 2}, "discard: no Double Barrel card left to place"),
        ({"hand": ["double_barrel"] * 2}, "hand of seat 0: no Double Barrel card left to place"),
        ({"draw_pile": ["double_barrel"] * 2}, "draw_pile: no Double Barrel card left to place"),
        ({"hand": [16]}, "action card kind must be 0..15, got 16"),
        ({"hand": [-1]}, "action card kind must be 0..15, got -1"),
        ({"hand": [True]}, "action card kind must be 0..15, got True"),
    ],
)
def test_bad_position_errors_name_the_argument_and_what_is_allowed(kwargs, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        position(**kwargs)


def test_unknown_card_name_error_lists_the_card_names():
    with pytest.raises(ValueError) as err:
        position(hand=["joker"])
    assert str(err.value).startswith("unknown action card 'joker'; cards: take_aim, shoot, double")
    assert str(err.value).endswith(", ".join(CARD_KEYS[-3:]))


# ---------------------------------------------------------------------------------------------
# §6 the cards about "your duck": every slot they allow


def test_hang_back_is_playable_from_every_slot_but_the_last():
    # §6: Hang Back swaps a unit of yours in slots 0..4 with the unit behind it.
    for slot in range(6):
        row = ["~"] * 6
        row[slot] = "R"
        s = position(row, hand=[HANG_BACK] * 3, deck=["B", "G"])
        plays = {m for m in s.legal_moves() if isinstance(m, Play)}
        assert plays == ({Play(HANG_BACK, slot, slot + 1)} if slot < 5 else set())


@pytest.mark.parametrize("mover", [R, B, G])
def test_duck_and_cover_hides_under_either_neighbour_in_every_slot(mover):
    # §6: your single duck hides under an adjacent single duck of an opponent, to its front or
    # behind it, wherever the pair lies in the row (red included as the duck hidden under).
    letters = "RBG"
    others = [letters[c] for c in range(3) if c != mover]
    for slot in range(6):
        row = ["~"] * 6
        row[slot] = letters[mover]
        if slot > 0:
            row[slot - 1] = others[0]
        if slot < 5:
            row[slot + 1] = others[1]
        s = position(row, hand=[DUCK_AND_COVER] * 2, mover=mover, deck=list(letters))
        covers = {
            (m.slot, m.other)
            for m in s.legal_moves()
            if isinstance(m, Play) and m.card == DUCK_AND_COVER
        }
        expected = {(slot, j) for j in (slot - 1, slot + 1) if 0 <= j < 6}
        assert covers == expected, (mover, slot, row)


def test_hidden_evidence_from_own_duck_cards_adds_up_over_the_turns():
    # §9 hidden mode: each "your duck" card shows that the unit holds a duck of the player's
    # colour; what earlier turns showed is kept (the evidence only narrows).
    hands = {0: [MOVE_AHEAD, HANG_BACK], 1: [TAKE_AIM], 2: [TAKE_AIM]}
    s = position(["R", "G", "B/G", "~", "~", "~"], hands=hands, cfg=HIDDEN, colours=[G, R, B])
    s.apply(Play(MOVE_AHEAD, 1, 0))  # seat 0 moves the single G: green
    assert s.view(1).colour_evidence[0] == 1 << G
    s.apply(Play(TAKE_AIM, 4))
    s.apply(Play(TAKE_AIM, 5))
    s.apply(Play(HANG_BACK, 2, 3))  # the B/G stack holds green or blue: still green only
    assert s.current_player == 1
    assert all(s.view(p).colour_evidence[0] == 1 << G for p in range(3))
    for seed in range(5):
        assert s.determinize(2, seed).colour_owner[G] == 0


# ---------------------------------------------------------------------------------------------
# §7 the end, scores, and the contract attributes around it


def test_finished_game_is_in_the_game_over_phase():
    s = finished_by_a_shot()
    assert s.terminal and s.winners() == (R,)
    assert s.phase == GAME_OVER and s.view(B).phase == GAME_OVER
    assert s.legal_move_ids() == []


def test_scores_count_the_ducks_each_side_has_in_play():
    s = position(["R", "B", "B/G", "~", "~", "~"], deck=["R"])
    assert s.scores() == (2.0, 2.0, 1.0)


def test_team_scores_add_every_colour_of_the_side():
    # Two-player team mode: seat 0 owns red and green, seat 1 blue and yellow.
    cfg = Config(num_players=2, mode="team")
    s = position(["R", "G", "G", "B", "~", "~"], cfg=cfg)
    assert s.scores() == (3.0, 1.0)
    cfg = Config(num_players=4, mode="team")  # seats 0 and 2 (red, green) against 1 and 3
    s = position(["R", "G", "G", "B", "Y", "~"], cfg=cfg, deck=["Y", "Y"])
    assert s.scores() == (3.0, 4.0, 3.0, 4.0)


# ---------------------------------------------------------------------------------------------
# §10 information: view


def test_view_reports_turn_winners_and_the_match():
    cfg = Config(points_games=2)
    s = position(["R", "B", "~", "~", "~", "~"], targets={1}, cfg=cfg)
    v = s.view(B)
    assert (v.turn, v.game, v.games, v.game_results, v.winners) == (0, 0, 2, (), ())
    s.apply(Play(SHOOT, 1))  # Blue's last duck: the first game of the match is over
    v = s.view(G)
    assert (v.turn, v.game, v.games, v.game_results) == (1, 1, 2, ((R,),))
    s = finished_by_a_shot()
    assert all(s.view(p).winners == (R,) for p in range(3))


def test_view_counts_the_duck_deck_per_colour_then_water():
    s = position(deck=["R", "G", "G", "~"])
    v = s.view(R)
    assert v.deck_counts == (1, 0, 2, 2) and sum(v.deck_counts) == v.deck_size == 5


def test_hidden_colours_are_all_revealed_when_the_game_is_over():
    s = position(["R", "B", "~", "~", "~", "~"], targets={1}, cfg=HIDDEN, colours=[0, 1, 2])
    s.apply(Play(SHOOT, 1))
    assert s.terminal
    for p in range(3):
        assert s.view(p).colour_owners == (0, 1, 2)
        assert s.view(p).colour_evidence == (1 << R, 1 << B, 1 << G)


# ---------------------------------------------------------------------------------------------
# census: every zone holds what its name says


def test_census_zones_hold_what_they_are_named_for():
    s = position(targets={1, 3}, discard=["shoot", "take_aim"], deck=["R", "G"])
    z = s.census()
    target = NUM_KINDS + 3 + 1  # after the 16 action kinds, 3 colours and water
    assert z["targets"][target] == 2 and z["target_supply"][target] == 4
    assert z["discard"][:NUM_KINDS] == s.discard
    assert sum(z["draw"]) == len(s.draw) and Counter(s.draw) == {
        k: c for k, c in enumerate(z["draw"]) if c
    }
    assert sum(z["duck_deck"]) == len(s.deck) == 4
    assert z["duck_deck"][NUM_KINDS + R] == 1 and z["duck_deck"][NUM_KINDS + 3] == 2
    assert z["shot"][NUM_KINDS : NUM_KINDS + 3] == s.shot == [4, 5, 4]


# ---------------------------------------------------------------------------------------------
# copies


def test_clone_keeps_the_first_player_and_the_end_reason():
    s = position(mover=B, hand=[SHOOT] * 3)
    assert s.clone().first_player == s.first_player == B
    s = finished_by_a_shot()
    c = s.clone()
    assert c.end_reason == s.end_reason == "last_one_standing" and c.terminal


def test_clone_in_the_middle_of_disorderly_conduckt_goes_on_like_the_original():
    s = position(hand=[DISORDERLY_CONDUCKT, SHOOT, SHOOT], seed=4)
    s.apply(Play(DISORDERLY_CONDUCKT))
    assert s.phase == ORDER_PHASE
    c = s.clone()
    for state in (s, c):
        for old in (5, 4, 3, 2, 1):
            state.apply(Place(old))
    assert c.render() == s.render() and c.current_player == B
    for seed in range(3):
        a, b = s.determinize(B, seed), c.determinize(B, seed)
        assert (a.hands, a.draw, a.deck) == (b.hands, b.draw, b.deck)


# ---------------------------------------------------------------------------------------------
# determinize


def test_determinize_is_reproducible_from_its_seed():
    s = position(hand=[DUCK_SHUFFLE, SHOOT, SHOOT], deck=["R", "B", "G", "R", "B"])
    a, b = s.determinize(R, 11), s.determinize(R, 11)
    assert (a.hands, a.draw, a.deck) == (b.hands, b.draw, b.deck)
    # the world's own RNG (Duck Shuffle, reshuffles) comes from the seed as well
    a.apply(Play(DUCK_SHUFFLE))
    b.apply(Play(DUCK_SHUFFLE))
    assert (a.row, a.deck) == (b.row, b.deck)
    others = [s.determinize(R, seed) for seed in range(12, 20)]
    assert any(o.hands != a.hands for o in others)


def test_determinized_worlds_shuffle_with_rngs_spread_over_the_whole_seed_range():
    # After Duck Shuffle the row and deck order depend on the world's RNG alone: 200 worlds from
    # 200 seeds give (almost) 200 different orders of the 20 duck cards and water. The whole
    # deck's order is public (known_bottom), so the worlds start from the same deck.
    deck = ["R", "B", "G", "R", "B", "G"] * 2
    s = position(hand=[DUCK_SHUFFLE, SHOOT, SHOOT], deck=deck, known_bottom=14)
    orders = set()
    for seed in range(200):
        d = s.determinize(R, seed)
        d.apply(Play(DUCK_SHUFFLE))
        orders.add((tuple(d.row), tuple(d.deck)))
    assert len(orders) >= 190


def test_determinize_of_a_hand_set_position_deals_the_unseen_cards():
    s = position(hand=[SHOOT, TAKE_AIM, LINE_FORWARD], seed=2)
    truth = unseen_by(s, R)
    worlds = [s.determinize(R, seed) for seed in range(10)]
    for w in worlds:
        assert w.hands[R] == s.hands[R]
        assert unseen_by(w, R) == truth and census_adds_up(w)
    assert any(w.hands[B] != s.hands[B] for w in worlds)


# ---------------------------------------------------------------------------------------------
# §5.3 forced discards: what they reveal


def test_forced_discard_of_take_aim_reveals_no_colour():
    # Every slot is targeted: Take Aim is unplayable whatever one's colour.
    s = position(hand=[TAKE_AIM] * 3, targets=range(6), cfg=HIDDEN, colours=[0, 1, 2])
    assert s.legal_moves() == [Discard(TAKE_AIM)]
    s.apply(Discard(TAKE_AIM))
    assert s.colour_evidence[R] == 0b111
    assert s.view(B).colour_evidence[R] == 0b111


def test_determinize_keeps_a_forced_discarders_hand_unplayable():
    # Red had to discard, so the two cards it kept were unplayable then; only the card it drew
    # afterwards may be one that was playable. Which kinds were playable: asked of the engine.
    where = {"row": ROW, "targets": range(6)}
    playable = {
        kind
        for kind in range(NUM_KINDS)
        if not isinstance(position(hand=[kind], **where).legal_moves()[0], Discard)
    }
    assert LINE_FORWARD in playable and TAKE_AIM not in playable
    s = position(hand=[TAKE_AIM] * 3, seed=5, **where)
    s.apply(Discard(TAKE_AIM))
    for seed in range(40):
        w = s.determinize(B, seed)
        assert sum(kind in playable for kind in w.hands[R]) <= 1


def test_forced_discard_of_duck_and_cover_rules_out_the_colours_it_suited():
    # Green must discard: its duck has only water beside it. Red (next to B) and Blue (next to R)
    # could have hidden, so the discard shows the mover is neither red nor blue.
    s = position(
        ["B", "R", "~", "~", "~", "G"],
        hand=[DUCK_AND_COVER, TAKE_AIM, TAKE_AIM],
        mover=G,
        targets=range(6),
        cfg=HIDDEN,
        colours=[0, 1, 2],
    )
    assert set(s.legal_moves()) == {Discard(DUCK_AND_COVER), Discard(TAKE_AIM)}
    s.apply(Discard(DUCK_AND_COVER))
    assert s.colour_evidence[G] == 1 << G
    assert s.view(R).colour_evidence[G] == 1 << G


# ---------------------------------------------------------------------------------------------
# §4 / §10 the duck deck's public bottom


def test_each_line_forward_adds_to_the_public_bottom_of_the_duck_deck():
    cfg = Config(observe_duck_deck_bottom=True)
    hands = {0: [LINE_FORWARD] * 2, 1: [LINE_FORWARD], 2: [LINE_FORWARD]}
    s = position(["R", "B/G", "G", "~", "~", "~"], hands=hands, cfg=cfg, deck=["R", "B"])
    s.apply(Play(LINE_FORWARD))  # R to the bottom
    assert s.view(B).deck_bottom == (R,)
    s.apply(Play(LINE_FORWARD))  # the stack: B above its hidden G, both under R
    assert s.known_bottom == 3
    assert s.view(G).deck_bottom == (G, B, R)
    s.apply(Play(LINE_FORWARD))  # G under them
    assert s.view(R).deck_bottom == (G, G, B, R)


def test_points_for_ducks_line_forward_returns_add_to_the_match_score():
    # §9 points variant: each own duck Line Forward sends back scores 1, on top of earlier points.
    cfg = Config(points_games=2)
    hands = {0: [LINE_FORWARD] * 3, 1: [LINE_FORWARD] * 3}
    s = position(["B/R", "G", "~", "~", "~", "~"], hands=hands, cfg=cfg, points=[4, 2, 7])
    s.apply(Play(LINE_FORWARD))
    assert s.points == [5, 3, 7]
    s.apply(Play(LINE_FORWARD))  # Blue: the G in front goes back
    assert s.points == [5, 3, 8]


def test_determinize_after_a_turn_that_drew_nothing():
    # §5.4: with the draw and discard piles both empty the player draws nothing; every seat can
    # still be given a world, with the hand sizes and the unseen cards of the real one.
    cfg = Config(action_deck_counts={k: 0 for k in range(16)} | {"bottoms_up": 6, "shoot": 6})
    cards = [BOTTOMS_UP, BOTTOMS_UP, SHOOT, SHOOT]
    s = position(hands={0: cards, 1: cards, 2: cards}, cfg=cfg)
    s.apply(Play(BOTTOMS_UP, 1))
    assert [len(h) for h in s.hands] == [3, 4, 4] and s.draw == []
    for p in range(3):
        w = s.determinize(p, 1)
        assert [len(h) for h in w.hands] == [3, 4, 4]
        assert w.hands[p] == s.hands[p] and unseen_by(w, p) == unseen_by(s, p)


# ---------------------------------------------------------------------------------------------
# turn counting (module docstring: ``turn`` counts completed turns over the whole match)


def test_turn_counts_every_completed_turn():
    hands = {q: [LINE_FORWARD] * 2 for q in range(3)}  # the game's 6
    s = position(hands=hands)
    for t in range(1, 5):
        s.apply(Play(LINE_FORWARD))
        assert s.turn == t and s.view(t % 3).turn == t
