"""Sitting Ducks Gallery rules engine (Keith Meyers; Playroom 2005, Amigo), 2-6 players.

Implements ``docs/rules/sitting_ducks.md`` exactly (section numbers below refer to it): the
six-slot row with targets that belong to slots, all sixteen action cards with their choices,
stacks (Duck and Cover) and Bottoms Up covers, the forced discard, the action deck's reshuffle,
eliminated players who keep their turns, the win check after every card, and the variants
``mode="hidden"`` (secret colours), ``mode="team"`` (4 or 6 players in opposite-seat teams, or 2
players with two colours each), ``points_games=G`` and ``observe_duck_deck_bottom``. No RL
imports: a researcher can use :class:`State` alone for search or analysis.

Representation
--------------
- The row is a list of six *units* (``units.py``: one small int each holding the top card, the
  duck hidden beneath and the seat whose Bottoms Up lies on it); index 0 is the front slot.
  Every movement card reorders this list; targets are a separate 6-bit mask, so they stay put.
- The duck deck is a list whose **last** element is its top card; Line Forward inserts at
  index 0 (the bottom). ``known_bottom`` counts the bottom cards whose order is public (§10).
- Action cards are kinds 0..15; hands are lists of kinds, the discard pile 16 counts, the draw
  pile a list (last = top). A Bottoms Up card on the table is the ``cover`` of a unit.
- ``shot[c]`` counts the ducks of colour c in front of the players, markers included, so colour c
  has ``6 - shot[c]`` ducks in play (§7).
- Colour ownership: ``colour_owner[c]`` is the seat owning colour c (secret in hidden mode),
  ``seat_colours[q]`` a bitmask of seat q's colours.

Turn structure: at the start of a turn the player's own Bottoms Up card is removed (§4); then one
move plays a card (or, when nothing is playable, discards one). Disorderly Conduckt is followed by
``Place`` moves of the same player choosing the new order (``moves.py``). After the card resolves
the game checks for its end (§7), then the player draws (reshuffling the discard pile into a new
draw pile when needed) and the next seat plays. ``turn`` counts completed turns over the whole
match (the ``max_turns`` cap); ``move_count`` counts applied moves.

Decisions taken here where the rules spec leaves a detail open
--------------------------------------------------------------
- Two-player team mode: seat q owns colours q and q + 2 (seat 0: red and green, seat 1: blue and
  yellow). Four- and six-player teams: seats q and q + N/2, each owning colour q.
- Points variant: a match is one episode; after each game the next is dealt at once and starts
  by the §3 first-player rule. ``turn`` runs over the whole match. Ties of the match share the win.
- The public record of every action card played or discarded is kept (a copy-on-write log) so
  that :meth:`State.determinize` samples only hands consistent with it: cards seen played must
  have been held, hands of forced discards held no playable card, a reshuffled draw pile holds
  only cards of the discard pile it was made from, and (hidden mode) secret colours agree with
  every own-duck card played.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

import numpy as np
from cardzoo.envs.core import CachedLegalMoves, GameState, child_rng, clone_rng, make_rng
from cardzoo.envs.sitting_ducks import hidden, positions
from cardzoo.envs.sitting_ducks.config import Config
from cardzoo.envs.sitting_ducks.data import (
    BOTTOMS_UP,
    DECK_DUCKS_PER_COLOUR,
    DISORDERLY_CONDUCKT,
    DUCKS_PER_COLOUR,
    FAST_FORWARD,
    GAME_OVER,
    HAND_SIZE,
    HANG_BACK,
    MOVE_AHEAD,
    NUM_KINDS,
    NUM_SLOTS,
    NUM_TARGETS,
    NUM_WATER,
    ORDER_PHASE,
    OWN_DUCK_CARDS,
    PHASE_NAMES,
    PLAY_PHASE,
    POINTS_SURVIVING,
    QUICK_SHOT,
    WATER,
)
from cardzoo.envs.sitting_ducks.effects import fill_gaps, resolve
from cardzoo.envs.sitting_ducks.hidden import View, unplayable_masks
from cardzoo.envs.sitting_ducks.moves import (
    BOTTOMS_UP_BASE,
    COVER_ID,
    DECODE,
    DISCARD_BASE,
    FAST_FORWARD_BASE,
    HANG_BACK_BASE,
    IDS_BY_TARGETS,
    MOVE_AHEAD_BASE,
    MOVE_INDEX,
    MOVES,
    PLACE_BASE,
    QUICK_BASE,
)
from cardzoo.envs.sitting_ducks.units import (
    U_COLOURS,
    U_COVER,
    U_COVERABLE,
    U_EXPOSED,
    U_FREE,
    U_TOP,
    U_UNDER,
    uncovered,
    unit,
)

__all__ = ["END_NOBODY_LEFT", "END_ONE_LEFT", "END_POINTS", "State", "View", "card_totals"]

END_ONE_LEFT = "last_one_standing"  # exactly one player, colour or team has ducks in play
END_NOBODY_LEFT = "nobody_left"  # the last ducks fell together: a draw
END_POINTS = "points_total"  # points variant: the last game of the match is over


def card_totals(config: Config) -> list[int]:
    """Census totals: 16 action kinds, the ducks of each colour, water, targets."""
    return [
        *config.action_deck_counts,
        *[DUCKS_PER_COLOUR] * config.num_colours,
        NUM_WATER,
        NUM_TARGETS,
    ]


# ---------------------------------------------------------------------------------------------
# The state


class State(CachedLegalMoves, GameState):
    """A Sitting Ducks Gallery game (or points match) in progress. See the module docstring."""

    MOVES = MOVES
    MOVE_INDEX = MOVE_INDEX
    TITLE = "Sitting Ducks Gallery"
    PHASE_NAMES = PHASE_NAMES
    END_REASONS: ClassVar[tuple[str, ...]] = (END_ONE_LEFT, END_NOBODY_LEFT, END_POINTS)

    __slots__ = (
        "config",
        "num_players",
        "num_colours",
        "mode",
        "rng",
        "row",
        "targets",
        "deck",
        "known_bottom",
        "hands",
        "draw",
        "discard",
        "shot",
        "colour_owner",
        "seat_colours",
        "hide_under",
        "group",
        "colour_evidence",
        "current_player",
        "first_player",
        "phase",
        "turn",
        "move_count",
        "terminal",
        "end_reason",
        "reorder",
        "points",
        "game",
        "game_results",
        "_winners",
        "_legal",
        "_log",
        "_log_len",
        "_turn_card",
        "_turn_forced",
    )

    def __init__(
        self, config: Config | None = None, seed: int | np.random.Generator | None = None
    ) -> None:
        config = Config() if config is None else config
        if not isinstance(config, Config):
            raise TypeError(f"config must be a sitting_ducks Config, got {type(config).__name__}")
        self._init_common(config, make_rng(seed))
        self._new_game()

    def _init_common(self, config: Config, rng: np.random.Generator) -> None:
        n = config.num_players
        self.config = config
        self.num_players = n
        self.num_colours = config.num_colours
        self.mode = config.mode
        self.rng = rng
        self.turn = 0
        self.move_count = 0
        self.terminal = False
        self.end_reason: str | None = None
        self.points = [0] * n
        self.game = 0
        self.game_results: list[tuple[int, ...]] = []
        self._winners: tuple[int, ...] = ()
        self._legal: list[int] | None = None
        self.reorder: list[int] = []
        self._turn_card = -1
        self._turn_forced: tuple[int, ...] | None = None

    # -- setup (§3) -------------------------------------------------------------------------------

    def _new_game(self) -> None:
        """Deal a game: colours, duck deck, row, action cards, first player."""
        rng = self.rng
        n, k = self.num_players, self.num_colours
        self._assign_colours(deal=True)
        deck = [c for c in range(k) for _ in range(DECK_DUCKS_PER_COLOUR)] + [WATER] * NUM_WATER
        self.deck = [deck[i] for i in rng.permutation(len(deck))]
        self.row = [unit(self.deck.pop()) for _ in range(NUM_SLOTS)]
        self.targets = 0
        self.known_bottom = 0
        self.shot = [1] * k
        cards = [kind for kind, c in enumerate(self.config.action_deck_counts) for _ in range(c)]
        pile = [cards[i] for i in rng.permutation(len(cards))]
        self.hands = [[pile.pop() for _ in range(HAND_SIZE)] for _ in range(n)]
        self.draw = pile
        self.discard = [0] * NUM_KINDS
        self.phase = PLAY_PHASE
        self.reorder = []
        if self.mode == "hidden":
            first = int(rng.integers(n))  # §9: the usual rule would reveal a colour
        else:
            first = next(
                self.colour_owner[U_TOP[u]] for u in self.row if U_TOP[u] < WATER
            )  # §3.5: the initial row always holds a duck (only 5 water cards)
        self.first_player = first
        self._log = [
            (-1, tuple(tuple(h) for h in self.hands), tuple(self.config.action_deck_counts))
        ]
        self._log_len = 1
        self._legal = None
        self._begin_turn(first)

    def _assign_colours(self, colours: Iterable[int] | None = None, deal: bool = False) -> None:
        """Who owns which colour (§3, §9), for a new game and for a hand-set position alike.

        ``colours`` (hidden mode only) names each seat's colour; without it the hidden mode draws
        a secret permutation when ``deal`` is set, and otherwise seat q owns colour q (two-player
        team mode: colours q and q + 2)."""
        n = self.num_players
        if colours is not None:
            if self.mode != "hidden":
                raise ValueError("colours: only the hidden mode has secret colours")
            colours = list(colours)
            if sorted(colours) != list(range(n)):
                raise ValueError(f"colours: expected a permutation of 0..{n - 1}, got {colours}")
            owners = [colours.index(c) for c in range(n)]
        elif deal and self.mode == "hidden":
            owners = [int(x) for x in self.rng.permutation(n)]
        else:
            owners = [c % n for c in range(self.num_colours)]  # k == n: seat c owns colour c
        self._set_owners(owners)

    def _set_owners(self, owners: list[int]) -> None:
        """Colour ownership and everything derived from it (teams, whom a duck may hide under)."""
        n, k = self.num_players, self.num_colours
        self.colour_owner = list(owners)
        seat_colours = [0] * n
        for c, q in enumerate(owners):
            seat_colours[q] |= 1 << c
        self.seat_colours = seat_colours
        everything = (1 << k) - 1
        if self.mode == "team" and n > 2:
            half = n // 2
            self.group = [q % half for q in range(n)]
            team = [seat_colours[q] | seat_colours[(q + half) % n] for q in range(n)]
            self.hide_under = [everything & ~team[q] for q in range(n)]
        else:
            self.group = list(range(n))
            self.hide_under = [everything & ~seat_colours[q] for q in range(n)]
        if self.mode == "hidden":
            self.colour_evidence = [everything] * n
        else:
            self.colour_evidence = seat_colours[:]

    # -- building hand-set positions (scenario tests, analysis) ---------------------------------

    @classmethod
    def from_position(
        cls,
        config: Config | None = None,
        *,
        row: Iterable[str],
        targets: Iterable[int] = (),
        deck: Iterable[str] = (),
        hands: Mapping[int, Iterable[int | str]] | None = None,
        draw_pile: Iterable[int | str] = (),
        discard: Iterable[int | str] = (),
        current_player: int = 0,
        colours: Iterable[int] | None = None,
        known_bottom: int = 0,
        points: Iterable[int] | None = None,
        seed: int | None = 0,
    ) -> State:
        """A hand-set position at the start of ``current_player``'s turn.

        ``row``: six units in the spec's notation, front first (``"R"``, ``"B/R"``, ``"R*1"`` =
        Bottoms Up of seat 1 on R, ``"~"`` water, ``"_"`` gap). ``deck``: duck-deck cards **top
        first**; water not placed in the row or deck is added at the bottom; ducks not placed are
        shot. ``hands``: ``{seat: cards}`` (kinds or snake_case names); seats not given are dealt
        3 cards from the action cards not placed. ``draw_pile`` (top first) lies on top of the
        remaining action cards, shuffled. ``colours`` (hidden mode): the colour of each seat.
        The current player's own Bottoms Up card, if any, is removed as their turn starts.
        """
        return positions.from_position(
            cls,
            config,
            row=row,
            targets=targets,
            deck=deck,
            hands=hands,
            draw_pile=draw_pile,
            discard=discard,
            current_player=current_player,
            colours=colours,
            known_bottom=known_bottom,
            points=points,
            seed=seed,
        )

    # -- the contract ---------------------------------------------------------------------------

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == PLAY_PHASE:
            p = self.current_player
            kinds = set(self.hands[p])
            ids: list[int] = []
            for kind in kinds:
                ids += self._ids_for(kind, self.seat_colours[p], self.hide_under[p])
            if not ids:
                return sorted(DISCARD_BASE + kind for kind in kinds)
            ids.sort()
            return ids
        if phase == ORDER_PHASE:
            chosen = self.reorder
            return [PLACE_BASE + j for j in range(NUM_SLOTS) if j not in chosen]
        return []

    def _ids_for(self, kind: int, own: int, hide_under: int) -> list[int] | tuple[int, ...]:
        """Legal ids of playing a card of ``kind`` for a player owning the colours ``own``."""
        table = IDS_BY_TARGETS[kind]
        if table is not None:
            return table[self.targets]  # ten of the sixteen cards: one lookup
        row = self.row
        if kind == QUICK_SHOT:
            return [QUICK_BASE + s for s in range(NUM_SLOTS) if U_EXPOSED[row[s]] >= 0]
        if kind == BOTTOMS_UP:
            return [BOTTOMS_UP_BASE + s for s in range(NUM_SLOTS) if U_COVERABLE[row[s]]]
        if not own:
            return ()
        if kind == MOVE_AHEAD:
            return [MOVE_AHEAD_BASE + s - 1 for s in range(1, NUM_SLOTS) if U_COLOURS[row[s]] & own]
        if kind == HANG_BACK:
            return [HANG_BACK_BASE + s for s in range(NUM_SLOTS - 1) if U_COLOURS[row[s]] & own]
        if kind == FAST_FORWARD:
            return [
                FAST_FORWARD_BASE + s - 1 for s in range(1, NUM_SLOTS) if U_COLOURS[row[s]] & own
            ]
        return _cover_ids(row, own, hide_under)  # DUCK_AND_COVER

    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env checks its mask first)."""
        self._legal = None
        self.move_count += 1
        if self.phase == ORDER_PHASE:
            self._place(move_id - PLACE_BASE)
            return
        p = self.current_player
        kind, a, b = DECODE[move_id]
        self.hands[p].remove(kind)
        self._turn_card = kind
        if move_id >= DISCARD_BASE:
            self._turn_forced = masks = unplayable_masks(self, p)
            if self.mode == "hidden":
                # Public evidence: the discarded card was unplayable for the player's colour.
                possible = sum(1 << c for c, m in enumerate(masks) if m >> kind & 1)
                self.colour_evidence[p] &= possible
            self.discard[kind] += 1
            self._finish_turn()
            return
        if kind != BOTTOMS_UP:
            self.discard[kind] += 1
        if self.mode == "hidden" and kind in OWN_DUCK_CARDS:
            # Public evidence (§9): the moved or hiding unit holds a duck of the player's colour.
            self.colour_evidence[p] &= U_COLOURS[self.row[a]]
        resolve(self, p, kind, a, b)
        if kind == DISORDERLY_CONDUCKT:
            self.phase = ORDER_PHASE
            return
        self._after_effect()

    def _after_effect(self) -> None:
        """§4 gap refill, §7 end check, then the rest of the turn."""
        fill_gaps(self)
        if self._check_end():
            self.turn += 1
            return
        self._finish_turn()

    def _place(self, slot: int) -> None:
        """One Disorderly Conduckt step; the sixth unit takes the last slot by itself."""
        order = self.reorder
        order.append(slot)
        if len(order) < NUM_SLOTS - 1:
            return
        order.append(next(j for j in range(NUM_SLOTS) if j not in order))
        self.row = [self.row[j] for j in order]
        self.reorder = []
        self.phase = PLAY_PHASE
        self._after_effect()

    # -- turn flow (§5) ---------------------------------------------------------------------------

    def _begin_turn(self, q: int) -> None:
        """§5.1: the turn passes to ``q``; their own Bottoms Up card goes to the discard pile."""
        self.current_player = q
        row = self.row
        for s in range(NUM_SLOTS):
            if U_COVER[row[s]] == q:
                row[s] = uncovered(row[s])
                self.discard[BOTTOMS_UP] += 1

    def _finish_turn(self) -> None:
        """§5.4-5: draw (reshuffling if needed), record the public turn, next seat."""
        p = self.current_player
        reshuffled = None
        drawn = -1
        if not self.draw and any(self.discard):
            reshuffled = tuple(self.discard)
            cards = [kind for kind in range(NUM_KINDS) for _ in range(self.discard[kind])]
            self.draw = [cards[i] for i in self.rng.permutation(len(cards))]
            self.discard = [0] * NUM_KINDS
        if self.draw:
            drawn = self.draw.pop()
            self.hands[p].append(drawn)
        self._record((p, self._turn_card, self._turn_forced, reshuffled, drawn))
        self._turn_forced = None
        self.turn += 1
        self._begin_turn((p + 1) % self.num_players)

    def _record(self, entry: tuple) -> None:
        """Append to the public log, copying it first if a clone shares a longer version."""
        if len(self._log) != self._log_len:
            self._log = self._log[: self._log_len]
        self._log.append(entry)
        self._log_len += 1

    # -- the end (§7) and the points match (§9) --------------------------------------------------

    def ducks_in_play(self, colour: int) -> int:
        """Ducks of ``colour`` in the row (stacks included) or the duck deck."""
        return DUCKS_PER_COLOUR - self.shot[colour]

    def _check_end(self) -> bool:
        """End the game if at most one player, colour or team has ducks in play (§7, §9)."""
        alive = 0
        group, owner, shot = self.group, self.colour_owner, self.shot
        for c in range(self.num_colours):
            if shot[c] < DUCKS_PER_COLOUR:
                alive |= 1 << group[owner[c]]
        if alive & (alive - 1):
            return False  # two or more sides still have ducks
        if alive:
            g = alive.bit_length() - 1
            winners = tuple(q for q in range(self.num_players) if self.group[q] == g)
        else:
            winners = ()
        self._end_game(winners)
        return True

    def _end_game(self, winners: tuple[int, ...]) -> None:
        self.reorder = []
        games = self.config.points_games
        if not games:
            self._finish(winners, END_ONE_LEFT if winners else END_NOBODY_LEFT)
            return
        for c in range(self.num_colours):  # only the winner still has ducks in play
            self.points[self.colour_owner[c]] += POINTS_SURVIVING * self.ducks_in_play(c)
        self.game_results.append(winners)
        self.game += 1
        if self.game < games:
            self._new_game()
            return
        best = max(self.points)
        self._finish(
            tuple(q for q in range(self.num_players) if self.points[q] == best), END_POINTS
        )

    def _finish(self, winners: tuple[int, ...], reason: str) -> None:
        self.terminal = True
        self.end_reason = reason
        self.phase = GAME_OVER
        self.current_player = -1
        self._winners = winners
        self._legal = None

    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game (or match) is over; () before, and for a draw."""
        return self._winners

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """The sides sharing a result: partners (seats ``q`` and ``q + n/2``) in team mode at 4 or
        6 players, every seat alone otherwise (the duel's two seats included)."""
        group = self.group
        return tuple(
            tuple(q for q in range(self.num_players) if group[q] == g) for g in sorted(set(group))
        )

    def scores(self) -> tuple[float, ...]:
        """Per seat: points (points variant), else the ducks its side (the seat, or its team)
        still has in play, so that partners always score alike."""
        if self.config.points_games:
            return tuple(float(x) for x in self.points)
        side = [0] * self.num_players
        for c in range(self.num_colours):
            side[self.group[self.colour_owner[c]]] += self.ducks_in_play(c)
        return tuple(float(side[self.group[q]]) for q in range(self.num_players))

    # -- copies, views, census ----------------------------------------------------------------

    def clone(self, *, copy_rng: bool = True) -> State:
        """An independent copy, RNG included (``copy_rng=False``: none yet, for a caller that
        sets its own, as ``determinize`` does; copying one costs about 3 us)."""
        new = State.__new__(State)
        new.config = self.config
        new.num_players = self.num_players
        new.num_colours = self.num_colours
        new.mode = self.mode
        new.rng = clone_rng(self.rng) if copy_rng else None
        new.row = self.row[:]
        new.targets = self.targets
        new.deck = self.deck[:]
        new.known_bottom = self.known_bottom
        new.hands = [h[:] for h in self.hands]
        new.draw = self.draw[:]
        new.discard = self.discard[:]
        new.shot = self.shot[:]
        new.colour_owner = self.colour_owner[:]
        new.seat_colours = self.seat_colours[:]
        new.hide_under = self.hide_under[:]
        new.group = self.group
        new.colour_evidence = self.colour_evidence[:]
        new.current_player = self.current_player
        new.first_player = self.first_player
        new.phase = self.phase
        new.turn = self.turn
        new.move_count = self.move_count
        new.terminal = self.terminal
        new.end_reason = self.end_reason
        new.reorder = self.reorder[:]
        new.points = self.points[:]
        new.game = self.game
        new.game_results = self.game_results[:]
        new._winners = self._winners
        new._legal = self._legal  # never mutated in place
        new._log = self._log  # shared; _record copies before appending past a fork
        new._log_len = self._log_len
        new._turn_card = self._turn_card
        new._turn_forced = self._turn_forced
        return new

    def known_bottom_cards(self) -> list[int]:
        """The duck deck's public bottom sequence, bottom card first (§10)."""
        return self.deck[: min(self.known_bottom, len(self.deck))]

    # What a player may see (§10), built in hidden.py; bound as the method itself, not wrapped,
    # so that a view costs no extra call.
    view = hidden.view

    def determinize(
        self, player: int, rng: np.random.Generator | int | None = None, *, exact: bool = True
    ) -> State:
        """A clone where everything ``player`` cannot see is resampled consistently with what
        they saw: the other hands and the draw pile (consistent with every card played, forced
        discards and reshuffles), the order of the duck deck above its public bottom, the
        secret colours of the others (hidden mode) and the RNG.

        The hands, draw pile and colours come from the exact posterior (uniform over the worlds
        the record allows: ``exact.py``, after reshuffles ``reshuffled.py`` and at five and six
        players ``crowded.py``), except where those decline (rare, see ``sampling.py``): there
        from a replay of the record (``sampling.py``) whose worlds are always consistent but
        whose probabilities are only close to the posterior. (Changed in issue 16: the samples
        for a given rng differ from earlier versions wherever the exact samplers serve.)

        ``exact=False`` takes the replay everywhere: as consistent and as blind to the truth, but
        far cheaper at a new position with five or six players (a few ms against tens). For
        callers whose use of the sample does not depend on how likely each hand is, such as the
        heuristic, whose score never reads the other hands."""
        from cardzoo.envs.sitting_ducks import exact as exact_samplers
        from cardzoo.envs.sitting_ducks.sampling import resample_hidden

        self._check_seat(player)
        hidden.check_record_known_to(self._log, player)
        rng = make_rng(rng)
        new = self.clone(copy_rng=False)
        # The sample keeps only what ``player`` knows of the record (never the others' cards).
        new._log = hidden.record_as_seen_by(self._log, self._log_len, player)
        new._log_len = len(new._log)
        kb = min(self.known_bottom, len(self.deck))
        # Sorted first, so the sample depends on which ducks are unseen, never on their order.
        upper = sorted(self.deck[kb:])
        if len(upper) > 1:  # (a permutation of 0 or 1 items draws nothing from ``rng``)
            upper = [upper[i] for i in rng.permutation(len(upper)).tolist()]
        new.deck = self.deck[:kb] + upper
        # Always a world consistent with what ``player`` saw (the samplers raise if none exists):
        # from the exact posterior where the exact samplers cover the position, else the replay.
        found = exact_samplers.sample(self, player, rng) if exact else None
        owners, hands, draw = found if found is not None else resample_hidden(self, player, rng)
        new.hands = hands
        new.draw = draw
        if owners != self.colour_owner:
            evidence = self.colour_evidence
            new._set_owners(owners)
            new.colour_evidence = evidence[:]
        new.rng = child_rng(rng)  # built on first use
        new._legal = None
        return new

    @property
    def card_totals(self) -> list[int]:
        """Cards per census kind: 16 action kinds, ducks per colour, water, targets."""
        return card_totals(self.config)

    def census(self) -> dict[str, list[int]]:
        """Cards per census kind in every zone; the zones add up to ``card_totals``."""
        k = self.num_colours
        width = NUM_KINDS + k + 2
        water, target = NUM_KINDS + k, NUM_KINDS + k + 1

        def zone() -> list[int]:
            return [0] * width

        draw, table, row, deck, shot, targets = (zone() for _ in range(6))
        for kind in self.draw:
            draw[kind] += 1
        discard = zone()
        discard[:NUM_KINDS] = self.discard
        for u in self.row:
            for c in (U_TOP[u], U_UNDER[u]):
                if 0 <= c < WATER:
                    row[NUM_KINDS + c] += 1
                elif c == WATER:
                    row[water] += 1
            if U_COVER[u] >= 0:
                table[BOTTOMS_UP] += 1
        for c in self.deck:
            deck[water if c == WATER else NUM_KINDS + c] += 1
        for c in range(k):
            shot[NUM_KINDS + c] = self.shot[c]
        on_table = bin(self.targets).count("1")
        targets[target] = on_table
        supply = zone()
        supply[target] = NUM_TARGETS - on_table
        zones = {
            "draw": draw,
            "discard": discard,
            "table": table,
            "row": row,
            "duck_deck": deck,
            "shot": shot,
            "targets": targets,
            "target_supply": supply,
        }
        for q in range(self.num_players):
            hand = zone()
            for kind in self.hands[q]:
                hand[kind] += 1
            zones[f"hand{q}"] = hand
        return zones

    def render(self) -> str:
        """A readable table of the whole state (every hand and colour: the referee's view)."""
        from cardzoo.envs.sitting_ducks.render import render_state

        return render_state(self)

    def render_for(self, player: int) -> str:
        """What ``player`` sees, as text (a function of :meth:`view` only)."""
        from cardzoo.envs.sitting_ducks.render import render_view

        return render_view(self.view(player))

    def __repr__(self) -> str:
        return (
            f"<sitting_ducks State {self.num_players}p {self.mode} turn {self.turn} "
            f"{PHASE_NAMES[self.phase]}>"
        )


def _cover_ids(row: list[int], own: int, hide_under: int) -> list[int]:
    """Duck and Cover: an own free single duck at i hides under a neighbouring free single duck
    at j whose colour it may hide under."""
    ids = []
    free = [U_FREE[u] for u in row]
    for i in range(NUM_SLOTS):
        c = free[i]
        if c < 0 or not own >> c & 1:
            continue
        if i > 0 and free[i - 1] >= 0 and hide_under >> free[i - 1] & 1:
            ids.append(COVER_ID[(i, i - 1)])
        if i < NUM_SLOTS - 1 and free[i + 1] >= 0 and hide_under >> free[i + 1] & 1:
            ids.append(COVER_ID[(i, i + 1)])
    return ids
