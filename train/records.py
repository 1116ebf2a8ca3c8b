"""Game records: one small JSON file per game, replayed bit-exactly through the rules engine.

``cardzoo eval ... --record DIR`` writes one record per game; ``cardzoo replay FILE [--seat K]``
shows it step by step; :func:`replay_record` deals the game again from its seed, applies every
recorded action and checks that each move and the final result come out as recorded. A record
that does not replay (made by another env version, or edited) raises :class:`RecordError`, a
``ValueError`` whose message names the step or the field that is wrong.

JSON schema (format version 1); every key is present::

    {
      "format": "cardzoo-record",     # what the file is
      "format_version": 1,            # version of this layout
      "cardzoo": "0.2.0",             # package that wrote it (for reference, not checked)
      "game": "cubirds",              # plain game name
      "env": "cubirds_v0",            # env version: a replay needs the same one
      "encoder": "default",           # encoder whose action ids the decisions use
      "encoder_version": "2",         # for reference; the move texts catch a changed id
      "reward": "win_loss",           # the env's reward scheme (what "rewards" holds)
      "variant": null,                # named variant or null
      "options": {},                  # rule options given on top of the variant
      "config": {...},                # every resolved rule option, checked on replay
      "players": 2,                   # seats
      "seed": 17,                     # env.reset(seed=...) deals exactly this game
      "tournament": {"seed": 0, "game": 17},   # where it came from (null if made elsewhere)
      "agents": ["heuristic", "random"],       # agent spec per seat
      "result": {
        "end_reason": "...",          # one of the engine's END_REASONS, or "truncated"
        "winners": [0],               # winning seats
        "rewards": [1.0, -1.0],       # final reward per seat
        "results": ["win", "loss"],   # "win" / "draw" / "loss" per seat, of the seat's side
        "turns": 31                   # completed turns
      },
      "decisions": [                  # every decision in order; step k is decisions[k - 1]
        {"seat": 1, "action": 12, "move": "lay 2 Owl on the left of row 3"},
        ...
      ]
    }

``move`` is ``str(env.action_to_move(action))``: the move in the words of the rulebook.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from cardzoo.envs import __version__, load
from cardzoo.envs.base import ENV_OPTIONS, CardGameEnv, IllegalActionError

FORMAT = "cardzoo-record"
FORMAT_VERSION = 1

#: Top-level keys of a record and the JSON types each may hold.
FIELDS: dict[str, tuple[type, ...]] = {
    "format": (str,),
    "format_version": (int,),
    "cardzoo": (str,),
    "game": (str,),
    "env": (str,),
    "encoder": (str,),
    "encoder_version": (str,),
    "reward": (str,),
    "variant": (str, type(None)),
    "options": (dict,),
    "config": (dict,),
    "players": (int,),
    "seed": (int,),
    "tournament": (dict, type(None)),
    "agents": (list,),
    "result": (dict,),
    "decisions": (list,),
}
RESULT_FIELDS = ("end_reason", "winners", "rewards", "results", "turns")
DECISION_FIELDS: dict[str, type] = {"seat": int, "action": int, "move": str}


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message names the step or field."""


class Step(NamedTuple):
    """One shown step of a replay: ``index`` 0 is the deal, ``k`` the record's k-th decision."""

    index: int
    seat: int | None
    agent: str | None
    move: str | None
    table: str


# -- writing ------------------------------------------------------------------------------------


class GameRecorder:
    """Builds the record of one game played through ``env`` (call it right after ``reset``).

    Call :meth:`decide` with each action just before ``env.step(action)``, and :meth:`finish`
    once the game is over.
    """

    def __init__(
        self,
        env: CardGameEnv,
        seed: int,
        agents: Sequence[str],
        options: dict[str, Any] | None = None,
        tournament: dict[str, int] | None = None,
    ) -> None:
        env = env.unwrapped
        if env.game_state is None or env.game_state.move_count != 0:
            raise ValueError("start a record right after env.reset(seed=...)")
        game = env.game
        config = dataclasses.asdict(env.config)
        players = config["num_players"]
        if len(agents) != players:
            raise ValueError(f"{len(agents)} agent names given for {players} seats")
        self.env = env
        self.record: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "cardzoo": __version__,
            "game": game.name,
            "env": game.env_name,
            "encoder": env.metadata["encoder"],
            "encoder_version": env.encoder.version,
            "reward": env.reward_mode,
            "variant": env.variant,
            # env options other than the variant change nothing a replay needs
            "options": {k: v for k, v in (options or {}).items() if k not in ENV_OPTIONS},
            "config": json.loads(json.dumps(config)),
            "players": players,
            "seed": seed,
            "tournament": tournament,
            "agents": list(agents),
            "result": None,
            "decisions": [],
        }

    def decide(self, action: int) -> None:
        """Note ``action`` of the seat to move (before it is stepped)."""
        seat = self.env.game_state.current_player
        move = str(self.env.action_to_move(action))
        self.record["decisions"].append({"seat": seat, "action": int(action), "move": move})

    def finish(self) -> dict[str, Any]:
        """The finished record (the game must be over)."""
        self.record["result"] = result_of(self.env)
        return self.record


