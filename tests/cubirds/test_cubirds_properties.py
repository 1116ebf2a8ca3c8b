"""Random-play property tests for the Cubirds engine (rules spec §11 example 13, §9, contract).

Every game is seeded, so the suite is deterministic. Moves are applied as move objects through the
checked ``apply`` path, so the move universe and legality checks are exercised too.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds.data import BIG_FLOCK, SMALL_FLOCK
from cardzoo.envs.cubirds.game import (
    CARD_TOTALS,
    DRAW_PHASE,
    FLOCK_PHASE,
    GAME_OVER,
    LAY_PHASE,
    Config,
    Draw,
    Flock,
    Lay,
    State,
)

GAMES_PER_COUNT = 100  # x 4 player counts = 400 games per option set
PLAYER_COUNTS = (2, 3, 4, 5)


def _config(n: int, seed: int) -> Config:
    # Vary the options across seeds so every rule path is exercised.
    return Config(
        num_players=n,
        draw_after_empty_hand=seed % 3 == 1,
        midturn_exhaustion="partial" if seed % 4 == 3 else "end_game",
        reveal_round_end_discards=seed % 5 != 4,
        flock_step="always" if seed % 2 else "auto",
    )


def _zone_totals(state: State) -> list[int]:
    out = [0] * 8
    for counts in state.census().values():
        assert min(counts) >= 0
        for s, c in enumerate(counts):
            out[s] += c
    return out


def _contiguous(row: list[int]) -> bool:
    seen: set[int] = set()
    prev = None
    for card in row:
        if card != prev:
            if card in seen:
                return False
            seen.add(card)
            prev = card
    return True


def _has_won(collection: list[int]) -> bool:
    present = sum(1 for c in collection if c)
    triples = sum(1 for c in collection if c >= 3)
    return present >= 7 or triples >= 2


def _play(n: int, seed: int, on_step=None):
    """One random game; returns (final state, list of end-of-game facts)."""
    state = State(_config(n, seed), seed=seed)
    rng = np.random.default_rng(10_000 + seed)
    while not state.terminal and state.turn < state.config.max_turns:
        if on_step is not None:
            on_step(state)
        moves = state.legal_moves()
        state.apply(moves[int(rng.integers(len(moves)))])
    if on_step is not None:
        on_step(state)
    return state


def _check_step(state: State) -> None:
    """The per-step invariants of example 13 plus bookkeeping consistency."""
    # (b) every card is in exactly one zone
    assert _zone_totals(state) == CARD_TOTALS
    # (a) contiguous blocks in every row; rows never empty
    for row in state.rows:
        assert row, "a row became empty"
        assert _contiguous(row), f"row not contiguous: {row}"
    # Under "end_game" a row is never single-species at a decision point (§4.1 refill).
    if state.config.midturn_exhaustion == "end_game" and not state.terminal:
        assert all(len(set(row)) >= 2 for row in state.rows)
    assert state.hand_sizes == [sum(h) for h in state.hands]
    assert state.discard_size == sum(state.discard)
    assert all(0 <= p <= d for p, d in zip(state.discard_public, state.discard, strict=True))
    for q in range(state.num_players):
        assert all(0 <= k <= h for k, h in zip(state.known[q], state.hands[q], strict=True))
    if state.terminal:
        assert state.phase == GAME_OVER and state.current_player == -1
        assert state.legal_moves() == []
        return
    legal = state.legal_moves()
    hand = state.hands[state.current_player]
    if state.phase == LAY_PHASE:
        # (c) a legal lay exists at every turn start: 8 lays per species held, nothing else.
        assert state.hand_sizes[state.current_player] > 0
        held = [s for s in range(8) if hand[s]]
        assert held
        assert legal == [Lay(s, r, e) for s in held for r in range(4) for e in (0, 1)]
    elif state.phase == DRAW_PHASE:
        assert legal == [Draw(False), Draw(True)]
    else:
        assert state.phase == FLOCK_PHASE
        flockable = [s for s in range(8) if hand[s] >= SMALL_FLOCK[s]]
        if state.config.flock_step == "auto":
            assert flockable, "flock phase entered with only Pass legal"
        assert legal == [Flock(s) for s in flockable] + [Flock(None)]


def _run_all():
    ends: Counter[str] = Counter()
    for n in PLAYER_COUNTS:
        for seed in range(GAMES_PER_COUNT):
            state = _play(n, seed, _check_step)
            ends[state.end_reason or "truncated"] += 1
            _check_result(state)
    return ends


def _check_result(state: State) -> None:
    if not state.terminal:
        return
    winners = state.winners()
    assert winners
    sizes = [sum(c) for c in state.collections]
    if state.end_reason == "win":
        assert len(winners) == 1 and _has_won(state.collections[winners[0]])
    else:
        assert state.end_reason in ("failed_deal", "exhaustion")
        best = max(sizes)
        assert winners == tuple(q for q in range(state.num_players) if sizes[q] == best)
        assert not any(_has_won(c) for c in state.collections)


def test_example_13_random_play_invariants():
    """(a) contiguous blocks, (b) census = CARD_TOTALS, (c) a legal lay at every turn start."""
    ends = _run_all()
    assert sum(ends.values()) == GAMES_PER_COUNT * len(PLAYER_COUNTS)
    # Every ending of §7 occurs in the sample (spec §6: exhaustion is common at 4-5 players).
    assert ends["win"] > 0 and ends["failed_deal"] > 0 and ends["exhaustion"] > 0
    assert ends["truncated"] == 0


def test_example_13_every_lay_matches_the_capture_rule():
    """After each lay: contiguous rows; row, hand and refill exactly as the §4.1 formula says."""
    lays = refills = 0
    for n in PLAYER_COUNTS:
        for seed in range(25):
            state = State(_config(n, seed), seed=seed)
            rng = np.random.default_rng(seed)
            while not state.terminal:
                moves = state.legal_moves()
                move = moves[int(rng.integers(len(moves)))]
                if not isinstance(move, Lay):
                    state.apply(move)
                    continue
                p, s, round_before = state.current_player, move.species, state.round
                old = state.rows[move.row][:]
                hand = state.hands[p][:]
                k = hand[s]
                # Work on the row as seen from the laid end (mirror for the right end).
                seen = old if move.end == 0 else old[::-1]
                j = seen.index(s) if s in seen else 0
                captured, tail = seen[:j], seen[j:]
                state.apply(move)
                lays += 1
                for r in state.rows:
                    assert _contiguous(r)
                new = state.rows[move.row] if move.end == 0 else state.rows[move.row][::-1]
                core = [s] * k + tail
                assert new[len(new) - len(core) :] == core
                refill = new[: len(new) - len(core)]
                if refill:
                    refills += 1
                    assert captured and set(tail) == {s}
                    # All refill cards but the one farthest out are of the row's species.
                    assert all(c == s for c in refill[1:])
                    if not state.terminal or state.end_reason != "exhaustion":
                        assert refill[0] != s or state.config.midturn_exhaustion == "partial"
                elif captured and set(tail) == {s}:
                    assert state.terminal or state.config.midturn_exhaustion == "partial"
                expected = hand[:]
                expected[s] = 0
                for c in captured:
                    expected[c] += 1
                if state.round == round_before:
                    assert state.hands[p] == expected
    assert lays > 5000 and refills > 100


def test_flock_banks_per_table_in_random_play():
    """Every flock banks 2 if the hand count reached the big size, else 1 (§4.2)."""
    checked = 0
    for n in (2, 4):
        for seed in range(40):
            state = State(Config(num_players=n), seed=seed)
            rng = np.random.default_rng(seed)
            while not state.terminal:
                moves = state.legal_moves()
                flocks = [m for m in moves if isinstance(m, Flock) and m.species is not None]
                move = flocks[0] if flocks else moves[int(rng.integers(len(moves)))]
                if flocks:
                    p, s = state.current_player, move.species
                    count = state.hands[p][s]
                    before = state.collections[p][s]
                    state.apply(move)
                    banked = 2 if count >= BIG_FLOCK[s] else 1
                    assert state.collections[p][s] == before + banked
                    checked += 1
                else:
                    state.apply(move)
    assert checked > 100


# ---------------------------------------------------------------------------------------------
# determinize / view / clone


def _midgame(n: int, seed: int, steps: int) -> State:
    state = State(_config(n, seed), seed=seed)
    rng = np.random.default_rng(seed + 1)
    for _ in range(steps):
        if state.terminal:
            break
        moves = state.legal_moves()
        state.apply(moves[int(rng.integers(len(moves)))])
    return state


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_determinize_keeps_view_and_resamples_hidden(n):
    changed_hands = changed_draw = 0
    for seed in range(30):
        state = _midgame(n, seed, steps=5 + 7 * seed % 60)
        if state.terminal:
            continue
        before = state.render()
        for p in range(n):
            det = state.determinize(p, np.random.default_rng(seed * 7 + p))
            assert det.view(p) == state.view(p)
            assert _zone_totals(det) == CARD_TOTALS
            assert det.hands[p] == state.hands[p]
            for q in range(n):
                assert det.hand_sizes[q] == state.hand_sizes[q]
                assert all(h >= k for h, k in zip(det.hands[q], state.known[q], strict=True))
            assert len(det.draw) == len(state.draw)
            if any(det.hands[q] != state.hands[q] for q in range(n) if q != p):
                changed_hands += 1
            if det.draw != state.draw:
                changed_draw += 1
            # The determinized state is playable to the end.
            rng = np.random.default_rng(seed)
            while not det.terminal and det.turn < 300:
                moves = det.legal_moves()
                det.apply(moves[int(rng.integers(len(moves)))])
                assert _zone_totals(det) == CARD_TOTALS
        assert state.render() == before  # determinize does not touch the original
    assert changed_hands > 10 and changed_draw > 10


def test_determinize_hidden_discard_when_not_revealed():
    # With reveal_round_end_discards=False the discarded hands are hidden: determinize may
    # resample them, but the publicly revealed (flock) part of the discard pile is kept.
    changed = 0
    for seed in range(40):
        state = State(Config(num_players=3, reveal_round_end_discards=False), seed=seed)
        rng = np.random.default_rng(seed)
        while not state.terminal and state.round == 1:
            moves = state.legal_moves()
            state.apply(moves[int(rng.integers(len(moves)))])
        if state.terminal or state.discard_size == sum(state.discard_public):
            continue
        det = state.determinize(0, np.random.default_rng(seed))
        assert det.view(0) == state.view(0)
        assert all(d >= p for d, p in zip(det.discard, state.discard_public, strict=True))
        assert sum(det.discard) == state.discard_size
        changed += det.discard != state.discard
    assert changed > 5


def test_clone_is_independent():
    state = _midgame(3, 5, steps=30)
    before = state.render()
    rng_state = state.rng.bit_generator.state
    census = state.census()
    clone = state.clone()
    clone.hands[0][0] += 3
    clone.rows[0].append(7)
    clone.draw.pop()
    clone.collections[1][2] += 1
    clone.known[0][0] += 1
    clone.discard[0] += 1
    clone.rng.random(10)
    moves = clone.legal_moves()
    clone.apply(moves[0])
    assert state.render() == before
    assert state.census() == census
    assert state.rng.bit_generator.state == rng_state


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_clone_has_same_future_including_rng(n):
    reshuffled_after_clone = False
    for seed in range(10):
        state = _midgame(n, seed, steps=20)
        clone = state.clone()
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        while not state.terminal:
            moves_a, moves_b = state.legal_moves(), clone.legal_moves()
            assert moves_a == moves_b
            discard_before = state.discard_size
            state.apply(moves_a[int(rng_a.integers(len(moves_a)))])
            clone.apply(moves_b[int(rng_b.integers(len(moves_b)))])
            assert state.render() == clone.render()
            assert state.draw == clone.draw  # same order after any reshuffle
            if discard_before and state.discard_size == 0:
                reshuffled_after_clone = True
        assert clone.terminal and clone.winners() == state.winners()
    assert reshuffled_after_clone  # the RNG actually mattered


def test_same_seed_same_game():
    a = _midgame(4, 3, steps=400)
    b = _midgame(4, 3, steps=400)
    c = _midgame(4, 4, steps=400)
    assert a.render() == b.render()
    assert a.render() != c.render()
