"""The batched VecEnv: step-by-step agreement with single envs, masks, batching, errors, and the
Odin's Ravens game end (win, loss, truncation) from a hand-set position."""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
from cardzoo.envs import games
from cardzoo.envs.core import IllegalMoveError
from cardzoo.train.opponents import Opponent, PolicyOpponent, RandomOpponent
from cardzoo.train.pool import OpponentPool
from cardzoo.train.single_agent import SingleAgentEnv
from cardzoo.train.vec_env import BatchedCardEnv
from train_helpers import tiny_actor

GAMES = [m.GAME.name for m in games()]


def opponents_for(game: str, size: int, num_actions: int) -> list:
    """Random, a policy network and the game's heuristic. A game without a heuristic (an opt-out
    that tests/test_registry.py requires to be explicit) is said so in the test report."""
    from cardzoo.agents import HEURISTICS

    specs: list = ["random", PolicyOpponent("net", tiny_actor(size, num_actions))]
    if game in HEURISTICS:
        specs.append("heuristic")
    else:
        warnings.warn(
            f"{game} has no heuristic: the batched env is checked against random and a policy "
            "network only",
            UserWarning,
            stacklevel=2,
        )
    return specs


TABLES = sorted(
    {(m.GAME.name, n) for m in games() for n in (min(m.GAME.player_counts), 3)
     if n in m.GAME.player_counts}
)  # fmt: skip


@pytest.mark.parametrize("game,players", TABLES)
def test_batched_env_agrees_step_by_step_with_single_envs(game, players):
    k = 4
    probe = SingleAgentEnv(game, num_players=players)
    specs = opponents_for(game, probe.encoder.size, probe.encoder.num_actions)
    # the same opponent objects in both: the policy network is the same Python object
    singles = [SingleAgentEnv(game, specs, num_players=players) for _ in range(k)]
    vec = BatchedCardEnv(game, k, specs, num_players=players, seed=100)
    obs = [s.reset(seed=100 + i)[0] for i, s in enumerate(singles)]
    vobs = vec.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(250):
        masks = vec.action_masks()
        for i in range(k):
            assert np.array_equal(vobs[i], obs[i]["observation"])
            assert np.array_equal(masks[i], obs[i]["action_mask"])
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        vobs, vrew, vdone, vinfo = vec.step(np.array(actions))
        for i, single in enumerate(singles):
            o, r, terminated, truncated, info = single.step(actions[i])
            assert vrew[i] == r and vdone[i] == (terminated or truncated)
            if vdone[i]:
                episodes += 1
                end = vinfo[i]
                assert np.array_equal(end["terminal_observation"], o["observation"])
                assert end["TimeLimit.truncated"] == truncated
                assert end["opponents"] == info["opponents"]
                assert end["learner_seat"] == info["learner_seat"]
                assert np.array_equal(end["winners"], info["winners"])
                assert end["end_reason"] == info["end_reason"]
                assert end["episode"]["r"] == r
                o, _ = single.reset()
            obs[i] = o
    assert episodes >= 4


@pytest.mark.parametrize("game", GAMES)
def test_masks_never_admit_an_illegal_action(game):
    vec = BatchedCardEnv(game, 8, "random", seed=1)
    vec.reset()
    rng = np.random.default_rng(1)
    for _ in range(500):  # 4000 learner decisions
        masks = vec.env_method("action_masks")
        for table, mask in zip(vec.tables, masks):
            assert table.seats[table.state.current_player] is None  # the learner is to act
            assert np.flatnonzero(mask).tolist() == table.state.legal_move_ids()
        # any masked action is legal: the env would raise otherwise
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))


def test_truncated_games_report_timelimit_and_restart():
    vec = BatchedCardEnv("cubirds", 3, "random", seed=0, max_turns=4)
    vec.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(60):
        actions = [rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]
        _, rewards, dones, infos = vec.step(np.array(actions))
        for i in np.flatnonzero(dones):
            assert infos[i]["TimeLimit.truncated"] and rewards[i] == 0.0
            seen += 1
    assert seen > 0


