"""A warm start by imitation: behaviour cloning of a teacher agent's moves before self-play PPO.

Self-play from random weights may never find a strategy that a hand-written agent plays from the
first move (Cubirds' heuristic beats PPO trained for 30 minutes in ~98% of games). A warm start
gives PPO that strategy to improve on:

1. :func:`collect_demonstrations` lets the teacher (any agent spec, e.g. ``"heuristic"``) play
   every seat of many games and records, for every decision, the acting seat's observation (the
   same encoder the training env uses), the action mask, the teacher's move and that seat's final
   reward (win/loss, shared by teammates).
2. :func:`clone` fits the policy to the moves (cross-entropy over the masked distribution) and
   the value head to the final rewards (squared error), on minibatches for a few epochs, each
   head keeping its epoch with the best loss on held-out games (early stopping). The
   tenth of the games held out gives the *agreement*: how often the clone's most likely move is
   the teacher's move. A low agreement says the observation lacks what the teacher decides on
   (or that the teacher breaks ties at random).

The trainer runs both before its first evaluation when ``warm_start`` names a teacher
(``cardzoo train ... --set warm_start=heuristic``), so the run's curve starts from the clone.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from cardzoo.agents import Seat, make_agent
from cardzoo.envs import load
from cardzoo.envs.core import child_seed
from cardzoo.envs.outcome import outcome
from cardzoo.train.opponents import state_factory
from cardzoo.train.single_agent import raw_env_for


@dataclass
class Demonstrations:
    """Teacher decisions: row ``i`` is one decision of game ``games[i]``."""

    obs: np.ndarray  # (N, D) the acting seat's observation
    masks: np.ndarray  # (N, A) int8 legal actions
    actions: np.ndarray  # (N,) the teacher's move
    returns: np.ndarray  # (N,) float32 the acting seat's final reward
    games: np.ndarray  # (N,) index of the game the decision belongs to

    def __len__(self) -> int:
        return len(self.actions)


def collect_demonstrations(
    game: str,
    decisions: int,
    teacher: str = "heuristic",
    num_players: int | None = None,
    seed: int = 0,
    **env_options: Any,
) -> Demonstrations:
    """At least ``decisions`` teacher decisions from whole games (the last game is finished).

    Truncated games (``max_turns``) give 0 to everyone, as in training.
    """
    if decisions < 1:
        raise ValueError(f"decisions must be >= 1, got {decisions!r}")
    module = load(game)
    env = raw_env_for(module, num_players, **env_options)
    encoder = env.encoder
    new_game = state_factory(module, env.config)
    rng = np.random.default_rng(seed)
    make_agent(teacher, module.GAME.name)  # a bad spec fails before any game
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    games: list[int] = []
    g = 0
    while len(actions) < decisions:
        state = new_game(child_seed(rng))
        agents = [
            make_agent(teacher, module.GAME.name, seed=child_seed(rng))
            for _ in range(state.num_players)
        ]
        seats: list[int] = []
        while not (state.terminal or state.truncated):
            seat = state.current_player
            ob = encoder.encode(state, seat)
            mask = encoder.mask(state)
            action = int(agents[seat].act(ob, mask, seat=Seat(state, seat)))
            obs.append(ob)
            masks.append(np.asarray(mask, dtype=np.int8))
            actions.append(action)
            seats.append(seat)
            state.apply_id(action)
        rewards = outcome(state).rewards
        returns.extend(rewards[s] for s in seats)
        games.extend([g] * len(seats))
        g += 1
    return Demonstrations(
        np.asarray(obs, dtype=np.float32),
        np.asarray(masks, dtype=np.int8),
        np.asarray(actions, dtype=np.int64),
        np.asarray(returns, dtype=np.float32),
        np.asarray(games, dtype=np.int64),
    )


@dataclass
class CloneReport:
    """What :func:`clone` measured (printed by the trainer, saved in ``warm_start.json``)."""

    decisions: int
    games: int
    epochs: int
    policy_epochs: int  # the epoch kept for the actor (best held-out log-likelihood)
    value_epochs: int  # the epoch kept for the critic (0: the untrained one was best)
    train_agreement: float  # most likely move == teacher's move, on the games trained on
    held_out_agreement: float  # the same on the tenth of the games held out
    held_out_value_mse: float
    seconds: float


def clone(
    policy: Any,
    demos: Demonstrations,
    epochs: int = 8,
    batch_size: int = 1024,
    learning_rate: float = 1e-3,
    vf_coef: float = 0.5,
    seed: int = 0,
) -> CloneReport:
    """Fit an sb3-contrib ``MaskableActorCriticPolicy`` to ``demos`` (in place)."""
    import torch

    started = time.perf_counter()
    n_games = int(demos.games.max()) + 1 if len(demos) else 0
    rng = np.random.default_rng(seed)
    held = rng.permutation(n_games)[: max(1, n_games // 10)] if n_games > 1 else []
    test = np.isin(demos.games, held)
    train_idx = np.flatnonzero(~test)
    tensors = _tensors(demos)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    held_idx = np.flatnonzero(test)
    # Early stopping, separately for the two heads (they share no weights): each keeps the
    # epoch with the best held-out loss, the untrained value head included (a value fitted to
    # a few thousand games' outcomes overfits quickly, and a bad critic misleads PPO).
    best_pi = best_vf = (float("inf"), 0, None)
    n_batches = max(1, len(train_idx) // batch_size)
    for epoch in range(epochs + 1):
        if epoch:
            policy.set_training_mode(True)
            for batch in np.array_split(rng.permutation(train_idx), n_batches):
                obs, masks, actions, returns = (t[batch] for t in tensors)
                values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
                loss = -log_prob.mean() + vf_coef * torch.nn.functional.mse_loss(
                    values.flatten(), returns
                )
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            policy.set_training_mode(False)
        nll, mse = _held_out_losses(policy, tensors, held_idx if len(held_idx) else train_idx)
        state = policy.state_dict()
        if epoch and nll < best_pi[0]:
            best_pi = (nll, epoch, {k: v.clone() for k, v in state.items() if _is_actor(k)})
        if mse < best_vf[0]:
            best_vf = (mse, epoch, {k: v.clone() for k, v in state.items() if not _is_actor(k)})
    if best_pi[2] is not None:
        policy.load_state_dict({**best_pi[2], **best_vf[2]})
    train_agree, _ = _agreement(policy, tensors, train_idx)
    held_agree, held_mse = _agreement(policy, tensors, held_idx)
    return CloneReport(
        len(demos), n_games, epochs, best_pi[1], best_vf[1], train_agree, held_agree, held_mse,
        round(time.perf_counter() - started, 1),
    )  # fmt: skip


def _is_actor(key: str) -> bool:
    """Whether a policy weight belongs to the actor (SB3's names; the critic is the rest)."""
    return key.startswith(("mlp_extractor.policy_net.", "action_net.", "pi_features_extractor."))


def _held_out_losses(policy: Any, tensors: tuple[Any, ...], idx: np.ndarray) -> tuple[float, float]:
    """Mean negative log-likelihood of the teacher's moves and the value head's squared error."""
    import torch

    nll = sq = 0.0
    with torch.no_grad():
        for batch in np.array_split(idx, max(1, len(idx) // 4096)):
            obs, masks, actions, returns = (t[batch] for t in tensors)
            values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
            nll -= float(log_prob.sum())
            sq += float(((values.flatten() - returns) ** 2).sum())
    return nll / len(idx), sq / len(idx)


def agreement(policy: Any, demos: Demonstrations) -> float:
    """How often the policy's most likely legal move is the teacher's move in ``demos``."""
    return _agreement(policy, _tensors(demos), np.arange(len(demos)))[0]


def _tensors(demos: Demonstrations) -> tuple[Any, ...]:
    import torch

    return (
        torch.as_tensor(demos.obs),
        torch.as_tensor(demos.masks.astype(bool)),
        torch.as_tensor(demos.actions),
        torch.as_tensor(demos.returns),
    )


def _agreement(policy: Any, tensors: tuple[Any, ...], idx: np.ndarray) -> tuple[float, float]:
    """Share of ``idx`` where the policy's most likely legal move is the teacher's, and the
    value head's mean squared error against the final rewards."""
    import torch

    if len(idx) == 0:
        return float("nan"), float("nan")
    same = 0
    sq = 0.0
    with torch.no_grad():
        for batch in np.array_split(idx, max(1, len(idx) // 4096)):
            obs, masks, actions, returns = (t[batch] for t in tensors)
            dist = policy.get_distribution(obs, action_masks=masks.numpy())
            best = dist.distribution.probs.argmax(dim=1)
            same += int((best == actions).sum())
            values = policy.predict_values(obs).flatten()
            sq += float(((values - returns) ** 2).sum())
    return same / len(idx), sq / len(idx)
