"""Beasty Bar rules engine (Stefan Kloß, Zoch 2014; "Safari Bar" in Czech/Slovak), 2-4 players.

Implements the rules of ``docs/rules/beasty_bar.md`` exactly (section numbers below refer to
it): all twelve animals' on-play actions, the recurring actions (hippo, crocodile, giraffe; zebra
passive), the chameleon's imitation of every species with its sub-choices, the five-animal check,
drawing, the end after every card has been played, ``count`` and ``points`` scoring with the
strength-sum tiebreak and shared wins, and the advanced set-aside variant. No RL imports: a
researcher can use :class:`State` alone for search or analysis.

Representation (chosen for a fast hot path)
-------------------------------------------
A **card** is an int ``owner * 12 + (strength - 1)``; every card is unique (one colour per seat),
and this int is also the *card kind* used by :meth:`State.census`. ``SPECIES[card]`` and
``OWNER[card]`` are precomputed tables. The queue is a list of cards, **index 0 next to Heaven's
Gate**; a draw pile is a list whose **last** element is its top card; hands, bar, THAT'S IT and
set-aside cards are plain lists (their order never matters).

Move universe (45 moves, ids stable)
------------------------------------
``Play(animal, imitates=None, choice=None)`` plays the hand card of strength ``animal``.
``imitates`` is the species a chameleon copies (``None``: no imitation). ``choice`` is the
kangaroo's jump length (1 or 2) or the parrot's target, given as the **queue position at the
time of play** (0 = next to the gate; the played card itself stands at ``len(queue)``, so targets
are 0..3). ``choice is None`` where there is nothing to choose. ``SetAside(animal)`` is one
pre-game decision of the advanced variant.

=====  ===================================================================
id     move
=====  ===================================================================
0      play Skunk
1      play Parrot (no other animal to expel)   -- only with an empty queue
2-5    play Parrot, expel position 0..3
6      play Kangaroo (no animal to jump)        -- only with an empty queue
7, 8   play Kangaroo, jump 1 / jump 2
9      play Monkey
10     play Chameleon without imitating         -- nothing to copy, or ``chameleon_may_decline``
11     play Chameleon as Skunk
12-15  play Chameleon as Parrot, expel position 0..3
16,17  play Chameleon as Kangaroo, jump 1 / jump 2
18     play Chameleon as Monkey
19-25  play Chameleon as Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
26-32  play Seal, Zebra, Giraffe, Snake, Crocodile, Hippo, Lion
33-44  set aside Skunk .. Lion (strength ``id - 32``)
=====  ===================================================================

Every legal (card, choices) combination maps to exactly one id: a kangaroo or parrot played into
an empty queue has its own "nothing to do" id, and a chameleon that does not imitate (nothing to
copy, or a decline) has one id whatever the reason.

With ``set_aside = 4`` the game starts with a set-aside phase: seat 0, then seat 1, ... each make
4 decisions ``SetAside(animal)``, one animal at a time, from their full colour; then each player's
remaining 8 cards are shuffled (4 to hand, 4 to the draw pile) and ``first_player`` starts. The
set-aside decisions are not turns: ``turn`` counts played cards only, so a game is always
``12 * N`` turns (``8 * N`` with set-aside).

Decisions taken here where the rules leave a detail open (rules doc §12)
------------------------------------------------------------------------
- The set-aside choices are made in seat order starting at seat 0 (the rules say "in seat order";
  they are hidden, so the order carries no information). ``first_player`` is resolved from the
  game's RNG at construction, before any shuffle; the set-aside variant's deal is drawn from the
  same RNG after the last choice.
- A kangaroo or parrot played into an empty queue, and a chameleon with nothing to copy or
  declining, each have one dedicated "no effect" move (see the table).
- The parrot's target is encoded by queue position at play time (index from the gate), not by
  species and owner: both identify the same animal, positions keep the space small.
- ``winners()`` is ``()`` until the game is over. With nobody in the bar all players tie on 0
  with strength sum 0, so all of them win (the spec's "still tied -> all win").
- ``scores()`` is the bar score (``bar_scores()``: own bar animals, or their points) minus a
  hundredth of the bar strength sum, so that it ranks the seats as the result does (the strength
  sum breaks ties); ``render()`` and the observation show the bar score itself.
- :meth:`State.from_position` (scenario tests): cards of a colour not placed anywhere are put in
  THAT'S IT, so the census still adds up; such a state starts in the play phase.
- If (only in a hand-set position) the next seat has an empty hand while another seat still holds
  cards, play passes to the next seat with cards; in a real game hands empty all at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple

import numpy as np
from cardzoo.envs.beasty_bar.data import (
    CHAMELEON,
    CROCODILE,
    CROCODILE_STOPPERS,
    GIRAFFE,
    HAND_SIZE,
    HIPPO,
    HIPPO_STOPPERS,
    KANGAROO,
    LION,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MONKEY,
    NAMES,
    NUM_ANIMALS,
    PARROT,
    POINTS,
    QUEUE_SIZE,
    RECURRING,
    SEAL,
    SET_ASIDE_OPTIONS,
    SKUNK,
    SNAKE,
)
from cardzoo.envs.core import (
    GameState,
    check_first_player,
    check_int_range,
    check_option,
    clone_rng,
    make_rng,
    normalize_config,
    resolve_first_player,
)

# ---------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class Config:
    """Every rule option of Beasty Bar (rules doc §14), with its documented default.

    ``max_turns`` is the environment's truncation cap (a game always ends after ``12 * N`` turns,
    so the default never truncates).
    """

    num_players: int = 2
    first_player: int | str = "random"
    scoring: str = "count"
    set_aside: int = 0
    chameleon_may_decline: bool = False
    max_turns: int = 1000

    def __post_init__(self) -> None:
        normalize_config(self)
        check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_first_player(self.first_player, self.num_players)
        check_option("scoring", self.scoring, ["count", "points"])
        check_option("set_aside", self.set_aside, list(SET_ASIDE_OPTIONS))
        check_option("chameleon_may_decline", self.chameleon_may_decline, [False, True])
        check_int_range("max_turns", self.max_turns, 1)


# ---------------------------------------------------------------------------------------------
# Moves


class Play(NamedTuple):
    """Play the hand card of strength ``animal``; see the module docstring for the fields."""

    animal: int
    imitates: int | None = None
    choice: int | None = None

    def __str__(self) -> str:
        text = f"play {NAMES[self.animal]}"
        action = self.animal
        if self.animal == CHAMELEON:
            if self.imitates is None:
                return text + " without imitating"
            text += f" as {NAMES[self.imitates]}"
            action = self.imitates
        if action == KANGAROO:
            return text + (
                " (no animal to jump)" if self.choice is None else f", jump {self.choice}"
            )
        if action == PARROT:
            if self.choice is None:
                return text + " (no other animal to expel)"
            return text + f", expel position {self.choice}"
        return text


class SetAside(NamedTuple):
    """Advanced variant (§9): put the animal of strength ``animal`` aside, unseen, for the game."""

    animal: int

    def __str__(self) -> str:
        return f"set aside {NAMES[self.animal]}"


Move = Play | SetAside

MAX_BEFORE_PLAY = QUEUE_SIZE - 1  # at most 4 animals are in the queue before a play
MAX_PILE = NUM_ANIMALS - HAND_SIZE  # 8: a draw pile just after the deal, its longest


def _build_moves() -> list[Move]:
    moves: list[Move] = []
    for s in range(1, NUM_ANIMALS + 1):
        if s == PARROT:
            moves.append(Play(s))
            moves += [Play(s, None, t) for t in range(MAX_BEFORE_PLAY)]
        elif s == KANGAROO:
            moves += [Play(s), Play(s, None, 1), Play(s, None, 2)]
        elif s == CHAMELEON:
            moves.append(Play(s))
            for x in range(1, NUM_ANIMALS + 1):
                if x == CHAMELEON:
                    continue
                if x == PARROT:
                    moves += [Play(s, x, t) for t in range(MAX_BEFORE_PLAY)]
                elif x == KANGAROO:
                    moves += [Play(s, x, 1), Play(s, x, 2)]
                else:
                    moves.append(Play(s, x))
        else:
            moves.append(Play(s))
    moves += [SetAside(s) for s in range(1, NUM_ANIMALS + 1)]
    return moves


MOVES: tuple[Move, ...] = tuple(_build_moves())
MOVE_INDEX: dict[Move, int] = {m: i for i, m in enumerate(MOVES)}
NUM_MOVES = len(MOVES)  # 45
NUM_PLAY_MOVES = NUM_MOVES - NUM_ANIMALS  # 33
SET_ASIDE_BASE = NUM_PLAY_MOVES  # SetAside(s) has id SET_ASIDE_BASE + s - 1
CHAMELEON_NO_IMITATION = MOVE_INDEX[Play(CHAMELEON)]
assert NUM_MOVES == 45 and CHAMELEON_NO_IMITATION == 10
assert MOVE_INDEX[Play(CHAMELEON, LION)] == 25 and MOVE_INDEX[Play(SEAL)] == 26

# id -> (played strength, species whose action is performed (0: none), choice (-1: none)).
_DECODE: tuple[tuple[int, int, int], ...] = tuple(
    (
        m.animal,
        (m.imitates or 0) if m.animal == CHAMELEON else m.animal,
        -1 if m.choice is None else m.choice,
    )
    if isinstance(m, Play)
    else (m.animal, 0, -1)
    for m in MOVES
)


def _ids_for(action: int, n: int, chameleon: bool) -> list[int]:
    """Ids of playing ``action`` (own card, or copied by a chameleon) into a queue of length n."""
    animal, imitates = (CHAMELEON, action) if chameleon else (action, None)
    if action == PARROT:
        if n == 0:
            return [] if chameleon else [MOVE_INDEX[Play(animal)]]
        return [MOVE_INDEX[Play(animal, imitates, t)] for t in range(n)]
    if action == KANGAROO:
        if n == 0:
            return [] if chameleon else [MOVE_INDEX[Play(animal)]]
        return [MOVE_INDEX[Play(animal, imitates, j)] for j in range(1, min(n, 2) + 1)]
    return [MOVE_INDEX[Play(animal, imitates)]]


# _PLAY_IDS[s][n]: ids for playing own species s (not the chameleon) into a queue of length n.
_PLAY_IDS = tuple(
    tuple(tuple(_ids_for(s, n, False)) if s else () for n in range(QUEUE_SIZE))
    for s in range(NUM_ANIMALS + 1)
)
# _COPY_IDS[s][n]: ids for a chameleon copying species s with n animals in the queue.
_COPY_IDS = tuple(
    tuple(tuple(_ids_for(s, n, True)) if s and s != CHAMELEON else () for n in range(QUEUE_SIZE))
    for s in range(NUM_ANIMALS + 1)
)

# ---------------------------------------------------------------------------------------------
# Cards

MAX_CARDS = MAX_PLAYERS * NUM_ANIMALS
SPECIES: tuple[int, ...] = tuple(c % NUM_ANIMALS + 1 for c in range(MAX_CARDS))
OWNER: tuple[int, ...] = tuple(c // NUM_ANIMALS for c in range(MAX_CARDS))
_HIPPO_BLOCKED = tuple(SPECIES[c] in HIPPO_STOPPERS for c in range(MAX_CARDS))
_CROC_BLOCKED = tuple(SPECIES[c] in CROCODILE_STOPPERS for c in range(MAX_CARDS))
_RECURRING_CARD = tuple(RECURRING[SPECIES[c]] for c in range(MAX_CARDS))


def card_of(species: int, owner: int) -> int:
    """The card (and card kind) id of ``owner``'s animal of strength ``species``."""
    return owner * NUM_ANIMALS + species - 1


