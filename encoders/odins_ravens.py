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
from cardzoo.envs.odins_ravens.config import Config
from cardzoo.envs.odins_ravens.data import (
    CODE_PAIR,
    MAX_FROM_AUX,
    MAX_FROM_HAND,
    NUM_KINDS,
    NUM_MAGIC_WAY_CARDS,
    NUM_PAIRS,
    NUM_TYPES,
    ODIN_SYMBOL,
    TARGET_SCORE,
)
from cardzoo.envs.odins_ravens.game import State
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
_KINDS = range(NUM_KINDS)
#: track_length and track_present for each row length L: L, then L ones, then zeros.
_TRACK_HEAD = tuple(
    bytes([n]) + bytes([1] * n + [0] * (MAX_TRACK - n)) for n in range(MAX_TRACK + 1)
)


def _bits(value: int) -> bytes:
    """A turn count as 16 bytes of 0/1, bit 0 first (capped at the largest 16-bit value)."""
    value = min(value, (1 << TURN_BITS) - 1)
    return _BYTE_BITS[value & 255] + _BYTE_BITS[value >> 8]


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
        # pieces written as one block (see encode_into) must be adjacent
        assert self._last + 5 == self._shuffled and self._since == self._shuffled + 2 * K
        assert self._rturn + TURN_BITS == self._turn
        self._reset_memos()
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

    # long: the hot path of every env step; split into three calls it measured 4-6% slower
    # (6.7 -> 7.0 us per observation), so it stays one function in commented sections
    def encode_into(self, state: State, player: int, buf: bytearray) -> None:  # noqa: C901
        me, opp = player, 1 - player
        phase = state.phase
        if phase < NUM_PHASES:
            buf[self._phase + phase] = 1
            buf[self._to_act + (state.current_player != me)] = 1
        if state.target_op >= 0:
            buf[self._op + state.target_op] = 1
        buf[self._first + (state.race_first != me)] = 1
        # Slices are written through a memoryview: several times cheaper than a bytearray's
        # slice assignment from bytes. Lists of counts go straight into ``buf``.
        view = memoryview(buf)
        # the track: length, presence and both paths (the paths are remembered, see below)
        paths = state.paths
        seen = self._paths_seen
        if paths[0] != seen[0] or paths[1] != seen[1]:
            self._remember_paths(paths)
        view[self._length : self._length + MAX_TRACK + 1] = _TRACK_HEAD[len(paths[0])]
        width = MAX_TRACK * NUM_TYPES
        view[self._mine : self._mine + width] = self._paths_hot[me]
        view[self._theirs : self._theirs + width] = self._paths_hot[opp]
        buf[self._ravens + state.pos[me] + 1] = 1
        buf[self._ravens + MAX_TRACK + 2 + state.pos[opp]] = 1
        if state.stone_card >= 0:
            buf[self._stone + 2 * state.stone_card + (state.stone_path != me)] = 1
        if state.pending_land >= 0:
            buf[self._pending + CODE_PAIR[state.pending_land]] = 1
        if state.swap_first >= 0:
            buf[self._swap + state.swap_first] = 1
        hands, aux_decks, draws = state.hands, state.aux, state.draws
        buf[self._hand : self._hand + NUM_KINDS] = hands[me]
        aux = aux_decks[me]
        if aux:
            if aux != self._aux_seen[me]:
                self._aux_seen[me] = aux[:]
                self._aux_hot[me] = b"".join([_KIND_HOT[k] for k in reversed(aux)])
            hot = self._aux_hot[me]
            view[self._aux : self._aux + len(hot)] = hot
        buf[self._placed] = state.rearranged
        pile = draws[me]
        if pile != self._draw_seen[me]:
            self._draw_seen[me] = pile[:]
            self._draw_counts[me] = bytes(map(pile.count, _KINDS))
        view[self._my_draw : self._my_draw + NUM_KINDS] = self._draw_counts[me]
        # the Magic Way rows by kind, and the opponent's unseen cards: its deck minus its face-up
        # discards and Magic Way row (both remembered per seat)
        rows = state.magic_way_rows
        row_mine, row_theirs = rows[me], rows[opp]
        if row_mine != self._row_seen[me]:
            self._remember_row(me, row_mine)
        if row_theirs != self._row_seen[opp]:
            self._remember_row(opp, row_theirs)
        discards = state.discards
        discard = discards[opp]
        if discard != self._unseen_seen[opp] or row_theirs != self._unseen_row[opp]:
            self._remember_unseen(opp, discard, row_theirs)
        view[self._unseen : self._unseen + NUM_KINDS] = self._unseen_counts[opp]
        hs, az, ds = self._hsize, self._asize, self._dsize
        buf[hs] = sum(hands[me])
        buf[hs + 1] = sum(hands[opp])
        buf[az] = len(aux)
        buf[az + 1] = len(aux_decks[opp])
        buf[ds] = len(pile)
        buf[ds + 1] = len(draws[opp])
        at = self._discard
        buf[at : at + NUM_KINDS] = discards[me]
        view[at + NUM_KINDS : at + 2 * NUM_KINDS] = self._discard_hot[opp]
        ways = state.config.magic_way_cards
        if ways is not self._ways_seen:
            self._ways_seen = ways  # a tuple: held, so its identity stays unique
            self._ways_hot = tuple(bytes(int(i in w) for i in range(ODIN_SYMBOL + 1)) for w in ways)
        view[self._way : self._way + ODIN_SYMBOL + 1] = self._ways_hot[state.magic_way]
        counts = self._row_counts
        view[self._rows : self._rows + NUM_KINDS] = counts[me]
        view[self._rows + NUM_KINDS : self._rows + 2 * NUM_KINDS] = counts[opp]
        buf[self._wsize] = len(row_mine)
        buf[self._wsize + 1] = len(row_theirs)
        buf[self._used] = state.used_hand
        buf[self._used + 1] = state.used_aux
        buf[self._o2b] = state.o2b_used
        # the land deck: size, counts by pair kind and its seen bottom cards (remembered)
        deck = state.land_deck
        if deck != self._land_seen or state.land_known != self._land_known_seen:
            self._remember_land(deck, state.land_known)
        view[self._lsize : self._lsize + len(self._land_block)] = self._land_block
        # race, totals, last_race and reshuffled change only at a reshuffle or a race end
        # (remembered per seat); race_turn and turn once a turn (remembered for both seats)
        key = (state.race, state.totals, state.last_race, state.reshuffled)
        if key != self._race_seen[me]:
            self._remember_race(state, me, buf)
        view[self._race : self._since] = self._race_hot[me]
        buf[self._since] = state.drawn_since[me]
        buf[self._since + 1] = state.drawn_since[opp]
        if state.race_turn != self._turns_seen[0] or state.turn != self._turns_seen[1]:
            self._turns_seen = (state.race_turn, state.turn)
            self._turn_bits = _bits(state.race_turn) + _bits(state.turn)
        view[self._rturn : self._rturn + 2 * TURN_BITS] = self._turn_bits

    # -- remembered pieces ----------------------------------------------------------------------
    #
    # Consecutive observations mostly share the track, the draw piles, the Magic Way rows, the
    # opponent's public cards, the land deck and the turn counters. Each is remembered with the
    # state data it was built from (one entry per seat or per game, so bounded) and rebuilt only
    # when a comparison with that data fails; a comparison of short int lists costs far less than
    # rebuilding the bytes.

    def _reset_memos(self) -> None:
        self._paths_seen: list[list[int] | None] = [None, None]
        self._paths_hot = [b"", b""]  # per path: one-hot land types, padded to MAX_TRACK
        self._aux_seen: list[list[int] | None] = [None, None]
        self._aux_hot = [b"", b""]  # per seat: its auxiliary deck one-hot, top first
        self._draw_seen: list[list[int] | None] = [None, None]
        self._draw_counts = [b"", b""]  # per seat: its draw pile by kind
        self._row_seen: list[list[int] | None] = [None, None]
        self._row_counts = [b"", b""]  # per seat: its Magic Way row by kind
        self._unseen_seen: list[list[int] | None] = [None, None]
        self._unseen_row: list[list[int] | None] = [None, None]
        self._unseen_counts = [b"", b""]  # per seat: deck - discards - Magic Way row
        self._discard_hot = [b"", b""]  # per seat: its discards as bytes (with the above)
        self._land_seen: list[int] | None = None
        self._land_known_seen = -1
        self._land_block = b""  # land_deck_size + land_deck_counts + land_known
        self._ways_seen: tuple | None = None
        self._ways_hot: tuple[bytes, ...] = ()  # per Magic Way card: its symbols as 0/1
        self._race_seen: list[tuple | None] = [None, None]
        self._race_hot = [b"", b""]  # per seat: the pieces race, totals, last_race, reshuffled
        self._turns_seen = (-1, -1)
        self._turn_bits = b""  # race_turn + turn in binary

    def _remember_paths(self, paths: list[list[int]]) -> None:
        for p in (0, 1):
            if paths[p] != self._paths_seen[p]:
                self._paths_seen[p] = paths[p][:]
                self._paths_hot[p] = b"".join(map(_ONE_HOT.__getitem__, paths[p])).ljust(
                    MAX_TRACK * NUM_TYPES, b"\0"
                )

    def _remember_row(self, seat: int, row: list[int]) -> None:
        self._row_seen[seat] = row[:]
        self._row_counts[seat] = bytes(map(row.count, _KINDS))

    def _remember_unseen(self, seat: int, discard: list[int], row: list[int]) -> None:
        self._unseen_seen[seat] = discard[:]
        self._unseen_row[seat] = row[:]
        unseen = [f - d for f, d in zip(self._full, discard)]
        for k in row:
            unseen[k] -= 1
        self._unseen_counts[seat] = bytes(unseen)
        self._discard_hot[seat] = bytes(discard)

    def _remember_land(self, deck: list[int], known: int) -> None:
        self._land_seen = deck[:]
        self._land_known_seen = known
        block = bytearray(1 + NUM_PAIRS + MAX_TRACK)
        block[0] = len(deck)
        for c in deck:
            block[1 + CODE_PAIR[c]] += 1
        at = 1 + NUM_PAIRS
        for i in range(known - 1, -1, -1):  # draw order: the highest index first
            block[at] = CODE_PAIR[deck[i]] + 1
            at += 1
        self._land_block = bytes(block)

    def _remember_race(self, state: State, me: int, buf: bytearray) -> None:
        """Write race, totals, last_race and reshuffled into ``buf`` (zeroed there); keep them."""
        opp = 1 - me
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
        buf[at : at + NUM_KINDS] = state.reshuffled[me]
        buf[at + NUM_KINDS : at + 2 * NUM_KINDS] = state.reshuffled[opp]
        self._race_hot[me] = bytes(buf[self._race : self._since])
        reshuffled = [r[:] for r in state.reshuffled]
        self._race_seen[me] = (state.race, state.totals[:], state.last_race, reshuffled)

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
        buf[self._s_rturn : self._s_rturn + TURN_BITS] = _bits(state.race_turn)
        buf[self._s_turn : self._s_turn + TURN_BITS] = _bits(state.turn)


ENCODERS = {"default": OdinsRavensEncoder}