def result_of(env: CardGameEnv) -> dict[str, Any]:
    """The ``result`` part of a record for the finished game of ``env``."""
    env = env.unwrapped
    outcome = env.outcome()
    if outcome is None:
        raise ValueError("the game is not over: it has no result yet")
    return {
        "end_reason": outcome.end_reason,
        "winners": list(outcome.winners),
        "rewards": [float(r) for r in outcome.rewards],
        # judged by sides, as tournaments judge them: partners who win together both won
        "results": [outcome.team_result(q) for q in range(outcome.num_players)],
        "turns": int(env.game_state.turn),
    }


def make_record_folder(folder: str) -> None:
    """Make ``folder`` (and its parents) for ``--record``; ``ValueError`` for an empty name, a
    file, or a place where no folder can be made."""
    if not folder.strip():
        raise ValueError("--record names an empty folder")
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"--record {folder}: not a folder")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as err:
        raise ValueError(
            f"--record {folder}: cannot make the folder: {err.strerror or err}"
        ) from None


def record_prefix(game: str, players: int) -> str:
    """What every record file name of ``game`` at ``players`` seats starts with."""
    return f"{game}-{players}p-g"


def record_filename(game: str, players: int, index: int, games: int = 1) -> str:
    """``<game>-<players>p-g<index>.json`` for game ``index`` of ``games``, the index zero-padded
    so that the names sort in game order."""
    width = len(str(max(games - 1, 0)))
    return f"{record_prefix(game, players)}{index:0{width}d}.json"


def dumps(record: dict[str, Any]) -> str:
    """The record as JSON text: one line per field and one per decision (small, diff-friendly)."""
    lines = []
    for key, value in record.items():
        if key == "decisions" and value:
            inner = ",\n".join(f"    {json.dumps(d)}" for d in value)
            lines.append(f'  "decisions": [\n{inner}\n  ]')
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def write_record(record: dict[str, Any], path: str) -> None:
    """Write ``record`` to ``path``; an OS error becomes a ValueError naming the file."""
    try:
        with open(path, "w") as fh:
            fh.write(dumps(record))
    except OSError as err:
        raise ValueError(f"cannot write {path}: {err.strerror or err}") from None


# -- reading and checking -----------------------------------------------------------------------


