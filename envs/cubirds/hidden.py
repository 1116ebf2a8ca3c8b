"""What a Cubirds player may see (:class:`View`), what each seat knows of the draw pile (its
*pool*: :func:`new_source`, :func:`reset_pool`, :func:`refresh_pool`), and how everything a player
cannot see is resampled consistently (:func:`determinize`; the replay itself is in
:mod:`cardzoo.envs.cubirds.hidden_replay`).

The engine keeps a short public record (the *log*) of every event that moves cards nobody may see.
Resampling replays that record and draws again every hidden card, so that the sampled game agrees
with everything one player has seen, not only with the current counts. Why a replay is needed:

- A lay or flock of species ``s`` shows how many ``s`` the player held at that moment. A card the
  player drew *before* that moment and still holds is therefore not an ``s``; a card drawn later may
  be. So the hidden part of a hand is a sequence of draws, each with its own constraints.
- A draw pile whose composition everyone knows (the reshuffled public discard pile, or the pile
  after a round ended with the hands shown) is a *source*: every card drawn from it unseen is one of
  its cards, and the pile holds the rest. Cards hidden in a hand before the reshuffle come from an
  older source. A laid card does not say which source it came from, so the sources cannot be kept
  apart by simple counts; the replay keeps them apart by construction.

The log (tuples of small ints; ``counts`` are 8 per-species counts):

====================================  ===========================================================
``(EV_SOURCE, counts)``               a draw pile of known composition starts (setup, a round end
                                      with the hands shown, a hand-set position)
``(EV_RESHUFFLE, public_counts)``     the discard pile becomes the draw pile: its public cards
                                      plus the hidden leftovers of the round ends since the last
                                      source (only with ``reveal_round_end_discards=False``)
``(EV_BATCH, seat, counts)``          ``seat`` drew these cards unseen from the current pile
``(EV_PUBLIC, species)``              a card drawn face up from the current pile (refill,
                                      collection card at setup)
``(EV_CLOSE, seat, species, hidden)`` ``seat`` laid or flocked all its ``species``; ``hidden``
                                      of them were not publicly known (not captured face up)
``(EV_ROUND_END, leftovers, pile)``   hands thrown away face down; ``leftovers[q]`` = the cards of
                                      seat ``q``'s hand that were not publicly known; ``pile`` =
                                      the draw pile's (hidden) content then
====================================  ===========================================================

The log holds the true cards of every batch; a replay for player ``p`` uses only ``p``'s own batches
and leftovers (which ``p`` saw) and the public events. With the default public round-end discards
the engine restarts the log at every round end (the draw pile's composition is public then), so
the replay covers one round.

Sampling, in this order (each stage only if the one before found nothing):

1. **Fast replay** (:meth:`_Plan.sample`, up to ``FAST_ATTEMPTS`` tries): the hidden draws are
   replayed in order, card by card, each drawn from the sampled pile (its known composition minus
   the cards ``p`` knows left it) in proportion to what is left, restricted by local checks so that
   every lay and flock count can still be met: the lays still to come of a hand need so many
   cards of their species before their own end (Hall's condition for these nested windows), a pile
   must keep what the lays drawing from it still need (a lay spanning a reshuffle can get from
   the next public pile at most what that pile holds beyond its own lays' needs), and a pile
   drawn to its end must find a place for each of its cards. These checks are necessary, not
   sufficient: a replay can still run into a dead end, and then it starts again. This is the
   natural sample: drawn like the game, the checks steering it (it is not an exact sampler).
2. **Exact per-pile search** (:meth:`_Plan.sample_exact`): every pile's batches at once as a flow
   (species -> lay interval -> batch, with lower bounds), depth first over the piles.
3. **Split search** (:meth:`_Plan.sample_split`, public round-end discards only): fixes how many
   cards of each lay spanning a reshuffle came from each pile; then the piles are independent
   flows, so a complete choice that every pile's flow accepts is a consistent game.
4. **Complete search** (:meth:`_Plan.sample_complete`, :class:`.flow.CompleteSearch`): the
   split search widened to face-down round ends. Besides the splits, it fixes how many cards of
   each species the hands thrown away before a reshuffle kept from each earlier pile (they join
   the reshuffled pile); with every choice fixed, each pile's content is known and the piles are
   independent flows. It fixes every split before any feed (since session 24: several times
   fewer dead ends at late face-down positions). Each partial choice is checked by the flows of
   the piles it touches, with the open choices as ranges, which every consistent world passes,
   so no world is ever pruned:
   the search, restarted in a new random order with a doubled budget whenever it runs out, finds
   a world whenever one exists and reads nothing but ``p``'s log. When it has tried every choice
   and found none, the log contradicts itself (a bug): :class:`SamplingError`.

Stage 0 (``EXACT = True``, the default): where it applies, an exact sample from the posterior
(:mod:`cardzoo.envs.cubirds.hidden_exact`, which defines "exact"); the stages below are not
exact samplers (their distribution is measurably off on small positions,
``tests/cubirds/test_cubirds_exact_posterior.py``).

Then (session 30; ``hidden_mix.MOVES_PER_SLOT`` > 0, the default) the world a stage found is
moved by a Markov chain whose stationary distribution is the exact posterior
(:mod:`cardzoo.envs.cubirds.hidden_mix`): swaps of hidden cards, with the piles that thrown
hands fed following along. Such moves can only bring the stages' distribution closer to the
posterior; on the small hand-made logs, where the stages are measurably off, the moved worlds
pass the comparison with the brute-force reference (``tests/cubirds/test_cubirds_mix.py``).
Still not exact: how far from the posterior a chain of so many moves ends at large positions
is measured, not bounded (``docs/cubirds_determinize.md``, session 30).

Measured in random play (2 to 5 players, every other option value, one ``determinize`` call every
5 decisions), with the default public round-end discards: 15,854 calls, 28 needed stage 2, 14
stage 3, none a later stage; 0.9 ms per call on average, 142 ms at most (measured when stage 3
was added). With face-down round-end discards the hidden leftovers of every round feed later
piles, which stages 2 and 3 do not cover. Measured on 200 random games at 4 and 5 players
(alternating; the other options varied by seed; one call every 5 decisions, the seat in turn;
8,293 calls, on 2 cores shared with other jobs, so the times are inflated): stage 4 ran in 342
calls (4.1 %), 1.1 s on average and 18.7 s at most; over all calls 65 ms per call on average,
1.5 s at the 99th percentile, 18.8 s at most. The last resort it replaces (which kept true
cards) took 1.7 ms on average there, and all calls 39 ms on average, 0.52 s at the 99th
percentile, 2.4 s at most. Stage 4 is slow because its checks see each pile alone: a run that
fixes early piles badly only finds out piles later, and most runs end in a restart.

Speed (issue 16; CPU time, 2 cores shared with other jobs at a load of about 10): the plans of
the last few (log, seat) pairs are kept (:func:`plan_for`), and the fast replay bounds what a
lay spanning a reshuffle can get from the next pile. Positions every 5 decisions of 16 seeded
random games, 5 repeated calls at each: at 5 players 0.64 ms per call on average (1.07 before),
6.2 ms at the 99th percentile (13.0), 33 ms at most (84); at 2 to 4 players 0.17 to 0.30 ms
(0.18 to 0.41). With face-down round-end discards nothing changed (5 players, 181 positions:
25 ms on average, up to about 2 s): most fast replays still die in piles drawn to their end,
and stage 4 still runs. The replay plan is read only when the exact model does not serve
(``_Kept.replay``); the exact model's own reuse along a game is described in
:mod:`cardzoo.envs.cubirds.hidden_exact`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.core import child_rng, collector_paused
from cardzoo.envs.cubirds import hidden_mix
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
    GAME_OVER,
    NUM_SPECIES,
)
from cardzoo.envs.cubirds.hidden_exact import ExactModel, TooLarge
from cardzoo.envs.cubirds.hidden_replay import FAST_ATTEMPTS, SPLIT_TRIES, _Plan

if TYPE_CHECKING:
    from cardzoo.envs.cubirds.game import State


@dataclass(frozen=True)
class View:
    """Everything one player may see (rules spec §9), and nothing else.

    ``phase`` is the decision pending, shown only to the player who must make it (``None`` for
    everyone else while the game goes on). ``known_hands[q][s]`` counts cards of species ``s``
    publicly known to be in seat ``q``'s hand (captured face up and not laid or flocked since);
    ``exact[q][s]`` is True when ``q`` holds exactly those (it laid or flocked ``s`` since it last
    took unseen cards). ``draw_pool[s]``: cards of species ``s`` this player knows to be in the draw
    pile or among the cards drawn from it unseen since its composition was last known;
    ``draw_pool_unknown``: further such cards whose species this player does not know (0 unless
    round-end discards are hidden). So ``sum(draw_pool) + draw_pool_unknown - draw_size`` cards
    were drawn from the pool unseen. ``discard_known[s]``: discard-pile cards of species ``s`` this
    player knows about.
    """

    player: int
    num_players: int
    current_player: int
    phase: int | None
    turn: int
    round: int
    hand: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    known_hands: tuple[tuple[int, ...], ...]
    exact: tuple[tuple[bool, ...], ...]
    collections: tuple[tuple[int, ...], ...]
    rows: tuple[tuple[int, ...], ...]
    draw_size: int
    draw_pool: tuple[int, ...]
    draw_pool_unknown: int
    discard_size: int
    discard_known: tuple[int, ...]
    terminal: bool
    winners: tuple[int, ...]


def build_view(state: State, player: int) -> View:
    """The body of :meth:`State.view` (the seat is checked there)."""
    if state.terminal:
        phase: int | None = GAME_OVER
    else:
        phase = state.phase if player == state.current_player else None
    return View(
        player=player,
        num_players=state.num_players,
        current_player=state.current_player,
        phase=phase,
        turn=state.turn,
        round=state.round,
        hand=tuple(state.hands[player]),
        hand_sizes=tuple(state.hand_sizes),
        known_hands=tuple(tuple(k) for k in state.known),
        exact=tuple(tuple(bool(b >> s & 1) for s in range(NUM_SPECIES)) for b in state.exact_bits),
        collections=tuple(tuple(c) for c in state.collections),
        rows=tuple(tuple(r) for r in state.rows),
        draw_size=len(state.draw),
        draw_pool=tuple(state.pool_lb[player]),
        draw_pool_unknown=state.pool_unknown[player],
        discard_size=state.discard_size,
        discard_known=tuple(state.discard_known[player]),
        terminal=state.terminal,
        winners=state._winners,
    )


def new_source(state: State, counts: list[int] | None = None) -> None:
    """The draw pile's composition is public now (``counts``, default: the pile itself): the
    record of earlier unseen draws no longer matters and restarts here."""
    if counts is None:
        counts = [state.draw.count(s) for s in range(NUM_SPECIES)]
    state.log = [(EV_SOURCE, tuple(counts))]
    state.src_size = sum(counts)
    state.src_known = [counts[:] for _ in range(state.num_players)]
    reset_pool(state)


def reset_pool(state: State) -> None:
    """Every seat's view of a new pool (none of its cards seen leaving it yet)."""
    state.taken_seen = [0] * NUM_SPECIES
    if state.config.reveal_round_end_discards:  # every seat knows the same pool
        refresh_pool(state, 0)
        lb, unknown = state.pool_lb[0], state.pool_unknown[0]
        state.pool_lb = [lb[:] for _ in range(state.num_players)]
        state.pool_unknown = [unknown] * state.num_players
        return
    for q in range(state.num_players):
        refresh_pool(state, q)


