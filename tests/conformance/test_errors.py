"""Bad input gets a clear error naming what was wrong, and the game state stays unchanged."""

from __future__ import annotations

import re

import numpy as np
import pytest
from cardzoo.envs import games
from cardzoo.envs.base import IllegalActionError
from conformance_cases import CASES


def _live_env(module, config, steps=5):
    env = module.env(render_mode="ansi", **config)
    env.reset(seed=42)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    assert env.agents and not env.terminations[env.agent_selection]
    return env


def _fingerprint(env):
    return (env.render(), env.agent_selection, dict(env._cumulative_rewards), list(env.agents))


@pytest.mark.parametrize("module,config", CASES)
def test_bad_actions_raise_and_leave_state_unchanged(module, config):
    env = _live_env(module, config)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    n = env.encoder.num_actions
    before = _fingerprint(env)
    illegal = np.flatnonzero(mask == 0)
    bad = [
        (n, "out of range"),
        (-1, "out of range"),
        ("3", "must be an int"),
        (1.0, "must be an int"),
        (None, "must be an int"),
        (np.array([0, 1]), "must be an int"),
    ]
    if illegal.size:
        bad.append((int(illegal[0]), "illegal action"))
    for action, words in bad:
        with pytest.raises(IllegalActionError, match=words) as info:
            env.step(action)
        assert agent in str(info.value), "the error must name the player"
        assert _fingerprint(env) == before
    if illegal.size:  # the message lists the legal actions
        with pytest.raises(IllegalActionError) as info:
            env.step(int(illegal[0]))
        legal = np.flatnonzero(mask)
        assert f"{legal[0]} (" in str(info.value)
    # numpy integers are fine
    env.step(np.int64(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("module,config", CASES)
def test_out_of_turn_and_lifecycle_errors(module, config):
    env = module.env(**config)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    with pytest.raises(RuntimeError, match="before reset"):
        env.observe("player_0")
    env = _live_env(module, config)
    other = next(a for a in env.agents if a != env.agent_selection)
    before = _fingerprint(env)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    with pytest.raises(IllegalActionError, match="turn"):
        env.step_as(other, legal)
    assert _fingerprint(env) == before
    env.step_as(env.agent_selection, legal)
    # Play to the end, then check the errors after it.
    rng = np.random.default_rng(1)
    while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    with pytest.raises(IllegalActionError, match="done"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(None)


@pytest.mark.parametrize("module,config", CASES)
def test_illegal_action_terminate_mode(module, config):
    env = module.env(illegal_action="terminate", **config)
    env.reset(seed=3)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    if not illegal.size:
        pytest.skip("every action is legal in this position")
    env.step(int(illegal[0]))
    assert all(env.terminations.values())
    for a in env.agents:
        assert env._cumulative_rewards[a] == (-1.0 if a == agent else 0.0)
    # Out-of-range ids are still errors, not moves.
    env.reset(seed=3)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(env.encoder.num_actions)


@pytest.mark.parametrize("module,config", CASES)
def test_bad_options(module, config):
    with pytest.raises(ValueError, match="no_such_option"):
        module.env(no_such_option=1, **config)
    with pytest.raises(ValueError, match="num_players"):
        module.env(num_players=99)
    with pytest.raises(ValueError, match="first_player"):
        module.env(**{**config, "first_player": 99})
    with pytest.raises(ValueError, match="encoder"):
        module.env(encoder="nope", **config)
    with pytest.raises(ValueError, match="illegal_action"):
        module.env(illegal_action="ignore", **config)
    with pytest.raises(ValueError, match="reward"):
        module.env(reward="dense", **config)


def _player_count_settings():
    """Each game without a variant and with each of its variants (the variants hold the modes)."""
    for module in games():
        for variant in [None, *module.GAME.variants]:
            yield pytest.param(module, variant, id=f"{module.GAME.env_name}-{variant or 'plain'}")


def _counts_named(message: str) -> set[int]:
    """The player counts an error message offers: ranges ``a..b`` and single ints, read from the
    part after ``allowed:`` or ``must be`` (not the rejected value, not the variant's note)."""
    found = re.search(r"(?:allowed: |must be )(.*?)(?:; got|, got|\(variant|$)", message)
    assert found, f"the message names no allowed counts: {message!r}"
    text = found.group(1)
    counts: set[int] = set()
    for low, high in re.findall(r"(\d+)\.\.(\d+)", text):
        counts.update(range(int(low), int(high) + 1))
    for single in re.findall(r"\b\d+\b", re.sub(r"\d+\.\.\d+", "", text)):
        counts.add(int(single))
    return counts


@pytest.mark.parametrize("module,variant", list(_player_count_settings()))
def test_player_count_errors_name_exactly_the_counts_allowed(module, variant):
    # What the game accepts, found by building it; the message must offer exactly that.
    accepted = set()
    rejected = ["3", 3.0, True, None, -1, 99]
    for n in range(0, 11):
        try:
            module.env(variant=variant, num_players=n)
            accepted.add(n)
        except ValueError:
            rejected.append(n)
    assert accepted, "every setting allows some player count"
    for n in rejected:
        with pytest.raises(ValueError, match="num_players") as info:
            module.env(variant=variant, num_players=n)
        message = str(info.value)
        assert _counts_named(message) == accepted, message
        if variant is not None and module.GAME.variants[variant].keys() - {"num_players"}:
            assert f"variant {variant!r} sets" in message, "say what the variant chose"


@pytest.mark.parametrize("module,config", CASES)
def test_rewards_are_terminal_and_follow_the_convention(module, config):
    env = module.env(**config)
    rng = np.random.default_rng(8)
    for seed in range(20):
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if not (term or trunc):
                assert reward == 0.0, "rewards are 0 until the end"
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
            else:
                env.step(None)
        state = env.unwrapped.game_state
        if not state.terminal:
            assert all(v == 0 for v in totals.values())
            continue
        winners = state.winners()
        n = state.num_players
        assert abs(sum(totals.values())) < 1e-9, "win/loss rewards are zero-sum"
        for seat, agent in enumerate(env.possible_agents):
            if not winners or len(winners) == n:
                assert totals[agent] == 0.0
            elif seat in winners:
                assert totals[agent] == pytest.approx(1.0 / len(winners))
            else:
                assert totals[agent] == pytest.approx(-1.0 / (n - len(winners)))


@pytest.mark.parametrize("module,config", CASES)
def test_score_rewards_are_score_differences(module, config):
    env = module.env(reward="score", **config)
    rng = np.random.default_rng(4)
    finished = 0
    for seed in range(10):
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
        state = env.unwrapped.game_state
        if not state.terminal:
            continue
        finished += 1
        scores = state.scores()
        n = len(scores)
        for seat, agent in enumerate(env.possible_agents):
            others = (sum(scores) - scores[seat]) / (n - 1)
            assert totals[agent] == pytest.approx(scores[seat] - others)
        assert sum(totals.values()) == pytest.approx(0.0)
    assert finished > 0


@pytest.mark.parametrize("module,config", CASES)
def test_helpers_for_agents_and_humans(module, config):
    env = module.env(**config)
    env.reset(seed=5)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    assert env.legal_actions() == np.flatnonzero(mask).tolist()
    move = env.action_to_move(env.legal_actions()[0])
    assert str(move) and env.encoder.move_to_action(move) == env.legal_actions()[0]
    view = env.view(agent)
    assert view == env.unwrapped.game_state.view(env.unwrapped.seat_of(agent))
    # Every action id names a distinct move that maps back to it.
    moves = [env.action_to_move(a) for a in range(env.encoder.num_actions)]
    assert [env.encoder.move_to_action(m) for m in moves] == list(range(len(moves)))
    assert len({str(m) for m in moves}) == len(moves), "two actions read the same"
