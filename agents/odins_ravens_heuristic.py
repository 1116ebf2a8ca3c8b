"""A simple, fast Odin's Ravens heuristic: greedy flying, then spare cards to good use.

The agent reads only what its seat may see, all of it from its
:class:`~cardzoo.agents.base.Seat` handle: the seat's ``view()`` (track, ravens, stone, Magic
Way, pile sizes, totals, its own hand and auxiliary deck) and the legal moves. It never looks at
the opponent's cards or any pile order (its tests check that its choice is the same in every
``determinize``-d world).

Each decision, in the play phase, takes the first that applies:

1. **Finish the race** if a legal move puts my raven on the last card (a flight, O1-B, or O3-B
   removing the empty last card while I stand just before it).
2. **Clear or dodge the stone** on my next space with O4-A (onto the opponent's path, right in
   front of its raven when possible) rather than paying twice.
3. **Fly** as far as possible: the flight (single card, joker pair or stone entry) with the most
   spaces gained, then fewer cards, preferring the auxiliary top (it frees the next aux card)
   and single cards over jokers.
4. **Odin cards where they gain most**: O4-A to block the opponent's next space, O1-A when it is
   ahead of or level with me, O1-B when I cannot fly, O3-B to remove an empty card ahead of me
   that my hand cannot pay when I lead, O2-B to lengthen the track when I am behind by 3+,
   O2-A when a card I need lies below the aux top.
5. **Feed the Magic Way** with spare cards (not needed for the next spaces of my path) while
   my row is not clearly ahead.
6. **Stash** spare cards matching the coming spaces of my path (nearest last, so it ends on top).
7. **End the turn.** Then extend the path only when behind; orient a new land card to continue
   a group on my path (or give me a type I hold) and break one on the opponent's.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from cardzoo.agents.base import Seat, SeatAgent
from cardzoo.envs.odins_ravens.data import (
    EXTEND,
    NUM_KINDS,
    NUM_ODIN,
    NUM_TYPES,
    ODIN_BASE,
    OP_REMOVE,
    OP_ROTATE,
    ORIENT,
    PLAY,
    REARRANGE,
    TARGET_CARD,
    TARGET_SPACE,
)
from cardzoo.envs.odins_ravens.moves import (
    MAX_TRACK,
    MOVE_INDEX,
    MOVES,
    PAYMENTS,
    EndTurn,
    Extend,
    Fly,
    Joker,
    MagicWay,
    Odin,
    Orient,
    Reorder,
    Stash,
    StoneEntry,
    StoneTarget,
    Target,
)

LOOKAHEAD = 6  # spaces of my path whose land types I keep cards for


# Move ids by name (looked up once in MOVE_INDEX: the agent runs in the inner loop of training).
END_TURN = MOVE_INDEX[EndTurn()]
EXTEND_NO, EXTEND_YES = MOVE_INDEX[Extend(False)], MOVE_INDEX[Extend(True)]
ORIENT_LOW, ORIENT_HIGH = MOVE_INDEX[Orient(False)], MOVE_INDEX[Orient(True)]
MAGIC_WAY_AUX = MOVE_INDEX[MagicWay(None)]
STASH_IDS = tuple(MOVE_INDEX[Stash(k)] for k in range(NUM_KINDS))
MAGIC_WAY_IDS = tuple(MOVE_INDEX[MagicWay(k)] for k in range(NUM_KINDS))
REORDER_IDS = tuple(MOVE_INDEX[Reorder(k)] for k in range(NUM_KINDS))
TARGET_IDS = tuple(MOVE_INDEX[Target(k)] for k in range(MAX_TRACK))
#: O4-A onto card k of the opponent's path.
STONE_ON_THEIRS = tuple(MOVE_INDEX[StoneTarget(k, False)] for k in range(MAX_TRACK))
#: Every flight: one card, a joker pair or a stone entry, in id order.
FLIGHT_IDS = tuple(i for i, m in enumerate(MOVES) if isinstance(m, (Fly, Joker, StoneEntry)))
#: ``ODIN_IDS[odin][option]``: the ids from the auxiliary top first, then from the hand (the
#: order the agent prefers: playing the aux top frees the card below it).
ODIN_IDS = tuple(
    tuple(tuple(MOVE_INDEX[Odin(o, opt, src)] for src in (1, 0)) for opt in (0, 1))
    for o in range(NUM_ODIN)
)
O1, O2, O3, O4 = range(NUM_ODIN)
A, B = 0, 1  # the two options of an Odin card


def _odin_play(legal: set[int], odin: int, option: int) -> int | None:
    """The legal id of an Odin card's option, from the aux top if it can, or None."""
    for move in ODIN_IDS[odin][option]:
        if move in legal:
            return move
    return None


