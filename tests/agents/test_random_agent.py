"""RandomAgent and the agent factory."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents import Agent, RandomAgent, make_agent


def test_random_agent_is_uniform_over_legal_actions_and_seeded():
    mask = np.zeros(10, dtype=np.int8)
    mask[[2, 5, 7]] = 1
    agent = RandomAgent(seed=3)
    picks = [agent.act(np.zeros(4), mask) for _ in range(3000)]
    assert set(picks) == {2, 5, 7}
    counts = np.bincount(picks, minlength=10)[[2, 5, 7]]
    assert all(900 < c < 1100 for c in counts), counts
    again = RandomAgent(seed=3)
    assert [again.act(np.zeros(4), mask) for _ in range(3000)] == picks


def test_random_agent_rejects_an_empty_mask():
    with pytest.raises(ValueError, match="no legal action"):
        RandomAgent(0).act(np.zeros(3), np.zeros(5, dtype=np.int8))


def test_make_agent():
    assert isinstance(make_agent("random", "cubirds", seed=1), RandomAgent)
    heuristic = make_agent("heuristic", "cubirds", seed=1)
    assert isinstance(heuristic, Agent) and heuristic.name == "heuristic"
    with pytest.raises(ValueError, match="unknown agent spec"):
        make_agent("genius", "cubirds")
    with pytest.raises(ValueError, match="no checkpoint or run folder"):
        make_agent("ppo:no/such/model.zip", "cubirds")
    with pytest.raises(ValueError, match="no heuristic"):
        make_agent("heuristic", "chess")
