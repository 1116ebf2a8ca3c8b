"""Sitting Ducks Gallery move universe: 110 moves with stable ids, and per-target-mask tables.

Every choice a card offers is part of its move (which card, which slot, which neighbour or
direction); Disorderly Conduckt's new order is chosen in up to five follow-up ``Place`` steps
("which unit goes next"), the sixth unit taking the last slot by itself. ``Discard`` moves are the
forced discard of §5.3, legal exactly when no card in hand is playable.

=======  ======================================================================
id       move
=======  ======================================================================
0-5      Take Aim at slot s
6-11     Shoot slot s
12-16    Double Barrel at slots s and s+1 (s = 0..4)
17-22    Double Barrel at slot s alone (only when no two adjacent slots are free)
23-28    Quick Shot at slot s
29-38    Misfire: target on slot T, hit slot N = T-1 or T+1 (T ascending, then N)
39-43    Two Birds at slots s and s+1 (s = 0..4)
44-48    Bump Left: target on slot s (1..5) moves to s-1
49-53    Bump Right: target on slot s (0..4) moves to s+1
54       Line Forward
55-59    Move Ahead: own unit in slot s (1..5) swaps with slot s-1
60-64    Hang Back: own unit in slot s (0..4) swaps with slot s+1
65-69    Fast Forward: own unit in slot s (1..5) moves to slot 0
70       Disorderly Conduckt (the new order follows as Place steps)
71       Duck Shuffle
72-81    Duck and Cover: own duck in slot i hides under slot j = i-1 or i+1 (i ascending)
82-87    Bottoms Up on slot s
88-93    Place: the unit now in slot j takes the next position of the new order
94-109   Discard a card of kind k (forced: nothing playable)
=======  ======================================================================
"""

from __future__ import annotations

from typing import NamedTuple

from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    BUMP_LEFT,
    BUMP_RIGHT,
    CARD_NAMES,
    DISORDERLY_CONDUCKT,
    DOUBLE_BARREL,
    DUCK_AND_COVER,
    DUCK_SHUFFLE,
    FAST_FORWARD,
    HANG_BACK,
    LINE_FORWARD,
    MISFIRE,
    MOVE_AHEAD,
    NUM_KINDS,
    NUM_SLOTS,
    QUICK_SHOT,
    SHOOT,
    TAKE_AIM,
    TWO_BIRDS,
)


# Moves of different types must never compare equal (plain tuples would: Place(3) == Discard(3)),
# so that each has its own entry in MOVE_INDEX.
def _eq(self, other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self, other: object) -> bool:
    return not _eq(self, other)


def _hash(self) -> int:
    return hash((type(self).__name__, *self))


class Play(NamedTuple):
    """Play a card of kind ``card``; ``slot`` and ``other`` are its choices (see the table)."""

    card: int
    slot: int | None = None
    other: int | None = None

    __eq__, __ne__, __hash__ = _eq, _ne, _hash

    def __str__(self) -> str:
        name = CARD_NAMES[self.card]
        c, s, o = self.card, self.slot, self.other
        if s is None:
            if c == DISORDERLY_CONDUCKT:
                return f"{name} (the new order follows)"
            return name
        if c == TAKE_AIM or c == BOTTOMS_UP:
            return f"{name} on slot {s}"
        if c == SHOOT or c == QUICK_SHOT:
            return f"{name} at slot {s}"
        if c == DOUBLE_BARREL:
            if o is None:
                return f"{name} on slot {s} alone (no two adjacent free slots)"
            return f"{name} on slots {s} and {o}"
        if c == TWO_BIRDS:
            return f"{name} at slots {s} and {o}"
        if c == MISFIRE:
            return f"{name}: target on slot {s}, hit slot {o}"
        if c == BUMP_LEFT or c == BUMP_RIGHT:
            return f"{name}: target from slot {s} to slot {o}"
        if c == MOVE_AHEAD or c == HANG_BACK:
            return f"{name}: own unit in slot {s} swaps with slot {o}"
        if c == FAST_FORWARD:
            return f"{name}: own unit in slot {s} to slot 0"
        if c == DUCK_AND_COVER:
            return f"{name}: own duck in slot {s} hides under slot {o}"
        return f"{name} {s} {o}"