def refresh_pool(state: State, q: int) -> None:
    """Seat ``q``'s view of the pool from what it knows of the source and the cards seen
    leaving it: at least ``known - seen`` of each species, the rest unnamed."""
    lb = bytearray([max(k - t, 0) for k, t in zip(state.src_known[q], state.taken_seen)])
    state.pool_lb[q] = lb
    state.pool_unknown[q] = state.src_size - sum(state.taken_seen) - sum(lb)


@collector_paused
def determinize(state: State, player: int, rng: np.random.Generator) -> State:
    """The body of :meth:`State.determinize` (its docstring says what is resampled): a clone
    of ``state`` with the hidden cards of :func:`sample_hidden`'s sample written in. The cyclic
    garbage collector is paused meanwhile (:func:`cardzoo.envs.core.collector_paused`; session
    31: the counting tables are made of small containers, and with torch and Stable-Baselines3
    imported a first call along games cost 21-40 % less, the loop around it 9-20 %)."""
    sample = sample_hidden(state.log, player, state.num_players, rng, plan_for(state, player))
    new = state.clone(copy_rng=False)
    n = state.num_players
    for q in range(n):
        if q == player:
            continue
        hand = [k + h for k, h in zip(state.known[q], sample.hidden[q])]
        if sum(hand) != state.hand_sizes[q]:
            raise AssertionError(f"resampled hand of seat {q} has the wrong size: {hand}")
        new.hands[q] = hand
        new.discard_known[q] = bytearray(
            p + o for p, o in zip(state.discard_public, sample.discard_own[q])
        )
        # The source's public part is what ``player`` knows of it minus its own cards.
        new.src_known[q] = [
            k - mine + o
            for k, mine, o in zip(
                state.src_known[player], sample.source_own[player], sample.source_own[q]
            )
        ]
        refresh_pool(new, q)
    draw = [s for s in range(NUM_SPECIES) for _ in range(sample.draw[s])]
    rng.shuffle(draw)
    if len(draw) != len(state.draw):
        raise AssertionError("resampled draw pile has the wrong size")
    new.draw = draw
    if not state.config.reveal_round_end_discards:
        discard = state.discard_public[:]
        for own in sample.discard_own:
            for s in range(NUM_SPECIES):
                discard[s] += own[s]
        new.discard = discard
    new.log = sample.log
    new.rng = child_rng(rng)  # built on first use
    return new


