"""``cardzoo serve``: replays and human play in the browser, from a small local web server.

Two pages, plain HTML and a little JavaScript shipped in ``cardzoo/train/web`` (no build step, no
CDN): ``/replay`` steps through the game records of ``--records`` (a folder or one file) and
``/play`` lets a human hold one seat against agents. Everything the pages show comes from the JSON
API below, and the server builds every answer for a seat only from what that seat may see
(``render_svg(seat)``, its own legal moves, the moves played so far in words, the result at the
end); the seed of a game in play is withheld until the game is over, since it would reveal the
deal.

API (JSON in, JSON out; an error is ``{"error": "..."}`` with status 400, 404 or 409 and changes
nothing)::

    GET  /api/games                         games, player counts, variants, agent kinds
    POST /api/play  {"game", "players", "seat", "opponents", "variant", "seed"}   a new game
    GET  /api/play/<session>                the game as the human's seat sees it
    POST /api/play/<session>/move {"action", "step"}   play a legal move; the agents answer
    GET  /api/records                       the records of --records
    GET  /api/records/<name>?step=K&seat=S  step K of a record, seen by seat S (or "all")

``step`` in a move request is the number of decisions the page has seen; a request made on an
older state (a second tab, a double click) is refused with 409 instead of playing a move the
human did not see. Each game lives in its own session, so one server holds several at once.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from cardzoo.agents import AGENT_KINDS, HEURISTICS, Agent, Seat, make_agent
from cardzoo.envs import games, load
from cardzoo.train.play import HUMAN, MAX_DRAWN_SEED, opponent_specs, record_path, result_lines
from cardzoo.train.records import (
    GameRecorder,
    RecordError,
    describe,
    describe_result,
    load_record,
    make_record_folder,
    replay_record,
    result_of,
    write_record,
)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: Games kept in memory at once; the least recently used one is dropped beyond this.
MAX_SESSIONS = 200
#: Moves of the game log sent with each state (the page shows the latest ones).
LOG_TAIL = 40
#: Largest request body read (a move or a new game is a few dozen bytes).
MAX_BODY = 10_000
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/play": ("play.html", "text/html; charset=utf-8"),
    "/replay": ("replay.html", "text/html; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
    "/static/common.js": ("common.js", "text/javascript; charset=utf-8"),
    "/static/play.js": ("play.js", "text/javascript; charset=utf-8"),
    "/static/replay.js": ("replay.js", "text/javascript; charset=utf-8"),
}


class ApiError(Exception):
    """A request the server refuses: ``status`` and a message for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def web_file(name: str) -> bytes:
    """A file of the pages, read from the installed package."""
    return (resources.files("cardzoo.train") / "web" / name).read_bytes()


# -- play ---------------------------------------------------------------------------------------


def _int_field(body: dict[str, Any], key: str, default: int | None = None) -> int | None:
    value = body.get(key, default)
    if value is None or value == "":
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        raise ApiError(400, f"{key} must be an integer, got {value!r}")
    return value


