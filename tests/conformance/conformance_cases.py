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


def _largest_cases() -> list[Any]:
    """Each declared variant and non-default rule-option value again at the game's largest
    player count (where that differs from the smallest and the variant does not fix it): the
    ``determinize`` tests run on these too (issue 16 asks for every variant at every player
    count; the largest is where the hidden state is largest)."""
    cases = []
    for module in games():
        game = module.GAME
        n = max(game.player_counts)
        if n == min(game.player_counts):
            continue
        overrides = [(name, dict(values)) for name, values in game.variants.items()]
        overrides += [
            (f"{option}={value}", {option: value})
            for option, values in game.option_values.items()
            for value in values
        ]
        for name, override in overrides:
            if override.get("num_players", n) != n:
                continue
            config = {**override, "num_players": n}
            cases.append(pytest.param(module, config, id=f"{game.env_name}-{name}-{n}p"))
    return cases


#: ``CASES`` and the variants and options at the largest player count (``_largest_cases``).
DETERMINIZE_CASES = CASES + _largest_cases()


def card_totals(state: Any) -> list[int]:
    """The per-kind card totals an engine's census must add up to."""
    return list(state.card_totals)


def census_sum(state: Any) -> list[int]:
    zones = list(state.census().values())
    return [sum(col) for col in zip(*zones)]