class Place(NamedTuple):
    """Disorderly Conduckt follow-up: the unit now in ``slot`` takes the next new position."""

    slot: int

    __eq__, __ne__, __hash__ = _eq, _ne, _hash

    def __str__(self) -> str:
        return f"new order: the unit in slot {self.slot} goes next"


class Discard(NamedTuple):
    """The forced discard (§5.3) of a card of kind ``card``."""

    card: int

    __eq__, __ne__, __hash__ = _eq, _ne, _hash

    def __str__(self) -> str:
        return f"discard {CARD_NAMES[self.card]} (no card playable)"


Move = Play | Place | Discard

S = NUM_SLOTS


def _build() -> list[Move]:
    moves: list[Move] = []
    moves += [Play(TAKE_AIM, s) for s in range(S)]
    moves += [Play(SHOOT, s) for s in range(S)]
    moves += [Play(DOUBLE_BARREL, s, s + 1) for s in range(S - 1)]
    moves += [Play(DOUBLE_BARREL, s) for s in range(S)]
    moves += [Play(QUICK_SHOT, s) for s in range(S)]
    moves += [Play(MISFIRE, t, n) for t in range(S) for n in (t - 1, t + 1) if 0 <= n < S]
    moves += [Play(TWO_BIRDS, s, s + 1) for s in range(S - 1)]
    moves += [Play(BUMP_LEFT, s, s - 1) for s in range(1, S)]
    moves += [Play(BUMP_RIGHT, s, s + 1) for s in range(S - 1)]
    moves.append(Play(LINE_FORWARD))
    moves += [Play(MOVE_AHEAD, s, s - 1) for s in range(1, S)]
    moves += [Play(HANG_BACK, s, s + 1) for s in range(S - 1)]
    moves += [Play(FAST_FORWARD, s) for s in range(1, S)]
    moves.append(Play(DISORDERLY_CONDUCKT))
    moves.append(Play(DUCK_SHUFFLE))
    moves += [Play(DUCK_AND_COVER, i, j) for i in range(S) for j in (i - 1, i + 1) if 0 <= j < S]
    moves += [Play(BOTTOMS_UP, s) for s in range(S)]
    moves += [Place(j) for j in range(S)]
    moves += [Discard(k) for k in range(NUM_KINDS)]
    return moves


MOVES: tuple[Move, ...] = tuple(_build())
MOVE_INDEX: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}
NUM_MOVES = len(MOVES)

AIM_BASE = 0
SHOOT_BASE = 6
DOUBLE_PAIR_BASE = 12
DOUBLE_SINGLE_BASE = 17
QUICK_BASE = 23
MISFIRE_BASE = 29
TWO_BIRDS_BASE = 39
BUMP_LEFT_BASE = 44  # + s - 1
BUMP_RIGHT_BASE = 49  # + s
LINE_FORWARD_ID = 54
MOVE_AHEAD_BASE = 55  # + s - 1
HANG_BACK_BASE = 60  # + s
FAST_FORWARD_BASE = 65  # + s - 1
DISORDERLY_ID = 70
DUCK_SHUFFLE_ID = 71
COVER_BASE = 72
BOTTOMS_UP_BASE = 82
PLACE_BASE = 88
DISCARD_BASE = 94

assert NUM_MOVES == 110
assert MOVES[MISFIRE_BASE] == Play(MISFIRE, 0, 1) and MOVES[TWO_BIRDS_BASE] == Play(TWO_BIRDS, 0, 1)
assert MOVES[LINE_FORWARD_ID] == Play(LINE_FORWARD) and MOVES[COVER_BASE] == Play(
    DUCK_AND_COVER, 0, 1
)
assert MOVES[PLACE_BASE] == Place(0) and MOVES[DISCARD_BASE] == Discard(0)