class SamplingError(RuntimeError):
    """No consistent sample was found (the log contradicts itself: an engine bug)."""


@dataclass
class Sample:
    """One resampled world, as seen by ``player``; entries of ``player`` itself are its truth."""

    #: Per seat: the sampled cards of its hand that are not publicly known (``player``: truth).
    hidden: list[list[int]]
    #: Composition of the draw pile.
    draw: list[int]
    #: Per seat: its own hidden cards lying in the discard pile (thrown away face down).
    discard_own: list[list[int]]
    #: Per seat: its own hidden cards in the source of the current draw pile.
    source_own: list[list[int]]
    #: The log with every sampled batch and leftover written in.
    log: list[tuple]


#: The positions used last, oldest first: (log, its length, player, kept), each with its exact
#: model once built and its replay plan once needed. A search calls ``determinize`` many times
#: at one position, where building the model costs ten times a sample; 64 serve searches over
#: many games or seats at once, as Sitting Ducks Gallery's cache does (about 70-90 kB a plan,
#: measured at 2 and 5 players). Kept here rather than on each state, so that a program holding
#: many states does not hold their plans too (those many small objects slowed Python's garbage
#: collector).
_PLANS: list[tuple[list[tuple], int, int, _Kept]] = []
PLANS_KEPT = 64


