"""The Odin cards (rules spec §6) and the decisions they open, as :class:`OdinCards`, a part
of ``State`` (``State`` inherits it; the methods use the state's fields and its ``_from_hand``,
``_from_aux``, ``_check_race_end`` and ``_finish_turn``).

Which options have a target (§5 item 5: only those are offered), what each option does, and the
follow-up decisions with their legal moves: O2-A's ``rearrange`` steps, the ``target card``
(O3-A, O3-B, O4-B) and ``target space`` (O4-A) choices, and ``orient``, which attaches a drawn
land card for O2-B and for the end-of-turn extension alike.

Decisions taken here where the rules spec leaves a detail open (see also ``game.py``):

- O2-A always asks for ``len(aux) - 1`` choices (each "the next card from the top is kind k"),
  even when some are forced: the number of steps then reveals nothing about the cards.
- O2-B and the extension: the drawn land card is seen by both players; ``Orient`` says which of
  its two land types goes on the mover's path (one choice for a double).
- O4-B picks its two cards in increasing order (first the lower index).
"""

from __future__ import annotations

from cardzoo.envs.odins_ravens import hidden
from cardzoo.envs.odins_ravens.data import (
    FOR_EXTENSION,
    FOR_O2B,
    NUM_ODIN,
    NUM_TYPES,
    O2B_CARDS,
    ODIN_BASE,
    OP_REMOVE,
    OP_ROTATE,
    OP_SWAP_FIRST,
    OP_SWAP_SECOND,
    ORIENT,
    PLAY,
    REARRANGE,
    TARGET_CARD,
    TARGET_SPACE,
)
from cardzoo.envs.odins_ravens.moves import (
    ODIN,
    ORIENT_HIGH,
    ORIENT_LOW,
    REORDER,
    STONE_TARGET,
    TARGET,
)


