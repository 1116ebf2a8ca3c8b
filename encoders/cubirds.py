"""Cubirds encoder: a player's view as a fixed-size int8 vector of named pieces.

Seats are relative: index 0 of every per-seat piece is the observer, then the others in turn order.
Values are raw card counts stored as int8 (all fit: the deck has 110 cards); each piece's upper
bound is in the observation space. The count of cards a player cannot locate is not a piece of its
own: it is a linear function of the pieces (deck counts minus everything visible).
The size depends only on the player count N: ``286 + 26 N`` (see :meth:`CubirdsEncoder.describe`).

Rows are stored as blocks: thanks to the contiguous-block invariant (rules spec §4.1) a row is a
sequence of at most 8 single-species blocks, so ``rows[r, b, s]`` = size of the ``b``-th block from
the left of row ``r`` if that block is species ``s``, else 0. This keeps order (which decides
captures) and counts in one piece.

``phase`` is all zeros for everyone but the player to act: which decision is pending (lay, draw,
flock) is that player's business only (rules spec §4.2, §9).

Everything here is a function of ``State.view(player)`` (checked piece by piece by the Cubirds
encoder tests, and by the conformance suite, which resamples all hidden cards and requires the same
vector); for speed it reads the same fields off the state directly instead of building the view.

The global state (PettingZoo ``state()``, for centralised critics) shows everything, seats absolute.
"""

from __future__ import annotations

import numpy as np
from cardzoo.encoders.base import Encoder
from cardzoo.envs.cubirds.data import CARD_COUNTS, NUM_ROWS, NUM_SPECIES, TOTAL_CARDS
from cardzoo.envs.cubirds.game import (
    LAY_PHASE,
    MOVE_INDEX,
    MOVES,
    NUM_LAY_MOVES,
    Config,
    State,
    lay_on_row,
    row_blocks,
)

_MAX_SPECIES = max(CARD_COUNTS)
_ROW_SIZE = NUM_SPECIES * NUM_SPECIES


