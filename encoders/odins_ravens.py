"""Odin's Ravens encoder: a player's view as a fixed-size int8 vector of named pieces.

Seats are relative: "my" pieces are the observer's, "opp" pieces the other seat's, and pairs of
values list the observer first. The track is encoded for all 40 possible land cards (the row can
never hold more: there are 40 land cards), so no length is ever cut off. Card kinds are indexed
0..8 (F, M, P, S, W, O1, O2, O3, O4); land pair kinds 0..14 (``data.PAIRS``).

Everything here is a function of ``State.view(player)`` (the conformance suite checks it by
resampling all hidden cards; ``tests/odins_ravens/test_encoder.py`` rebuilds every piece from the
view); for speed it reads the same fields off the state directly. The opponent's hand and
auxiliary deck are only used as sizes, and their union with the draw pile ("unseen cards") is
public: it is the deck minus the face-up discard pile and Magic Way row.

The global state (``state()``) shows everything with absolute seats: both hands, both auxiliary
decks in order, both draw piles' compositions, the land deck's composition and the face-down
Magic Way cards, with the public pieces and whose turn it is.
"""

from __future__ import annotations

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.odins_ravens.data import (
    MAX_FROM_AUX,
    MAX_FROM_HAND,
    NUM_KINDS,
    NUM_MAGIC_WAY_CARDS,
    NUM_PAIRS,
    NUM_TYPES,
    ODIN_SYMBOL,
    TARGET_SCORE,
)
from cardzoo.envs.odins_ravens.game import CODE_PAIR, Config, State
from cardzoo.envs.odins_ravens.moves import MAX_TRACK, MOVE_INDEX, MOVES

NUM_PHASES = 6  # play, rearrange, target card, target space, orient, extend
NUM_OPS = 4  # O3-A, O3-B, O4-B first, O4-B second
TURN_BITS = 16  # turns are written in binary (int8 cannot hold 2000)
MAX_POINTS = TARGET_SCORE - 1 + MAX_TRACK + 3  # the highest total a game can end with


#: The 8 bits of a byte as 8 bytes of 0/1, bit 0 first.
_BYTE_BITS = tuple(bytes(v >> i & 1 for i in range(8)) for v in range(256))
#: One-hot land type as 5 bytes.
_ONE_HOT = tuple(bytes(int(i == t) for i in range(NUM_TYPES)) for t in range(NUM_TYPES))
_KIND_HOT = tuple(bytes(int(i == k) for i in range(NUM_KINDS)) for k in range(NUM_KINDS))
_CODES = range(NUM_TYPES * NUM_TYPES)
_KINDS = range(NUM_KINDS)


def _bits(buf: bytearray, at: int, value: int) -> None:
    value = min(value, (1 << TURN_BITS) - 1)
    buf[at : at + 8] = _BYTE_BITS[value & 255]
    buf[at + 8 : at + 16] = _BYTE_BITS[value >> 8]


def _one_hot_path(path: list[int]) -> bytes:
    return b"".join([_ONE_HOT[t] for t in path])


