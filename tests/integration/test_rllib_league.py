"""The heuristic as a league member of ``cardzoo train-ray``: the env plays the seats that the
policy mapping gives ``heuristic`` (cardzoo.train.rllib.hand_env_seats), docs/ray.md.

Marked ``ray`` and skipped without the ``ray`` extra, as tests/integration/test_rllib.py.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from cardzoo.agents import Seat, make_agent  # noqa: E402
from cardzoo.envs import load  # noqa: E402
from cardzoo.train import rllib  # noqa: E402
from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner  # noqa: E402

pytestmark = pytest.mark.ray


def _play_with_env_seats(game: str, players: int, env_seats: set[str], seed: int) -> tuple:
    """One game through the env, the env playing ``env_seats`` and the test the other seats
    (seeded random legal actions). Returns (every move the engine got as (agent, action), the
    last step's obs, rewards and infos, the agents RLlib was asked to act for)."""
    env = rllib.CardzooMultiAgentEnv({"game": game, "players": players})
    moves: list[tuple[str, int]] = []
    engine_step = env.env.step

    def recording_step(action: int) -> None:  # sees the env's own moves as well as ours
        moves.append((env.env.agent_selection, int(action)))
        engine_step(action)

    env.env.step = recording_step
    env.play_seats(env_seats)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    asked = []
    while True:
        (agent,) = obs
        asked.append(agent)
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        if terms["__all__"] or truncs["__all__"]:
            return moves, (obs, rewards, infos), asked
        assert list(rewards) == [agent]


@pytest.mark.parametrize(
    ("game", "players", "env_seats"),
    [
        ("beasty_bar", 3, {"player_1"}),
        ("cubirds", 2, {"player_0"}),
        ("sitting_ducks", 4, {"player_0", "player_2"}),
        ("odins_ravens", 2, {"player_1"}),
    ],
)
def test_env_played_seats_make_the_heuristics_moves(game, players, env_seats) -> None:
    seed = 11
    moves, (obs, rewards, infos), asked = _play_with_env_seats(game, players, env_seats, seed)
    assert not set(asked) & env_seats  # RLlib never acts for an env-played seat
    # Replay every move on a fresh engine: each is legal and made by the seat to move, and each
    # move of an env-played seat is the one the heuristic (same seed) picks on that state.
    ref = load(game).raw_env(num_players=players)
    ref.reset(seed=seed)
    heuristic = make_agent("heuristic", game, seed=seed)
    by_env = 0
    for agent, action in moves:
        assert ref.agent_selection == agent
        assert ref.unwrapped.game_state.is_legal(action)
        if agent in env_seats:
            raw = ref.observe(agent)
            seat = Seat(ref.unwrapped.game_state, ref.unwrapped.seat_of(agent))
            assert heuristic.act(raw["observation"], raw["action_mask"], seat=seat) == action
            by_env += 1
        else:
            assert agent in asked
        ref.step(action)
    assert by_env >= 5 and len(moves) == by_env + len(asked)
    # the game's end reaches every RLlib-played seat (and no env-played one)
    result = ref.unwrapped.outcome()
    assert result is not None
    mine = [a for a in ref.possible_agents if a not in env_seats]
    assert rewards == {a: float(result.rewards[ref.unwrapped.seat_of(a)]) for a in mine}
    assert set(obs) == set(infos) == set(mine)


def test_env_seats_last_one_episode_and_are_checked() -> None:
    env = rllib.CardzooMultiAgentEnv({"game": "beasty_bar", "players": 2})
    env.play_seats(["player_0"])
    obs, _ = env.reset(seed=3)
    assert env.env_seats == {"player_0"} and list(obs) == ["player_1"]
    assert env.agents == ["player_1"]
    env.reset(seed=3)  # nobody named again: RLlib plays every seat
    assert env.env_seats == frozenset() and env.agents == ["player_0", "player_1"]
    with pytest.raises(ValueError, match="unknown agent id"):
        env.play_seats(["player_2"])
    with pytest.raises(ValueError, match="at least one seat must be left to RLlib"):
        env.play_seats(["player_0", "player_1"])


def test_league_sampling_plays_the_heuristic_in_the_env_and_logs_it() -> None:
    """The real train-ray league (mapping + callbacks) on an env runner: the seats mapped to the
    heuristic never reach RLlib, main still gets its result, and the league counts them."""
    from cardzoo.train.train_ray import League, _league_callback

    league = League(2)
    assert league.opponents == ["main", "random", "heuristic"]
    assert league.shares() == pytest.approx({"main": 1 / 3, "random": 1 / 3, "heuristic": 1 / 3})
    config = rllib.ppo_config(
        rllib.env_config("beasty_bar", 2),
        modules={rllib.RANDOM: rllib.random_spec()},
        mapping=league.mapping(),
        hidden=(16,),
        seed=5,
    ).callbacks(_league_callback(2))
    runner = MultiAgentEnvRunner(config=config)
    try:
        episodes = runner.sample(num_episodes=30, random_actions=False)
        league_log = runner.metrics.peek(("league",))  # what the iteration reports
    finally:
        runner.stop()
    assert len(episodes) == 30
    with_heuristic = 0
    for episode in episodes:
        seats = {f"player_{i}": episode.module_for(f"player_{i}") for i in range(2)}
        played = set(episode.agent_episodes)
        assert played == {a for a, m in seats.items() if m != rllib.HEURISTIC}
        with_heuristic += rllib.HEURISTIC in seats.values()
        main = f"player_{hash(episode.id_) % 2}"
        assert seats[main] == rllib.MAIN
        assert episode.agent_episodes[main].get_rewards()[-1] in (-1.0, 0.0, 1.0)
        assert episode.is_done
    # 30 episodes, a third of the opponent seats heuristic: none at all has odds 6e-6
    assert with_heuristic > 0
    counts = league_log["seats"]
    assert counts["heuristic"] == with_heuristic
    assert sum(counts.values()) == league_log["games"] == 30


def test_the_progress_line_lists_the_heuristic_with_its_share() -> None:
    from cardzoo.train.train_ray import League, _line

    league = League(3, ["main_v1"])
    row = {
        "iteration": 4,
        "env_steps": 400,
        "main_steps": 150,
        "seconds": 10.0,
        "sampling_steps_per_s": 50.0,
        "learner_steps_per_s": 15.0,
        "update_s": 2.0,
        "main_games": 9,
        "main_win_rate": 0.5,
        "opponents": {"heuristic": 5, "main": 4, "random": 5, "main_v1": 4},
    }
    line = _line(row, league)
    assert "league main 0.25, random 0.25, heuristic 0.25, main_v1 0.25" in line
    assert "'heuristic': 5" in line
    assert League(2, heuristic=False).shares() == {"main": 0.5, "random": 0.5}
    settings = {"env": {"game": "cubirds", "players": 4}, "snapshots": ["main_v1"]}
    run_league = League.of_run(settings)
    assert run_league.seats == 4
    assert run_league.opponents == ["main", "random", "heuristic", "main_v1"]


def test_an_iteration_row_counts_nan_metrics_as_zero() -> None:
    """RLlib can report a metric that logged nothing this iteration as NaN (a resumed two-node
    run failed with "cannot convert float NaN to integer"): such counts are 0, no win rate."""
    from cardzoo.train.train_ray import iteration_row

    nan = float("nan")
    result = {
        "training_iteration": 2,
        "env_runners": {
            "num_env_steps_sampled": nan,
            "num_module_steps_sampled": {"main": nan},
            "league": {"games": nan, "wins": nan, "seats": {"random": nan, "main": 3.0}},
        },
        "timers": {"learner_update_timer": nan},
    }
    row = iteration_row(result, 2.0)
    assert row["env_steps"] == row["main_steps"] == row["main_games"] == 0
    assert row["main_win_rate"] is None and row["opponents"] == {"random": 0, "main": 3}
    assert row["update_s"] == 0.0 and row["sampling_steps_per_s"] == 0.0
    played = {"league": {"games": 4.0, "wins": 3.0, "seats": {}}, "num_env_steps_sampled": 80}
    row = iteration_row({"training_iteration": 3, "env_runners": played}, 2.0)
    assert row["main_games"] == 4 and row["main_win_rate"] == 0.75 and row["env_steps"] == 80
