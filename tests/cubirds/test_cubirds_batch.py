"""Cubirds' rejection step in batches (session 40, :mod:`cardzoo.envs.cubirds.hidden_batch`).

At one draw pile with nothing pinned, where the pilot keeps few proposals, the model draws its
proposals many at a time with NumPy instead of one by one. The samples must come from the same
distribution as the scalar loop's (which ``test_cubirds_exact_posterior.py`` checks against the
brute-force reference), agree with everything the seat saw, and stay a function of the seat's
information and the generator. The bench's five-player middle position of game 3 is the one
it was made for: its rejection keeps about 6 % of the proposals. Since session 41 the batches
serve several piles too (each pile drawn to its end must come out exactly); seeded five-player
game 1001 after 137 decisions (two piles, nothing pinned, about 3 % kept) is such a position.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State, hidden, hidden_batch, hidden_exact
from cardzoo.train.bench_loops import game_position
from cubirds_posterior import reference
from cubirds_small_logs import worst_p_value
from cubirds_worlds import agrees_with_what_was_seen, fresh_model, small_position

ALPHA = 1e-4


def _bench_position() -> State:
    """The bench's five-player middle position of its game 3 (``cardzoo bench``)."""
    return game_position(State, Config(num_players=5), 3, 0.5)


def _two_piles() -> State:
    """Five players, seeded game 1001 after 137 decisions: two piles, the rejection keeping
    about 3 % of its proposals."""
    return game_position(State, Config(num_players=5), 1001, 137)


def _worlds(model, rng: np.random.Generator, count: int, batches: bool) -> Counter:
    """``count`` samples of ``model`` (per other seat its hidden counts, and the draw pile's),
    drawn by its batch sampler or by the scalar loop."""
    sampler = model.batch
    model.batch = sampler if batches else None
    p = model.player
    got: Counter = Counter()
    for _ in range(count):
        hid, draw = model.sample(rng)[:2]
        got[(tuple(tuple(h) for q, h in enumerate(hid) if q != p), tuple(draw))] += 1
    model.batch = sampler
    return got


def test_the_bench_position_is_sampled_in_batches_by_default():
    model = fresh_model(_bench_position())
    assert len(model.piles) == 1 and model.pile_pin is None and model.tail is None
    assert model.batch is not None


@pytest.mark.parametrize("position", ["one pile", "two piles"])
def test_batches_and_the_scalar_loop_sample_the_same_distribution(position):
    model = fresh_model(_bench_position() if position == "one pile" else _two_piles())
    rng = np.random.default_rng(40)
    batched = _worlds(model, rng, 2000, batches=True)
    scalar = _worlds(model, rng, 2000, batches=False)
    assert worst_p_value(batched, scalar) > ALPHA


def test_the_comparison_notices_a_biased_batch(monkeypatch):
    # The same comparison with the keep step of the batches switched off (every first
    # proposal kept: the chains' proposal distribution, not the posterior) must fail.
    model = fresh_model(_bench_position())
    monkeypatch.setattr(model.batch, "log_top", -1e9)  # every keep probability above 1
    rng = np.random.default_rng(41)
    batched = _worlds(model, rng, 2000, batches=True)
    scalar = _worlds(model, rng, 2000, batches=False)
    assert worst_p_value(batched, scalar) < ALPHA


@pytest.mark.parametrize(("n", "seed"), [(2, 0), (3, 0)])
def test_batches_match_the_rejection_reference(n, seed, monkeypatch):
    # Small positions (the reference keeps 3-50 % of its tries), batches forced wherever they
    # apply: per-seat chains (MIN_KEPT 0), the pile never split (ONE_PILE_PIN off).
    monkeypatch.setattr(hidden_exact, "MIN_KEPT", 0.0)
    monkeypatch.setattr(hidden_exact, "ONE_PILE_PIN", False)
    monkeypatch.setattr(hidden_batch, "BATCH_BELOW", 2.0)
    state = small_position(seed, n)
    rng = np.random.default_rng(seed)
    model = fresh_model(state)
    assert model.batch is not None
    ref, _ = reference(state.log, state.current_player, n, rng, 3000, 10**7)
    assert worst_p_value(ref, _worlds(model, rng, 3000, batches=True)) > ALPHA


