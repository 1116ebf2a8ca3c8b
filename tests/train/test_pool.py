"""The opponent pool: mixing weights, snapshot cap, drawing, saving; the numpy actor."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from cardzoo.agents.policy import NumpyActor
from cardzoo.train.pool import OpponentPool


def actor(seed: int = 0, size: int = 6, actions: int = 4) -> NumpyActor:
    rng = np.random.default_rng(seed)
    return NumpyActor(
        [(rng.normal(size=(size, 5)), rng.normal(size=5)), (rng.normal(size=(5, actions)),
                                                            rng.normal(size=actions))],
        "relu",
    )  # fmt: skip


def test_default_mixing_is_60_20_20_self_snapshots_baselines():
    pool = OpponentPool("beasty_bar")
    pool.set_current(actor())
    for i in range(4):
        pool.add_snapshot(actor(i + 1), f"snap-{i}")
    p = pool.probabilities()
    assert p["self"] == pytest.approx(0.6)
    assert sum(v for k, v in p.items() if k.startswith("snap-")) == pytest.approx(0.2)
    assert p["heuristic"] == pytest.approx(0.1) and p["random"] == pytest.approx(0.1)
    rng = np.random.default_rng(0)
    draws = [pool.sample(rng).name for _ in range(20000)]
    assert draws.count("self") / len(draws) == pytest.approx(0.6, abs=0.02)
    assert sum(d.startswith("snap-") for d in draws) / len(draws) == pytest.approx(0.2, abs=0.02)


def test_empty_groups_give_their_weight_to_the_others():
    pool = OpponentPool("beasty_bar")  # no current policy, no snapshots yet
    assert pool.probabilities() == pytest.approx({"heuristic": 0.5, "random": 0.5})
    pool.set_current(actor())
    expected = {"self": 0.75, "heuristic": 0.125, "random": 0.125}
    assert pool.probabilities() == pytest.approx(expected)


def test_snapshot_cap_keeps_the_newest_and_names_are_unique():
    pool = OpponentPool("beasty_bar", max_snapshots=3)
    for i in range(5):
        pool.add_snapshot(actor(i), f"snap-{i}")
    assert [s.name for s in pool.snapshots] == ["snap-2", "snap-3", "snap-4"]
    with pytest.raises(ValueError, match="already in use"):
        pool.add_snapshot(actor(), "snap-4")


def test_current_policy_updates_in_place():
    pool = OpponentPool("beasty_bar")
    pool.set_current(actor(0))
    member = pool.current
    pool.set_current(actor(1))
    assert pool.current is member  # the same opponent object: batching by identity holds
    assert np.array_equal(member.actor.layers[0][0], actor(1).layers[0][0])


def test_state_dict_round_trip_and_pickle():
    pool = OpponentPool("beasty_bar", baselines=["random"], weights=(0.5, 0.3, 0.2))
    pool.set_current(actor(0))
    pool.add_snapshot(actor(1), "snap-1")
    copy = OpponentPool.from_state_dict(pickle.loads(pickle.dumps(pool.state_dict())))
    assert copy.probabilities() == pool.probabilities()
    obs = np.ones((3, 6), dtype=np.int8)
    assert np.allclose(copy.snapshots[0].actor.logits(obs), pool.snapshots[0].actor.logits(obs))
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    assert [copy.sample(a).name for _ in range(50)] == [pool.sample(b).name for _ in range(50)]


def test_bad_pools_are_refused():
    with pytest.raises(ValueError, match="three non-negative"):
        OpponentPool("beasty_bar", weights=(1, -1, 1))
    with pytest.raises(ValueError, match="empty"):
        OpponentPool("beasty_bar", baselines=[], weights=(0, 0, 1))
    waiting = OpponentPool("beasty_bar", baselines=[], weights=(1, 1, 0))  # self-play only
    with pytest.raises(ValueError, match="no member yet"):
        waiting.sample(np.random.default_rng(0))
    waiting.set_current(actor())
    assert waiting.sample(np.random.default_rng(0)).name == "self"
    with pytest.raises(ValueError, match="distinct"):
        OpponentPool("beasty_bar", baselines=["random", "random"])
    with pytest.raises(ValueError, match="unknown agent spec"):
        OpponentPool("beasty_bar", baselines=["nobody"])


def test_actor_samples_only_legal_actions_and_argmax_is_legal():
    a = actor(3, size=6, actions=4)
    obs = np.random.default_rng(0).integers(0, 3, size=(200, 6)).astype(np.int8)
    masks = np.zeros((200, 4), dtype=np.int8)
    masks[np.arange(200), np.arange(200) % 4] = 1
    masks[::3, 0] = 1
    rngs = [np.random.default_rng(i) for i in range(200)]
    for actions in (a.act(obs, masks, rngs), a.act(obs, masks, deterministic=True)):
        assert all(masks[i, x] for i, x in enumerate(actions))
    logits = a.logits(obs)
    numpy_only = NumpyActor([(w, b) for w, b in a.layers], "relu")
    numpy_only._torch = []  # the numpy path gives the same numbers as the torch path
    assert np.allclose(numpy_only.logits(obs), logits, atol=1e-4)
    with pytest.raises(ValueError, match="no legal action"):
        a.act(obs[:1], np.zeros((1, 4), dtype=np.int8), deterministic=True)


def test_sampling_follows_the_policy_distribution():
    a = actor(5, size=6, actions=4)
    obs = np.ones((1, 6), dtype=np.int8)
    mask = np.array([[1, 0, 1, 1]], dtype=np.int8)
    logits = a.logits(obs)[0].astype(np.float64)
    p = np.exp(logits - logits.max()) * mask[0]
    p /= p.sum()
    rng = np.random.default_rng(0)
    counts = np.bincount([a.act(obs, mask, [rng])[0] for _ in range(6000)], minlength=4)
    assert counts[1] == 0
    assert np.allclose(counts / 6000, p, atol=0.03)
