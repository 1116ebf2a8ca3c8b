"""Helpers shared by the tests of ``cardzoo.train`` (imported by name: pytest puts this folder on
the path, as for ``tests/odins_ravens/ravens_helpers.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.agents.policy import NumpyActor
from cardzoo.train.cli import main


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``cardzoo ARGV`` in this process: exit code, stdout, stderr."""
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def tiny_actor(obs_size: int, num_actions: int, seed: int = 0) -> NumpyActor:
    """A small random tanh policy network (16 hidden units), for tests that need any policy."""
    rng = np.random.default_rng(seed)
    return NumpyActor(
        [
            (rng.normal(0, 0.3, (obs_size, 16)), rng.normal(0, 0.1, 16)),
            (rng.normal(0, 0.3, (16, num_actions)), rng.normal(0, 0.1, num_actions)),
        ],
        "tanh",
    )
