"""Rules and contract points of the Beasty Bar engine that mutation testing found unchecked.

Each test names the rule it checks (rules doc ``docs/rules/beasty_bar.md``; the engine contract
in ``envs/core.py``). They were written against the mutants that survived ``make mutation``
(see ``docs/mutation.md``): a test here fails when the rule it names is broken.
"""

from __future__ import annotations

import random

import pytest
from cardzoo.envs.beasty_bar import Config, Play, State
from cardzoo.envs.beasty_bar.data import (
    CHAMELEON,
    CROCODILE,
    GIRAFFE,
    HIPPO,
    KANGAROO,
    LION,
    MONKEY,
    NAMES,
    PARROT,
    SEAL,
    SKUNK,
    SNAKE,
    ZEBRA,
)

R, Y, B, G = 0, 1, 2, 3


def position(queue, mover=R, hand=(), num_players=4, **kw) -> State:
    cfg = Config(num_players=num_players, first_player=0)
    hands = [[] for _ in range(num_players)]
    hands[mover] = list(hand)
    return State.from_position(cfg, queue=queue, hands=hands, current_player=mover, **kw)


def random_state(cfg: Config, seed: int, steps: int) -> State:
    rng = random.Random(seed)
    s = State(cfg, seed=seed)
    for _ in range(steps):
        if s.terminal:
            break
        s.apply(rng.choice(s.legal_move_ids()))
    return s


def play_out(s: State, seed: int = 0) -> State:
    rng = random.Random(seed)
    while not s.terminal:
        s.apply(rng.choice(s.legal_move_ids()))
    return s


# ---------------------------------------------------------------------------------------------
# §5 on-play actions with a single animal ahead (the smallest queue where each one acts)


def test_giraffe_swaps_with_the_only_animal_ahead_when_it_is_weaker():
    s = position([(PARROT, B)], hand=[GIRAFFE])
    s.apply(Play(GIRAFFE))
    assert s.animals("queue") == [(GIRAFFE, R), (PARROT, B)]


def test_giraffe_does_not_swap_with_the_only_animal_ahead_when_it_is_stronger():
    s = position([(SNAKE, B)], hand=[GIRAFFE])
    s.apply(Play(GIRAFFE))
    assert s.animals("queue") == [(SNAKE, B), (GIRAFFE, R)]


def test_chameleon_as_giraffe_never_jumps_the_giraffe_it_copies():
    s = position([(GIRAFFE, B)], hand=[CHAMELEON])
    s.apply(Play(CHAMELEON, GIRAFFE))
    # strength 8 against the giraffe's 8: no swap; then the old giraffe has nothing weaker ahead
    assert s.animals("queue") == [(GIRAFFE, B), (CHAMELEON, R)]
    s = position([(SKUNK, Y), (GIRAFFE, B)], hand=[CHAMELEON])
    s.apply(Play(CHAMELEON, GIRAFFE))
    # no swap with the giraffe (8 is not weaker than 8); in step 3 the old giraffe jumps the skunk
    assert s.animals("queue") == [(GIRAFFE, B), (SKUNK, Y), (CHAMELEON, R)]


def test_crocodile_eats_the_only_animal_ahead():
    s = position([(PARROT, B)], hand=[CROCODILE])
    s.apply(Play(CROCODILE))
    assert s.animals("queue") == [(CROCODILE, R)]
    assert (PARROT, B) in s.animals("thats_it")


def test_hippo_passes_the_only_animal_ahead():
    s = position([(PARROT, B)], hand=[HIPPO])
    s.apply(Play(HIPPO))
    assert s.animals("queue") == [(HIPPO, R), (PARROT, B)]


def test_hippo_passing_every_animal_leaves_the_others_in_their_order():
    # The hippo stops at the gate: the animals it passed keep their order behind it.
    s = position([(KANGAROO, R), (KANGAROO, Y), (CHAMELEON, R)], hand=[HIPPO])
    s.apply(Play(HIPPO))
    assert s.animals("queue") == [(HIPPO, R), (KANGAROO, R), (KANGAROO, Y), (CHAMELEON, R)]