class PlaySession:
    """One game in play: the env, the human's seat, the agents of the other seats, the record."""

    def __init__(
        self,
        game: str,
        players: int | None,
        seat: int,
        opponents: Sequence[str],
        variant: str | None,
        seed: int | None,
        record_dir: str | None,
    ) -> None:
        module = load(game)  # ValueError names the games
        options: dict[str, Any] = {"variant": variant} if variant else {}
        if players is not None:
            options["num_players"] = players
        env = module.raw_env(**options)
        n = env.config.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} for a {n}-player game, got {seat}")
        if seed is None:
            seed = secrets.randbelow(MAX_DRAWN_SEED)
        elif seed < 0:
            raise ValueError(f"seed must be >= 0, got {seed}")
        specs = opponent_specs(opponents, n)
        self.names = specs[:seat] + [HUMAN] + specs[seat:]
        self.agents: list[Agent | None] = [
            None if q == seat else make_agent(self.names[q], module.GAME.name, seed=seed * 16 + q)
            for q in range(n)
        ]
        self.path = None
        if record_dir is not None:
            self.path = record_path(record_dir, module.GAME.name, n, seed)
        env.reset(seed=seed)
        self.env, self.seat, self.seed = env, seat, seed
        self.recorder = GameRecorder(env, seed, self.names, {"variant": variant} if variant else {})
        self.log: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.saved: str | None = None
        self.used = time.monotonic()
        self._agents_move()

    @property
    def over(self) -> bool:
        return self.env.outcome() is not None

    @property
    def step(self) -> int:
        return len(self.log)

    def _play(self, action: int) -> None:
        env = self.env
        q = env.game_state.current_player
        move = str(env.action_to_move(action))
        self.recorder.decide(action)
        env.step(action)
        self.log.append(
            {"step": len(self.log) + 1, "seat": q, "agent": self.names[q], "move": move}
        )

    def _agents_move(self) -> None:
        """Let the agents play until it is the human's turn or the game is over."""
        env = self.env
        while not self.over and env.game_state.current_player != self.seat:
            q = env.game_state.current_player
            obs = env.observe(env.possible_agents[q])
            agent = self.agents[q]
            assert agent is not None
            action = agent.act(obs["observation"], obs["action_mask"], seat=Seat(env.game_state, q))
            self._play(int(action))
        if self.over and self.result is None:
            self.result = result_of(env)
            record = self.recorder.finish()
            if self.path is not None:
                write_record(record, self.path)
                self.saved = os.path.basename(self.path)

    def move(self, action: Any, step: Any) -> None:
        """The human plays ``action``; refused (nothing changes) if stale, over or illegal."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise ApiError(400, f"step must be the integer step the page shows, got {step!r}")
        if step != self.step:
            raise ApiError(
                409,
                f"stale request: it was made at step {step}, the game is at step {self.step} "
                "(reload the page to see the current table)",
            )
        if self.over:
            raise ApiError(409, "the game is over: no more moves")
        legal = self.env.legal_actions()
        if isinstance(action, bool) or not isinstance(action, int):
            raise ApiError(400, f"action must be an integer action id, got {action!r}")
        if action not in legal:
            raise ApiError(
                400,
                f"action {action} is not a legal move now; the legal action ids are "
                f"{', '.join(map(str, legal))}",
            )
        self._play(action)
        self._agents_move()

    def state(self, session: str) -> dict[str, Any]:
        """The game as the human's seat sees it (nothing another seat holds in secret)."""
        env = self.env
        yours = not self.over and env.game_state.current_player == self.seat
        legal = (
            [{"id": a, "move": str(env.action_to_move(a))} for a in env.legal_actions()]
            if yours
            else []
        )
        state: dict[str, Any] = {
            "session": session,
            "game": env.game.name,
            "title": env.game.title,
            "players": len(self.names),
            "seat": self.seat,
            "agents": self.names,
            "step": self.step,
            "to_move": None if self.over else env.game_state.current_player,
            "your_turn": yours,
            "svg": env.render_svg(self.seat),
            "legal": legal,
            "log": self.log[-LOG_TAIL:],
            "over": self.over,
            "result": None,
            "seed": None,
            "record": None,
        }
        if self.result is not None:
            state["result"] = {
                **self.result,
                "lines": result_lines(self.result, self.names, self.seat),
            }
            state["seed"] = self.seed  # safe to show once every card is known to be played out
            state["record"] = self.saved
        return state


# -- replays ------------------------------------------------------------------------------------


