"""No ``cardzoo.train`` module reaches into the private names of ``cardzoo.envs`` or
``cardzoo.encoders`` (issue 15): the training code uses only what the envs and encoders publish, so
their internals can change without breaking it. The check reads every module's source (``ast``),
so a private import inside a function counts too."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import cardzoo.train
import pytest

GUARDED = ("cardzoo.envs", "cardzoo.encoders")


def _guarded(module: str) -> bool:
    return any(module == g or module.startswith(g + ".") for g in GUARDED)


def _private(name: str) -> bool:
    """A leading underscore, except dunders (``__version__`` is public by convention)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_parts(dotted: str) -> list[str]:
    return [part for part in dotted.split(".") if _private(part)]


def private_uses(source: str, filename: str = "<source>") -> list[str]:
    """Every private name of a guarded package that ``source`` imports or reads, as text."""
    tree = ast.parse(source, filename)
    found: list[str] = []
    modules: dict[str, str] = {}  # local name -> guarded module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not _guarded(alias.name):
                    continue
                if _private_parts(alias.name):
                    found.append(f"line {node.lineno}: import {alias.name}")
                if alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if not _guarded(node.module):
                continue
            if _private_parts(node.module):
                found.append(f"line {node.lineno}: from {node.module} import ...")
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {node.module} import {alias.name}")
                else:  # maybe a submodule (from cardzoo.envs import base): watch its attributes
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    # Attribute reads through a bound module or the full dotted path: base._win_loss,
    # cardzoo.envs.base._win_loss.
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            target = ast.unparse(node.value)
            if target in modules or _guarded(target):
                found.append(f"line {node.lineno}: {target}.{node.attr}")
    return found


def _train_modules() -> list[Path]:
    root = Path(cardzoo.train.__file__).parent
    names = [m.name for m in pkgutil.walk_packages([str(root)])]
    paths = [root / "__init__.py"]
    for name in names:
        path = root.joinpath(*name.split("."))
        paths.append(path / "__init__.py" if path.is_dir() else path.with_suffix(".py"))
    return paths


def test_every_train_module_is_walked():
    names = {p.name for p in _train_modules()}
    # The modules that use the envs most must be among those checked (the walk finds files).
    assert {"vec_env.py", "tournament.py", "evaluate.py", "opponents.py", "cli.py"} <= names


@pytest.mark.parametrize("path", _train_modules(), ids=lambda p: p.name)
def test_train_module_imports_no_private_name_of_envs_or_encoders(path):
    found = private_uses(path.read_text(), str(path))
    assert not found, f"{path.name} uses private names of {' / '.join(GUARDED)}: {found}"


@pytest.mark.parametrize(
    "source",
    [
        "from cardzoo.envs.base import _win_loss",
        "from cardzoo.encoders.base import Encoder, _helper as h",
        "def f():\n    from cardzoo.envs.cubirds import _belief",
        "import cardzoo.envs._private",
        "from cardzoo.envs import base\nbase._win_loss(1, 2)",
        "import cardzoo.envs.base as b\nb._win_loss(1, 2)",
        "import cardzoo.envs.base\ncardzoo.envs.base._win_loss(1, 2)",
    ],
)
def test_the_check_finds_private_uses(source):
    assert private_uses(source)


@pytest.mark.parametrize(
    "source",
    [
        "from cardzoo.envs.outcome import outcome",
        "from cardzoo.train.pool import _private",  # train's own internals are its business
        "from cardzoo.envs import load\nload('cubirds').env()._cumulative_rewards",
        "import numpy as np\nnp._NoValue",
        "from cardzoo.envs import __version__",
    ],
)
def test_the_check_allows_public_uses(source):
    assert private_uses(source) == []