def test_kangaroo_into_an_empty_queue_stays_alone():
    s = position([], hand=[KANGAROO])
    s.apply(Play(KANGAROO))
    assert s.animals("queue") == [(KANGAROO, R)]


def test_moves_with_nothing_to_do_say_so_in_their_names():
    assert str(Play(PARROT)) == "play Parrot (no other animal to expel)"
    assert str(Play(KANGAROO)) == "play Kangaroo (no animal to jump)"
    assert str(Play(KANGAROO, None, 2)) == "play Kangaroo, jump 2"
    assert str(Play(CHAMELEON, KANGAROO, 1)) == "play Chameleon as Kangaroo, jump 1"
    assert str(Play(CHAMELEON)) == "play Chameleon without imitating"


# ---------------------------------------------------------------------------------------------
# Turn order in hand-set positions (module docstring: play passes to the next seat with cards)


def test_turn_skips_seats_without_cards_clockwise():
    cfg = Config(num_players=4, first_player=0)
    hands = [[SKUNK, SEAL], [], [LION], [ZEBRA]]
    s = State.from_position(cfg, hands=hands, current_player=0)
    s.apply(Play(SKUNK))
    assert s.current_player == 2


def test_turn_skips_two_seats_without_cards():
    cfg = Config(num_players=4, first_player=0)
    hands = [[SKUNK, SEAL], [], [], [ZEBRA]]
    s = State.from_position(cfg, hands=hands, current_player=0)
    s.apply(Play(SKUNK))
    assert s.current_player == 3 and not s.terminal


def test_turn_wraps_past_the_last_seat_to_a_seat_with_cards():
    cfg = Config(num_players=4, first_player=0)
    hands = [[LION], [SKUNK, SEAL], [], []]
    s = State.from_position(cfg, hands=hands, current_player=1)
    s.apply(Play(SKUNK))
    assert s.current_player == 0


def test_turn_stays_with_the_only_seat_that_still_has_cards():
    cfg = Config(num_players=3, first_player=0)
    hands = [[SKUNK, SEAL], [], []]
    s = State.from_position(cfg, hands=hands, current_player=0)
    s.apply(Play(SKUNK))
    assert s.current_player == 0 and not s.terminal
    s.apply(Play(SEAL))
    assert s.terminal and s.current_player == -1


# ---------------------------------------------------------------------------------------------
# §8 the end of the game, and the contract attributes around it


def test_fresh_game_is_not_over_and_has_no_winner_or_end_reason():
    s = State(Config(num_players=3), seed=1)
    assert s.terminal is False
    assert s.end_reason is None
    assert s.winners() == ()


def test_finished_game_names_its_end_reason_and_clone_keeps_it():
    s = play_out(State(Config(num_players=2), seed=3))
    assert s.end_reason == "all_cards_played"
    c = s.clone()
    assert c.terminal and c.end_reason == "all_cards_played" and c.winners() == s.winners()


def test_state_without_config_is_the_default_two_player_game():
    s = State(seed=0)
    assert s.num_players == 2 and s.config == Config()


def test_state_rejects_a_config_of_another_type():
    with pytest.raises(TypeError, match="beasty_bar Config, got dict"):
        State({"num_players": 2})


# ---------------------------------------------------------------------------------------------
# §11 information: view and determinize


def test_view_reports_turn_scores_and_winners():
    s = random_state(Config(num_players=3), seed=4, steps=5)
    assert s.view(1).turn == s.turn == 5
    s = random_state(Config(num_players=3), seed=4, steps=20)
    assert any(s.scores())
    assert s.view(2).scores == s.scores()
    s = play_out(s)
    for p in range(3):
        assert s.view(p).winners == s.winners() != ()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_determinize_resamples_every_opponent_for_every_viewer(num_players):
    cfg = Config(num_players=num_players)
    for viewer in range(num_players):
        changed = set()
        for seed in range(12):
            s = random_state(cfg, seed, steps=2)
            d = s.determinize(viewer, seed)
            for q in range(num_players):
                if q != viewer and sorted(d.hands[q]) != sorted(s.hands[q]):
                    changed.add(q)
        assert changed == set(range(num_players)) - {viewer}


