"""``rllib:PATH``: play a policy trained by ``cardzoo train-ray`` (RLlib PPO), without Ray.

``cardzoo train-ray`` exports the trained policy's actor (its dense layers) to ``policy.npz``
(:func:`cardzoo.train.rllib.export_policy`). PATH is that file, the folder holding it, or the run
folder (its ``export/policy.npz``). The actor runs in numpy (:class:`NumpyActor`), so playing it
needs neither Ray nor torch. An export made for another game, player count or encoder version is
refused with an error saying which. The file is read with ``allow_pickle=False``: arrays only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
from cardzoo.agents.policy import NumpyActor, PolicyAgent

EXPORT_FORMAT = "cardzoo-rllib-1"
EXPORT_FILE = "policy.npz"

_CACHE: dict[tuple[str, int], tuple[dict[str, Any], NumpyActor]] = {}


def resolve_export(path: str | os.PathLike) -> Path:
    """The export file for ``path``: the file itself, ``path/policy.npz`` or
    ``path/export/policy.npz`` (a ``train-ray`` run folder)."""
    p = Path(path)
    for candidate in (p, p / EXPORT_FILE, p / "export" / EXPORT_FILE):
        if candidate.is_file():
            return candidate
    if not p.exists():
        raise ValueError(f"no RLlib policy export or run folder at {str(p)!r}")
    raise ValueError(f"{str(p)!r} holds no {EXPORT_FILE} (written by cardzoo train-ray)")


def load_export(path: str | os.PathLike) -> tuple[dict[str, Any], NumpyActor]:
    """(what the policy was trained for, its actor), cached per file and modification time."""
    file = resolve_export(path)
    key = (str(file.resolve()), file.stat().st_mtime_ns)
    hit = _CACHE.get(key)
    if hit is None:
        try:
            with np.load(file, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"]))
                count = sum(1 for name in data.files if name.startswith("w"))
                layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(count)]
        except (OSError, ValueError, KeyError) as err:
            raise ValueError(
                f"{str(file)!r} is not a readable RLlib policy export: {err}"
            ) from None
        if meta.get("format") != EXPORT_FORMAT:
            raise ValueError(f"{str(file)!r} is not a cardzoo RLlib export ({EXPORT_FORMAT})")
        meta["path"] = str(file)
        hit = _CACHE[key] = (meta, NumpyActor(layers, meta["activation"]))
    return hit


class RllibPolicyAgent(PolicyAgent):
    """Plays an exported RLlib policy: its most likely legal action, or a sampled one."""

    kind, counter = "rllib", "iteration"

    @staticmethod
    def _load(path: str | os.PathLike) -> tuple[dict[str, Any], NumpyActor]:
        return load_export(path)

    def _network_input(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation, dtype=np.float32)
        if self.info.get("mask_as_input"):  # the module was trained with the mask as input
            obs = np.concatenate([obs, mask.astype(np.float32)])
        return obs
