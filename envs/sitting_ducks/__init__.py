"""Sitting Ducks Gallery rules engine: ``Config``, ``State``, the moves and the game data.

The rooms (the common engine layout):

- ``data.py``: card counts, names, phases and the other tables of the game.
- ``config.py``: the frozen ``Config``, its validation and the variants.
- ``moves.py``: the move types, ``MOVES`` / ``MOVE_INDEX`` and the per-card id tables.
- ``game.py``: ``State``, the rules: dealing, legal moves, card effects, turns, the end.
- ``hidden.py``: ``View``, what each seat may see, and what a forced discard tells the others.
- ``exact.py`` (extra room): ``State.determinize``'s exact sampler before the first reshuffle
  of the action cards, and the cache and dispatch of the exact samplers.
- ``reshuffled.py`` (extra room): the exact sampler after reshuffles.
- ``crowded.py``: its chain at 5-6 players, built from only the splits the record allows.
- ``grouping.py``: the sweep's grouping of rows by one sort of integer codes.
- ``now.py``: the other seats' hands now after a reshuffle, by exact rejection.
- ``sampling.py`` (extra room): the replay behind ``State.determinize`` where the exact samplers
  decline (rare; its replay and complete search).
- ``render.py``: the text of a whole state and of one seat's view.
- ``positions.py``: hand-set positions (``State.from_position``).
- ``units.py`` (extra room): the row's units, one small int per slot, and their lookup tables.
- ``effects.py`` (extra room): the action cards' effects on the row, targets and duck deck.
"""

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
