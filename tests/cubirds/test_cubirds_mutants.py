"""Rules and contract points of the Cubirds engine that mutation testing found unchecked.

Each test names the rule it checks (rules spec sections as in ``test_cubirds_rules.py``; the
engine contract in ``envs/core.py``). They were written against the mutants that survived
``make mutation`` (see ``docs/mutation.md``): a test here fails when the rule it names is broken.
Cards are written with the spec's letters (F O T D P M W R), rows left to right, the draw pile top
first.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
    SPECIES_LETTERS,
    SPECIES_NAMES,
)
from cardzoo.envs.cubirds.game import GAME_OVER, Config, Draw, Flock, Lay, State, row_blocks
from cubirds_worlds import random_states

F, O, T, D, P, M, W, R = range(8)  # noqa: E741 (O is the spec letter for Owl)
LEFT, RIGHT = 0, 1
DECLINE, PASS = Draw(False), Flock(None)
ROWS = ("FOP", "WRT", "WRM", "FTW")  # no Duck anywhere: laying a Duck never captures
LONG_DRAW = "RW" * 30


def cnt(cards: str) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[SPECIES_LETTERS.index(c)] += 1
    return counts


def ids(cards: str) -> list[int]:
    return [SPECIES_LETTERS.index(c) for c in cards]


def pos(hands, rows=ROWS, draw=LONG_DRAW, discard="", collections=None, current=0, **options):
    return State.from_position(
        Config(num_players=len(hands), **options),
        hands=list(hands),
        rows=list(rows),
        draw=draw,
        discard=discard,
        collections=collections,
        current_player=current,
    )


def random_state(cfg: Config, seed: int, steps: int) -> State:
    rng = random.Random(seed)
    s = State(cfg, seed=seed)
    for _ in range(steps):
        if s.terminal:
            break
        s.apply(rng.choice(s.legal_move_ids()))
    return s


# ---------------------------------------------------------------------------------------------
# turn counting (module docstring: ``turn`` counts completed turns, a round-ending turn once;
# the env truncates after ``max_turns`` of them)


def test_turn_counts_completed_turns():
    s = pos(["DO", "DO", "DO"])
    assert s.turn == 0
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.turn == 1 and s.current_player == 1
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.turn == 2


def test_round_ending_turn_counts_once():
    s = pos(["DO", "DO"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.turn == 1
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Lay(O, 1, RIGHT))  # seat 0 lays its last card: the round ends in this turn
    assert s.round == 2 and s.turn == 3


# ---------------------------------------------------------------------------------------------
# §9 the public discard pile keeps counting what was revealed into it


def test_flocked_cards_add_to_the_public_discard_pile():
    # 3 Flamingos are a big flock: 2 banked, 1 discarded on top of the 2 already public
    s = pos(["FFFD", "DO"], discard="FF")
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(F))
    assert s.collections[0][F] == 2
    assert s.discard_public[F] == 3
    assert s.view(1).discard_known[F] == 3


def test_round_end_discards_add_to_the_public_discard_pile():
    s = pos(["D", "OOT"], discard="OO")
    s.apply(Lay(D, 0, RIGHT))  # the hand is empty: the round ends, seat 1 discards O, O, T
    assert s.round == 2
    assert s.discard_public[O] == 4 and s.discard_public[T] == 1


# ---------------------------------------------------------------------------------------------
# §4.1 rows: the runs the encoder and the renders show


def test_row_blocks_counts_each_run_of_a_species():
    assert row_blocks(ids("PPPPT")) == [(P, 4), (T, 1)]
    assert row_blocks(ids("FOOOP")) == [(F, 1), (O, 3), (P, 1)]
    assert row_blocks(tuple(ids("W"))) == [(W, 1)]
    assert row_blocks([]) == []


# ---------------------------------------------------------------------------------------------
# information: determinize


def test_determinize_is_reproducible_from_its_seed():
    s = random_state(Config(num_players=3), seed=3, steps=9)
    a, b = s.determinize(1, 21), s.determinize(1, 21)
    assert a.hands == b.hands and a.draw == b.draw and a.discard == b.discard
    others = [s.determinize(1, seed) for seed in range(22, 30)]
    assert any(o.hands != a.hands or o.draw != a.draw for o in others)
    # the worlds' own RNGs (used by every later reshuffle) come from the seed as well
    assert play_out(a, seed=4).render() == play_out(b, seed=4).render()


def play_out(s: State, seed: int) -> State:
    rng = random.Random(seed)
    while not s.terminal and s.turn < 500:
        s.apply(rng.choice(s.legal_move_ids()))
    return s


def test_hand_set_position_reshuffles_reproducibly():
    # One card left to draw: taking 2 reshuffles the discard pile with the state's own RNG.
    def after_draw(**seed) -> list[int]:
        s = State.from_position(
            Config(num_players=2),
            hands=["DO", "DO"],
            rows=list(ROWS),
            draw="R",
            discard="OTTWWMMPPFF",
            **seed,
        )
        s.apply(Lay(D, 0, RIGHT))
        s.apply(Draw(True))
        return s.draw[:]

    assert after_draw() == after_draw() == after_draw(seed=0)
    assert len({tuple(after_draw(seed=k)) for k in range(6)}) > 1


# ---------------------------------------------------------------------------------------------
# hand-set positions (State.from_position)


def test_hand_set_position_takes_species_ids_as_well_as_letters():
    by_letters = pos(["PPOM", "DD"], draw="PTR", discard="WW", collections=["F", ""])
    by_ids = State.from_position(
        Config(num_players=2),
        hands=[ids("PPOM"), ids("DD")],
        rows=[ids(r) for r in ROWS],
        draw=ids("RW" * 30),
        discard=ids("WW"),
        collections=[ids("F"), []],
    )
    assert by_ids.hands == by_letters.hands and by_ids.rows == by_letters.rows
    assert by_ids.discard == by_letters.discard and by_ids.collections == by_letters.collections
    assert (
        pos(["PPOM", "DD"], draw="PTR").draw
        == State.from_position(
            Config(num_players=2), hands=["PPOM", "DD"], rows=list(ROWS), draw=ids("PTR")
        ).draw
    )


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"hands": ["PP"]}, "hands: expected 2 hands, got 1"),
        ({"rows": ["FOP", "WRT", "WRM"]}, "rows: expected 4 rows, got 3"),
    ],
)
def test_hand_set_position_rejects_wrong_counts_with_a_clear_error(kwargs, message):
    given = {"hands": ["PP", "DD"], "rows": list(ROWS), **kwargs}
    with pytest.raises(ValueError, match=message):
        State.from_position(Config(num_players=2), **given)


# ---------------------------------------------------------------------------------------------
# the renders: the referee's table and a seat's own view


def test_render_names_the_decision_pending_and_the_end():
    s = pos(["DO", "DO"], collections=["FF", ""])
    lines = s.render().splitlines()
    assert lines[0].endswith("seat 0 to lay")
    assert lines[8].split()[:3] == ["0", "2", "Flamingo"]  # seat 0's collection is shown
    assert lines[9].split()[:2] == ["1", "-"]
    s.apply(Lay(D, 0, RIGHT))
    assert s.render().splitlines()[0].endswith("seat 0 to draw")
    s = pos(["DTTT", "OO"], collections=["OOOTT", ""])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(T))
    assert s.terminal
    assert s.render().splitlines()[0].endswith("game over (win), winners [0]")


def test_render_for_tells_a_seat_whose_turn_it_is():
    s = pos(["DO", "DO", "DO"])
    assert s.render_for(0).splitlines()[0].endswith("my turn (seat 0) to lay")
    assert s.render_for(1).splitlines()[0].endswith("seat 0's turn")
    rows = [line for line in s.render_for(2).splitlines() if line[:1].isdigit()]
    assert [r.split()[0] for r in rows] == ["0", "1", "2"]
    assert rows[2].startswith("2 (me)") and not rows[0].startswith("0 (me)")


def test_render_for_shows_the_draw_pool_discards_and_collections():
    s = pos(["D", "OOT"], draw="RRWW", discard="OO", collections=["F", "TT"])
    s.apply(Lay(D, 0, RIGHT))  # round end: seat 1's O, O, T are discarded face up
    text = s.render_for(1)
    view = s.view(1)
    unseen = sum(view.draw_pool) + view.draw_pool_unknown - view.draw_size
    pool_line = next(line for line in text.splitlines() if line.startswith("draw pile"))
    assert pool_line.endswith(f"{unseen} of those drawn unseen since")
    assert "known: 4 Owl, 1 Toucan" in text
    rows = [line for line in text.splitlines() if line[:1].isdigit()]
    assert "1 Flamingo" in rows[0] and "2 Toucan" in rows[1]


def test_render_for_lists_an_unknown_part_of_the_draw_pool():
    # Face-down round-end discards: after they are reshuffled, a seat knows only some species.
    cfg = Config(num_players=3, reveal_round_end_discards=False)
    for seed in range(40):
        s = random_state(cfg, seed, steps=200)
        view = s.view(0)
        if view.draw_pool_unknown and not s.terminal:
            line = next(x for x in s.render_for(0).splitlines() if x.startswith("draw pile"))
            known = [
                f"{c} {SPECIES_NAMES[k].split()[-1]}" for k, c in enumerate(view.draw_pool) if c
            ]
            pool = ", ".join(known) or "-"
            assert f"its pool: {pool}, {view.draw_pool_unknown} unknown;" in line
            return
    pytest.fail("no random game reached a draw pool with an unknown part")


def test_moves_read_like_the_rulebook():
    assert str(Draw(True)) == "take the top 2 cards of the draw pile"
    assert str(DECLINE) == "decline the 2-card draw"
    assert str(PASS) == "pass (complete no flock)"
    assert str(Flock(O)) == "complete a flock of Owls"
    assert str(Lay(P, 2, LEFT)) == "lay all Parrots at the left end of row 2"


# ---------------------------------------------------------------------------------------------
# moves compare by type with != as well as == (Draw(True) and Flock(1) are equal plain tuples)


def test_moves_of_different_kinds_are_unequal_with_both_operators():
    # user code and agents compare moves with != too; it must agree with ==
    assert Draw(True) != Flock(1) and Flock(0) != Draw(False)
    assert not (Draw(True) != Draw(True)) and not (Flock(O) != Flock(O))
    assert not (PASS != Flock(None)) and PASS != Flock(O)


# ---------------------------------------------------------------------------------------------
# contract: clone is an independent copy of everything, a finished game included


def won_by_the_smaller_collection() -> State:
    # seat 0 wins with two triples (7 cards) while seat 1 holds 8: a win lifts seat 0's score
    s = pos(["DTTT", "OO"], collections=["OOOTT", "FFMMMMWW"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Flock(T))
    assert s.terminal and s.end_reason == "win"
    return s


def test_clone_of_a_finished_game_keeps_why_it_ended():
    s = won_by_the_smaller_collection()
    c = s.clone()
    assert c.end_reason == "win" and c.winners() == (0,)
    assert c.scores() == s.scores() == (9.0, 8.0)
    assert c.render() == s.render()


# ---------------------------------------------------------------------------------------------
# §9 view: the round, the turn and the end are shown to every seat


def test_every_seat_sees_the_round_and_turn():
    s = pos(["DO", "DO"])
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    s.apply(Lay(O, 1, RIGHT))  # the round ends in turn 3
    for q in range(2):
        view = s.view(q)
        assert (view.round, view.turn) == (2, 3)
        assert "round 2, turn 3:" in s.render_for(q).splitlines()[0]


def test_every_seat_sees_the_game_over():
    s = won_by_the_smaller_collection()
    for q in range(2):
        view = s.view(q)
        assert view.terminal and view.phase == GAME_OVER and view.winners == (0,)


# ---------------------------------------------------------------------------------------------
# §9 face-down round-end discards: a reshuffled pile is known to each seat as its public cards
# plus the cards that seat threw away itself


def face_down_discards_reshuffled() -> State:
    # Seat 0 empties its hand; seats 1 and 2 throw P P M W and T T R F away face down. The deal
    # of round 2 empties the draw pile (R R W W) and reshuffles the discard pile: its 16 public
    # cards and those 8 hidden ones. Seat 0 draws 4 of them, seats 1 and 2 draw 8 each.
    s = pos(
        ["D", "PPMW", "TTRF"],
        draw="RRWW",
        discard="OOOOFFFMMMMPPPPR",
        reveal_round_end_discards=False,
    )
    s.apply(Lay(D, 0, RIGHT))
    assert s.round == 2 and len(s.draw) == 4 and s.log[-4][0] == EV_RESHUFFLE
    return s


def pool_record(s: State, q: int) -> tuple[list[int], int, list[int]]:
    """From the public record and seat ``q``'s own thrown-away cards only: the cards of the
    current pile's source that ``q`` can name, the source's size, and the cards seen leaving it."""
    n = s.num_players
    named, size, seen, thrown = [0] * 8, 0, [0] * 8, [[0] * 8 for _ in range(n)]
    for ev in s.log:
        if ev[0] == EV_SOURCE:
            named, size, seen, thrown = list(ev[1]), sum(ev[1]), [0] * 8, [[0] * 8] * n
        elif ev[0] == EV_RESHUFFLE:
            named = [a + b for a, b in zip(ev[1], thrown[q])]
            size = sum(ev[1]) + sum(map(sum, thrown))
            seen, thrown = [0] * 8, [[0] * 8] * n
        elif ev[0] == EV_ROUND_END:
            thrown = [[a + b for a, b in zip(t, left)] for t, left in zip(thrown, ev[1])]
        elif ev[0] == EV_PUBLIC:
            seen[ev[1]] += 1
    return named, size, seen


def pool_from_the_record(s: State, q: int) -> tuple[list[int], int]:
    """Seat ``q``'s knowledge of the pool: (cards per species it can name, cards it cannot)."""
    named, size, seen = pool_record(s, q)
    lower = [max(k - t, 0) for k, t in zip(named, seen)]
    return lower, size - sum(seen) - sum(lower)


