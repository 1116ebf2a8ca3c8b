"""The seat handle agents receive: only what the seat may know, no path to the true state.

Every game with a heuristic is checked: the handle's public surface reaches none of the engine
state's own objects, the handle cannot be changed, copied or pickled, and the heuristic plays the
same sequence of moves in a game and in its hidden twins (same view, other hidden cards).
"""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import numpy as np
import pytest
from cardzoo.agents import HEURISTICS, RandomAgent, Seat, make_agent
from cardzoo.envs import load

GAMES = sorted(HEURISTICS)


def _new_state(game: str, players: int | None = None, seed: int = 0, **options):
    spec = load(game).GAME
    n = players or spec.player_counts[0]
    return spec.state_cls(spec.make_config(num_players=n, **options), seed=seed)


def _midgame(game: str, seed: int, moves: int, **options):
    """A state after ``moves`` random moves (fewer if the game ends first)."""
    state = _new_state(game, seed=seed, **options)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.terminal or state.truncated:
            break
        state.apply(rng.choice(state.legal_move_ids()))
    return state


def _engine_objects(state) -> dict[int, str]:
    """Every mutable object the engine state holds directly (its slots and one level of list
    nesting: hands, piles, ...), by id, plus the state itself."""
    found = {id(state): "the state"}
    for cls in type(state).__mro__:
        for name in getattr(cls, "__slots__", ()):
            value = getattr(state, name, None)
            if isinstance(value, (list, dict, set, np.ndarray, np.random.Generator)):
                found[id(value)] = name
                if isinstance(value, list):
                    for i, item in enumerate(value):
                        if isinstance(item, (list, dict, set, np.ndarray)):
                            found[id(item)] = f"{name}[{i}]"
    return found


def _reachable(root, depth: int = 4):
    """Objects reachable from ``root`` through public (non-underscore) attributes, dataclass
    fields, and items of tuples/lists/dicts, to ``depth`` steps."""
    seen: dict[int, object] = {}
    frontier = [root]
    for _ in range(depth):
        nxt = []
        for obj in frontier:
            if id(obj) in seen or isinstance(obj, (int, float, str, bool, type(None))):
                continue
            seen[id(obj)] = obj
            if isinstance(obj, (tuple, list, set, frozenset)):
                nxt.extend(obj)
                continue
            if isinstance(obj, dict):
                nxt.extend(obj.values())
                continue
            for name in dir(obj):
                if name.startswith("_"):
                    continue
                try:
                    value = getattr(obj, name)
                except Exception:
                    continue
                if callable(value) and not isinstance(value, (tuple, list)):
                    continue  # methods are checked through what they return
                nxt.append(value)
        frontier = nxt
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_no_attribute_path_from_the_handle_to_the_engine_state(game):
    state = _midgame(game, seed=3, moves=12)
    seat = Seat(state, state.current_player)
    engine = _engine_objects(state)
    assert not hasattr(seat, "__dict__")
    for name in ("state", "_state", "_game", "game_state", "game"):
        assert not hasattr(seat, name), name
    roots = [seat, seat.view(), seat.legal_move_ids(), seat.legal_moves(), seat.config]
    for root in roots:
        leaked = {engine[i] for i in _reachable(root) if i in engine}
        assert not leaked, f"{game}: the handle reaches the engine's {sorted(leaked)}"
    sample = seat.determinize(np.random.default_rng(0))
    assert sample is not state
    for name in ("hands", "rng"):  # the sample's hidden parts are its own
        assert id(getattr(sample, name)) not in engine, name


@pytest.mark.parametrize("game", GAMES)
def test_the_handle_is_read_only_and_cannot_be_copied(game):
    state = _new_state(game)
    seat = Seat(state, 0)
    with pytest.raises(AttributeError, match="read-only"):
        seat.player = 1  # switching seats would show another hand
    with pytest.raises(AttributeError, match="read-only"):
        seat.anything = state
    with pytest.raises(TypeError):
        vars(seat)
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        pickle.dumps(seat)
    with pytest.raises(TypeError, match="cannot be pickled or copied"):
        copy.copy(seat)
    assert seat.player == 0


