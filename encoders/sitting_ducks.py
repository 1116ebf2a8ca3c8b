"""Sitting Ducks Gallery encoder: a player's view as a fixed-size int8 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn
order. Colours are relative too: colour index ``(c - b) mod K`` where ``b`` is the observer's seat
(standard and team modes, where colour c belongs to seat c, or to seat c mod 2 with two players)
or the observer's secret colour (hidden mode), so index 0 is always one of "my" colours. With K
colours in play (K = N, or 4 in two-player team mode) the size depends only on the config.

Everything here is a function of ``State.view(player)`` (the conformance suite checks it by
resampling all hidden information, secret colours included;
``tests/sitting_ducks/test_ducks_encoder.py`` rebuilds every piece from the view); for speed it
reads the same fields off the state directly. In hidden mode the owner of a colour is shown only
for the observer's own colour (and for all once the game is over); for the others,
``colour_seat`` shows which seats the public record still allows (own-duck cards played, forced
discards).

The global state (``state()``) shows everything with absolute seats and colours: every hand, the
draw pile's composition, the duck deck in order, the secret colours, and the public pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.sitting_ducks.config import Config
from cardzoo.envs.sitting_ducks.data import (
    DECK_DUCKS_PER_COLOUR,
    DUCKS_PER_COLOUR,
    HAND_SIZE,
    MAX_ACTION_CARDS,
    NUM_KINDS,
    NUM_SLOTS,
    NUM_WATER,
    ORDER_PHASE,
    PLAY_PHASE,
    WATER,
)
from cardzoo.envs.sitting_ducks.game import State
from cardzoo.envs.sitting_ducks.moves import MOVE_INDEX, MOVES
from cardzoo.envs.sitting_ducks.units import (
    NUM_UNIT_CODES,
    U_COLOURS,
    U_COVER,
    U_TOP,
    U_UNDER,
    unit,
)

S = NUM_SLOTS
#: The 6-bit target mask as 6 bytes of 0/1, slot 0 first.
_MASK_BYTES = tuple(bytes(m >> s & 1 for s in range(S)) for m in range(1 << S))
MAX_POINTS = 127  # points are capped here (int8); a match rarely comes near


# The row offset table is large (6 slots x 512 unit codes) and the same for every env of a
# config, so it lives here, shared by every encoder of the process, and an env holds only
# references. It is written for *relative* unit codes (colours relative to the observer's base
# colour, seats relative to the observer), so one table serves every observer; a 512-entry map
# per observer, shared too, translates a unit code first. Both caches are bounded: a process
# meets a handful of configs, and each cache is emptied if it ever reaches _MAX_SHARED entries.
_ROW_TABLES: dict[tuple, list[list[tuple[int, ...]]]] = {}
_UNIT_MAPS: dict[tuple, list[int]] = {}
_MAX_SHARED = 256


def _shared(cache: dict, key: tuple, build: Callable[[], Any]) -> Any:
    """``cache[key]``, built on first use; the cache is emptied when it is full."""
    value = cache.get(key)
    if value is None:
        if len(cache) >= _MAX_SHARED:
            cache.clear()
        value = cache[key] = build()
    return value


def _row_table(
    n: int, k: int, top: int, under: int, cover: int, mine: int
) -> list[list[tuple[int, ...]]]:
    """For each slot and relative unit code, the buffer offsets to set: the row_top,
    row_under, row_cover and row_mine entries (pieces starting at ``top`` ... ``mine``)."""
    # relative colour 0 is the observer's (and 2 too in two-player team mode)
    my_colours = 0b101 if k == 4 and n == 2 else 0b1
    table = []
    for s in range(S):
        per_unit: list[tuple[int, ...]] = []
        for u in range(NUM_UNIT_CODES):
            t, h, c = U_TOP[u], U_UNDER[u], U_COVER[u]
            if t > WATER + 1 or h >= k or t < WATER and t >= k or c >= n:
                per_unit.append(())  # a code that never occurs with this config
                continue
            at = [top + s * (k + 2) + (t if t < WATER else k + t - WATER)]
            if h >= 0:
                at.append(under + s * k + h)
            if c >= 0:
                at.append(cover + s * n + c)
            if U_COLOURS[u] & my_colours:
                at.append(mine + s)
            per_unit.append(tuple(at))
        table.append(per_unit)
    return table


def _unit_map(n: int, k: int, rel: list[int], seat: list[int]) -> list[int]:
    """For one observer: each unit code with its colours made relative (``rel``) and its cover
    seat made relative (``seat``); codes that never occur keep their impossible parts."""
    out = []
    for u in range(NUM_UNIT_CODES):
        t, h, c = U_TOP[u], U_UNDER[u], U_COVER[u]
        out.append(
            unit(rel[t] if t < k else t, rel[h] if 0 <= h < k else h, seat[c] if 0 <= c < n else c)
        )
    return out


class SittingDucksEncoder(Encoder):
    """The default Sitting Ducks Gallery encoder (``"default"``, version 1): int8 flags and
    counts."""

    game = "sitting_ducks"
    name = "default"
    version = "1"
    dtype = np.int8

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        n = self.num_players
        k = self.num_colours = config.num_colours
        self.hidden = config.mode == "hidden"
        self.deck_cap = DECK_DUCKS_PER_COLOUR * k + NUM_WATER  # the largest duck deck
        cards = max(config.action_deck_counts)
        total = sum(config.action_deck_counts)
        piece = self.piece
        self._phase = piece("phase", 2, 1, "one-hot decision: play a card, choose the new order")
        self._to_act = piece("to_act", n, 1, "one-hot relative seat of the player to act")
        self._hand = piece("my_hand", NUM_KINDS, HAND_SIZE, "my cards by kind")
        self._hsize = piece("hand_sizes", n, HAND_SIZE, "cards in each seat's hand")
        self._top = piece(
            "row_top", (S, k + 2), 1, "slot s: one-hot relative colour of its top duck, water, gap"
        )
        self._under = piece("row_under", (S, k), 1, "slot s: relative colour of a hidden duck")
        self._cover = piece("row_cover", (S, n), 1, "slot s: relative seat of its Bottoms Up card")
        self._mine = piece("row_mine", S, 1, "slot s holds a duck of mine (the unit is mine)")
        self._targets = piece("targets", S, 1, "slot s is targeted")
        self._order = piece(
            "reorder", (S, S), 1, "Disorderly Conduckt: new position i takes the unit of slot j"
        )
        self._in_row = piece(
            "ducks_in_row", k, DECK_DUCKS_PER_COLOUR, "ducks per colour in the row"
        )
        self._in_deck = piece(
            "ducks_in_deck", k, DECK_DUCKS_PER_COLOUR, "ducks per colour in the duck deck"
        )
        self._shot = piece("ducks_shot", k, DECK_DUCKS_PER_COLOUR, "ducks shot per colour")
        self._water = piece("water_in_deck", 1, NUM_WATER, "water cards in the duck deck")
        self._deck = piece("deck_size", 1, self.deck_cap, "cards in the duck deck")
        self._bottom = -1
        if config.observe_duck_deck_bottom:
            self._bottom = piece(
                "deck_bottom",
                (self.deck_cap, k + 1),
                1,
                "known bottom of the duck deck, bottom card first: relative colour or water",
            )
        self._discard = piece("discard", NUM_KINDS, cards, "action discard pile by kind")
        self._draw = piece("draw_size", 1, total, "cards in the action draw pile")
        self._owner = piece(
            "colour_seat",
            (k, n),
            1,
            "colour c may belong to relative seat q (exactly one 1 where the owner is known)",
        )
        self._points = piece("points", n, MAX_POINTS, "points variant: each seat's total")
        self._game = piece("game", 1, 127, "points variant: games finished in the match")

        # Global state: absolute seats and colours.
        sp = self.state_piece
        self._s_phase = sp("phase", 2, 1, "one-hot decision: play a card, choose the new order")
        self._s_to_act = sp("to_act", n, 1, "one-hot seat of the player to act")
        self._s_hands = sp("hands", (n, NUM_KINDS), HAND_SIZE, "every hand by kind")
        self._s_draw = sp("draw_pile", NUM_KINDS, cards, "the action draw pile by kind")
        self._s_discard = sp("discard", NUM_KINDS, cards, "the action discard pile by kind")
        self._s_top = sp("row_top", (S, k + 2), 1, "slot s: one-hot colour of its top, water, gap")
        self._s_under = sp("row_under", (S, k), 1, "slot s: colour of a hidden duck")
        self._s_cover = sp("row_cover", (S, n), 1, "slot s: seat of its Bottoms Up card")
        self._s_targets = sp("targets", S, 1, "slot s is targeted")
        self._s_order = sp("reorder", (S, S), 1, "Disorderly Conduckt: position i from slot j")
        self._s_deck = sp(
            "duck_deck", (self.deck_cap, k + 1), 1, "the duck deck in order, top first"
        )
        self._s_known = sp("known_bottom", 1, self.deck_cap, "cards of the deck bottom known")
        self._s_shot = sp("ducks_shot", k, DECK_DUCKS_PER_COLOUR, "ducks shot per colour")
        self._s_owner = sp("colour_owner", (k, n), 1, "one-hot seat owning colour c")
        self._s_points = sp("points", n, MAX_POINTS, "points variant: each seat's total")
        self._s_game = sp("game", 1, 127, "points variant: games finished in the match")
        # Relative colour index of colour c for the base colour b: _rel[b][c].
        self._rel = [[(c - b) % k for c in range(k)] for b in range(k)]
        # Relative seat of seat q for the observer p: _seat[p][q].
        self._seat = [[(q - p) % n for q in range(n)] for p in range(n)]
        self._public_owner = [c % n for c in range(k)]  # standard and team modes
        self._match = bool(config.points_games)  # points pieces stay 0 otherwise
        self._cache: dict[tuple[int, int], tuple] = {}
        offsets = (self._top, self._under, self._cover, self._mine)
        self._row_tab = _shared(_ROW_TABLES, (n, k, *offsets), lambda: _row_table(n, k, *offsets))

    def _base(self, state: State, player: int) -> int:
        if self.hidden:
            return state.seat_colours[player].bit_length() - 1
        return player

    def _tables(self, player: int, base: int) -> tuple:
        """Per observer (seat, base colour): the relative code of each unit code; the relative
        colour of each colour; the relative seat of each seat; the colour_seat bytes when
        ownership is public. The large tables are shared at module level (see ``_shared``)."""
        key = (player, base)
        tables = self._cache.get(key)
        if tables is None:
            n, k = self.num_players, self.num_colours
            rel = self._rel[base]
            seat = self._seat[player]
            relative = _shared(_UNIT_MAPS, (n, k, player, base), lambda: _unit_map(n, k, rel, seat))
            owners = bytearray(k * n)
            if not self.hidden:
                for c in range(k):
                    owners[rel[c] * n + seat[self._public_owner[c]]] = 1
            tables = self._cache[key] = (relative, rel, seat, bytes(owners))
        return tables

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        n, k = self.num_players, self.num_colours
        relative, rel, seat, owner_bytes = self._tables(player, self._base(state, player))
        row_tab = self._row_tab
        phase = state.phase
        if phase == PLAY_PHASE or phase == ORDER_PHASE:
            buf[self._phase + phase] = 1
            buf[self._to_act + seat[state.current_player]] = 1
        at = self._hand
        for kind in state.hands[player]:
            buf[at + kind] += 1
        at = self._hsize
        for q, hand in enumerate(state.hands):
            buf[at + seat[q]] = len(hand)
        in_row = [0] * (k + 2)  # per colour, then water and gap
        s = 0
        for u in state.row:
            for i in row_tab[s][relative[u]]:
                buf[i] = 1
            in_row[U_TOP[u] if U_TOP[u] < WATER else k + U_TOP[u] - WATER] += 1
            if U_UNDER[u] >= 0:
                in_row[U_UNDER[u]] += 1
            s += 1
        at = self._targets
        buf[at : at + S] = _MASK_BYTES[state.targets]
        at = self._order
        for i, j in enumerate(state.reorder):
            buf[at + i * S + j] = 1
        shot = state.shot
        for c in range(k):
            r = rel[c]
            buf[self._in_row + r] = in_row[c]
            buf[self._in_deck + r] = DUCKS_PER_COLOUR - shot[c] - in_row[c]
            buf[self._shot + r] = shot[c] - 1
        buf[self._water] = NUM_WATER - in_row[k]
        deck = state.deck
        buf[self._deck] = len(deck)
        if self._bottom >= 0:
            at = self._bottom
            for i in range(min(state.known_bottom, len(deck))):
                card = deck[i]
                buf[at + i * (k + 1) + (k if card == WATER else rel[card])] = 1
        at = self._discard
        buf[at : at + NUM_KINDS] = bytes(state.discard)
        buf[self._draw] = len(state.draw)
        at = self._owner
        if not self.hidden:
            buf[at : at + k * n] = owner_bytes
        elif state.terminal:  # everyone has revealed
            for c, q in enumerate(state.colour_owner):
                buf[at + rel[c] * n + seat[q]] = 1
        else:
            self._evidence_into(state, player, buf, rel, seat)
        if self._match:
            self._points_into(state, buf, seat)

    def _points_into(self, state: State, buf: bytearray, seat: list[int]) -> None:
        """The points variant's pieces: points per relative seat and the game number."""
        points = state.points
        for q in range(self.num_players):
            buf[self._points + seat[q]] = min(points[q], MAX_POINTS)
        buf[self._game] = min(state.game, 127)

    def _evidence_into(
        self, state: State, player: int, buf: bytearray, rel: list[int], seat: list[int]
    ) -> None:
        """colour_seat in hidden mode before the end: the observer's own colour, and for each
        other colour the seats the public record still allows."""
        n, at = self.num_players, self._owner
        mine = state.seat_colours[player]
        evidence = state.colour_evidence
        for c in range(self.num_colours):
            r = rel[c]
            if mine >> c & 1:
                buf[at + r * n] = 1
                continue
            for q in range(n):
                if q != player and evidence[q] >> c & 1:
                    buf[at + r * n + seat[q]] = 1

    def state_into(self, state: State, buf: bytearray) -> None:
        n, k = self.num_players, self.num_colours
        phase = state.phase
        if phase == PLAY_PHASE or phase == ORDER_PHASE:
            buf[self._s_phase + phase] = 1
            buf[self._s_to_act + state.current_player] = 1
        for q in range(n):
            for kind in state.hands[q]:
                buf[self._s_hands + q * NUM_KINDS + kind] += 1
        for kind in state.draw:
            buf[self._s_draw + kind] += 1
        at = self._s_discard
        buf[at : at + NUM_KINDS] = bytes(state.discard)
        width = k + 2
        for s, u in enumerate(state.row):
            top = U_TOP[u]
            buf[self._s_top + s * width + (top if top < WATER else k + top - WATER)] = 1
            if U_UNDER[u] >= 0:
                buf[self._s_under + s * k + U_UNDER[u]] = 1
            if U_COVER[u] >= 0:
                buf[self._s_cover + s * n + U_COVER[u]] = 1
        for s in range(S):
            if state.targets >> s & 1:
                buf[self._s_targets + s] = 1
        for i, j in enumerate(state.reorder):
            buf[self._s_order + i * S + j] = 1
        for i, card in enumerate(reversed(state.deck)):
            buf[self._s_deck + i * (k + 1) + (k if card == WATER else card)] = 1
        buf[self._s_known] = min(state.known_bottom, len(state.deck))
        for c in range(k):
            buf[self._s_shot + c] = state.shot[c] - 1
            buf[self._s_owner + c * n + state.colour_owner[c]] = 1
        for q in range(n):
            buf[self._s_points + q] = min(state.points[q], MAX_POINTS)
        buf[self._s_game] = min(state.game, 127)


assert MAX_ACTION_CARDS <= 127  # discard and draw-pile counts fit int8

ENCODERS = {"default": SittingDucksEncoder}