class CountingOpponent(RandomOpponent):
    """Random moves; counts calls and the largest group it was asked to decide at once."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls = 0
        self.largest = 0

    def act_batch(self, tables, encoder):
        self.calls += 1
        self.largest = max(self.largest, len(tables))
        return super().act_batch(tables, encoder)


def test_opponent_moves_are_batched_by_opponent():
    a, b = CountingOpponent("a"), CountingOpponent("b")
    vec = BatchedCardEnv("beasty_bar", 32, [a, b], num_players=4, seed=0)
    vec.reset()
    a.calls = b.calls = 0
    steps = 50
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = vec.action_masks()
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    # Beasty Bar 4p: 3 opponent moves between two learner turns, so about 3 rounds per step,
    # each round one call per opponent (not one per game).
    assert a.calls <= 4 * steps and b.calls <= 4 * steps
    assert a.largest > 4 and b.largest > 4


def test_illegal_learner_action_raises_and_changes_nothing():
    vec = BatchedCardEnv("beasty_bar", 2, "random", seed=0)
    obs = vec.reset()
    masks = vec.action_masks()
    moves = [t.state.move_count for t in vec.tables]
    bad = int(np.flatnonzero(masks[1] == 0)[0])
    good = int(np.flatnonzero(masks[0])[0])
    with pytest.raises(IllegalMoveError, match="game 1: illegal action"):
        vec.step(np.array([good, bad]))
    assert [t.state.move_count for t in vec.tables] == moves
    assert np.array_equal(vec.action_masks(), masks)
    with pytest.raises(IllegalMoveError):
        vec.step(np.array([good, 99]))
    assert obs.shape == (2, vec.encoder.size)


def test_seed_and_reset_follow_sb3_conventions():
    vec = BatchedCardEnv("beasty_bar", 3, "random")
    vec.seed(7)
    first = vec.reset()
    again = BatchedCardEnv("beasty_bar", 3, "random", seed=7).reset()
    assert np.array_equal(first, again)
    assert vec.has_attr("action_masks")
    assert vec.env_is_wrapped(object) == [False, False, False]
    with pytest.raises(ValueError, match="num_envs"):
        BatchedCardEnv("beasty_bar", 0)


def test_pool_opponents_are_drawn_per_game_and_logged():
    pool = OpponentPool("beasty_bar", baselines=["random"], weights=(0.5, 0.0, 0.5))
    probe = SingleAgentEnv("beasty_bar")
    pool.set_current(tiny_actor(probe.encoder.size, probe.encoder.num_actions))
    vec = BatchedCardEnv("beasty_bar", 16, pool, seed=3)
    vec.reset()
    rng = np.random.default_rng(0)
    names = []
    for _ in range(100):
        masks = vec.action_masks()
        _, _, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        names += [infos[i]["opponents"] for i in np.flatnonzero(dones)]
    counts = {n: names.count((n,)) for n in ("self", "random")}
    assert sum(counts.values()) == len(names) > 100
    assert 0.35 < counts["self"] / len(names) < 0.65


def test_bad_opponent_spec_fails_before_any_game():
    with pytest.raises(ValueError, match="unknown agent spec"):
        BatchedCardEnv("beasty_bar", 2, "nobody")


def test_random_opponent_draws_legal_moves_from_each_tables_stream():
    from cardzoo.envs import load
    from cardzoo.train.opponents import Table, state_factory

    module = load("beasty_bar")
    env = module.raw_env()
    new_game = state_factory(module, env.config)
    opponent = RandomOpponent()
    tables = [Table(new_game, np.random.default_rng(seed)) for seed in (5, 5, 6)]
    for t in tables:
        t.state = new_game(11)  # the same position at every table
    legal = tables[0].state.legal_move_ids()
    seen = []
    for _ in range(40):
        actions = opponent.act_batch(tables, env.encoder)
        assert all(a in legal for a in actions)
        assert actions[0] == actions[1]  # equal streams, equal choices
        seen.append(tuple(actions))
    assert {a for row in seen for a in row} == set(legal)  # uniform: every legal move comes up
    assert any(row[2] != row[0] for row in seen)  # another stream, other choices
    # A fresh table with stream 5 replays table 0's choices: the draws come from the table.
    replay = Table(new_game, np.random.default_rng(5))
    replay.state = new_game(11)
    assert [opponent.act_batch([replay], env.encoder)[0] for _ in range(40)] == [
        row[0] for row in seen
    ]


def test_worker_processes_play_the_same_games_as_one_process():
    from cardzoo.train.vec_env import SubprocBatchedEnv

    probe = SingleAgentEnv("beasty_bar")
    specs = ["random", PolicyOpponent("net", tiny_actor(probe.encoder.size, 45))]
    one = BatchedCardEnv("beasty_bar", 5, specs, seed=21)
    many = SubprocBatchedEnv("beasty_bar", 5, specs, seed=21, workers=2)
    try:
        assert np.array_equal(one.reset(), many.reset())
        rng = np.random.default_rng(0)
        for _ in range(60):
            masks = one.action_masks()
            assert np.array_equal(masks, np.stack(many.env_method("action_masks")))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            a, b = one.step(actions), many.step(actions)
            for x, y in zip(a[:3], b[:3]):
                assert np.array_equal(x, y)
            for i, j in zip(a[3], b[3]):
                assert i.keys() == j.keys() and i.get("opponents") == j.get("opponents")
        assert one.rng_states() == many.rng_states()
        assert many.opponent_moves == one.opponent_moves > 0
        with pytest.raises(IllegalMoveError, match="game 0"):
            many.step(np.array([99, 0, 0, 0, 0]))
    finally:
        many.close()
    with pytest.raises(ValueError, match="workers"):
        SubprocBatchedEnv("beasty_bar", 2, "random", workers=3)


# -- Odin's Ravens: the end of a game, from a hand-set position -----------------------------------
# Random Ravens games run thousands of steps, so the end-of-game path is reached from a position
# one decision from the end: both ravens on card 7 of 9, both players on 11 points of 12, each
# holding the land card of its own last space (seat 0's is M, seat 1's is F).


def ravens_near_final(config: Any, seat_to_play: int) -> Any:
    from cardzoo.envs.odins_ravens import State

    return State.from_position(
        config,
        paths=("FPSMWFPSM", "MWMFMPWMF"),
        pos=(7, 7),
        hands=(("M", "F"), ("F", "S")),
        totals=(11, 11),
        current_player=seat_to_play,
        seed=0,
    )


def ravens_near_final_aec(seat_to_play: int, **options: Any) -> Any:
    """The Odin's Ravens AEC env, whose every deal is the hand-set position."""
    from cardzoo.envs import odins_ravens_v0
    from cardzoo.envs.odins_ravens import State

    class NearFinal(State):
        __slots__ = ()

        def __new__(cls, config: Any, seed: Any = None) -> Any:
            return ravens_near_final(config, seat_to_play)  # a State: __init__ is skipped

    class NearFinalEnv(odins_ravens_v0.raw_env):
        game = dataclasses.replace(odins_ravens_v0.GAME, state_cls=NearFinal)

    return NearFinalEnv(**options)