def plan_for(state: State, player: int) -> _Kept:
    """What is kept of ``player``'s view of ``state.log``, reused while that log is unchanged. A
    log only grows in place or is replaced by a new list (a new source; a clone copies it), and
    a kept entry holds its list, so the list and its length say whether a kept entry still
    fits."""
    log, size = state.log, len(state.log)
    for kept, kept_size, seat, entry in _PLANS:
        if kept is log and kept_size == size and seat == player:
            return entry
    entry = _Kept(log, player, state.num_players)
    _PLANS.append((log, size, player, entry))
    if len(_PLANS) > PLANS_KEPT:
        del _PLANS[0]
    return entry


class _Kept:
    """One seat's view of one log: its exact model (``False`` until built, ``None`` where it
    does not apply) and its replay plan, each made on first use (the exact model usually
    serves alone, and the plan costs about a third of a millisecond to read)."""

    __slots__ = ("log", "player", "num_players", "exact_model", "_replay", "_mixer")

    def __init__(self, log: list[tuple], player: int, num_players: int) -> None:
        self.log = log  # read only at this length: plan_for checks it
        self.player = player
        self.num_players = num_players
        self.exact_model: ExactModel | None | bool = False
        self._replay: _Plan | None = None
        self._mixer: hidden_mix.Mixer | None = None

    @property
    def replay(self) -> _Plan:
        if self._replay is None:
            self._replay = _Plan(self.log, self.player, self.num_players)
        return self._replay

    def mixed(self, result: tuple, rng: np.random.Generator) -> tuple:
        """A replay stage's world moved towards the posterior (:mod:`.hidden_mix`)."""
        if self._mixer is None:
            self._mixer = hidden_mix.Mixer(self.replay)
        batches, _ = self._mixer.mix(result[4], list(result[1]), rng)
        moved = self.replay._replay(batches)
        if moved is None:  # every move keeps the world consistent: a bug
            raise SamplingError(f"a move broke seat {self.player}'s world")
        return moved


