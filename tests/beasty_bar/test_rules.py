"""Scenario tests for the Beasty Bar rules engine (rules doc ``docs/rules/beasty_bar.md``).

Every worked example of the rules doc's §13 is its own test (``test_example_NN_*``), built from a
hand-set queue with ``State.from_position``. Queues are written gate (index 0) first, as there.
Colours: R, Y, B, G are seats 0..3 of a 4-player game unless a test says otherwise.
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.beasty_bar import MOVE_INDEX, MOVES, NUM_MOVES, Config, Play, SetAside, State
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
    POINTS,
    SEAL,
    SKUNK,
    SNAKE,
    ZEBRA,
)
from cardzoo.envs.core import IllegalMoveError

R, Y, B, G = 0, 1, 2, 3
CFG4 = Config(num_players=4, first_player=0)


def position(queue, mover=R, hand=(), cfg=CFG4, hands=None, **kw) -> State:
    """A position where ``mover`` is to play from ``hand`` (other hands empty unless given)."""
    if hands is None:
        hands = [[] for _ in range(cfg.num_players)]
        hands[mover] = list(hand)
    return State.from_position(cfg, queue=queue, hands=hands, current_player=mover, **kw)


def play(state: State, move) -> tuple[list, list]:
    """Apply ``move``; return the animals added to the bar and to THAT'S IT (sorted)."""
    bar0 = Counter(state.animals("bar"))
    out0 = Counter(state.animals("thats_it"))
    state.apply(move)
    bar = Counter(state.animals("bar")) - bar0
    out = Counter(state.animals("thats_it")) - out0
    return sorted(bar.elements()), sorted(out.elements())


def queue(state: State) -> list[tuple[int, int]]:
    return state.animals("queue")


def snapshot(state: State):
    """Everything observable about a state, to check that a rejected move changed nothing."""
    return (
        state.render(),
        state.census(),
        state.legal_move_ids(),
        [state.view(p) for p in range(state.num_players)],
        state.current_player,
        state.turn,
        state.terminal,
    )


# ---------------------------------------------------------------------------------------------
# §13 worked examples


def test_example_01_giraffes_one_turn():
    s = position([(HIPPO, G), (MONKEY, B), (GIRAFFE, R), (PARROT, B)], mover=Y, hand=[GIRAFFE])
    bar, out = play(s, Play(GIRAFFE))
    # step 2: giraffe(Y) jumps the parrot; step 3: giraffe(R) jumps the monkey, giraffe(Y) rests;
    # step 4: hippo and giraffe(R) enter the bar, the parrot is thrown out.
    assert bar == sorted([(HIPPO, G), (GIRAFFE, R)])
    assert out == [(PARROT, B)]
    assert queue(s) == [(MONKEY, B), (GIRAFFE, Y)]


def test_example_02_lion_scares_monkeys():
    s = position([(MONKEY, B), (KANGAROO, G), (MONKEY, Y)], mover=R, hand=[LION])
    bar, out = play(s, Play(LION))
    assert out == sorted([(MONKEY, B), (MONKEY, Y)])
    assert bar == []
    assert queue(s) == [(LION, R), (KANGAROO, G)]


def test_example_03_second_lion_is_thrown_out():
    s = position([(LION, B), (MONKEY, G)], mover=R, hand=[LION])
    _, out = play(s, Play(LION))
    assert out == [(LION, R)]
    assert queue(s) == [(LION, B), (MONKEY, G)]


def test_example_04_hippo_passes_to_the_lion():
    s = position([(LION, B), (CROCODILE, G), (PARROT, Y)], mover=R, hand=[HIPPO])
    _, out = play(s, Play(HIPPO))
    assert out == []
    assert queue(s) == [(LION, B), (HIPPO, R), (CROCODILE, G), (PARROT, Y)]


def test_example_05_hippos_pass_the_kangaroo_in_step_3():
    s = position([(LION, G), (HIPPO, Y), (HIPPO, B)], mover=R, hand=[KANGAROO])
    play(s, Play(KANGAROO, None, 2))
    assert queue(s) == [(LION, G), (HIPPO, Y), (HIPPO, B), (KANGAROO, R)]


def test_example_06_crocodile_eats_up_to_the_lion():
    s = position([(KANGAROO, G), (LION, B), (MONKEY, Y), (PARROT, Y)], mover=R, hand=[CROCODILE])
    _, out = play(s, Play(CROCODILE))
    assert out == sorted([(PARROT, Y), (MONKEY, Y)])
    assert queue(s) == [(KANGAROO, G), (LION, B), (CROCODILE, R)]


def test_example_07_crocodile_eats_the_kangaroo_not_the_parrot_behind():
    s = position([(CROCODILE, B), (PARROT, Y)], mover=R, hand=[KANGAROO])
    _, out = play(s, Play(KANGAROO, None, 2))
    assert out == [(KANGAROO, R)]
    assert queue(s) == [(CROCODILE, B), (PARROT, Y)]


def test_example_08_snake_sort_is_stable():
    s = position([(HIPPO, Y), (SNAKE, B), (PARROT, Y)], mover=G, hand=[SNAKE])
    play(s, Play(SNAKE))
    assert queue(s) == [(HIPPO, Y), (SNAKE, B), (SNAKE, G), (PARROT, Y)]


def test_example_09_zebra_stops_the_crocodile():
    s = position([(GIRAFFE, B), (PARROT, Y), (ZEBRA, B), (PARROT, R)], mover=G, hand=[CROCODILE])
    _, out = play(s, Play(CROCODILE))
    assert out == [(PARROT, R)]
    assert queue(s) == [(GIRAFFE, B), (PARROT, Y), (ZEBRA, B), (CROCODILE, G)]


def test_example_10_zebra_stops_the_hippo():
    s = position([(ZEBRA, B), (HIPPO, Y)], mover=R, hand=[KANGAROO])
    play(s, Play(KANGAROO, None, 2))
    assert queue(s) == [(KANGAROO, R), (ZEBRA, B), (HIPPO, Y)]


def test_example_11_seal_reverses_then_hippo_passes_it():
    s = position([(CROCODILE, B), (ZEBRA, Y), (HIPPO, G)], mover=R, hand=[SEAL])
    _, out = play(s, Play(SEAL))
    assert out == []
    assert queue(s) == [(HIPPO, G), (SEAL, R), (ZEBRA, Y), (CROCODILE, B)]


