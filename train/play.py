"""A human plays a cardzoo game against agents in the terminal (``cardzoo play``).

On each of the human's turns :func:`play` prints the table as that seat sees it (the engine's
``render_for``), the others' moves since the human last moved, in words, and a numbered list of
the legal moves; the human types a number. Input that is not a number, out of range or empty is
refused with a one-line reason and asked again (nothing in the game changes); ``q`` or the end of
the input abandons the game (nothing is saved). At the end the result is printed and, with
``record_dir``, the game is saved as a game record (:mod:`cardzoo.train.records`) in which the
human's seat is named ``"human"``.

``input_fn`` and ``print_fn`` stand in for ``input`` and ``print``, so tests can script a game.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from cardzoo.agents import Agent, Seat, make_agent
from cardzoo.envs import load
from cardzoo.train.records import GameRecorder, make_record_folder, result_of, write_record

HUMAN = "human"
QUIT_WORDS = ("q", "quit")
#: Seeds drawn when none is given stay below this, so they are short enough to type again.
MAX_DRAWN_SEED = 2**31


class PlayResult(NamedTuple):
    """What :func:`play` returns: ``result`` is None (and nothing was saved) if abandoned."""

    result: dict[str, Any] | None
    record: dict[str, Any] | None
    path: str | None


class _Abandon(Exception):
    """The human typed q or the input ended."""


def opponent_specs(specs: Sequence[str], players: int) -> list[str]:
    """One agent spec per other seat: the list as given, its last spec filling spare seats."""
    specs = [s.strip() for s in specs if s.strip()]
    if not specs:
        raise ValueError("--opponents names no agent (e.g. random, heuristic, ppo:PATH)")
    if len(specs) > players - 1:
        raise ValueError(
            f"{len(specs)} opponents given for a {players}-player game ({players - 1} other seats)"
        )
    return specs + [specs[-1]] * (players - 1 - len(specs))


def record_path(folder: str, game: str, players: int, seed: int) -> str:
    """A new file ``<game>-<players>p-play-s<seed>[-k].json`` in ``folder`` (made if needed),
    checked writable; an existing record is never overwritten."""
    make_record_folder(folder)
    stem = os.path.join(folder, f"{game}-{players}p-play-s{seed}")
    path, k = f"{stem}.json", 1
    while os.path.exists(path):
        k += 1
        path = f"{stem}-{k}.json"
    try:  # fail now, not after a whole game, if the folder refuses new files
        with open(path, "x"):
            pass
        os.unlink(path)
    except OSError as err:
        raise ValueError(f"cannot write {path}: {err.strerror or err}") from None
    return path


def _ask(
    choices: list[tuple[int, str]], input_fn: Callable[[str], str], print_fn: Callable[..., None]
) -> int:
    """The action id the human picks from ``choices``; re-asks until the answer is valid."""
    last = len(choices)
    prompt = f"your move ({'1' if last == 1 else f'1-{last}'}, q quits): "
    while True:
        try:
            text = input_fn(prompt)
        except EOFError:
            raise _Abandon from None
        text = text.strip()
        if text.lower() in QUIT_WORDS:
            raise _Abandon
        if not text:
            print_fn(f"empty input: type a number from 1 to {last}, or q to quit")
            continue
        try:
            number = int(text)
        except ValueError:
            print_fn(f"not a number: {text!r}; type a number from 1 to {last}, or q to quit")
            continue
        if not 1 <= number <= last:
            print_fn(f"out of range: {number}; type a number from 1 to {last}, or q to quit")
            continue
        return choices[number - 1][0]


def _human_turn(
    env: Any,
    seat: int,
    since: list[str],
    input_fn: Callable[[str], str],
    print_fn: Callable[..., None],
) -> int:
    """Show the human's view, the others' moves and the legal moves; the chosen action id."""
    print_fn(f"\n=== your turn (seat {seat}) ===")
    if since:
        print_fn("since your last move:")
        for line in since:
            print_fn(f"  {line}")
    print_fn(env.render_for(env.possible_agents[seat]))
    choices = [(a, str(env.action_to_move(a))) for a in env.legal_actions()]
    print_fn("legal moves:")
    for number, (_, text) in enumerate(choices, 1):
        print_fn(f"  {number}. {text}")
    return _ask(choices, input_fn, print_fn)


def result_lines(result: dict[str, Any], names: Sequence[str], seat: int) -> list[str]:
    """The result as printed: end reason, winners, rewards per seat, and the human's result (a
    shared win, e.g. a team's, is a win here, not the draw tournaments count it as)."""
    label = [f"seat {q} ({name})" for q, name in enumerate(names)]
    winners = ", ".join(label[q] for q in result["winners"]) or "nobody"
    rewards = ", ".join(f"{label[q]}: {r:+g}" for q, r in enumerate(result["rewards"]))
    others = [label[q] for q in result["winners"] if q != seat]
    if seat not in result["winners"]:
        verdict = "you lost" if others else "nobody won"
    else:
        verdict = "you won" + (f", together with {', '.join(others)}" if others else "")
    return [
        f"=== game over: {result['end_reason']} after {result['turns']} turns ===",
        f"winners: {winners}",
        f"rewards: {rewards}",
        verdict,
    ]


