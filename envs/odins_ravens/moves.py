"""Odin's Ravens move universe: 264 moves with stable ids (the action ids of the env).

A turn is a sequence of decisions by one player. Moves carry no land type where the rules fix it:
"fly" always pays for the next space of the mover's path, whose type ``t`` is known. A payment
that takes ``aux`` cards takes the **top** ``aux`` cards of the auxiliary deck and the rest from
the hand; which role each card plays follows from the multiset of the payment, so the pair
(payment, ``aux``) names exactly one way to pay.

=========  ============================================================================
ids        move
=========  ============================================================================
0..8       ``Stash(kind)``: hand card of that kind onto the auxiliary deck
9, 10      ``Fly(aux)``: one card of type t, from hand (aux=0) or the auxiliary top (1)
11..25     ``Joker(kind, aux)``: a pair of ``kind`` pays for the next space; id 11+3*kind+aux
26..28     ``StoneEntry((), aux)``: two cards of type t; id 26+aux (aux 0..2)
29..48     ``StoneEntry((j,), aux)``: one card of type t and a pair of j; id 29+4*j+aux
49..93     ``StoneEntry((j, j2), aux)``: pairs of j and j2 (j <= j2), aux 1..3
           (4 cards never come from the hand alone); id 49 + 3*pair_kind(j, j2) + aux-1
94..102    ``MagicWay(kind)``: that hand card into the Magic Way row
103        ``MagicWay(None)``: the auxiliary top card into the Magic Way row
104..112   ``Discard(kind)``: that hand card onto the discard pile, without effect
113        ``Discard(None)``: the auxiliary top card, without effect
114..129   ``Odin(odin, option, from_aux)``: id 114 + 4*odin + 2*option + from_aux
           (odin 0..3 = O1..O4, option 0 = A, 1 = B)
130        ``EndTurn()``
131, 132   ``Extend(False)``, ``Extend(True)``: after the plays, extend the path or not
133, 134   ``Orient(False)``, ``Orient(True)``: attach the land card just drawn with the
           lower (False) or the higher (True) of its two land types on the mover's path
135..143   ``Reorder(kind)``: O2-A, the next card from the top of the new order
144..183   ``Target(card)``: O3-A/O3-B/O4-B target land card 0..39
184..263   ``StoneTarget(card, own_path)``: O4-A target space; id 184 + 2*card + (0 own, 1 other)
=========  ============================================================================
"""

from __future__ import annotations

from typing import NamedTuple

from cardzoo.envs.core import typed_eq as _typed_eq
from cardzoo.envs.core import typed_hash as _typed_hash
from cardzoo.envs.core import typed_ne as _typed_ne
from cardzoo.envs.odins_ravens.data import (
    KIND_NAMES,
    LAND_LETTERS,
    NUM_KINDS,
    NUM_LAND_CARDS,
    NUM_ODIN,
    NUM_TYPES,
    ODIN_OPTIONS,
    PAIR_KIND,
    PAIRS,
)


def _source(from_aux: bool | int) -> str:
    return "the auxiliary top" if from_aux else "hand"


class Stash(NamedTuple):
    """Put a hand card of ``kind`` face down on top of the own auxiliary deck."""

    kind: int

    def __str__(self) -> str:
        return f"stash {KIND_NAMES[self.kind]} on the auxiliary deck"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Fly(NamedTuple):
    """Pay one flight card of the next space's type (from hand, or the auxiliary top)."""

    aux: int

    def __str__(self) -> str:
        return f"fly, paying 1 matching card from {_source(self.aux)}"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Joker(NamedTuple):
    """Fly paying a pair of flight cards of ``kind``; ``aux`` of them from the auxiliary top."""

    kind: int
    aux: int

    def __str__(self) -> str:
        return f"fly with a joker pair of {KIND_NAMES[self.kind]} ({self.aux} from the aux deck)"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class StoneEntry(NamedTuple):
    """Enter the stone's space: two payments, ``pairs`` of them joker pairs (types listed)."""

    pairs: tuple[int, ...]
    aux: int

    def __str__(self) -> str:
        if not self.pairs:
            pay = "2 matching cards"
        elif len(self.pairs) == 1:
            pay = f"1 matching card + a pair of {LAND_LETTERS[self.pairs[0]]}"
        else:
            pay = f"pairs of {LAND_LETTERS[self.pairs[0]]} and {LAND_LETTERS[self.pairs[1]]}"
        return f"enter the stone's space paying {pay} ({self.aux} from the aux deck)"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class MagicWay(NamedTuple):
    """Play a card into the own Magic Way row: a hand card of ``kind``, or (None) the aux top."""

    kind: int | None

    def __str__(self) -> str:
        card = "the auxiliary top card" if self.kind is None else KIND_NAMES[self.kind]
        return f"play {card} to the Magic Way"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Discard(NamedTuple):
    """Discard a hand card of ``kind`` (or, None, the aux top card) without effect."""

    kind: int | None

    def __str__(self) -> str:
        card = "the auxiliary top card" if self.kind is None else KIND_NAMES[self.kind]
        return f"discard {card} without effect"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Odin(NamedTuple):
    """Play Odin card ``odin`` (0..3 = O1..O4) for ``option`` (0 = A, 1 = B)."""

    odin: int
    option: int
    from_aux: int

    def __str__(self) -> str:
        letter = "AB"[self.option]
        what = ODIN_OPTIONS[(self.odin, self.option)]
        return f"play O{self.odin + 1} from {_source(self.from_aux)}, option {letter}: {what}"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class EndTurn(NamedTuple):
    """No more plays this turn."""

    def __str__(self) -> str:
        return "end the plays of this turn"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Extend(NamedTuple):
    """After the plays: take the top land card to extend the path (True) or not."""

    extend: bool

    def __str__(self) -> str:
        return "extend the path by one land card" if self.extend else "do not extend the path"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Orient(NamedTuple):
    """Attach the drawn land card with its higher (True) or lower land type on my own path."""

    high_mine: bool

    def __str__(self) -> str:
        which = "higher" if self.high_mine else "lower"
        return f"attach the land card with its {which}-numbered land type on my path"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Reorder(NamedTuple):
    """O2-A: the next card (from the top) of the rearranged auxiliary deck is of ``kind``."""

    kind: int

    def __str__(self) -> str:
        return f"rearrange: next card from the top is {KIND_NAMES[self.kind]}"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class Target(NamedTuple):
    """The land card ``card`` as the target of O3-A, O3-B or one of O4-B's two cards."""

    card: int

    def __str__(self) -> str:
        return f"target land card {self.card}"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


