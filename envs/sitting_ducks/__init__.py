"""Sitting Ducks Gallery rules engine: ``Config``, ``State``, the moves and the game data."""

from cardzoo.envs.sitting_ducks.config import Config
from cardzoo.envs.sitting_ducks.game import State, View, card_totals
from cardzoo.envs.sitting_ducks.moves import (
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    Discard,
    Move,
    Place,
    Play,
)

__all__ = [
    "MOVE_INDEX",
    "MOVES",
    "NUM_MOVES",
    "Config",
    "Discard",
    "Move",
    "Place",
    "Play",
    "State",
    "View",
    "card_totals",
]