class CubirdsEncoder(Encoder):
    """The default Cubirds encoder (``"default"``, version 2): int8 card counts."""

    game = "cubirds"
    name = "default"
    version = "2"
    dtype = np.int8

    def __init__(self, config: Config) -> None:
        super().__init__(config, MOVES, MOVE_INDEX)
        n = self.num_players
        s = NUM_SPECIES
        piece = self.piece
        self._phase = piece(
            "phase", 3, 1, "one-hot decision I must make: lay, draw, flock (zeros if not my turn)"
        )
        self._to_act = piece("to_act", n, 1, "one-hot relative seat of the player to act")
        self._hand = piece("my_hand", s, _MAX_SPECIES, "cards of each species in my hand")
        self._sizes = piece("hand_sizes", n, TOTAL_CARDS, "hand size of each seat")
        self._known = piece(
            "known_hands", (n, s), _MAX_SPECIES, "cards publicly known to be in each hand"
        )
        self._exact = piece(
            "exact", (n, s), 1, "1: the seat holds exactly its known cards of the species"
        )
        self._coll = piece("collections", (n, s), _MAX_SPECIES, "each seat's collection")
        self._rows = piece(
            "rows",
            (NUM_ROWS, s, s),
            _MAX_SPECIES,
            "rows[r,b,s]: size of block b of row r if species s",
        )
        self._draw = piece("draw_size", 1, TOTAL_CARDS, "cards in the draw pile")
        self._pool = piece(
            "draw_pool", s, _MAX_SPECIES, "known cards of the draw pile and of those drawn unseen"
        )
        self._pool_unknown = piece(
            "draw_pool_unknown", 1, TOTAL_CARDS, "further such cards of a species unknown to me"
        )
        self._disc = piece("discard_size", 1, TOTAL_CARDS, "cards in the discard pile")
        self._seen = piece(
            "discard_seen", s, _MAX_SPECIES, "discard-pile cards I know the species of"
        )
        # Write offsets of each seat's per-seat entries, by observer (no modulo on the hot path).
        self._seat_offsets = [[((q - p) % n) for q in range(n)] for p in range(n)]
        # The last row seen at each row index and its piece: most steps change one row at most,
        # so comparing with the last one hits far more often than a dict of recent rows would.
        self._last_rows: list[list[int] | None] = [None] * NUM_ROWS
        self._last_blocks: list[bytes] = [b""] * NUM_ROWS

        sp = self.state_piece
        self._s_phase = sp("phase", 3, 1, "one-hot decision pending: lay, draw, flock")
        self._s_to_act = sp("to_act", n, 1, "one-hot seat of the player to act")
        self._s_hands = sp("hands", (n, s), _MAX_SPECIES, "every hand, seat 0 first")
        self._s_known = sp("known_hands", (n, s), _MAX_SPECIES, "publicly known cards per hand")
        self._s_exact = sp("exact", (n, s), 1, "1: the seat holds exactly its known cards")
        self._s_coll = sp("collections", (n, s), _MAX_SPECIES, "each seat's collection")
        self._s_rows = sp("rows", (NUM_ROWS, s, s), _MAX_SPECIES, "as in the observation")
        self._s_draw = sp("draw_pile", s, _MAX_SPECIES, "cards of each species in the draw pile")
        self._s_disc = sp("discard_pile", s, _MAX_SPECIES, "cards of each species in the discard")

    def mask(self, state: State) -> np.ndarray:
        # In the lay phase the legal lays depend only on which species are in hand: 256 masks.
        if state.phase != LAY_PHASE:
            return super().mask(state)
        key = bytes(state.hands[state.current_player]).translate(_PRESENT)
        mask = _LAY_MASKS.get(key)
        if mask is None:
            mask = _LAY_MASKS[key] = bytes(super().mask(state))
        return np.frombuffer(bytearray(mask), dtype=np.int8)

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        # Count pieces are copied as whole byte strings (one memcpy each) rather than per entry.
        current = state.current_player
        if current >= 0:
            if current == player:
                buf[self._phase + state.phase] = 1
            buf[self._to_act + self._seat_offsets[player][current]] = 1
        o = self._hand
        buf[o : o + NUM_SPECIES] = bytes(state.hands[player])
        o_sizes, o_known, o_exact, o_coll = self._sizes, self._known, self._exact, self._coll
        hand_sizes, known, exact = state.hand_sizes, state.known, state.exact_bits
        collections = state.collections
        for q, rel in enumerate(self._seat_offsets[player]):
            buf[o_sizes + rel] = hand_sizes[q]
            o = rel * NUM_SPECIES
            if any(known[q]):  # the buffer is zeroed: most of the time nothing is known
                buf[o_known + o : o_known + o + NUM_SPECIES] = bytes(known[q])
            if exact[q]:
                buf[o_exact + o : o_exact + o + NUM_SPECIES] = _FLAGS[exact[q]]
            buf[o_coll + o : o_coll + o + NUM_SPECIES] = bytes(collections[q])
        self._write_rows(state, buf, self._rows)
        buf[self._draw] = len(state.draw)
        o = self._pool
        buf[o : o + NUM_SPECIES] = state.pool_lb[player]
        buf[self._pool_unknown] = state.pool_unknown[player]
        buf[self._disc] = state.discard_size
        o = self._seen
        buf[o : o + NUM_SPECIES] = state.discard_known[player]

    def state_into(self, state: State, buf: bytearray) -> None:
        current = state.current_player
        if current >= 0:
            buf[self._s_phase + state.phase] = 1
            buf[self._s_to_act + current] = 1
        for q in range(self.num_players):
            o = q * NUM_SPECIES
            buf[self._s_hands + o : self._s_hands + o + NUM_SPECIES] = bytes(state.hands[q])
            buf[self._s_known + o : self._s_known + o + NUM_SPECIES] = bytes(state.known[q])
            buf[self._s_exact + o : self._s_exact + o + NUM_SPECIES] = _FLAGS[state.exact_bits[q]]
            buf[self._s_coll + o : self._s_coll + o + NUM_SPECIES] = bytes(state.collections[q])
        self._write_rows(state, buf, self._s_rows)
        o = self._s_draw
        for card in state.draw:
            buf[o + card] += 1
        o = self._s_disc
        buf[o : o + NUM_SPECIES] = bytes(state.discard)

    def _write_rows(self, state: State, buf: bytearray, o: int) -> None:
        last_rows, last_blocks = self._last_rows, self._last_blocks
        for r, row in enumerate(state.rows):
            if row != last_rows[r]:
                last_rows[r] = row[:]  # a copy: the engine changes its rows in place
                key = tuple(row)
                block = _ROW_PIECES.get(key)
                if block is None:
                    if len(_ROW_PIECES) >= _MAX_ROW_PIECES:
                        _ROW_PIECES.clear()
                    block = _ROW_PIECES[key] = _row_blocks(key)
                last_blocks[r] = block
            buf[o : o + _ROW_SIZE] = last_blocks[r]
            o += _ROW_SIZE


