"""Beasty Bar rules engine: ``Config``, ``State``, the moves and the game data.

The rooms:

- ``data.py``: the animals, phase numbers and names, card ids and their tables.
- ``config.py``: the frozen ``Config`` and its validation.
- ``moves.py``: ``Play`` / ``SetAside``, the 45-move universe, its ids and move text.
- ``game.py``: ``State``: dealing, legal moves, the animals' actions, a turn, scoring, the end.
- ``hidden.py``: ``View``, building a seat's view, and the sampling behind ``determinize``.
- ``render.py``: the referee's table and one seat's table as text.
- ``positions.py``: hand-set positions (``State.from_position``).
"""

from cardzoo.envs.beasty_bar.config import Config
from cardzoo.envs.beasty_bar.data import card_of
from cardzoo.envs.beasty_bar.game import State, card_totals
from cardzoo.envs.beasty_bar.hidden import View
from cardzoo.envs.beasty_bar.moves import MOVE_INDEX, MOVES, NUM_MOVES, Move, Play, SetAside

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