def test_example_12_chameleon_as_hippo_is_eaten_in_step_3():
    s = position([(PARROT, Y), (HIPPO, B), (CROCODILE, G)], mover=R, hand=[CHAMELEON])
    _, out = play(s, Play(CHAMELEON, HIPPO))
    assert out == sorted([(CHAMELEON, R), (PARROT, Y)])
    assert queue(s) == [(HIPPO, B), (CROCODILE, G)]


def test_example_13_monkeys_expel_hippo_and_line_up_reversed():
    s = position([(HIPPO, G), (MONKEY, B), (KANGAROO, G), (MONKEY, Y)], mover=R, hand=[MONKEY])
    _, out = play(s, Play(MONKEY))
    assert out == [(HIPPO, G)]
    assert queue(s) == [(MONKEY, R), (MONKEY, Y), (MONKEY, B), (KANGAROO, G)]


def test_example_14_chameleon_as_monkey_then_a_real_monkey_two_turns():
    hands = [[CHAMELEON], [MONKEY], [], []]
    s = position([(HIPPO, G), (CROCODILE, G), (PARROT, Y), (MONKEY, B)], hands=hands)
    _, out = play(s, Play(CHAMELEON, MONKEY))
    assert out == sorted([(HIPPO, G), (CROCODILE, G)])
    assert queue(s) == [(CHAMELEON, R), (MONKEY, B), (PARROT, Y)]
    assert s.current_player == Y
    _, out = play(s, Play(MONKEY))
    assert out == []
    assert queue(s) == [(MONKEY, Y), (MONKEY, B), (CHAMELEON, R), (PARROT, Y)]


def test_example_15_kangaroo_hides_behind_the_zebra():
    s = position([(ZEBRA, B), (CROCODILE, Y)], mover=R, hand=[KANGAROO])
    _, out = play(s, Play(KANGAROO, None, 2))
    assert out == []
    assert queue(s) == [(KANGAROO, R), (ZEBRA, B), (CROCODILE, Y)]


def test_example_16_parrot_expels_the_zebra_then_the_crocodile_eats():
    s = position([(MONKEY, B), (MONKEY, Y), (ZEBRA, G), (CROCODILE, G)], mover=R, hand=[PARROT])
    _, out = play(s, Play(PARROT, None, 2))
    assert out == sorted([(ZEBRA, G), (MONKEY, B), (MONKEY, Y)])
    assert queue(s) == [(CROCODILE, G), (PARROT, R)]


def test_example_17_skunk_expels_the_two_strongest_species():
    s = position([(HIPPO, G), (CROCODILE, Y), (CROCODILE, B), (MONKEY, G)], mover=R, hand=[SKUNK])
    _, out = play(s, Play(SKUNK))
    assert out == sorted([(HIPPO, G), (CROCODILE, Y), (CROCODILE, B)])
    assert queue(s) == [(MONKEY, G), (SKUNK, R)]


def test_example_18_seal():
    s = position([(LION, B), (PARROT, Y), (ZEBRA, G)], mover=R, hand=[SEAL])
    play(s, Play(SEAL))
    assert queue(s) == [(SEAL, R), (ZEBRA, G), (PARROT, Y), (LION, B)]


def test_example_19_chameleon_as_giraffe_jumps_a_chameleon():
    s = position([(GIRAFFE, B), (SEAL, Y), (CHAMELEON, G)], mover=R, hand=[CHAMELEON])
    play(s, Play(CHAMELEON, GIRAFFE))
    assert queue(s) == [(GIRAFFE, B), (SEAL, Y), (CHAMELEON, R), (CHAMELEON, G)]


def test_example_20_giraffe_moves_once_per_turn():
    s = position([(SKUNK, B), (GIRAFFE, Y), (HIPPO, G)], mover=R, hand=[KANGAROO])
    play(s, Play(KANGAROO, None, 2))
    assert queue(s) == [(HIPPO, G), (SKUNK, B), (GIRAFFE, Y), (KANGAROO, R)]


def test_example_21_no_skipping_after_eating():
    s = position([(HIPPO, B), (CROCODILE, Y), (PARROT, G)], mover=R, hand=[SEAL])
    _, out = play(s, Play(SEAL))
    assert out == sorted([(PARROT, G), (SEAL, R)])
    assert queue(s) == [(HIPPO, B), (CROCODILE, Y)]


def test_example_22_five_animal_check():
    s = position([(LION, B), (HIPPO, Y), (PARROT, G), (SKUNK, G)], mover=R, hand=[ZEBRA])
    bar, out = play(s, Play(ZEBRA))
    assert bar == sorted([(LION, B), (HIPPO, Y)])
    assert out == [(ZEBRA, R)]
    assert queue(s) == [(PARROT, G), (SKUNK, G)]


def test_example_23_chameleon_with_nothing_to_copy_and_parrot_into_empty_queue():
    s = position([(CHAMELEON, B)], mover=R, hand=[CHAMELEON])
    assert s.legal_moves() == [Play(CHAMELEON)]
    _, out = play(s, Play(CHAMELEON))
    assert out == []
    assert queue(s) == [(CHAMELEON, B), (CHAMELEON, R)]

    s = position([], mover=R, hand=[PARROT])
    assert s.legal_moves() == [Play(PARROT)]
    _, out = play(s, Play(PARROT))
    assert out == []
    assert queue(s) == [(PARROT, R)]


@pytest.mark.parametrize(
    "scoring, bar_scores, scores",
    [("count", (3, 3), (2.77, 2.85)), ("points", (8, 10), (7.77, 9.85))],
)
def test_example_24_scoring(scoring, bar_scores, scores):
    cfg = Config(num_players=2, scoring=scoring)
    bar = [(LION, 0), (SNAKE, 0), (PARROT, 0), (HIPPO, 1), (KANGAROO, 1), (SKUNK, 1)]
    s = State.from_position(cfg, bar=bar, hands=[[], []])
    assert s.terminal and s.current_player == -1
    assert s.bar_scores() == bar_scores
    assert s.bar_strength_sums() == (23, 15)
    assert s.winners() == (1,)
    assert s.scores() == scores  # bar score less sum / 100: the winner scores more


# ---------------------------------------------------------------------------------------------
# Each animal's on-play action (§5)


