"""Odin's Ravens rules engine: ``Config``, ``State``, the moves and the game data.

The rooms (the layout every engine folder shares, plus the Odin's Ravens extras):

- ``data.py``          the tables and constants: cards, land pairs, phases, end reason, census kinds
- ``config.py``        the frozen ``Config`` (rule options, §13), its checks, ``card_totals``
- ``moves.py``         the move types, ``MOVES``, ``MOVE_INDEX``, ``NUM_MOVES``, move text
- ``game.py``          ``State``: dealing, the turn, legal moves and applying them, refills, the
                       race end, scoring and the end of the game
- ``plays.py``         (extra) the plays of the play phase (§5): legality and effects, a part
                       of ``State``
- ``odin.py``          (extra) the Odin cards (§6) and the follow-up decisions they open, a
                       part of ``State``
- ``hidden.py``        ``View`` and ``view()``, the public event logs, the exact posterior over
                       a seat's hidden cards (``Belief``) and ``determinize``
- ``hidden_search.py`` (extra) the search fallback when that posterior grows too large even
                       after a cut (see ``hidden.py``)
- ``render.py``        ``render()`` / ``render_for()`` text
- ``positions.py``     hand-set positions: ``from_position``
"""

from cardzoo.envs.odins_ravens.game import (
    Config,
    State,
    View,
    card_totals,
    deal_track,
)
from cardzoo.envs.odins_ravens.moves import (
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    Discard,
    EndTurn,
    Extend,
    Fly,
    Joker,
    MagicWay,
    Move,
    Odin,
    Orient,
    Reorder,
    Stash,
    StoneEntry,
    StoneTarget,
    Target,
)

__all__ = [
    "MOVE_INDEX",
    "MOVES",
    "NUM_MOVES",
    "Config",
    "Discard",
    "EndTurn",
    "Extend",
    "Fly",
    "Joker",
    "MagicWay",
    "Move",
    "Odin",
    "Orient",
    "Reorder",
    "Stash",
    "State",
    "StoneEntry",
    "StoneTarget",
    "Target",
    "View",
    "card_totals",
    "deal_track",
]