def test_determinize_is_reproducible_from_its_seed():
    s = random_state(Config(num_players=3), seed=2, steps=4)
    a, b = s.determinize(0, 11), s.determinize(0, 11)
    assert a.hands == b.hands and a.draws == b.draws


def test_determinized_world_deals_reproducibly_after_the_set_aside_phase():
    # The deal after the last set-aside choice draws from the state's RNG: a determinized world
    # gets an RNG seeded from the generator it was given, so two worlds from one seed deal alike.
    cfg = Config(num_players=2, set_aside=4, scoring="points")
    s = random_state(cfg, seed=6, steps=3)
    a, b = s.determinize(1, 11), s.determinize(1, 11)
    for world in (a, b):
        while world.phase == 0:  # the set-aside phase
            world.apply(world.legal_move_ids()[0])
    assert a.hands == b.hands and a.draws == b.draws
    c = s.determinize(1, 12)
    while c.phase == 0:
        c.apply(c.legal_move_ids()[0])
    assert (c.hands, c.draws) != (a.hands, a.draws)


# ---------------------------------------------------------------------------------------------
# Hand-set positions (State.from_position): defaults and clear errors for bad input


def test_hand_set_position_defaults():
    s = State.from_position(hands=[[LION], [HIPPO]])
    assert s.config == Config()
    s = State.from_position(Config(num_players=2), hands=[[LION], [HIPPO]])
    assert s.current_player == 0 and s.first_player == 0 and s.turn == 0
    assert s.terminal is False and s.end_reason is None
    s = State.from_position(Config(num_players=3), hands=[[], [LION], []], current_player=1)
    assert s.first_player == 1
    s = State.from_position(
        Config(num_players=3), hands=[[], [LION], []], current_player=1, first_player=2
    )
    assert s.first_player == 2


def test_hand_set_position_puts_unplaced_cards_in_thats_it():
    s = State.from_position(
        Config(num_players=2), hands=[[LION], [HIPPO]], thats_it=[(SKUNK, 1)], bar=[(SEAL, 0)]
    )
    out = sorted(s.animals("thats_it"))
    placed = {(LION, 0), (HIPPO, 1), (SEAL, 0)}
    expected = sorted((a, o) for o in range(2) for a in range(1, 13) if (a, o) not in placed)
    assert out == expected
    totals = [sum(col) for col in zip(*s.census().values(), strict=True)]
    assert totals == s.card_totals


def test_hand_set_position_accepts_animal_names():
    s = State.from_position(
        Config(num_players=2), hands=[["Lion", " skunk "], ["HIPPO"]], queue=[("zebra", 1)]
    )
    assert sorted(s.hands[0]) == sorted([LION - 1, SKUNK - 1])
    assert s.animals("queue") == [(ZEBRA, 1)]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"queue": [(LION, 2)]}, "owner must be a seat 0..1, got 2"),
        ({"queue": [(LION, -1)]}, "owner must be a seat 0..1, got -1"),
        ({"queue": [(HIPPO, 1)]}, r"Hippo\(1\) is placed twice"),
        ({"bar": [(LION, 0)]}, r"Lion\(0\) is placed twice"),
        ({"queue": [(a, 0) for a in (1, 2, 3, 4, 5)]}, "queue: at most 4 animals"),
        ({"queue": [("dragon", 0)]}, "unknown animal 'dragon'; animals: Skunk, Parrot"),
        ({"queue": [(0, 0)]}, "animal strength must be 1..12, got 0"),
        ({"queue": [(13, 0)]}, "animal strength must be 1..12, got 13"),
        ({"queue": [(True, 0)]}, "animal strength must be 1..12, got True"),
    ],
)
def test_hand_set_position_rejects_bad_cards_with_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        State.from_position(Config(num_players=2), hands=[[LION], [HIPPO]], **kwargs)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hands": [[LION]]}, "hands: expected 2 lists, got 1"),
        ({"draw_piles": [[SKUNK]]}, "draw_piles: expected 2 lists, got 1"),
        ({"set_aside": [[SKUNK], [], []]}, "set_aside: expected 2 lists, got 3"),
        ({"current_player": 1}, "current_player 1 has no card to play"),
    ],
)
def test_hand_set_position_rejects_bad_seats_with_a_clear_error(kwargs, message):
    given = {"hands": [[LION], []], **kwargs}
    with pytest.raises(ValueError, match=message):
        State.from_position(Config(num_players=2), **given)


