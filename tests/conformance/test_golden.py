"""Golden playthroughs: a seeded random game per env, its moves and observations, kept as text.

Any change of rules, dealing, encoding or seeding shows up as a diff of the file in review.
Regenerate after an intended change with ``CARDZOO_UPDATE_GOLDEN=1 pytest tests/conformance``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from cardzoo.envs import games

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden"
#: Long random games (Odin's Ravens) are recorded up to this many steps: enough to pin behaviour.
GOLDEN_STEPS = 400


def _playthrough(module) -> str:
    game = module.GAME
    n = min(game.player_counts)
    env = module.env(num_players=n)
    env.reset(seed=7)
    rng = np.random.default_rng(7)
    lines = [f"# {game.env_name}, {n} players, env seed 7, random agent seed 7", ""]
    lines.append(env.unwrapped.game_state.render())
    lines.append("")
    lines.append("# step agent action move | observation as index:value for nonzero entries")
    step = 0
    for agent in env.agent_iter():
        if step == GOLDEN_STEPS:
            lines.append(f"stopped after {GOLDEN_STEPS} steps")
            break
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            lines.append(f"end {agent} reward {reward:+.3f} terminated={term} truncated={trunc}")
            env.step(None)
            continue
        vec = obs["observation"]
        nz = " ".join(f"{i}:{vec[i]:g}" for i in np.flatnonzero(vec))
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        lines.append(f"{step} {agent} {action} {env.unwrapped.action_to_move(action)} | {nz}")
        env.step(action)
        step += 1
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("module", games(), ids=lambda m: m.GAME.env_name)
def test_golden_playthrough(module):
    path = GOLDEN_DIR / f"{module.GAME.env_name}.txt"
    text = _playthrough(module)
    if os.environ.get("CARDZOO_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text)
        if not os.environ.get("CARDZOO_UPDATE_GOLDEN"):
            pytest.fail(f"golden file {path.name} was missing and has been written; commit it")
    assert text == path.read_text(), f"behaviour changed: see the diff of {path.name}"
