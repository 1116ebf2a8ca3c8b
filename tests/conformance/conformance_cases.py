"""The cases every conformance test runs on: each registered env at each player count, plus each
declared variant at the smallest player count. A game added to ``ENV_MODULES`` is covered with no
new test code."""

from __future__ import annotations

from typing import Any

import pytest
from cardzoo.envs import games


def _cases() -> list[Any]:
    cases = []
    for module in games():
        game = module.GAME
        for n in game.player_counts:
            cases.append(pytest.param(module, {"num_players": n}, id=f"{game.env_name}-{n}p"))
        for variant, overrides in game.variants.items():
            n = min(game.player_counts)
            cases.append(
                pytest.param(
                    module, {"num_players": n, **overrides}, id=f"{game.env_name}-{variant}-{n}p"
                )
            )
    return cases


CASES = _cases()


def card_totals(state: Any) -> list[int]:
    """The per-kind card totals an engine's census must add up to."""
    return list(state.card_totals)


def census_sum(state: Any) -> list[int]:
    zones = list(state.census().values())
    return [sum(col) for col in zip(*zones)]
