"""The plays of the play phase (rules spec §5), as :class:`Plays`, a part of ``State``
(``State`` inherits it; the methods use the state's fields, its ``_odin_ids`` from ``odin.py``
and its ``_check_race_end`` and ``_finish_turn``).

Which plays are legal (stash, fly with one card, a joker pair or a stone entry, Magic Way,
discard; the Odin cards' plays come from ``odin.py``) and what each does, with the per-turn
limits of 3 cards from the hand and 3 from the auxiliary deck (§4).

A decision taken here where the rules spec leaves a detail open:

- ``joker_requires_no_match``: a play may use a joker pair only if no pair is of the target
  type and, after the play, no card of the target type is left in the hand and the auxiliary
  card then on top (below the cards the play took) is not one. The per-turn card limits do not
  matter: a matching card held counts even when this turn may no longer play it.
"""

from __future__ import annotations

from cardzoo.envs.odins_ravens import hidden
from cardzoo.envs.odins_ravens.data import (
    EXTEND,
    MAX_FROM_AUX,
    MAX_FROM_HAND,
    NUM_KINDS,
    NUM_TYPES,
)
from cardzoo.envs.odins_ravens.moves import (
    DISCARD,
    DISCARD_AUX,
    END_TURN,
    ENTRY2,
    FLY,
    JOKER,
    MAGIC_WAY,
    MAGIC_WAY_AUX,
    PAYMENTS,
    STASH,
)


