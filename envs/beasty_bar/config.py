"""Beasty Bar ``Config``: every rule option of the rules doc (§14), validated."""

from __future__ import annotations

from dataclasses import dataclass

from cardzoo.envs.beasty_bar.data import MAX_PLAYERS, MIN_PLAYERS, SET_ASIDE_OPTIONS
from cardzoo.envs.core import check_first_player, check_int_range, check_option, normalize_config


@dataclass(frozen=True)
class Config:
    """Every rule option of Beasty Bar (rules doc §14), with its documented default.

    ``max_turns`` is the environment's truncation cap (a game always ends after ``12 * N`` turns,
    so the default never truncates).
    """

    num_players: int = 2
    first_player: int | str = "random"
    scoring: str = "count"
    set_aside: int = 0
    chameleon_may_decline: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        normalize_config(self)
        check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_first_player(self.first_player, self.num_players)
        check_option("scoring", self.scoring, ["count", "points"])
        check_option("set_aside", self.set_aside, list(SET_ASIDE_OPTIONS))
        check_option("chameleon_may_decline", self.chameleon_may_decline, [False, True])
        check_int_range("max_turns", self.max_turns, 1)
