"""Cubirds' seat chains keep each state's choices by the prefix's *shape* (issue 16,
:mod:`.hidden_chain`): the weight of the open species changes at nearly every position of a
game, the choices, the states and the limits do not. A chain whose tilt changed must list no
choice again, and still count, fit its limits and sample bit for bit like a chain built on an
empty table. A shape that leaves out something the choices depend on makes the two differ."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.cubirds import hidden_chain
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from test_cubirds_chain_reuse import chains_along


def _samples(chain: SeatChain) -> list:
    rng = np.random.default_rng(5)
    return [chain.sample_counts(rng) for _ in range(4)]


def _other_tilts(tilt: list[float]) -> list[list[float]]:
    """Tilts a later position could bring: a few cards fewer of some species, one species
    gone, every species alike."""
    fewer = [max(t - (s % 3), 0.0) for s, t in enumerate(tilt)]
    gone = [0.0 if s == max(range(8), key=lambda i: tilt[i]) else t for s, t in enumerate(tilt)]
    return [fewer, gone, [1.0] * 8]


@pytest.mark.parametrize("n", [3, 4])
def test_a_new_tilt_lists_no_choice_again_and_counts_like_a_cold_chain(n, monkeypatch):
    listed = []
    shape = SeatChain._shape
    monkeypatch.setattr(
        SeatChain, "_shape", lambda self, r, needs: listed.append(r) or shape(self, r, needs)
    )
    compared = 0
    hidden_chain.clear_tables()  # kept along the game: shapes of different chains meet there
    for sizes, labels, req, tilt in chains_along(n, 41, every=3):
        ok = SeatChain(sizes, labels, req, tilt).build()
        for other in _other_tilts(tilt):
            del listed[:]
            warm = SeatChain(sizes, labels, req, other)
            assert warm.build() == ok
            assert not listed  # every state's choices came from its shape
            saved = hidden_chain._TABLES
            hidden_chain.clear_tables()
            cold = SeatChain(sizes, labels, req, other)
            assert cold.build() == ok
            if ok:
                assert warm.total == cold.total  # bit for bit
                if cold.total > 0.0:
                    assert _samples(warm) == _samples(cold)
            for limit in (3, 12):
                assert SeatChain(sizes, labels, req, other).build(max_states=limit) == (
                    SeatChain(sizes, labels, req, tilt).build(max_states=limit)
                )
            hidden_chain._TABLES = saved
            compared += ok
    assert compared >= 20


def _random_chain(rng: np.random.Generator) -> tuple:
    """A seat's boxes with random sizes and random closed intervals on the first species."""
    n = int(rng.integers(2, 6))
    sizes = [int(v) for v in rng.integers(1, 5, n)]
    req: list[int] = []
    labels = [[-1] * 8 for _ in range(n)]
    for s in range(4):
        g = 0
        while g < n:
            end = int(rng.integers(g, n)) + 1
            if rng.random() < 0.6:
                room = sum(sizes[g:end])
                req.append(int(rng.integers(0, room // 2 + 1)))
                for b in range(g, end):
                    labels[b][s] = len(req) - 1
            g = end
    tilt = [float(v) for v in rng.integers(0, 4, 8)]
    return sizes, [tuple(lab) for lab in labels], req, tilt


def test_chains_of_different_shapes_share_no_choices():
    """Random chains on one table (many share their labels but not their sizes, or the
    reverse), each against a cold build."""
    rng = np.random.default_rng(3)
    hidden_chain.clear_tables()
    compared = 0
    for _ in range(300):
        args = _random_chain(rng)
        warm = SeatChain(*args)
        ok = warm.build()
        saved = hidden_chain._TABLES
        hidden_chain.clear_tables()
        cold = SeatChain(*args)
        assert cold.build() == ok
        if ok and cold.total > 0.0:
            assert warm.total == cold.total
            assert _samples(warm) == _samples(cold)
            compared += 1
        hidden_chain._TABLES = saved
    assert compared >= 100
