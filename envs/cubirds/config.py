"""Cubirds configuration: every rule option of the rules spec (§12) and its validation."""

from __future__ import annotations

from dataclasses import dataclass

from cardzoo.envs.core import check_first_player, check_int_range, check_option, normalize_config
from cardzoo.envs.cubirds.data import MAX_PLAYERS, MIN_PLAYERS


@dataclass(frozen=True)
class Config:
    """Every rule option of the Cubirds rules spec (§12), with its documented default."""

    num_players: int = 2
    first_player: int | str = "random"
    draw_after_empty_hand: bool = False
    midturn_exhaustion: str = "end_game"
    reveal_round_end_discards: bool = True
    flock_step: str = "auto"
    max_turns: int = 1000

    def __post_init__(self) -> None:
        normalize_config(self)
        check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_first_player(self.first_player, self.num_players)
        check_option("draw_after_empty_hand", self.draw_after_empty_hand, [False, True])
        check_option("midturn_exhaustion", self.midturn_exhaustion, ["end_game", "partial"])
        check_option("reveal_round_end_discards", self.reveal_round_end_discards, [True, False])
        check_option("flock_step", self.flock_step, ["auto", "always"])
        check_int_range("max_turns", self.max_turns, 1)