def test_lion_alone_goes_to_the_front_and_zebras_do_not_stop_it():
    s = position([(ZEBRA, B), (HIPPO, Y), (MONKEY, R)], mover=R, hand=[LION])
    _, out = play(s, Play(LION))
    assert out == [(MONKEY, R)]  # own monkeys are scared too
    assert queue(s) == [(LION, R), (ZEBRA, B), (HIPPO, Y)]


def test_lion_into_empty_queue():
    s = position([], mover=R, hand=[LION])
    play(s, Play(LION))
    assert queue(s) == [(LION, R)]


def test_hippo_does_not_pass_another_hippo_and_passes_chameleons():
    s = position([(PARROT, B), (HIPPO, Y), (CHAMELEON, G)], mover=R, hand=[HIPPO])
    play(s, Play(HIPPO))
    # on play it passes the chameleon and stops behind hippo(Y); in step 3 hippo(Y) passes the
    # parrot, then hippo(R) passes it too and stops behind hippo(Y) again
    assert queue(s) == [(HIPPO, Y), (HIPPO, R), (PARROT, B), (CHAMELEON, G)]


def test_hippo_then_five_animal_check():
    s = position([(PARROT, B), (HIPPO, Y), (CHAMELEON, G), (SEAL, B)], mover=R, hand=[HIPPO])
    bar, out = play(s, Play(HIPPO))
    assert bar == sorted([(HIPPO, Y), (HIPPO, R)])
    assert out == [(SEAL, B)]
    assert queue(s) == [(PARROT, B), (CHAMELEON, G)]


def test_crocodile_never_eats_a_crocodile_hippo_or_lion():
    for blocker in (CROCODILE, HIPPO, LION, ZEBRA):
        s = position([(blocker, B), (PARROT, Y)], mover=R, hand=[CROCODILE])
        _, out = play(s, Play(CROCODILE))
        assert out == [(PARROT, Y)], NAMES[blocker]
        assert queue(s) == [(blocker, B), (CROCODILE, R)]


def test_crocodile_eats_a_chameleon_and_a_giraffe():
    s = position([(GIRAFFE, B), (CHAMELEON, Y), (SNAKE, G)], mover=R, hand=[CROCODILE])
    _, out = play(s, Play(CROCODILE))
    assert out == sorted([(GIRAFFE, B), (CHAMELEON, Y), (SNAKE, G)])
    assert queue(s) == [(CROCODILE, R)]


def test_snake_sorts_everything_chameleon_as_5():
    s = position([(SKUNK, B), (CHAMELEON, Y), (SEAL, G), (LION, Y)], mover=R, hand=[SNAKE])
    # the queue reaches 5 animals, so the check lets lion and snake in and throws the skunk out
    bar, out = play(s, Play(SNAKE))
    assert bar == sorted([(LION, Y), (SNAKE, R)])
    assert out == [(SKUNK, B)]
    assert queue(s) == [(SEAL, G), (CHAMELEON, Y)]


def test_giraffe_does_not_jump_stronger_or_equal_and_jumps_zebra():
    s = position([(SNAKE, B)], mover=R, hand=[GIRAFFE])
    play(s, Play(GIRAFFE))
    assert queue(s) == [(SNAKE, B), (GIRAFFE, R)]
    s = position([(GIRAFFE, B)], mover=R, hand=[GIRAFFE])
    play(s, Play(GIRAFFE))
    assert queue(s) == [(GIRAFFE, B), (GIRAFFE, R)]
    s = position([(PARROT, B), (ZEBRA, Y)], mover=R, hand=[GIRAFFE])
    play(s, Play(GIRAFFE))
    assert queue(s) == [(PARROT, B), (GIRAFFE, R), (ZEBRA, Y)]  # one place only


def test_old_giraffe_never_jumps_a_giraffe():
    s = position([(GIRAFFE, B), (GIRAFFE, Y)], mover=R, hand=[ZEBRA])
    play(s, Play(ZEBRA))
    assert queue(s) == [(GIRAFFE, B), (GIRAFFE, Y), (ZEBRA, R)]


def test_giraffe_played_earlier_acts_in_later_turns():
    hands = [[GIRAFFE, SKUNK], [ZEBRA], [], []]
    s = position([(PARROT, B), (SEAL, G)], hands=hands)
    play(s, Play(GIRAFFE))
    assert queue(s) == [(PARROT, B), (GIRAFFE, R), (SEAL, G)]
    play(s, Play(ZEBRA))  # Y's turn: the giraffe acts again
    assert queue(s) == [(GIRAFFE, R), (PARROT, B), (SEAL, G), (ZEBRA, Y)]


def test_zebra_has_no_action_when_played():
    s = position([(PARROT, B), (SEAL, Y)], mover=R, hand=[ZEBRA])
    assert s.legal_moves() == [Play(ZEBRA)]
    play(s, Play(ZEBRA))
    assert queue(s) == [(PARROT, B), (SEAL, Y), (ZEBRA, R)]


def test_zebra_does_not_protect_against_monkeys_or_the_parrot():
    s = position([(ZEBRA, B), (HIPPO, Y), (MONKEY, G)], mover=R, hand=[MONKEY])
    _, out = play(s, Play(MONKEY))
    assert out == [(HIPPO, Y)]
    assert queue(s) == [(MONKEY, R), (MONKEY, G), (ZEBRA, B)]


def test_seal_into_empty_queue_and_single():
    s = position([(LION, B)], mover=R, hand=[SEAL])
    play(s, Play(SEAL))
    assert queue(s) == [(SEAL, R), (LION, B)]


def test_lone_monkey_does_nothing():
    s = position([(HIPPO, B), (CROCODILE, Y)], mover=R, hand=[MONKEY])
    _, out = play(s, Play(MONKEY))
    assert out == []
    assert queue(s) == [(HIPPO, B), (CROCODILE, Y), (MONKEY, R)]


def test_kangaroo_choices_depend_on_animals_ahead():
    assert position([], hand=[KANGAROO]).legal_moves() == [Play(KANGAROO)]
    assert position([(LION, B)], hand=[KANGAROO]).legal_moves() == [Play(KANGAROO, None, 1)]
    s = position([(LION, B), (SEAL, Y), (SNAKE, G)], hand=[KANGAROO])
    assert s.legal_moves() == [Play(KANGAROO, None, 1), Play(KANGAROO, None, 2)]
    play(s, Play(KANGAROO, None, 1))
    assert queue(s) == [(LION, B), (SEAL, Y), (KANGAROO, R), (SNAKE, G)]


