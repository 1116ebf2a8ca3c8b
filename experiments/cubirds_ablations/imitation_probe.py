"""Cubirds: how well can a policy network imitate the heuristic, and does a capture preview help?

Records the heuristic's moves in self-play (every seat), then fits the same masked-softmax MLP
(two hidden layers of 128, ReLU) twice on 90% of the games: once on the default observation,
once on it plus a *capture preview* (for each of the 64 lay moves, the cards it would capture,
computed from the visible rows). Prints the agreement (most likely move == heuristic's move) on
the held-out games, overall and per decision (lay, draw, flock). docs/cubirds_ablations.md has
the measured figures.

    python experiments/cubirds_ablations/imitation_probe.py --decisions 150000
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from cardzoo.train.imitation import Demonstrations, collect_demonstrations
from cardzoo.train.vec_env import BatchedCardEnv

PHASES = ("lay", "draw", "flock")  # the order of the encoder's `phase` piece


def capture_preview(demos: Demonstrations, slices: dict[str, slice]) -> np.ndarray:
    """(N, 64): cards captured by lay move ``species * 8 + row * 2 + end`` (end 0: left)."""
    rows = demos.obs[:, slices["rows"]].reshape(-1, 4, 8, 8)  # row, block, species -> size
    sizes = rows.sum(3)
    species = rows.argmax(3)
    present = sizes > 0
    cum = np.cumsum(sizes, axis=2)
    total = cum[:, :, -1]
    feat = np.zeros((len(demos), 64), np.float32)
    for s in range(8):
        has = (species == s) & present
        found = has.any(2)
        first = has.argmax(2)[..., None]
        last = (7 - has[:, :, ::-1].argmax(2))[..., None]
        before = (np.take_along_axis(cum, first, 2) - np.take_along_axis(sizes, first, 2))[..., 0]
        after = total - np.take_along_axis(cum, last, 2)[..., 0]
        feat[:, s * 8 : s * 8 + 8 : 2] = np.where(found, before, 0)
        feat[:, s * 8 + 1 : s * 8 + 8 : 2] = np.where(found, after, 0)
    return feat


def fit(x: np.ndarray, demos: Demonstrations, test: np.ndarray, epochs: int) -> np.ndarray:
    """Agreement per row after fitting on the rows not in ``test``."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    xs = torch.as_tensor(x)
    masks = torch.as_tensor(demos.masks.astype(bool))
    actions = torch.as_tensor(demos.actions)
    net = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, demos.masks.shape[1]),
    )  # fmt: skip
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    train = np.flatnonzero(~test)
    for _ in range(epochs):
        for b in np.array_split(rng.permutation(train), max(1, len(train) // 1024)):
            logits = net(xs[b]).masked_fill(~masks[b], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, actions[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        best = net(xs).masked_fill(~masks, -1e9).argmax(1).numpy()
    return best == demos.actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=150_000)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", help="an .npz file: loaded if it exists, else written")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.cache and Path(args.cache).exists():
        demos = Demonstrations(**np.load(args.cache))
    else:
        demos = collect_demonstrations("cubirds", args.decisions, num_players=2, seed=args.seed)
        if args.cache:
            np.savez(args.cache, **vars(demos))
    slices = BatchedCardEnv("cubirds", 1, num_players=2, seed=0).encoder.slices
    phase = demos.obs[:, slices["phase"]].argmax(1)
    n_games = int(demos.games.max()) + 1
    held = np.random.default_rng(0).permutation(n_games)[: n_games // 10]
    test = np.isin(demos.games, held)
    print(f"{len(demos):,} moves of {n_games:,} games; held out {test.sum():,} moves")
    inputs = {
        "default observation": demos.obs,
        "+ capture preview": np.concatenate([demos.obs, capture_preview(demos, slices)], 1),
    }
    for name, x in inputs.items():
        same = fit(x, demos, test, args.epochs)
        parts = [f"{p} {same[test & (phase == i)].mean():.3f}" for i, p in enumerate(PHASES)]
        print(f"{name:22s} held-out agreement {same[test].mean():.3f} ({', '.join(parts)})")


if __name__ == "__main__":
    main()
