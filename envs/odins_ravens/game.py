"""Odin's Ravens rules engine (Thorsten Gimmler, Kosmos 2002 edition), 2 players.

Implements ``docs/rules/odins_ravens.md`` (the project's rules spec ``odins_ravens.md``; section
numbers below refer to it): the double-sided land track and its dealing rule, each raven's own
path and group flights, jokers, the Odin stone and stone entries, the auxiliary deck, the Magic
Way, discarding, the four Odin cards with both options, the end-of-turn extension, refills with
reshuffles, the race end and scoring, the next race, the game to 12 and both truncation caps.
No RL imports: a researcher can use :class:`State` alone for search or analysis.

Representation (chosen for a fast hot path)
-------------------------------------------
- The track is two lists ``paths[0]``, ``paths[1]`` of land types; ``paths[p][k]`` is card k's
  space on seat p's path. Rotating card k swaps ``paths[0][k]`` and ``paths[1][k]``.
- Ravens: ``pos[p]`` in ``-1..L-1``. The stone: ``stone_card`` (-1 off the board), ``stone_path``.
- A player's card is a kind ``0..8`` (``data``). Hands, discard piles are lists of 9 counts; the
  auxiliary deck and the draw pile are lists of kinds whose **last** element is the top card;
  a Magic Way row is the list of kinds in the order played.
- The land deck holds land cards as codes ``5*a + b`` (its **last** element is the top card);
  ``land_known`` counts its bottom cards that everybody saw (rejected at setup or removed by
  O3-B), which keep their order.

A turn is a sequence of decisions by the same player (see ``moves.py`` for the 264 move ids):
plays in the ``play`` phase, with sub-decisions in the ``rearrange`` (O2-A), ``target card``
(O3-A, O3-B, O4-B), ``target space`` (O4-A) and ``orient`` (O2-B, extension) phases; then
``EndTurn``, the ``extend`` decision, the refill, and the other seat's turn.

Decisions taken here where the rules spec leaves a detail open
--------------------------------------------------------------
- The Odin cards' open details (O2-A, O2-B and the extension's orientation, O4-B) are listed
  in ``odin.py``.
- ``joker_requires_no_match``: see ``plays.py``.
- The game cap of the spec (``max_turns_per_game``) is the contract's ``max_turns``. A
  race-ending turn counts as a turn. After a cap the engine still accepts moves (truncation is
  the caller's business); :attr:`State.truncated` says whether a cap was reached.
- ``scores()`` are the totals; on equal totals at the end, the tiebreak winner gets +0.5 so a
  winner always scores more than the loser.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from cardzoo.envs.core import (
    CachedLegalMoves,
    GameState,
    clone_rng,
    make_rng,
    resolve_first_player,
)
from cardzoo.envs.odins_ravens import hidden, positions
from cardzoo.envs.odins_ravens.config import Config, card_totals
from cardzoo.envs.odins_ravens.data import (
    CODE_PAIR,
    END_SCORE,
    EXTEND,
    FOR_EXTENSION,
    FOR_O2B,
    GAME_OVER,
    HAND_SIZE,
    LAND_KIND_BASE,
    MAGIC_WAY_BONUS,
    MAGIC_WAY_KIND_BASE,
    NUM_CENSUS_KINDS,
    NUM_KINDS,
    NUM_MAGIC_WAY_CARDS,
    NUM_TYPES,
    ODIN_SYMBOL,
    OP_NAMES,
    OP_REMOVE,
    OP_ROTATE,
    OP_SWAP_FIRST,
    OP_SWAP_SECOND,
    ORIENT,
    PHASE_NAMES,
    PLAY,
    PLAYER_KINDS,
    REARRANGE,
    START_TRACK,
    TARGET_CARD,
    TARGET_SCORE,
    TARGET_SPACE,
)
from cardzoo.envs.odins_ravens.hidden import View
from cardzoo.envs.odins_ravens.moves import (
    DISCARD,
    DISCARD_AUX,
    END_TURN,
    ENTRY3,
    ENTRY4,
    EXTEND_NO,
    EXTEND_YES,
    FLY,
    MAGIC_WAY,
    MAGIC_WAY_AUX,
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    ODIN,
    ORIENT_HIGH,
    REORDER,
    STASH,
    STONE_TARGET,
    TARGET,
)
from cardzoo.envs.odins_ravens.odin import OdinCards
from cardzoo.envs.odins_ravens.plays import Plays
from cardzoo.envs.odins_ravens.render import land_name, render_state, render_view, symbols_name

# Names that live in the other rooms, importable from here as before.
__all__ = [
    "CODE_PAIR",
    "END_SCORE",
    "EXTEND",
    "FOR_EXTENSION",
    "FOR_O2B",
    "GAME_OVER",
    "LAND_KIND_BASE",
    "MAGIC_WAY_KIND_BASE",
    "NUM_CENSUS_KINDS",
    "OP_NAMES",
    "OP_REMOVE",
    "OP_ROTATE",
    "OP_SWAP_FIRST",
    "OP_SWAP_SECOND",
    "ORIENT",
    "PHASE_NAMES",
    "PLAY",
    "PLAYER_KINDS",
    "REARRANGE",
    "TARGET_CARD",
    "TARGET_SPACE",
    "Config",
    "State",
    "View",
    "card_totals",
    "deal_track",
    "land_name",
    "move_from_id",
    "symbols_name",
]


def move_from_id(move_id: int) -> Any:
    """The move with this id in the move universe."""
    return MOVES[move_id]


# ---------------------------------------------------------------------------------------------
# Setup of the track (§3 step 1)


def deal_track(
    deck: list[int], length: int, flip: Callable[[], bool]
) -> tuple[list[int], list[int], int]:
    """Deal ``length`` land cards from ``deck`` (codes ``5*a + b``, top = last) into a row.

    ``flip()`` is the random orientation of each card as it arrives (True: rotated from its code).
    A card clashing with the previous one on either path is rotated; if it still clashes it goes
    to the bottom of ``deck``. Once every card left has been rejected for the current index, the
    next one is taken in the orientation with fewer clashing paths (the dealt one on a tie).
    Returns the two paths and how many bottom cards of ``deck`` were seen (rejected face up).
    ``deck`` is consumed in place.
    """
    p0: list[int] = []
    p1: list[int] = []
    known = 0
    rejected = 0  # cards rejected for the current index (all at the bottom)
    while len(p0) < length and deck:
        guard = rejected >= len(deck)
        code = deck.pop()
        known = min(known, len(deck))
        a, b = divmod(code, NUM_TYPES)
        if flip():
            a, b = b, a
        if p0:
            last0, last1 = p0[-1], p1[-1]
            clash = (a == last0) + (b == last1)
            turned = (b == last0) + (a == last1)
            if clash and (turned == 0 or (guard and turned < clash)):
                a, b = b, a
            elif clash and not guard:
                deck.insert(0, code)
                known += 1
                rejected += 1
                continue
        p0.append(a)
        p1.append(b)
        rejected = 0
    return p0, p1, known


# ---------------------------------------------------------------------------------------------
# The game


class State(Plays, OdinCards, CachedLegalMoves, GameState):
    """A complete game of Odin's Ravens (several races to 12 points). See the module docstring."""

    MOVES = MOVES
    MOVE_INDEX = MOVE_INDEX
    TITLE = "Odin's Ravens"
    PHASE_NAMES = PHASE_NAMES
    END_REASONS: ClassVar[tuple[str, ...]] = (END_SCORE,)

    __slots__ = (
        "config",
        "num_players",
        "rng",
        "first_player",
        "paths",
        "land_deck",
        "land_known",
        "pos",
        "stone_card",
        "stone_path",
        "magic_way",
        "magic_way_down",
        "magic_way_rows",
        "_mw_match",
        "hands",
        "aux",
        "draws",
        "discards",
        "logs",
        "known_from",
        "_beliefs",
        "reshuffled",
        "drawn_since",
        "totals",
        "race",
        "race_turn",
        "turn",
        "move_count",
        "race_first",
        "last_race",
        "current_player",
        "phase",
        "target_op",
        "swap_first",
        "pending_land",
        "orient_for",
        "o2b_left",
        "rearranged",
        "used_hand",
        "used_aux",
        "o2b_used",
        "terminal",
        "end_reason",
        "_winners",
        "_legal",
    )

    def __init__(
        self, config: Config | None = None, seed: int | np.random.Generator | None = None
    ) -> None:
        config = Config() if config is None else config
        if not isinstance(config, Config):
            raise TypeError(f"config must be an odins_ravens Config, got {type(config).__name__}")
        self.config = config
        self.num_players = 2
        self.rng = rng = make_rng(seed)
        self.first_player = resolve_first_player(config.first_player, 2, rng)
        self.totals = [0, 0]
        self.race = 0
        self.turn = 0
        self.move_count = 0
        self.last_race = (-1, 0, -1)
        self.terminal = False
        self.end_reason: str | None = None
        self._winners: tuple[int, ...] = ()
        self._new_race(self.first_player)

    # -- setting up a race ----------------------------------------------------------------------

    def _new_race(self, first: int) -> None:
        """§3: a fresh track, Magic Way, stone, decks and hands; ``first`` starts. Only the
        totals carry over (§7)."""
        rng = self.rng
        cfg = self.config
        codes = [a * NUM_TYPES + b for a, b in cfg.land_cards]
        deck = [codes[i] for i in rng.permutation(len(codes))]
        p0, p1, known = deal_track(deck, START_TRACK, lambda: bool(rng.integers(2)))
        self.paths = [p0, p1]
        self.land_deck = deck
        self.land_known = known
        self.pos = [-1, -1]
        self.stone_card = -1
        self.stone_path = -1
        order = [int(i) for i in rng.permutation(NUM_MAGIC_WAY_CARDS)]
        self._set_magic_way(order[0], order[1:])
        self.magic_way_rows = [[], []]
        full = cfg.deck
        self.hands = [[0] * NUM_KINDS, [0] * NUM_KINDS]
        self.aux = [[], []]
        self.draws = [[], []]
        self.discards = [[0] * NUM_KINDS, [0] * NUM_KINDS]
        self.logs = [[], []]
        self.known_from = [hidden.NO_CHECKPOINT, hidden.NO_CHECKPOINT]
        self._beliefs: list[hidden.Belief | None] = [None, None]
        self.reshuffled = [[0] * NUM_KINDS, [0] * NUM_KINDS]
        self.drawn_since = [0, 0]
        for p in range(2):
            cards = [k for k in range(NUM_KINDS) for _ in range(full[k])]
            self.draws[p] = [cards[i] for i in rng.permutation(len(cards))]
            self.logs[p].append((hidden.RESHUFFLE, tuple(full)))
            self._refill(p)
        self.race += 1
        self.race_turn = 0
        self.race_first = first
        self._start_turn(first)

    def _set_magic_way(self, active: int, down: list[int]) -> None:
        self.magic_way = active
        self.magic_way_down = down
        symbols = self.config.magic_way_cards[active]
        self._mw_match = tuple(
            (k in symbols) if k < NUM_TYPES else (ODIN_SYMBOL in symbols) for k in range(NUM_KINDS)
        )

    def _start_turn(self, player: int) -> None:
        self.current_player = player
        self.phase = PLAY
        self.target_op = -1
        self.swap_first = -1
        self.pending_land = -1
        self.orient_for = -1
        self.o2b_left = 0
        self.rearranged = 0
        self.used_hand = 0
        self.used_aux = 0
        self.o2b_used = False
        self._legal: list[int] | None = None

    # -- hand-set positions (scenario tests, analysis) ------------------------------------------

    @classmethod
    def from_position(cls, config: Config | None = None, **position: Any) -> State:
        """A hand-set position at the start of ``current_player``'s plays: see
        :func:`cardzoo.envs.odins_ravens.positions.from_position` for the keywords."""
        return positions.from_position(cls, config, **position)

    # -- the contract ---------------------------------------------------------------------------

    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env checks its mask first)."""
        self._legal = None
        self.move_count += 1
        phase = self.phase
        if phase == PLAY:
            if move_id < FLY:
                self._stash(move_id - STASH)
            elif move_id < MAGIC_WAY:
                self._move(move_id)
            elif move_id < DISCARD:
                self._magic_way(None if move_id == MAGIC_WAY_AUX else move_id - MAGIC_WAY)
            elif move_id < ODIN:
                self._discard(None if move_id == DISCARD_AUX else move_id - DISCARD)
            elif move_id < END_TURN:
                i = move_id - ODIN
                self._odin(i >> 2, (i >> 1) & 1, i & 1)
            else:
                self._end_plays()
        elif phase == TARGET_CARD:
            self._target_card(move_id - TARGET)
        elif phase == ORIENT:
            self._orient(move_id == ORIENT_HIGH)
        elif phase == REARRANGE:
            self._rearrange(move_id - REORDER)
        elif phase == TARGET_SPACE:
            i = move_id - STONE_TARGET
            p = self.current_player
            self._place_stone(i >> 1, p if i & 1 == 0 else 1 - p)
        elif move_id == EXTEND_YES:
            self._draw_land(FOR_EXTENSION)
        else:
            self._finish_turn()

    def winners(self) -> tuple[int, ...]:
        """The winner once the game is over (§8: there is no draw); () before."""
        return self._winners

    def scores(self) -> tuple[float, ...]:
        """The totals; at the end, +0.5 to the winner of a tie on totals (so it scores more)."""
        s = [float(t) for t in self.totals]
        if self._winners and self.totals[0] == self.totals[1]:
            s[self._winners[0]] += 0.5
        return tuple(s)

    @property
    def truncated(self) -> bool:
        """Whether a cap was reached: ``max_turns_per_race`` turns in this race, or
        ``max_turns`` in the game (and the game is not over)."""
        cfg = self.config
        return not self.terminal and (
            self.race_turn >= cfg.max_turns_per_race or self.turn >= cfg.max_turns
        )

    @property
    def track_length(self) -> int:
        return len(self.paths[0])

    def clone(self, *, copy_rng: bool = True) -> State:
        """An independent copy, RNG included (``copy_rng=False``: none yet, for a caller that
        sets its own, as ``determinize`` does; copying one costs about 3 us)."""
        new = State.__new__(State)
        new.config = self.config
        new.num_players = 2
        new.rng = clone_rng(self.rng) if copy_rng else None
        new.first_player = self.first_player
        new.paths = [self.paths[0][:], self.paths[1][:]]
        new.land_deck = self.land_deck[:]
        new.land_known = self.land_known
        new.pos = self.pos[:]
        new.stone_card = self.stone_card
        new.stone_path = self.stone_path
        new.magic_way = self.magic_way
        new.magic_way_down = self.magic_way_down[:]
        new.magic_way_rows = [r[:] for r in self.magic_way_rows]
        new._mw_match = self._mw_match
        new.hands = [h[:] for h in self.hands]
        new.aux = [a[:] for a in self.aux]
        new.draws = [d[:] for d in self.draws]
        new.discards = [d[:] for d in self.discards]
        new.logs = [g[:] for g in self.logs]
        new.known_from = self.known_from[:]  # immutable pairs
        new._beliefs = self._beliefs[:]  # beliefs are never changed, only replaced
        new.reshuffled = [r[:] for r in self.reshuffled]
        new.drawn_since = self.drawn_since[:]
        new.totals = self.totals[:]
        new.race = self.race
        new.race_turn = self.race_turn
        new.turn = self.turn
        new.move_count = self.move_count
        new.race_first = self.race_first
        new.last_race = self.last_race
        new.current_player = self.current_player
        new.phase = self.phase
        new.target_op = self.target_op
        new.swap_first = self.swap_first
        new.pending_land = self.pending_land
        new.orient_for = self.orient_for
        new.o2b_left = self.o2b_left
        new.rearranged = self.rearranged
        new.used_hand = self.used_hand
        new.used_aux = self.used_aux
        new.o2b_used = self.o2b_used
        new.terminal = self.terminal
        new.end_reason = self.end_reason
        new._winners = self._winners
        new._legal = self._legal  # never mutated in place: apply_id replaces it
        return new

    def view(self, player: int) -> View:
        """What ``player`` may see (§10)."""
        self._check_seat(player)
        return hidden.build_view(self, player)

    def determinize(self, player: int, rng: np.random.Generator | int | None = None) -> State:
        """A clone where everything ``player`` cannot see is resampled consistently with what
        they have seen: the opponent's hand, auxiliary deck and draw pile (drawn from the
        posterior of :meth:`belief`, see ``hidden.py``), the order of ``player``'s own draw
        pile, the unseen part of the land deck, the face-down Magic Way cards, and the RNG.
        The result depends on what ``player`` knows and on ``rng`` only."""
        self._check_seat(player)
        return hidden.determinize(self, player, rng)

    def belief(self, seat: int) -> hidden.Belief:
        """What the other seat knows of ``seat``'s hidden cards: the posterior of
        ``hidden.Belief`` over its log from the last checkpoint (see :meth:`known_log`). Kept
        between calls and shared by clones, it only takes in the events since it was last
        used, so its cost does not grow with the length of the game."""
        return hidden.seat_belief(self, seat)

    def known_log(self, seat: int) -> list[tuple]:
        """The public event log of ``seat`` this race, shortened to what still matters: from
        the last reshuffle at which its hand held all its hidden cards (draw pile and aux deck
        empty), a log that starts with exactly that hand, then the events since. Every world
        consistent with one is consistent with the other."""
        return hidden.known_log(self, seat)

    @property
    def card_totals(self) -> list[int]:
        """Cards per census kind (see :meth:`census`)."""
        return card_totals(self.config)

    def census(self) -> dict[str, list[int]]:
        """Cards per census kind in every zone; the zones add up to :attr:`card_totals`.

        Kinds: ``9*seat + kind`` for the players' cards, ``18 + pair kind`` for land cards,
        ``33 + card`` for the Magic Way cards.
        """

        def empty() -> list[int]:
            return [0] * NUM_CENSUS_KINDS

        zones: dict[str, list[int]] = {}
        for p in range(2):
            base = p * NUM_KINDS
            for name, cards in (
                ("aux", self.aux[p]),
                ("draw", self.draws[p]),
                ("magic_way", self.magic_way_rows[p]),
            ):
                z = empty()
                for k in cards:
                    z[base + k] += 1
                zones[f"{name}{p}"] = z
            for name, counts in (("hand", self.hands[p]), ("discard", self.discards[p])):
                z = empty()
                z[base : base + NUM_KINDS] = counts
                zones[f"{name}{p}"] = z
        for name, codes in (
            ("track", [a * NUM_TYPES + b for a, b in zip(*self.paths)]),
            ("land_deck", self.land_deck),
            ("land_in_hand", [self.pending_land] if self.pending_land >= 0 else []),
        ):
            z = empty()
            for c in codes:
                z[LAND_KIND_BASE + CODE_PAIR[c]] += 1
            zones[name] = z
        z = empty()
        z[MAGIC_WAY_KIND_BASE + self.magic_way] = 1
        zones["magic_way_active"] = z
        z = empty()
        for i in self.magic_way_down:
            z[MAGIC_WAY_KIND_BASE + i] += 1
        zones["magic_way_face_down"] = z
        return zones

    def render(self) -> str:
        """A readable table of the whole state (every hidden card shown: the referee's view)."""
        return render_state(self)

    def render_for(self, player: int) -> str:
        """What seat ``player`` may see, as text; built from :meth:`view` alone."""
        return render_view(self.view(player), self.config)

    def __repr__(self) -> str:
        return f"<odins_ravens State race {self.race} turn {self.turn} {PHASE_NAMES[self.phase]}>"

    # -- legal moves ----------------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            return self._play_legal()
        if phase == EXTEND:
            return [EXTEND_NO, EXTEND_YES]
        return self._decision_legal(phase)

    # -- end of turn, race, game ----------------------------------------------------------------

    def _refill(self, p: int) -> None:
        """§4 item 3: draw to 5, reshuffling the discard pile into a new draw pile when needed."""
        hand = self.hands[p]
        pile = self.draws[p]
        log = self.logs[p]
        size = sum(hand)
        drawn = 0
        while size < HAND_SIZE:
            if not pile:
                discard = self.discards[p]
                if not any(discard):
                    break
                if drawn:
                    log.append(hidden.draw_event(drawn))
                    drawn = 0
                if not self.aux[p]:
                    # Draw pile and aux deck empty: every hidden card is in the hand, and the
                    # opponent knows which (the deck minus the face-up discard pile and Magic
                    # Way row). A resampler may start here instead of at the race's start.
                    row = self.magic_way_rows[p]
                    deck = self.config.deck
                    known = tuple(deck[k] - discard[k] - row.count(k) for k in range(NUM_KINDS))
                    self.known_from[p] = (len(log), known)
                cards = [k for k in range(NUM_KINDS) for _ in range(discard[k])]
                pile[:] = [cards[i] for i in self.rng.permutation(len(cards))]
                log.append((hidden.RESHUFFLE, tuple(discard)))
                self.reshuffled[p] = discard[:]
                self.drawn_since[p] = 0
                discard[:] = [0] * NUM_KINDS
            hand[pile.pop()] += 1
            size += 1
            drawn += 1
        if drawn:
            log.append(hidden.draw_event(drawn))
            self.drawn_since[p] += drawn

    def _finish_turn(self) -> None:
        """Refill, then the other seat's turn."""
        p = self.current_player
        self._refill(p)
        self.turn += 1
        self.race_turn += 1
        self._start_turn(1 - p)

    def _check_race_end(self) -> None:
        """§7: the race ends the moment a raven stands on the last card."""
        last = len(self.paths[0]) - 1
        on0 = self.pos[0] == last
        on1 = self.pos[1] == last
        if not (on0 or on1):
            return
        active = self.current_player
        if on0 and on1:
            winner, points = active, 0
        else:
            winner = 0 if on0 else 1
            points = last - self.pos[1 - winner]
        self.totals[winner] += points
        rows = (len(self.magic_way_rows[0]), len(self.magic_way_rows[1]))
        bonus = -1 if rows[0] == rows[1] else int(rows[1] > rows[0])
        if bonus >= 0:
            self.totals[bonus] += MAGIC_WAY_BONUS
        self.last_race = (winner, points, bonus)
        self.turn += 1
        t0, t1 = self.totals
        if max(t0, t1) >= TARGET_SCORE:
            self._winners = (winner if t0 == t1 else int(t1 > t0),)
            self.terminal = True
            self.end_reason = END_SCORE
            self.phase = GAME_OVER
            self.current_player = -1
            self.pending_land = -1
            self._legal = None
            return
        self._new_race(winner if t0 == t1 else int(t1 < t0))


assert NUM_MOVES == len(MOVES) and MOVES[ENTRY3].pairs == (0,) and MOVES[ENTRY4].aux == 1
