"""Every registered game has everything a game needs outside its own code (issue 15, item 5).

Adding a game touches places no other test notices: a package missing from ``pyproject.toml``
works in the editable install and is absent from the wheel users get. So the wheel is really
built (setuptools' PEP 517 hook, from a copy of the sources, without network) and its file list
checked. For each game in ``ENV_MODULES`` this also checks: a heuristic in ``HEURISTICS`` (or an
entry in :data:`NO_HEURISTIC` saying why not), ``docs/rules/<game>.md``, the golden playthrough
``tests/golden/<env>.txt``, a row in the README's games table, and that the mutation tool
(``tools/mutation.py``) finds its engine. See docs/adding_a_game.md.
"""

from __future__ import annotations

import importlib.util
import inspect
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from cardzoo.agents import HEURISTICS
from cardzoo.envs import games

try:
    import tomllib
except ImportError:  # Python 3.10: pytest depends on the backport
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

#: Games that ship without a heuristic agent, each with the reason (an explicit opt-out).
NO_HEURISTIC: dict[str, str] = {}


def package_dirs(root: Path = ROOT) -> dict[str, str]:
    """pyproject's ``package-dir``: ``cardzoo.*`` package -> repository folder."""
    data = tomllib.loads((root / "pyproject.toml").read_text())
    return dict(data["tool"]["setuptools"]["package-dir"])


def wheel_path(source: Path, root: Path = ROOT) -> str:
    """Where a repository file is installed: ``envs/cubirds/game.py`` ->
    ``cardzoo/envs/cubirds/game.py`` (through pyproject's package-dir)."""
    relative = source.resolve().relative_to(root)
    for package, folder in package_dirs(root).items():
        top = Path(folder)
        if relative.parts[: len(top.parts)] == top.parts:
            inside = relative.relative_to(top)
            return "/".join((*package.split("."), *inside.parts))
    raise ValueError(f"{relative} is in no folder of pyproject's package-dir")


def shipped_sources(root: Path = ROOT) -> list[Path]:
    """Every .py and py.typed file under the folders pyproject maps to ``cardzoo.*``."""
    files = []
    for folder in package_dirs(root).values():
        for path in sorted((root / folder).rglob("*")):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            if path.suffix == ".py" or path.name == "py.typed":
                files.append(path)
    return files


def build_wheel(out: Path) -> set[str]:
    """Build the wheel from a copy of the sources; returns the files it holds."""
    src = out / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        if (ROOT / name).exists():
            shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in package_dirs().values():
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    dist = out / "dist"
    dist.mkdir()
    hook = "import sys; from setuptools import build_meta; build_meta.build_wheel(sys.argv[1])"
    done = subprocess.run(
        [sys.executable, "-c", hook, str(dist)],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"the wheel build failed:\n{done.stderr[-3000:]}"
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory) -> set[str]:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@dataclass
class GameInfo:
    """What the checks need to know about one registered game."""

    name: str  # plain name, e.g. "cubirds"
    env_name: str  # e.g. "cubirds_v0"
    title: str  # e.g. "Cubirds"
    engine: str  # engine folder under envs/, e.g. "cubirds"
    sources: list[Path]  # the env module, every engine file, its encoders' modules

    @classmethod
    def of(cls, module) -> GameInfo:
        spec = module.GAME
        engine_dir = Path(inspect.getfile(spec.state_cls)).parent
        sources = [Path(inspect.getfile(module)), *sorted(engine_dir.glob("*.py"))]
        sources += [Path(inspect.getfile(enc)) for enc in spec.encoders.values()]
        return cls(spec.name, spec.env_name, spec.title, engine_dir.name, sources)


def _mutation_engines() -> list[str]:
    path = ROOT / "tools" / "mutation.py"
    spec = importlib.util.spec_from_file_location("cardzoo_mutation_tool", path)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool.engines()


