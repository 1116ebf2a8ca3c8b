"""The variants of spec §9 (hidden ducks, team ducks with 4/6 and with 2 players, points) and
the ``observe_duck_deck_bottom`` option, as scenario tests."""

from __future__ import annotations

import numpy as np
from cardzoo.envs.sitting_ducks import Config, Discard, Play, State
from cardzoo.envs.sitting_ducks.data import (
    DUCK_AND_COVER,
    DUCK_SHUFFLE,
    FAST_FORWARD,
    HANG_BACK,
    LINE_FORWARD,
    MOVE_AHEAD,
    QUICK_SHOT,
    SHOOT,
    TAKE_AIM,
    TWO_BIRDS,
    WATER,
)
from cardzoo.envs.sitting_ducks.units import unit_text

R, B, G, Y = 0, 1, 2, 3
HIDDEN = Config(mode="hidden")
TEAM4 = Config(num_players=4, mode="team")
TEAM2 = Config(num_players=2, mode="team")


def position(cfg, row, hands, mover=0, **kw) -> State:
    return State.from_position(cfg, row=row, hands=hands, current_player=mover, **kw)


def legal(state: State) -> set:
    return set(state.legal_moves())


def row(state: State) -> list[str]:
    return [unit_text(u) for u in state.row]


# ---------------------------------------------------------------------------------------------
# Hidden ducks


def test_hidden_colours_are_secret_until_the_end():
    s = State(HIDDEN, seed=4)
    for p in range(3):
        v = s.view(p)
        mine = s.seat_colours[p].bit_length() - 1
        assert v.my_colours == (mine,)
        assert v.colour_owners == tuple(p if c == mine else -1 for c in range(3))
        assert v.colour_evidence == tuple((1 << mine) if q == p else 0b111 for q in range(3))
    rng = np.random.default_rng(0)
    while not s.terminal:
        ids = s.legal_move_ids()
        s.apply(ids[int(rng.integers(len(ids)))])
    assert s.view(0).colour_owners == tuple(s.colour_owner)  # everyone reveals


def test_hidden_own_duck_cards_follow_the_secret_colour():
    # Seat 0 secretly owns green, seat 1 red, seat 2 blue.
    s = position(
        HIDDEN, ["R", "G", "B", "~", "~", "~"], {0: [HANG_BACK, MOVE_AHEAD]}, colours=[G, R, B]
    )
    assert legal(s) == {Play(HANG_BACK, 1, 2), Play(MOVE_AHEAD, 1, 0)}
    s.apply(Play(HANG_BACK, 1, 2))
    assert s.colour_evidence[0] == 1 << G  # the public record now shows seat 0's colour


def test_hidden_evidence_from_a_stack_and_from_a_forced_discard():
    s = position(
        HIDDEN,
        ["B/G", "R", "~", "~", "~", "~"],
        {0: [FAST_FORWARD], 1: [HANG_BACK, MOVE_AHEAD, SHOOT]},
        colours=[G, R, B],
    )
    assert legal(s) == {Discard(FAST_FORWARD)}  # green's only duck is in slot 0
    s.apply(Discard(FAST_FORWARD))
    # Fast Forward was playable for red (slot 1) only: red is ruled out for seat 0.
    assert s.colour_evidence[0] == (1 << B) | (1 << G)
    assert s.current_player == 1
    s.apply(Play(HANG_BACK, 1, 2))  # seat 1 (red) moves the R in slot 1
    assert s.colour_evidence[1] == 1 << R


def test_hidden_owner_of_the_last_colour_wins():
    s = position(HIDDEN, ["G", "~", "B", "~", "~", "~"], {0: [QUICK_SHOT]}, colours=[G, R, B])
    s.apply(Play(QUICK_SHOT, 0))  # seat 0 shoots its own last (green) duck: blue is left
    assert s.terminal and s.winners() == (2,)