class FlyWhenYouCan(Opponent):
    """Flies whenever it may, otherwise takes the first legal move (deterministic)."""

    name = "fly-first"

    def act_batch(self, tables, encoder):
        from cardzoo.envs.odins_ravens import MOVES, Fly

        actions = []
        for t in tables:
            legal = t.state.legal_move_ids()
            actions.append(next((a for a in legal if isinstance(MOVES[a], Fly)), legal[0]))
        return actions


FLY, END_PLAYS, NO_EXTENSION = 9, 130, 131  # Odin's Ravens move ids (checked in the test)

# (learner's moves, options, learner's reward, how it ends)
RAVENS_ENDINGS = {
    # the learner's own fly ends the race and the game: it wins
    "learner-wins": ([FLY], {}, 1.0, "score_reached"),
    # the learner passes; the opponent's fly ends the game on the learner's second step
    "opponent-wins": ([END_PLAYS, NO_EXTENSION], {}, -1.0, "score_reached"),
    # the race's turn cap is hit by the learner's second decision: truncated, reward 0
    "truncated": ([END_PLAYS, NO_EXTENSION], {"max_turns_per_race": 1}, 0.0, "truncated"),
}


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("ending", list(RAVENS_ENDINGS))
def test_ravens_game_end_rewards_match_the_aec_env(monkeypatch, ending, seat):
    from cardzoo.envs.odins_ravens import MOVES, EndTurn, Extend, Fly
    from cardzoo.train import vec_env

    moves, options, expected_reward, expected_reason = RAVENS_ENDINGS[ending]
    assert isinstance(MOVES[FLY], Fly) and isinstance(MOVES[END_PLAYS], EndTurn)
    assert isinstance(MOVES[NO_EXTENSION], Extend) and not MOVES[NO_EXTENSION].extend
    # Every game the batched env deals is the hand-set position.
    monkeypatch.setattr(
        vec_env, "state_factory", lambda module, config: lambda s: ravens_near_final(config, seat)
    )
    opponent = FlyWhenYouCan()
    k = 3
    vec = BatchedCardEnv("odins_ravens", k, [opponent], learner_seat=seat, seed=0, **options)
    start = vec.reset()

    # The same game through the AEC env: the learner's moves, the opponent's answers.
    aec = ravens_near_final_aec(seat, **options)
    aec.reset(seed=0)
    learner = aec.possible_agents[seat]
    assert np.array_equal(start, np.stack([aec.observe(learner)["observation"]] * k))
    for i, move in enumerate(moves):
        assert aec.agent_selection == learner
        assert vec.action_masks()[:, move].all(), "the scripted move is legal in every game"
        obs, rewards, dones, infos = vec.step(np.full(k, move))
        aec.step(move)
        while aec.agent_selection != learner and not aec.terminations[learner]:
            (answer,) = opponent.act_batch([_TableView(aec.unwrapped.game_state)], aec.encoder)
            aec.step(answer)
        last = i == len(moves) - 1
        assert dones.tolist() == [last] * k
        if not last:
            assert rewards.tolist() == [0.0] * k and infos == [{}] * k
    ended = aec.terminations[learner] or aec.truncations[learner]
    assert ended
    reward = aec._cumulative_rewards[learner]
    reason = aec.infos[learner]["end_reason"]
    winners = aec.infos[learner]["winners"]
    # What the AEC env says is what was expected...
    assert reward == expected_reward and aec.end_reasons[reason] == expected_reason
    assert aec.truncations[learner] == (expected_reason == "truncated")
    if expected_reward:
        winner = seat if expected_reward > 0 else 1 - seat
        assert winners.tolist() == [int(s == winner) for s in range(2)]
    else:
        assert not winners.any()
    # ...and the batched env reports exactly that, for every game.
    final_obs = aec.observe(learner)["observation"]
    assert rewards.tolist() == [expected_reward] * k
    for info in infos:
        assert info["end_reason"] == reason and vec.end_reasons[reason] == expected_reason
        assert np.array_equal(info["winners"], winners)
        assert info["TimeLimit.truncated"] == (expected_reason == "truncated")
        assert info["episode"]["r"] == expected_reward and info["episode"]["l"] == len(moves)
        assert info["learner_seat"] == seat and info["opponents"] == ("fly-first",)
        assert np.array_equal(info["terminal_observation"], final_obs)
    # The games restarted at once: the step returned the hand-set position again.
    assert np.array_equal(obs, start)


class _TableView:
    """Enough of a Table for an opponent's act_batch: the engine state."""

    def __init__(self, state: Any) -> None:
        self.state = state


def test_score_reward_pays_the_score_margin_of_the_same_games():
    """reward="score" (a shaping ablation) ends the same games with the learner's score margin:
    a winner of Beasty Bar has the top score, so the signs agree with win/loss and the sizes
    vary."""
    runs = {}
    for reward in ("win_loss", "score"):
        venv = BatchedCardEnv("beasty_bar", 4, "random", 2, seed=5, reward=reward)
        venv.reset()
        ends = []
        while len(ends) < 12:
            first = venv.action_masks().argmax(axis=1)  # the same moves in both runs
            _, rewards, dones, _ = venv.step(first)
            ends.extend(float(rewards[k]) for k in np.flatnonzero(dones))
        runs[reward] = ends[:12]
    assert all(r in (-1.0, 0.0, 1.0) for r in runs["win_loss"])
    assert [np.sign(r) for r in runs["score"]] == [np.sign(r) for r in runs["win_loss"]]
    assert len({abs(r) for r in runs["score"]} - {0.0}) > 1
