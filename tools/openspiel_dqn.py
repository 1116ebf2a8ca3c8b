"""Train OpenSpiel's own PyTorch DQN agent on a cardzoo game through ``rl_environment``.

A short run that shows the route works end to end: the DQN learns in seat 0 against OpenSpiel's
random agent (the seats swap every episode, so it learns both), then plays ``--eval`` greedy
episodes against the random agent. Usage::

    python tools/openspiel_dqn.py beasty_bar --episodes 3000 --eval 500

Needs the ``openspiel`` and ``train`` extras (open_spiel, torch).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="cubirds, beasty_bar, odins_ravens or sitting_ducks")
    parser.add_argument("--episodes", type=int, default=3000, help="training episodes")
    parser.add_argument("--eval", type=int, default=500, help="greedy episodes against random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import pyspiel
    import torch
    from cardzoo.envs.openspiel import register_games
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import random_agent
    from open_spiel.python.pytorch import dqn

    torch.set_num_threads(1)
    register_games()
    game = pyspiel.load_game(
        f"python_cardzoo_{args.game}", {"players": 2, "seed": args.seed, "perfect_recall": False}
    )
    env = rl_environment.Environment(game)
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    learner = dqn.DQN(
        0,
        size,
        actions,
        hidden_layers_sizes=(128, 128),
        replay_buffer_capacity=50_000,
        epsilon_decay_duration=args.episodes * 20,
        learning_rate=1e-3,
        optimizer_str="adam",
        seed=args.seed,
    )
    opponent = random_agent.RandomAgent(1, actions)

    def play(learner_seat: int, evaluation: bool) -> float:
        learner.player_id = learner_seat
        opponent._player_id = 1 - learner_seat
        agents = {learner_seat: learner, 1 - learner_seat: opponent}
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            action = agents[player].step(time_step, is_evaluation=evaluation).action
            time_step = env.step([action])
        if not evaluation:
            learner.step(time_step)
        return time_step.rewards[learner_seat]

    started = time.process_time()
    for episode in range(args.episodes):
        play(episode % 2, evaluation=False)
        if (episode + 1) % 500 == 0:
            print(f"episode {episode + 1}/{args.episodes}", flush=True)
    train_cpu = time.process_time() - started
    rewards = np.array([play(g % 2, evaluation=True) for g in range(args.eval)])
    wins = int((rewards > 0).sum())
    print(
        f"{args.game}: DQN after {args.episodes} episodes ({train_cpu:.0f} CPU-s) won {wins} of "
        f"{args.eval} greedy games against random ({wins / args.eval:.3f}), "
        f"{int((rewards == 0).sum())} draws"
    )


if __name__ == "__main__":
    main()