def problems(
    game: GameInfo,
    wheel: set[str],
    root: Path = ROOT,
    heuristics: dict[str, str] = HEURISTICS,
    no_heuristic: dict[str, str] = NO_HEURISTIC,
    mutation_engines: list[str] | None = None,
) -> list[str]:
    """Everything ``game`` is missing outside its own code; empty when it is complete."""
    found = []
    for source in game.sources:
        try:
            target = wheel_path(source, root)
        except ValueError as err:
            found.append(f"{source.name}: {err}")
            continue
        if target not in wheel:
            found.append(f"{target} is not in the wheel: add its package to pyproject.toml")
    if game.name not in heuristics and game.name not in no_heuristic:
        found.append(
            "no heuristic: add one to HEURISTICS (cardzoo.agents) or say why not in "
            "NO_HEURISTIC (tests/test_registry.py)"
        )
    if game.name in heuristics and game.name in no_heuristic:
        found.append("both a heuristic and a NO_HEURISTIC opt-out: remove the opt-out")
    if not (root / "docs" / "rules" / f"{game.name}.md").is_file():
        found.append(f"no rules document docs/rules/{game.name}.md")
    if not (root / "tests" / "golden" / f"{game.env_name}.txt").is_file():
        found.append(f"no golden playthrough tests/golden/{game.env_name}.txt")
    readme = (root / "README.md").read_text() if (root / "README.md").is_file() else ""
    if f"| {game.title} | {game.env_name} |" not in readme:
        found.append(f"no README games-table row starting '| {game.title} | {game.env_name} |'")
    engines = _mutation_engines() if mutation_engines is None else mutation_engines
    if game.engine not in engines:
        found.append(f"tools/mutation.py does not find the engine envs/{game.engine}/game.py")
    return found


GAMES = [pytest.param(GameInfo.of(m), id=m.GAME.name) for m in games()]


@pytest.mark.parametrize("game", GAMES)
def test_registered_game_is_complete(game, wheel_files):
    assert problems(game, wheel_files) == []


def test_wheel_holds_every_package_folder(wheel_files):
    # Every module and py.typed marker of envs/, encoders/, agents/, train/, subfolders included.
    sources = shipped_sources()
    assert len(sources) > 40  # the walk found the code (a wrong root would find nothing)
    missing = sorted(wheel_path(p) for p in sources if wheel_path(p) not in wheel_files)
    assert not missing, f"not in the wheel (add the packages to pyproject.toml): {missing}"


def test_opt_outs_name_registered_games_with_a_reason():
    names = {m.GAME.name for m in games()}
    for game, reason in NO_HEURISTIC.items():
        assert game in names and reason.strip(), game


def test_the_checks_fail_for_a_game_missing_everything(tmp_path, wheel_files):
    # A game registered with nothing around it: every check must say what is missing.
    engine = tmp_path / "envs" / "nogame"
    engine.mkdir(parents=True)
    (engine / "game.py").write_text("")
    (tmp_path / "envs" / "nogame_v0.py").write_text("")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools]\npackage-dir = { "cardzoo.envs" = "envs" }\n'
    )
    game = GameInfo(
        "nogame", "nogame_v0", "No Game", "nogame", [engine / "game.py", engine.parent / "x.py"]
    )
    found = problems(game, wheel_files, tmp_path, {}, {}, mutation_engines=["cubirds"])
    text = "\n".join(found)
    assert "cardzoo/envs/nogame/game.py is not in the wheel" in text
    assert "cardzoo/envs/x.py is not in the wheel" in text
    assert "no heuristic" in text
    assert "docs/rules/nogame.md" in text
    assert "tests/golden/nogame_v0.txt" in text
    assert "README games-table row" in text
    assert "tools/mutation.py does not find the engine envs/nogame" in text
    assert len(found) == 7
    # An explicit opt-out answers the heuristic check.
    found = problems(game, wheel_files, tmp_path, {}, {"nogame": "no strategy known yet"}, [])
    assert not any("heuristic" in p for p in found)


def test_the_wheel_check_sees_a_package_left_out(wheel_files):
    # The wheel is read, not the editable install: a file outside it is reported.
    assert "cardzoo/envs/cubirds/game.py" in wheel_files
    fake = GameInfo.of(games()[0])
    fake.sources.append(ROOT / "envs" / "cubirds" / "not_shipped.py")
    assert problems(fake, wheel_files) == [
        "cardzoo/envs/cubirds/not_shipped.py is not in the wheel: add its package to pyproject.toml"
    ]