def load_record(path: str) -> dict[str, Any]:
    """Read and check the layout of the record in ``path`` (not yet replayed)."""
    try:
        with open(path) as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise RecordError(f"cannot read {path}: {reason}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"{path} is not a game record: not JSON ({err})") from None
    try:
        check_record(record)
    except RecordError as err:
        raise RecordError(f"{path}: {err}") from None
    return record


def _is(value: Any, kinds: tuple[type, ...]) -> bool:
    """JSON type check; a bool is no int here, an int may stand for a float."""
    if isinstance(value, bool):
        return bool in kinds
    return isinstance(value, kinds) or (float in kinds and isinstance(value, int))


def check_record(record: Any) -> None:
    """Raise :class:`RecordError` naming the first field whose layout is wrong."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f'not a game record (no "format": "{FORMAT}" field)')
    if record.get("format_version") != FORMAT_VERSION:
        raise RecordError(
            f"field format_version: this cardzoo reads version {FORMAT_VERSION}, the record "
            f"has {record.get('format_version')!r}"
        )
    for key, kinds in FIELDS.items():
        if key not in record:
            raise RecordError(f"field {key}: missing")
        if not _is(record[key], kinds):
            names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            raise RecordError(f"field {key}: expected {names}, got {record[key]!r}")
    players = record["players"]
    if len(record["agents"]) != players:
        raise RecordError(f"field agents: {len(record['agents'])} names for {players} seats")
    missing = [k for k in RESULT_FIELDS if k not in record["result"]]
    if missing:
        raise RecordError(f"field result: missing {', '.join(missing)}")
    for step, decision in enumerate(record["decisions"], 1):
        _check_decision(step, decision)


def _check_decision(step: int, decision: Any) -> None:
    if not isinstance(decision, dict):
        raise RecordError(f"step {step}: a decision is an object, got {decision!r}")
    for key, kind in DECISION_FIELDS.items():
        if key not in decision:
            raise RecordError(f"step {step}: field {key} missing")
        if not _is(decision[key], (kind,)):
            raise RecordError(
                f"step {step}: field {key} must be {kind.__name__}, got {decision[key]!r}"
            )


# -- replaying ----------------------------------------------------------------------------------


def make_env(record: dict[str, Any], render_mode: str | None = "ansi") -> CardGameEnv:
    """An env with the record's game, env version, encoder and rules (config checked)."""
    check_record(record)
    try:
        module = load(record["game"])
    except ValueError as err:
        raise RecordError(f"field game: {err}") from None
    env_name = module.GAME.env_name
    if record["env"] != env_name:
        raise RecordError(
            f"field env: the record was made with {record['env']}, this cardzoo has {env_name}; "
            "a record replays only in the env version that made it"
        )
    try:
        env = module.raw_env(
            num_players=record["players"],
            encoder=record["encoder"],
            reward=record["reward"],
            variant=record["variant"],
            render_mode=render_mode,
            **record["options"],
        )
    except (ValueError, TypeError) as err:
        raise RecordError(f"fields players/encoder/reward/variant/options: {err}") from None
    config = json.loads(json.dumps(dataclasses.asdict(env.config)))
    for key in sorted(set(config) | set(record["config"])):
        ours, theirs = config.get(key, "<absent>"), record["config"].get(key, "<absent>")
        if ours != theirs:
            raise RecordError(
                f"field config: rule option {key} is {ours!r} here, the record has {theirs!r}"
            )
    return env


def _apply(env: CardGameEnv, step: int, decision: dict[str, Any], left: int) -> None:
    """Check decision ``step`` against the game and play it; the state is unchanged on error."""
    state = env.game_state
    if state.terminal or state.truncated:
        raise RecordError(f"step {step}: the game is already over, yet {left} decisions are left")
    seat, action, recorded = decision["seat"], decision["action"], decision["move"]
    if seat != state.current_player:
        raise RecordError(
            f"step {step}: the record has seat {seat} move, but it is seat "
            f"{state.current_player}'s turn"
        )
    try:
        move = str(env.action_to_move(action))
    except IllegalActionError as err:
        raise RecordError(f"step {step}: {err}") from None
    if not state.is_legal(action):
        raise RecordError(f"step {step}: action {action} ({move}) is illegal for seat {seat} here")
    if move != recorded:
        raise RecordError(
            f"step {step}: action {action} is {move!r} in {env.game.env_name}, the record says "
            f"{recorded!r}"
        )
    env.step(action)


def _check_result(env: CardGameEnv, record: dict[str, Any]) -> None:
    state = env.game_state
    if not (state.terminal or state.truncated):
        raise RecordError(
            f"step {len(record['decisions'])}: the record ends after this step, but the game "
            f"goes on (seat {state.current_player} is to move)"
        )
    replayed = result_of(env)
    for key in RESULT_FIELDS:
        if replayed[key] != record["result"][key]:
            raise RecordError(
                f"field result.{key}: the replay gives {replayed[key]!r}, the record says "
                f"{record['result'][key]!r}"
            )


def replay_record(
    record: dict[str, Any],
    on_step: Callable[[int, dict[str, Any] | None, CardGameEnv], None] | None = None,
) -> CardGameEnv:
    """Deal the record's game again, play every decision, check moves and result; the env.

    ``on_step(k, decision, env)`` is called after the deal (``k = 0``, ``decision`` None) and
    after each decision ``k = 1, 2, ...``. Raises :class:`RecordError` naming the step or field
    at the first difference.
    """
    env = make_env(record)
    try:
        env.reset(seed=record["seed"])
    except ValueError as err:
        raise RecordError(f"field seed: {err}") from None
    if on_step is not None:
        on_step(0, None, env)
    decisions = record["decisions"]
    for step, decision in enumerate(decisions, 1):
        _apply(env, step, decision, len(decisions) - step + 1)
        if on_step is not None:
            on_step(step, decision, env)
    _check_result(env, record)
    return env


def replay_steps(record: dict[str, Any], seat: int | None = None) -> list[Step]:
    """Every step of a checked replay with the table after it: from ``seat``'s point of view
    (``render_for``), or all-seeing (``render``) when ``seat`` is None."""
    players = record.get("players") if isinstance(record, dict) else None
    if seat is not None and isinstance(players, int) and not 0 <= seat < players:
        raise ValueError(f"--seat must be 0..{players - 1} (the record has {players}), got {seat}")
    steps: list[Step] = []

    def show(k: int, decision: dict[str, Any] | None, env: CardGameEnv) -> None:
        table = env.render() if seat is None else env.render_for(env.possible_agents[seat])
        if decision is None:
            steps.append(Step(k, None, None, None, table))
            return
        who = decision["seat"]
        steps.append(Step(k, who, record["agents"][who], decision["move"], table))

    replay_record(record, show)
    return steps


def describe(record: dict[str, Any]) -> str:
    """Two header lines: what was played, by whom."""
    rules = f"variant {record['variant']}" if record["variant"] else "standard rules"
    if record["options"]:
        rules += ", " + " ".join(f"{k}={v}" for k, v in record["options"].items())
    where = record["tournament"]
    origin = f" (tournament seed {where['seed']}, game {where['game']})" if where else ""
    seats = ", ".join(f"seat {q}: {a}" for q, a in enumerate(record["agents"]))
    return (
        f"{record['env']}, {record['players']} players, {rules}; seed {record['seed']}{origin}\n"
        f"{seats}"
    )


def describe_result(record: dict[str, Any]) -> str:
    result = record["result"]
    winners = ", ".join(f"seat {q}" for q in result["winners"]) or "nobody"
    rewards = ", ".join(f"{r:g}" for r in result["rewards"])
    return (
        f"result: {winners} won; end reason {result['end_reason']}; {result['turns']} turns, "
        f"{len(record['decisions'])} decisions; rewards {rewards}"
    )
