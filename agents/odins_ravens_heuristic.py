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

from typing import Any

import numpy as np
from cardzoo.agents.base import Seat, acting_seat
from cardzoo.envs.odins_ravens.data import NUM_KINDS, NUM_TYPES, ODIN_BASE
from cardzoo.envs.odins_ravens.game import (
    EXTEND,
    OP_REMOVE,
    OP_ROTATE,
    ORIENT,
    PLAY,
    REARRANGE,
    TARGET_CARD,
    TARGET_SPACE,
)
from cardzoo.envs.odins_ravens.moves import (
    END_TURN,
    EXTEND_NO,
    EXTEND_YES,
    FLY,
    MAGIC_WAY,
    MAGIC_WAY_AUX,
    ODIN,
    ORIENT_HIGH,
    ORIENT_LOW,
    PAYMENTS,
    REORDER,
    STASH,
    STONE_TARGET,
    TARGET,
)

LOOKAHEAD = 6  # spaces of my path whose land types I keep cards for


def _odin_id(odin: int, option: int, from_aux: int) -> int:
    return ODIN + 4 * odin + 2 * option + from_aux


class OdinsRavensHeuristic:
    """Greedy Odin's Ravens heuristic (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(
        self,
        observation: Any,
        action_mask: Any,
        *,
        seat: Seat | None = None,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        seat = acting_seat(seat, state, player, "OdinsRavensHeuristic")
        legal = seat.legal_move_ids()
        if len(legal) == 1:
            return legal[0]
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

    def _play(self, s: Any, me: int, legal: set[int]) -> int:
        opp = 1 - me
        path = s.paths[me]
        last = len(path) - 1
        pos, theirs = s.pos[me], s.pos[opp]
        hand = s.hand
        aux = s.aux  # top first
        stone_card, stone_path = s.stone
        nxt = pos + 1
        stone_ahead = stone_card == nxt and stone_path == me

        # 1. finish the race
        flights = [m for m in range(FLY, MAGIC_WAY) if m in legal]
        ends = {m: self._flight_end(s, me, m) for m in flights}
        finishing = [m for m in flights if ends[m] == last]
        if finishing:
            return min(finishing, key=lambda m: self._cost(m))
        for src in (1, 0):
            if _odin_id(0, 1, src) in legal and nxt == last:
                return _odin_id(0, 1, src)
        if pos == last - 1 and _card_is_empty(s, last):
            for src in (1, 0):
                if _odin_id(2, 1, src) in legal:
                    return _odin_id(2, 1, src)

        # 2. the stone in front of me: move it onto the opponent's path
        if stone_ahead:
            for src in (1, 0):
                if _odin_id(3, 0, src) in legal:
                    return _odin_id(3, 0, src)

        # 3. fly as far as possible
        if flights:
            return max(flights, key=lambda m: (ends[m] - pos, -self._cost(m), PAYMENTS[m].aux))

        # 4. Odin cards where they gain most
        src_of = {}
        for o in range(4):
            for opt in (0, 1):
                for src in (1, 0):
                    if _odin_id(o, opt, src) in legal:
                        src_of[(o, opt)] = src
                        break
        block = theirs + 1
        if (3, 0) in src_of and block <= last and _space_is_empty(s, block, opp):
            if not (stone_card == block and stone_path == opp):
                return _odin_id(3, 0, src_of[(3, 0)])
        if (0, 0) in src_of and theirs >= pos:
            return _odin_id(0, 0, src_of[(0, 0)])
        t = path[nxt]
        can_pay = hand[t] > 0 or (aux and aux[0] == t)
        if (0, 1) in src_of and not can_pay:
            return _odin_id(0, 1, src_of[(0, 1)])
        if (2, 1) in src_of and pos > theirs and self._useless_card_ahead(s, me) >= 0:
            return _odin_id(2, 1, src_of[(2, 1)])
        if (1, 1) in src_of and pos < theirs - 2:
            return _odin_id(1, 1, src_of[(1, 1)])
        if (1, 0) in src_of and len(aux) >= 2 and aux[0] != t and t in aux:
            return _odin_id(1, 0, src_of[(1, 0)])

        # 5. the Magic Way, with cards my path does not need soon
        needed = self._needed(s, me)
        rows = len(s.magic_way_rows[me]), len(s.magic_way_rows[opp])
        if rows[0] <= rows[1] + 1:
            if MAGIC_WAY_AUX in legal and needed[aux[0]] == 0:
                return MAGIC_WAY_AUX
            spare = [k for k in range(NUM_KINDS) if MAGIC_WAY + k in legal and hand[k] > needed[k]]
            if spare:
                return MAGIC_WAY + max(spare, key=lambda k: hand[k] - needed[k])

        # 6. stash cards for the coming spaces, the nearest last
        for k in self._stash_order(s, me):
            if STASH + k in legal:
                return STASH + k

        # an Odin card nobody can use well goes to the Magic Way if it fits, else stays
        if s.used_hand < 3 and any(hand[ODIN_BASE + o] for o in range(4)):
            for o in range(4):
                if MAGIC_WAY + ODIN_BASE + o in legal:
                    return MAGIC_WAY + ODIN_BASE + o
        return END_TURN

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
        kinds = [m - REORDER for m in legal]
        for t in upcoming:
            if t in kinds:
                return REORDER + t
        return legal[0]

    def _stone_target(self, s: Any, me: int, legal: list[int]) -> int:
        opp = 1 - me
        options = set(legal)
        for k in range(s.pos[opp] + 1, len(s.paths[opp])):
            move = STONE_TARGET + 2 * k + 1
            if move in options:
                return move
        return max(legal, key=lambda m: (m - STONE_TARGET) % 2)  # anything off my path

    def _card_target(self, s: Any, me: int, legal: list[int]) -> int:
        cards = [m - TARGET for m in legal]
        if s.target_op == OP_REMOVE:
            k = self._useless_card_ahead(s, me)
            if k in cards:
                return TARGET + k
            ahead = [c for c in cards if c > s.pos[me]]
            return TARGET + (ahead[0] if ahead else cards[0])
        if s.target_op == OP_ROTATE:
            hand = s.hand
            path, other = s.paths[me], s.paths[1 - me]
            best = max(cards, key=lambda c: (hand[other[c]] - hand[path[c]], c > s.pos[me]))
            return TARGET + best
        return TARGET + cards[0]


def _card_is_empty(v: Any, k: int) -> bool:
    """No raven and no stone on either space of card ``k`` (the engine's rule, from the view)."""
    return v.pos[0] != k and v.pos[1] != k and v.stone[0] != k


def _space_is_empty(v: Any, k: int, path: int) -> bool:
    """No raven and no stone on card ``k``'s space of ``path``'s path."""
    return v.pos[path] != k and not (v.stone[0] == k and v.stone[1] == path)


__all__ = ["OdinsRavensHeuristic"]