def test_parrot_may_expel_any_other_animal_including_own():
    q = [(LION, B), (PARROT, Y), (SEAL, G)]
    s = position(q, mover=R, hand=[PARROT])
    assert s.legal_moves() == [Play(PARROT, None, t) for t in range(3)]
    for t in range(3):
        s = position(q, mover=R, hand=[PARROT])
        _, out = play(s, Play(PARROT, None, t))
        assert out == [q[t]]
        assert queue(s) == [a for i, a in enumerate(q) if i != t] + [(PARROT, R)]


def test_skunk_with_one_species_and_with_none():
    s = position([(SKUNK, B), (SEAL, Y), (SEAL, G)], mover=R, hand=[SKUNK])
    _, out = play(s, Play(SKUNK))
    assert out == sorted([(SEAL, Y), (SEAL, G)])
    assert queue(s) == [(SKUNK, B), (SKUNK, R)]
    s = position([(SKUNK, B)], mover=R, hand=[SKUNK])
    _, out = play(s, Play(SKUNK))
    assert out == []
    assert queue(s) == [(SKUNK, B), (SKUNK, R)]


def test_skunk_counts_chameleons_as_5():
    s = position([(CHAMELEON, B), (PARROT, Y), (MONKEY, G), (KANGAROO, Y)], hand=[SKUNK])
    _, out = play(s, Play(SKUNK))
    assert out == sorted([(CHAMELEON, B), (MONKEY, G)])
    assert queue(s) == [(PARROT, Y), (KANGAROO, Y), (SKUNK, R)]


# ---------------------------------------------------------------------------------------------
# The chameleon (§5.1): every imitable species, decline, nothing to copy


def chameleon_ids(s: State) -> list[int]:
    return [i for i in s.legal_move_ids() if MOVES[i].animal == CHAMELEON]


def test_chameleon_as_lion_is_thrown_out_and_monkeys_stay():
    s = position([(LION, B), (MONKEY, Y)], mover=R, hand=[CHAMELEON])
    _, out = play(s, Play(CHAMELEON, LION))
    assert out == [(CHAMELEON, R)]
    assert queue(s) == [(LION, B), (MONKEY, Y)]


def test_chameleon_as_crocodile_eats_once_and_never_again():
    hands = [[CHAMELEON], [KANGAROO], [], []]
    s = position([(LION, G), (PARROT, B), (SEAL, Y), (CROCODILE, B)], hands=hands)
    _, out = play(s, Play(CHAMELEON, CROCODILE))
    # it stops behind the real crocodile at once; then the real one eats seal and parrot
    assert out == sorted([(PARROT, B), (SEAL, Y)])
    assert queue(s) == [(LION, G), (CROCODILE, B), (CHAMELEON, R)]
    s = position([(LION, G), (CROCODILE, B), (PARROT, B)], hands=hands)
    _, out = play(s, Play(CHAMELEON, CROCODILE))
    assert out == [(PARROT, B)]  # eats as a 10, stops behind the crocodile
    assert queue(s) == [(LION, G), (CROCODILE, B), (CHAMELEON, R)]
    # next turn a kangaroo lands in front of the chameleon: no recurring eating by it
    play(s, Play(KANGAROO, None, 1))
    assert queue(s) == [(LION, G), (CROCODILE, B), (KANGAROO, Y), (CHAMELEON, R)]


def test_chameleon_as_snake_sorts_as_9_behind_a_real_snake():
    s = position([(SEAL, B), (SNAKE, Y), (LION, G)], mover=R, hand=[CHAMELEON])
    play(s, Play(CHAMELEON, SNAKE))
    assert queue(s) == [(LION, G), (SNAKE, Y), (CHAMELEON, R), (SEAL, B)]  # 9 sorts before 6


def test_chameleon_as_giraffe_uses_strength_8():
    # a seal (6) is jumped by an 8 but would not be jumped by a 5
    s = position([(GIRAFFE, Y), (SEAL, B)], mover=R, hand=[CHAMELEON])
    play(s, Play(CHAMELEON, GIRAFFE))
    assert queue(s) == [(GIRAFFE, Y), (CHAMELEON, R), (SEAL, B)]


def test_chameleon_as_giraffe_has_no_later_move():
    hands = [[CHAMELEON], [ZEBRA], [], []]
    s = position([(PARROT, G), (GIRAFFE, B), (SKUNK, Y)], hands=hands)
    play(s, Play(CHAMELEON, GIRAFFE))
    # giraffe(B) acts in step 3 (played earlier): jumps the parrot; the chameleon jumped the skunk
    assert queue(s) == [(GIRAFFE, B), (PARROT, G), (CHAMELEON, R), (SKUNK, Y)]
    play(s, Play(ZEBRA))  # five-animal check: giraffe, parrot in; zebra out
    assert queue(s) == [(CHAMELEON, R), (SKUNK, Y)]


def test_chameleon_as_zebra_is_a_pass_and_gives_no_protection():
    hands = [[CHAMELEON], [HIPPO], [], []]
    s = position([(PARROT, B), (ZEBRA, G)], hands=hands)
    play(s, Play(CHAMELEON, ZEBRA))
    assert queue(s) == [(PARROT, B), (ZEBRA, G), (CHAMELEON, R)]
    play(s, Play(HIPPO))  # the hippo passes the chameleon and stops at the real zebra
    assert queue(s) == [(PARROT, B), (ZEBRA, G), (HIPPO, Y), (CHAMELEON, R)]


def test_chameleon_cannot_copy_an_absent_species():
    s = position([(LION, B), (PARROT, Y)], mover=R, hand=[CHAMELEON])
    with pytest.raises(IllegalMoveError):
        s.apply(Play(CHAMELEON, SEAL))
    assert {m.imitates for m in s.legal_moves()} == {LION, PARROT}


def test_chameleon_as_seal_reverses_the_queue():
    s = position([(LION, B), (SEAL, Y), (PARROT, G)], mover=R, hand=[CHAMELEON])
    play(s, Play(CHAMELEON, SEAL))
    assert queue(s) == [(CHAMELEON, R), (PARROT, G), (SEAL, Y), (LION, B)]


