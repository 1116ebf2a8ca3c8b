"""The single-agent Gymnasium views: reward routing, truncation, seats, masks, check_env."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from cardzoo.envs import games
from cardzoo.envs.base import IllegalActionError
from cardzoo.train.opponents import Opponent
from cardzoo.train.single_agent import SingleAgentEnv, gym_id, register_envs
from gymnasium.utils.env_checker import check_env

GAMES = [m.GAME.name for m in games()]


def random_action(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize("game", GAMES)
def test_check_env_passes_through_gymnasium_make(game):
    import cardzoo.train  # noqa: F401  (registers the views)

    module = next(m for m in games() if m.GAME.name == game)
    env = gymnasium.make(gym_id(module), opponents="random")
    check_env(env.unwrapped)
    check_env(gymnasium.make(gym_id(module), opponents="random", render_mode="ansi").unwrapped)


def test_registered_ids_and_heuristic_opponents():
    register_envs()
    register_envs()  # twice is harmless
    env = gymnasium.make("cardzoo/BeastyBar-v0", opponents="heuristic", num_players=2)
    obs, info = env.reset(seed=3)
    assert set(obs) == {"observation", "action_mask"}
    assert info["opponents"] == ("heuristic",)
    assert "cardzoo/Cubirds-v0" in gymnasium.registry


def _play_out(env: SingleAgentEnv, rng: np.random.Generator, seed: int):
    """One game with random legal learner moves: (final reward, terminated, truncated, info,
    who made the game's last move, the rewards of the steps before the last)."""
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        env._last_mover = "learner"  # _Tracking overwrites it when an opponent moves after
        obs, reward, terminated, truncated, info = env.step(random_action(obs, rng))
        if terminated or truncated:
            return reward, terminated, truncated, info, env._last_mover, rewards
        rewards.append(reward)


class _Tracking(Opponent):
    """Random legal moves that remember who moved last (to script who ends the game)."""

    name = "tracking"

    def __init__(self, env: SingleAgentEnv) -> None:
        self.env = env

    def act_batch(self, tables, encoder):
        out = []
        for t in tables:
            legal = t.state.legal_move_ids()
            out.append(legal[int(t.rng.integers(len(legal)))])
            self.env._last_mover = "opponent"
        return out


def test_learner_gets_minus_one_when_the_opponents_move_ends_the_game():
    # Beasty Bar 2p, learner in seat 0 moving first: seat 1 (the opponent) always plays the last
    # card, so every game ends on the opponent's move, inside step().
    env = SingleAgentEnv("beasty_bar", learner_seat=0, first_player=0)
    env.pool = type(env.pool).fixed([_Tracking(env)], "beasty_bar")
    rng = np.random.default_rng(0)
    seen = set()
    for seed in range(400):
        reward, terminated, truncated, info, last, before = _play_out(env, rng, seed)
        assert terminated and not truncated and last == "opponent"
        assert all(r == 0.0 for r in before)
        winners = tuple(np.flatnonzero(info["winners"]))
        expected = 0.0 if len(winners) != 1 else (1.0 if winners == (0,) else -1.0)
        assert reward == expected
        seen.add(reward)
        if seen == {-1.0, 0.0, 1.0}:
            break
    assert seen == {-1.0, 0.0, 1.0}, f"outcomes seen: {seen}"  # a loss, a draw and a win


def test_truncation_is_reported_as_truncation():
    env = SingleAgentEnv("cubirds", max_turns=3)
    rng = np.random.default_rng(1)
    obs, _ = env.reset(seed=0)
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step(random_action(obs, rng))
        if terminated or truncated:
            break
    assert truncated and not terminated and reward == 0.0
    assert env.aec.end_reasons[info["end_reason"]] == "truncated"
    assert not env.action_masks().any()


def test_seats_are_randomised_unless_fixed():
    env = SingleAgentEnv("beasty_bar", num_players=3)
    seats = [env.reset(seed=s)[1]["learner_seat"] for s in range(300)]
    counts = np.bincount(seats, minlength=3)
    assert all(70 < c < 130 for c in counts), counts
    fixed = SingleAgentEnv("beasty_bar", num_players=3, learner_seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(20)} == {2}
    with pytest.raises(ValueError, match="learner_seat"):
        SingleAgentEnv("beasty_bar", learner_seat=2)


def test_mask_is_served_both_ways_and_only_the_learner_acts():
    env = SingleAgentEnv("cubirds", opponents="random")
    rng = np.random.default_rng(2)
    obs, info = env.reset(seed=5)
    for _ in range(300):
        assert np.array_equal(env.action_masks(), obs["action_mask"])
        state = env.aec.game_state
        assert state.current_player == info["learner_seat"]
        assert sorted(np.flatnonzero(obs["action_mask"])) == state.legal_move_ids()
        obs, _, terminated, truncated, info = env.step(random_action(obs, rng))
        if terminated or truncated:
            obs, info = env.reset()


def test_illegal_action_terminates_by_default_and_can_raise():
    env = SingleAgentEnv("beasty_bar")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, truncated, _ = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = SingleAgentEnv("beasty_bar", illegal_action="raise")
    obs, _ = strict.reset(seed=0)
    before = strict.aec.game_state.move_count
    with pytest.raises(IllegalActionError, match="illegal action"):
        strict.step(illegal)
    assert strict.aec.game_state.move_count == before


def test_same_seed_same_game():
    a, b = (
        SingleAgentEnv("beasty_bar", "random,heuristic"),
        SingleAgentEnv("beasty_bar", "random,heuristic"),
    )
    rng_a, rng_b = np.random.default_rng(9), np.random.default_rng(9)
    oa, ia = a.reset(seed=11)
    ob, ib = b.reset(seed=11)
    for _ in range(100):
        assert np.array_equal(oa["observation"], ob["observation"])
        assert ia["opponents"] == ib["opponents"]
        ra = a.step(random_action(oa, rng_a))
        rb = b.step(random_action(ob, rng_b))
        assert ra[1:4] == rb[1:4]
        oa, ob, ia, ib = ra[0], rb[0], ra[4], rb[4]
        if ra[2] or ra[3]:
            oa, ia = a.reset()
            ob, ib = b.reset()


def test_bad_arguments_are_clear():
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("chess")
    with pytest.raises(ValueError, match="unknown agent spec"):
        SingleAgentEnv("beasty_bar", opponents="genius")
    with pytest.raises(ValueError, match="win_loss"):
        SingleAgentEnv("beasty_bar", reward="score")
    with pytest.raises(TypeError, match="opponents"):
        SingleAgentEnv("beasty_bar", opponents=3)


def test_maskable_ppo_trains_on_the_gymnasium_view():
    # The README's example, with a tiny budget: SB3 finds the masks through action_masks().
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import cardzoo.train  # noqa: F401

    env = gymnasium.make("cardzoo/BeastyBar-v0", opponents="heuristic", num_players=2)
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=64)
    model.learn(128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert obs["action_mask"][int(action)] == 1
    env.step(action)
