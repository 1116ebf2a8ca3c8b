"""``cardzoo train --config FILE.toml``: the settings of a training run kept in a TOML file.

The file holds the ``train`` command's settings under their flag names (with ``_`` for ``-``):
``game``, ``players``, ``variant``, ``timesteps``, ``envs``, ``seed``, ``out``, ``eval_every``,
``eval_games``, ``checkpoint_every``, ``threads``, ``workers``, ``max_minutes``; any other
:class:`~cardzoo.train.ppo.TrainConfig` setting (``n_steps``, ``net_arch``, ``pool_weights``, ...)
as what ``--set`` takes; and the game's rule options in an ``[options]`` table. Flags given on the
command line override the file (a positional game, a flag, ``--set``, a ``key=value`` rule option).
An unknown key is an error naming it, so a typo never trains with a silently ignored setting.

``--config zoo:NAME`` reads the config shipped with the zoo model NAME (``cardzoo.zoo``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 (the train extra installs tomli there)
    import tomli as tomllib

#: File keys that stand for a flag of ``cardzoo train`` (the attribute of its parsed args).
FLAG_KEYS = (
    "game",
    "players",
    "variant",
    "timesteps",
    "envs",
    "seed",
    "out",
    "eval_every",
    "eval_games",
    "checkpoint_every",
    "threads",
    "workers",
    "max_minutes",
)


def read_config_file(source: str) -> tuple[dict[str, Any], str]:
    """(the parsed TOML table, a name for messages) of ``source``: a path or ``zoo:NAME``."""
    if source.startswith("zoo:"):
        from cardzoo.zoo import config_text

        return _parse(config_text(source[4:]), source), source
    path = Path(source)
    if not path.is_file():
        raise ValueError(f"--config {source!r}: no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"--config {source!r} cannot be read: {err}") from None
    return _parse(text, source), source


def _parse(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"--config {name!r} is not valid TOML: {err}") from None


def apply_config_file(args: argparse.Namespace, config_cls: Any) -> dict[str, Any]:
    """Fill the flags of ``args`` that the command line left unset from ``args.config``.

    Returns the file's other training settings (``--set`` style, checked against
    ``config_cls``'s fields); the caller lets ``--set`` override them. Rule options of the file
    are merged into ``args.options`` (a ``key=value`` on the command line wins).
    """
    from dataclasses import fields

    table, name = read_config_file(args.config)
    settings = {f.name for f in fields(config_cls)} - {"game", "options", *FLAG_KEYS}
    allowed = sorted({*FLAG_KEYS, *settings, "options"})
    unknown = [key for key in table if key not in allowed]
    if unknown:
        raise ValueError(
            f"--config {name!r}: unknown key {unknown[0]!r}; allowed keys: {', '.join(allowed)}"
        )
    if args.resume:
        raise ValueError("--config starts a run; --resume continues one from its own config.json")
    for key in FLAG_KEYS:
        if key in table and getattr(args, key) is None:
            value = table[key]
            if key in ("game", "variant", "out") and not isinstance(value, str):
                raise ValueError(f"--config {name!r}: {key} must be a string, got {value!r}")
            setattr(args, key, value)
    options = table.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"--config {name!r}: options must be a table ([options]), got {options!r}")
    given = {key for key, _ in args.options}
    for key, value in options.items():
        if key == "num_players":
            raise ValueError(f"--config {name!r}: give the player count as players, not options")
        if key not in given:
            args.options.append((key, value))
    return {key: table[key] for key in table if key in settings}