class OdinsRavensEncoder(Encoder):
    """The default Odin's Ravens encoder (``"default"``, version 1): int8 flags and counts."""

    game = "odins_ravens"
    name = "default"
    version = "1"
    dtype = np.int8

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        T, K, P = MAX_TRACK, NUM_KINDS, NUM_PAIRS
        deck = config.deck_size
        self.max_aux = deck
        top = max(config.deck)  # most cards of one kind a seat has
        piece = self.piece
        self._phase = piece("phase", NUM_PHASES, 1, "one-hot decision (zeros at the end)")
        self._op = piece("target_op", NUM_OPS, 1, "card choice for: O3-A, O3-B, O4-B 1st/2nd")
        self._to_act = piece("to_act", 2, 1, "one-hot: me, opponent")
        self._first = piece("race_first", 2, 1, "one-hot: who started this race (me, opponent)")
        self._length = piece("track_length", 1, T, "land cards in the row (L)")
        self._present = piece("track_present", T, 1, "card k is in the row (k < L)")
        self._mine = piece("my_path", (T, NUM_TYPES), 1, "land type of card k on my path")
        self._theirs = piece("opp_path", (T, NUM_TYPES), 1, "land type of card k on theirs")
        self._ravens = piece("ravens", (2, T + 1), 1, "one-hot raven position + 1 (0 = start)")
        self._stone = piece("stone", (T, 2), 1, "stone on card k, on my path / on theirs")
        self._pending = piece("pending_land", P, 1, "land card drawn to be oriented (pair kind)")
        self._swap = piece("swap_first", T, 1, "O4-B: first card already chosen")
        self._hand = piece("my_hand", K, top, "cards in my hand by kind")
        self._aux = piece("my_aux", (deck, K), 1, "my auxiliary deck, top first, one-hot kinds")
        self._placed = piece("rearranged", 1, deck, "O2-A: top cards of the deck already placed")
        self._my_draw = piece("my_draw", K, top, "my draw pile by kind (order unknown)")
        self._unseen = piece("opp_unseen", K, top, "opponent's hand + aux + draw pile by kind")
        self._hsize = piece("hand_sizes", 2, deck, "cards in hand")
        self._asize = piece("aux_sizes", 2, deck, "cards in the auxiliary decks")
        self._dsize = piece("draw_sizes", 2, deck, "cards in the draw piles")
        self._discard = piece("discards", (2, K), top, "discard piles by kind")
        self._way = piece("magic_way", ODIN_SYMBOL + 1, 1, "symbols of the active Magic Way card")
        self._rows = piece("magic_way_rows", (2, K), top, "Magic Way rows by kind")
        self._wsize = piece("magic_way_counts", 2, deck, "cards in the Magic Way rows")
        self._used = piece(
            "used_this_turn", 2, max(MAX_FROM_HAND, MAX_FROM_AUX), "cards taken: hand, aux"
        )
        self._o2b = piece("o2b_used", 1, 1, "O2-B already played this turn")
        self._lsize = piece("land_deck_size", 1, T, "cards in the land deck")
        self._lcounts = piece("land_deck_counts", P, T, "land deck by pair kind")
        self._lknown = piece(
            "land_known", T, P, "seen bottom land cards in draw order: pair kind + 1 (0 = none)"
        )
        self._race = piece("race", 1, 127, "race number (1 = first)")
        self._totals = piece("totals", 2, MAX_POINTS, "total points")
        self._last = piece("last_race", 5, MAX_TRACK, "winner me/opp, points, Magic Way me/opp")
        self._shuffled = piece("reshuffled", (2, K), top, "draw pile made at the last reshuffle")
        self._since = piece("drawn_since", 2, deck, "cards drawn since the deal or reshuffle")
        self._rturn = piece("race_turn", TURN_BITS, 1, "turns in this race, binary (bit 0 first)")
        self._turn = piece("turn", TURN_BITS, 1, "turns in the game, binary (bit 0 first)")
        self._full = config.deck
        self._declare_state(config)

    def _declare_state(self, config: Config) -> None:
        T, K, P = MAX_TRACK, NUM_KINDS, NUM_PAIRS
        deck = config.deck_size
        top = max(config.deck)
        sp = self.state_piece
        self._s_phase = sp("phase", NUM_PHASES, 1, "one-hot decision (zeros at the end)")
        self._s_op = sp("target_op", NUM_OPS, 1, "card choice for: O3-A, O3-B, O4-B 1st/2nd")
        self._s_to_act = sp("to_act", 2, 1, "one-hot seat to act")
        self._s_first = sp("race_first", 2, 1, "one-hot seat that started this race")
        self._s_length = sp("track_length", 1, T, "land cards in the row")
        self._s_paths = sp("paths", (2, T, NUM_TYPES), 1, "land type of card k on seat p's path")
        self._s_ravens = sp("ravens", (2, T + 1), 1, "one-hot raven position + 1 per seat")
        self._s_stone = sp("stone", (T, 2), 1, "stone on card k, on seat p's path")
        self._s_pending = sp("pending_land", P, 1, "land card drawn to be oriented")
        self._s_swap = sp("swap_first", T, 1, "O4-B: first card already chosen")
        self._s_hands = sp("hands", (2, K), top, "every hand by kind")
        self._s_aux = sp("aux", (2, deck, K), 1, "every auxiliary deck, top first")
        self._s_draw = sp("draws", (2, K), top, "every draw pile by kind")
        self._s_discard = sp("discards", (2, K), top, "discard piles by kind")
        self._s_way = sp("magic_way", NUM_MAGIC_WAY_CARDS, 1, "the active Magic Way card")
        self._s_down = sp("magic_way_face_down", NUM_MAGIC_WAY_CARDS, 1, "face-down Way cards")
        self._s_rows = sp("magic_way_rows", (2, K), top, "Magic Way rows by kind")
        self._s_used = sp("used_this_turn", 2, 3, "cards taken this turn: hand, aux")
        self._s_o2b = sp("o2b_used", 1, 1, "O2-B already played this turn")
        self._s_placed = sp("rearranged", 1, deck, "O2-A: top cards already placed")
        self._s_land = sp("land_deck_counts", P, T, "land deck by pair kind")
        self._s_totals = sp("totals", 2, MAX_POINTS, "total points")
        self._s_race = sp("race", 1, 127, "race number")
        self._s_rturn = sp("race_turn", TURN_BITS, 1, "turns in this race, binary")
        self._s_turn = sp("turn", TURN_BITS, 1, "turns in the game, binary")

    # -- observation ----------------------------------------------------------------------------

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        me, opp = player, 1 - player
        phase = state.phase
        if phase < NUM_PHASES:
            buf[self._phase + phase] = 1
            buf[self._to_act + (state.current_player != me)] = 1
        if state.target_op >= 0:
            buf[self._op + state.target_op] = 1
        buf[self._first + (state.race_first != me)] = 1
        mine, theirs = state.paths[me], state.paths[opp]
        L = len(mine)
        buf[self._length] = L
        at = self._present
        buf[at : at + L] = b"\x01" * L
        at, bt, width = self._mine, self._theirs, NUM_TYPES * L
        buf[at : at + width] = _one_hot_path(mine)
        buf[bt : bt + width] = _one_hot_path(theirs)
        buf[self._ravens + state.pos[me] + 1] = 1
        buf[self._ravens + MAX_TRACK + 2 + state.pos[opp]] = 1
        if state.stone_card >= 0:
            buf[self._stone + 2 * state.stone_card + (state.stone_path != me)] = 1
        if state.pending_land >= 0:
            buf[self._pending + CODE_PAIR[state.pending_land]] = 1
        if state.swap_first >= 0:
            buf[self._swap + state.swap_first] = 1
        hand = state.hands[me]
        buf[self._hand : self._hand + NUM_KINDS] = bytes(hand)
        aux = state.aux[me]
        if aux:
            at = self._aux
            buf[at : at + NUM_KINDS * len(aux)] = b"".join([_KIND_HOT[k] for k in reversed(aux)])
        buf[self._placed] = state.rearranged
        pile = state.draws[me]
        buf[self._my_draw : self._my_draw + NUM_KINDS] = bytes([pile.count(k) for k in _KINDS])
        # the opponent's unseen cards: its deck minus its face-up discards and Magic Way row
        unseen = self._unseen
        full = self._full
        discard = state.discards[opp]
        buf[unseen : unseen + NUM_KINDS] = bytes([f - d for f, d in zip(full, discard)])
        for k in state.magic_way_rows[opp]:
            buf[unseen + k] -= 1
        at = self._discard
        buf[at : at + NUM_KINDS] = bytes(state.discards[me])
        buf[at + NUM_KINDS : at + 2 * NUM_KINDS] = bytes(discard)
        hs, az, ds, ws = self._hsize, self._asize, self._dsize, self._wsize
        rows = self._rows
        for r, q in ((0, me), (1, opp)):
            buf[hs + r] = sum(state.hands[q])
            buf[az + r] = len(state.aux[q])
            buf[ds + r] = len(state.draws[q])
            row = state.magic_way_rows[q]
            buf[ws + r] = len(row)
            base = rows + r * NUM_KINDS
            for k in row:
                buf[base + k] += 1
        for sym in state.config.magic_way_cards[state.magic_way]:
            buf[self._way + sym] = 1
        buf[self._used] = state.used_hand
        buf[self._used + 1] = state.used_aux
        buf[self._o2b] = state.o2b_used
        deck = state.land_deck
        buf[self._lsize] = len(deck)
        lc = self._lcounts
        for c in _CODES:
            n = deck.count(c)
            if n:
                buf[lc + CODE_PAIR[c]] += n
        at = self._lknown
        for i in range(state.land_known - 1, -1, -1):  # draw order: the highest index first
            buf[at] = CODE_PAIR[deck[i]] + 1
            at += 1
        buf[self._race] = min(state.race, 127)
        buf[self._totals] = state.totals[me]
        buf[self._totals + 1] = state.totals[opp]
        winner, points, bonus = state.last_race
        if winner >= 0:
            buf[self._last + (winner != me)] = 1
            buf[self._last + 2] = points
        if bonus >= 0:
            buf[self._last + 3 + (bonus != me)] = 1
        at = self._shuffled
        buf[at : at + NUM_KINDS] = bytes(state.reshuffled[me])
        buf[at + NUM_KINDS : at + 2 * NUM_KINDS] = bytes(state.reshuffled[opp])
        buf[self._since] = state.drawn_since[me]
        buf[self._since + 1] = state.drawn_since[opp]
        _bits(buf, self._rturn, state.race_turn)
        _bits(buf, self._turn, state.turn)

    # -- global state ---------------------------------------------------------------------------

    def state_into(self, state: State, buf: bytearray) -> None:
        phase = state.phase
        if phase < NUM_PHASES:
            buf[self._s_phase + phase] = 1
            buf[self._s_to_act + state.current_player] = 1
        if state.target_op >= 0:
            buf[self._s_op + state.target_op] = 1
        buf[self._s_first + state.race_first] = 1
        L = len(state.paths[0])
        buf[self._s_length] = L
        for p in range(2):
            path = state.paths[p]
            at = self._s_paths + p * MAX_TRACK * NUM_TYPES
            for k in range(L):
                buf[at + k * NUM_TYPES + path[k]] = 1
            buf[self._s_ravens + p * (MAX_TRACK + 1) + state.pos[p] + 1] = 1
            base = p * NUM_KINDS
            buf[self._s_hands + base : self._s_hands + base + NUM_KINDS] = bytes(state.hands[p])
            at = self._s_aux + p * self.max_aux * NUM_KINDS
            aux = state.aux[p]
            for i in range(len(aux) - 1, -1, -1):
                buf[at + aux[i]] = 1
                at += NUM_KINDS
            for k in state.draws[p]:
                buf[self._s_draw + base + k] += 1
            d = self._s_discard + base
            buf[d : d + NUM_KINDS] = bytes(state.discards[p])
            for k in state.magic_way_rows[p]:
                buf[self._s_rows + base + k] += 1
            buf[self._s_totals + p] = state.totals[p]
        if state.stone_card >= 0:
            buf[self._s_stone + 2 * state.stone_card + state.stone_path] = 1
        if state.pending_land >= 0:
            buf[self._s_pending + CODE_PAIR[state.pending_land]] = 1
        if state.swap_first >= 0:
            buf[self._s_swap + state.swap_first] = 1
        buf[self._s_way + state.magic_way] = 1
        for i in state.magic_way_down:
            buf[self._s_down + i] = 1
        buf[self._s_used] = state.used_hand
        buf[self._s_used + 1] = state.used_aux
        buf[self._s_o2b] = state.o2b_used
        buf[self._s_placed] = state.rearranged
        for c in state.land_deck:
            buf[self._s_land + CODE_PAIR[c]] += 1
        buf[self._s_race] = min(state.race, 127)
        _bits(buf, self._s_rturn, state.race_turn)
        _bits(buf, self._s_turn, state.turn)


ENCODERS = {"default": OdinsRavensEncoder}