class OdinCards:
    """The Odin cards' part of ``State`` (see the module docstring). Holds no fields."""

    __slots__ = ()

    # -- emptiness ---------------------------------------------------------------------------------

    def card_is_empty(self, k: int) -> bool:
        """No raven and no stone on either space of card ``k`` (§1)."""
        return self.pos[0] != k and self.pos[1] != k and self.stone_card != k

    def space_is_empty(self, k: int, path: int) -> bool:
        """No raven and no stone on card ``k``'s space of ``path``'s path (§1)."""
        return self.pos[path] != k and not (self.stone_card == k and self.stone_path == path)

    def empty_cards(self) -> list[int]:
        return [k for k in range(len(self.paths[0])) if self.card_is_empty(k)]

    # -- legal moves -------------------------------------------------------------------------------

    def _odin_ids(self, ids: list[int], from_hand: bool, h: list[int], top: int) -> None:
        """Append the Odin plays with a target: from the hand ``h`` (if ``from_hand``: it may
        still give cards) and from the auxiliary top (``top``, -1 if none may be taken)."""
        for o in range(NUM_ODIN):
            in_hand = from_hand and h[ODIN_BASE + o]
            on_top = top == ODIN_BASE + o
            if not (in_hand or on_top):
                continue
            for option in (0, 1):
                if self._odin_has_target(o, option):
                    base = ODIN + 4 * o + 2 * option
                    if in_hand:
                        ids.append(base)
                    if on_top:
                        ids.append(base + 1)

    def _decision_legal(self, phase: int) -> list[int]:
        """The legal moves of a follow-up decision (every phase but play, extend, game over)."""
        p = self.current_player
        if phase == TARGET_CARD:
            empties = self.empty_cards()
            op = self.target_op
            if op == OP_SWAP_FIRST:
                empties = empties[:-1]
            elif op == OP_SWAP_SECOND:
                empties = [k for k in empties if k > self.swap_first]
            return [TARGET + k for k in empties]
        if phase == ORIENT:
            c = self.pending_land
            return [ORIENT_LOW] if c // NUM_TYPES == c % NUM_TYPES else [ORIENT_LOW, ORIENT_HIGH]
        if phase == REARRANGE:
            ax = self.aux[p]
            return [REORDER + k for k in sorted(set(ax[: len(ax) - self.rearranged]))]
        if phase == TARGET_SPACE:
            ids = []
            for k in range(len(self.paths[0])):
                if self.space_is_empty(k, p):
                    ids.append(STONE_TARGET + 2 * k)
                if self.space_is_empty(k, 1 - p):
                    ids.append(STONE_TARGET + 2 * k + 1)
            return ids
        return []

    def _odin_has_target(self, odin: int, option: int) -> bool:
        """§6 with the decision of §5 item 5: only options with a legal target are offered."""
        p = self.current_player
        if odin == 0:
            if option == 0:
                q = 1 - p
                back = self.pos[q] - 1
                return back >= -1 and not (self.stone_card == back and self.stone_path == q)
            ahead = self.pos[p] + 1
            return not (self.stone_card == ahead and self.stone_path == p)
        if odin == 1:
            return option == 0 or not self.o2b_used
        L = len(self.paths[0])
        occupied = {self.pos[0], self.pos[1], self.stone_card}
        empty = L - sum(1 for k in occupied if k >= 0)
        if odin == 2:
            return empty >= 1 and (option == 0 or L >= 2)
        if option == 0:
            taken = (self.pos[0] >= 0) + (self.pos[1] >= 0) + (self.stone_card >= 0)
            return 2 * L > taken
        return empty >= 2

    # -- the options and their follow-up decisions ------------------------------------------------

    def _odin(self, odin: int, option: int, from_aux: int) -> None:
        """§5 item 5 and §6: play an Odin card (it goes to the discard pile) for one option."""
        p = self.current_player
        kind = ODIN_BASE + odin
        if from_aux:
            self._from_aux(p)
        else:
            self._from_hand(p, kind)
        self.discards[p][kind] += 1
        if odin == 0:
            if option == 0:
                self.pos[1 - p] -= 1
            else:
                self.pos[p] += 1
                self._check_race_end()
        elif odin == 1:
            if option == 0:
                if len(self.aux[p]) >= 2:
                    self.phase = REARRANGE
                    self.rearranged = 0
                    self.logs[p].append(hidden.REARRANGE_EVENT)
            else:
                self.o2b_used = True
                self.o2b_left = O2B_CARDS
                self._draw_land(FOR_O2B)
        elif odin == 2:
            self.phase = TARGET_CARD
            self.target_op = OP_ROTATE if option == 0 else OP_REMOVE
        elif option == 0:
            self.phase = TARGET_SPACE
        else:
            self.phase = TARGET_CARD
            self.target_op = OP_SWAP_FIRST

    def _rearrange(self, k: int) -> None:
        """O2-A, one step: a card of kind ``k`` becomes the next card from the top."""
        p = self.current_player
        ax = self.aux[p]
        slot = len(ax) - 1 - self.rearranged  # index right below the cards already placed
        i = slot
        while ax[i] != k:
            i -= 1
        ax[i], ax[slot] = ax[slot], ax[i]
        self.rearranged += 1
        if self.rearranged >= len(ax) - 1:
            self.phase = PLAY
            self.rearranged = 0

    def _draw_land(self, purpose: int) -> None:
        """Take the top land card to orient it (O2-B or the extension)."""
        deck = self.land_deck
        if not deck:  # only O2-B gets here with an empty deck: it attaches what exists
            self.phase = PLAY
            self.o2b_left = 0
            return
        self.pending_land = deck.pop()
        self.land_known = min(self.land_known, len(deck))
        self.orient_for = purpose
        self.phase = ORIENT

    def _orient(self, high_mine: bool) -> None:
        """Attach the drawn land card at the end of the row (§6 items 2 and 5)."""
        p = self.current_player
        low, high = divmod(self.pending_land, NUM_TYPES)
        low, high = min(low, high), max(low, high)
        mine, theirs = (high, low) if high_mine else (low, high)
        self.paths[p].append(mine)
        self.paths[1 - p].append(theirs)
        self.pending_land = -1
        if self.orient_for == FOR_EXTENSION:
            self.orient_for = -1
            self._finish_turn()
            return
        self.orient_for = -1
        self.o2b_left -= 1
        if self.o2b_left > 0:
            self._draw_land(FOR_O2B)
        else:
            self.phase = PLAY

    def _target_card(self, k: int) -> None:
        op = self.target_op
        paths = self.paths
        if op == OP_SWAP_FIRST:
            self.swap_first = k
            self.target_op = OP_SWAP_SECOND
            return
        self.phase = PLAY
        self.target_op = -1
        if op == OP_ROTATE:
            paths[0][k], paths[1][k] = paths[1][k], paths[0][k]
        elif op == OP_SWAP_SECOND:
            i = self.swap_first
            self.swap_first = -1
            for path in paths:
                path[i], path[k] = path[k], path[i]
        else:  # O3-B: the card goes face down under the land deck; the row closes up
            self.land_deck.insert(0, paths[0][k] * NUM_TYPES + paths[1][k])
            self.land_known += 1
            del paths[0][k]
            del paths[1][k]
            for q in range(2):
                if self.pos[q] > k:
                    self.pos[q] -= 1
            if self.stone_card > k:
                self.stone_card -= 1
            self._check_race_end()

    def _place_stone(self, k: int, path: int) -> None:
        """O4-A: the stone onto an empty space of either path (moved if on the board)."""
        self.stone_card = k
        self.stone_path = path
        self.phase = PLAY