def test_face_down_discards_each_seat_knows_its_own_part_of_the_reshuffled_pool():
    s = face_down_discards_reshuffled()
    assert pool_from_the_record(s, 1) == (
        [a + b for a, b in zip(cnt("OOOOFFFMMMMPPPPR"), cnt("PPMW"))],
        4,  # seat 2's cards
    )
    for q in range(3):
        view = s.view(q)
        assert (list(view.draw_pool), view.draw_pool_unknown) == pool_from_the_record(s, q)


def test_face_down_discards_each_seats_pool_follows_the_record_in_random_play():
    # Public draws (refills) take cards a seat can name or cards of its unnamed part; either way
    # its view stays what the public record and its own thrown-away cards say.
    unnamed_seen = 0
    for seed in range(8):
        cfg = Config(num_players=3, reveal_round_end_discards=False, flock_step="always")
        for state in random_states(3, seed, config=cfg):
            for q in range(3):
                view = state.view(q)
                pool = (list(view.draw_pool), view.draw_pool_unknown)
                assert pool == pool_from_the_record(state, q), (seed, state.move_count, q)
                named, _, seen = pool_record(state, q)
                unnamed_seen += any(t > k for k, t in zip(named, seen))
    assert unnamed_seen  # some refill took a card the seat could not name


