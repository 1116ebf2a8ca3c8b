"""What each seat may see and deduce: :class:`View`, the event logs, and ``determinize``.

- :class:`View`, :func:`build_view` (``view.py``, re-exported): what one seat may see (§10).
- The public event logs and :class:`Belief`, the exact posterior over a seat's hidden cards
  (cut to its heaviest label states when it grows past ``MAX_STATES``).
- :func:`determinize`: a full state resampled from what one seat knows (``State.determinize``).
- ``labels.py``: the label states' types and helpers, and the exact merges (described here).

Resampling a player's hidden cards consistently with everything the opponent has seen
-------------------------------------------------------------------------------------

What the opponent sees of a player's hidden zones (hand, auxiliary deck, draw pile) is a public
**event log**, kept by the engine for each seat and race:

=====================  ===================================================================
event                  meaning
=====================  ===================================================================
``(RESHUFFLE, c)``     a new draw pile of known composition ``c`` (9 counts): the deck at
                       the deal, then each reshuffled discard pile
``(DRAW, n)``          ``n`` cards drawn from the draw pile into the hand
``(STASH,)``           one hand card (unseen) put on top of the auxiliary deck
``(FROM_HAND, k)``     a hand card of kind ``k`` played face up
``(FROM_AUX, k)``      the top auxiliary card, of kind ``k``, played face up
``(REARRANGE,)``       O2-A: the auxiliary deck put in an order the opponent does not see
``(NO_MATCH, t, top)`` ``joker_requires_no_match`` only: after a play with a joker pair, no
                       card of type ``t`` is left in the hand, and (``top``) the top auxiliary
                       card is not one (the engine always logs ``top=True``: the rule looks at
                       the card on top after the play)
=====================  ===================================================================

The model. Each draw pile is a uniformly random order of its known make-up. What the owner
chooses unseen (which hand card to stash or play, the order O2-A gives) is treated as uniformly
random among the cards it could be; the log then conditions on what was seen. A **world** is
the hidden cards at the end; :class:`Belief` holds the exact posterior over worlds under this
model, and :meth:`Belief.sample` draws one world from it.

How. Every card drawn is a **token** labelled with its *epoch* (which draw pile it came from)
and the set of land types it is known not to be (``NO_MATCH``). Tokens with one label are
interchangeable, because their pile's order was uniformly unknown; so a belief is a weighted
set of *label states* (which labels are in the hand, in each aux slot, and what each epoch has
not yet revealed), each weight counting the card-level histories that lead to it. Each event
maps every label state to its successors (a stash or a play of a hand card branches over the
labels it could come from, weighted by how many tokens carry them); equal states merge, states
that no card assignment completes are dropped. A sample picks a label state with probability
proportional to its weight times the number of ways its epochs' unrevealed cards can be dealt
to its tokens, then deals them uniformly among those ways. Everything is done in a canonical
order, so a sample depends on the log and the rng only, never on the true cards.

Exact merges: a token's mask keeps no bit of a land type its epoch has no card of left, and
the tokens of fully drawn epochs left with cards of one kind ``k`` only share the lowest such
epoch's label (each is a ``k`` whichever pile it came from); the posterior is unchanged
(``tests/odins_ravens/test_ravens_exact_merge.py``). And the cards stashed from one hand with
no draw between lie in one *open bag* of the aux deck instead of a slot each, their order
being exchangeable (``_open_after``; ``tests/odins_ravens/test_ravens_open_bag.py`` checks
the belief's whole world distribution against a brute-force count). Why no lumping makes the
posterior exact everywhere in a few thousand states: ``docs/rules/odins_ravens.md``.

If the posterior still needs more than ``MAX_STATES`` label states (a large aux deck holding
cards of several draw piles, while a hand mixes two piles' cards; ``UNMASKED_FACTOR`` times as
many while no token carries a ``NO_MATCH`` mask, as such states cost less to step), the belief
is **cut** to its heaviest label states (by weight times the ways to deal their cards): those
holding at most ``CUT_MASS`` of the mass are dropped, and more if more than that limit are left.
Every sample stays consistent, drawn from the posterior without those states
(``Belief.dropped`` adds up the shares cut), and a cut belief goes on being updated at the
usual cost. If a later event fits none of the states kept, the belief is rebuilt from its
checkpoint up to that event with the limit ``RETRY_LIMIT`` (once per checkpoint, so the
belief stays a function of the log); if that fails too, the search fallback
``search_hidden`` (``hidden_search.py``) returns consistent worlds whose choices among labels
are uniform, not weighted (far from the posterior: see ``docs/rules/odins_ravens.md``). How
often beliefs are cut is measured by ``tests/odins_ravens/bench_ravens_cut.py``.

A belief is updated event by event (:meth:`Belief.advance` returns a new one; old ones stay
valid), so the engine keeps one per seat and pays only for the events since its last use; a
clone shares them, and so does a world from ``determinize`` (since session 38: its logs are the
state's, so a search calling ``determinize`` on a world does not replay the log).

The cyclic garbage collector is paused while a belief is advanced (and enabled again after,
if it was enabled). A step makes hundreds to thousands of label states, tuples that hold no
cycle: the collector's passes during a burst of events find nothing to free, but move the
states alive at that moment to older generations and so bring on the rarer full collections,
which walk every object of the process. Measured 2026-12-02 (session 8), det_along's loop
over 8 seeded games: the collector took 106 ms of the 553 ms of the slowest 1% of calls
(strict jokers: 327 of 1679 ms), and 49 of the 70 ms of the slowest call (strict: 77 of 97).
With the pause, the states that died are freed by their reference counts and the one
collection that follows looks only at what is left: over 10 games (seeds 0 and 20; strict 8),
the collector's time in calls fell 139 -> 102 ms, 93 -> 32 and 324 -> 237 (strict), the
slowest 1% of calls took 7-12% less CPU time and the whole loop 1.6-3.6% less. A full
collection can still fall into a call (after the advance), so the slowest call varies as
before. With threads, another thread's allocations meanwhile are not collected either, and a
``gc.disable()`` it makes during an advance is undone when the advance ends
(:func:`cardzoo.envs.core.collector_paused`, which Cubirds' ``determinize`` uses too).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.core import child_rng, collector_paused, make_rng
from cardzoo.envs.odins_ravens.data import HAND_SIZE, NUM_KINDS, NUM_TYPES
from cardzoo.envs.odins_ravens.labels import (
    Counts,
    Label,
    LabelState,
    _allowed,
    _arrangements,
    _bag_add,
    _bag_take,
    _count,
    _dealable,
    _entry_labels,
    _forget_spent_type,
    _groups_free,
    _is_bag,
    _join_known,
    _masked_sizes,
    _with_pool,
)
from cardzoo.envs.odins_ravens.view import View as View  # re-exported
from cardzoo.envs.odins_ravens.view import build_view as build_view  # re-exported

if TYPE_CHECKING:
    from cardzoo.envs.odins_ravens.game import State

RESHUFFLE, DRAW, STASH, FROM_HAND, FROM_AUX, REARRANGE, NO_MATCH = range(7)

# The events that carry no count list, built once and shared by every log: a log holds only
# references to them, so a 200-turn race costs a pointer per event instead of a tuple.
STASH_EVENT = (STASH,)
REARRANGE_EVENT = (REARRANGE,)
FROM_HAND_EVENTS = tuple((FROM_HAND, k) for k in range(NUM_KINDS))
FROM_AUX_EVENTS = tuple((FROM_AUX, k) for k in range(NUM_KINDS))
#: ``NO_MATCH_EVENTS[t][top]`` with ``top`` a bool, as the event stores it.
NO_MATCH_EVENTS = tuple(
    tuple((NO_MATCH, t, top) for top in (False, True)) for t in range(NUM_TYPES)
)
_DRAW_EVENTS = tuple((DRAW, n) for n in range(HAND_SIZE + 1))


def draw_event(n: int) -> tuple[int, int]:
    """The event ``(DRAW, n)``: a shared tuple for the counts a refill draws."""
    return _DRAW_EVENTS[n] if n < len(_DRAW_EVENTS) else (DRAW, n)


class InconsistentLog(RuntimeError):
    """No world explains the event log (a bug: the true world always does)."""


def _successors(
    state: LabelState, event: tuple, masks: bool = True, open_bag: int = 0
) -> list[tuple[LabelState, int]]:
    """The label states one event leads to, each with its number of card-level choices.
    ``masks`` False: no token carries a mask yet, so no deal can fail (checks skipped).
    ``open_bag``: how many cards the top aux entry holds that were stashed from the hand as it
    is now (a stash joins them: see ``_open_after``)."""
    code = event[0]
    if code == FROM_HAND:
        return _played_from_hand(state, event[1], masks)
    if code == FROM_AUX:
        return _played_from_aux(state, event[1], masks)
    if code == NO_MATCH:
        return _no_match(state, event[1], event[2])
    current, undrawn, pools, hand, aux = state
    out: list[tuple[LabelState, int]] = []
    if code == RESHUFFLE:
        if not undrawn:
            out.append(((current + 1, sum(event[1]), (*pools, tuple(event[1])), hand, aux), 1))
    elif code == DRAW:
        n = event[1]
        if n <= undrawn:
            new_hand = _bag_add(hand, (current, 0), n) if n else hand
            new = (current, undrawn - n, pools, new_hand, aux)
            out.append((_join_known(new, current) if n and n == undrawn else new, 1))
    elif code == STASH:
        for i, (label, n) in enumerate(hand):
            rest = (
                (*hand[:i], (label, n - 1), *hand[i + 1 :]) if n > 1 else hand[:i] + hand[i + 1 :]
            )
            if open_bag:  # the top entry's cards and this one lie in an exchangeable order
                new_aux = (*aux[:-1], _bag_add(_entry_labels(aux[-1]), label))
            else:
                new_aux = (*aux, label)
            out.append(((current, undrawn, pools, rest, new_aux), n))
    elif code == REARRANGE:
        bag: Counts = ()
        for entry in aux:
            for label, n in _entry_labels(entry):
                bag = _bag_add(bag, label, n)
        out.append(((current, undrawn, pools, hand, (bag,) if bag else ()), 1))
    else:
        raise ValueError(f"unknown event {event!r}")
    return out


def _played_from_hand(state: LabelState, kind: int, masks: bool) -> list[tuple[LabelState, int]]:
    """``(FROM_HAND, kind)``: the card may be any hand token that may be ``kind``."""
    current, undrawn, pools, hand, aux = state
    out: list[tuple[LabelState, int]] = []
    for i, (label, n) in enumerate(hand):
        e = label[0]
        if not pools[e][kind] or (kind < NUM_TYPES and label[1] >> kind & 1):
            continue
        rest = (*hand[:i], (label, n - 1), *hand[i + 1 :]) if n > 1 else hand[:i] + hand[i + 1 :]
        new = (current, undrawn, _with_pool(pools, e, kind), rest, aux)
        new = _after_play(new, e, kind, masks, e != current or not undrawn)
        if new is not None:
            out.append((new, n))
    return out


def _after_play(new: LabelState, e: int, kind: int, masks: bool, drawn: bool) -> LabelState | None:
    """A label state after a card of epoch ``e`` and ``kind`` was played, simplified by the exact
    merges (``drawn``: epoch ``e`` is fully drawn, so it may join another); None if its epoch's
    cards can no longer be dealt."""
    if masks:
        new = _forget_spent_type(new, e, kind)
        if not _dealable(new, e):
            return None
    return _join_known(new, e) if drawn else new


def _played_from_aux(state: LabelState, kind: int, masks: bool) -> list[tuple[LabelState, int]]:
    """``(FROM_AUX, kind)``: the card is the top aux entry's (any of a rearranged bag's)."""
    current, undrawn, pools, hand, aux = state
    out: list[tuple[LabelState, int]] = []
    if not aux:
        return out
    top = aux[-1]
    bag = _is_bag(top)
    for label, n in top if bag else ((top, 1),):
        e = label[0]
        if not pools[e][kind] or (kind < NUM_TYPES and label[1] >> kind & 1):
            continue
        rest = _bag_take(top, label) if bag else ()
        new_aux = (*aux[:-1], rest) if rest else aux[:-1]
        new = (current, undrawn, _with_pool(pools, e, kind), hand, new_aux)
        new = _after_play(new, e, kind, masks, e != current or not undrawn)
        if new is not None:
            out.append((new, n))
    return out


def _no_match(state: LabelState, land: int, top_too: bool) -> list[tuple[LabelState, int]]:
    """``(NO_MATCH, land, top_too)``: no hand token (and, if ``top_too``, not the aux top) is
    of type ``land``; states no deal completes any more are dropped."""
    current, undrawn, pools, hand, aux = state
    bit = 1 << land
    new_hand: Counts = ()
    # A token whose epoch has no card of the type left gets no bit: it would rule out nothing
    # (see ``_forget_spent_type``), and leaving it off merges states that differ only by it.
    for (e, mask), n in hand:
        new_hand = _bag_add(new_hand, (e, mask | bit if pools[e][land] else mask), n)
    tops: list[tuple[tuple, int]] = [(aux, 1)]
    if top_too and aux:
        top = aux[-1]
        tops = []
        for (e, mask), n in _entry_labels(top):
            rest = _bag_take(top, (e, mask)) if _is_bag(top) else ()
            below = (*aux[:-1], rest) if rest else aux[:-1]
            tops.append(((*below, (e, mask | bit if pools[e][land] else mask)), n))
    out: list[tuple[LabelState, int]] = []
    for new_aux, n in tops:
        masked = _masked_sizes(new_hand, new_aux)
        if all(_count(*_groups_free(sizes, pools[e]), pools[e]) for e, sizes in masked.items()):
            out.append(((current, undrawn, pools, new_hand, new_aux), n))
    return out


#: Events after which two different label states never become one (a reshuffle, a draw and a
#: stash onto no open bag keep what they started from readable), so no merging is needed.
_INJECTIVE = (RESHUFFLE, DRAW, STASH)


def _open_after(open_bag: int, event: tuple) -> int:
    """The size of the open bag after ``event`` (0: none; the same for every label state, as
    the aux deck's entries have public sizes). Cards taken from one hand without any card
    added to it between are a draw without replacement from one urn: every order of their
    labels has the same weight (a product of falling factorials of the hand's label counts),
    also when hand cards are played between and when the top ones are played from the aux
    deck; so they lie in one bag, whose top is any of its cards (exact, and each state stands
    for all the orders). A draw, a rearrangement and a no-match mask (it marks the hand and
    the top card, not the cards stashed before) end that: the next stash opens a new bag."""
    code = event[0]
    if code == STASH:
        return open_bag + 1
    if code == FROM_AUX:
        return max(open_bag - 1, 0)
    if code in (REARRANGE, NO_MATCH) or (code == DRAW and event[1]):
        return 0
    return open_bag


def _step(
    states: list[LabelState], weights: list[float], event: tuple, masks: bool, open_bag: int = 0
) -> tuple[list[LabelState], list[float]]:
    """Every state's successors under ``event``, equal ones merged, with their weights."""
    if event[0] in _INJECTIVE and not (open_bag and event[0] == STASH):
        out_states: list[LabelState] = []
        out_weights: list[float] = []
        for state, weight in zip(states, weights):
            for new, n in _successors(state, event, masks):
                out_states.append(new)
                out_weights.append(weight * n)
        return out_states, out_weights
    merged: dict[LabelState, float] = {}
    get = merged.get
    for state, weight in zip(states, weights):
        for new, n in _successors(state, event, masks, open_bag):
            merged[new] = get(new, 0.0) + weight * n
    return list(merged), list(merged.values())


_START: LabelState = (-1, 0, (), (), ())
#: Beyond this many label states a belief is cut back to this many (module docstring); 0: every
#: sample searched. 400 until 2026-12-02 (session 8): 1000 cuts 28-88% fewer position-seats
#: (``bench_ravens_cut.py``), paid for by the lazily built generator (``core.SeededGenerator``).
#: 4000 since session 22: over 40 seeded games 0.61 -> 0.16 % of position-seats cut with the
#: default rules (each cut now drops only the 1 % of ``CUT_MASS``; up to 6 % before), 6.35 ->
#: 2.84 % with strict jokers, 1.81 -> 0.66 % without Odin cards, for first calls 14-35 % dearer
#: along games (docs/rules/odins_ravens.md); later calls at a position cost the same.
#: 64,000 since session 38 (so the same limit with or without masks): with strict jokers the
#: position-seats cut over 40 seeded games went 2.81 -> 0.50 %, the mass a cut drops at most
#: 30 % -> 2 %, for one call at every decision 0.069 -> 0.148 ms on average (seeds 0-19).
MAX_STATES = 64000
#: While no token carries a mask (no ``NO_MATCH`` taken in: always without the strict joker
#: rule), a belief is cut only past this many times the limit (``MAX_STATES``, or the rebuild's
#: ``RETRY_LIMIT``): such states are cheaper to step. 1 until session 11, 2 until session 36.
#: 16 since session 37: the default rules' posteriors that outgrow 8,000 states mostly stay
#: under 64,000 (over seeded games 40-239 the position-seats cut went 0.185 -> 0.024 %, the
#: games with a cut 8 -> 1; over games 0-39 0.16 % -> none), for one call at every decision
#: 13 % dearer on average (0.044 -> 0.050 ms, the slowest 30 -> 323 ms); without Odin cards
#: 0.66 -> 0.19 % cut (each cut dropping 1 % of the mass instead of 6.5 % on average) for
#: twice the cost (0.061 -> 0.119 ms); the strict rule's masked beliefs keep ``MAX_STATES``
#: (docs/rules/odins_ravens.md, section 10). 1 since session 38, ``MAX_STATES`` being raised
#: to the same 64,000 for masked beliefs (the unmasked limits did not change).
UNMASKED_FACTOR = 1
#: The limit of a belief rebuilt when a later event fits none of a cut's states (seat_belief).
#: The rebuild takes in the whole log since the checkpoint, once. 2500 until session 22,
#: 10,000 in sessions 22-37 (times ``UNMASKED_FACTOR`` without masks), 160,000 since session 38.
RETRY_LIMIT = 160000
#: A cut first drops the lightest states holding at most this share of the posterior's mass.
CUT_MASS = 0.01


def _completions(state: LabelState, masks: bool = True) -> float:
    """The ways to deal every epoch's unrevealed cards to the state's places (a float).

    One pass over the tokens finds the masked ones per epoch; an epoch without any is dealt in
    ``_arrangements(pool)`` ways (its tokens, drawn or not, are exactly as many as its cards).
    A state with no masked token (every state when ``masks`` is False: no ``NO_MATCH`` taken
    in) is dealt in ``_pools_ways(pools)`` ways, kept per pools: the same product, in the same
    order, as the loop (many states share their pools; 2026-12-02, session 8)."""
    pools = state[2]
    masked = _masked_sizes(state[3], state[4]) if masks else None
    if not masked:
        return _pools_ways(pools)
    return _epoch_ways(pools, masked)


def _epoch_ways(pools: tuple, masked: dict) -> float:
    """The plain per-epoch product: each non-empty pool dealt around its masked tokens' sizes
    (``masked[epoch]``), or in ``_arrangements(pool)`` ways where it has none."""
    ways = 1.0
    for epoch, pool in enumerate(pools):
        if not pool:
            continue
        sizes = masked.get(epoch)
        if sizes:
            ways *= float(_count(*_groups_free(sizes, pool), pool))
        else:
            ways *= _arrangements(pool)
    return ways


@lru_cache(maxsize=1 << 14)
def _pools_ways(pools: tuple) -> float:
    """``_completions`` of a state with no masked token: the product of its pools' ways."""
    ways = 1.0
    for pool in pools:
        if pool:
            ways *= _arrangements(pool)
    return ways


def _cut(
    states: list[LabelState], weights: list[float], limit: int, masks: bool = True
) -> tuple[list[LabelState], list[float], float]:
    """The heaviest states (by weight times completions; ties by place, so the cut depends on
    the log alone), in their order: less the lightest ones holding at most ``CUT_MASS`` of the
    mass, and at most ``limit`` of them even if that drops more; and the share dropped."""
    mass = [w * _completions(st, masks) for st, w in zip(states, weights)]
    total = sum(mass)
    if not total or limit < 1:  # ``MAX_STATES = 0``: no belief (every sample searched)
        return [], [], 1.0
    order = sorted(range(len(states)), key=mass.__getitem__, reverse=True)
    keep, dropped = len(order), 0.0
    while keep > 1 and (keep > limit or dropped + mass[order[keep - 1]] <= CUT_MASS * total):
        keep -= 1
        dropped += mass[order[keep]]
    kept = sorted(order[:keep])
    return [states[i] for i in kept], [weights[i] for i in kept], dropped / total


class Belief:
    """The exact posterior over a seat's hidden cards given a prefix of its event log: label
    states with weights (floats, rescaled so the largest is 1), less what cuts dropped
    (``dropped``: the shares of the mass dropped, added up; 0.0 for the exact posterior). Treat
    as immutable."""

    __slots__ = (
        *("states", "weights", "origin", "consumed", "masks", "dropped", "_cumulative"),
        *("retried", "failed_at", "open_bag"),
    )

    def __init__(
        self,
        states: list[LabelState] | None,
        weights: list[float] | None,
        origin: object,
        consumed: int,
        masks: bool = False,
        dropped: float = 0.0,
        retried: bool = False,
        failed_at: int = -1,
        open_bag: int = 0,
    ) -> None:
        self.states = states
        self.open_bag = open_bag  # cards on top of the aux deck in an open bag (_open_after)
        self.retried = retried  # rebuilt once with ``RETRY_LIMIT`` (see ``seat_belief``)
        self.failed_at = failed_at  # no states: the log length at which the kept ones failed
        self.dropped = dropped
        self.masks = masks  # some NO_MATCH event was taken in (tokens may carry masks)
        self.weights = weights
        self.origin = origin  # what the log was shortened from (see ``State.known_from``)
        self.consumed = consumed  # events of the seat's log already taken in
        self._cumulative: np.ndarray | None = None

    @classmethod
    def start(
        cls, hand: tuple[int, ...] | None = None, origin: object = None, at: int = 0
    ) -> Belief:
        """Before any event; or (``hand`` given) when the hand is known to hold exactly these
        cards and the draw pile and aux deck are empty, at event ``at`` of the log."""
        belief = cls([_START], [1.0], origin, 0)
        if hand is not None:
            belief = belief.advance([(RESHUFFLE, tuple(hand)), (DRAW, sum(hand))])
        belief.consumed = at
        return belief

    @collector_paused
    def advance(self, events: list[tuple], limit: int | None = None) -> Belief:
        """The belief after ``events`` more events of the log (cut to ``limit`` label states,
        ``MAX_STATES`` if not given), with the cyclic garbage collector paused meanwhile (if it
        was enabled: see the module docstring)."""
        return self._advance(events, limit)

    def _advance(self, events: list[tuple], limit: int | None) -> Belief:
        limit = MAX_STATES if limit is None else limit
        # No token carries a mask: a state's successors need no deal check, so more are kept.
        wide = limit * UNMASKED_FACTOR
        states, weights = self.states, self.weights
        end = self.consumed + len(events)
        if states is None:  # the search fallback took over before
            return Belief(None, None, self.origin, end, retried=self.retried)
        masks, dropped, open_bag = self.masks, self.dropped, self.open_bag
        for i, event in enumerate(events):
            masks = masks or event[0] == NO_MATCH
            states, weights = _step(states, weights, event, masks, open_bag)
            open_bag = _open_after(open_bag, event)
            most = limit if masks else wide
            if len(states) > most:
                states, weights, share = _cut(states, weights, most, masks)
                dropped += share
            if not states:
                if dropped:  # no cut was possible, or what a cut dropped explained the log
                    at = self.consumed + i + 1
                    return Belief(None, None, self.origin, end, retried=self.retried, failed_at=at)
                raise InconsistentLog(f"no world explains the event log at {event!r}")
            top = max(weights)
            if top != 1.0:
                weights = [w / top for w in weights]
        return Belief(
            states, weights, self.origin, end, masks, dropped, self.retried, open_bag=open_bag
        )

    def _final_weights(self) -> np.ndarray:
        if self._cumulative is None:
            masks = self.masks
            final = [w * _completions(st, masks) for st, w in zip(self.states, self.weights)]
            cumulative = np.cumsum(final)
            if not cumulative[-1] > 0:
                raise InconsistentLog("no world completes the event log")
            self._cumulative = cumulative / cumulative[-1]
        return self._cumulative

    def sample(self, rng: np.random.Generator) -> tuple[list[int], list[int], list[int]]:
        """One world: (hand counts per kind, aux deck bottom -> top, draw pile bottom -> top)."""
        cumulative = self._final_weights()
        i = min(int(np.searchsorted(cumulative, rng.random(), side="right")), len(cumulative) - 1)
        return _deal_state(self.states[i], rng)


def _deal_state(
    state: LabelState, rng: np.random.Generator
) -> tuple[list[int], list[int], list[int]]:
    """Deal every epoch's unrevealed cards uniformly among the ways its tokens allow."""
    current, undrawn, pools, hand, aux = state
    # Places in a fixed order: hand labels (sorted), aux entries bottom -> top, the draw pile;
    # grouped by epoch in one pass (each epoch's places in that order, with their labels).
    at: list[list[int]] = [[] for _ in pools]
    labels: list[list[Label]] = [[] for _ in pools]
    j = 0
    for label, n in hand:
        e = label[0]
        at[e].extend(range(j, j + n))
        labels[e].extend([label] * n)
        j += n
    hand_end = j
    bounds: list[tuple[int, int]] = []
    for entry in aux:
        start = j
        for label, n in _entry_labels(entry):
            e = label[0]
            at[e].extend(range(j, j + n))
            labels[e].extend([label] * n)
            j += n
        bounds.append((start, j))
    if undrawn:
        at[current].extend(range(j, j + undrawn))
        labels[current].extend([(current, 0)] * undrawn)
    kinds = [-1] * (j + undrawn)
    for epoch, pool in enumerate(pools):
        if at[epoch]:
            _deal_epoch(labels[epoch], list(pool), rng, at[epoch], kinds)
    hand_counts = [0] * NUM_KINDS
    for k in kinds[:hand_end]:
        hand_counts[k] += 1
    out_aux: list[int] = []
    for entry, (start, end) in zip(aux, bounds):
        block = kinds[start:end]
        if _is_bag(entry):  # a rearranged deck lies in an order nobody but the owner saw
            block = [block[i] for i in rng.permutation(len(block)).tolist()]
        out_aux += block
    return hand_counts, out_aux, kinds[j:]


def _deal_epoch(
    labels: list[Label], left: list[int], rng: np.random.Generator, at: list[int], kinds: list[int]
) -> None:
    """Deal the cards ``left`` (counts per kind) to one epoch's places (their ``labels``),
    writing each place's kind into ``kinds`` at its index in ``at``."""
    # (Permutations are read as lists: indexing with numpy ints costs several times more.)
    masked = [i for i, label in enumerate(labels) if label[1]]
    free = [at[i] for i, label in enumerate(labels) if not label[1]] if masked else at
    # Masked places one by one, each kind with the share of deals it leaves open...
    for n, i in enumerate(masked):
        sizes: dict[int, int] = {}
        for ii in masked[n + 1 :]:
            sizes[labels[ii][1]] = sizes.get(labels[ii][1], 0) + 1
        groups = tuple(sorted(sizes.items()))
        options = []
        for k in range(NUM_KINDS):
            if left[k] and _allowed(labels[i], k):
                left[k] -= 1
                options.append((k, _count(groups, len(free), tuple(left))))
                left[k] += 1
        k = _weighted_choice(options, rng)
        kinds[at[i]] = k
        left[k] -= 1
    # ... then the free places: a uniformly random order of what is left.
    cards = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    for j, c in zip(free, rng.permutation(len(cards)).tolist()):
        kinds[j] = cards[c]


def _weighted_choice(options: list[tuple[int, int]], rng: np.random.Generator) -> int:
    """One kind of ``options`` (kind, weight), drawn with probability proportional to weight."""
    total = sum(w for _, w in options)
    r = rng.random() * total  # counts can pass 2**63: drawn as a float share
    for kind, w in options:
        if r < w:
            return kind
        r -= w
    return options[-1][0]


def sample_hidden(
    log: list[tuple], rng: np.random.Generator
) -> tuple[list[int], list[int], list[int]]:
    """One world consistent with ``log``: (hand counts per kind, aux deck bottom -> top, draw
    pile bottom -> top), from the posterior (:class:`Belief`), or by the search fallback when
    the posterior has too many label states. Raises :class:`InconsistentLog` if none exists."""
    belief = Belief.start().advance(log)
    if belief.states is not None:
        return belief.sample(rng)
    return _search_hidden(log, rng)


def _search_hidden(
    log: list[tuple], rng: np.random.Generator
) -> tuple[list[int], list[int], list[int]]:
    """The search fallback (imported here, on first use: ``hidden_search`` imports this
    module's events)."""
    from cardzoo.envs.odins_ravens.hidden_search import search_hidden

    return search_hidden(log, rng)


# ---------------------------------------------------------------------------------------------
# What a seat knows of the other's hidden cards, and the resampled worlds

#: ``State.known_from`` of a seat before any checkpoint: resample from the race's whole log.
NO_CHECKPOINT: tuple[int, tuple[int, ...] | None] = (0, None)


def seat_belief(state: State, seat: int) -> Belief:
    """``State.belief``: the posterior over ``seat``'s hidden cards, advanced to the end of its
    log and kept on the state (shared by clones: a belief is never changed, only replaced)."""
    origin = state.known_from[seat]
    belief = state._beliefs[seat]
    if belief is None or belief.origin is not origin:
        start, hand = origin
        belief = Belief.start(hand, origin, start)
    log = state.logs[seat]
    if belief.consumed < len(log):
        fresh = belief.advance(log[belief.consumed :])
        if fresh.failed_at >= 0 and not fresh.retried and MAX_STATES > 0:
            # An event fitted none of the states a cut kept: once per checkpoint, rebuild the
            # belief up to that event with a wider limit before handing the seat to the search
            # (up to that event, whenever the call comes: the belief is a function of the log).
            start, hand = origin
            wide = Belief.start(hand, origin, start).advance(
                log[start : fresh.failed_at], RETRY_LIMIT
            )
            wide.retried = True
            fresh = wide.advance(log[fresh.failed_at :])
        belief = fresh
        state._beliefs[seat] = belief
    elif state._beliefs[seat] is not belief:
        state._beliefs[seat] = belief
    return belief


def known_log(state: State, seat: int) -> list[tuple]:
    """``State.known_log``: ``seat``'s log this race from its last checkpoint (see there)."""
    start, hand = state.known_from[seat]
    log = state.logs[seat]
    if hand is None:
        return log
    return [(RESHUFFLE, hand), draw_event(sum(hand)), *log[start:]]


def determinize(state: State, player: int, rng: np.random.Generator | int | None) -> State:
    """``State.determinize``: a clone with everything ``player`` cannot see resampled."""
    rng = make_rng(rng)
    q = 1 - player
    # Advanced before the clone, so the world shares it: its logs are the state's, and a call
    # on the world (a search's next determinize) then starts from here, not from its checkpoint.
    belief = seat_belief(state, q)
    new = state.clone(copy_rng=False)
    # Every unknown pool is put in a canonical (sorted) order before it is shuffled, so the
    # sample depends on what the seat knows and on ``rng``, never on the true order.
    k = state.land_known
    top = sorted(state.land_deck[k:])
    new.land_deck = state.land_deck[:k] + [top[i] for i in rng.permutation(len(top)).tolist()]
    down = sorted(state.magic_way_down)
    new.magic_way_down = [down[i] for i in rng.permutation(len(down)).tolist()]
    own = sorted(state.draws[player])
    new.draws[player] = [own[i] for i in rng.permutation(len(own)).tolist()]
    if belief.states is not None:
        hand, aux, draw = belief.sample(rng)
    else:  # too many label states (a large aux deck from several piles): search instead
        hand, aux, draw = _search_hidden(known_log(state, q), rng)
    new.hands[q], new.aux[q], new.draws[q] = hand, aux, draw
    new.rng = child_rng(rng)  # built on first use
    new._legal = None
    return new
