"""The one outcome definition (``cardzoo.envs.outcome``, issue 15): what the env reports at the end
of a game equals ``outcome(state)`` on every case, results and team results follow the documented
rules, and the public helpers the training code uses instead of private names (``seat_of``,
``Encoder.encode_to``/``mask_to``) agree with what they replace."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs import games, load
from cardzoo.envs.outcome import (
    DRAW,
    END_ILLEGAL_ACTION,
    END_TRUNCATED,
    LOSS,
    WIN,
    Outcome,
    outcome,
    score_rewards,
    win_loss_rewards,
)
from cardzoo.train.tournament import WinDrawLoss
from conformance_cases import CASES

GAMES = [pytest.param(m, id=m.GAME.env_name) for m in games()]


def _play(env, rng) -> None:
    """Random legal moves until the game is over (the agents stay in the env)."""
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        assert env.unwrapped.outcome() is None
        legal = env.unwrapped.legal_actions()
        env.step(legal[int(rng.integers(len(legal)))])


# -- the rules of the outcome, on hand-made cases -------------------------------------------------


def test_win_loss_rewards_share_plus_and_minus_one():
    assert win_loss_rewards((1,), 3) == (-0.5, 1.0, -0.5)
    assert win_loss_rewards((0, 2), 4) == (0.5, -0.5, 0.5, -0.5)
    assert win_loss_rewards((), 3) == (0.0, 0.0, 0.0)  # nobody won: a draw
    assert win_loss_rewards((0, 1), 2) == (0.0, 0.0)  # everybody won: a draw


def test_score_rewards_are_each_score_minus_the_others_mean():
    assert score_rewards((3.0, 1.0, 2.0)) == (1.5, -1.5, 0.0)
    assert sum(score_rewards((7.0, 2.0, 2.0, 5.0))) == pytest.approx(0.0, abs=1e-12)


def test_results_seat_by_seat_and_team_by_team():
    solo = Outcome("won", (1,), win_loss_rewards((1,), 3), ((0,), (1,), (2,)))
    assert [solo.result(q) for q in range(3)] == [LOSS, WIN, LOSS]
    assert [solo.team_result(q) for q in range(3)] == [LOSS, WIN, LOSS]
    shared = Outcome("won", (0, 2), win_loss_rewards((0, 2), 3), ((0,), (1,), (2,)))
    assert [shared.result(q) for q in range(3)] == [DRAW, LOSS, DRAW]
    assert [shared.team_result(q) for q in range(3)] == [DRAW, LOSS, DRAW]
    # Partners 0+2 against 1+3 win together: a shared victory seat by seat, a win as a team.
    teams = Outcome("won", (0, 2), win_loss_rewards((0, 2), 4), ((0, 2), (1, 3)))
    assert [teams.result(q) for q in range(4)] == [DRAW, LOSS, DRAW, LOSS]
    assert [teams.team_result(q) for q in range(4)] == [WIN, LOSS, WIN, LOSS]
    assert teams.winning_teams == ((0, 2),) and teams.team_of(3) == (1, 3)
    assert teams.winners_vector().tolist() == [1, 0, 1, 0]
    nobody = Outcome(END_TRUNCATED, (), (0.0,) * 4, ((0, 2), (1, 3)))
    assert nobody.truncated and {nobody.result(q) for q in range(4)} == {DRAW}
    assert {nobody.team_result(q) for q in range(4)} == {DRAW}
    with pytest.raises(ValueError, match="seat must be"):
        teams.result(4)
    with pytest.raises(ValueError, match="seat must be"):
        teams.team_result(True)


def test_win_draw_loss_tally_counts_each_result():
    class Record(WinDrawLoss):
        def __init__(self) -> None:
            self.games = self.wins = self.draws = self.losses = 0

    record = Record()
    for result in (WIN, DRAW, LOSS, LOSS):
        record.count(result)
    record.count(WIN, 3)
    assert (record.games, record.wins, record.draws, record.losses) == (7, 4, 1, 2)
    assert record.win_rate == 4 / 7
    with pytest.raises(ValueError, match="unknown result 'won'"):
        record.count("won")
    assert record.games == 7  # a refused result changes nothing


def test_outcome_of_a_game_still_going_is_refused():
    env = load("beasty_bar").env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="still going on"):
        outcome(env.unwrapped.game_state)
    with pytest.raises(ValueError, match="invalid reward 'points'"):
        outcome(env.unwrapped.game_state, reward="points")


# -- the env reports exactly the outcome, on every case --------------------------------------------


@pytest.mark.parametrize("reward", ["win_loss", "score"])
@pytest.mark.parametrize("module,config", CASES)
def test_env_end_of_game_is_the_outcome(module, config, reward):
    env = module.env(reward=reward, **config)
    base = env.unwrapped
    rng = np.random.default_rng(4)
    results = {WIN: 0, DRAW: 0, LOSS: 0}
    for game in range(4):
        env.reset(seed=game)
        _play(env, rng)
        state = base.game_state
        got = base.outcome()
        assert got == outcome(state, reward)
        assert got.teams == state.teams()
        assert [env.rewards[a] for a in env.possible_agents] == list(got.rewards)
        for a in env.possible_agents:
            info = env.infos[a]
            assert base.end_reasons[info["end_reason"]] == got.end_reason
            assert np.array_equal(info["winners"], got.winners_vector())
        if state.terminal:
            assert got.end_reason == state.end_reason and got.winners == state.winners()
        else:
            assert got.truncated and got.rewards == (0.0,) * state.num_players
        for seat in range(state.num_players):
            results[got.result(seat)] += 1
    assert sum(results.values()) == 4 * base.config.num_players


@pytest.mark.parametrize("module", GAMES)
def test_truncated_and_illegal_endings_by_name(module):
    env = module.env(max_turns=1)
    env.reset(seed=0)
    _play(env, np.random.default_rng(0))
    got = env.unwrapped.outcome()
    assert got.end_reason == END_TRUNCATED and got.truncated and got.winners == ()
    assert env.unwrapped.end_reasons[env.infos["player_0"]["end_reason"]] == "truncated"
    env = module.env(illegal_action="terminate")
    env.reset(seed=0)
    offender = env.agent_selection
    mask = env.observe(offender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    got = env.unwrapped.outcome()
    seat = env.unwrapped.seat_of(offender)
    assert got.end_reason == END_ILLEGAL_ACTION and got.offender == seat
    assert [env.rewards[a] for a in env.possible_agents] == list(got.rewards)
    assert got.result(seat) == LOSS and got.rewards[seat] == -1.0
    assert env.unwrapped.outcome() is got
    env.reset(seed=1)
    assert env.unwrapped.outcome() is None  # a new game has no outcome yet


@pytest.mark.parametrize(
    "options, teams",
    [
        ({"mode": "team", "num_players": 4}, ((0, 2), (1, 3))),
        ({"mode": "team", "num_players": 6}, ((0, 3), (1, 4), (2, 5))),
        ({"mode": "team", "num_players": 2}, ((0,), (1,))),
        ({"num_players": 4}, ((0,), (1,), (2,), (3,))),
    ],
)
def test_sitting_ducks_partners_form_one_side(options, teams):
    env = load("sitting_ducks").env(**options)
    env.reset(seed=0)
    assert env.unwrapped.game_state.teams() == teams


# -- public helpers in place of private names ------------------------------------------------------


@pytest.mark.parametrize("module", GAMES)
def test_seat_of_names_each_agent_and_refuses_strangers(module):
    env = module.env()
    assert [env.unwrapped.seat_of(a) for a in env.possible_agents] == list(
        range(len(env.possible_agents))
    )
    with pytest.raises(ValueError, match="unknown agent 'player_9'"):
        env.unwrapped.seat_of("player_9")


@pytest.mark.parametrize("module,config", CASES)
def test_encode_to_and_mask_to_write_what_encode_and_mask_return(module, config):
    env = module.raw_env(**config)
    encoder = env.encoder
    n = env.config.num_players
    rows = np.full((2, encoder.size), 7, dtype=encoder.dtype)  # stale values must be overwritten
    masks = np.full((2, encoder.num_actions), 5, dtype=np.int8)
    rng = np.random.default_rng(9)
    env.reset(seed=3)
    state = env.game_state
    row, mask_row = rows[1], masks[1]  # views into the batch arrays, as the batched env uses
    for _ in range(60):
        for seat in range(n):
            assert encoder.encode_to(state, seat, row) is row
            assert np.array_equal(rows[1], encoder.encode(state, seat))
        assert encoder.mask_to(state, mask_row) is mask_row
        assert np.array_equal(masks[1], encoder.mask(state))
        assert (rows[0] == 7).all() and (masks[0] == 5).all()  # only the given row is written
        if state.terminal or state.truncated:
            break
        legal = state.legal_move_ids()
        env.step(legal[int(rng.integers(len(legal)))])


def test_mask_is_legal_ids_says_whether_mask_is_overridden():
    from cardzoo.encoders.base import Encoder

    for module in games():
        for cls in module.GAME.encoders.values():
            assert cls.mask_is_legal_ids == (cls.mask is Encoder.mask), cls.__name__
    cubirds = load("cubirds").GAME.encoders["default"]
    assert not cubirds.mask_is_legal_ids  # Cubirds caches its lay masks

    class Overriding(load("beasty_bar").GAME.encoders["default"]):
        def mask(self, state):
            return super().mask(state)

    assert not Overriding.mask_is_legal_ids


def test_sitting_ducks_team_win_is_a_win_for_both_partners():
    import numpy as np

    env = load("sitting_ducks").env(mode="team", num_players=4)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        done = termination or truncation
        env.step(None if done else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    got = env.unwrapped.outcome()
    (side,) = [t for t in got.teams if set(t) == set(got.winners)]
    for q in range(4):
        assert got.team_result(q) == ("win" if q in side else "loss")
        assert got.result(q) == ("draw" if q in side else "loss")  # a shared victory
