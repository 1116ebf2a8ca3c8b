"""Cubirds rules engine: ``Config``, ``State``, the moves and the game data."""

from cardzoo.envs.cubirds.game import (
    CARD_TOTALS,
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    Config,
    Draw,
    Flock,
    Lay,
    Move,
    State,
    View,
)

__all__ = [
    "CARD_TOTALS",
    "MOVE_INDEX",
    "MOVES",
    "NUM_MOVES",
    "Config",
    "Draw",
    "Flock",
    "Lay",
    "Move",
    "State",
    "View",
]
