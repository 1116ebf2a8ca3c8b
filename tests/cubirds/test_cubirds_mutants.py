"""Rules and contract points of the Cubirds engine that mutation testing found unchecked.

Each test names the rule it checks (rules spec sections as in ``test_cubirds_rules.py``; the
engine contract in ``envs/core.py``). They were written against the mutants that survived
``make mutation`` (see ``docs/mutation.md``): a test here fails when the rule it names is broken.
Cards are written with the spec's letters (F O T D P M W R), rows left to right, the draw pile top
first.
"""

from __future__ import annotations

import random

import pytest
from cardzoo.envs.cubirds.data import SPECIES_LETTERS, SPECIES_NAMES
from cardzoo.envs.cubirds.game import Config, Draw, Flock, Lay, State, row_blocks

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
