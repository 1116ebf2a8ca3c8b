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


def test_kangaroo_into_an_empty_queue_stays_alone():
    s = position([], hand=[KANGAROO])
    s.apply(Play(KANGAROO))
    assert s.animals("queue") == [(KANGAROO, R)]


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


def test_view_reports_turn_and_winners():
    s = random_state(Config(num_players=3), seed=4, steps=5)
    assert s.view(1).turn == s.turn == 5
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
    # the resampled RNG is seeded from the given one too: both worlds play on identically
    assert play_out(a, seed=1).render() == play_out(b, seed=1).render()


def test_hand_set_position_is_seeded_by_default():
    make = lambda: State.from_position(  # noqa: E731
        Config(num_players=2), hands=[[LION, SKUNK], [HIPPO]], draw_piles=[[SEAL, ZEBRA], []]
    )
    a, b = make(), make()
    assert a.determinize(1, 0).hands == b.determinize(1, 0).hands
    assert play_out(a).render() == play_out(b).render()


# ---------------------------------------------------------------------------------------------
# Hand-set positions (State.from_position): defaults and clear errors for bad input


def test_hand_set_position_defaults():
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