def sample_hidden(
    log: list[tuple],
    player: int,
    num_players: int,
    rng: np.random.Generator,
    kept: _Kept | None = None,
) -> Sample:
    """Resample every card ``player`` has not seen, consistently with the whole ``log``.

    Tries fast replays, then the exact searches, then the complete search (see the module
    docstring). Raises :class:`SamplingError` if even that finds no world: the log contradicts
    itself, which is a bug. ``kept``: what is kept of this view of the log, if any.
    """
    if kept is None:
        kept = _Kept(log, player, num_players)
    model = exact_model(kept) if EXACT else None
    result = model.sample(rng) if model is not None else None
    if result is not None:
        new_log = _write_back(log, 0, result[4], result[5])
        if result[5]:  # face-down round ends: the pile then follows from the sampled batches
            new_log = _with_piles(new_log)
        return Sample(*result[:4], new_log)
    result = _resample(kept.replay, rng)
    if result is None:
        result = _complete(kept.replay, rng)
    if result is None:
        raise SamplingError(
            f"no world agrees with what seat {player} has seen (the complete search tried every "
            "choice): the log contradicts itself"
        )
    if hidden_mix.MOVES_PER_SLOT:
        result = kept.mixed(result, rng)
    new_log = _write_back(log, 0, result[4], result[5])
    return Sample(result[0], result[1], result[2], result[3], _with_piles(new_log))


#: Sample from the exact posterior (:mod:`cardzoo.envs.cubirds.hidden_exact`) where its model
#: applies (no reshuffle after a face-down round end, within its limits); elsewhere the replay
#: below. On by default since 2026-12-02: exactness is worth a dearer first call at a position
#: (about 1 to 3.5 ms on average along a game at 2 to 5 players, see that module; the replay's
#: 0.25 to 0.6 ms); repeated calls there cost about what the replay's do or less. ``False``
#: gives the replay alone (the tests that need the replay set it off themselves).
EXACT = True


def exact_model(kept: _Kept) -> ExactModel | None:
    """The exact model of ``kept``'s position, built once and kept there; None where it does
    not apply (a reshuffle after a face-down round end) or exceeds its limits."""
    model = kept.exact_model
    if model is False:
        try:
            model = ExactModel(kept.log, kept.player, kept.num_players)
            if not model.build():
                model = None
        except TooLarge:
            model = None
        kept.exact_model = model
    return model


def _resample(plan: _Plan, rng: np.random.Generator) -> tuple | None:
    for _ in range(FAST_ATTEMPTS):
        result = plan.sample(rng)
        if result is not None:
            return result
    result = plan.sample_exact(rng)
    for _ in range(SPLIT_TRIES):
        if result is not None:
            break
        result = plan.sample_split(rng)
    return result


def _write_back(log: list[tuple], offset: int, batches: dict, leftovers: dict) -> list[tuple]:
    """``log`` with the sampled batches and leftovers (keyed by index - ``offset``) written in."""
    new_log = list(log)
    for i, counts in batches.items():
        ev = new_log[i + offset]
        new_log[i + offset] = (EV_BATCH, ev[1], counts)
    for i, left in leftovers.items():
        new_log[i + offset] = (EV_ROUND_END, left, new_log[i + offset][2])
    return new_log


def _with_piles(log: list[tuple]) -> list[tuple]:
    """A complete log (every batch and leftover filled in) with the draw pile's composition at
    each face-down round end recomputed (:func:`_current_round` starts from it)."""
    out = []
    pile = [0] * NUM_SPECIES
    pending = [0] * NUM_SPECIES
    for ev in log:
        tag = ev[0]
        if tag == EV_SOURCE:
            pile = list(ev[1])
            pending = [0] * NUM_SPECIES
        elif tag == EV_RESHUFFLE:
            pile = [a + b for a, b in zip(ev[1], pending)]
            pending = [0] * NUM_SPECIES
        elif tag == EV_BATCH:
            pile = [a - b for a, b in zip(pile, ev[2])]
        elif tag == EV_PUBLIC:
            pile[ev[1]] -= 1
        elif tag == EV_ROUND_END:
            for left in ev[1]:
                pending = [a + b for a, b in zip(pending, left)]
            ev = (EV_ROUND_END, ev[1], tuple(pile))
        out.append(ev)
    return out


def _complete(plan: _Plan, rng: np.random.Generator) -> tuple | None:
    """Stage 4, when stages 1 to 3 found nothing (see the module docstring)."""
    return plan.sample_complete(rng)