def test_chameleon_as_kangaroo_jumps_1_or_2():
    q = [(LION, B), (KANGAROO, Y), (SEAL, G)]
    s = position(q, hand=[CHAMELEON])
    assert chameleon_ids(s) == [
        MOVE_INDEX[Play(CHAMELEON, KANGAROO, 1)],
        MOVE_INDEX[Play(CHAMELEON, KANGAROO, 2)],
        MOVE_INDEX[Play(CHAMELEON, SEAL)],
        MOVE_INDEX[Play(CHAMELEON, LION)],
    ]
    play(s, Play(CHAMELEON, KANGAROO, 2))
    assert queue(s) == [(LION, B), (CHAMELEON, R), (KANGAROO, Y), (SEAL, G)]
    s = position([(KANGAROO, Y)], hand=[CHAMELEON])
    assert s.legal_moves() == [Play(CHAMELEON, KANGAROO, 1)]
    play(s, Play(CHAMELEON, KANGAROO, 1))
    assert queue(s) == [(CHAMELEON, R), (KANGAROO, Y)]


def test_chameleon_as_parrot_may_expel_the_copied_parrot():
    s = position([(LION, B), (PARROT, Y)], mover=R, hand=[CHAMELEON])
    assert Play(CHAMELEON, PARROT, 1) in s.legal_moves()
    assert Play(CHAMELEON, PARROT, 2) not in s.legal_moves()  # not itself
    _, out = play(s, Play(CHAMELEON, PARROT, 1))
    assert out == [(PARROT, Y)]
    assert queue(s) == [(LION, B), (CHAMELEON, R)]


def test_chameleon_as_skunk_is_exempt_other_chameleons_are_5():
    s = position([(CHAMELEON, B), (SKUNK, Y), (MONKEY, G), (SEAL, G)], mover=R, hand=[CHAMELEON])
    _, out = play(s, Play(CHAMELEON, SKUNK))
    # V = {5, 4, 6}: the two highest are 6 (seal) and 5 (the other chameleon)
    assert out == sorted([(CHAMELEON, B), (SEAL, G)])
    assert queue(s) == [(SKUNK, Y), (MONKEY, G), (CHAMELEON, R)]


def test_chameleon_as_monkey_needs_a_real_monkey():
    s = position([(HIPPO, B), (LION, Y)], mover=R, hand=[CHAMELEON])
    assert Play(CHAMELEON, MONKEY) not in s.legal_moves()
    s = position([(MONKEY, B), (HIPPO, Y)], mover=R, hand=[CHAMELEON])
    _, out = play(s, Play(CHAMELEON, MONKEY))
    assert out == [(HIPPO, Y)]
    assert queue(s) == [(CHAMELEON, R), (MONKEY, B)]


def test_chameleon_as_hippo_stops_at_zebra():
    s = position([(HIPPO, B), (ZEBRA, Y), (SEAL, G)], mover=R, hand=[CHAMELEON])
    play(s, Play(CHAMELEON, HIPPO))
    assert queue(s) == [(HIPPO, B), (ZEBRA, Y), (CHAMELEON, R), (SEAL, G)]


def test_chameleon_imitation_is_mandatory_and_zebra_is_the_pass():
    s = position([(ZEBRA, B)], mover=R, hand=[CHAMELEON])
    assert s.legal_moves() == [Play(CHAMELEON, ZEBRA)]
    assert Play(CHAMELEON) not in s.legal_moves()


def test_chameleon_may_decline_with_the_option():
    cfg = Config(num_players=4, first_player=0, chameleon_may_decline=True)
    s = position([(ZEBRA, B), (SEAL, Y)], mover=R, hand=[CHAMELEON], cfg=cfg)
    assert s.legal_moves() == [Play(CHAMELEON), Play(CHAMELEON, SEAL), Play(CHAMELEON, ZEBRA)]
    play(s, Play(CHAMELEON))
    assert queue(s) == [(ZEBRA, B), (SEAL, Y), (CHAMELEON, R)]


def test_chameleon_cannot_copy_a_chameleon_and_each_species_once():
    s = position([(CHAMELEON, B), (SEAL, Y), (SEAL, G)], mover=R, hand=[CHAMELEON])
    assert s.legal_moves() == [Play(CHAMELEON, SEAL)]


def test_chameleon_with_empty_queue():
    s = position([], mover=R, hand=[CHAMELEON])
    assert s.legal_moves() == [Play(CHAMELEON)]
    play(s, Play(CHAMELEON))
    assert queue(s) == [(CHAMELEON, R)]


# ---------------------------------------------------------------------------------------------
# Recurring actions (§6)


def test_recurring_order_is_front_to_back():
    # two giraffes: front to back, both get past the parrot; back to front, only the front one
    s = position([(PARROT, B), (GIRAFFE, Y), (GIRAFFE, G)], mover=R, hand=[ZEBRA])
    play(s, Play(ZEBRA))
    assert queue(s) == [(GIRAFFE, Y), (GIRAFFE, G), (PARROT, B), (ZEBRA, R)]


def test_two_crocodiles():
    # the front one eats first; the back one eats up to it
    s = position([(PARROT, B), (CROCODILE, Y), (SEAL, G), (CROCODILE, G)], hand=[ZEBRA])
    bar, out = play(s, Play(ZEBRA))
    # croc(Y) eats the parrot; croc(G) eats the seal and stops at croc(Y); 3 left -> no check
    assert out == sorted([(PARROT, B), (SEAL, G)])
    assert queue(s) == [(CROCODILE, Y), (CROCODILE, G), (ZEBRA, R)]


def test_each_recurring_animal_acts_once_giraffe_pushed_back_by_hippo():
    # rules doc §13 ex. 20 variant with a parrot: after the hippo passes it, the giraffe stands
    # behind a weaker animal again but must not act a second time
    s = position([(PARROT, B), (GIRAFFE, Y), (HIPPO, G)], mover=R, hand=[KANGAROO])
    play(s, Play(KANGAROO, None, 2))
    assert queue(s) == [(HIPPO, G), (PARROT, B), (GIRAFFE, Y), (KANGAROO, R)]


def test_each_recurring_animal_acts_once_no_restart_after_a_change():
    # the giraffe jumps the skunk; a restarting loop would let it jump the parrot too
    s = position([(PARROT, B), (SKUNK, Y), (GIRAFFE, G)], mover=R, hand=[ZEBRA])
    play(s, Play(ZEBRA))
    assert queue(s) == [(PARROT, B), (GIRAFFE, G), (SKUNK, Y), (ZEBRA, R)]


