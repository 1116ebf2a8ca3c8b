"""The model zoo: trained policies shipped with cardzoo, played by the agent spec ``zoo:NAME``.

Each model NAME is two files of this package: ``NAME.pt``, a checkpoint holding only the policy
(no optimizer or opponent pool), and ``NAME.toml``, the config of the run that made it
(``cardzoo train --config zoo/NAME.toml``). They are package data, read through
:mod:`importlib.resources`, so ``zoo:NAME`` works from an installed wheel as from the repository.
docs/zoo.md lists the models, their commands and measured strength.

``python -m cardzoo.zoo list`` shows the models; ``python -m cardzoo.zoo export RUN_DIR OUT.pt``
writes the latest checkpoint of a run as a zoo model file.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import resources
from typing import Any

#: What a zoo model file keeps of a training checkpoint: the policy and what it was made for.
MODEL_KEYS = (
    "format",
    "actor",
    "env_name",
    "game",
    "num_players",
    "encoder",
    "encoder_version",
    "obs_size",
    "num_actions",
    "timesteps",
    "config",
    "evals",
)


def _root() -> Any:
    """Where the models are: this package's files, wherever it is installed."""
    return resources.files(__name__)


def model_names() -> list[str]:
    """The names of the shipped models (each ``NAME.pt`` of this package), sorted."""
    return sorted(p.name[:-3] for p in _root().iterdir() if p.name.endswith(".pt"))


def _resource(name: str, suffix: str) -> Any:
    names = model_names()
    if name not in names:
        raise ValueError(f"no zoo model {name!r}; models: {', '.join(names) or 'none'}")
    return _root() / f"{name}{suffix}"


def config_text(name: str) -> str:
    """The TOML config that made the zoo model ``name``."""
    res = _resource(name, ".toml")
    if not res.is_file():
        raise ValueError(f"zoo model {name!r} ships no config ({name}.toml)")
    return res.read_text(encoding="utf-8")


def model_info(name: str) -> dict[str, Any]:
    """The zoo model ``name`` as stored: what it was made for (``env_name``, ``num_players``,
    ``encoder_version``, ``config``, ...) and its policy (``actor``)."""
    from cardzoo.agents.policy import load_checkpoint

    with resources.as_file(_resource(name, ".pt")) as path:
        return load_checkpoint(path)


def make_zoo_agent(
    name: str, game: str, deterministic: bool = True, seed: int | None = None
) -> Any:
    """A :class:`~cardzoo.agents.policy.PolicyAgent` playing the zoo model ``name`` in ``game``;
    a model made for another game or encoder version is refused (its player count is checked
    when it acts, as for ``ppo:PATH``)."""
    from cardzoo.agents.policy import PolicyAgent

    if not name:
        raise ValueError("agent spec 'zoo:' needs a model name: zoo:NAME (see docs/zoo.md)")
    # as_file: a real file even if the package sits in a zip; the agent loads it at once
    with resources.as_file(_resource(name, ".pt")) as path:
        try:
            return PolicyAgent(path, game, deterministic=deterministic, seed=seed)
        except ValueError as err:
            raise ValueError(f"zoo model {name!r}: {err}") from None


def export_model(run: str | os.PathLike, out: str | os.PathLike) -> dict[str, Any]:
    """Write the latest checkpoint of run folder ``run`` (or a checkpoint file) to ``out`` with
    only the :data:`MODEL_KEYS`; returns what was kept."""
    import torch
    from cardzoo.agents.policy import load_checkpoint

    data = load_checkpoint(run)
    needed = ("actor", "env_name", "num_players", "encoder", "encoder_version")
    missing = [k for k in needed if k not in data]
    if missing:
        raise ValueError(f"{data['path']!r} lacks {missing}: not a policy checkpoint")
    kept = {k: data[k] for k in MODEL_KEYS if k in data}
    torch.save(kept, out)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cardzoo.zoo", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the shipped models")
    p = sub.add_parser("export", help="write a run's latest checkpoint as a zoo model file")
    p.add_argument("run", help="a run folder (its latest checkpoint) or a checkpoint file")
    p.add_argument("out", help="the model file to write, e.g. zoo/NAME.pt")
    args = parser.parse_args(argv)
    try:
        if args.command == "export":
            kept = export_model(args.run, args.out)
            size = os.path.getsize(args.out)
            print(f"{args.out}: {kept['env_name']} {kept['num_players']}p, {kept['timesteps']:,} "
                  f"steps, {size:,} bytes")  # fmt: skip
            return 0
        for name in model_names():
            info = model_info(name)
            print(f"zoo:{name}\t{info['env_name']}\t{info['num_players']}p\t"
                  f"{info['timesteps']:,} steps")  # fmt: skip
        return 0
    except ValueError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
