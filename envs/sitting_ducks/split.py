"""The record cut at the reshuffles, as one seat knows it, kept per record and extended.

``Split`` reads the public record from ``player``'s side: per other seat and pile ("epoch") its
steps (plays with their forced-discard masks, draws), per reshuffle the known multiset ``T_b``
then held by the other seats and every seat's hand size, and ``U`` now (the cards the others
hold or the draw pile holds). The exact samplers (``exact.py``, ``reshuffled.py``,
``crowded.py``) start from it. Read afresh at every position it grew with the game; ``split_for``
keeps one per record (a list only ever appended to) and seat, and reads only the entries
added since (tests: ``tests/sitting_ducks/test_ducks_walks.py``).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from cardzoo.envs.sitting_ducks.data import ORDER_PHASE

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

#: A draw step of a seat's record (a play step is ``(card, forced masks or None)``).
DRAW = None


class Split:
    """The record cut at the reshuffles (module docstring). ``done``: the log entries read
    (the deal included); ``forced[q]``: seat q's forced discards' masks, in order;
    ``all_drew``: every turn read ended with its draw; ``last_reshuffle``: the index (in the
    entries after the deal) of the turn that reshuffled last, -1 for none."""

    def __init__(self, record: list[tuple], player: int) -> None:
        _, dealt, pool = record[0]
        self.unseen = list(pool)
        self.hand = [0] * len(pool)  # the seat's own hand, per kind
        for kind in dealt[player]:
            self.unseen[kind] -= 1
            self.hand[kind] += 1
        self.final = [len(h) for h in dealt]
        self.dealt = self.final[:]
        self.steps: list[list[list]] = [[[]] for _ in dealt]
        self.pools: list[list[int]] = []
        #: Per reshuffle, every seat's hand together (``pools`` and the seat's own): the same
        #: multiset for every viewer, so ``crowded.py`` walks the hands that fit in it once
        #: for all of them (session 34).
        self.held: list[list[int]] = []
        self.sizes: list[list[int]] = []
        self.forced: list[list] = [[] for _ in dealt]
        self.player = player
        self.others = [q for q in range(len(dealt)) if q != player]
        self.last_reshuffle = -1
        self.all_drew = True
        self.done = 1

    def extend(self, entries: list[tuple]) -> None:
        """Read the next entries of the record (each one turn)."""
        unseen, size, player = self.unseen, self.final, self.player
        for q, card, forced, reshuffled, drawn in entries:
            size[q] -= 1
            if forced is not None:
                self.forced[q].append(forced)
            if q != player:
                unseen[card] -= 1
                self.steps[q][-1].append((card, forced))
            else:
                self.hand[card] -= 1
            if reshuffled is not None:
                self.last_reshuffle = self.done - 1
                self.pools.append(unseen[:])  # the pile is empty: all of it is in hands
                self.held.append([u + h for u, h in zip(unseen, self.hand)])
                self.sizes.append(size[:])
                for seat in self.steps:
                    seat.append([])
                for k, more in enumerate(reshuffled):
                    unseen[k] += more
            if drawn >= 0:
                size[q] += 1
                if q == player:
                    unseen[drawn] -= 1
                    self.hand[drawn] += 1
                else:
                    self.steps[q][-1].append(DRAW)
            else:
                self.all_drew = False
            self.done += 1

    def check(self) -> None:
        """RuntimeError if the record shows more cards of a kind than the deck holds."""
        if min(min(p) for p in [self.unseen, *self.pools]) < 0:
            raise RuntimeError("sitting_ducks determinize: more cards seen than the deck holds")

    def playing(self, q: int, card: int) -> Split:
        """A copy with seat q's play of ``card`` added (a Disorderly Conduckt in progress: its
        turn is not in the record yet); what the copy changes is copied, the rest shared."""
        new = copy.copy(self)
        new.final = self.final[:]
        new.final[q] -= 1
        if q != self.player:
            new.unseen = self.unseen[:]
            new.unseen[card] -= 1
            new.steps = self.steps[:]
            new.steps[q] = [*self.steps[q][:-1], [*self.steps[q][-1], (card, None)]]
        return new


def split_for(state: State, player: int, memo: dict | None) -> Split:
    """The record of ``state`` as ``player`` knows it, cut at the reshuffles: the ``Split``
    kept in ``memo`` (``walks.memo_for``) extended by the entries added since, or read afresh
    (``memo`` None, or a shorter record than the kept one). Do not change what it returns:
    it is kept for the next position."""
    found = memo.get(("split", player)) if memo is not None else None
    if found is None or found.done > state._log_len:
        found = Split(state._log, player)
        if memo is not None:
            memo[("split", player)] = found
    if found.done < state._log_len:
        found.extend(state._log[found.done : state._log_len])
    if state.phase == ORDER_PHASE:  # Disorderly Conduckt played, its turn not logged yet
        return found.playing(state.current_player, state._turn_card)
    return found