def test_hand_set_position_accepts_a_full_draw_pile_of_eight():
    pile = [SKUNK, PARROT, KANGAROO, MONKEY, CHAMELEON, SEAL, ZEBRA, GIRAFFE]
    s = State.from_position(
        Config(num_players=2), hands=[[LION, HIPPO], [LION]], draw_piles=[pile, []]
    )
    assert s.view(0).draw_sizes == (8, 0)


def test_hand_set_position_places_set_aside_cards():
    s = State.from_position(
        Config(num_players=2), hands=[[LION], [HIPPO]], set_aside=[[SKUNK, PARROT], [MONKEY]]
    )
    assert sorted(s.set_asides[0]) == [SKUNK - 1, PARROT - 1]
    assert s.set_asides[1] == [12 + MONKEY - 1]
    assert s.view(0).set_aside == (SKUNK, PARROT)


# ---------------------------------------------------------------------------------------------
# §14 configuration: each error names its option exactly


@pytest.mark.parametrize(
    "kwargs, option",
    [
        ({"num_players": 5}, "num_players"),
        ({"scoring": "most"}, "scoring"),
        ({"set_aside": 3}, "set_aside"),
        ({"chameleon_may_decline": 1}, "chameleon_may_decline"),
        ({"max_turns": 0}, "max_turns"),
        ({"first_player": 2}, "first_player"),
    ],
)
def test_config_error_quotes_the_option_name(kwargs, option):
    with pytest.raises(ValueError, match=f"option '{option}'"):
        Config(**kwargs)


def test_config_accepts_the_smallest_max_turns():
    assert Config(max_turns=1).max_turns == 1
    assert State(Config(max_turns=1), seed=0).config.max_turns == 1


# ---------------------------------------------------------------------------------------------
# Zones: census, and what the two renders show


def test_census_names_every_zone_with_its_cards():
    cfg = Config(num_players=2, set_aside=4, scoring="points")
    s = State.from_position(
        cfg,
        queue=[(LION, 1)],
        hands=[[HIPPO], [SKUNK]],
        draw_piles=[[SEAL], []],
        bar=[(ZEBRA, 0)],
        set_aside=[[], [PARROT]],
    )
    zones = s.census()
    kinds = 24

    def one(*cards):
        return [1 if k in cards else 0 for k in range(kinds)]

    assert zones["queue"] == one(12 + LION - 1)
    assert zones["bar"] == one(ZEBRA - 1)
    assert zones["hand0"] == one(HIPPO - 1) and zones["hand1"] == one(12 + SKUNK - 1)
    assert zones["draw0"] == one(SEAL - 1) and zones["draw1"] == one()
    assert zones["set_aside0"] == one() and zones["set_aside1"] == one(12 + PARROT - 1)
    assert sum(zones["thats_it"]) == kinds - 6


def bar_and_out(row: str) -> tuple[str, str]:
    """The "bar / THAT'S IT" columns at the end of a render row."""
    bar, out = row.split("  ")[-1].split(" / ")
    return bar, out


