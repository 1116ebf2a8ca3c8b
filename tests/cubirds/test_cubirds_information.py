"""Cubirds information rules (rules spec §4.2 and §9): what each seat sees, also during another
player's turn, and ``determinize`` sampling only games consistent with everything a seat has seen.

Positions are hand-set with the spec's letters (F O T D P M W R), rows left to right, the draw pile
top first.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.encoders.cubirds import CubirdsEncoder
from cardzoo.envs.cubirds import hidden as belief
from cardzoo.envs.cubirds.data import SPECIES_LETTERS
from cardzoo.envs.cubirds.game import (
    DRAW_PHASE,
    FLOCK_PHASE,
    LAY_PHASE,
    Config,
    Draw,
    Flock,
    Lay,
    State,
)
from cubirds_worlds import (
    PLAYER_COUNTS,
    agrees_with_what_was_seen,
    explained_by_its_log,
    random_states,
)

F, O, T, D, P, M, W, R = range(8)  # noqa: E741 (O is the spec letter for Owl)
LEFT, RIGHT = 0, 1
TAKE, DECLINE, PASS = Draw(True), Draw(False), Flock(None)
ROWS = ("FOP", "WRT", "WRM", "FTW")  # no Duck anywhere: laying a Duck never captures
LONG_DRAW = "RW" * 30


def cnt(cards: str) -> list[int]:
    counts = [0] * 8
    for c in cards:
        counts[SPECIES_LETTERS.index(c)] += 1
    return counts


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


# ---------------------------------------------------------------------------------------------
# §4.2: the pending decision is the acting player's business only


@pytest.mark.parametrize("flock_step", ["auto", "always"])
def test_observer_sees_no_phase_during_another_players_turn(flock_step):
    # Seat 0 lays (no capture), so it must decide on the draw, then on a flock (two Flamingos).
    s = pos(["DFF", "OOT"], flock_step=flock_step)
    enc = CubirdsEncoder(s.config)
    seen_phases = []
    for move in (Lay(D, 0, RIGHT), DECLINE):
        s.apply(move)
        assert s.current_player == 0
        seen_phases.append(s.phase)
        mine, theirs = enc.split(enc.encode(s, 0)), enc.split(enc.encode(s, 1))
        assert mine["phase"].tolist() == [int(s.phase == k) for k in range(3)]
        assert theirs["phase"].tolist() == [0, 0, 0]  # the observer does not see it
        assert theirs["to_act"].tolist() == [0, 1]  # whose turn it is is public
        assert s.view(1).phase is None and s.view(0).phase == s.phase
    assert seen_phases == [DRAW_PHASE, FLOCK_PHASE]


def test_always_asked_flock_step_hides_whether_a_flock_is_possible():
    # Same public history and the same unseen cards; seat 0 can flock in a, not in b. With
    # flock_step="always" the observer's observation is the same at every step of the turn.
    a = pos(["DFF", "OOT"], draw="O" + LONG_DRAW, flock_step="always")
    b = pos(["DFO", "OOT"], draw="F" + LONG_DRAW, flock_step="always")
    enc = CubirdsEncoder(a.config)
    for move_a, move_b in [(Lay(D, 0, RIGHT),) * 2, (DECLINE,) * 2, (Flock(None),) * 2]:
        assert np.array_equal(enc.encode(a, 1), enc.encode(b, 1))
        a.apply(move_a)
        b.apply(move_b)
        assert np.array_equal(enc.encode(a, 1), enc.encode(b, 1))
    assert a.current_player == b.current_player == 1
    assert not np.array_equal(enc.encode(a, 0), enc.encode(b, 0))  # seat 0 knows its hand


def test_auto_flock_step_timing_signal_is_real():
    # The documented caveat of flock_step="auto": looking during seat 0's turn, seat 1 sees whether
    # seat 0 is still to act after its draw step (a: it can flock) or not (b).
    a = pos(["DFF", "OOT"], draw="O" + LONG_DRAW)
    b = pos(["DFO", "OOT"], draw="F" + LONG_DRAW)
    enc = CubirdsEncoder(a.config)
    for s in (a, b):
        s.apply(Lay(D, 0, RIGHT))
        s.apply(DECLINE)
    assert (a.current_player, b.current_player) == (0, 1)
    assert not np.array_equal(enc.encode(a, 1), enc.encode(b, 1))
    a.apply(PASS)  # at seat 1's own turn the two are the same again
    assert np.array_equal(enc.encode(a, 1), enc.encode(b, 1))


def test_always_flock_step_asks_even_with_nothing_to_flock():
    s = pos(["DFO", "OOT"], flock_step="always")
    s.apply(Lay(D, 0, RIGHT))
    s.apply(DECLINE)
    assert s.phase == FLOCK_PHASE and s.current_player == 0
    assert s.legal_moves() == [PASS]
    s.apply(PASS)
    assert s.phase == LAY_PHASE and s.current_player == 1
    # After a capture too (rules spec example 1: the lay captures F and O, no flock possible).
    s = pos(["PPOM", "DD"], draw="PTRRWW", flock_step="always")
    s.apply(Lay(P, 0, LEFT))
    assert s.phase == FLOCK_PHASE and s.legal_moves() == [PASS]


def test_always_flock_step_plays_like_auto_apart_from_the_extra_passes():
    # The same seeded game, the same choices except the asked-for passes: the same end.
    for seed in range(10):
        auto = State(Config(num_players=3), seed=seed)
        always = State(Config(num_players=3, flock_step="always"), seed=seed)
        rng = np.random.default_rng(seed)
        extra = 0
        while not auto.terminal:
            if always.phase == FLOCK_PHASE and auto.phase != FLOCK_PHASE:
                assert always.legal_moves() == [PASS]
                always.apply(PASS)
                extra += 1
                continue
            ids = auto.legal_move_ids()
            assert always.legal_move_ids() == ids
            move = ids[int(rng.integers(len(ids)))]
            auto.apply(move)
            always.apply(move)
        assert always.terminal and always.winners() == auto.winners()
        assert always.move_count == auto.move_count + extra and extra > 0


@pytest.mark.parametrize("bad", ["sometimes", None, True, 1])
def test_flock_step_validation(bad):
    with pytest.raises(ValueError, match="flock_step"):
        Config(flock_step=bad)


# ---------------------------------------------------------------------------------------------
# §9: what a seat is known not to hold


def test_exact_flags_follow_lays_flocks_and_unseen_draws():
    s = pos(["PPOM", "DOOFF"], draw="PTRRWWRRWWRRWW")
    s.apply(Lay(P, 0, LEFT))  # captures F and O; refill P, T
    assert s.exact[0] == [0, 0, 0, 0, 1, 0, 0, 0]
    assert s.view(1).exact[0][P] and s.known[0] == cnt("FO")
    s.apply(Lay(D, 1, LEFT))  # seat 1: nothing captured
    assert s.exact[1][D] == 1
    s.apply(TAKE)  # unseen cards: nothing is exact any more
    assert s.exact[1] == [0] * 8
    assert s.phase == FLOCK_PHASE  # two Flamingos
    s.apply(Flock(F))
    assert s.exact[1][F] == 1 and s.hands[1][F] == 0
    # Seat 0 lays its Owls (one captured); a later capture of Owls keeps the flag true.
    s.apply(Lay(O, 2, RIGHT))
    assert s.exact[0][O] == 1 and s.exact[0][P] == 1
    for q in range(2):
        assert all(s.hands[q][k] == s.known[q][k] for k in range(8) if s.exact[q][k])


def test_exact_flags_reset_by_a_new_deal():
    s = pos(["PP", "D"], rows=("FOPT", "WRT", "WRM", "FTW"))
    s.apply(Lay(P, 0, LEFT))
    assert s.exact[0][P] == 1
    s.apply(Lay(D, 1, LEFT))  # seat 1 empties its hand: new round, new hands
    assert s.round == 2 and s.exact == [[0] * 8, [0] * 8]


def test_determinize_never_gives_a_laid_species_back():
    # Rules §9 and issue 6: right after a player laid all its Ducks, 200 samples for each other
    # seat never give it a Duck beyond its publicly known ones.
    positions = 0
    for n in (2, 3, 4):
        for seed in range(10):
            state = State(Config(num_players=n), seed=seed)
            rng = np.random.default_rng(seed)
            while not state.terminal and not any(e[D] for e in state.exact):
                ids = state.legal_move_ids()
                ducks = [m for m in ids if m < 64 and m >> 3 == D]
                state.apply_id(ducks[0] if ducks else ids[int(rng.integers(len(ids)))])
            if state.terminal:
                continue
            q = next(q for q in range(n) if state.exact[q][D])
            for p in range(n):
                if p != q:
                    for k in range(200):
                        sample = state.determinize(p, np.random.default_rng(k))
                        assert sample.hands[q][D] == state.known[q][D], (n, seed, p)
            positions += 1
            break
    assert positions == 3


# ---------------------------------------------------------------------------------------------
# §9: the draw pile's pool


def test_pool_at_setup_is_every_card_outside_the_rows():
    s = State(Config(num_players=3), seed=4)
    outside = [
        c - sum(row.count(k) for row in s.rows)
        for k, c in enumerate([7, 10, 10, 13, 13, 17, 20, 20])
    ]
    collection_cards = [sum(c[k] for c in s.collections) for k in range(8)]
    for p in range(3):
        v = s.view(p)
        # The collection cards were seen leaving the pile; the hands were drawn unseen.
        assert list(v.draw_pool) == [a - b for a, b in zip(outside, collection_cards)]
        assert v.draw_pool_unknown == 0
        assert sum(v.draw_pool) - v.draw_size == 3 * 8


def test_reshuffled_public_discard_becomes_a_known_pool():
    # Seat 0 empties the pile with a 2-card draw; seat 1's 2-card draw reshuffles the public
    # discard pile (Robins and Warblers): everyone knows the new pile's composition.
    s = pos(["DM", "OOTT"], draw="FF", discard="RRRRWW")
    s.apply(Lay(D, 0, RIGHT))
    s.apply(TAKE)  # F F: the pile is empty
    assert s.phase == FLOCK_PHASE
    s.apply(PASS)
    s.apply(Lay(O, 1, RIGHT))  # no Owl in row 1: nothing captured
    assert s.phase == DRAW_PHASE
    s.apply(TAKE)  # reshuffle: the pile is R R R R W W, seat 1 draws two of them unseen
    for p in range(2):
        v = s.view(p)
        assert list(v.draw_pool) == cnt("RRRRWW") and v.draw_pool_unknown == 0
        assert v.draw_size == 4 and sum(v.draw_pool) - v.draw_size == 2
        assert v.discard_size == 0
    # Seat 1's older cards (the two Toucans) are never exchanged with the pool's cards: in every
    # sample for seat 0, seat 1 holds T T plus two of R R R R W W, and the pile the other four.
    pool = cnt("RRRRWW")
    for k in range(200):
        sample = s.determinize(0, np.random.default_rng(k))
        agrees_with_what_was_seen(s, sample, 0)
        hand = sample.hands[1]
        assert hand[T] == 2 and hand[O] == 0 and sum(hand) == 4
        new = [hand[R] if x == R else hand[W] if x == W else 0 for x in range(8)]
        assert sum(new) == 2
        draw = [sample.draw.count(x) for x in range(8)]
        assert [a + b for a, b in zip(new, draw)] == pool


def test_refills_leave_the_pool_seen():
    s = pos(["PPM", "DD"], draw="PTRR")
    before = s.view(1).draw_pool
    s.apply(Lay(P, 0, LEFT))  # refill: P then T drawn face up
    after = s.view(1).draw_pool
    assert [b - a for a, b in zip(after, before)] == cnt("PT")


# ---------------------------------------------------------------------------------------------
# §9: face-down round-end discards


def test_face_down_discards_each_seat_remembers_its_own_and_the_captured_cards():
    # Seat 1 captured F and O face up; the round ends; with face-down discards everyone still
    # knows those two, and each seat its own thrown-away hand.
    s = pos(
        ["D", "PPMW"],
        rows=("FOPT", "WRT", "WRM", "FTW"),
        current=1,
        reveal_round_end_discards=False,
    )
    s.apply(Lay(P, 0, LEFT))  # seat 1 captures F O: known to all
    assert s.known[1] == cnt("FO") and s.current_player == 0
    s.apply(Lay(D, 1, LEFT))  # seat 0 empties its hand: the round ends
    assert s.round == 2
    assert s.discard_public == cnt("FO")
    assert s.view(0).discard_known == tuple(cnt("FO"))
    assert s.view(1).discard_known == tuple(cnt("FOMW"))  # its own M W too
    enc = CubirdsEncoder(s.config)
    assert enc.split(enc.encode(s, 1))["discard_seen"].tolist() == cnt("FOMW")
    # Resampling for seat 1 never touches what it threw away; for seat 0 it may.
    for k in range(50):
        sample = s.determinize(1, np.random.default_rng(k))
        agrees_with_what_was_seen(s, sample, 1)
        assert all(sample.discard[x] >= c for x, c in enumerate(cnt("FOMW")))


# ---------------------------------------------------------------------------------------------
# determinize in random play, every option


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_every_state_is_explained_by_its_log(n):
    for seed in range(12):
        for state in random_states(n, seed, every=3):
            explained_by_its_log(state)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_determinize_agrees_with_everything_the_player_saw(n):
    changed = checked = 0
    # Every call here is a first call (a new position, then a sample's): at four and five
    # players 8 games, which check 400-700 seats (session 25: the larger joint tries made
    # those calls dearer and the suite neared its 15 minutes).
    for seed in range(12 if n < 4 else 8):
        for state in random_states(n, seed, every=9):
            if state.terminal:
                continue
            for p in range(n):
                sample = state.determinize(p, np.random.default_rng(seed * 31 + p))
                agrees_with_what_was_seen(state, sample, p)
                # A sample of a sample (a search going deeper) is just as consistent.
                again = sample.determinize((p + 1) % n, np.random.default_rng(p))
                agrees_with_what_was_seen(sample, again, (p + 1) % n)
                checked += 1
                changed += any(sample.hands[q] != state.hands[q] for q in range(n) if q != p)
    assert checked > 100 and changed > checked // 4


def _apply_sample(state: State, player: int, sample: tuple) -> State:
    """A clone of ``state`` with the cards of one replay result put in (as determinize does)."""
    hidden, draw, discard_own, _, batches, leftovers = sample
    det = state.clone()
    for q in range(state.num_players):
        if q != player:
            det.hands[q] = [k + h for k, h in zip(state.known[q], hidden[q])]
    det.draw = [x for x in range(8) for _ in range(draw[x])]
    det.log = belief._with_piles(belief._write_back(state.log, 0, batches, leftovers))
    if not state.config.reveal_round_end_discards:
        det.discard = [
            a + sum(own[x] for own in discard_own) for x, a in enumerate(state.discard_public)
        ]
    return det


@pytest.mark.parametrize("search", ["sample_exact", "sample_split"])
def test_each_exact_search_alone_is_consistent(search):
    # The searches behind the fast replay, run on their own where a reshuffle split the round.
    tried = 0
    for seed in range(60):
        config = Config(num_players=4, first_player=0)
        for state in random_states(4, seed, every=5, config=config):
            if state.terminal or not any(ev[0] == belief.EV_RESHUFFLE for ev in state.log):
                continue
            plan = belief._Plan(state.log, 1, 4)
            result = getattr(plan, search)(np.random.default_rng(seed))
            if result is None:
                continue
            agrees_with_what_was_seen(state, _apply_sample(state, 1, result), 1)
            tried += 1
        if tried >= 25:
            return
    raise AssertionError(f"{search} succeeded only {tried} times")