def card_totals(num_players: int) -> list[int]:
    """Cards per card kind (``owner*12 + strength-1``): one of each, ``12 * num_players`` kinds."""
    return [1] * (NUM_ANIMALS * num_players)


def card_name(card: int) -> str:
    return f"{NAMES[SPECIES[card]]}({OWNER[card]})"


# Phases.
SET_ASIDE_PHASE, PLAY_PHASE, GAME_OVER = 0, 1, 2
PHASE_NAMES = ("set aside", "play", "game over")
#: ``State.end_reason`` once the game is over (it has only one way to end, §8).
END_ALL_PLAYED = "all_cards_played"


def move_from_id(move_id: int) -> Move:
    """The move with this id in the move universe."""
    return MOVES[move_id]


# ---------------------------------------------------------------------------------------------
# What a player may see


@dataclass(frozen=True)
class View:
    """Everything one player may see (rules doc §11), and nothing else.

    Animals are strengths 1..12; per-seat tuples are indexed by absolute seat. ``queue`` lists
    ``(strength, owner)`` from the gate (index 0) to the back. ``bar`` and ``thats_it`` hold the
    sorted strengths per owner (their order never matters). ``unplayed[q]`` is seat q's animals not
    yet played (hand + draw pile + set-aside cards), public because every colour is the same 12
    animals. ``set_aside`` is the viewer's own set-aside cards only. ``bar_scores`` (own animals
    in the bar, or their points), ``bar_sums`` (their strength sum) and ``scores`` (the two
    combined, :meth:`State.scores`) are per seat.
    """

    player: int
    num_players: int
    current_player: int
    first_player: int
    phase: int
    turn: int
    terminal: bool
    hand: tuple[int, ...]
    queue: tuple[tuple[int, int], ...]
    bar: tuple[tuple[int, ...], ...]
    thats_it: tuple[tuple[int, ...], ...]
    hand_sizes: tuple[int, ...]
    draw_sizes: tuple[int, ...]
    set_aside_sizes: tuple[int, ...]
    unplayed: tuple[tuple[int, ...], ...]
    set_aside: tuple[int, ...]
    bar_scores: tuple[int, ...]
    bar_sums: tuple[int, ...]
    scores: tuple[float, ...]
    winners: tuple[int, ...]


