"""`cardzoo rate --ray`: the round robin as Ray tasks gives the same report as one process."""

from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray", reason="needs the ray extra")
pytestmark = pytest.mark.ray


def rate_json(tmp_path, name: str, *extra: str) -> dict:
    from cardzoo.train.cli import main

    out = tmp_path / f"{name}.json"
    args = ["rate", "beasty_bar", "--agents", "random,heuristic", "--games", "20"]
    assert main([*args, "--bootstrap", "50", "--quiet", "--json", str(out), *extra]) == 0
    report = json.loads(out.read_text())
    report.pop("seconds", None)
    return report


def test_rate_on_ray_equals_the_local_result(tmp_path) -> None:
    local = rate_json(tmp_path, "local", "--workers", "1")
    on_ray = rate_json(tmp_path, "ray", "--workers", "1", "--ray")
    assert not ray.is_initialized()  # the command shut down the Ray it started
    assert on_ray == local
    assert local["games"] == len(local["game_log"]) == 20


def test_rate_address_needs_ray(capsys) -> None:
    from cardzoo.train.cli import main

    assert main(["rate", "beasty_bar", "--agents", "random,heuristic", "--address", "auto"]) == 2
    assert "--address needs --ray" in capsys.readouterr().err
