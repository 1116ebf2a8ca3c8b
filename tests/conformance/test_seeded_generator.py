"""The state ``determinize`` returns gets a generator built on first use
(``core.child_rng`` / ``core.SeededGenerator``; issue 16, speed: building a seeded generator cost
about a fifth of an Odin's Ravens call along a game). It must draw exactly what
``numpy.random.default_rng(seed)`` draws, also after a clone, a copy or pickling, in every game."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from cardzoo.envs import beasty_bar_v0, cubirds_v0, odins_ravens_v0, sitting_ducks_v0
from cardzoo.envs.core import LazyGenerator, SeededGenerator, child_seed, clone_rng

MODULES = {
    "beasty_bar": beasty_bar_v0,
    "cubirds": cubirds_v0,
    "odins_ravens": odins_ravens_v0,
    "sitting_ducks": sitting_ducks_v0,
}


def _middle_state(name: str, moves: int = 40):
    spec = MODULES[name].GAME
    state = spec.state_cls(spec.make_config(), seed=3)
    rng = np.random.default_rng(3)
    for _ in range(moves):  # stops at the last decision if the game ends sooner
        legal = state.legal_move_ids()
        after = state.clone()
        after.apply_id(legal[int(rng.integers(len(legal)))])
        if after.terminal or after.truncated:
            break
        state = after
    return state


@pytest.mark.parametrize("name", sorted(MODULES))
def test_the_resampled_state_builds_its_generator_on_first_use(name):
    """Fails on code that builds ``default_rng(seed)`` inside ``determinize``."""
    state = _middle_state(name)
    world = state.determinize(state.current_player, np.random.default_rng(1))
    assert isinstance(world.rng, np.random.Generator)
    assert type(world.rng) is SeededGenerator and world.rng._generator is None
    want = np.random.default_rng(world.rng._seed).random(5)
    assert list(world.rng.random(5)) == list(want)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_resampled_state_and_its_clone_play_on_alike(name):
    """The clone of a resampled state (its generator not built yet) draws what the state draws."""
    state = _middle_state(name)
    world = state.determinize(state.current_player, np.random.default_rng(2))
    twin = world.clone()
    assert list(twin.rng.random(3)) == list(world.rng.random(3))
    rng = np.random.default_rng(5)
    while not world.terminal and not world.truncated:
        legal = world.legal_move_ids()
        move = legal[int(rng.integers(len(legal)))]
        world.apply_id(move)
        twin.apply_id(move)
    assert world.render() == twin.render()


def test_a_seeded_generator_draws_as_default_rng_after_copies():
    seed = 2**62 + 12345
    want = np.random.default_rng(seed)
    unused = SeededGenerator(seed)
    twin = unused._copy()  # an unused copy is the seed alone
    assert type(twin) is SeededGenerator and twin._generator is None
    assert list(twin.integers(100, size=6)) == list(want.integers(100, size=6))
    used = SeededGenerator(seed)
    used.integers(100, size=6)
    assert type(used._copy()) is LazyGenerator
    ref = np.random.default_rng(seed)
    ref.integers(100, size=6)
    expected = list(ref.random(4))
    copies = (used._copy(), copy.copy(used), copy.deepcopy(used), pickle.loads(pickle.dumps(used)))
    for other in copies:
        assert list(other.random(4)) == expected
    assert list(used.random(4)) == expected


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: np.random.default_rng(seed),
        lambda seed: np.random.Generator(np.random.MT19937(seed)),  # the general path
        lambda seed: clone_rng(np.random.default_rng(seed)),  # a lazy copy
    ],
)
def test_child_seed_is_a_draw_of_integers_below_2_to_63(make):
    # Session 23: on PCG64 the seed is read from one raw draw (the same number, cheaper); it
    # must equal ``integers(2**63)`` draw after draw, and leave the generator where that leaves it.
    for seed in range(50):
        fast, plain = make(seed), make(seed)
        for _ in range(200):
            assert child_seed(fast) == int(plain.integers(2**63))
        assert fast.random() == plain.random()
