"""Beasty Bar rules engine (Stefan Kloß, Zoch 2014; "Safari Bar" in Czech/Slovak), 2-4 players.

Implements the rules of ``docs/rules/beasty_bar.md`` exactly (section numbers below refer to
it): all twelve animals' on-play actions, the recurring actions (hippo, crocodile, giraffe; zebra
passive), the chameleon's imitation of every species with its sub-choices, the five-animal check,
drawing, the end after every card has been played, ``count`` and ``points`` scoring with the
strength-sum tiebreak and shared wins, and the advanced set-aside variant. No RL imports: a
researcher can use :class:`State` alone for search or analysis.

Representation (chosen for a fast hot path)
-------------------------------------------
A **card** is an int ``owner * 12 + (strength - 1)`` (``data.py``); every card is unique (one
colour per seat), and this int is also the *card kind* used by :meth:`State.census`. The queue is
a list of cards, **index 0 next to Heaven's Gate**; a draw pile is a list whose **last** element is
its top card; hands, bar, THAT'S IT and set-aside cards are plain lists (their order never
matters). The 45 moves and their ids are listed in ``moves.py``.

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
  declining, each have one dedicated "no effect" move (see the table in ``moves.py``).
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

from typing import ClassVar

import numpy as np
from cardzoo.envs.beasty_bar import hidden, positions, render
from cardzoo.envs.beasty_bar.config import Config
from cardzoo.envs.beasty_bar.data import (
    BAR_ENTRIES,
    CHAMELEON,
    CROCODILE,
    CROCODILE_STOPPERS,
    END_ALL_PLAYED,
    GAME_OVER,
    GIRAFFE,
    HAND_SIZE,
    HIPPO,
    HIPPO_STOPPERS,
    LION,
    MAX_BEFORE_PLAY,
    MAX_CARDS,
    MAX_PILE,
    MONKEY,
    NUM_ANIMALS,
    OWNER,
    PHASE_NAMES,
    PLAY_PHASE,
    POINTS,
    QUEUE_SIZE,
    RECURRING,
    SET_ASIDE_PHASE,
    SKUNK,
    SNAKE,
    SPECIES,
    card_name,
    card_of,
)
from cardzoo.envs.beasty_bar.hidden import View
from cardzoo.envs.beasty_bar.moves import (
    CHAMELEON_NO_IMITATION,
    COPY_IDS,
    DECODE,
    MOVE_INDEX,
    MOVES,
    NUM_MOVES,
    NUM_PLAY_MOVES,
    PLAY_IDS,
    SET_ASIDE_BASE,
    Move,
    Play,
    SetAside,
    move_from_id,
)
from cardzoo.envs.beasty_bar.render import render_view
from cardzoo.envs.core import (
    CachedLegalMoves,
    GameState,
    clone_rng,
    make_rng,
    resolve_first_player,
)

# Names that lived here before the engine was split into rooms: importable from here as before.
__all__ = [
    "CHAMELEON_NO_IMITATION",
    "END_ALL_PLAYED",
    "GAME_OVER",
    "MAX_BEFORE_PLAY",
    "MAX_CARDS",
    "MAX_PILE",
    "MOVES",
    "MOVE_INDEX",
    "NUM_MOVES",
    "NUM_PLAY_MOVES",
    "OWNER",
    "PHASE_NAMES",
    "PLAY_PHASE",
    "SET_ASIDE_BASE",
    "SET_ASIDE_PHASE",
    "SPECIES",
    "Config",
    "Move",
    "Play",
    "SetAside",
    "State",
    "View",
    "card_name",
    "card_of",
    "card_totals",
    "move_from_id",
    "render_view",
]

_HIPPO_BLOCKED = tuple(SPECIES[c] in HIPPO_STOPPERS for c in range(MAX_CARDS))
_CROC_BLOCKED = tuple(SPECIES[c] in CROCODILE_STOPPERS for c in range(MAX_CARDS))
_RECURRING_CARD = tuple(RECURRING[SPECIES[c]] for c in range(MAX_CARDS))


def card_totals(num_players: int) -> list[int]:
    """Cards per card kind (``owner*12 + strength-1``): one of each, ``12 * num_players`` kinds."""
    return [1] * (NUM_ANIMALS * num_players)


# ---------------------------------------------------------------------------------------------
# The animals' actions (§5). Each is called as ``action(queue, thats_it, card, choice)``: ``card``
# performs it, with ``choice`` the move's sub-choice (-1: none). When played, ``card`` stands at
# the back of the queue; hippo, crocodile and giraffe act again in step 3 of every turn (§6) with
# the same function, from wherever they stand.


def _skunk(q: list[int], out: list[int], card: int, choice: int) -> None:
    """Every animal of the two strongest species in the queue (skunks aside) goes out."""
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


def _parrot(q: list[int], out: list[int], card: int, choice: int) -> None:
    """The animal at position ``choice`` goes out."""
    if choice >= 0:
        out.append(q.pop(choice))


def _kangaroo(q: list[int], out: list[int], card: int, choice: int) -> None:
    """Jump over ``choice`` (1 or 2) animals."""
    if choice > 0:
        q.pop()
        q.insert(len(q) - choice, card)


def _monkey(q: list[int], out: list[int], card: int, choice: int) -> None:
    """With another monkey in the queue: hippos and crocodiles go out, the monkeys go to the
    front (the new one first, the others in reverse order)."""
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


def _seal(q: list[int], out: list[int], card: int, choice: int) -> None:
    """The queue turns round."""
    q.reverse()


def _giraffe(q: list[int], out: list[int], card: int, choice: int) -> None:
    """One place forward, past a weaker animal."""
    i = q.index(card)
    if i > 0 and SPECIES[q[i - 1]] < GIRAFFE:
        q[i - 1], q[i] = card, q[i - 1]


def _snake(q: list[int], out: list[int], card: int, choice: int) -> None:
    """The queue is sorted by strength, strongest first (stable; the card counts as a snake)."""
    q.sort(key=lambda c: -SNAKE if c == card else -SPECIES[c])


def _crocodile(q: list[int], out: list[int], card: int, choice: int) -> None:
    """Eat forward every animal that does not stop a crocodile."""
    i = q.index(card)
    while i > 0 and not _CROC_BLOCKED[q[i - 1]]:
        out.append(q.pop(i - 1))
        i -= 1


def _hippo(q: list[int], out: list[int], card: int, choice: int) -> None:
    """Walk forward past every animal that does not stop a hippo."""
    i = q.index(card)
    while i > 0 and not _HIPPO_BLOCKED[q[i - 1]]:
        q[i - 1], q[i] = card, q[i - 1]
        i -= 1


def _lion(q: list[int], out: list[int], card: int, choice: int) -> None:
    """A second lion goes out; the first goes to the front and throws out every monkey."""
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


#: The action of each species, indexed by strength (None: no action; zebra is passive).
_ACTIONS = (
    None,
    _skunk,
    _parrot,
    _kangaroo,
    _monkey,
    None,  # a chameleon performs the action of the species it copies
    _seal,
    None,
    _giraffe,
    _snake,
    _crocodile,
    _hippo,
    _lion,
)
# Step 3 calls the action of every recurring animal without a None check.
assert all(_ACTIONS[s] is not None for s in range(1, NUM_ANIMALS + 1) if RECURRING[s])


# ---------------------------------------------------------------------------------------------
# The state


class State(CachedLegalMoves, GameState):
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
        return positions.from_position(
            cls,
            config,
            queue=queue,
            hands=hands,
            draw_piles=draw_piles,
            bar=bar,
            thats_it=thats_it,
            set_aside=set_aside,
            current_player=current_player,
            first_player=first_player,
            turn=turn,
            seed=seed,
        )

    from_setup = from_position

    # -- the contract ---------------------------------------------------------------------------

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
                        ids += COPY_IDS[x][n]
                else:
                    ids += PLAY_IDS[s][n]
            ids.sort()
            return ids
        if phase == SET_ASIDE_PHASE:
            return sorted(SET_ASIDE_BASE + SPECIES[c] - 1 for c in self.hands[self.current_player])
        return []

    def apply_id(self, move_id: int) -> None:
        """Play a move id already known to be legal (the env checks its mask first)."""
        self._legal = None
        self.move_count += 1
        if move_id >= SET_ASIDE_BASE:
            self._set_aside(move_id - SET_ASIDE_BASE + 1)
        else:
            animal, action, choice = DECODE[move_id]
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

    def clone(self, *, copy_rng: bool = True) -> State:
        """An independent copy, RNG included (``copy_rng=False``: none yet, for a caller that
        sets its own, as ``determinize`` does; copying one costs about 3 us)."""
        new = State.__new__(State)
        new.config = self.config
        new.num_players = self.num_players
        new.rng = clone_rng(self.rng) if copy_rng else None
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
        return hidden.view(self, player)

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
        return hidden.determinize(self, player, rng)

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
        return render.render(self)

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
        act = _ACTIONS[action]
        if act is not None:
            act(q, out, card, choice)

        # Step 3: recurring actions, front to back, each animal at most once (§6); an animal
        # thrown out earlier in this step does not act, nor a giraffe in its entry turn.
        for c in [c for c in q if _RECURRING_CARD[c]]:
            if c in q and (c != card or SPECIES[c] != GIRAFFE):
                _ACTIONS[SPECIES[c]](q, out, c, -1)

        # Step 4: the five-animal check (§7).
        if len(q) == QUEUE_SIZE:
            out.append(q.pop())
            self.bar += q[:BAR_ENTRIES]
            del q[:BAR_ENTRIES]

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