class RecordShelf:
    """The game records the server shows: every ``*.json`` in a folder, or one file."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.folder = path if path is not None and os.path.isdir(path) else None

    def names(self) -> list[str]:
        if self.path is None:
            return []
        if self.folder is None:
            return [os.path.basename(self.path)]
        return sorted(f for f in os.listdir(self.folder) if f.endswith(".json"))

    def file(self, name: str) -> str:
        if name not in self.names():
            raise ApiError(404, f"no record named {name!r} here")
        return os.path.join(self.folder, name) if self.folder is not None else str(self.path)

    def listing(self) -> dict[str, Any]:
        rows = []
        for name in self.names():
            try:
                record = load_record(self.file(name))
            except RecordError as err:
                rows.append({"name": name, "error": str(err)})
                continue
            rows.append(
                {
                    "name": name,
                    "game": record["game"],
                    "players": record["players"],
                    "agents": record["agents"],
                    "decisions": len(record["decisions"]),
                    "winners": record["result"]["winners"],
                    "summary": describe_result(record),
                }
            )
        return {"path": self.path, "saving": self.folder is not None, "records": rows}

    def step(self, name: str, step: int, seat: int | None) -> dict[str, Any]:
        """Step ``step`` (0: the deal) of record ``name``, seen by ``seat`` (None: all-seeing)."""
        try:
            record = load_record(self.file(name))
        except RecordError as err:
            raise ApiError(400, str(err)) from None
        last = len(record["decisions"])
        players = record["players"]
        if not 0 <= step <= last:
            raise ApiError(400, f"step must be 0..{last} for this record, got {step}")
        if seat is not None and not 0 <= seat < players:
            raise ApiError(400, f"seat must be 0..{players - 1} or all, got {seat}")
        pictures: list[str] = []

        def picture(k: int, decision: Any, env: Any) -> None:
            if k == step:
                pictures.append(env.render_svg(seat))

        try:
            replay_record(record, picture)  # checks every step, not only the ones shown
        except RecordError as err:
            raise ApiError(400, f"{name}: {err}") from None
        return {
            "name": name,
            "header": describe(record),
            "players": players,
            "agents": record["agents"],
            "moves": [
                {
                    "step": k,
                    "seat": d["seat"],
                    "agent": record["agents"][d["seat"]],
                    "move": d["move"],
                }
                for k, d in enumerate(record["decisions"], 1)
            ],
            "step": step,
            "seat": seat,
            "svg": pictures[0],
            "result": {**record["result"], "summary": describe_result(record)},
        }


# -- the server ---------------------------------------------------------------------------------


def check_agent_specs(specs: Sequence[str]) -> list[str]:
    """The default opponents of the play page; each must build for at least one game."""
    specs = [s.strip() for s in specs if s.strip()]
    if not specs:
        raise ValueError("--agents names no agent (e.g. heuristic,random)")
    for spec in specs:
        errors = []
        for module in games():
            try:
                make_agent(spec, module.GAME.name, seed=0)
                break
            except ValueError as err:
                errors.append(str(err))
        else:
            raise ValueError(f"--agents {spec}: {errors[0]}")
    return specs


class CardzooServer(ThreadingHTTPServer):
    """The HTTP server with the sessions of the games in play and the record shelf."""

    daemon_threads = True

    def __init__(
        self, address: tuple[str, int], records: str | None, agents: Sequence[str]
    ) -> None:
        super().__init__(address, Handler)
        self.shelf = RecordShelf(records)
        self.default_agents = list(agents)
        self.sessions: dict[str, PlaySession] = {}
        self.lock = threading.Lock()

    def games_info(self) -> dict[str, Any]:
        rows = []
        for module in games():
            game = module.GAME
            rows.append(
                {
                    "name": game.name,
                    "title": game.title,
                    "players": list(game.player_counts),
                    "default_players": module.raw_env().config.num_players,
                    "variants": list(game.variants),
                    "heuristic": game.name in HEURISTICS,
                }
            )
        return {
            "games": rows,
            "agent_kinds": list(AGENT_KINDS),
            "default_agents": self.default_agents,
            "saving": self.shelf.folder is not None,
        }

    def new_game(self, body: dict[str, Any]) -> dict[str, Any]:
        game = body.get("game")
        if not isinstance(game, str) or not game:
            raise ApiError(400, "game is missing: give one of the names of GET /api/games")
        opponents = body.get("opponents", self.default_agents)
        if isinstance(opponents, str):
            opponents = opponents.split(",")
        if not isinstance(opponents, list) or not all(isinstance(s, str) for s in opponents):
            raise ApiError(400, f"opponents must be a list of agent specs, got {opponents!r}")
        variant = body.get("variant") or None
        if variant is not None and not isinstance(variant, str):
            raise ApiError(400, f"variant must be a name, got {variant!r}")
        try:
            session = PlaySession(
                game,
                _int_field(body, "players"),
                _int_field(body, "seat", 0) or 0,
                opponents,
                variant,
                _int_field(body, "seed"),
                self.shelf.folder,
            )
        except (ValueError, TypeError, ImportError) as err:  # ImportError: ppo without torch
            raise ApiError(400, str(err)) from None
        sid = secrets.token_urlsafe(12)
        with self.lock:
            self.sessions[sid] = session
            while len(self.sessions) > MAX_SESSIONS:
                oldest = min(self.sessions, key=lambda k: self.sessions[k].used)
                del self.sessions[oldest]
            return session.state(sid)

    def session(self, sid: str) -> PlaySession:
        session = self.sessions.get(sid)
        if session is None:
            raise ApiError(
                404,
                f"no game in play with session id {sid!r} (the server forgets "
                "games when it restarts)",
            )
        session.used = time.monotonic()
        return session


class Handler(BaseHTTPRequestHandler):
    """Routes the pages, their static files and the JSON API."""

    server: CardzooServer
    server_version = "cardzoo"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass  # quiet: the terminal shows only the address and errors

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _body(self) -> dict[str, Any]:
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise ApiError(400, "bad Content-Length") from None
        if length > MAX_BODY:
            raise ApiError(400, f"request body too large ({length} bytes)")
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ApiError(400, f"the request body is not JSON: {err}") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return body

    def _handle(self, method: str) -> None:
        url = urlsplit(self.path)
        try:
            if method == "GET" and url.path in STATIC:
                name, ctype = STATIC[url.path]
                self._send(200, web_file(name), ctype)
                return
            self._json(200, self._api(method, url.path, parse_qs(url.query)))
        except ApiError as err:
            self._json(err.status, {"error": err.message})
        except Exception as err:  # a bug: say so rather than drop the connection
            self._json(500, {"error": f"internal error: {type(err).__name__}: {err}"})

    def _api(self, method: str, path: str, query: dict[str, list[str]]) -> Any:
        parts = [unquote(p) for p in path.strip("/").split("/")]
        server = self.server
        if parts[0] != "api" or len(parts) < 2:
            raise ApiError(404, f"no page {path}")
        route = (method, parts[1], len(parts))
        if route == ("GET", "games", 2):
            return server.games_info()
        if route == ("POST", "play", 2):
            return server.new_game(self._body())
        if route == ("GET", "play", 3):
            with server.lock:
                return server.session(parts[2]).state(parts[2])
        if route == ("POST", "play", 4) and parts[3] == "move":
            body = self._body()
            with server.lock:
                session = server.session(parts[2])
                session.move(body.get("action"), body.get("step"))
                return session.state(parts[2])
        if route == ("GET", "records", 2):
            return server.shelf.listing()
        if route == ("GET", "records", 3):
            return server.shelf.step(parts[2], *_step_query(query))
        if method not in ("GET", "POST"):
            raise ApiError(405, f"method {method} not allowed")
        raise ApiError(404, f"no API route {method} {path}")

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")


def _step_query(query: dict[str, list[str]]) -> tuple[int, int | None]:
    """``step`` (default 0) and ``seat`` (a number, or ``all``/absent for all-seeing)."""
    step_text = query.get("step", ["0"])[-1]
    seat_text = query.get("seat", ["all"])[-1]
    try:
        step = int(step_text)
    except ValueError:
        raise ApiError(400, f"step must be an integer, got {step_text!r}") from None
    if seat_text in ("", "all"):
        return step, None
    try:
        return step, int(seat_text)
    except ValueError:
        raise ApiError(400, f"seat must be a seat number or all, got {seat_text!r}") from None


def make_server(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    records: str | None = None,
    agents: Sequence[str] = ("random",),
) -> CardzooServer:
    """A server bound to ``host:port`` (port 0: any free port), not yet serving."""
    if records is not None and not os.path.exists(records):
        raise ValueError(f"--records {records}: no such file or folder")
    if records is not None and not os.path.isdir(records):
        load_record(records)  # a single file must be a record (RecordError names what is wrong)
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be 0..65535, got {port}")
    specs = check_agent_specs(agents)
    try:
        return CardzooServer((host, port), records, specs)
    except OSError as err:
        raise ValueError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None


# -- command line -------------------------------------------------------------------------------


def cmd_serve(args: Any) -> int:
    """Serve the pages until Ctrl-C."""
    records = args.records
    if records is not None and not records.endswith(".json") and not os.path.isfile(records):
        make_record_folder(records)  # finished games are saved there: make it now
    server = make_server(args.host, args.port, args.records, args.agents.split(","))
    host, port = server.server_address[:2]
    print(f"cardzoo serve: http://{host}:{port}/  (play: /play, replays: /replay; Ctrl-C stops)")
    if args.records is None:
        print("no --records: the replay page is empty and finished games are not saved")
    if host not in ("127.0.0.1", "::1", "localhost"):
        print(f"note: bound to {host}: anyone who can reach this address can use the pages")
    print("", end="", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\ncardzoo serve: stopped")
    finally:
        server.server_close()
    return 0


def add_parser(sub: Any) -> None:
    """The ``serve`` subcommand."""
    p = sub.add_parser(
        "serve",
        help="replays and play against agents in the browser (a local web server)",
        description="Serve two pages: /replay steps through the game records of --records, "
        "/play lets you play a seat against agents by clicking your moves. See docs/serve.md.",
    )
    p.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free)"
    )
    p.add_argument(
        "--records",
        metavar="PATH",
        help="a folder of game records (shown on /replay; finished games are saved there) or "
        "one record file",
    )
    p.add_argument(
        "--agents",
        default="random",
        metavar="SPEC,...",
        help="default opponents of the play page, as for `cardzoo play --opponents` (random, "
        "heuristic, ppo:PATH; default random)",
    )
    p.set_defaults(func=cmd_serve)