def test_fresh_giraffe_skips_step_3():
    # it jumps the skunk when played; acting again in step 3 would take it past the parrot
    s = position([(PARROT, B), (SKUNK, Y)], mover=R, hand=[GIRAFFE])
    play(s, Play(GIRAFFE))
    assert queue(s) == [(PARROT, B), (GIRAFFE, R), (SKUNK, Y)]


def test_old_giraffe_moved_this_turn_still_acts():
    # the seal reverses the queue, moving the old giraffe; it then jumps the seal in step 3
    s = position([(PARROT, B), (GIRAFFE, Y)], mover=R, hand=[SEAL])
    play(s, Play(SEAL))
    assert queue(s) == [(GIRAFFE, Y), (SEAL, R), (PARROT, B)]


def test_fresh_crocodile_acts_in_step_3_spec_example():
    # rules doc §6: the new crocodile stops behind the hippo when played; in step 3 the hippo
    # passes the parrot first, then the fresh crocodile eats it
    s = position([(PARROT, B), (HIPPO, Y)], mover=R, hand=[CROCODILE])
    bar, out = play(s, Play(CROCODILE))
    assert bar == [] and out == [(PARROT, B)]
    assert queue(s) == [(HIPPO, Y), (CROCODILE, R)]


def test_fresh_hippo_acts_in_step_3_spec_example():
    # rules doc §6: the old hippo passes the parrot, then the new one passes it too
    s = position([(PARROT, B), (HIPPO, Y)], mover=R, hand=[HIPPO])
    _, out = play(s, Play(HIPPO))
    assert out == []
    assert queue(s) == [(HIPPO, Y), (HIPPO, R), (PARROT, B)]


def test_fresh_giraffe_moved_by_a_crocodile_still_skips_step_3():
    # it jumps the skunk when played; in step 3 the old crocodile eats the parrot, so the giraffe
    # stands one place nearer the gate, behind a seal it could jump: being fresh, it must not
    s = position([(PARROT, B), (CROCODILE, Y), (SEAL, G), (SKUNK, Y)], mover=R, hand=[GIRAFFE])
    bar, out = play(s, Play(GIRAFFE))
    assert bar == [] and out == [(PARROT, B)]
    assert queue(s) == [(CROCODILE, Y), (SEAL, G), (GIRAFFE, R), (SKUNK, Y)]


def test_lion_does_not_scare_a_chameleon_that_imitated_a_monkey():
    # turn 1: the chameleon copies the monkey and leads the queue; turn 2: a lion scares only
    # the real monkey and takes the front; the chameleon (a 5 again) stays
    hands = [[CHAMELEON], [LION], [], []]
    s = position([(MONKEY, B), (SEAL, G)], hands=hands)
    play(s, Play(CHAMELEON, MONKEY))
    assert queue(s) == [(CHAMELEON, R), (MONKEY, B), (SEAL, G)]
    _, out = play(s, Play(LION))
    assert out == [(MONKEY, B)]
    assert queue(s) == [(LION, Y), (CHAMELEON, R), (SEAL, G)]


def test_chameleon_is_never_recurring():
    hands = [[CHAMELEON], [KANGAROO], [], []]
    s = position([(HIPPO, B)], hands=hands)
    play(s, Play(CHAMELEON, HIPPO))
    assert queue(s) == [(HIPPO, B), (CHAMELEON, R)]
    play(s, Play(KANGAROO, None, 1))  # a recurring "hippo" would pass the kangaroo now
    assert queue(s) == [(HIPPO, B), (KANGAROO, Y), (CHAMELEON, R)]


# ---------------------------------------------------------------------------------------------
# Five-animal check (§7), drawing and game end (§4, §8)


def test_no_check_when_an_effect_leaves_fewer_than_five():
    s = position([(LION, B), (HIPPO, Y), (SEAL, G), (SKUNK, G)], mover=R, hand=[PARROT])
    bar, out = play(s, Play(PARROT, None, 2))
    assert bar == [] and out == [(SEAL, G)]
    assert queue(s) == [(LION, B), (HIPPO, Y), (SKUNK, G), (PARROT, R)]


def test_draw_from_own_pile_top_first_and_turn_passes():
    cfg = Config(num_players=2, first_player=0)
    s = State.from_position(
        cfg,
        hands=[[LION, SEAL], [ZEBRA]],
        draw_piles=[[SKUNK, PARROT], []],
        current_player=0,
    )
    s.apply(Play(LION))
    assert s.view(0).hand == (SKUNK, SEAL)
    assert s.view(0).draw_sizes == (1, 0)
    assert s.current_player == 1 and s.turn == 1
    s.apply(Play(ZEBRA))
    assert s.current_player == 0
    s.apply(Play(SEAL))
    assert s.view(0).hand == (SKUNK, PARROT)


def test_game_ends_after_last_card_and_queue_does_not_score():
    cfg = Config(num_players=2, first_player=0)
    s = State.from_position(cfg, hands=[[LION], [HIPPO]], bar=[(SKUNK, 0)], current_player=0)
    assert s.winners() == ()
    s.apply(Play(LION))
    assert not s.terminal and s.winners() == ()
    s.apply(Play(HIPPO))
    assert s.terminal and s.current_player == -1 and s.legal_move_ids() == []
    assert queue(s) == [(LION, 0), (HIPPO, 1)]  # stays in the queue, scores nothing
    assert s.bar_scores() == (1, 0) and s.winners() == (0,)
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply(Play(SEAL))


# ---------------------------------------------------------------------------------------------
# Scoring and tiebreaks (§8)


def finished(cfg: Config, bar) -> State:
    return State.from_position(cfg, bar=bar, hands=[[] for _ in range(cfg.num_players)])


def test_count_most_animals_wins():
    s = finished(Config(num_players=3), [(LION, 0), (HIPPO, 1), (SKUNK, 1), (SEAL, 2)])
    assert s.bar_scores() == (1, 2, 1)
    assert s.winners() == (1,)


