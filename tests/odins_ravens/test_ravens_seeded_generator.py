"""The state ``determinize`` returns gets its generator built on first use
(``hidden.SeededGenerator``, issue 16, speed): it draws exactly what
``numpy.random.default_rng(seed)`` draws, also after a clone, a copy or pickling."""

from __future__ import annotations

import copy
import pickle

import numpy as np
from cardzoo.envs.odins_ravens import Config, State
from cardzoo.envs.odins_ravens.hidden import SeededGenerator


def _middle_state() -> State:
    s = State(Config(), seed=3)
    rng = np.random.default_rng(3)
    for _ in range(120):
        moves = s.legal_move_ids()
        s.apply(moves[int(rng.integers(len(moves)))])
    return s


def test_the_resampled_state_builds_its_generator_on_first_use():
    """Fails on the old code, which built ``default_rng(seed)`` inside ``determinize``."""
    world = _middle_state().determinize(0, np.random.default_rng(1))
    assert isinstance(world.rng, np.random.Generator)
    assert type(world.rng) is SeededGenerator and world.rng._generator is None
    want = np.random.default_rng(world.rng._seed).random(5)
    assert list(world.rng.random(5)) == list(want)


def test_a_seeded_generator_draws_as_default_rng_after_copies():
    seed = 2**62 + 12345
    want = np.random.default_rng(seed)
    unused = SeededGenerator(seed)
    twin = unused._copy()  # an unused copy is the seed alone
    assert type(twin) is SeededGenerator and twin._generator is None
    assert list(twin.integers(100, size=6)) == list(want.integers(100, size=6))
    used = SeededGenerator(seed)
    used.integers(100, size=6)
    ref = np.random.default_rng(seed)
    ref.integers(100, size=6)
    expected = list(ref.random(4))
    copies = (used._copy(), copy.copy(used), copy.deepcopy(used), pickle.loads(pickle.dumps(used)))
    for other in copies:
        assert list(other.random(4)) == expected
    assert list(used.random(4)) == expected


def test_a_resampled_state_and_its_clone_play_on_alike():
    """The clone of a resampled state (its generator not built yet) draws what the state draws."""
    world = _middle_state().determinize(1, np.random.default_rng(2))
    twin = world.clone()
    assert list(twin.rng.random(3)) == list(world.rng.random(3))
    rng = np.random.default_rng(5)
    while not world.terminal and not world.truncated:
        move = world.legal_move_ids()[int(rng.integers(len(world.legal_move_ids())))]
        world.apply(move)
        twin.apply(move)
    assert world.render() == twin.render()