@pytest.mark.parametrize("game", GAMES)
def test_the_handle_answers_for_its_seat_only(game):
    state = _midgame(game, seed=5, moves=7)
    mover = state.current_player
    seat = Seat(state, mover)
    assert seat.legal_move_ids() == state.legal_move_ids()
    assert [str(m) for m in seat.legal_moves()] == [
        seat.move_text(i) for i in state.legal_move_ids()
    ]
    assert seat.is_legal(state.legal_move_ids()[0])
    assert seat.view() == state.view(mover)
    assert seat.render() == state.render_for(mover)
    assert (seat.num_players, seat.current_player, seat.phase) == (
        state.num_players,
        mover,
        state.phase,
    )
    assert seat.config is state.config
    # Another seat sees none of the mover's options (they depend on the mover's hand).
    other = Seat(state, (mover + 1) % state.num_players)
    assert other.legal_move_ids() == [] and other.legal_moves() == []
    assert not other.is_legal(state.legal_move_ids()[0])
    # The handle follows the live game.
    state.apply(state.legal_move_ids()[0])
    assert seat.current_player == state.current_player
    for bad in (-1, state.num_players, 1.0, True, "0"):
        with pytest.raises(ValueError, match="player must be a seat"):
            Seat(state, bad)
    with pytest.raises(ValueError, match="out of range"):
        seat.move_text(len(state.MOVES))
    with pytest.raises(TypeError, match="expected a game State"):
        Seat(state.view(0), 0)  # a view is not a game


def _twin_sequences(game: str, seed: int, options: dict) -> tuple[list[int], list[int], int]:
    """Moves of one persistent heuristic for seat ``p`` at each of its decisions of a game,
    asked on the real game and on a hidden twin of each position (same view for ``p``): the
    two sequences, and the decision count."""
    state = _new_state(game, seed=seed, **options)
    spec = load(game).GAME
    name = spec.name
    real = make_agent("heuristic", name, seed=seed)
    twin = make_agent("heuristic", name, seed=seed)
    sampler = np.random.default_rng(seed + 100)
    others = random.Random(seed)
    p = 0
    real_moves: list[int] = []
    twin_moves: list[int] = []
    while not state.terminal and not state.truncated:
        q = state.current_player
        if q == p:
            other = state.determinize(p, sampler)
            assert other.view(p) == state.view(p)
            twin_moves.append(twin.act(None, None, seat=Seat(other, p)))
            move = real.act(None, None, seat=Seat(state, p))
            real_moves.append(move)
        else:
            move = others.choice(state.legal_move_ids())
        state.apply(move)
    return real_moves, twin_moves, len(real_moves)


@pytest.mark.parametrize("game", GAMES)
def test_hidden_twins_get_the_same_sequence_of_moves(game):
    decisions = 0
    for seed in range(3):
        real, twin, n = _twin_sequences(game, seed, {})
        assert real == twin, f"{game} seed {seed}: the heuristic saw hidden cards"
        decisions += n
    assert decisions > 30


def test_the_twin_check_can_fail():
    """A heuristic that reads a hidden field of the state would be caught by the check above."""

    class Peeker:
        name = "peeker"

        def act(self, observation, action_mask, *, seat):
            state = _peek(seat)
            legal = seat.legal_move_ids()
            return legal[hash(tuple(state.hands[1 - seat.player])) % len(legal)]

    def _peek(seat):
        import gc

        return next(o for o in gc.get_referents(seat) if hasattr(o, "hands"))

    state = _midgame("beasty_bar", seed=1, moves=4)
    p = state.current_player
    twins = [state.determinize(p, np.random.default_rng(i)) for i in range(8)]
    moves = {Peeker().act(None, None, seat=Seat(t, p)) for t in [state, *twins]}
    assert len(moves) > 1  # only the garbage collector's back door reaches the state


@pytest.mark.parametrize("game", GAMES)
def test_old_keywords_still_work_with_a_deprecation_warning(game):
    state = _midgame(game, seed=2, moves=5)
    p = state.current_player
    new = make_agent("heuristic", load(game).GAME.name, seed=7)
    old = make_agent("heuristic", load(game).GAME.name, seed=7)
    expected = new.act(None, None, seat=Seat(state, p))
    with pytest.warns(DeprecationWarning, match=r"pass seat=Seat\(state, player\)") as caught:
        assert old.act(None, None, state=state, player=p) == expected
    assert caught[0].filename == __file__  # the warning points at the caller of act
    with pytest.raises(ValueError, match="not together"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old.act(None, None, seat=Seat(state, p), state=state, player=p)
    with pytest.raises(ValueError, match="needs seat="):
        new.act(None, None)
    with pytest.raises(ValueError, match="is not to move"):
        new.act(None, None, seat=Seat(state, (p + 1) % state.num_players))


def test_random_agent_accepts_the_handle_and_warns_on_old_keywords():
    state = _new_state("beasty_bar")
    mask = np.zeros(len(state.MOVES), dtype=np.int8)
    mask[state.legal_move_ids()] = 1
    a, b = RandomAgent(0), RandomAgent(0)
    move = a.act(None, mask, seat=Seat(state, 0))
    with pytest.warns(DeprecationWarning):
        assert b.act(None, mask, state=state, player=0) == move
