"""The timed loops of ``cardzoo bench``: one measurement each, time-boxed, wall and CPU clocks.

Every loop plays uniformly random legal moves with the same picker (``legal[int(u * n)]``, ``u``
from Python's ``random``, far cheaper than a numpy draw), so the loops differ only in what they
drive: a PettingZoo AEC env (ours and the peers alike), the rules engine alone, or the encoder
alone. A loop runs whole episodes until ``seconds`` have passed and returns a :class:`Sample`.
"""

from __future__ import annotations

import gc
import random
import sys
import time
import types
from collections.abc import Callable, Container
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Object kinds a memory walk never counts nor enters: shared by every env of the process.
_SHARED_KINDS = (
    types.ModuleType,
    type,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.CodeType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
)


@dataclass
class Sample:
    """What one timed measurement did, and how long it took."""

    steps: int  # env steps (for the engine: moves; for the encoder: calls)
    decisions: int  # steps with a real action (not the None steps that retire finished agents)
    episodes: int
    wall: float  # seconds (time.perf_counter)
    cpu: float  # CPU seconds of this process (time.process_time)


def aec_loop(env: Any, seconds: float, seed: int = 0) -> Sample:
    """The standard PettingZoo AEC loop under random legal play, for ``seconds``.

    ``env.last()``, pick an unmasked action, ``env.step()``; a finished agent steps ``None``.
    Only the first episode is seeded: some peers rebuild their game when reseeded.
    """
    pick = random.Random(seed).random
    steps = decisions = episodes = 0
    env.reset(seed=seed)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[int(pick() * legal.size)]))
                decisions += 1
            steps += 1
        episodes += 1
        if time.perf_counter() >= deadline:
            break
        env.reset()
    return Sample(
        steps, decisions, episodes, time.perf_counter() - wall0, time.process_time() - cpu0
    )


def engine_loop(state_cls: type, config: Any, seconds: float, seed: int = 0) -> Sample:
    """The rules engine alone: deal, then ``legal_move_ids`` + ``apply_id`` until the end.

    No observations, masks or env bookkeeping; the deal is timed, as ``reset()`` is in the AEC
    loop. A game cut by its truncation cap ends there, as in the env.
    """
    pick = random.Random(seed).random
    decisions = episodes = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        state = state_cls(config, seed=seed + episodes)
        legal_ids, apply_id = state.legal_move_ids, state.apply_id
        while not state.terminal and not state.truncated:
            legal = legal_ids()
            apply_id(legal[int(pick() * len(legal))])
            decisions += 1
        episodes += 1
        if time.perf_counter() >= deadline:
            break
    return Sample(
        decisions, decisions, episodes, time.perf_counter() - wall0, time.process_time() - cpu0
    )


def sample_states(state_cls: type, config: Any, count: int = 512, seed: int = 0) -> list[Any]:
    """``count`` consecutive decision states of random games (clones), in play order.

    The encoder is timed on them in that order, as the env would meet them (an encoder may
    reuse work between consecutive states of one game).
    """
    pick = random.Random(seed).random
    states: list[Any] = []
    game = 0
    while len(states) < count:
        state = state_cls(config, seed=seed + game)
        game += 1
        while not state.terminal and not state.truncated and len(states) < count:
            states.append(state.clone())
            legal = state.legal_move_ids()
            state.apply_id(legal[int(pick() * len(legal))])
    return states


#: The positions ``cardzoo bench`` times ``determinize`` at: the state after this share of the
#: decisions of each seeded random game (its own length; a game cut by its truncation cap counts
#: up to the cut). tests/conformance/test_determinize.py uses the same shares.
POSITIONS = {"early": 0.1, "middle": 0.5, "late": 0.9}
#: The fourth figure of the ``determinize`` row: one call at every decision of the same games
#: (:func:`along_loop`).
ALONG = "along"


def game_moves(state_cls: type, config: Any, games: int, seed: int = 0) -> list[list[int]]:
    """The move ids of ``games`` seeded random games (seeds ``seed``, ``seed + 1``, ...), each
    played to its end or its truncation cap."""
    played = []
    for game in range(games):
        pick = random.Random(seed + game).random
        state = state_cls(config, seed=seed + game)
        moves = []
        while not state.terminal and not state.truncated:
            legal = state.legal_move_ids()
            move = legal[int(pick() * len(legal))]
            state.apply_id(move)
            moves.append(move)
        played.append(moves)
    return played


def game_positions(state_cls: type, config: Any, games: int, seed: int = 0) -> dict[str, list[Any]]:
    """The early, middle and late states (:data:`POSITIONS`) of ``games`` seeded random games
    (seeds ``seed``, ``seed + 1``, ...), as clones, by position name."""
    found: dict[str, list[Any]] = {name: [] for name in POSITIONS}
    for game, moves in enumerate(game_moves(state_cls, config, games, seed)):
        wanted = {int(share * len(moves)): name for name, share in POSITIONS.items()}
        # Replayed rather than cloned at every move: a long game (Odin's Ravens) has thousands.
        state = state_cls(config, seed=seed + game)
        for i, move in enumerate(moves):
            if i in wanted:
                found[wanted[i]].append(state.clone())
            state.apply_id(move)
    return found


def random_position(state_cls: type, config: Any, seed: int, decisions: int) -> Any:
    """The state of the game with ``seed`` after ``decisions`` random decisions, each move drawn
    uniformly by ``numpy.random.default_rng(seed)`` (the tests' fixed positions)."""
    state = state_cls(config, seed=seed)
    pick = np.random.default_rng(seed)
    for _ in range(decisions):
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    return state