class Plays:
    """The play phase's part of ``State`` (see the module docstring). Holds no fields."""

    __slots__ = ()

    # -- legal plays -------------------------------------------------------------------------------

    def _play_legal(self) -> list[int]:
        p = self.current_player
        h = self.hands[p]
        ax = self.aux[p]
        from_hand = self.used_hand < MAX_FROM_HAND
        aux_left = MAX_FROM_AUX - self.used_aux
        top = ax[-1] if ax and aux_left else -1
        ids = [STASH + k for k in range(NUM_KINDS) if h[k]] if from_hand else []
        s = self.pos[p] + 1
        t = self.paths[p][s]
        if not (self.stone_card == s and self.stone_path == p):
            self._flight_ids(ids, t, h, ax, top, aux_left)
        else:
            for move in range(ENTRY2, MAGIC_WAY):
                if self._payable(p, t, PAYMENTS[move]):
                    ids.append(move)
        match = self._mw_match
        if from_hand:
            ids += [MAGIC_WAY + k for k in range(NUM_KINDS) if h[k] and match[k]]
        if top >= 0 and match[top]:
            ids.append(MAGIC_WAY_AUX)
        if from_hand:
            ids += [DISCARD + k for k in range(NUM_KINDS) if h[k]]
        if top >= 0:
            ids.append(DISCARD_AUX)
        self._odin_ids(ids, from_hand, h, top)
        ids.append(END_TURN)
        return ids

    def _flight_ids(
        self, ids: list[int], t: int, h: list[int], ax: list[int], top: int, aux_left: int
    ) -> None:
        """Append the flights onto a next space of type ``t`` without the stone: one card of
        ``t`` (from hand ``h`` or the aux top ``top``), or a joker pair (§5 items 2-3)."""
        from_hand = self.used_hand < MAX_FROM_HAND
        if from_hand and h[t]:
            ids.append(FLY)
        if top == t:
            ids.append(FLY + 1)
        hand_left = MAX_FROM_HAND - self.used_hand
        second = ax[-2] if len(ax) >= 2 and aux_left >= 2 else -1
        # Strict jokers (§13 option): not a pair of t, no t left in hand, and the aux card
        # on top after the play (below the 0..2 cards the pair takes) is not a t.
        strict = self.config.joker_requires_no_match
        under = [True] * 3
        if strict:
            n = len(ax)
            under = [n <= a or ax[-1 - a] != t for a in range(3)]
        if strict and h[t]:
            return
        for j in range(NUM_TYPES):
            if strict and j == t:
                continue
            base = JOKER + 3 * j
            if hand_left >= 2 and h[j] >= 2 and under[0]:
                ids.append(base)
            if top == j and hand_left and h[j] and under[1]:
                ids.append(base + 1)
            if top == j and second == j and under[2]:
                ids.append(base + 2)

    def _payable(self, p: int, t: int, pay) -> bool:
        """Whether seat ``p`` can make movement payment ``pay`` for a space of type ``t`` (§5)."""
        a = pay.aux
        ax = self.aux[p]
        if a > MAX_FROM_AUX - self.used_aux or a > len(ax):
            return False
        need = [0] * NUM_TYPES
        need[t] += pay.singles
        for j in pay.pairs:
            need[j] += 2
        for i in range(1, a + 1):
            k = ax[-i]
            if k >= NUM_TYPES or need[k] == 0:
                return False
            need[k] -= 1
        if sum(need) > MAX_FROM_HAND - self.used_hand:
            return False
        h = self.hands[p]
        for k in range(NUM_TYPES):
            if h[k] < need[k]:
                return False
        if pay.pairs and self.config.joker_requires_no_match:
            # Strict jokers: no pair of t, no t left in hand, no t on top of the aux deck once
            # the play has taken its ``a`` cards.
            if t in pay.pairs or h[t] != need[t]:
                return False
            if len(ax) > a and ax[-1 - a] == t:
                return False
        return True

    # -- what each play does -----------------------------------------------------------------------

    def _from_hand(self, p: int, k: int) -> None:
        self.hands[p][k] -= 1
        self.used_hand += 1
        self.logs[p].append(hidden.FROM_HAND_EVENTS[k])

    def _from_aux(self, p: int) -> int:
        k = self.aux[p].pop()
        self.used_aux += 1
        self.logs[p].append(hidden.FROM_AUX_EVENTS[k])
        return k

    def _stash(self, k: int) -> None:
        """§5 item 1: a hand card face down on top of the auxiliary deck."""
        p = self.current_player
        self.hands[p][k] -= 1
        self.used_hand += 1
        self.aux[p].append(k)
        self.logs[p].append(hidden.STASH_EVENT)

    def _move(self, move_id: int) -> None:
        """§5 items 2-3: pay (aux top cards first, the rest from hand), then fly."""
        pay = PAYMENTS[move_id]
        p = self.current_player
        s = self.pos[p] + 1
        t = self.paths[p][s]
        need = [0] * NUM_TYPES
        need[t] += pay.singles
        for j in pay.pairs:
            need[j] += 2
        discard = self.discards[p]
        for _ in range(pay.aux):
            k = self._from_aux(p)
            need[k] -= 1
            discard[k] += 1
        for k in range(NUM_TYPES):
            for _ in range(need[k]):
                self._from_hand(p, k)
                discard[k] += 1
        if pay.pairs and self.config.joker_requires_no_match:
            # What the opponent learns is exactly the strict condition: after the play no t in
            # the hand and none on top of the aux deck.
            self.logs[p].append(hidden.NO_MATCH_EVENTS[t][True])
        if pay.entry:
            self.stone_card = self.stone_path = -1
        self.pos[p] = self._flight_end(p, s)
        self._check_race_end()

    def _flight_end(self, p: int, s: int) -> int:
        """Where a raven entering space ``s`` stops: the end of the group, or before the stone."""
        path = self.paths[p]
        t = path[s]
        last = len(path) - 1
        stone = self.stone_card if self.stone_path == p else -1
        while s < last and path[s + 1] == t and stone != s + 1:
            s += 1
        return s

    def _magic_way(self, k: int | None) -> None:
        """§5 item 4: a matching card into the own Magic Way row."""
        p = self.current_player
        if k is None:
            k = self._from_aux(p)
        else:
            self._from_hand(p, k)
        self.magic_way_rows[p].append(k)

    def _discard(self, k: int | None) -> None:
        """§5 item 6: discard without effect (it counts as a play)."""
        p = self.current_player
        if k is None:
            k = self._from_aux(p)
        else:
            self._from_hand(p, k)
        self.discards[p][k] += 1

    def _end_plays(self) -> None:
        """§4: after the plays, the optional extension (only while the land deck lasts)."""
        if self.land_deck:
            self.phase = EXTEND
        else:
            self._finish_turn()