def _setup(
    game: str,
    players: int | None,
    opponents: Sequence[str],
    seat: int,
    seed: int | None,
    options: dict[str, Any] | None,
) -> tuple[Any, list[str], list[Agent | None], int]:
    """Check everything before the game starts: the env, seat names, agents and seed."""
    module = load(game)
    options = dict(options or {})
    if players is not None:
        options["num_players"] = players
    env = module.env(**options)
    n = env.unwrapped.config.num_players
    if isinstance(seat, bool) or not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1} for a {n}-player game, got {seat}")
    if seed is None:
        seed = secrets.randbelow(MAX_DRAWN_SEED)
    elif seed < 0:
        raise ValueError(f"--seed must be >= 0, got {seed}")
    specs = opponent_specs(opponents, n)
    names = specs[:seat] + [HUMAN] + specs[seat:]
    agents: list[Agent | None] = [
        None if q == seat else make_agent(names[q], module.GAME.name, seed=seed * 16 + q)
        for q in range(n)
    ]
    return env, names, agents, seed


def play(
    game: str,
    players: int | None = None,
    opponents: Sequence[str] = ("random",),
    seat: int = 0,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    record_dir: str | None = None,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., None] = print,
) -> PlayResult:
    """Play one game of ``game`` with the human in ``seat`` against ``opponents`` (agent specs,
    as for ``cardzoo eval --agents``). ``options`` are rule options (``variant`` included).

    Every argument is checked (ValueError) before the game starts; ``seed`` None draws one.
    """
    env, names, agents, seed = _setup(game, players, opponents, seat, seed, options)
    path = None
    if record_dir is not None:
        path = record_path(record_dir, env.unwrapped.game.name, len(names), seed)
    env.reset(seed=seed)
    raw = env.unwrapped
    rules = {k: v for k, v in (options or {}).items() if k != "num_players"}
    recorder = GameRecorder(raw, seed, names, rules)
    who = ", ".join(f"seat {q}: {'you' if q == seat else a}" for q, a in enumerate(names))
    print_fn(f"{raw.game.title}, {len(names)} players, seed {seed}; {who}")
    since: list[str] = []
    try:
        for agent_id in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            q = raw.seat_of(agent_id)
            if q == seat:
                action = _human_turn(raw, seat, since, input_fn, print_fn)
                since = []
            else:
                mover = Seat(raw.game_state, q)
                action = agents[q].act(obs["observation"], obs["action_mask"], seat=mover)
                since.append(f"seat {q} ({names[q]}): {raw.action_to_move(action)}")
            recorder.decide(action)
            env.step(action)
    except _Abandon:
        print_fn("game abandoned")
        return PlayResult(None, None, None)
    print_fn("\n=== the final table ===")
    if since:
        print_fn("since your last move:\n" + "\n".join(f"  {line}" for line in since))
    print_fn(raw.render_for(raw.possible_agents[seat]))
    result = result_of(raw)
    print_fn("\n".join(result_lines(result, names, seat)))
    record = recorder.finish()
    if path is not None:
        write_record(record, path)
        print_fn(f"game record written to {path}")
    return PlayResult(result, record, path)
