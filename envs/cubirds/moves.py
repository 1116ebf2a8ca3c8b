"""Cubirds moves: the three move types, the move universe (``MOVES``, ``MOVE_INDEX``) and the
move ids the engine's hot path works with.

A turn is a sequence of decisions by the same player, each one move:

========  =====================================================  =========================
phase     legal moves                                            move ids
========  =====================================================  =========================
lay       ``Lay(species, row, end)`` for every species in hand   ``species*8 + row*2 + end``
draw      ``Draw(False)`` (decline), ``Draw(True)`` (take 2)     64, 65
flock     ``Flock(species)`` with hand count >= small flock,     ``66 + species``; pass 74
          or ``Flock(None)`` (pass)
========  =====================================================  =========================
"""

from __future__ import annotations

from typing import NamedTuple

from cardzoo.envs.core import typed_eq as _typed_eq
from cardzoo.envs.core import typed_hash as _typed_hash
from cardzoo.envs.core import typed_ne as _typed_ne
from cardzoo.envs.cubirds.data import NUM_ROWS, NUM_SPECIES, SPECIES_NAMES

LEFT, RIGHT = 0, 1
END_NAMES = ("left", "right")


def _plural(species: int) -> str:
    return SPECIES_NAMES[species] + "s"


class Lay(NamedTuple):
    """Phase 1: lay all cards of ``species`` in hand at one ``end`` (0 left, 1 right) of ``row``."""

    species: int
    row: int
    end: int

    def __str__(self) -> str:
        return f"lay all {_plural(self.species)} at the {END_NAMES[self.end]} end of row {self.row}"


class Draw(NamedTuple):
    """After a lay that captured nothing: take the top 2 draw-pile cards (True) or decline."""

    take: bool

    def __str__(self) -> str:
        return "take the top 2 cards of the draw pile" if self.take else "decline the 2-card draw"

    # As plain tuples Draw(True) == Flock(1) (True == 1), which broke MOVE_INDEX: compare by type.
    __eq__ = _typed_eq
    __ne__ = _typed_ne
    __hash__ = _typed_hash


class Flock(NamedTuple):
    """Phase 2: complete a flock of ``species`` (reveal all of them), or pass (``None``)."""

    species: int | None

    def __str__(self) -> str:
        if self.species is None:
            return "pass (complete no flock)"
        return f"complete a flock of {_plural(self.species)}"

    __eq__ = _typed_eq
    __ne__ = _typed_ne
    __hash__ = _typed_hash


Move = Lay | Draw | Flock

NUM_LAY_MOVES = NUM_SPECIES * NUM_ROWS * 2
DECLINE_DRAW = NUM_LAY_MOVES  # 64
TAKE_DRAW = NUM_LAY_MOVES + 1  # 65
FLOCK_BASE = NUM_LAY_MOVES + 2  # 66..73
PASS_FLOCK = FLOCK_BASE + NUM_SPECIES  # 74
NUM_MOVES = PASS_FLOCK + 1  # 75

MOVES: tuple[Move, ...] = (
    *(Lay(s, r, e) for s in range(NUM_SPECIES) for r in range(NUM_ROWS) for e in (LEFT, RIGHT)),
    Draw(False),
    Draw(True),
    *(Flock(s) for s in range(NUM_SPECIES)),
    Flock(None),
)
MOVE_INDEX: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}
assert len(MOVES) == NUM_MOVES and MOVE_INDEX[Lay(2, 1, RIGHT)] == 2 * 8 + 1 * 2 + 1
assert len(MOVE_INDEX) == NUM_MOVES and MOVE_INDEX[Draw(True)] == TAKE_DRAW

# The 8 lay ids of one species, prebuilt so legal_move_ids() only concatenates lists.
LAY_IDS = tuple(list(range(s * 8, s * 8 + 8)) for s in range(NUM_SPECIES))


def move_from_id(move_id: int) -> Move:
    """The move with this id in the move universe."""
    return MOVES[move_id]