# ---------------------------------------------------------------------------------------------
# The state


class State(GameState):
    """A Beasty Bar game in progress. See the module docstring for the representation."""

    MOVES = MOVES
    MOVE_INDEX = MOVE_INDEX
    TITLE = "Beasty Bar"
    PHASE_NAMES = PHASE_NAMES
    END_REASONS: ClassVar[tuple[str, ...]] = (END_ALL_PLAYED,)

    __slots__ = (
        "config",
        "num_players",
        "rng",
        "hands",
        "draws",
        "set_asides",
        "queue",
        "bar",
        "thats_it",
        "current_player",
        "first_player",
        "phase",
        "turn",
        "move_count",
        "terminal",
        "end_reason",
        "_legal",
        "_winners",
    )

    def __init__(
        self, config: Config | None = None, seed: int | np.random.Generator | None = None
    ) -> None:
        config = Config() if config is None else config
        if not isinstance(config, Config):
            raise TypeError(f"config must be a beasty_bar Config, got {type(config).__name__}")
        n = config.num_players
        self.config = config
        self.num_players = n
        self.rng = rng = make_rng(seed)
        self.first_player = resolve_first_player(config.first_player, n, rng)
        self.queue: list[int] = []
        self.bar: list[int] = []
        self.thats_it: list[int] = []
        self.set_asides: list[list[int]] = [[] for _ in range(n)]
        self.turn = 0
        self.move_count = 0
        self.terminal = False
        self.end_reason: str | None = None
        self._legal: list[int] | None = None
        self._winners: tuple[int, ...] = ()
        if config.set_aside:
            # §9: choose from the full colour before any shuffle, seat 0 first.
            self.hands = [[card_of(s, p) for s in range(1, NUM_ANIMALS + 1)] for p in range(n)]
            self.draws: list[list[int]] = [[] for _ in range(n)]
            self.phase = SET_ASIDE_PHASE
            self.current_player = 0
        else:
            self.hands = [[] for _ in range(n)]
            self.draws = [[] for _ in range(n)]
            for p in range(n):
                self._deal(p, [card_of(s, p) for s in range(1, NUM_ANIMALS + 1)])
            self.phase = PLAY_PHASE
            self.current_player = self.first_player

    def _deal(self, p: int, cards: list[int]) -> None:
        """Shuffle ``cards``: the first 4 to hand, the rest to the draw pile (§3)."""
        order = self.rng.permutation(len(cards))
        shuffled = [cards[i] for i in order]
        self.hands[p] = shuffled[:HAND_SIZE]
        self.draws[p] = shuffled[HAND_SIZE:]

    # -- building hand-set positions (scenario tests, analysis) ---------------------------------

    @classmethod
    def from_position(
        cls,
        config: Config | None = None,
        *,
        queue=(),
        hands=None,
        draw_piles=None,
        bar=(),
        thats_it=(),
        set_aside=None,
        current_player: int = 0,
        first_player: int | None = None,
        turn: int = 0,
        seed: int | None = 0,
    ) -> State:
        """A hand-set position at the start of ``current_player``'s turn (play phase).

        ``queue``, ``bar`` and ``thats_it`` are lists of ``(animal, owner)``; ``queue`` runs from
        the gate (index 0) to the back. ``hands``, ``draw_piles`` and ``set_aside`` are one list of
        animals per seat; draw piles are listed **top first**. An animal is a strength 1..12 or a
        name (``"lion"``). Cards not placed anywhere go to THAT'S IT, so the census adds up. A
        position where every hand is empty is the finished game.
        """
        config = Config() if config is None else config
        n = config.num_players
        state = cls.__new__(cls)
        state.config = config
        state.num_players = n
        state.rng = make_rng(seed)
        placed: set[int] = set()

        def card(animal, owner: int) -> int:
            if not 0 <= owner < n:
                raise ValueError(f"owner must be a seat 0..{n - 1}, got {owner!r}")
            c = card_of(_strength(animal), owner)
            if c in placed:
                raise ValueError(f"{card_name(c)} is placed twice")
            placed.add(c)
            return c

        def per_seat(name: str, value) -> list[list[int]]:
            value = [[] for _ in range(n)] if value is None else value
            if len(value) != n:
                raise ValueError(f"{name}: expected {n} lists, got {len(value)}")
            return [[card(a, p) for a in cards] for p, cards in enumerate(value)]

        state.queue = [card(a, o) for a, o in queue]
        if len(state.queue) > MAX_BEFORE_PLAY:
            raise ValueError(f"queue: at most {MAX_BEFORE_PLAY} animals before a turn")
        state.bar = [card(a, o) for a, o in bar]
        state.hands = per_seat("hands", hands)
        state.draws = [d[::-1] for d in per_seat("draw_piles", draw_piles)]
        if any(len(d) > MAX_PILE for d in state.draws):
            raise ValueError(f"draw_piles: at most {MAX_PILE} cards per pile (12 minus a hand)")
        state.set_asides = per_seat("set_aside", set_aside)
        state.thats_it = [card(a, o) for a, o in thats_it]
        state.thats_it += [c for c in range(NUM_ANIMALS * n) if c not in placed]
        state.first_player = current_player if first_player is None else first_player
        state.turn = turn
        state.move_count = 0
        state.phase = PLAY_PHASE
        state.terminal = False
        state.end_reason = None
        state._legal = None
        state._winners = ()
        state.current_player = current_player
        if not any(state.hands):
            state._finish()
        elif not state.hands[current_player]:
            raise ValueError(f"current_player {current_player} has no card to play")
        return state

    from_setup = from_position

    # -- the contract ---------------------------------------------------------------------------

    def legal_move_ids(self) -> list[int]:
        """Ids of the legal moves for the current player, ascending."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal[:]

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase == PLAY_PHASE:
            q = self.queue
            n = len(q)
            ids: list[int] = []
            for c in self.hands[self.current_player]:
                s = SPECIES[c]
                if s == CHAMELEON:
                    present = {SPECIES[x] for x in q}
                    present.discard(CHAMELEON)
                    if not present or self.config.chameleon_may_decline:
                        ids.append(CHAMELEON_NO_IMITATION)
                    for x in present:
                        ids += _COPY_IDS[x][n]
                else:
                    ids += _PLAY_IDS[s][n]
            ids.sort()
            return ids
        if phase == SET_ASIDE_PHASE:
            return sorted(SET_ASIDE_BASE + SPECIES[c] - 1 for c in self.hands[self.current_player])
        return []

    def is_legal(self, move_id: int) -> bool:
        """Whether the move with this id is legal now."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return move_id in legal

    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env checks its mask first)."""
        self._legal = None
        self.move_count += 1
        if move_id >= SET_ASIDE_BASE:
            self._set_aside(move_id - SET_ASIDE_BASE + 1)
        else:
            animal, action, choice = _DECODE[move_id]
            self._play(animal, action, choice)

    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game is over (tied players all win, §8); () before."""
        return self._winners

    def scores(self) -> tuple[float, ...]:
        """Per seat: the bar score less a hundredth of the bar strength sum (rules doc §8).

        The strength sum (at most 78) breaks ties on the bar score, lower being better, so
        subtracting ``sum / 100`` ranks the seats exactly as the result does: every winner scores
        more than every loser, and shared winners score the same. Example: 3 animals with strength
        sum 23 score 2.77. (``bar_scores()`` is the bar score alone.)
        """
        sums = self.bar_strength_sums()
        return tuple((100 * b - t) / 100 for b, t in zip(self.bar_scores(), sums, strict=True))

    def bar_scores(self) -> tuple[int, ...]:
        """Per seat: own animals in the bar (``count``) or their points (``points``)."""
        totals = [0] * self.num_players
        if self.config.scoring == "count":
            for c in self.bar:
                totals[OWNER[c]] += 1
        else:
            for c in self.bar:
                totals[OWNER[c]] += POINTS[SPECIES[c]]
        return tuple(totals)

    def bar_strength_sums(self) -> tuple[int, ...]:
        """Per seat: the strength sum of their bar animals (the tiebreak, lower is better)."""
        sums = [0] * self.num_players
        for c in self.bar:
            sums[OWNER[c]] += SPECIES[c]
        return tuple(sums)

    def clone(self) -> State:
        """An independent copy, RNG included."""
        new = State.__new__(State)
        new.config = self.config
        new.num_players = self.num_players
        new.rng = clone_rng(self.rng)
        new.hands = [h[:] for h in self.hands]
        new.draws = [d[:] for d in self.draws]
        new.set_asides = [a[:] for a in self.set_asides]
        new.queue = self.queue[:]
        new.bar = self.bar[:]
        new.thats_it = self.thats_it[:]
        new.current_player = self.current_player
        new.first_player = self.first_player
        new.phase = self.phase
        new.turn = self.turn
        new.move_count = self.move_count
        new.terminal = self.terminal
        new.end_reason = self.end_reason
        new._legal = self._legal  # never mutated in place: apply_id replaces it
        new._winners = self._winners
        return new

    def view(self, player: int) -> View:
        """What ``player`` may see (§11)."""
        self._check_seat(player)
        n = self.num_players
        bar: list[list[int]] = [[] for _ in range(n)]
        for c in self.bar:
            bar[OWNER[c]].append(SPECIES[c])
        out: list[list[int]] = [[] for _ in range(n)]
        for c in self.thats_it:
            out[OWNER[c]].append(SPECIES[c])
        return View(
            player=player,
            num_players=n,
            current_player=self.current_player,
            first_player=self.first_player,
            phase=self.phase,
            turn=self.turn,
            terminal=self.terminal,
            hand=tuple(sorted(SPECIES[c] for c in self.hands[player])),
            queue=tuple((SPECIES[c], OWNER[c]) for c in self.queue),
            bar=tuple(tuple(sorted(b)) for b in bar),
            thats_it=tuple(tuple(sorted(t)) for t in out),
            hand_sizes=tuple(len(h) for h in self.hands),
            draw_sizes=tuple(len(d) for d in self.draws),
            set_aside_sizes=tuple(len(a) for a in self.set_asides),
            unplayed=tuple(
                tuple(
                    sorted(SPECIES[c] for c in self.hands[q] + self.draws[q] + self.set_asides[q])
                )
                for q in range(n)
            ),
            set_aside=tuple(sorted(SPECIES[c] for c in self.set_asides[player])),
            bar_scores=self.bar_scores(),
            bar_sums=self.bar_strength_sums(),
            scores=self.scores(),
            winners=self._winners,
        )

    def determinize(self, player: int, rng: np.random.Generator | int | None = None) -> State:
        """A clone where everything ``player`` cannot see is resampled consistently with their view.

        Resampled: each opponent's unplayed animals re-split between hand, draw pile (in a new
        order) and set-aside cards; the order of ``player``'s own draw pile; the RNG.

        The result is a function of ``player``'s view and ``rng`` alone: every pool is sorted
        before it is shuffled, so two states that ``player`` cannot tell apart give the same
        sample for the same ``rng`` (a shuffle of the true order would let anyone who knows the
        seed read the hidden order back).
        """
        self._check_seat(player)
        rng = make_rng(rng)
        new = self.clone()
        for q in range(self.num_players):
            if q == player:
                pile = sorted(self.draws[q])
                new.draws[q] = [pile[i] for i in rng.permutation(len(pile))]
                continue
            hand, aside = self.hands[q], self.set_asides[q]
            pool = sorted(hand + aside + self.draws[q])
            pool = [pool[i] for i in rng.permutation(len(pool))]
            h, a = len(hand), len(aside)
            new.hands[q] = pool[:h]
            new.set_asides[q] = pool[h : h + a]
            new.draws[q] = pool[h + a :]
        new.rng = np.random.default_rng(int(rng.integers(2**63)))
        new._legal = None
        return new

    @property
    def card_totals(self) -> list[int]:
        """Cards per card kind: one of each of the ``12 * N`` kinds."""
        return card_totals(self.num_players)

    def census(self) -> dict[str, list[int]]:
        """Cards per card kind (``owner*12 + strength-1``) in every zone; sums to card_totals."""
        kinds = NUM_ANIMALS * self.num_players

        def counts(cards: list[int]) -> list[int]:
            out = [0] * kinds
            for c in cards:
                out[c] += 1
            return out

        zones = {
            "queue": counts(self.queue),
            "bar": counts(self.bar),
            "thats_it": counts(self.thats_it),
        }
        for q in range(self.num_players):
            zones[f"hand{q}"] = counts(self.hands[q])
            zones[f"draw{q}"] = counts(self.draws[q])
            zones[f"set_aside{q}"] = counts(self.set_asides[q])
        return zones

    def animals(self, zone: str) -> list[tuple[int, int]]:
        """``(strength, owner)`` of the cards in a zone: ``"queue"`` (gate first), ``"bar"``,
        ``"thats_it"``."""
        cards = {"queue": self.queue, "bar": self.bar, "thats_it": self.thats_it}[zone]
        return [(SPECIES[c], OWNER[c]) for c in cards]

    def render(self) -> str:
        """A readable table of the whole state (every hand shown: this is the referee's view)."""
        n = self.num_players
        total = sum(len(h) + len(d) for h, d in zip(self.hands, self.draws, strict=True))
        if self.terminal:
            status = f"game over, winners {list(self._winners)}"
        else:
            status = f"seat {self.current_player} to {PHASE_NAMES[self.phase]}"
        lines = [
            f"Beasty Bar, {n} players, scoring {self.config.scoring}, turn {self.turn} "
            f"({total} cards left to play), {status}",
            "queue (gate -> exclusion): "
            + (" ".join(f"{i}:{card_name(c)}" for i, c in enumerate(self.queue)) or "(empty)"),
        ]
        scores = self.bar_scores()
        sums = self.bar_strength_sums()
        header = f"{'seat':<5}{'score':>6}{'sum':>5}  {'hand':<34}{'draw':>5}  bar / THAT'S IT"
        lines.append(header)

        def names(cards: list[int]) -> str:
            return ", ".join(NAMES[SPECIES[c]] for c in sorted(cards)) or "-"

        for q in range(n):
            hand = names(self.hands[q])
            row = f"{q:<5}{scores[q]:>6g}{sums[q]:>5}  {hand:<34}{len(self.draws[q]):>5}  "
            row += f"{names([c for c in self.bar if OWNER[c] == q])} / "
            row += names([c for c in self.thats_it if OWNER[c] == q])
            if self.set_asides[q]:
                row += f"  (set aside: {names(self.set_asides[q])})"
            lines.append(row)
        return "\n".join(lines)

    def render_for(self, player: int) -> str:
        """A readable table of what seat ``player`` may see: its own hand and set-aside animals,
        hand and pile sizes, the queue, bar and THAT'S IT, and each seat's animals not yet played.
        Built from :meth:`view` alone, so it never shows a hidden card."""
        return render_view(self.view(player), self.config)

    def __repr__(self) -> str:
        return f"<beasty_bar State {self.num_players}p turn {self.turn} {PHASE_NAMES[self.phase]}>"

    # -- rules ----------------------------------------------------------------------------------

    def _set_aside(self, animal: int) -> None:
        """One set-aside decision (§9); after the last seat's 4th, deal and start play."""
        p = self.current_player
        card = card_of(animal, p)
        self.hands[p].remove(card)
        self.set_asides[p].append(card)
        if len(self.set_asides[p]) < self.config.set_aside:
            return
        if p + 1 < self.num_players:
            self.current_player = p + 1
            return
        for q in range(self.num_players):
            self._deal(q, self.hands[q])
        self.phase = PLAY_PHASE
        self.current_player = self.first_player

    def _play(self, animal: int, action: int, choice: int) -> None:
        """One full turn (§4): play, on-play action, recurring actions, five-animal check, draw."""
        p = self.current_player
        card = p * NUM_ANIMALS + animal - 1
        self.hands[p].remove(card)
        q = self.queue
        q.append(card)
        out = self.thats_it

        # Step 2: the on-play action of `action` (the animal's own, or the one a chameleon copies),
        # performed by `card` standing at the back, with the strength of `action`.
        if action:
            self._on_play(card, action, choice)

        # Step 3: recurring actions, front to back, each animal at most once (§6).
        snapshot = [c for c in q if _RECURRING_CARD[c]]
        for c in snapshot:
            s = SPECIES[c]
            if s == GIRAFFE and c == card:
                continue  # a giraffe skips step 3 in its entry turn
            try:
                i = q.index(c)
            except ValueError:
                continue
            if s == HIPPO:
                while i > 0 and not _HIPPO_BLOCKED[q[i - 1]]:
                    q[i - 1], q[i] = c, q[i - 1]
                    i -= 1
            elif s == CROCODILE:
                while i > 0 and not _CROC_BLOCKED[q[i - 1]]:
                    out.append(q.pop(i - 1))
                    i -= 1
            elif i > 0 and SPECIES[q[i - 1]] < GIRAFFE:  # giraffe: one swap with a weaker animal
                q[i - 1], q[i] = c, q[i - 1]

        # Step 4: the five-animal check (§7).
        if len(q) == QUEUE_SIZE:
            out.append(q.pop())
            self.bar.append(q[0])
            self.bar.append(q[1])
            del q[:2]

        # Step 5: draw.
        pile = self.draws[p]
        if pile:
            self.hands[p].append(pile.pop())

        self.turn += 1
        hands = self.hands
        nxt = (p + 1) % self.num_players
        if not hands[nxt]:
            for k in range(2, self.num_players + 1):
                nxt = (p + k) % self.num_players
                if hands[nxt]:
                    break
            else:
                self._finish()
                return
        self.current_player = nxt

    def _on_play(self, card: int, action: int, choice: int) -> None:
        """§5: ``card`` (at the back of the queue) performs the on-play action of ``action``."""
        q = self.queue
        out = self.thats_it
        i = len(q) - 1
        if action == KANGAROO:
            if choice > 0:
                q.pop()
                q.insert(i - choice, card)
        elif action == PARROT:
            if choice >= 0:
                out.append(q.pop(choice))
        elif action == SKUNK:
            values = {SPECIES[c] for c in q if c != card}
            values.discard(SKUNK)
            if values:
                top = sorted(values)[-2:]
                kept = []
                for c in q:
                    if c != card and SPECIES[c] in top:
                        out.append(c)
                    else:
                        kept.append(c)
                q[:] = kept
        elif action == MONKEY:
            monkeys = [c for c in q if SPECIES[c] == MONKEY and c != card]
            if monkeys:
                monkeys.reverse()
                rest = []
                for c in q:
                    s = SPECIES[c]
                    if s == HIPPO or s == CROCODILE:
                        out.append(c)
                    elif s != MONKEY and c != card:
                        rest.append(c)
                q[:] = [card, *monkeys, *rest]
        elif action == SEAL:
            q.reverse()
        elif action == GIRAFFE:
            if i > 0 and SPECIES[q[i - 1]] < GIRAFFE:
                q[i - 1], q[i] = card, q[i - 1]
        elif action == SNAKE:
            q.sort(key=lambda c: -SNAKE if c == card else -SPECIES[c])  # stable
        elif action == CROCODILE:
            while i > 0 and not _CROC_BLOCKED[q[i - 1]]:
                out.append(q.pop(i - 1))
                i -= 1
        elif action == HIPPO:
            while i > 0 and not _HIPPO_BLOCKED[q[i - 1]]:
                q[i - 1], q[i] = card, q[i - 1]
                i -= 1
        elif action == LION:
            for c in q:
                if c != card and SPECIES[c] == LION:
                    out.append(q.pop())  # another lion: the new one is thrown out
                    return
            kept = [card]
            for c in q:
                if SPECIES[c] == MONKEY:
                    out.append(c)
                elif c != card:
                    kept.append(c)
            q[:] = kept
        # ZEBRA: no action when played.

    def _finish(self) -> None:
        """§8: the game is over; best score wins, tie -> lower strength sum, then shared."""
        self.terminal = True
        self.end_reason = END_ALL_PLAYED
        self.phase = GAME_OVER
        self.current_player = -1
        self._legal = None
        scores = self.bar_scores()
        sums = self.bar_strength_sums()
        best = max((s, -t) for s, t in zip(scores, sums, strict=True))
        self._winners = tuple(q for q in range(self.num_players) if (scores[q], -sums[q]) == best)