def test_count_tie_lower_strength_sum_wins_3_players():
    bar = [(LION, 0), (SKUNK, 0), (HIPPO, 1), (PARROT, 1), (SEAL, 2), (KANGAROO, 2)]
    s = finished(Config(num_players=3), bar)
    assert s.bar_strength_sums() == (13, 13, 9)
    assert s.winners() == (2,)


def test_count_shared_win_when_still_tied():
    bar = [(LION, 0), (SKUNK, 0), (LION, 1), (SKUNK, 1), (SEAL, 2)]
    s = finished(Config(num_players=3), bar)
    assert s.winners() == (0, 1)


def test_points_mode_uses_the_summary_card():
    assert POINTS[1:] == (4, 4, 4, 3, 3, 2, 4, 3, 2, 3, 2, 2)
    cfg = Config(num_players=2, scoring="points")
    # seat 0: two animals worth 4 (zebra, skunk) = 8; seat 1: three worth 2 = 6
    s = finished(cfg, [(ZEBRA, 0), (SKUNK, 0), (LION, 1), (HIPPO, 1), (SNAKE, 1)])
    assert s.bar_scores() == (8, 6)
    assert s.winners() == (0,)
    # the same bar in count mode: seat 1 has more animals
    s = finished(Config(num_players=2), [(ZEBRA, 0), (SKUNK, 0), (LION, 1), (HIPPO, 1), (SNAKE, 1)])
    assert s.winners() == (1,)


def test_points_tie_broken_by_strength_sum_then_shared():
    cfg = Config(num_players=2, scoring="points")
    s = finished(cfg, [(LION, 0), (HIPPO, 0), (PARROT, 1)])  # 4 = 4; sums 23 vs 2
    assert s.bar_scores() == (4, 4)
    assert s.winners() == (1,)
    assert s.scores() == (3.77, 3.98)
    s = finished(cfg, [(PARROT, 0), (PARROT, 1)])
    assert s.winners() == (0, 1)


def test_empty_bars_everyone_wins():
    s = finished(Config(num_players=4), [])
    assert s.winners() == (0, 1, 2, 3)


# ---------------------------------------------------------------------------------------------
# Config validation (§14)