def game_position(state_cls: type, config: Any, seed: int, at: int | float) -> Any:
    """The state of :func:`game_moves`'s seeded random game ``seed`` after its first ``at``
    decisions (an int) or that share of them (a float, as :func:`game_positions` takes the
    bench's positions): the bench's games, met again by the tests."""
    (moves,) = game_moves(state_cls, config, 1, seed)
    state = state_cls(config, seed=seed)
    for move in moves[: at if isinstance(at, int) else int(at * len(moves))]:
        state.apply_id(move)
    return state


def along_loop(
    call: Callable[[Any], Any],
    state_cls: type,
    config: Any,
    seconds: float,
    seed: int = 0,
    min_games: int = 1,
) -> Sample:
    """``call(state)`` once at every decision of seeded random games (seeds ``seed``,
    ``seed + 1``, ...), each played whole, at least ``min_games`` of them and on until about
    ``seconds`` have passed: what an agent pays in a real game, where every call meets a new
    position and whatever the state keeps between calls is carried along as moves are applied.
    The caller passes a new ``seed`` on each run (``Sample.episodes`` says how many games this
    one used): a ``determinize`` that keeps what it built for a position would otherwise meet
    positions it has already seen, which flatters it. Only the calls are timed (making the
    games pushes the deadline back by what it took)."""
    calls = games = 0
    wall = cpu = 0.0
    deadline = time.perf_counter() + seconds
    clock, cpu_clock = time.perf_counter, time.process_time
    while games < min_games or clock() < deadline:
        made = clock()
        (moves,) = game_moves(state_cls, config, 1, seed + games)
        deadline += clock() - made
        state = state_cls(config, seed=seed + games)
        for move in moves:
            w0, c0 = clock(), cpu_clock()
            call(state)
            wall += clock() - w0
            cpu += cpu_clock() - c0
            state.apply_id(move)
        calls += len(moves)
        games += 1
    return Sample(calls, calls, games, wall, cpu)


def encoder_loop(call: Callable[[Any], Any], states: list[Any], seconds: float) -> Sample:
    """``call(state)`` over ``states`` in order, again and again, for ``seconds``."""
    calls = passes = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        for state in states:
            call(state)
        calls += len(states)
        passes += 1
        if time.perf_counter() >= deadline:
            break
    return Sample(calls, calls, passes, time.perf_counter() - wall0, time.process_time() - cpu0)


def repeat_loop(call: Callable[[], Any], seconds: float) -> Sample:
    """``call()`` again and again for ``seconds`` (construction, ``reset()``)."""
    calls = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        call()
        calls += 1
        if time.perf_counter() >= deadline:
            break
    return Sample(calls, calls, calls, time.perf_counter() - wall0, time.process_time() - cpu0)


def play_games(env: Any, games: int, max_decisions: int, seed: int = 0) -> tuple[int, int]:
    """Random legal play of up to ``games`` episodes, stopping early after ``max_decisions``.

    Returns (episodes played, decisions made).
    """
    pick = random.Random(seed).random
    decisions = played = 0
    while played < games and decisions < max_decisions:
        env.reset(seed=seed + played)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
            else:
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[int(pick() * legal.size)]))
                decisions += 1
        played += 1
    return played, decisions


def _reachable(
    root: Any, skip: Container[int] = (), seen: dict[int, Any] | None = None
) -> dict[int, Any]:
    """Every object reachable from ``root`` through ``gc.get_referents``, by id, added to
    ``seen`` (a new dict if None; objects already in it are not entered again).

    Modules, classes, functions and descriptors are neither counted nor entered: they are shared
    by the whole process. Objects whose id is in ``skip`` are neither counted nor entered.
    """
    seen = {} if seen is None else seen
    todo = [root]
    while todo:
        obj = todo.pop()
        key = id(obj)
        if key in seen or key in skip or isinstance(obj, _SHARED_KINDS):
            continue
        seen[key] = obj
        todo.extend(gc.get_referents(obj))
    return seen


def _module_data() -> list[Any]:
    """Roots of the module-level data of cardzoo: each module's globals and each class's dict."""
    roots: list[Any] = []
    for name, module in list(sys.modules.items()):
        if name != "cardzoo" and not name.startswith("cardzoo."):
            continue
        namespace = vars(module)
        roots.append(namespace)
        for value in list(namespace.values()):
            if isinstance(value, type) and value.__module__.startswith("cardzoo"):
                roots.append(dict(vars(value)))
    return roots


def private_bytes(env: Any, fresh: Any) -> int:
    """Bytes held by ``env`` alone: ``sys.getsizeof`` summed over the objects reachable from it
    and neither from ``fresh`` (another env of the same game, past its first game) nor from
    cardzoo's module-level data (move tables, class attributes, caches shared by every env).

    Used instead of ``tracemalloc`` over the whole run, which slows play 4 to 10 times: the
    graph is walked once, after untraced play. ``tests/train/test_bench.py`` checks it against
    ``tracemalloc`` on a short run.
    """
    gc.collect()
    # One walk grows one dict: copying the shared set per module root made this quadratic in
    # cardzoo's module-level caches (minutes in a test process whose caches had filled).
    shared = _reachable(fresh)
    for root in _module_data():
        _reachable(root, seen=shared)
    mine = _reachable(env, shared)
    return sum(sys.getsizeof(obj) for obj in mine.values())
