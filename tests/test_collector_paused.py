"""``cardzoo.envs.core.collector_paused`` (session 31, shared by Cubirds' ``determinize`` and
Odin's Ravens' belief updates): no collection runs inside the wrapped call even with a tiny
threshold, and the collector is left as it was found, also when the call raises."""

from __future__ import annotations

import gc

import pytest
from cardzoo.envs.core import collector_paused


def _allocate(n: int = 2000) -> list:
    """Many small containers, which would bring on collections."""
    return [[i, (i,)] for i in range(n)]


def test_no_collection_runs_inside_and_the_collector_is_enabled_after(collections):
    paused = collector_paused(_allocate)
    collections.clear()
    assert len(paused()) == 2000
    assert collections == []
    assert gc.isenabled()
    _allocate()  # the same work unpaused collects (the check above is not vacuous)
    assert collections


def test_a_disabled_collector_stays_disabled_and_an_error_still_enables_it(collections):
    def fails():
        raise KeyError("boom")

    gc.disable()
    collector_paused(_allocate)()
    assert not gc.isenabled()
    gc.enable()
    with pytest.raises(KeyError):
        collector_paused(fails)()
    assert gc.isenabled()


def test_the_wrapper_keeps_the_name_and_docstring():
    def documented(x: int) -> int:
        """Twice ``x``."""
        return 2 * x

    wrapped = collector_paused(documented)
    assert wrapped(4) == 8
    assert wrapped.__name__ == "documented" and wrapped.__doc__ == "Twice ``x``."
