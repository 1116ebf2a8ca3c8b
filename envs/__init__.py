"""cardzoo environments: one PettingZoo AEC env per game, plus the registry.

>>> from cardzoo.envs import cubirds_v0
>>> env = cubirds_v0.env(num_players=3)

or by name: ``cardzoo.envs.make("cubirds", num_players=3)``. Importing this package also registers
every env with PettingZoo's registry (``pettingzoo.make("aec", "cardzoo/cubirds-v0")``) when the
installed PettingZoo has one.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from cardzoo.envs.base import IllegalActionError
from cardzoo.envs.core import IllegalMoveError

#: The package version; pyproject.toml reads it from here (one source).
__version__ = "0.2.0"

__all__ = ["ENV_MODULES", "IllegalActionError", "IllegalMoveError", "games", "load", "make"]

#: Versioned module name of every env, in the order the suite presents them.
ENV_MODULES: tuple[str, ...] = (
    "cubirds_v0",
    "beasty_bar_v0",
    "odins_ravens_v0",
    "sitting_ducks_v0",
)


def load(name: str) -> ModuleType:
    """The env module for ``name``: plain (``"cubirds"``) or versioned (``"cubirds_v0"``)."""
    for module in ENV_MODULES:
        if name == module or name == module.rsplit("_v", 1)[0]:
            return importlib.import_module(f"cardzoo.envs.{module}")
    plain = ", ".join(m.rsplit("_v", 1)[0] for m in ENV_MODULES)
    raise ValueError(f"unknown game {name!r}; available: {plain} (or versioned: {ENV_MODULES})")


def make(name: str, **kwargs: Any) -> Any:
    """Create an env by game name, e.g. ``make("cubirds", num_players=3)``."""
    return load(name).env(**kwargs)


def games() -> list[ModuleType]:
    """Every env module."""
    return [importlib.import_module(f"cardzoo.envs.{m}") for m in ENV_MODULES]


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import register
        from pettingzoo import spec as find_spec
        from pettingzoo.env_registry.exceptions import PettingZooRegistryError
    except ImportError:  # older PettingZoo without a registry
        return
    for module in ENV_MODULES:
        plain, version = module.rsplit("_v", 1)
        env_id = f"cardzoo/{plain}-v{version}"
        try:
            find_spec("aec", env_id)
            continue  # already registered (module re-imported)
        except PettingZooRegistryError:  # not registered yet (name or namespace unknown)
            pass
        register("aec", env_id, entry_point=f"cardzoo.envs.{module}:env")


_register_with_pettingzoo()
