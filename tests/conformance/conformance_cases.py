"""The cases every conformance test runs on: each registered env at each player count, plus each
declared variant and each non-default rule-option value (``GameSpec.option_values``) at the smallest
player count. A game added to ``ENV_MODULES`` is covered with no new test code."""

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
            config = {"num_players": min(game.player_counts), **overrides}
            n = config["num_players"]
            cases.append(pytest.param(module, config, id=f"{game.env_name}-{variant}-{n}p"))
        for option, values in game.option_values.items():
            n = min(game.player_counts)
            for value in values:
                cases.append(
                    pytest.param(
                        module,
                        {"num_players": n, option: value},
                        id=f"{game.env_name}-{option}={value}-{n}p",
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