def test_determinize_gives_every_seat_of_the_sample_its_own_knowledge_of_the_pool():
    # A search plays the other seats of a sample on their views: each must know the public
    # cards and the cards it threw away in that sample (the player's own, or resampled ones).
    s = face_down_discards_reshuffled()
    for player in range(3):
        for k in range(10):
            sample = s.determinize(player, np.random.default_rng(k))
            for q in range(3):
                view = sample.view(q)
                pool = (list(view.draw_pool), view.draw_pool_unknown)
                assert pool == pool_from_the_record(sample, q), (player, k, q)


@pytest.mark.parametrize("reveal", [True, False])
def test_determinize_keeps_every_seats_pool_after_public_draws(reveal):
    # The setup collection cards and the refills are seen leaving the pile: in a sample, every
    # seat's view of the pool must still count them out, as the public record says.
    cfg = Config(num_players=3, reveal_round_end_discards=reveal)
    checked = 0
    for state in random_states(3, 2, every=5, config=cfg):
        if state.terminal:
            continue
        for player in range(3):
            sample = state.determinize(player, np.random.default_rng(player))
            for q in range(3):
                view = sample.view(q)
                pool = (list(view.draw_pool), view.draw_pool_unknown)
                assert pool == pool_from_the_record(sample, q), (state.move_count, player, q)
                checked += any(view.draw_pool) and sum(pool_record(sample, q)[2]) > 0
    assert checked  # some sampled seat knew part of a pool that public draws had taken from