#: Row pieces by row content, shared by every Cubirds encoder of the process. The last row per
#: index (above) serves an env that encodes one game; an encoder that serves many games in turn
#: (the batched training env: K games, one encoder) finds a game's unchanged rows here instead.
#: Bounded: emptied when full (about 1 MB at the bound).
_ROW_PIECES: dict[tuple[int, ...], bytes] = {}
_MAX_ROW_PIECES = 4096
#: Lay-phase masks by species present in the hand (at most 256), shared by every Cubirds env:
#: the move universe and the lay rules are the same for every player count and option.
_LAY_MASKS: dict[bytes, bytes] = {}
_PRESENT = bytes([0] + [1] * 255)  # bytes.translate table: a count -> 1 if nonzero
#: The ``exact`` piece of one seat from its bit mask (bit s = species s).
_FLAGS = tuple(bytes(b >> s & 1 for s in range(NUM_SPECIES)) for b in range(1 << NUM_SPECIES))


def _row_blocks(row: tuple[int, ...]) -> bytes:
    """The ``rows[r]`` piece of one row: block b (from the left), species s -> block size.

    Built only when the row at that index changed, so it can afford the engine's ``row_blocks``.
    """
    piece = bytearray(_ROW_SIZE)
    for b, (s, count) in enumerate(row_blocks(row)):
        piece[b * NUM_SPECIES + s] = count
    return bytes(piece)


class CubirdsLookaheadEncoder(CubirdsEncoder):
    """Opt-in encoder ``"lookahead"`` (version 1): the default pieces, then what each legal move
    leads to, one ply ahead, for the player to act.

    Why: a policy network cannot easily compute from the row blocks what a lay captures and what it
    leaves the next player (docs/cubirds_ablations.md: a clone of the heuristic matches only one
    lay in five). These pieces give it the consequences directly: the cards each lay captures,
    and the heuristic's one-ply value of every legal move (``CubirdsHeuristic.move_values``:
    collection progress, expected hand value, the next player's best capture), scaled so that the
    best move reads ``61`` and each point of value below it costs 2 (floored at 1; 0 = illegal).
    Both are functions of the acting seat's view; every other seat sees zeros there, as in
    ``phase``. Computing them costs about one heuristic decision per observation.
    """

    name = "lookahead"
    version = "1"
    #: the encoded value of the best legal move; a legal move reads 1 at worst
    TOP = 61

    def __init__(self, config: Config) -> None:
        super().__init__(config)
        from cardzoo.agents.cubirds_heuristic import CubirdsHeuristic  # agents import encoders

        self._adviser = CubirdsHeuristic(seed=0)  # its values never use its rng
        self._move_value = self.piece(
            "move_value",
            len(MOVES),
            self.TOP,
            f"heuristic one-ply value of each of my legal moves: {self.TOP} best, 2 per point less",
        )
        self._captures = self.piece(
            "lay_captures", NUM_LAY_MOVES, TOTAL_CARDS, "cards each legal lay of mine would capture"
        )

    def encode_into(self, state: State, player: int, buf: bytearray) -> None:
        super().encode_into(state, player, buf)
        if state.current_player != player:
            return
        legal = state.legal_move_ids()
        scored = self._adviser.move_values(state.view(player), legal)
        if not scored:
            return
        best = max(v for v, _ in scored)
        o, top = self._move_value, self.TOP
        for v, m in scored:
            buf[o + m] = max(1, top - round(2.0 * (best - v))) if v > best - top else 1
        if state.phase == LAY_PHASE:
            o = self._captures
            hand, rows = state.hands[player], state.rows
            for m in legal:
                if m < NUM_LAY_MOVES:
                    s, r, end = m >> 3, (m >> 1) & 3, m & 1
                    buf[o + m] = len(lay_on_row(rows[r], s, end, hand[s])[0])


ENCODERS = {"default": CubirdsEncoder, "lookahead": CubirdsLookaheadEncoder}
