"""Cubirds rules engine: ``Config``, ``State``, the moves and the game data.

The rooms of the package:

- ``data.py``: species, card counts, flock sizes, phases, end reasons, the log's event tags;
- ``config.py``: the frozen ``Config`` (every rule option) and its validation;
- ``moves.py``: the move types, the move universe and the move ids;
- ``game.py``: ``State``, the rules: dealing, legal moves, applying moves, scoring, the end;
- ``hidden.py``: ``View``, each seat's knowledge of the draw pile, and ``determinize``;
- ``hidden_replay.py``: the replay of the hidden-card log that ``determinize`` samples from;
- ``flow.py``: a small max-flow with lower bounds, for the replay's exact stages;
- ``render.py``: the referee's and one seat's text;
- ``positions.py``: hand-set positions (``State.from_position``).
"""

from cardzoo.envs.cubirds.config import Config
from cardzoo.envs.cubirds.data import CARD_TOTALS
from cardzoo.envs.cubirds.game import State
from cardzoo.envs.cubirds.hidden import View
from cardzoo.envs.cubirds.moves import MOVE_INDEX, MOVES, NUM_MOVES, Draw, Flock, Lay, Move

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