def test_render_for_counts_the_cards_drawn_unseen_from_the_pool():
    # seat 1 cannot name 4 cards of the pool; 20 were drawn from it unseen since the reshuffle
    s = face_down_discards_reshuffled()
    since = s.log[[ev[0] for ev in s.log].index(EV_RESHUFFLE) :]
    drawn = sum(sum(ev[2]) for ev in since if ev[0] == EV_BATCH)
    assert drawn == 20 and s.view(1).draw_pool_unknown == 4
    line = next(x for x in s.render_for(1).splitlines() if x.startswith("draw pile"))
    assert line.endswith(", 4 unknown; 20 of those drawn unseen since")


# ---------------------------------------------------------------------------------------------
# determinize: each sample gets its own RNG for the reshuffles still to come


def test_determinized_worlds_draw_their_rngs_from_a_wide_range():
    # 130 samples from a narrow seed range (say 126 values) would share some future shuffles
    s = random_state(Config(num_players=2), seed=5, steps=6)
    firsts = {int(s.determinize(0, k).rng.integers(2**62)) for k in range(130)}
    assert len(firsts) == 130


# ---------------------------------------------------------------------------------------------
# §9 exact flags: a flock adds its species to those laid earlier in the turn


def test_flock_keeps_the_exact_flag_of_the_species_laid_before_it():
    s = pos(["DTTTO", "DO"])
    s.apply(Lay(D, 0, RIGHT))  # no Duck in any row: nothing captured
    s.apply(DECLINE)
    s.apply(Flock(T))  # the turn passes; seat 0 still holds its Owl
    assert s.current_player == 1
    flags = [0] * 8
    flags[D] = flags[T] = 1
    assert s.exact[0] == flags
    assert list(s.view(1).exact[0]) == [bool(f) for f in flags]


# ---------------------------------------------------------------------------------------------
# State(config): the documented default, and a clear error for anything else


def test_state_without_a_config_plays_the_default_rules():
    assert State(seed=3).config == Config()
    assert State(None, seed=3).render() == State(Config(), seed=3).render()


def test_state_rejects_a_config_of_another_kind_with_a_clear_error():
    with pytest.raises(TypeError, match="config must be a cubirds Config, got dict"):
        State({"num_players": 3}, seed=0)


# ---------------------------------------------------------------------------------------------
# §12 configuration: each error names its option exactly


@pytest.mark.parametrize(
    "kwargs, option",
    [
        ({"num_players": 9}, "num_players"),
        ({"first_player": 5}, "first_player"),
        ({"draw_after_empty_hand": 1}, "draw_after_empty_hand"),
        ({"midturn_exhaustion": "stop"}, "midturn_exhaustion"),
        ({"reveal_round_end_discards": 1}, "reveal_round_end_discards"),
        ({"flock_step": "never"}, "flock_step"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_config_error_quotes_the_option_name(kwargs, option):
    with pytest.raises(ValueError, match=f"option '{option}'"):
        Config(**kwargs)
