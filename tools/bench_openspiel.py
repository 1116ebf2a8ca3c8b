"""Measurements for docs/openspiel.md: speed through pyspiel beside the env, and OpenSpiel's ISMCTS
bot against the game's heuristic agent.

    python tools/bench_openspiel.py speed --seconds 3
    python tools/bench_openspiel.py ismcts --games beasty_bar --matches 20 --simulations 100
    python tools/bench_openspiel.py ismcts --games odins_ravens --matches 2 --rollout-cap 50

``speed``: random play for ``--seconds`` of CPU time of this process (``time.process_time``) per
game, default player count, the seat to act observed at every move: through pyspiel
(``apply_action`` + ``make_observation``'s ``set_from``; with the default
``perfect_recall=True``, which keeps every seat's information history, and with ``False``) and
through the env (``last()`` + ``step()``).

``ismcts``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (UCT c = 2, one random rollout per
leaf, ``--simulations`` per move) in one seat, the game's heuristic agent in every other seat,
default player count, the bot's seat alternating 0, 1, 0, ...; game ``i`` uses ``seed=i``.
``--rollout-cap K`` stops each rollout after K moves with value 0 for all (Odin's Ravens: random
rollouts there run for hundreds of moves). A game counts as a win for the bot when its return is
positive, a loss when negative. Speeds are per CPU second of this process, which other jobs on a
shared machine disturb less than wall-clock time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from cardzoo.agents import Seat, make_agent
from cardzoo.envs import make
from cardzoo.envs.openspiel import register_games
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.observation import make_observation

GAMES = ("beasty_bar", "cubirds", "sitting_ducks", "odins_ravens")


def pyspiel_speed(name: str, seconds: float, perfect_recall: bool) -> float:
    game = pyspiel.load_game(
        f"python_cardzoo_{name}", {"seed": 0, "perfect_recall": perfect_recall}
    )
    observation = make_observation(game)
    rng = np.random.default_rng(0)
    moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            observation.set_from(state, state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            moves += 1
    return moves / (time.process_time() - start)


def env_speed(name: str, seconds: float) -> float:
    rng = np.random.default_rng(0)
    env = make(name)
    env.reset(seed=0)
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps / (time.process_time() - start)


class CappedRolloutEvaluator(mcts.Evaluator):
    """One random rollout, stopped after ``cap`` moves (value 0 for all if unfinished)."""

    def __init__(self, cap: int, seed: int) -> None:
        self.cap = cap
        self.rng = np.random.RandomState(seed)

    def evaluate(self, state: pyspiel.State) -> np.ndarray:
        state = state.clone()
        for _ in range(self.cap):
            if state.is_terminal():
                return np.array(state.returns())
            legal = state.legal_actions()
            state.apply_action(legal[self.rng.randint(len(legal))])
        if state.is_terminal():
            return np.array(state.returns())
        return np.zeros(state.get_game().num_players())

    def prior(self, state: pyspiel.State) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def ismcts_match(name: str, matches: int, simulations: int, cap: int | None) -> str:
    wins = losses = bot_moves = 0
    bot_seconds = 0.0
    for i in range(matches):
        game = pyspiel.load_game(f"python_cardzoo_{name}", {"seed": i})
        if cap is None:
            evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(i))
        else:
            evaluator = CappedRolloutEvaluator(cap, i)
        bot = ismcts.ISMCTSBot(
            game, evaluator, 2.0, simulations, random_state=np.random.RandomState(i)
        )
        heuristic = make_agent("heuristic", name, seed=i)
        observation = make_observation(game)
        bot_seat = i % 2
        state = game.new_initial_state()
        while not state.is_terminal():
            player = state.current_player()
            if player == bot_seat:
                start = time.process_time()
                action = int(bot.step(state))
                bot_seconds += time.process_time() - start
                bot_moves += 1
                if bot_moves % 50 == 0:  # long games (Odin's Ravens): progress on the way
                    print(f"    {bot_moves} bot moves in {bot_seconds:.1f} CPU s", flush=True)
            else:
                observation.set_from(state, player)
                mask = np.zeros(game.num_distinct_actions(), np.int8)
                mask[state.legal_actions()] = 1
                action = heuristic.act(observation.tensor, mask, seat=Seat(state.engine, player))
            state.apply_action(action)
        result = state.returns()[bot_seat]
        wins += result > 0
        losses += result < 0
        print(
            f"  {name} game {i}: bot seat {bot_seat}, returns {state.returns()}; so far "
            f"{bot_moves} bot moves in {bot_seconds:.1f} CPU s",
            flush=True,
        )
    rate = bot_moves / bot_seconds if bot_seconds else 0.0
    return (
        f"{name}: {matches} games, ISMCTS wins {wins} / losses {losses}, "
        f"{bot_moves} bot moves at {rate:.2f} moves per CPU second"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("speed", "ismcts"))
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--rollout-cap", type=int, default=None)
    args = parser.parse_args()
    register_games()
    for name in args.games:
        if args.what == "speed":
            recall = pyspiel_speed(name, args.seconds, True)
            plain = pyspiel_speed(name, args.seconds, False)
            through_env = env_speed(name, args.seconds)
            print(
                f"{name}: pyspiel {recall:,.0f} moves/s (perfect_recall=False: {plain:,.0f}), "
                f"env {through_env:,.0f} steps/s"
            )
        else:
            print(ismcts_match(name, args.matches, args.simulations, args.rollout_cap))


if __name__ == "__main__":
    main()