class StoneTarget(NamedTuple):
    """O4-A: put the stone on card ``card``, on the mover's own path (True) or the other one."""

    card: int
    own_path: bool

    def __str__(self) -> str:
        path = "my path" if self.own_path else "the opponent's path"
        return f"put the stone on land card {self.card}, {path}"

    __eq__, __ne__, __hash__ = _typed_eq, _typed_ne, _typed_hash


Move = (
    Stash
    | Fly
    | Joker
    | StoneEntry
    | MagicWay
    | Discard
    | Odin
    | EndTurn
    | Extend
    | Orient
    | Reorder
    | Target
    | StoneTarget
)

STASH = 0
FLY = 9
JOKER = 11
ENTRY2 = 26
ENTRY3 = 29
ENTRY4 = 49
MAGIC_WAY = 94
MAGIC_WAY_AUX = 103
DISCARD = 104
DISCARD_AUX = 113
ODIN = 114
END_TURN = 130
EXTEND_NO, EXTEND_YES = 131, 132
ORIENT_LOW, ORIENT_HIGH = 133, 134
REORDER = 135
TARGET = 144
STONE_TARGET = 184
MAX_TRACK = NUM_LAND_CARDS  # the row never holds more than every land card
NUM_MOVES = STONE_TARGET + 2 * MAX_TRACK  # 264


def _build() -> list[Move]:
    moves: list[Move] = [Stash(k) for k in range(NUM_KINDS)]
    moves += [Fly(0), Fly(1)]
    moves += [Joker(j, a) for j in range(NUM_TYPES) for a in range(3)]
    moves += [StoneEntry((), a) for a in range(3)]
    moves += [StoneEntry((j,), a) for j in range(NUM_TYPES) for a in range(4)]
    moves += [StoneEntry(pair, a) for pair in PAIRS for a in (1, 2, 3)]
    moves += [MagicWay(k) for k in range(NUM_KINDS)] + [MagicWay(None)]
    moves += [Discard(k) for k in range(NUM_KINDS)] + [Discard(None)]
    moves += [Odin(o, opt, src) for o in range(NUM_ODIN) for opt in (0, 1) for src in (0, 1)]
    moves += [EndTurn(), Extend(False), Extend(True), Orient(False), Orient(True)]
    moves += [Reorder(k) for k in range(NUM_KINDS)]
    moves += [Target(c) for c in range(MAX_TRACK)]
    moves += [StoneTarget(c, own) for c in range(MAX_TRACK) for own in (True, False)]
    return moves


MOVES: tuple[Move, ...] = tuple(_build())
MOVE_INDEX: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}


class Payment(NamedTuple):
    """A movement payment: ``singles`` cards of the target type, joker ``pairs``, ``aux`` count."""

    singles: int
    pairs: tuple[int, ...]
    aux: int
    entry: bool  # a stone entry (the stone must be on the next space) or a plain fly


#: Payment of every movement move id (9..93); None elsewhere.
PAYMENTS: tuple[Payment | None, ...] = tuple(
    Payment(1, (), m.aux, False)
    if isinstance(m, Fly)
    else Payment(0, (m.kind,), m.aux, False)
    if isinstance(m, Joker)
    else Payment(2 - len(m.pairs), m.pairs, m.aux, True)
    if isinstance(m, StoneEntry)
    else None
    for m in MOVES
)

assert len(MOVES) == NUM_MOVES == 264 and len(MOVE_INDEX) == NUM_MOVES
assert MOVE_INDEX[Joker(4, 2)] == JOKER + 14 and MOVE_INDEX[StoneEntry((4,), 3)] == ENTRY3 + 19
assert MOVE_INDEX[StoneEntry((0, 0), 1)] == ENTRY4 and MOVES[MAGIC_WAY - 1] == StoneEntry((4, 4), 3)
assert MOVE_INDEX[StoneEntry((1, 3), 2)] == ENTRY4 + 3 * PAIR_KIND[1][3] + 1
assert MOVE_INDEX[MagicWay(None)] == MAGIC_WAY_AUX and MOVE_INDEX[Discard(None)] == DISCARD_AUX
assert MOVE_INDEX[Odin(3, 1, 1)] == END_TURN - 1 and MOVE_INDEX[Reorder(0)] == REORDER
assert MOVE_INDEX[Target(0)] == TARGET and MOVE_INDEX[StoneTarget(39, False)] == NUM_MOVES - 1
