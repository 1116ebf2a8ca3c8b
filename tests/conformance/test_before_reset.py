"""Before the first ``reset()`` every part of the env that needs a game refuses with the same clear
error, and the parts that need no game work as they do afterwards (issue 14)."""

from __future__ import annotations

import copy
import inspect
import pickle

import numpy as np
import pytest
from cardzoo.envs.base import (
    EPISODE_ATTRIBUTES,
    ResetRequiredAttributeError,
    ResetRequiredError,
)
from conformance_cases import CASES

# Public methods that read the game, with arguments that would be valid after reset().
NEEDS_GAME = {
    "step": (0,),
    "step_as": ("player_0", 0),
    "observe": ("player_0",),
    "last": (),
    "state": (),
    "render": (),
    "render_for": ("player_0",),
    "render_svg": (),
    "legal_actions": (),
    "view": ("player_0",),
    "agent_iter": (),
    "outcome": (),
}
# Public methods that need no game: they answer the same before and after reset().
NO_GAME = {
    "action_space": ("player_0",),
    "observation_space": ("player_0",),
    "action_to_move": (0,),
    "seat_of": ("player_1",),
}
# Methods that start or end the env's life: not "used before reset".
LIFECYCLE = {"reset", "close"}


def _public_methods(env) -> set[str]:
    return {
        name
        for name, value in inspect.getmembers(type(env))
        if not name.startswith("_") and inspect.isfunction(value)
    }


@pytest.mark.parametrize("module,config", CASES)
def test_every_public_method_is_classified(module, config):
    # A method added later must be put in one of the lists (and so be checked below).
    env = module.env(**config)
    assert _public_methods(env) == set(NEEDS_GAME) | set(NO_GAME) | LIFECYCLE


@pytest.mark.parametrize("render_mode", [None, "ansi"])
@pytest.mark.parametrize("module,config", CASES)
def test_methods_that_need_a_game_raise_the_reset_error(module, config, render_mode):
    env = module.env(render_mode=render_mode, **config)
    for target in (env, env.unwrapped):
        for name, args in NEEDS_GAME.items():
            with pytest.raises(ResetRequiredError, match=r"before reset\(\); call reset\(\) first"):
                getattr(target, name)(*args)
            # The message names what was called; it is a RuntimeError like before.
            with pytest.raises(RuntimeError, match=rf"^{name}\(\) called before reset"):
                getattr(target, name)(*args)
    assert env.unwrapped.game_state is None, "a refused call must not start a game"


@pytest.mark.parametrize("module,config", CASES)
def test_per_game_attributes_before_reset(module, config):
    env = module.env(**config)
    for target in (env, env.unwrapped):
        for name in sorted(EPISODE_ATTRIBUTES):
            assert not hasattr(target, name)
            assert getattr(target, name, "default") == "default"
            with pytest.raises(
                ResetRequiredAttributeError, match=rf"{name} .*call reset\(\) first"
            ):
                getattr(target, name)
    # Unknown names keep the plain AttributeError (not the reset hint).
    with pytest.raises(AttributeError) as info:
        env.no_such_attribute  # noqa: B018
    assert not isinstance(info.value, ResetRequiredError)
    assert "no_such_attribute" in str(info.value)
    # Copies and pickles of an env that never ran behave the same.
    for other in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert not hasattr(other, "agents")
        with pytest.raises(ResetRequiredError):
            other.observe("player_0")
    env.reset(seed=0)
    assert env.agents == env.possible_agents and env.num_agents == len(env.possible_agents)
    for name in EPISODE_ATTRIBUTES:
        assert hasattr(env, name)


@pytest.mark.parametrize("module,config", CASES)
def test_methods_that_need_no_game_answer_the_same_before_and_after_reset(module, config):
    env = module.env(**config)
    before = {name: getattr(env, name)(*args) for name, args in NO_GAME.items()}
    assert env.max_num_agents == len(env.possible_agents)
    env.close()  # closing an env that never ran is fine
    env.reset(seed=1)
    after = {name: getattr(env, name)(*args) for name, args in NO_GAME.items()}
    assert before == after


@pytest.mark.parametrize("module,config", CASES)
def test_refused_calls_leave_the_env_as_new(module, config):
    # Errors before reset() must not draw from the env's generator or change anything.
    fresh = module.env(**config)
    probed = module.env(**config)
    for name, args in NEEDS_GAME.items():
        with pytest.raises(ResetRequiredError):
            getattr(probed, name)(*args)
    fresh.reset(seed=5)
    probed.reset(seed=5)
    a, b = fresh.observe(fresh.agent_selection), probed.observe(probed.agent_selection)
    assert np.array_equal(a["observation"], b["observation"])
    assert np.array_equal(a["action_mask"], b["action_mask"])
    assert (
        fresh.legal_actions() == probed.legal_actions() == np.flatnonzero(a["action_mask"]).tolist()
    )


@pytest.mark.parametrize("module,config", CASES)
def test_view_and_legal_actions_after_reset(module, config):
    env = module.env(**config)
    env.reset(seed=2)
    agent = env.agent_selection
    assert env.unwrapped.view(agent) == env.unwrapped.game_state.view(
        env.possible_agents.index(agent)
    )
    with pytest.raises(ValueError, match="unknown agent"):
        env.unwrapped.view("player_99")
    # Played to the end, nothing is legal any more (an empty list, not an error).
    rng = np.random.default_rng(0)
    while env.agents and not (
        env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
    ):
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    assert env.legal_actions() == []