class _Turn(NamedTuple):
    """What the play-phase rules look at, read once per decision from the seat's view."""

    v: Any  # the view
    me: int
    legal: set[int]
    path: list[int] | tuple[int, ...]  # my path
    last: int  # index of the last card
    pos: int  # my raven
    theirs: int  # the opponent's raven
    flights: list[int]  # the legal flights ...
    ends: dict[int, int]  # ... and where each would stop


class OdinsRavensHeuristic(SeatAgent):
    """Greedy Odin's Ravens heuristic (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def choose(self, seat: Seat, legal: list[int]) -> int:
        v = seat.view()
        me = v.player
        phase = v.phase
        if phase == PLAY:
            return self._play(v, me, set(legal))
        if phase == EXTEND:
            return EXTEND_YES if v.pos[me] < v.pos[1 - me] - 1 else EXTEND_NO
        if phase == ORIENT:
            return self._orient(v, me)
        if phase == REARRANGE:
            return self._rearrange(v, me, legal)
        if phase == TARGET_SPACE:
            return self._stone_target(v, me, legal)
        if phase == TARGET_CARD:
            return self._card_target(v, me, legal)
        return legal[0]

    # -- the play phase -------------------------------------------------------------------------

    def _play(self, v: Any, me: int, legal: set[int]) -> int:
        """The first rule of the module docstring that gives a move, else ``EndTurn``."""
        path = v.paths[me]
        flights = [m for m in FLIGHT_IDS if m in legal]
        turn = _Turn(
            v,
            me,
            legal,
            path,
            len(path) - 1,
            v.pos[me],
            v.pos[1 - me],
            flights,
            {m: self._flight_end(v, me, m) for m in flights},
        )
        for rule in self._RULES:
            move = rule(self, turn)
            if move is not None:
                return move
        return END_TURN

    def _finish_race(self, turn: _Turn) -> int | None:
        """1. A flight onto the last card (the cheapest), O1-B onto it, or O3-B removing the
        empty last card while I stand just before it."""
        finishing = [m for m in turn.flights if turn.ends[m] == turn.last]
        if finishing:
            return min(finishing, key=lambda m: self._cost(m))
        if turn.pos + 1 == turn.last:
            move = _odin_play(turn.legal, O1, B)
            if move is not None:
                return move
            if _card_is_empty(turn.v, turn.last):
                return _odin_play(turn.legal, O3, B)
        return None

    def _clear_stone(self, turn: _Turn) -> int | None:
        """2. The stone on my next space: O4-A moves it away (onto the opponent's path)."""
        stone_card, stone_path = turn.v.stone
        if stone_card == turn.pos + 1 and stone_path == turn.me:
            return _odin_play(turn.legal, O4, A)
        return None

    def _fly(self, turn: _Turn) -> int | None:
        """3. The flight gaining most spaces, then the fewest cards, then the aux top."""
        if not turn.flights:
            return None
        ends, pos = turn.ends, turn.pos
        return max(turn.flights, key=lambda m: (ends[m] - pos, -self._cost(m), PAYMENTS[m].aux))

    def _odin_card(self, turn: _Turn) -> int | None:
        """4. An Odin card where it gains most (see the module docstring, in that order)."""
        v, me, legal, pos, theirs = turn.v, turn.me, turn.legal, turn.pos, turn.theirs
        block = theirs + 1
        if block <= turn.last and _space_is_empty(v, block, 1 - me):
            move = _odin_play(legal, O4, A)
            if move is not None:
                return move
        if theirs >= pos:
            move = _odin_play(legal, O1, A)
            if move is not None:
                return move
        t = turn.path[pos + 1]
        aux = v.aux  # top first
        if not (v.hand[t] > 0 or (aux and aux[0] == t)):
            move = _odin_play(legal, O1, B)
            if move is not None:
                return move
        if pos > theirs and _odin_play(legal, O3, B) is not None:
            if self._useless_card_ahead(v, me) >= 0:
                return _odin_play(legal, O3, B)
        if pos < theirs - 2:
            move = _odin_play(legal, O2, B)
            if move is not None:
                return move
        if len(aux) >= 2 and aux[0] != t and t in aux:
            return _odin_play(legal, O2, A)
        return None

    def _feed_magic_way(self, turn: _Turn) -> int | None:
        """5. Cards my path does not need soon into the Magic Way, unless my row clearly
        leads: the aux top, else the hand kind I hold most spares of."""
        v, me, legal = turn.v, turn.me, turn.legal
        if len(v.magic_way_rows[me]) > len(v.magic_way_rows[1 - me]) + 1:
            return None
        needed = self._needed(v, me)
        if MAGIC_WAY_AUX in legal and needed[v.aux[0]] == 0:
            return MAGIC_WAY_AUX
        hand = v.hand
        spare = [k for k in range(NUM_KINDS) if MAGIC_WAY_IDS[k] in legal and hand[k] > needed[k]]
        if spare:
            return MAGIC_WAY_IDS[max(spare, key=lambda k: hand[k] - needed[k])]
        return None

    def _stash(self, turn: _Turn) -> int | None:
        """6. Stash cards for the coming spaces of my path, the nearest last."""
        for k in self._stash_order(turn.v, turn.me):
            if STASH_IDS[k] in turn.legal:
                return STASH_IDS[k]
        return None

    def _spare_odin(self, turn: _Turn) -> int | None:
        """An Odin card nobody can use well goes to the Magic Way if it fits, else stays."""
        hand = turn.v.hand
        if turn.v.used_hand >= 3 or not any(hand[ODIN_BASE + o] for o in range(NUM_ODIN)):
            return None
        for o in range(NUM_ODIN):
            if MAGIC_WAY_IDS[ODIN_BASE + o] in turn.legal:
                return MAGIC_WAY_IDS[ODIN_BASE + o]
        return None

    #: The rules of the play phase, in the order of the module docstring.
    _RULES = (_finish_race, _clear_stone, _fly, _odin_card, _feed_magic_way, _stash, _spare_odin)

    def _cost(self, move: int) -> int:
        pay = PAYMENTS[move]
        return pay.singles + 2 * len(pay.pairs)

    def _flight_end(self, s: Any, me: int, move: int) -> int:
        """Where my raven would stop after this flight (see the engine's flight rule)."""
        path = s.paths[me]
        nxt = s.pos[me] + 1
        t = path[nxt]
        last = len(path) - 1
        stone_card, stone_path = s.stone
        stone = -1 if PAYMENTS[move].entry or stone_path != me else stone_card
        while nxt < last and path[nxt + 1] == t and stone != nxt + 1:
            nxt += 1
        return nxt

    def _needed(self, s: Any, me: int) -> list[int]:
        """Flight cards of each type my next ``LOOKAHEAD`` groups of spaces call for."""
        path = s.paths[me]
        need = [0] * NUM_KINDS
        k = s.pos[me] + 1
        groups = 0
        while k < len(path) and groups < LOOKAHEAD:
            t = path[k]
            need[t] += 1
            while k + 1 < len(path) and path[k + 1] == t:
                k += 1
            k += 1
            groups += 1
        return need

    def _stash_order(self, s: Any, me: int) -> list[int]:
        """Hand kinds worth stashing: types of groups 2..LOOKAHEAD ahead, the farthest first."""
        path = s.paths[me]
        hand = s.hand
        k = s.pos[me] + 1
        types: list[int] = []
        while k < len(path) and len(types) < LOOKAHEAD:
            t = path[k]
            types.append(t)
            while k + 1 < len(path) and path[k + 1] == t:
                k += 1
            k += 1
        in_aux = list(s.aux)
        order = []
        for t in reversed(types[1:]):
            if hand[t] > (1 if t == types[0] else 0) and t not in in_aux:
                order.append(t)
                in_aux.append(t)
        return order

    def _useless_card_ahead(self, s: Any, me: int) -> int:
        """An empty card ahead of my raven whose type on my path I cannot pay, or -1."""
        path = s.paths[me]
        hand = s.hand
        aux = set(s.aux)
        for k in range(s.pos[me] + 1, len(path)):
            if _card_is_empty(s, k) and hand[path[k]] == 0 and path[k] not in aux:
                return k
        return -1

    # -- sub-decisions --------------------------------------------------------------------------

    def _orient(self, s: Any, me: int) -> int:
        code = s.pending_land
        low, high = sorted(divmod(code, NUM_TYPES))
        mine, theirs = s.paths[me], s.paths[1 - me]

        def value(my_type: int, their_type: int) -> float:
            v = 0.0
            if mine and mine[-1] == my_type:
                v += 2  # extends a group on my path
            if theirs and theirs[-1] == their_type:
                v -= 1  # ... and not on theirs
            return v + 0.1 * s.hand[my_type]

        return ORIENT_HIGH if value(high, low) > value(low, high) else ORIENT_LOW

    def _rearrange(self, s: Any, me: int, legal: list[int]) -> int:
        path = s.paths[me]
        upcoming = [path[k] for k in range(s.pos[me] + 1, len(path))]
        kinds = [MOVES[m].kind for m in legal]
        for t in upcoming:
            if t in kinds:
                return REORDER_IDS[t]
        return legal[0]

    def _stone_target(self, s: Any, me: int, legal: list[int]) -> int:
        opp = 1 - me
        options = set(legal)
        for k in range(s.pos[opp] + 1, len(s.paths[opp])):
            move = STONE_ON_THEIRS[k]
            if move in options:
                return move
        return max(legal, key=lambda m: not MOVES[m].own_path)  # anything off my path

    def _card_target(self, s: Any, me: int, legal: list[int]) -> int:
        cards = [MOVES[m].card for m in legal]
        if s.target_op == OP_REMOVE:
            k = self._useless_card_ahead(s, me)
            if k in cards:
                return TARGET_IDS[k]
            ahead = [c for c in cards if c > s.pos[me]]
            return TARGET_IDS[ahead[0] if ahead else cards[0]]
        if s.target_op == OP_ROTATE:
            hand = s.hand
            path, other = s.paths[me], s.paths[1 - me]
            best = max(cards, key=lambda c: (hand[other[c]] - hand[path[c]], c > s.pos[me]))
            return TARGET_IDS[best]
        return TARGET_IDS[cards[0]]


def _card_is_empty(v: Any, k: int) -> bool:
    """No raven and no stone on either space of card ``k`` (the engine's rule, from the view)."""
    return v.pos[0] != k and v.pos[1] != k and v.stone[0] != k


def _space_is_empty(v: Any, k: int, path: int) -> bool:
    """No raven and no stone on card ``k``'s space of ``path``'s path."""
    return v.pos[path] != k and not (v.stone[0] == k and v.stone[1] == path)


__all__ = ["OdinsRavensHeuristic"]
