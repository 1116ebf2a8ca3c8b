"""The model zoo (issue 17, item 1): every shipped model is package data, loads through
``importlib.resources`` (also from the built wheel, without the repository on the path), beats
random in a short seeded match, and is refused for another game, player count or encoder."""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="reading a checkpoint needs the train extra")

from cardzoo.agents import make_agent  # noqa: E402
from cardzoo.agents.policy import check_compatible  # noqa: E402
from cardzoo.envs import load  # noqa: E402
from cardzoo.train.tournament import run_tournament  # noqa: E402
from cardzoo.zoo import model_info, model_names  # noqa: E402

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
NAMES = model_names()
MAX_ZOO_BYTES = 20 * 2**20


def test_the_zoo_ships_models_and_their_configs():
    assert NAMES, "no zoo model found through importlib.resources"
    folder = ROOT / "zoo"
    assert sorted(p.stem for p in folder.glob("*.pt")) == NAMES
    for name in NAMES:
        assert (folder / f"{name}.toml").is_file(), f"{name} has no config"
    total = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    assert total < MAX_ZOO_BYTES, f"zoo/ holds {total:,} bytes"


def test_zoo_files_are_declared_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["cardzoo.zoo"] == "zoo"
    assert "cardzoo.zoo" in config["packages"]
    patterns = config["package-data"]["cardzoo.zoo"]
    for path in (ROOT / "zoo").iterdir():
        if path.suffix in (".pt", ".toml"):
            assert any(fnmatch.fnmatch(path.name, p) for p in patterns), path.name


@pytest.mark.parametrize("name", NAMES)
def test_a_model_loads_through_importlib_resources(name):
    info = model_info(name)
    game = load(info["env_name"]).GAME.name
    agent = make_agent(f"zoo:{name}", game)
    with resources.as_file(resources.files("cardzoo.zoo") / f"{name}.pt") as path:
        assert Path(agent.info["path"]) == Path(path)
    assert set(info) >= {"actor", "num_players", "encoder_version", "config"}
    assert "optimizer" not in info and "pool" not in info  # only the policy is shipped


@pytest.mark.parametrize("name", NAMES)
def test_every_model_beats_random_in_a_short_seeded_match(name):
    info = model_info(name)
    game, players = load(info["env_name"]).GAME.name, info["num_players"]
    options = dict(info["config"].get("options", {}))
    result = run_tournament(game, [f"zoo:{name}", "random"], 40, players, seed=1, config=options)
    model = result.agents[0]
    # the zoo's target is 0.95 over 1,000 games; 0.75 over 40 leaves room for the small sample
    assert model.win_rate >= 0.75, result.table()


@pytest.mark.parametrize("name", NAMES)
def test_a_model_is_refused_for_another_game(name):
    own = load(model_info(name)["env_name"]).GAME.name
    other = next(g for g in ("cubirds", "beasty_bar") if g != own)
    with pytest.raises(ValueError, match=rf"zoo model '{name}'.*trained on"):
        make_agent(f"zoo:{name}", other)


@pytest.mark.parametrize("name", NAMES)
def test_a_model_is_refused_at_another_player_count(name):
    info = model_info(name)
    game = load(info["env_name"]).GAME.name
    counts = [n for n in load(game).GAME.player_counts if n != info["num_players"]]
    options = dict(info["config"].get("options", {}))
    if "variant" in options:  # a variant with its own table size (the duel): the plain game
        options = {}
    with pytest.raises(ValueError, match=f"trained for {info['num_players']} players"):
        if counts:  # a real table of another size
            run_tournament(game, [f"zoo:{name}", "random"], 1, counts[0], config=options)
        else:  # a game with one player count: the check the agent makes on its seat
            check_compatible(info, game, info["num_players"] + 1)


def test_a_model_for_another_encoder_version_is_refused(tmp_path, monkeypatch):
    import cardzoo.zoo as zoo
    import torch

    name = NAMES[0]
    data = {k: v for k, v in model_info(name).items() if k != "path"}
    data["encoder_version"] = str(data["encoder_version"]) + "-old"
    torch.save(data, tmp_path / "old.pt")
    monkeypatch.setattr(zoo, "_root", lambda: tmp_path)
    game = load(data["env_name"]).GAME.name
    with pytest.raises(ValueError, match="zoo model 'old'.*encoder.*version"):
        make_agent("zoo:old", game)


def test_unknown_and_empty_names_are_refused():
    with pytest.raises(ValueError, match="no zoo model 'nope'; models: "):
        make_agent("zoo:nope", "beasty_bar")
    with pytest.raises(ValueError, match="needs a model name"):
        make_agent("zoo:", "beasty_bar")


def test_models_load_from_the_built_wheel(tmp_path):
    """Build the wheel, unpack it, and load every model in a Python that sees only the wheel's
    cardzoo (``-S``: no .pth files, so not the editable install) plus the installed libraries."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy2(ROOT / name, src / name)
    folders = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in folders["package-dir"].values():
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    hook = "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])"
    dist = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-c", hook, str(dist)], cwd=src, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = dist.glob("*.whl")
    unpacked = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        for name in NAMES:
            assert f"cardzoo/zoo/{name}.pt" in archive.namelist()
            assert f"cardzoo/zoo/{name}.toml" in archive.namelist()
        archive.extractall(unpacked)
    script = (
        "import cardzoo.zoo as z, sys\n"
        "from cardzoo.agents import make_agent\n"
        "from cardzoo.envs import load\n"
        "assert z.__file__.startswith(sys.argv[1]), z.__file__\n"
        "for name in z.model_names():\n"
        "    game = load(z.model_info(name)['env_name']).GAME.name\n"
        "    agent = make_agent('zoo:' + name, game)\n"
        "    assert agent.info['path'].startswith(sys.argv[1]), agent.info['path']\n"
        "    print(name, agent.info['path'])\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{unpacked}{os.pathsep}{sysconfig.get_paths()['purelib']}"}
    run = subprocess.run(
        [sys.executable, "-S", "-c", script, str(unpacked)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert sorted(line.split()[0] for line in run.stdout.splitlines()) == NAMES
