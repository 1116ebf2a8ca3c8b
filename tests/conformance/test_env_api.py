"""The env's API edges, on every env: global state, numpy inputs, options, lifecycle errors,
infos, observation dtype, variants, rendering, truncation, and an engine moved behind its back."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from cardzoo.envs import IllegalActionError, games
from conformance_cases import CASES

GAMES = [pytest.param(m, id=m.GAME.env_name) for m in games()]


def _play(env, rng, steps):
    """Up to ``steps`` random legal steps (stops at the end of the game)."""
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            return
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))


def _play_to_end(env, rng):
    """Random legal play until every agent is done; returns the last info of each agent."""
    last_info = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        last_info[agent] = info
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
    return last_info


# -- global state -------------------------------------------------------------------------------


@pytest.mark.parametrize("module,config", CASES)
def test_state_is_a_full_information_vector_in_its_space(module, config):
    env = module.env(**config)
    with pytest.raises(RuntimeError, match="before reset"):
        env.state()
    rng = np.random.default_rng(1)
    differs_from_observation = 0
    hidden_shows = 0
    for game in range(8):
        env.reset(seed=300 + game)
        _play(env, rng, int(rng.integers(0, 30)))
        state = env.state()
        assert state.shape == env.state_space.shape and env.state_space.contains(state)
        assert np.array_equal(state, env.state()), "state() must not change the game"
        seat = env.unwrapped.game_state.current_player
        if seat >= 0:
            obs = env.observe(env.possible_agents[seat])["observation"]
            differs_from_observation += obs.shape != state.shape or not np.array_equal(obs, state)
        # Resampling what seat 0 cannot see must show in the full-information vector.
        game_state = env.unwrapped.game_state
        encoder = env.unwrapped.encoder
        for _ in range(3):
            other = game_state.determinize(0, rng)
            if other.census() != game_state.census() or other.render() != game_state.render():
                hidden_shows += not np.array_equal(encoder.encode_state(other), state)
    assert differs_from_observation > 0
    assert hidden_shows > 0, "state() does not show hidden cards"
    pieces = env.unwrapped.encoder.split_state(env.state())
    assert sum(p.size for p in pieces.values()) == env.state_space.shape[0]
    assert "global state" in env.unwrapped.encoder.describe_state()


# -- numpy scalars, options, seeds ----------------------------------------------------------------


@pytest.mark.parametrize("module", GAMES)
def test_numpy_scalars_work_wherever_python_ones_do(module):
    game = module.GAME
    defaults = game.make_config()
    as_numpy = {}
    for f in dataclasses.fields(defaults):
        value = getattr(defaults, f.name)
        if isinstance(value, bool):
            as_numpy[f.name] = np.bool_(value)
        elif isinstance(value, int):
            as_numpy[f.name] = np.int64(value)
    n = max(game.player_counts)
    as_numpy["num_players"] = np.int64(n)
    env = module.env(**as_numpy)
    assert env.unwrapped.config == game.make_config(num_players=n)
    assert all(type(getattr(env.unwrapped.config, k)) in (bool, int) for k in as_numpy)
    env.reset(seed=np.int64(5))
    first = env.observe(env.agent_selection)["observation"]
    env.reset(seed=5)
    assert np.array_equal(first, env.observe(env.agent_selection)["observation"])
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.int32(legal[0]))
    assert env.unwrapped.action_to_move(np.int64(legal[0])) == env.unwrapped.action_to_move(
        int(legal[0])
    )
    for option, values in game.option_values.items():
        for value in values:
            if isinstance(value, (bool, int)):
                numpy_value = np.bool_(value) if isinstance(value, bool) else np.int64(value)
                cfg = module.env(**{option: numpy_value}).unwrapped.config
                assert getattr(cfg, option) == value


@pytest.mark.parametrize("module", GAMES)
def test_bad_seeds_and_reset_options_are_refused(module):
    env = module.env()
    for seed in (True, -1, "1", 1.5):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=seed)
    with pytest.warns(UserWarning, match="ignores the options \\['num_players'\\]"):
        env.reset(options={"num_players": 3})
    assert env.unwrapped.config.num_players == min(module.GAME.player_counts)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1, options={})  # an empty dict is no option


@pytest.mark.parametrize("module", GAMES)
def test_option_errors_name_rule_and_env_options(module):
    with pytest.raises(ValueError) as info:
        module.env(no_such_option=1)
    text = str(info.value)
    for name in ("num_players", "max_turns", "encoder", "reward", "illegal_action", "render_mode"):
        assert name in text
    with pytest.raises(ValueError, match="an int >= 1"):
        module.env(max_turns=0)
    with pytest.raises(ValueError, match="variant"):
        module.env(variant="no_such_variant")
    with pytest.raises(ValueError, match="obs_dtype"):
        module.env(obs_dtype="float64")


@pytest.mark.parametrize("module", GAMES)
def test_named_variants_are_usable(module):
    game = module.GAME
    for name, overrides in game.variants.items():
        config = module.env(variant=name).unwrapped.config
        for key, value in overrides.items():
            assert getattr(config, key) == value
        # Explicit options override the variant's.
        n = max(game.player_counts)
        assert module.env(variant=name, num_players=n).unwrapped.config.num_players == n
        assert name in module.env().metadata["variants"]


# -- lifecycle errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("module", GAMES)
def test_last_before_reset_and_after_the_end_gives_clear_errors(module):
    env = module.env()
    with pytest.raises(RuntimeError, match="before reset"):
        env.last()
    env.reset(seed=3)
    _play_to_end(env, np.random.default_rng(0))
    assert not env.agents
    with pytest.raises(RuntimeError, match="episode ended.*reset"):
        env.last()
    with pytest.raises(ValueError, match="unknown agent"):
        env.observe("player_99")


@pytest.mark.parametrize("module", GAMES)
def test_action_to_move_checks_its_range(module):
    env = module.env()
    n = env.unwrapped.encoder.num_actions
    for bad in (-1, n):
        with pytest.raises(IllegalActionError, match="out of range"):
            env.unwrapped.action_to_move(bad)
    with pytest.raises(IllegalActionError, match="must be an int"):
        env.unwrapped.action_to_move("0")
    assert str(env.unwrapped.action_to_move(n - 1))


@pytest.mark.parametrize("module", GAMES)
def test_engine_moved_outside_the_env_is_noticed(module):
    env = module.env()
    env.reset(seed=4)
    state = env.unwrapped.game_state
    clone = state.clone()
    clone.apply(clone.legal_move_ids()[0])  # searching on a clone is fine
    env.last()
    state.apply(state.legal_move_ids()[0])  # moving the env's own engine is not
    with pytest.raises(RuntimeError, match="outside the env.*clone"):
        env.step(0)
    with pytest.raises(RuntimeError, match="outside the env"):
        env.last()
    env.reset(seed=4)  # a new game clears it
    env.last()


# -- infos, dtype, rendering ----------------------------------------------------------------------


@pytest.mark.parametrize("module,config", CASES)
def test_infos_have_the_same_numeric_keys_at_every_step(module, config):
    env = module.env(**config)
    n = env.unwrapped.config.num_players
    reasons = env.unwrapped.end_reasons
    assert "truncated" in reasons and "illegal_action" in reasons
    rng = np.random.default_rng(8)
    for game in range(5):
        env.reset(seed=game)
        winners_seen = None
        for _agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            assert set(info) == {"winners", "end_reason"}
            assert info["winners"].shape == (n,) and info["winners"].dtype == np.int8
            if term or trunc:
                assert 0 <= info["end_reason"] < len(reasons)
                state = env.unwrapped.game_state
                if term:
                    assert reasons[info["end_reason"]] == state.end_reason
                    assert np.flatnonzero(info["winners"]).tolist() == list(state.winners())
                winners_seen = info["winners"]
                env.step(None)
            else:
                assert info["end_reason"] == -1 and not info["winners"].any()
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
        assert winners_seen is not None


@pytest.mark.parametrize("module", GAMES)
def test_truncation_and_illegal_termination_have_end_reasons(module):
    env = module.env(max_turns=1)
    env.reset(seed=0)
    info = _play_to_end(env, np.random.default_rng(0))
    assert {env.unwrapped.end_reasons[i["end_reason"]] for i in info.values()} == {"truncated"}
    env = module.env(illegal_action="terminate")
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    _, _, term, _, info = env.last()
    assert term and env.unwrapped.end_reasons[info["end_reason"]] == "illegal_action"


@pytest.mark.parametrize("module", GAMES)
def test_max_turns_truncates_exactly_after_that_many_turns(module):
    rng = np.random.default_rng(12)
    for max_turns in (1, 2, 5):
        env = module.env(max_turns=max_turns)
        for game in range(5):
            env.reset(seed=game)
            while True:
                obs, _, term, trunc, _ = env.last()
                state = env.unwrapped.game_state
                if term or trunc:
                    break
                assert state.turn < max_turns, "a turn was played after the cap"
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(legal.size)]))
            if trunc:
                assert state.turn == max_turns and not state.terminal
            else:
                assert state.terminal and state.turn <= max_turns


@pytest.mark.parametrize("module,config", CASES)
def test_float32_observations_hold_the_same_values(module, config):
    small = module.env(**config)
    big = module.env(obs_dtype="float32", **config)
    space = big.observation_space(big.possible_agents[0])["observation"]
    assert space.dtype == np.float32 and big.state_space.dtype == np.float32
    rng = np.random.default_rng(2)
    small.reset(seed=9)
    big.reset(seed=9)
    for _ in range(30):
        a, b = small.last()[0], big.last()[0]
        if small.terminations[small.agent_selection] or small.truncations[small.agent_selection]:
            break
        assert b["observation"].dtype == np.float32 and space.contains(b["observation"])
        assert np.array_equal(a["observation"].astype(np.float32), b["observation"])
        assert np.array_equal(small.state().astype(np.float32), big.state())
        legal = np.flatnonzero(a["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        small.step(action)
        big.step(action)


@pytest.mark.parametrize("module", GAMES)
def test_human_render_prints_after_every_step(module, capsys):
    env = module.env(render_mode="human")
    env.reset(seed=1)
    assert capsys.readouterr().out.strip()
    for _ in range(3):
        obs = env.last()[0]
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert env.unwrapped.game_state.render() in capsys.readouterr().out


@pytest.mark.parametrize("module,config", CASES)
def test_render_for_shows_a_seat_only_its_own_view(module, config):
    env = module.env(**config)
    with pytest.raises(RuntimeError, match="before reset"):
        env.unwrapped.render_for("player_0")
    env.reset(seed=6)
    _play(env, np.random.default_rng(6), 7)
    texts = [env.unwrapped.render_for(a) for a in env.possible_agents]
    assert all(texts) and len(set(texts)) == len(texts), "each seat sees its own view"
    assert all(t != env.unwrapped.game_state.render() for t in texts)
    with pytest.raises(ValueError, match="unknown agent"):
        env.unwrapped.render_for("nobody")


@pytest.mark.parametrize("module", GAMES)
def test_score_rewards_never_pay_a_winner_less_than_a_loser(module):
    game = module.GAME
    rng = np.random.default_rng(21)
    for n in game.player_counts:
        env = module.env(num_players=n, reward="score")
        for seed in range(30):
            env.reset(seed=seed)
            _play(env, rng, 10_000)
            state = env.unwrapped.game_state
            if not state.terminal:
                continue
            winners = set(state.winners())
            rewards = env.rewards
            won = [rewards[a] for i, a in enumerate(env.possible_agents) if i in winners]
            lost = [rewards[a] for i, a in enumerate(env.possible_agents) if i not in winners]
            if won and lost:
                assert min(won) > max(lost), (seed, state.winners(), rewards)
            if len(won) > 1:
                assert max(won) == min(won), "tied winners are paid the same"


@pytest.mark.parametrize("module", GAMES)
def test_help_shows_the_doc_page_once(module):
    import pydoc

    first_line = module.__doc__.strip().splitlines()[0]
    text = pydoc.render_doc(module, renderer=pydoc.plaintext)
    assert text.count(first_line) == 1
    render_doc = module.raw_env.render.__doc__ or ""
    assert all(f'"{mode}"' in render_doc for mode in module.raw_env.metadata["render_modes"])


@pytest.mark.parametrize("module", GAMES)
def test_split_reads_the_observation_dict_or_its_vector(module):
    env = module.env()
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    encoder = env.unwrapped.encoder
    by_dict, by_vector = encoder.split(obs), encoder.split(obs["observation"])
    assert by_dict.keys() == by_vector.keys() == encoder.pieces.keys()
    assert all(np.array_equal(by_dict[k], by_vector[k]) for k in by_dict)
    with pytest.raises(ValueError, match="observation"):
        encoder.split({"action_mask": obs["action_mask"]})
    with pytest.raises(ValueError, match="shape"):
        encoder.split(obs["observation"][:-1])
    # describe(): a header with the size and dtype, then one line per piece, in vector order,
    # giving its offsets, name and meaning (for the observation and the global state alike).
    for text, layout, size in (
        (encoder.describe(), encoder.pieces, encoder.size),
        (encoder.describe_state(), encoder.state_layout.pieces, encoder.state_size),
    ):
        header, *lines = text.splitlines()
        assert header.endswith(f": {size} {np.dtype(encoder.dtype).name} values")
        assert len(lines) == len(layout)
        for line, piece in zip(lines, layout.values()):
            assert line.lstrip().startswith(f"[{piece.start:4d}:{piece.start + piece.size:4d}]")
            assert f" {piece.name} " in line and line.endswith(piece.meaning)
