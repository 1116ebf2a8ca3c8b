"""Fixtures shared by test folders."""

from __future__ import annotations

import gc

import pytest


@pytest.fixture
def collections():
    """The generations of the garbage collections that start while the test runs, with the
    collector enabled and a threshold that collects very often (all put back after)."""
    seen: list[int] = []

    def count(phase, info):
        if phase == "start":
            seen.append(info["generation"])

    threshold = gc.get_threshold()
    enabled = gc.isenabled()
    gc.enable()
    gc.set_threshold(5, 1, 1)
    gc.callbacks.append(count)
    try:
        yield seen
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*threshold)
        (gc.enable if enabled else gc.disable)()
