"""Beasty Bar rules engine: ``Config``, ``State``, the moves and the game data."""

from cardzoo.envs.beasty_bar.game import (
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    Config,
    Move,
    Play,
    SetAside,
    State,
    View,
    card_of,
    card_totals,
)

__all__ = [
    "MOVE_INDEX",
    "MOVES",
    "NUM_MOVES",
    "Config",
    "Move",
    "Play",
    "SetAside",
    "State",
    "View",
    "card_of",
    "card_totals",
]
