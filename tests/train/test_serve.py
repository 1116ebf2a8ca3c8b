"""The HTTP API of ``cardzoo serve`` (no browser): games, play sessions, records, errors.

The server runs in a thread on 127.0.0.1 (any free port); requests go through urllib as a page's
would. The browser itself is tested in test_serve_browser.py.
"""

from __future__ import annotations

import fnmatch
import json
import random
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from importlib import resources
from pathlib import Path

import pytest
from cardzoo.train import serve
from cardzoo.train.cli import main
from cardzoo.train.records import load_record, replay_record, write_record

STATE_KEYS = {
    "session", "game", "title", "players", "seat", "agents", "step", "to_move", "your_turn",
    "svg", "legal", "log", "over", "result", "seed", "record",
}  # fmt: skip


def make_records(folder, game="beasty_bar", games=2, players=2):
    args = ["eval", game, "--games", str(games), "--players", str(players), "--workers", "1"]
    assert main([*args, "--quiet", "--record", str(folder)]) == 0
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def records(tmp_path):
    folder = tmp_path / "records"
    folder.mkdir()
    make_records(folder)
    return folder


@pytest.fixture
def url(records):
    server = serve.make_server(port=0, records=str(records), agents=["random"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}"
    server.shutdown()
    server.server_close()


def call(url, path, body=None, method=None, raw=None):
    """(status, decoded JSON) of a request; an HTTP error status is returned, not raised."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(url + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def new_game(url, **body):
    status, state = call(url, "/api/play", {"game": "beasty_bar", "seed": 5, **body})
    assert status == 200, state
    return state


def play_out(url, state, rng):
    """Random legal moves through the API to the end; every state seen, by step."""
    seen = {state["step"]: state}
    while not state["over"]:
        action = rng.choice(state["legal"])["id"]
        status, state = call(
            url, f"/api/play/{state['session']}/move", {"action": action, "step": state["step"]}
        )
        assert status == 200, state
        seen[state["step"]] = state
    return seen


def test_pages_and_their_files_come_from_the_package(url):
    for path, (name, ctype) in serve.STATIC.items():
        packaged = (resources.files("cardzoo.train") / "web" / name).read_bytes()
        with urllib.request.urlopen(url + path) as response:
            assert response.read() == packaged
            assert response.headers["Content-Type"] == ctype
    with urllib.request.urlopen(url + "/play") as response:
        page = response.read().decode()
    assert "/static/play.js" in page and "http" not in page.replace("http-equiv", "")  # no CDN


def test_games_lists_every_game_with_its_player_counts(url):
    status, info = call(url, "/api/games")
    assert status == 200
    names = {g["name"]: g for g in info["games"]}
    assert set(names) == {"cubirds", "beasty_bar", "odins_ravens", "sitting_ducks"}
    assert names["odins_ravens"]["players"] == [2]
    assert names["sitting_ducks"]["default_players"] == 3
    assert info["default_agents"] == ["random"] and info["saving"] is True


@pytest.mark.parametrize("game", ["cubirds", "beasty_bar", "odins_ravens", "sitting_ducks"])
def test_a_whole_game_through_the_api_shows_only_the_seats_view_and_is_saved(url, records, game):
    seat = 1
    state = new_game(url, game=game, seat=seat, seed=3)
    assert set(state) == STATE_KEYS
    assert state["seed"] is None  # the seed would reveal the deal
    rng = random.Random(0)
    if game == "odins_ravens":  # random clicks take ~800 moves; the first legal one far fewer
        rng.choice = lambda moves: moves[0]
    seen = play_out(url, state, rng)
    final = seen[max(seen)]
    assert final["seed"] == 3 and final["result"] is not None
    record = load_record(str(records / final["record"]))
    assert record["agents"][seat] == "human" and record["seed"] == 3
    assert final["result"]["winners"] == record["result"]["winners"]

    def check(k, decision, env):
        if k in seen:
            state = seen[k]
            assert state["svg"] == env.render_svg(seat), f"step {k}"
            if state["your_turn"]:
                assert [m["id"] for m in state["legal"]] == env.legal_actions()
                assert env.game_state.current_player == seat
            else:
                assert state["legal"] == []

    replay_record(record, check)
    # the log is the record's moves in words
    assert [e["move"] for e in final["log"]] == [d["move"] for d in record["decisions"]][-40:]


def test_an_illegal_move_is_refused_with_400_and_changes_nothing(url):
    state = new_game(url)
    sid, step = state["session"], state["step"]
    legal = {m["id"] for m in state["legal"]}
    illegal = next(a for a in range(1000) if a not in legal)
    for action, words in [
        (illegal, f"action {illegal} is not a legal move now"),
        (-1, "not a legal move"),
        ("3", "action must be an integer"),
        (True, "action must be an integer"),
        (None, "action must be an integer"),
    ]:
        status, answer = call(url, f"/api/play/{sid}/move", {"action": action, "step": step})
        assert status == 400 and words in answer["error"], answer
        assert call(url, f"/api/play/{sid}")[1] == state  # not a thing changed


def test_a_stale_request_is_refused_with_409(url):
    state = new_game(url)
    sid = state["session"]
    action = state["legal"][0]["id"]
    status, after = call(url, f"/api/play/{sid}/move", {"action": action, "step": state["step"]})
    assert status == 200 and after["step"] > state["step"]
    # the same click again (a double click, a second tab): made on the old state
    status, answer = call(url, f"/api/play/{sid}/move", {"action": action, "step": state["step"]})
    assert status == 409 and "stale request" in answer["error"]
    assert call(url, f"/api/play/{sid}")[1] == after
    status, answer = call(url, f"/api/play/{sid}/move", {"action": action})
    assert status == 400 and "step must be" in answer["error"]


def test_no_move_after_the_end(url):
    state = new_game(url)
    play_out(url, state, random.Random(1))
    final = call(url, f"/api/play/{state['session']}")[1]
    assert final["over"]
    status, answer = call(
        url, f"/api/play/{state['session']}/move", {"action": 0, "step": final["step"]}
    )
    assert status == 409 and "the game is over" in answer["error"]


@pytest.mark.parametrize(
    "body, words",
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": ""}, "game is missing"),
        ({"seat": 2}, "seat must be 0..1"),
        ({"seat": "x"}, "seat must be an integer"),
        ({"players": 9}, "num_players"),
        ({"opponents": ["alphazero"]}, "unknown agent spec 'alphazero'"),
        ({"opponents": 5}, "opponents must be a list"),
        ({"seed": -1}, "seed must be >= 0"),
        ({"variant": "nope"}, "nope"),
    ],
)
def test_a_bad_new_game_is_refused_with_a_message(url, body, words):
    status, answer = call(url, "/api/play", {"game": "beasty_bar", **body})
    assert status == 400
    assert words.lower() in answer["error"].lower(), answer


def test_bad_requests_get_clear_errors(url):
    assert call(url, "/api/play", raw=b"{not json")[0] == 400
    status, answer = call(url, "/api/play", raw=b"[1, 2]")
    assert status == 400 and "JSON object" in answer["error"]
    status, answer = call(url, "/api/play/nosuchsession")
    assert status == 404 and "no game in play" in answer["error"]
    status, answer = call(url, "/api/nothing")
    assert status == 404


def test_sessions_are_independent(url):
    one, two = new_game(url, seed=1), new_game(url, seed=2)
    assert one["session"] != two["session"]
    call(url, f"/api/play/{one['session']}/move", {"action": one["legal"][0]["id"], "step": 1})
    assert call(url, f"/api/play/{two['session']}")[1] == two


def test_records_are_listed_and_stepped_through_from_each_point_of_view(url, records):
    status, listing = call(url, "/api/records")
    assert status == 200
    names = [r["name"] for r in listing["records"]]
    assert names == ["beasty_bar-2p-g0.json", "beasty_bar-2p-g1.json"]
    record = load_record(str(records / names[0]))
    pictures = {}

    def keep(k, decision, env):
        pictures[k] = (env.render_svg(None), env.render_svg(0), env.render_svg(1))

    replay_record(record, keep)
    last = len(record["decisions"])
    for step in (0, 3, last):
        for view, index in (("all", 0), ("0", 1), ("1", 2)):
            status, data = call(url, f"/api/records/{names[0]}?step={step}&seat={view}")
            assert status == 200, data
            assert data["svg"] == pictures[step][index]
            assert data["step"] == step
    assert [m["move"] for m in data["moves"]] == [d["move"] for d in record["decisions"]]
    assert data["result"]["winners"] == record["result"]["winners"]


def test_record_errors_name_what_is_wrong(url, records):
    name = "beasty_bar-2p-g0.json"
    status, answer = call(url, f"/api/records/{name}?step=999")
    assert status == 400 and "step must be 0.." in answer["error"]
    status, answer = call(url, f"/api/records/{name}?seat=5")
    assert status == 400 and "seat must be 0..1" in answer["error"]
    status, answer = call(url, f"/api/records/{name}?seat=left")
    assert status == 400 and "seat must be a seat number" in answer["error"]
    for bad in ("nope.json", "..%2Fsecret.json", "%2Fetc%2Fpasswd"):
        assert call(url, f"/api/records/{bad}")[0] == 404
    # an edited record: its step 2 names another move than the action plays
    record = load_record(str(records / name))
    record["decisions"][1]["move"] = "play Unicorn"
    write_record(record, str(records / "edited.json"))
    status, answer = call(url, "/api/records/edited.json")
    assert status == 400 and "step 2" in answer["error"], answer
    (records / "broken.json").write_text("{")
    rows = {r["name"]: r for r in call(url, "/api/records")[1]["records"]}
    assert "not JSON" in rows["broken.json"]["error"]


def test_one_record_file_can_be_served(records):
    name = "beasty_bar-2p-g1.json"
    server = serve.make_server(port=0, records=str(records / name))
    assert server.shelf.names() == [name] and server.shelf.folder is None
    assert server.shelf.step(name, 0, None)["step"] == 0
    server.server_close()


def test_command_line_errors_before_serving(tmp_path, capsys):
    cases = [
        (["--records", str(tmp_path / "missing.json")], "no such file"),
        (["--agents", "alphazero"], "unknown agent spec"),
        (["--agents", ","], "--agents names no agent"),
        (["--port", "70000"], "--port must be 0..65535"),
    ]
    (tmp_path / "bad.json").write_text("[]")
    cases.append((["--records", str(tmp_path / "bad.json")], "not a game record"))
    for args, words in cases:
        assert main(["serve", *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("cardzoo serve: error:") and words in err, err


def test_a_taken_port_is_a_clear_error(capsys):
    server = serve.make_server(port=0)
    port = server.server_address[1]
    try:
        assert main(["serve", "--port", str(port)]) == 2
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        server.server_close()


@pytest.mark.parametrize("game", ["cubirds", "beasty_bar", "odins_ravens", "sitting_ducks"])
def test_the_end_of_every_game_is_shown_from_every_point_of_view(tmp_path, game):
    """The replay page's last step, all-seeing too (no seat is to move once a game is over)."""
    (name,) = make_records(tmp_path, game, games=1, players=3 if game == "sitting_ducks" else 2)
    shelf = serve.RecordShelf(str(tmp_path))
    last = len(load_record(str(tmp_path / name))["decisions"])
    players = load_record(str(tmp_path / name))["players"]
    for seat in [None, *range(players)]:
        data = shelf.step(name, last, seat)
        assert "over" in data["svg"], data["svg"][:300]


def test_every_page_file_is_package_data():
    """The wheel ships train/web through pyproject's package-data patterns: every file there must
    match one (an editable install would serve a file the wheel lacks)."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is in Python 3.11+")
    root = Path(__file__).resolve().parents[2]
    config = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "cardzoo.train.web" in config["packages"]
    patterns = config["package-data"]["cardzoo.train.web"]
    files = sorted(p.name for p in (root / "train" / "web").iterdir())
    assert {name for name, _ in serve.STATIC.values()} == set(files)
    for name in files:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


#: The command as a terminal runs it: SIGINT neither ignored nor blocked. A test process can pass
#: on either (a run started in the background of a shell ignores it; a library loaded by another
#: test may block it), and a child inherits both across exec.
SERVE_AS_FROM_A_TERMINAL = (
    "import signal, sys; "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from cardzoo.train.cli import main; sys.exit(main(['serve', '--port', '0']))"
)


def test_the_command_prints_its_address_and_stops_cleanly_on_ctrl_c(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE_AS_FROM_A_TERMINAL],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("cardzoo serve: http://127.0.0.1:"), line
        url = line.split()[2].rstrip("/")
        assert call(url, "/api/records")[1]["records"] == []
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        # read() and not communicate(): the latter skips what readline() already buffered
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == 0, err
    assert "no --records" in out and "stopped" in out
