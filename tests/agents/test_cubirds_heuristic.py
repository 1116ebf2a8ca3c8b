"""Tests of the Cubirds heuristic agent: legality, sensible choices, no peeking, strength."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents.base import RandomAgent, Seat
from cardzoo.agents.cubirds_heuristic import CubirdsHeuristic
from cardzoo.envs import cubirds_v0
from cardzoo.envs.cubirds import MOVE_INDEX, Config, Draw, Flock, Lay, State
from cardzoo.envs.cubirds.game import DRAW_PHASE, FLOCK_PHASE, NUM_LAY_MOVES

F, O, T, D, P, M, W, R = range(8)  # noqa: E741 (the spec's species letters)
LEFT, RIGHT = 0, 1


def act(state: State, seed: int = 0) -> int:
    """The heuristic's choice for the seat to act, from a fresh agent."""
    player = state.current_player
    return CubirdsHeuristic(seed=seed).act(None, None, seat=Seat(state, player))


def sample_states(num_players: int, games: int, seed: int, every: int = 1):
    """States met in games where the heuristic plays seat 0 and random agents the others."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = State(Config(num_players=num_players), seed=int(rng.integers(2**31)))
        agents = [CubirdsHeuristic(seed=g)] + [
            RandomAgent(seed=int(rng.integers(2**31))) for _ in range(num_players - 1)
        ]
        step = 0
        while not state.terminal and state.turn < 300:
            p = state.current_player
            if step % every == 0:
                yield state
            mask = np.zeros(75, dtype=np.int8)
            mask[state.legal_move_ids()] = 1
            state.apply(agents[p].act(None, mask, seat=Seat(state, p)))
            step += 1


# -- legality ----------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_only_legal_actions(num_players: int) -> None:
    checked = 0
    for state in sample_states(num_players, games=6, seed=num_players):
        legal = state.legal_move_ids()
        move = act(state, seed=checked)
        assert move in legal, (state.render(), move, legal)
        assert isinstance(move, int)
        checked += 1
    assert checked > 100


def test_full_games_in_every_seat_through_the_env() -> None:
    """Heuristics in every seat finish games with wins (the env raises on an illegal action)."""
    for n in (2, 3, 4, 5):
        env = cubirds_v0.env(num_players=n)
        env.reset(seed=n)
        agents = [CubirdsHeuristic(seed=q) for q in range(n)]
        info: dict = {}
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            q = int(agent.split("_")[1])
            move = agents[q].act(
                obs["observation"], obs["action_mask"], seat=Seat(env.unwrapped.game_state, q)
            )
            assert obs["action_mask"][move] == 1
            env.step(move)
        assert info["winners"].any()


# -- hidden information ------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_same_choice_on_determinized_states(num_players: int) -> None:
    """Resampling every card the player cannot see never changes its choice."""
    rng = np.random.default_rng(123)
    compared = 0
    for state in sample_states(num_players, games=5, seed=100 + num_players, every=2):
        if len(state.legal_move_ids()) < 2:
            continue
        p = state.current_player
        real = act(state, seed=compared)
        for _ in range(2):
            sample = state.determinize(p, rng)
            assert act(sample, seed=compared) == real, state.render()
        compared += 1
    assert compared > 50


def test_determinize_changes_hidden_cards() -> None:
    """Guard for the test above: the samples really differ in what the player cannot see."""
    state = State(Config(num_players=3), seed=5)
    rng = np.random.default_rng(0)
    samples = [state.determinize(0, rng) for _ in range(5)]
    assert any(s.hands[1] != state.hands[1] or s.draw != state.draw for s in samples)
    assert all(s.hands[0] == state.hands[0] for s in samples)


# -- sensible choices in hand-set positions ----------------------------------------------------


def to_phase(state: State, phase: int, s: int = D) -> State:
    """Advance a hand-set position (seat 0 to lay) to the draw or flock phase.

    The lay puts species ``s`` (a duck by default) on a row without it, so nothing is captured.
    """
    r = next(i for i in range(4) if s not in state.rows[i])
    state.apply(Lay(s, r, RIGHT))
    assert state.phase == DRAW_PHASE
    if phase == FLOCK_PHASE:
        state.apply(Draw(False))
        assert state.phase == FLOCK_PHASE
    return state


def test_lay_that_captures_a_winning_flock() -> None:
    # Collection F3 O2: a third owl wins. Laying the warbler at the right end of row 0 takes
    # the owl and toucan, making 3 owls in hand.
    state = State.from_position(
        hands=["OOWDM", "DDPPR"],
        rows=["WOT", "DPM", "RDP", "MRD"],
        draw="RRRRRRRRRR",
        collections=["FFFOO", "R"],
    )
    assert act(state) == MOVE_INDEX[Lay(W, 0, RIGHT)]
    state.apply(Lay(W, 0, RIGHT))
    assert state.phase == FLOCK_PHASE
    assert act(state) == MOVE_INDEX[Flock(O)]
    state.apply(Flock(O))
    assert state.terminal and state.winners() == (0,)


def test_capture_that_feeds_a_flock_beats_a_plain_lay() -> None:
    # Laying the duck at the left end of row 1 captures T T T: 1 + 3 toucans = a big flock.
    state = State.from_position(
        hands=["TDRW", "MMPPF"],
        rows=["OMF", "TTTDP", "RMO", "PWF"],
        draw="RRRRRRRRRR",
        collections=["O", "F"],
    )
    assert act(state) == MOVE_INDEX[Lay(D, 1, LEFT)]


@pytest.mark.parametrize("spare", ["", "MMMMM", "RRRRRRRRR"])
def test_flocks_when_it_wins_by_two_triples(spare: str) -> None:
    # Rules spec §11 example 7: collection T2 F3, hand holds 3 toucans.
    state = State.from_position(
        hands=["DTTT" + spare, "PPRRO"],
        rows=["FOR", "OPR", "WRP", "MPR"],
        draw="RRRRRRRRRR",
        collections=["TTFFF", "O"],
    )
    to_phase(state, FLOCK_PHASE)
    assert act(state) == MOVE_INDEX[Flock(T)]


def test_flocks_when_it_wins_by_seven_species() -> None:
    state = State.from_position(
        hands=["DWWWWWWOOOO", "PPRRO"],
        rows=["FOR", "OPR", "TRP", "MPR"],
        draw="RRRRRRRRRR",
        collections=["FOTDPM", "O"],
    )
    to_phase(state, FLOCK_PHASE)
    assert act(state) == MOVE_INDEX[Flock(W)]


def test_flocks_a_full_big_flock_rather_than_passing() -> None:
    # 9 robins: holding them cannot bank more than the 2 cards flocking banks now.
    state = State.from_position(
        hands=["DRRRRRRRRRO", "PPWWO"],
        rows=["FOW", "OPW", "TWP", "MPW"],
        draw="WWWWWWWWWW",
        collections=["F", "O"],
    )
    to_phase(state, FLOCK_PHASE)
    assert act(state) == MOVE_INDEX[Flock(R)]


@pytest.mark.parametrize(("other_hand", "expected"), [("PPWWOTTMM", Flock(None)), ("P", Flock(R))])
def test_holds_for_a_big_flock_only_while_it_is_safe(other_hand: str, expected: Flock) -> None:
    # 8 robins, one short of the big flock (9), with robins still to find. The next player holds
    # 9 cards: wait for the 9th robin. The next player holds 1 card and may end the round (losing
    # this hand): bank the small flock now.
    state = State.from_position(
        hands=["DRRRRRRRRO", other_hand],
        rows=["FOW", "OPW", "TWP", "MPW"],
        draw="WWWWWWWWWWRRRRRRMMM",
        collections=["F", "O"],
    )
    to_phase(state, FLOCK_PHASE)
    assert act(state) == MOVE_INDEX[expected]


def test_takes_the_two_card_draw() -> None:
    state = State.from_position(
        hands=["DMMOT", "PPRRO"],
        rows=["FOR", "OPR", "WRP", "MPR"],
        draw="RRRRRRRRRR",
        collections=["F", "O"],
    )
    to_phase(state, DRAW_PHASE)
    assert act(state) == MOVE_INDEX[Draw(True)]


@pytest.mark.parametrize(("mine", "expected"), [("FOT", True), ("F", False)])
def test_draw_that_ends_the_game(mine: str, expected: bool) -> None:
    # With one card left in the piles, taking the draw ends the game (§6): do it only if leading.
    state = State.from_position(
        hands=["DMMOT", "PPRRO"],
        rows=["FOR", "OPR", "WRP", "MPR"],
        draw="R",
        collections=[mine, "OP"],
    )
    to_phase(state, DRAW_PHASE)
    assert act(state) == MOVE_INDEX[Draw(expected)]


def test_does_not_open_a_big_capture_for_the_next_player() -> None:
    # The next player is known to hold exactly three warblers (captured face up). Three birds
    # laid on row 0 (the only row with a warbler) would hand them a bigger capture than the D R
    # they can already take there; elsewhere they cannot.
    state = State.from_position(
        hands=["MMMOOO", "WWW"],
        rows=["WDR", "TDR", "TPR", "TDP"],
        draw="RRRRRRRRRR",
        collections=["F", "O"],
    )
    state.known[1][W] = 3
    for seed in range(20):  # every seed: equal choices are broken at random
        move = act(state, seed=seed)
        assert move < NUM_LAY_MOVES
        assert (move >> 1) & 3 != 0, move


def test_ends_the_round_when_the_lay_empties_a_hand_in_the_lead_of_a_failed_deal() -> None:
    # Few cards left: emptying the hand ends the round and, the deal failing, the game; the
    # agent leads on collection size, so it lays its last card rather than capture.
    state = State.from_position(
        Config(num_players=2),
        hands=["M", "PPRRO"],
        rows=["FOR", "OMP", "WRP", "MPR"],
        draw="RR",
        collections=["FOTD", "OP"],
    )
    move = act(state)
    row = (move >> 1) & 3
    assert M not in state.rows[row] or (move & 1, row) == (LEFT, 3)
    state.apply(move)
    assert state.terminal and state.winners() == (0,)


# -- strength ----------------------------------------------------------------------------------


def test_beats_random_agents_in_two_player_games() -> None:
    games, wins = 100, 0
    for g in range(games):
        seat = g % 2
        env = cubirds_v0.env(num_players=2)
        env.reset(seed=1000 + g)
        agents = {seat: CubirdsHeuristic(seed=g), 1 - seat: RandomAgent(seed=g)}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            q = int(agent.split("_")[1])
            env.step(
                agents[q].act(
                    obs["observation"], obs["action_mask"], seat=Seat(env.unwrapped.game_state, q)
                )
            )
        wins += env.unwrapped.game_state.winners() == (seat,)
    assert wins >= 75, wins