def test_hidden_determinize_respects_the_evidence():
    s = position(
        HIDDEN, ["R", "G", "B", "~", "~", "~"], {0: [HANG_BACK], 1: [TAKE_AIM]}, colours=[G, R, B]
    )
    s.apply(Play(HANG_BACK, 1, 2))
    rng = np.random.default_rng(1)
    owners_seen = set()
    for _ in range(30):
        d = s.determinize(1, rng)
        assert d.colour_owner[G] == 0  # public: seat 0 moved a green duck
        assert d.colour_owner[R] == 1  # seat 1 knows its own colour
        owners_seen.add(tuple(d.colour_owner))
        assert d.view(1) == s.view(1)
    assert owners_seen == {(1, 2, 0)}
    # Seat 2 knows only its own colour and seat 0's: seat 1 must be red.
    assert {tuple(s.determinize(2, rng).colour_owner) for _ in range(10)} == {(1, 2, 0)}
    # Before any evidence, the others' colours really are resampled.
    fresh = State(HIDDEN, seed=2)
    seen = {tuple(fresh.determinize(0, rng).colour_owner) for _ in range(30)}
    assert len(seen) == 2


# ---------------------------------------------------------------------------------------------
# Team ducks, 4 and 6 players


def test_team4_partners_sit_opposite_and_win_together():
    s = State(TEAM4, seed=0)
    assert s.group == [0, 1, 0, 1]
    s = position(TEAM4, ["R", "~", "Y", "~", "~", "~"], {0: [QUICK_SHOT]})
    s.apply(Play(QUICK_SHOT, 0))  # red shoots its own last duck; green has none either
    assert s.terminal and s.winners() == (1, 3)


def test_team4_your_duck_is_your_own_colour_only():
    s = position(TEAM4, ["G", "R", "B", "G", "~", "~"], {0: [HANG_BACK, MOVE_AHEAD]})
    assert legal(s) == {Play(HANG_BACK, 1, 2), Play(MOVE_AHEAD, 1, 0)}


def test_team4_duck_and_cover_only_under_the_other_team():
    s = position(TEAM4, ["G", "R", "B", "~", "~", "~"], {0: [DUCK_AND_COVER]})
    assert legal(s) == {Play(DUCK_AND_COVER, 1, 2)}


def test_team6_teams():
    s = State(Config(num_players=6, mode="team"), seed=0)
    assert s.group == [0, 1, 2, 0, 1, 2]
    assert s.hide_under[0] == 0b110110


# ---------------------------------------------------------------------------------------------
# Two players with two colours each


def test_team2_setup_two_colours_each():
    s = State(TEAM2, seed=5)
    assert s.num_colours == 4 and s.seat_colours == [0b0101, 0b1010]
    assert len(s.deck) + 6 == 25 and len(s.shot) == 4
    first = next(int(u) & 7 for u in s.row if int(u) & 7 < WATER)
    assert s.current_player == first % 2


def test_team2_either_colour_is_yours():
    s = position(TEAM2, ["B", "G", "Y", "R", "~", "~"], {0: [MOVE_AHEAD, DUCK_AND_COVER]})
    assert {m for m in legal(s) if m.card == MOVE_AHEAD} == {
        Play(MOVE_AHEAD, 1, 0),
        Play(MOVE_AHEAD, 3, 2),
    }
    # Green may hide under blue or yellow, never under red (the same player's colour).
    assert {m for m in legal(s) if m.card == DUCK_AND_COVER} == {
        Play(DUCK_AND_COVER, 1, 0),
        Play(DUCK_AND_COVER, 1, 2),
        Play(DUCK_AND_COVER, 3, 2),
    }


def test_team2_win_needs_both_opposing_colours_gone():
    hands = {0: [QUICK_SHOT], 1: [SHOOT]}
    s = position(TEAM2, ["B", "~", "G", "Y", "~", "~"], hands, targets={1})
    s.apply(Play(QUICK_SHOT, 0))  # blue's last duck: yellow is still in play
    assert not s.terminal and row(s)[:3] == ["~", "G", "Y"]
    s.apply(Play(SHOOT, 1))  # green, seat 0's last duck (red has none left)
    assert s.terminal and s.winners() == (1,)