def test_render_rows_show_each_seats_own_bar_and_thats_it():
    s = State.from_position(
        Config(num_players=2),
        hands=[[SKUNK], [SEAL]],
        bar=[(LION, 0), (HIPPO, 1)],
        queue=[(ZEBRA, 1)],
    )
    lines = s.render().splitlines()
    # every card not placed is in THAT'S IT (from_position); each row lists its owner's only
    out0 = ", ".join(NAMES[a] for a in range(1, 13) if a not in (SKUNK, LION))
    out1 = ", ".join(NAMES[a] for a in range(1, 13) if a not in (SEAL, HIPPO, ZEBRA))
    assert bar_and_out(lines[3]) == ("Lion", out0)
    assert bar_and_out(lines[4]) == ("Hippo", out1)


def test_render_header_counts_cards_left_and_names_the_seat_to_play():
    s = State(Config(num_players=3, first_player=1), seed=0)
    first = s.render().splitlines()[0]
    assert "(36 cards left to play)" in first and first.endswith("seat 1 to play")
    assert s.render().splitlines()[1] == "queue (gate -> exclusion): (empty)"
    s.apply(s.legal_move_ids()[0])
    assert "(35 cards left to play)" in s.render()
    assert "queue (gate -> exclusion): 0:" in s.render()
    play_out(s)
    assert s.render().splitlines()[0].endswith(f"game over, winners {list(s.winners())}")


def test_render_keeps_the_seat_row_when_it_shows_set_aside_cards():
    s = State(Config(num_players=2, set_aside=4, scoring="points"), seed=0)
    for _ in range(8):
        s.apply(s.legal_move_ids()[0])
    row = s.render().splitlines()[3]
    assert row.startswith("0 ") and "(set aside: " in row and " / " in row


def test_render_for_counts_the_cards_left_to_play():
    cfg = Config(num_players=3, set_aside=4, scoring="points")
    s = State(cfg, seed=0)
    assert "(24 cards left to play)" in s.render_for(0)  # 8 of 12 animals each are played
    assert "my animals to choose from: " in s.render_for(0)
    for _ in range(12):
        s.apply(s.legal_move_ids()[0])
    text = s.render_for(2)
    assert "(24 cards left to play)" in text and "my hand: " in text
    assert "seat 0 not yet played (hand + draw pile + set aside): " in text
    header = "seat score sum hand draw aside bar / THAT'S IT"
    assert text.splitlines()[5].split() == header.split()


# ---------------------------------------------------------------------------------------------
# Searching from any state: clone and determinize (engine contract, §11)


def test_hand_set_position_can_be_cloned_and_determinized():
    # A search may start from a hand-set position: clone() and determinize() copy the state's RNG,
    # so from_position must give the state a real generator, and the copies must be independent.
    s = State.from_position(
        Config(num_players=2), hands=[[LION, SKUNK], [HIPPO]], queue=[(ZEBRA, 1)]
    )
    c = s.clone()
    c.apply(Play(LION))
    assert c.animals("queue") == [(LION, 0), (ZEBRA, 1)]
    assert s.animals("queue") == [(ZEBRA, 1)] and sorted(s.hands[0]) == [SKUNK - 1, LION - 1]
    d = s.determinize(1, 3)
    assert [sorted(h) for h in d.hands] == [sorted(h) for h in s.hands]  # nothing unseen
    assert d.legal_move_ids() == s.legal_move_ids()
    d.apply(Play(SKUNK))
    assert s.animals("queue") == [(ZEBRA, 1)]


def test_determinized_worlds_deal_from_rngs_spread_over_the_whole_seed_range():
    # determinize() also resamples the RNG, which deals the set-aside variant's cards. Worlds made
    # from different seeds must (almost) never share it: seat 0's deal below depends on the world's
    # RNG alone (its 8 cards are known), so 200 worlds give about 200 different deals of 8! = 40320.
    cfg = Config(num_players=2, set_aside=4, scoring="points")
    s = random_state(cfg, seed=6, steps=7)  # seat 1 has one set-aside choice left
    assert s.phase == 0 and s.current_player == 1
    deals = set()
    for seed in range(200):
        d = s.determinize(0, seed)
        d.apply(d.legal_move_ids()[0])  # the last choice: both seats are dealt
        deals.add((tuple(d.hands[0]), tuple(d.draws[0])))
    assert len(deals) >= 190
