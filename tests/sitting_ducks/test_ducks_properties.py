"""Properties over many random games: conservation, legality, hidden information, copies."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State
from cardzoo.envs.sitting_ducks.data import GAP, NUM_KINDS, WATER
from cardzoo.envs.sitting_ducks.sampling import resample_hidden
from cardzoo.envs.sitting_ducks.units import U_TOP, U_UNDER
from ducks_witness import check_witness

CONFIGS = [
    Config(num_players=3),
    Config(num_players=4),
    Config(num_players=5),
    Config(num_players=6),
    Config(num_players=3, mode="hidden"),
    Config(num_players=6, mode="hidden"),
    Config(num_players=2, mode="team"),
    Config(num_players=4, mode="team"),
    Config(num_players=6, mode="team"),
    Config(num_players=3, points_games=3),
    Config(num_players=4, action_deck_counts={"quick_shot": 4, "two_birds": 3}),
]
IDS = [f"{c.num_players}p-{c.mode}{'-points' if c.points_games else ''}" for c in CONFIGS]
IDS[-1] += "-deck"


def random_states(cfg: Config, games: int, seed: int = 0):
    """Every decision point of ``games`` random games."""
    for g in range(games):
        rng = random.Random(seed * 1000 + g)
        s = State(cfg, seed=seed * 1000 + g)
        while not s.terminal and s.turn < cfg.max_turns:
            yield s
            s.apply_id(rng.choice(s.legal_move_ids()))
        yield s


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_every_card_and_duck_in_exactly_one_place(cfg):
    games = 0
    for s in random_states(cfg, 60):
        census = s.census()
        assert [sum(col) for col in zip(*census.values())] == s.card_totals
        assert all(x >= 0 for zone in census.values() for x in zone)
        if s.terminal:
            games += 1
            continue
        # Live play: six units, no gap (see test_rules), full hands at every decision.
        assert len(s.row) == 6
        assert all(U_TOP[u] != GAP for u in s.row)
        assert all(U_UNDER[u] != U_TOP[u] for u in s.row if U_UNDER[u] >= 0)
        assert all(len(h) == 3 for q, h in enumerate(s.hands) if q != s.current_player)
        assert s.known_bottom <= len(s.deck)
        ducks = [0] * s.num_colours
        for u in s.row:
            for c in (U_TOP[u], U_UNDER[u]):
                if 0 <= c < WATER:
                    ducks[c] += 1
        for c in s.deck:
            if c != WATER:
                ducks[c] += 1
        assert ducks == [s.ducks_in_play(c) for c in range(s.num_colours)]
    assert games == 60


@pytest.mark.parametrize("cfg", CONFIGS[:4] + CONFIGS[6:7], ids=IDS[:4] + IDS[6:7])
def test_legal_moves_agree_with_is_legal(cfg):
    for s in random_states(cfg, 5, seed=1):
        ids = s.legal_move_ids()
        assert ids == sorted(set(ids))
        assert [a for a in range(110) if s.is_legal(a)] == ids
        if not s.terminal:
            assert ids
            forced = ids[0] >= 94
            assert all((a >= 94) == forced for a in ids)  # discards only when nothing plays


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_determinize_samples_only_consistent_worlds(cfg):
    rng = np.random.default_rng(7)
    picker = random.Random(7)
    checked = changed = 0
    games, share = (8, 0.15) if cfg.num_players <= 4 else (3, 0.08)  # long games at 5-6 players
    for s in random_states(cfg, games, seed=2):
        if s.terminal or picker.random() > share:
            continue
        for p in range(s.num_players):
            sample = resample_hidden(s, p, rng, with_witness=True)
            assert sample is not None
            check_witness(s, p, *sample)
            d = s.determinize(p, rng)
            assert d.view(p) == s.view(p)
            assert d.render_for(p) == s.render_for(p)
            assert sorted(d.deck) == sorted(s.deck)
            assert d.known_bottom_cards() == s.known_bottom_cards()
            assert d.legal_move_ids() == s.legal_move_ids() or p != s.current_player
            changed += (d.hands, d.draw, d.deck, d.colour_owner) != (
                s.hands,
                s.draw,
                s.deck,
                s.colour_owner,
            )
            checked += 1
    assert checked > 20 and changed > checked * 0.8


def test_determinize_keeps_the_viewers_cards_and_changes_the_others():
    s = State(Config(num_players=4), seed=11)
    rng = np.random.default_rng(0)
    hands = {tuple(sorted(s.determinize(0, rng).hands[1])) for _ in range(30)}
    assert len(hands) > 5
    assert all(s.determinize(0, rng).hands[0] == s.hands[0] for _ in range(5))


def test_clone_is_independent_and_shares_the_log_safely():
    s = State(Config(num_players=3), seed=3)
    rng = random.Random(0)
    for _ in range(20):
        s.apply_id(rng.choice(s.legal_move_ids()))
    a, b = s.clone(), s.clone()
    before = (s.render(), s._log[: s._log_len])
    for x in (a, b):
        for _ in range(15):
            if not x.terminal:
                x.apply_id(rng.choice(x.legal_move_ids()))
    assert (s.render(), s._log[: s._log_len]) == before
    assert a._log[: s._log_len] == before[1] and b._log[: s._log_len] == before[1]
    # Each copy's log is its own history: replaying it explains its own hands.
    for x in (a, b):
        if not x.terminal:
            for p in range(3):
                check_witness(
                    x, p, *resample_hidden(x, p, np.random.default_rng(1), with_witness=True)
                )


def test_pickle_round_trip_continues_identically():
    s = State(Config(num_players=4, mode="hidden"), seed=9)
    rng = random.Random(3)
    for _ in range(30):
        s.apply_id(rng.choice(s.legal_move_ids()))
    t = pickle.loads(pickle.dumps(s))
    for _ in range(40):
        if s.terminal:
            break
        move = rng.choice(s.legal_move_ids())
        s.apply_id(move)
        t.apply_id(move)
        assert s.render() == t.render()


def test_render_for_shows_only_the_view():
    from cardzoo.envs.sitting_ducks.data import CARD_NAMES, COLOUR_NAMES

    s = State(Config(num_players=3, mode="hidden"), seed=5)
    text = s.render_for(1)
    mine = s.seat_colours[1].bit_length() - 1
    assert "you are seat 1" in text
    own = ", ".join(CARD_NAMES[k] for k in sorted(s.hands[1]))
    assert f"seat 1: {COLOUR_NAMES[mine]}; hand: {own}" in text
    for q in (0, 2):
        assert f"seat {q}: ? (" in text and f"seat {q}: ? (red/blue/green); hand: 3 cards" in text
    assert "top first" not in text  # no pile order
    assert "top first" in s.render()  # the referee's render shows it


def test_draw_pile_never_needs_more_than_the_deck():
    cfg = Config(num_players=6, action_deck_counts=(2,) * NUM_KINDS)  # 32 cards
    for s in random_states(cfg, 5, seed=3):
        assert len(s.draw) + sum(s.discard) + sum(map(len, s.hands)) <= 32