def test_team2_draw_when_both_lose_their_last_ducks_together():
    s = position(TEAM2, ["~", "G", "Y", "~", "~", "~"], {0: [TWO_BIRDS]}, targets={1, 2})
    s.apply(Play(TWO_BIRDS, 1, 2))
    assert s.terminal and s.winners() == ()


# ---------------------------------------------------------------------------------------------
# Points


def test_points_end_of_game_scores_and_next_game():
    cfg = Config(points_games=2)
    s = position(cfg, ["R", "R", "B", "R", "~", "~"], {0: [QUICK_SHOT]}, deck=["R"])
    s.apply(Play(QUICK_SHOT, 2))  # Blue's last duck; Green has none: Red wins game 1
    assert not s.terminal and s.game == 1 and s.game_results == [(0,)]
    assert s.points == [5 * 4, 0, 0]  # four red ducks still in play
    assert s.shot == [1, 1, 1] and len(s.deck) == 14 and all(len(h) == 3 for h in s.hands)
    assert s.turn == 1 and s.known_bottom == 0


def test_points_match_winner_and_tie():
    cfg = Config(points_games=1)
    s = position(cfg, ["R", "~", "B", "~", "~", "~"], {0: [QUICK_SHOT]}, points=[0, 7, 1])
    s.apply(Play(QUICK_SHOT, 2))
    assert s.terminal and s.end_reason == "points_total"
    assert s.points == [5, 7, 1] and s.winners() == (1,)
    s = position(cfg, ["R", "~", "B", "~", "~", "~"], {0: [QUICK_SHOT]}, points=[2, 7, 1])
    s.apply(Play(QUICK_SHOT, 2))
    assert s.points == [7, 7, 1] and s.winners() == (0, 1)  # a tie: both win
    assert s.scores() == (7.0, 7.0, 1.0)


def test_points_drawn_game_gives_no_end_points():
    cfg = Config(points_games=1)
    s = position(cfg, ["~", "~", "R", "B", "~", "~"], {2: [TWO_BIRDS]}, mover=2, targets={2, 3})
    s.apply(Play(TWO_BIRDS, 2, 3))
    assert s.points == [0, 0, 0] and s.winners() == (0, 1, 2)
    assert s.game_results == [()]


def test_points_line_forward_returns_score_only_in_the_points_variant():
    s = position(Config(), ["B/R", "G", "~", "R", "B", "~"], {0: [LINE_FORWARD]})
    s.apply(Play(LINE_FORWARD))
    assert s.points == [0, 0, 0]
    s = position(Config(points_games=3), ["~", "G", "~", "R", "B", "~"], {0: [LINE_FORWARD]})
    s.apply(Play(LINE_FORWARD))
    assert s.points == [0, 0, 0]  # water scores nothing


# ---------------------------------------------------------------------------------------------
# The duck deck's known bottom (§10)


def test_known_bottom_is_truncated_as_the_deck_empties_and_reset_by_a_shuffle():
    cfg = Config(observe_duck_deck_bottom=True)
    hands = {0: [LINE_FORWARD], 1: [LINE_FORWARD], 2: [DUCK_SHUFFLE]}
    s = position(cfg, ["B/R", "~", "~", "~", "~", "~"], hands)
    s.apply(Play(LINE_FORWARD))  # R and B go under the empty deck; B comes back at once
    assert s.deck == [R] and s.view(1).deck_bottom == (R,)
    s.apply(Play(LINE_FORWARD))  # water below R; R refills slot 5
    assert s.view(2).deck_bottom == (WATER,)
    assert row(s) == ["~", "~", "~", "~", "B", "R"]
    s.apply(Play(DUCK_SHUFFLE))
    assert s.view(0).deck_bottom == () and s.known_bottom == 0