#: id -> (card kind, slot, other): -1 where the move has no such choice. Place: kind -1.
DECODE: tuple[tuple[int, int, int], ...] = tuple(
    (
        m.card,
        -1 if m.slot is None else m.slot,
        -1 if m.other is None else m.other,
    )
    if isinstance(m, Play)
    else ((-1, m.slot, -1) if isinstance(m, Place) else (m.card, -1, -1))
    for m in MOVES
)

#: Duck and Cover id of (i, j).
COVER_ID: dict[tuple[int, int], int] = {
    (m.slot, m.other): i
    for i, m in enumerate(MOVES)
    if isinstance(m, Play) and m.card == DUCK_AND_COVER
}
MISFIRE_ID: dict[tuple[int, int], int] = {
    (m.slot, m.other): i for i, m in enumerate(MOVES) if isinstance(m, Play) and m.card == MISFIRE
}


def _by_target_mask(fn) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(fn(m)) for m in range(1 << S))


def _aim(m: int) -> list[int]:
    return [AIM_BASE + s for s in range(S) if not m >> s & 1]


def _shoot(m: int) -> list[int]:
    return [SHOOT_BASE + s for s in range(S) if m >> s & 1]


def _double(m: int) -> list[int]:
    pairs = [DOUBLE_PAIR_BASE + s for s in range(S - 1) if not (m >> s & 3)]
    return pairs or [DOUBLE_SINGLE_BASE + s for s in range(S) if not m >> s & 1]


def _misfire(m: int) -> list[int]:
    return sorted(i for (t, _), i in MISFIRE_ID.items() if m >> t & 1)


def _two_birds(m: int) -> list[int]:
    return [TWO_BIRDS_BASE + s for s in range(S - 1) if m >> s & 3 == 3]


def _bump_left(m: int) -> list[int]:
    return [BUMP_LEFT_BASE + s - 1 for s in range(1, S) if m >> s & 1 and not m >> (s - 1) & 1]


def _bump_right(m: int) -> list[int]:
    return [BUMP_RIGHT_BASE + s for s in range(S - 1) if m >> s & 1 and not m >> (s + 1) & 1]


#: Legal ids of the target cards, indexed by the bitmask of targeted slots (bit s = slot s).
AIM_IDS = _by_target_mask(_aim)
SHOOT_IDS = _by_target_mask(_shoot)
DOUBLE_IDS = _by_target_mask(_double)
MISFIRE_IDS = _by_target_mask(_misfire)
TWO_BIRDS_IDS = _by_target_mask(_two_birds)
BUMP_LEFT_IDS = _by_target_mask(_bump_left)
BUMP_RIGHT_IDS = _by_target_mask(_bump_right)

#: Per card kind, for the cards whose legal ids depend on the targets alone (or on nothing): the
#: ids indexed by the target mask; None for the cards that look at the row.
_ANY_MASK = range(1 << S)
IDS_BY_TARGETS: tuple[tuple[tuple[int, ...], ...] | None, ...] = tuple(
    {
        TAKE_AIM: AIM_IDS,
        SHOOT: SHOOT_IDS,
        DOUBLE_BARREL: DOUBLE_IDS,
        MISFIRE: MISFIRE_IDS,
        TWO_BIRDS: TWO_BIRDS_IDS,
        BUMP_LEFT: BUMP_LEFT_IDS,
        BUMP_RIGHT: BUMP_RIGHT_IDS,
        LINE_FORWARD: tuple((LINE_FORWARD_ID,) for _ in _ANY_MASK),
        DISORDERLY_CONDUCKT: tuple((DISORDERLY_ID,) for _ in _ANY_MASK),
        DUCK_SHUFFLE: tuple((DUCK_SHUFFLE_ID,) for _ in _ANY_MASK),
    }.get(kind)
    for kind in range(NUM_KINDS)
)
