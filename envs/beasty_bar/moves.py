"""Beasty Bar moves: the move types, the move universe with its stable ids, and the tables that
turn a position into legal ids and an id back into what it plays.

Move universe (45 moves, ids stable)
------------------------------------
``Play(animal, imitates=None, choice=None)`` plays the hand card of strength ``animal``.
``imitates`` is the species a chameleon copies (``None``: no imitation). ``choice`` is the
kangaroo's jump length (1 or 2) or the parrot's target, given as the **queue position at the
time of play** (0 = next to the gate; the played card itself stands at ``len(queue)``, so targets
are 0..3). ``choice is None`` where there is nothing to choose. ``SetAside(animal)`` is one
pre-game decision of the advanced variant.

=====  ===================================================================
id     move
=====  ===================================================================
0      play Skunk
1      play Parrot (no other animal to expel)   -- only with an empty queue
2-5    play Parrot, expel position 0..3
6      play Kangaroo (no animal to jump)        -- only with an empty queue
7, 8   play Kangaroo, jump 1 / jump 2
9      play Monkey
10     play Chameleon without imitating         -- nothing to copy, or ``chameleon_may_decline``
11     play Chameleon as Skunk
12-15  play Chameleon as Parrot, expel position 0..3
16,17  play Chameleon as Kangaroo, jump 1 / jump 2
18     play Chameleon as Monkey
19-25  play Chameleon as Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
26-32  play Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
33-44  set aside Skunk .. Lion (strength ``id - 32``)
=====  ===================================================================

Every legal (card, choices) combination maps to exactly one id: a kangaroo or parrot played into
an empty queue has its own "nothing to do" id, and a chameleon that does not imitate (nothing to
copy, or a decline) has one id whatever the reason.
"""

from __future__ import annotations

from typing import NamedTuple

from cardzoo.envs.beasty_bar.data import (
    CHAMELEON,
    KANGAROO,
    LION,
    MAX_BEFORE_PLAY,
    NAMES,
    NUM_ANIMALS,
    PARROT,
    QUEUE_SIZE,
    SEAL,
)


class Play(NamedTuple):
    """Play the hand card of strength ``animal``; see the module docstring for the fields."""

    animal: int
    imitates: int | None = None
    choice: int | None = None

    def __str__(self) -> str:
        text = f"play {NAMES[self.animal]}"
        action = self.animal
        if self.animal == CHAMELEON:
            if self.imitates is None:
                return text + " without imitating"
            text += f" as {NAMES[self.imitates]}"
            action = self.imitates
        if action == KANGAROO:
            return text + (
                " (no animal to jump)" if self.choice is None else f", jump {self.choice}"
            )
        if action == PARROT:
            if self.choice is None:
                return text + " (no other animal to expel)"
            return text + f", expel position {self.choice}"
        return text


class SetAside(NamedTuple):
    """Advanced variant (§9): put the animal of strength ``animal`` aside, unseen, for the game."""

    animal: int

    def __str__(self) -> str:
        return f"set aside {NAMES[self.animal]}"


Move = Play | SetAside


def _plays_of(animal: int, imitates: int | None) -> list[Play]:
    """Every ``Play`` of ``animal`` performing the action of ``imitates or animal``, in id order:
    the sub-choices of a parrot (targets 0..3) and a kangaroo (jump 1, 2)."""
    action = imitates or animal
    if action == PARROT:
        return [Play(animal, imitates, t) for t in range(MAX_BEFORE_PLAY)]
    if action == KANGAROO:
        return [Play(animal, imitates, 1), Play(animal, imitates, 2)]
    return [Play(animal, imitates)]


def _build_moves() -> list[Move]:
    moves: list[Move] = []
    for s in range(1, NUM_ANIMALS + 1):
        if s in (PARROT, KANGAROO, CHAMELEON):
            moves.append(Play(s))  # nothing to expel / to jump / to copy
        if s == CHAMELEON:
            for x in range(1, NUM_ANIMALS + 1):
                if x != CHAMELEON:
                    moves += _plays_of(s, x)
        else:
            moves += _plays_of(s, None)
    moves += [SetAside(s) for s in range(1, NUM_ANIMALS + 1)]
    return moves


MOVES: tuple[Move, ...] = tuple(_build_moves())
MOVE_INDEX: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}
NUM_MOVES = len(MOVES)  # 45
NUM_PLAY_MOVES = NUM_MOVES - NUM_ANIMALS  # 33
SET_ASIDE_BASE = NUM_PLAY_MOVES  # SetAside(s) has id SET_ASIDE_BASE + s - 1
CHAMELEON_NO_IMITATION = MOVE_INDEX[Play(CHAMELEON)]
assert NUM_MOVES == 45 and CHAMELEON_NO_IMITATION == 10
assert MOVE_INDEX[Play(CHAMELEON, LION)] == 25 and MOVE_INDEX[Play(SEAL)] == 26

#: id -> (played strength, species whose action is performed (0: none), choice (-1: none)).
DECODE: tuple[tuple[int, int, int], ...] = tuple(
    (
        m.animal,
        (m.imitates or 0) if m.animal == CHAMELEON else m.animal,
        -1 if m.choice is None else m.choice,
    )
    if isinstance(m, Play)
    else (m.animal, 0, -1)
    for m in MOVES
)


def _ids_for(action: int, n: int, chameleon: bool) -> list[int]:
    """Ids of playing ``action`` (own card, or copied by a chameleon) into a queue of length n."""
    animal, imitates = (CHAMELEON, action) if chameleon else (action, None)
    plays = _plays_of(animal, imitates)
    if action == PARROT or action == KANGAROO:
        if n == 0:  # nothing to expel or jump over: only an own card has a move for that
            return [] if chameleon else [MOVE_INDEX[Play(animal)]]
        plays = plays[:n]  # parrot: targets 0..n-1; kangaroo: jumps 1..min(n, 2)
    return [MOVE_INDEX[m] for m in plays]


#: PLAY_IDS[s][n]: ids for playing own species s (not the chameleon) into a queue of length n.
PLAY_IDS = tuple(
    tuple(tuple(_ids_for(s, n, False)) if s else () for n in range(QUEUE_SIZE))
    for s in range(NUM_ANIMALS + 1)
)
#: COPY_IDS[s][n]: ids for a chameleon copying species s with n animals in the queue.
COPY_IDS = tuple(
    tuple(tuple(_ids_for(s, n, True)) if s and s != CHAMELEON else () for n in range(QUEUE_SIZE))
    for s in range(NUM_ANIMALS + 1)
)


def move_from_id(move_id: int) -> Move:
    """The move with this id in the move universe."""
    return MOVES[move_id]
