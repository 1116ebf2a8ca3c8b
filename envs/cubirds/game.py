"""Cubirds rules engine (Stefan Alexander, Catch Up Games 2018), 2-5 players.

Implements the Cubirds rules as documented in ``docs/rules/cubirds.md``; the section numbers below
(§) are those of the project's rules specification it was written from. No RL imports: a
researcher can use :class:`State` alone for search or analysis.

Representation (chosen for a fast hot path):

- hands, collections and the public "known cards" are lists of 8 counts (one per species);
- a row is a list of species ids, index 0 = its left end;
- the draw pile is a list whose **last** element is its top card (``pop()`` draws);
- the discard pile is a list of 8 counts (its order never matters: it is shuffled before reuse).

A turn is a sequence of decisions by the same player, each one move (the phases, their moves and
the move ids: :mod:`cardzoo.envs.cubirds.moves`). The draw phase exists only after a lay that
captured nothing (§4.1). With ``flock_step="auto"`` (default) the flock phase is skipped when
passing is the only choice (§4.2); with ``"always"`` it is always asked. Either way the public
record is that of a pass, and no view shows the phase to anyone but the player to act.

What everyone knows beyond the table (§9), kept up to date on every move:

- ``known[q]``: cards captured face up into seat ``q``'s hand and not laid or flocked since;
- ``exact_bits[q]`` bit ``s`` (readable as ``exact[q][s]``): set once ``q`` laid or flocked
  species ``s`` (all of them leave the hand), until ``q`` next takes cards unseen: ``q`` then
  holds exactly ``known[q][s]`` of ``s``;
- the draw pile's *pool*: when the pile's composition was last known (setup, a round end with the
  hands shown, a reshuffle of a public discard pile) minus the cards seen leaving it since; the
  cards drawn from it unseen are known only as a group. With ``reveal_round_end_discards=False``
  each seat also remembers its own thrown-away hand, so the pool and the discard pile are known
  per seat (``pool_lb``, ``pool_unknown``, ``discard_known``; the per-species counts are
  ``bytearray`` s, which the encoder copies as they are);
- ``log``: the events that moved unseen cards, which :meth:`State.determinize` replays (see
  :mod:`cardzoo.envs.cubirds.hidden`).

Decisions taken here where the rules spec leaves a detail open:

- Rows, refills and deals draw from the top of the pack; the setup deal gives 8 cards to each
  player at a time, dealer first, and the round-end deal does the same (§3, §5).
- ``turn`` counts completed turns; a round-ending turn counts once. ``move_count`` counts moves.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

import numpy as np
from cardzoo.envs.core import GameState, clone_rng, make_rng, resolve_first_player
from cardzoo.envs.cubirds import hidden, positions
from cardzoo.envs.cubirds.config import Config
from cardzoo.envs.cubirds.data import (
    BIG_FLOCK,
    CARD_COUNTS,
    CARD_TOTALS,
    DRAW_OPTION_CARDS,
    DRAW_PHASE,
    END_EXHAUSTION,
    END_FAILED_DEAL,
    END_WIN,
    EV_BATCH,
    EV_CLOSE,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    FLOCK_PHASE,
    GAME_OVER,
    HAND_SIZE,
    LAY_PHASE,
    NUM_ROWS,
    NUM_SPECIES,
    PHASE_NAMES,
    ROW_SETUP_SIZE,
    SMALL_FLOCK,
    WIN_SPECIES_PRESENT,
    WIN_TRIPLE_SIZE,
    WIN_TRIPLES,
)
from cardzoo.envs.cubirds.hidden import View
from cardzoo.envs.cubirds.moves import (
    DECLINE_DRAW,
    FLOCK_BASE,
    LAY_IDS,
    LEFT,
    MOVE_INDEX,
    MOVES,
    NUM_LAY_MOVES,
    NUM_MOVES,
    PASS_FLOCK,
    RIGHT,
    TAKE_DRAW,
    Draw,
    Flock,
    Lay,
    Move,
    move_from_id,
)
from cardzoo.envs.cubirds.positions import species_counts
from cardzoo.envs.cubirds.render import render_state, render_view, row_blocks

# Names that lived here before the engine was split into rooms stay importable from here.
__all__ = [
    "CARD_TOTALS",
    "DECLINE_DRAW",
    "DRAW_PHASE",
    "END_EXHAUSTION",
    "END_FAILED_DEAL",
    "END_WIN",
    "FLOCK_BASE",
    "FLOCK_PHASE",
    "GAME_OVER",
    "LAY_PHASE",
    "LEFT",
    "MOVES",
    "MOVE_INDEX",
    "NUM_LAY_MOVES",
    "NUM_MOVES",
    "PASS_FLOCK",
    "PHASE_NAMES",
    "RIGHT",
    "TAKE_DRAW",
    "Config",
    "Draw",
    "Flock",
    "Lay",
    "Move",
    "State",
    "View",
    "has_won",
    "lay_on_row",
    "move_from_id",
    "render_view",
    "row_blocks",
]

RowT = TypeVar("RowT", list[int], tuple[int, ...])


# ---------------------------------------------------------------------------------------------
# The state


class State(GameState):
    """A Cubirds game in progress. See the module docstring for the representation."""

    MOVES = MOVES
    MOVE_INDEX = MOVE_INDEX
    TITLE = "Cubirds"
    PHASE_NAMES = PHASE_NAMES
    END_REASONS: ClassVar[tuple[str, ...]] = (END_WIN, END_FAILED_DEAL, END_EXHAUSTION)

    __slots__ = (
        "config",
        "num_players",
        "rng",
        "hands",
        "hand_sizes",
        "known",
        "exact_bits",
        "collections",
        "rows",
        "draw",
        "discard",
        "discard_size",
        "discard_public",
        "discard_known",
        "src_known",
        "src_size",
        "taken_seen",
        "pool_lb",
        "pool_unknown",
        "log",
        "current_player",
        "phase",
        "turn",
        "round",
        "move_count",
        "terminal",
        "end_reason",
        "_winners",
        "_ask_flock",
    )

    def __init__(
        self, config: Config | None = None, seed: int | np.random.Generator | None = None
    ) -> None:
        config = Config() if config is None else config
        if not isinstance(config, Config):
            raise TypeError(f"config must be a cubirds Config, got {type(config).__name__}")
        self._blank(config, make_rng(seed))

        # §3 setup. The pack's top is its last element.
        n = config.num_players
        rng = self.rng
        dealer = resolve_first_player(config.first_player, n, rng)
        pack = [s for s in range(NUM_SPECIES) for _ in range(CARD_COUNTS[s])]
        rng.shuffle(pack)
        set_aside: list[int] = []
        for row in self.rows:
            while len(row) < ROW_SETUP_SIZE:
                card = pack.pop()
                if card in row:
                    set_aside.append(card)
                else:
                    row.append(card)
        pack.extend(set_aside)
        rng.shuffle(pack)
        self.draw = pack
        hidden.new_source(self)  # everyone knows the pack holds every card not in a row
        for i in range(n):
            self._draw_hidden((dealer + i) % n, HAND_SIZE)
        for i in range(n):
            self.collections[(dealer + i) % n][self._draw_public()] += 1
        self.current_player = dealer

    def _blank(self, config: Config, rng: np.random.Generator) -> None:
        """Every field of an empty table (no cards anywhere)."""
        n = config.num_players
        self.config = config
        self.num_players = n
        self.rng = rng
        self.hands = [[0] * NUM_SPECIES for _ in range(n)]
        self.hand_sizes = [0] * n
        self.known = [[0] * NUM_SPECIES for _ in range(n)]
        self.exact_bits = [0] * n
        self.collections = [[0] * NUM_SPECIES for _ in range(n)]
        self.rows: list[list[int]] = [[] for _ in range(NUM_ROWS)]
        self.draw: list[int] = []
        self.discard = [0] * NUM_SPECIES
        self.discard_size = 0
        self.discard_public = [0] * NUM_SPECIES
        self.discard_known = [bytearray(NUM_SPECIES) for _ in range(n)]
        self.src_known = [[0] * NUM_SPECIES for _ in range(n)]
        self.src_size = 0
        self.taken_seen = [0] * NUM_SPECIES
        self.pool_lb = [bytearray(NUM_SPECIES) for _ in range(n)]
        self.pool_unknown = [0] * n
        self.log: list[tuple] = []
        self.current_player = 0
        self.phase = LAY_PHASE
        self.turn = 0
        self.round = 1
        self.move_count = 0
        self.terminal = False
        self.end_reason: str | None = None
        self._winners: tuple[int, ...] = ()
        self._ask_flock = config.flock_step == "always"

    # -- building hand-set positions (scenario tests, analysis) ---------------------------------

    @classmethod
    def from_position(
        cls,
        config: Config | None = None,
        *,
        hands: list[list[int]] | list[str],
        rows: list[list[int]] | list[str],
        draw: list[int] | str = (),
        discard: list[int] | str = (),
        collections: list[list[int]] | list[str] | None = None,
        current_player: int = 0,
        seed: int | None = 0,
    ) -> State:
        """A hand-set position at the start of ``current_player``'s turn.

        Cards may be given as species ids or as the spec's letters (``"PPOM"``). ``draw`` is listed
        **top first**, as in the rules spec. The deck need not be complete (scenario tests use
        partial decks), so :meth:`census` totals then differ from ``CARD_TOTALS``. What players
        know: the discard pile is public, and each hand is as if just dealt unseen from one pack
        holding the draw pile and the hands.
        """
        return positions.from_position(
            cls,
            config,
            hands=hands,
            rows=rows,
            draw=draw,
            discard=discard,
            collections=collections,
            current_player=current_player,
            seed=seed,
        )

    # -- the contract ---------------------------------------------------------------------------

    def legal_move_ids(self) -> list[int]:
        """Ids of the legal moves for the current player, ascending."""
        phase = self.phase
        if phase == LAY_PHASE:
            hand = self.hands[self.current_player]
            ids: list[int] = []
            for s in range(NUM_SPECIES):
                if hand[s]:
                    ids += LAY_IDS[s]
            return ids
        if phase == DRAW_PHASE:
            return [DECLINE_DRAW, TAKE_DRAW]
        if phase == FLOCK_PHASE:
            hand = self.hands[self.current_player]
            ids = [FLOCK_BASE + s for s in range(NUM_SPECIES) if hand[s] >= SMALL_FLOCK[s]]
            ids.append(PASS_FLOCK)
            return ids
        return []

    def is_legal(self, move_id: int) -> bool:
        """Whether the move with this id is legal now (cheaper than scanning legal_move_ids)."""
        phase = self.phase
        if phase == LAY_PHASE:
            return (
                0 <= move_id < NUM_LAY_MOVES and self.hands[self.current_player][move_id >> 3] > 0
            )
        if phase == DRAW_PHASE:
            return move_id == DECLINE_DRAW or move_id == TAKE_DRAW
        if phase == FLOCK_PHASE:
            if move_id == PASS_FLOCK:
                return True
            s = move_id - FLOCK_BASE
            return 0 <= s < NUM_SPECIES and self.hands[self.current_player][s] >= SMALL_FLOCK[s]
        return False

    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env checks its mask first)."""
        self.move_count += 1
        if move_id < NUM_LAY_MOVES:
            self._lay(move_id >> 3, (move_id >> 1) & 3, move_id & 1)
        elif move_id == TAKE_DRAW:
            self._take_draw()
        elif move_id == DECLINE_DRAW:
            self._after_draw_option()
        elif move_id == PASS_FLOCK:
            self._end_turn()
        else:
            self._flock(move_id - FLOCK_BASE)

    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game is over (tied players all win); () before that."""
        return self._winners

    def scores(self) -> tuple[float, ...]:
        """Each seat's score: its collection size, except that a winner scores at least one more
        than every loser.

        A game without a win goes to the largest collections (§7), so there the winners already
        score most. A player who wins outright (7 species or two triples) may hold fewer cards than
        an opponent; their score is then raised to one more than the largest other collection, so
        ``reward="score"`` never pays a winner less than a loser. Before the end (or after a
        truncation) the scores are the collection sizes.
        """
        sizes = [float(sum(c)) for c in self.collections]
        if self.end_reason == END_WIN:
            w = self._winners[0]
            best_other = max(size for q, size in enumerate(sizes) if q != w)
            if sizes[w] <= best_other:
                sizes[w] = best_other + 1.0
        return tuple(sizes)

    def clone(self, *, copy_rng: bool = True) -> State:
        """An independent copy, RNG included (``copy_rng=False``: none yet, for a caller that
        sets its own, as ``determinize`` does; copying one costs about 3 us)."""
        new = State.__new__(State)
        new.config = self.config
        new.num_players = self.num_players
        new.rng = clone_rng(self.rng) if copy_rng else None
        new.hands = [h[:] for h in self.hands]
        new.hand_sizes = self.hand_sizes[:]
        new.known = [k[:] for k in self.known]
        new.exact_bits = self.exact_bits[:]
        new.collections = [c[:] for c in self.collections]
        new.rows = [r[:] for r in self.rows]
        new.draw = self.draw[:]
        new.discard = self.discard[:]
        new.discard_size = self.discard_size
        new.discard_public = self.discard_public[:]
        new.discard_known = [d[:] for d in self.discard_known]
        new.src_known = [k[:] for k in self.src_known]
        new.src_size = self.src_size
        new.taken_seen = self.taken_seen[:]
        new.pool_lb = [p[:] for p in self.pool_lb]
        new.pool_unknown = self.pool_unknown[:]
        new.log = self.log[:]  # events are tuples: sharing them is safe
        new.current_player = self.current_player
        new.phase = self.phase
        new.turn = self.turn
        new.round = self.round
        new.move_count = self.move_count
        new.terminal = self.terminal
        new.end_reason = self.end_reason
        new._winners = self._winners
        new._ask_flock = self._ask_flock
        return new

    def view(self, player: int) -> View:
        """What ``player`` may see (§9)."""
        self._check_seat(player)
        return hidden.build_view(self, player)

    def determinize(self, player: int, rng: np.random.Generator | int | None = None) -> State:
        """A clone where everything ``player`` has not seen is resampled consistently with all it
        has seen (not only its current view: every lay, flock and unseen draw of the game so far).

        Resampled: the hidden part of every other hand, the cards the others threw away face
        down, the draw pile (content and order) and the RNG (so future shuffles differ too). Never
        resampled: anything public or seen by ``player``. Each other hand's hidden cards are drawn
        again from the pile they came from (the pool of a reshuffled public discard pile is never
        mixed with older hidden cards), and a player never gets a card of a species it has laid
        or flocked since its last unseen draw. See :mod:`cardzoo.envs.cubirds.hidden`.
        """
        self._check_seat(player)
        return hidden.determinize(self, player, make_rng(rng))

    @property
    def exact(self) -> list[list[int]]:
        """Per seat and species: 1 if everyone knows the seat holds exactly its known cards of
        that species (it laid or flocked them since it last took cards unseen), else 0."""
        return [[b >> s & 1 for s in range(NUM_SPECIES)] for b in self.exact_bits]

    @property
    def card_totals(self) -> list[int]:
        """What :meth:`census` adds up to: the deck's count of each species."""
        return list(CARD_TOTALS)

    def census(self) -> dict[str, list[int]]:
        """Cards per species in every zone; the zones add up to ``CARD_TOTALS``."""
        zones: dict[str, list[int]] = {
            "draw": species_counts(self.draw),
            "discard": self.discard[:],
        }
        for r, row in enumerate(self.rows):
            zones[f"row{r}"] = species_counts(row)
        for q in range(self.num_players):
            zones[f"hand{q}"] = self.hands[q][:]
            zones[f"collection{q}"] = self.collections[q][:]
        return zones

    def render(self) -> str:
        """A readable table of the whole state (every hand shown: this is the referee's view)."""
        return render_state(self)

    def render_for(self, player: int) -> str:
        """A readable table of what seat ``player`` may see: its own hand, every hand's size and
        publicly known cards, what each seat is known not to hold, the rows, collections and piles.
        Built from :meth:`view` alone, so it never shows a hidden card."""
        return render_view(self.view(player))

    def __repr__(self) -> str:
        return (
            f"<cubirds State {self.num_players}p turn {self.turn} phase {PHASE_NAMES[self.phase]}>"
        )

    # -- rules ----------------------------------------------------------------------------------

    def _lay(self, species: int, r: int, end: int) -> None:
        """Phase 1 (§4.1): lay, capture, refill, then offer the draw or go to phase 2."""
        p = self.current_player
        hand = self.hands[p]
        known = self.known[p]
        laid = hand[species]
        self.log.append((EV_CLOSE, p, species, laid - known[species]))
        hand[species] = 0
        known[species] = 0
        self.exact_bits[p] |= 1 << species
        self.hand_sizes[p] -= laid
        captured, row = lay_on_row(self.rows[r], species, end, laid)
        self.rows[r] = row

        if captured:
            for s in captured:
                hand[s] += 1
                known[s] += 1
            self.hand_sizes[p] += len(captured)
            if row.count(species) == len(row) and not self._refill(row, end):
                return
            self._enter_flock_phase()
        elif self.hand_sizes[p] == 0 and not self.config.draw_after_empty_hand:
            self._end_round()  # §4.4: the lay emptied the hand
        else:
            self.phase = DRAW_PHASE

    def _refill(self, row: list[int], end: int) -> bool:
        """Add cards at the laid end until the row holds two species. False if the game ended."""
        only = row[0]
        while True:
            card = self._draw_public()
            if card < 0:
                if self.config.midturn_exhaustion == "end_game":
                    self._end_by_collections(END_EXHAUSTION)
                    return False
                return True  # "partial": the row stays single-species
            if end == LEFT:
                row.insert(0, card)
            else:
                row.append(card)
            if card != only:
                return True

    def _take_draw(self) -> None:
        """Take the top 2 cards of the draw pile (§4.1), then continue the turn."""
        if (
            self.config.midturn_exhaustion == "end_game"
            and len(self.draw) + self.discard_size < DRAW_OPTION_CARDS
        ):
            self._end_by_collections(END_EXHAUSTION)
            return
        self._draw_hidden(self.current_player, DRAW_OPTION_CARDS)
        self._after_draw_option()

    def _after_draw_option(self) -> None:
        if self.hand_sizes[self.current_player] == 0:
            self._end_round()  # only reachable with draw_after_empty_hand=True (§4.4)
        else:
            self._enter_flock_phase()

    def _enter_flock_phase(self) -> None:
        hand = self.hands[self.current_player]
        for s in range(NUM_SPECIES):
            if hand[s] >= SMALL_FLOCK[s]:
                self.phase = FLOCK_PHASE
                return
        if self._ask_flock:  # flock_step="always": ask even when pass is the only choice
            self.phase = FLOCK_PHASE
            return
        self._end_turn()  # only "pass" is legal: skip the decision (§4.2, flock_step="auto")

    def _flock(self, species: int) -> None:
        """Phase 2 (§4.2): bank 1 or 2 cards of the revealed flock, discard the rest."""
        p = self.current_player
        hand = self.hands[p]
        count = hand[species]
        self.log.append((EV_CLOSE, p, species, count - self.known[p][species]))
        banked = 2 if count >= BIG_FLOCK[species] else 1
        hand[species] = 0
        self.known[p][species] = 0
        self.exact_bits[p] |= 1 << species
        self.hand_sizes[p] -= count
        collection = self.collections[p]
        collection[species] += banked
        discarded = count - banked
        self.discard[species] += discarded
        self.discard_public[species] += discarded
        for seen in self.discard_known:
            seen[species] += discarded
        self.discard_size += discarded
        if has_won(collection):
            self._finish((p,), END_WIN)
            return
        self._end_turn()

    def _end_turn(self) -> None:
        """End-of-turn checks (§4.3) after the win test: empty hand ends the round."""
        p = self.current_player
        if self.hand_sizes[p] == 0:
            self._end_round()
            return
        self.turn += 1
        self.current_player = (p + 1) % self.num_players
        self.phase = LAY_PHASE

    def _end_round(self) -> None:
        """§5: discard the other hands, check the deal, deal anew; the ender plays next."""
        self.turn += 1
        ender = self.current_player
        n = self.num_players
        reveal = self.config.reveal_round_end_discards
        leftovers = []
        for q in range(n):
            hand = self.hands[q]
            known = self.known[q]
            # Face down, only the captured cards (seen entering the hand) are public; the owner
            # remembers the rest of its own hand.
            public = hand if reveal else known
            if not reveal:
                leftovers.append(tuple(h - k for h, k in zip(hand, known)))
            for s in range(NUM_SPECIES):
                c = hand[s]
                if c:
                    self.discard[s] += c
                    shown = public[s]
                    if shown:
                        self.discard_public[s] += shown
                        for seen in self.discard_known:
                            seen[s] += shown
                    if c > shown:
                        self.discard_known[q][s] += c - shown
                    hand[s] = 0
            self.discard_size += self.hand_sizes[q]
            self.hand_sizes[q] = 0
            self.known[q] = [0] * NUM_SPECIES
        if reveal:
            hidden.new_source(
                self
            )  # every other card is public now, so the pile's content is known
        else:
            # The pile's content is hidden; it is logged for determinize's last resort only.
            self.log.append((EV_ROUND_END, tuple(leftovers), tuple(species_counts(self.draw))))
        if len(self.draw) + self.discard_size < HAND_SIZE * n:
            self._end_by_collections(END_FAILED_DEAL)
            return
        for i in range(n):
            self._draw_hidden((ender + i) % n, HAND_SIZE)
        self.round += 1
        self.phase = LAY_PHASE

    # -- drawing and what is known about the draw pile -------------------------------------------

    def _draw_hidden(self, q: int, k: int) -> int:
        """Seat ``q`` takes up to ``k`` cards unseen (deal, 2-card draw); returns how many (§6)."""
        draw = self.draw
        hand = self.hands[q]
        if len(draw) >= k:  # the usual case: no reshuffle in between
            counts = [0] * NUM_SPECIES
            for _ in range(k):
                card = draw.pop()
                hand[card] += 1
                counts[card] += 1
            self.log.append((EV_BATCH, q, tuple(counts)))
            self.hand_sizes[q] += k
            self.exact_bits[q] = 0
            return k
        taken = 0
        while taken < k:
            if not draw and not self._reshuffle():
                break
            # One batch per pile: the cards before a reshuffle came from the old pile.
            part = min(k - taken, len(draw))
            counts = [0] * NUM_SPECIES
            for _ in range(part):
                card = draw.pop()
                hand[card] += 1
                counts[card] += 1
            self.log.append((EV_BATCH, q, tuple(counts)))
            taken += part
        if taken:
            self.hand_sizes[q] += taken
            self.exact_bits[q] = 0
        return taken

    def _draw_public(self) -> int:
        """The top card of the draw pile, seen by all (refill, setup collection card); -1 when
        both piles are empty (§6)."""
        if not self.draw and not self._reshuffle():
            return -1
        card = self.draw.pop()
        self.log.append((EV_PUBLIC, card))
        taken = self.taken_seen[card] + 1
        self.taken_seen[card] = taken
        # Per seat: a card it knew to be in the pool, or one of the pool cards it could not name.
        for q, known in enumerate(self.src_known):
            if taken <= known[card]:
                self.pool_lb[q][card] -= 1
            else:
                self.pool_unknown[q] -= 1
        return card

    def _reshuffle(self) -> bool:
        """Shuffle the discard pile into a new draw pile (§6); False if it is empty."""
        if not self.discard_size:
            return False
        draw = self.draw
        for s in range(NUM_SPECIES):
            draw += [s] * self.discard[s]
        self.rng.shuffle(draw)
        self.log.append((EV_RESHUFFLE, tuple(self.discard_public)))
        self.src_size = self.discard_size
        self.src_known = [list(seen) for seen in self.discard_known]
        hidden.reset_pool(self)
        self.discard = [0] * NUM_SPECIES
        self.discard_public = [0] * NUM_SPECIES
        self.discard_known = [bytearray(NUM_SPECIES) for _ in range(self.num_players)]
        self.discard_size = 0
        return True

    def _end_by_collections(self, reason: str) -> None:
        """§7: the largest collections win; ties share the victory."""
        sizes = [sum(c) for c in self.collections]
        best = max(sizes)
        self._finish(tuple(q for q in range(self.num_players) if sizes[q] == best), reason)

    def _finish(self, winners: tuple[int, ...], reason: str) -> None:
        self.terminal = True
        self.phase = GAME_OVER
        self.current_player = -1
        self._winners = winners
        self.end_reason = reason


def lay_on_row(row: RowT, species: int, end: int, count: int) -> tuple[RowT, RowT]:
    """``(captured, new_row)`` after laying ``count`` cards of ``species`` at ``end`` of ``row``.

    Pure (§4.1): ``row`` (a list or a tuple) is not modified; the results have its type.
    """
    laid = type(row)((species,)) * count
    if species not in row:
        return row[:0], (laid + row if end == LEFT else row + laid)
    if end == LEFT:
        j = row.index(species)  # the nearest card of the species from the left
        return row[:j], laid + row[j:]
    j = len(row) - 1 - row[::-1].index(species)  # the nearest from the right
    return row[j + 1 :], row[: j + 1] + laid


def has_won(collection: list[int] | tuple[int, ...]) -> bool:
    """Whether a collection meets a win condition (§4.3): 7 species, or 3+ of 2 species."""
    present = 0
    triples = 0
    for c in collection:
        if c:
            present += 1
            if c >= WIN_TRIPLE_SIZE:
                triples += 1
    return present >= WIN_SPECIES_PRESENT or triples >= WIN_TRIPLES