def render_view(view: View, config: Config) -> str:
    """The text of :meth:`State.render_for`: a function of one seat's view (and the public
    config) only."""

    def names(animals: tuple[int, ...]) -> str:
        return ", ".join(NAMES[a] for a in animals) or "-"

    me, n = view.player, view.num_players
    left = sum(view.hand_sizes) + sum(view.draw_sizes)
    if view.phase == SET_ASIDE_PHASE:
        left = (NUM_ANIMALS - config.set_aside) * n  # the set-aside choices are not turns
    if view.terminal:
        status = f"game over, winners {list(view.winners)}"
    else:
        status = f"seat {view.current_player} to {PHASE_NAMES[view.phase]}"
    queue = " ".join(f"{i}:{NAMES[a]}({o})" for i, (a, o) in enumerate(view.queue))
    mine = "my animals to choose from" if view.phase == SET_ASIDE_PHASE else "my hand"
    lines = [
        f"Beasty Bar, {n} players, scoring {config.scoring}, turn {view.turn} "
        f"({left} cards left to play), {status}",
        f"seen by seat {me} (seat {view.first_player} played first)",
        f"queue (gate -> exclusion): {queue or '(empty)'}",
        f"{mine}: {names(view.hand)}; cards in my draw pile: {view.draw_sizes[me]} (order unknown)",
    ]
    if config.set_aside:
        lines.append(f"my set-aside animals: {names(view.set_aside)}")
    aside = f"{'aside':>6}" if config.set_aside else ""
    lines.append(f"{'seat':<7}{'score':>6}{'sum':>5}{'hand':>6}{'draw':>6}{aside}  bar / THAT'S IT")
    for q in range(n):
        seat = f"{q} (me)" if q == me else str(q)
        aside = f"{view.set_aside_sizes[q]:>6}" if config.set_aside else ""
        lines.append(
            f"{seat:<7}{view.bar_scores[q]:>6}{view.bar_sums[q]:>5}{view.hand_sizes[q]:>6}"
            f"{view.draw_sizes[q]:>6}{aside}  {names(view.bar[q])} / {names(view.thats_it[q])}"
        )
    parts = "hand + draw pile + set aside" if config.set_aside else "hand + draw pile"
    for q in range(n):
        if q != me:
            lines.append(f"seat {q} not yet played ({parts}): {names(view.unplayed[q])}")
    return "\n".join(lines)


def _strength(animal: int | str) -> int:
    """A strength from a strength or an animal name (case-insensitive)."""
    if isinstance(animal, str):
        try:
            return NAMES.index(animal.strip().capitalize())
        except ValueError:
            raise ValueError(
                f"unknown animal {animal!r}; animals: {', '.join(NAMES[1:])}"
            ) from None
    if isinstance(animal, bool) or not 1 <= animal <= NUM_ANIMALS:
        raise ValueError(f"animal strength must be 1..{NUM_ANIMALS}, got {animal!r}")
    return int(animal)
