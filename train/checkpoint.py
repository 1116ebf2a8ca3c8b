"""Writing checkpoints atomically: a temporary file, flushed to disk, then renamed.

Readers (``cardzoo.agents.policy.checkpoint_files``) only list files named ``ckpt-<steps>.pt``,
which exist only once complete, so a crash or Ctrl-C during a write never leaves a half-written
checkpoint as the latest. Everything is stored as tensors and plain data, readable with
``torch.load(weights_only=True)``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch
from cardzoo.agents.policy import CHECKPOINT_DIR, CHECKPOINT_FORMAT, checkpoint_files


def to_torch(obj: Any) -> Any:
    """``obj`` with every numpy array inside dicts, lists and tuples turned into a tensor."""
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_torch(v) for v in obj)
    if isinstance(obj, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(obj))
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def write_checkpoint(
    run_dir: str | os.PathLike, timesteps: int, data: dict[str, Any], keep: int = 3
) -> Path:
    """Write ``data`` as ``<run_dir>/checkpoints/ckpt-<timesteps>.pt``; keep the newest ``keep``."""
    folder = Path(run_dir) / CHECKPOINT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / f"ckpt-{timesteps:012d}.pt"
    payload = {**to_torch(data), "format": CHECKPOINT_FORMAT, "timesteps": int(timesteps)}
    fd, tmp = tempfile.mkstemp(prefix=".ckpt-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            torch.save(payload, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:  # Ctrl-C included: never leave the temporary file behind
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(folder)
    for old in checkpoint_files(run_dir)[:-keep] if keep > 0 else ():
        old.unlink(missing_ok=True)
    return final


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory handles
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
