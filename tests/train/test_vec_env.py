"""The batched VecEnv: step-by-step agreement with single envs, masks, batching, errors."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents.policy import NumpyActor
from cardzoo.envs import games
from cardzoo.envs.core import IllegalMoveError
from cardzoo.train.opponents import Opponent, PolicyOpponent, RandomOpponent
from cardzoo.train.pool import OpponentPool
from cardzoo.train.single_agent import SingleAgentEnv
from cardzoo.train.vec_env import BatchedCardEnv

GAMES = [m.GAME.name for m in games()]


def tiny_actor(obs_size: int, num_actions: int, seed: int = 0) -> NumpyActor:
    rng = np.random.default_rng(seed)
    return NumpyActor(
        [
            (rng.normal(0, 0.3, (obs_size, 16)), rng.normal(0, 0.1, 16)),
            (rng.normal(0, 0.3, (16, num_actions)), rng.normal(0, 0.1, num_actions)),
        ],
        "tanh",
    )


def opponents_for(game: str, size: int, num_actions: int) -> list:
    """Random, a policy network and (where the game has one) the heuristic."""
    from cardzoo.agents import HEURISTICS

    specs: list = ["random", PolicyOpponent("net", tiny_actor(size, num_actions))]
    if game in HEURISTICS:
        specs.append("heuristic")
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
    assert isinstance(RandomOpponent(), Opponent)


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