@pytest.mark.parametrize(
    "kwargs, option",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 5}, "num_players"),
        ({"num_players": "2"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"first_player": 2}, "first_player"),
        ({"num_players": 3, "first_player": 3}, "first_player"),
        ({"first_player": "wildest"}, "first_player"),
        ({"scoring": "most"}, "scoring"),
        ({"set_aside": 3}, "set_aside"),
        ({"set_aside": True}, "set_aside"),
        ({"chameleon_may_decline": 1}, "chameleon_may_decline"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_config_rejects_invalid_values(kwargs, option):
    with pytest.raises(ValueError, match=option):
        Config(**kwargs)


def test_config_error_lists_allowed_values_and_defaults():
    with pytest.raises(ValueError, match="'count', 'points'"):
        Config(scoring="max")
    with pytest.raises(ValueError, match="0, 4"):
        Config(set_aside=2)
    c = Config()
    assert (c.num_players, c.first_player, c.scoring, c.set_aside, c.chameleon_may_decline) == (
        2,
        "random",
        "count",
        0,
        False,
    )
    Config(num_players=4, first_player=3, scoring="points", set_aside=4, chameleon_may_decline=True)


# ---------------------------------------------------------------------------------------------
# Illegal moves


@pytest.mark.parametrize(
    "move",
    [
        Play(LION),  # not in hand
        Play(PARROT, None, 3),  # no animal at position 3
        Play(PARROT, None, 2),  # that is the parrot itself
        Play(PARROT),  # a target exists: "no target" is not a legal form
        Play(KANGAROO, None, 2),  # not in hand
        Play(CHAMELEON),  # species present, decline not allowed
        Play(CHAMELEON, LION),  # no lion in the queue
        Play(CHAMELEON, CHAMELEON),  # not a move at all
        SetAside(PARROT),  # not the set-aside phase
        MOVE_INDEX[Play(HIPPO)],  # by id, not in hand
        NUM_MOVES,  # out of range
        -1,
        "play Parrot",
        None,
    ],
)
def test_illegal_move_raises_and_leaves_state_unchanged(move):
    s = position([(SEAL, B), (ZEBRA, Y)], mover=R, hand=[PARROT, CHAMELEON, SNAKE])
    before = snapshot(s)
    with pytest.raises(IllegalMoveError):
        s.apply(move)
    assert snapshot(s) == before
    s.apply(Play(PARROT, None, 0))  # still playable afterwards
    assert queue(s) == [(ZEBRA, Y), (PARROT, R)]


def test_illegal_move_message_names_move_player_and_legal_moves():
    s = position([(ZEBRA, Y)], mover=B, hand=[KANGAROO])
    with pytest.raises(IllegalMoveError) as err:
        s.apply(Play(KANGAROO, None, 2))
    text = str(err.value)
    assert "play Kangaroo, jump 2" in text
    assert "seat 2" in text
    assert "play Kangaroo, jump 1" in text


def test_illegal_move_in_set_aside_phase():
    s = State(Config(num_players=2, set_aside=4, scoring="points"), seed=1)
    before = snapshot(s)
    for move in (Play(LION), MOVE_INDEX[Play(SKUNK)]):
        with pytest.raises(IllegalMoveError):
            s.apply(move)
    assert snapshot(s) == before
    s.apply(SetAside(LION))
    with pytest.raises(IllegalMoveError):
        s.apply(SetAside(LION))  # already set aside


# ---------------------------------------------------------------------------------------------
# Move universe


def test_move_universe_is_stable_and_readable():
    assert NUM_MOVES == 45 == len(MOVES) == len(MOVE_INDEX)
    assert all(MOVE_INDEX[m] == i for i, m in enumerate(MOVES))
    expected = {
        0: "play Skunk",
        1: "play Parrot (no other animal to expel)",
        5: "play Parrot, expel position 3",
        8: "play Kangaroo, jump 2",
        10: "play Chameleon without imitating",
        15: "play Chameleon as Parrot, expel position 3",
        17: "play Chameleon as Kangaroo, jump 2",
        25: "play Chameleon as Lion",
        32: "play Lion",
        33: "set aside Skunk",
        44: "set aside Lion",
    }
    for i, text in expected.items():
        assert str(MOVES[i]) == text
    assert len({str(m) for m in MOVES}) == NUM_MOVES


# ---------------------------------------------------------------------------------------------
# Advanced variant: set-aside (§9)


def test_set_aside_flow_hidden_and_game_length():
    n = 3
    cfg = Config(num_players=n, set_aside=4, scoring="points", first_player=2)
    s = State(cfg, seed=7)
    assert s.current_player == 0 and s.turn == 0
    assert len(s.legal_move_ids()) == 12
    choices = {0: [LION, HIPPO, SKUNK, SEAL], 1: [PARROT, ZEBRA, MONKEY, SNAKE], 2: [1, 2, 3, 4]}
    for seat in range(n):
        for k, animal in enumerate(choices[seat]):
            assert s.current_player == seat
            assert len(s.legal_move_ids()) == 12 - k
            s.apply(SetAside(animal))
            other = (seat + 1) % n
            v_own, v_other = s.view(seat), s.view(other)
            assert v_own.set_aside == tuple(sorted(choices[seat][: k + 1]))
            assert v_other.set_aside == (tuple(sorted(choices[other])) if other < seat else ())
            assert v_other.set_aside_sizes[seat] == k + 1
            assert len(v_other.unplayed[seat]) == 12  # still just "not played yet"
    assert s.turn == 0 and s.current_player == 2  # first_player starts the play phase
    assert [len(h) for h in s.hands] == [4, 4, 4] and [len(d) for d in s.draws] == [4, 4, 4]
    for seat in range(n):
        in_play = {c % 12 + 1 for c in s.hands[seat] + s.draws[seat]}
        assert in_play.isdisjoint(choices[seat])
    rng = random.Random(3)
    while not s.terminal:
        s.apply(rng.choice(s.legal_move_ids()))
    assert s.turn == 8 * n
    for seat in range(n):
        assert s.view(seat).set_aside == tuple(sorted(choices[seat]))


def test_set_aside_choice_invisible_to_opponents():
    cfg = Config(num_players=2, set_aside=4, scoring="points")
    views = []
    for picks in ([LION, HIPPO, CROCODILE, SNAKE], [SKUNK, PARROT, KANGAROO, MONKEY]):
        s = State(cfg, seed=11)
        for a in picks:
            s.apply(SetAside(a))
        assert s.current_player == 1
        views.append(s.view(1))
    assert views[0] == views[1]


# ---------------------------------------------------------------------------------------------
# Hidden information: view, determinize, clone


def random_state(cfg: Config, seed: int, steps: int) -> State:
    rng = random.Random(seed)
    s = State(cfg, seed=seed)
    for _ in range(steps):
        if s.terminal:
            break
        s.apply(rng.choice(s.legal_move_ids()))
    return s


@pytest.mark.parametrize(
    "cfg",
    [Config(num_players=2), Config(num_players=4), Config(num_players=3, set_aside=4)],
)
def test_determinize_keeps_the_view_and_changes_hidden_parts(cfg):
    changed_hands = changed_aside = 0
    for seed in range(30):
        s = random_state(cfg, seed, steps=seed % 12 + (12 if cfg.set_aside else 0))
        player = seed % cfg.num_players
        d = s.determinize(player, np.random.default_rng(seed))
        assert d.view(player) == s.view(player)
        assert sorted(d.hands[player]) == sorted(s.hands[player])
        totals = [sum(col) for col in zip(*d.census().values(), strict=True)]
        assert totals == d.card_totals
        others = [q for q in range(cfg.num_players) if q != player]
        changed_hands += any(sorted(d.hands[q]) != sorted(s.hands[q]) for q in others)
        changed_aside += any(sorted(d.set_asides[q]) != sorted(s.set_asides[q]) for q in others)
        while not d.terminal:  # still a playable game
            d.apply(d.legal_move_ids()[0])
    assert changed_hands >= 10
    if cfg.set_aside:
        assert changed_aside >= 10


def test_view_hides_other_hands_and_draw_orders():
    s = State(Config(num_players=2), seed=5)
    v = s.view(0)
    assert v.hand == tuple(sorted(c % 12 + 1 for c in s.hands[0]))
    assert v.hand_sizes == (4, 4) and v.draw_sizes == (8, 8)
    assert v.unplayed == (tuple(range(1, 13)), tuple(range(1, 13)))
    # a different deal of seat 1 and of both draw piles gives the same view to seat 0
    d = s.clone()
    d.hands[1], d.draws[1] = d.draws[1][:4], d.hands[1] + d.draws[1][4:]
    d.draws[0].reverse()
    assert d.view(0) == v
    assert d.view(1) != s.view(1)


def test_clone_is_independent():
    s = random_state(Config(num_players=3), seed=4, steps=7)
    before = snapshot(s)
    c = s.clone()
    assert snapshot(c) == before
    while not c.terminal:
        c.apply(c.legal_move_ids()[-1])
    assert snapshot(s) == before
    c2 = s.clone()
    assert c2.rng.integers(1 << 30, size=4).tolist() == s.rng.integers(1 << 30, size=4).tolist()


# ---------------------------------------------------------------------------------------------
# Random play properties


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("set_aside", [0, 4])
def test_random_games_conserve_cards_and_have_exact_length(num_players, set_aside):
    cfg = Config(num_players=num_players, set_aside=set_aside, chameleon_may_decline=set_aside > 0)
    totals = [1] * (12 * num_players)
    for seed in range(60):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        decisions = 0
        while not s.terminal:
            ids = s.legal_move_ids()
            assert ids and ids == sorted(set(ids))
            player = s.current_player
            hand = {c % 12 + 1 for c in s.hands[player]}
            assert {MOVES[i].animal for i in ids} == hand
            s.apply(rng.choice(ids))
            decisions += 1
            assert len(s.queue) <= 4
            assert [sum(col) for col in zip(*s.census().values(), strict=True)] == totals
        per_player = 12 - set_aside
        assert s.turn == per_player * num_players
        assert decisions == 12 * num_players
        assert len(s.bar) % 2 == 0
        assert s.winners() and all(0 <= w < num_players for w in s.winners())


def test_same_seed_same_game_and_first_player_random():
    a = random_state(Config(num_players=4), seed=9, steps=20)
    b = random_state(Config(num_players=4), seed=9, steps=20)
    assert a.render() == b.render()
    firsts = {State(Config(num_players=4), seed=k).current_player for k in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert State(Config(num_players=3, first_player=2), seed=0).current_player == 2