def test_batched_samples_agree_with_everything_seen():
    state = _bench_position()
    p = state.current_player
    hidden._PLANS.clear()
    rng = np.random.default_rng(3)
    for _ in range(30):
        agrees_with_what_was_seen(state, state.determinize(p, rng), p)
    assert hidden.plan_for(state, p).exact_model.batch is not None


def test_batched_samples_are_a_function_of_the_seat_information():
    # A state whose model has served many calls and a fresh copy of it (nothing kept) give the
    # same sample for the same generator: where batches serve is decided by the build alone.
    state = _bench_position()
    p = state.current_player
    for _ in range(20):
        state.determinize(p, np.random.default_rng(1))
    used = state.determinize(p, np.random.default_rng(7))
    hidden._PLANS.clear()
    hidden_exact._BUILT.clear()
    fresh = state.clone().determinize(p, np.random.default_rng(7))
    assert [used.view(q) for q in range(5)] == [fresh.view(q) for q in range(5)]


def test_a_two_pile_position_is_sampled_in_batches_by_default():
    model = fresh_model(_two_piles())
    assert len(model.piles) == 2 and model.pin is None and model.pile_pin is None
    assert model.batch is not None and model.batch.piles is not None


def _chains_alone(monkeypatch) -> None:
    """Several piles sampled by the seats' chains and the rejection step alone (nothing
    pinned, no box capped, no tail), as the batches take them."""
    monkeypatch.setattr(hidden_exact, "MULTI_PILE_SEATS", 2)
    for name in ("PIN_BOX", "PIN_PILE", "CAP_SOLE_BOXES"):
        monkeypatch.setattr(hidden_exact, name, False)
    monkeypatch.setattr(hidden_exact, "TAIL_KEPT", 0)


@pytest.mark.parametrize(("n", "seed"), [(2, 0), (3, 0)])
def test_batches_at_several_piles_match_the_rejection_reference(n, seed, monkeypatch):
    _chains_alone(monkeypatch)
    state = small_position(seed, n, piles=2)
    model = fresh_model(state)
    assert len(model.piles) > 1 and model.seats is not None
    model.batch = hidden_batch.BatchSampler(model)
    rng = np.random.default_rng(seed)
    for _ in range(200):  # each box in its pile: the emptied piles come out exactly
        x = model.batch.sample(rng, 10**6)
        assert x is not None
        took = [[0] * 8 for _ in model.piles]
        for g, counts in enumerate(x[:-1]):
            took[model.box_pile[g]] = [t + c for t, c in zip(took[model.box_pile[g]], counts)]
        assert took[:-1] == model.avail[:-1] and min(x[-1]) >= 0
        assert [t + r for t, r in zip(took[-1], x[-1])] == model.avail[-1]
    ref, _ = reference(state.log, state.current_player, n, rng, 3000, 10**7)
    assert worst_p_value(ref, _worlds(model, rng, 3000, batches=True)) > ALPHA


def test_the_reference_notices_batches_that_leave_an_emptied_pile_unchecked(monkeypatch):
    # The same comparison with the emptied piles' condition dropped must fail.
    _chains_alone(monkeypatch)
    state = small_position(0, 3, piles=2)
    model = fresh_model(state)
    model.batch = hidden_batch.BatchSampler(model)
    monkeypatch.setattr(hidden_batch.BatchSampler, "_emptied", lambda self, took: True)
    rng = np.random.default_rng(0)
    ref, _ = reference(state.log, state.current_player, 3, rng, 3000, 10**7)
    assert worst_p_value(ref, _worlds(model, rng, 3000, batches=True)) < ALPHA
