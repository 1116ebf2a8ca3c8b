"""Resampling a player's hidden cards consistently with everything the opponent has seen.

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

If the posterior needs more than ``MAX_STATES`` label states (a large aux deck holding cards
of several draw piles), a belief gives way to the search fallback :func:`search_hidden`: a
randomised depth-first search over the events that returns a consistent world, its choices
among labels uniform rather than weighted (the method used for every sample before).

A belief is updated event by event (:meth:`Belief.advance` returns a new one; old ones stay
valid), so the engine keeps one per seat and pays only for the events since its last use.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from cardzoo.envs.odins_ravens.data import HAND_SIZE, NUM_KINDS, NUM_TYPES

RESHUFFLE, DRAW, STASH, FROM_HAND, FROM_AUX, REARRANGE, NO_MATCH = range(7)
EVENT_NAMES = ("reshuffle", "draw", "stash", "from hand", "from aux", "rearrange", "no match")

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


Label = tuple[int, int]  # (epoch, bit mask of land types the card is known not to be)
Counts = tuple[tuple[Label, int], ...]  # a bag of labels: sorted (label, count) pairs
# An aux entry is a Label (one slot) or a Counts bag (slots O2-A put in an unseen order).
# A label state: (current epoch, cards left in the draw pile, per-epoch kinds not yet revealed,
# hand, aux entries bottom -> top). Plain tuples: hashable, cheap to copy.
LabelState = tuple[int, int, tuple[tuple[int, ...], ...], Counts, tuple]


class InconsistentLog(RuntimeError):
    """No world explains the event log (a bug: the true world always does)."""


def _bag_add(bag: Counts, label: Label, n: int = 1) -> Counts:
    out = dict(bag)
    out[label] = out.get(label, 0) + n
    return tuple(sorted(out.items()))


def _bag_take(bag: Counts, label: Label) -> Counts:
    return tuple((lab, n - (lab == label)) for lab, n in bag if n - (lab == label))


def _allowed(label: Label, kind: int) -> bool:
    return kind >= NUM_TYPES or not label[1] >> kind & 1


def _is_bag(entry: tuple) -> bool:
    return bool(entry) and isinstance(entry[0], tuple)


def _entry_labels(entry: tuple) -> Counts:
    return entry if _is_bag(entry) else ((entry, 1),)


def _with_pool(pools: tuple, epoch: int, kind: int) -> tuple:
    pool = list(pools[epoch])
    pool[kind] -= 1
    return (*pools[:epoch], tuple(pool), *pools[epoch + 1 :])


@lru_cache(maxsize=1 << 16)
def _count(groups: tuple[tuple[int, int], ...], free: int, pool: tuple[int, ...]) -> int:
    """Ways to deal the cards ``pool`` (counts per kind) to distinguishable places: ``free``
    places that take any kind and, per ``(mask, size)`` group, ``size`` places that take no
    land type in ``mask``. Cards of one kind are alike."""
    if not groups:
        if sum(pool) != free:
            return 0
        ways = math.factorial(free)
        for n in pool:
            ways //= math.factorial(n)
        return ways
    (mask, size), rest = groups[0], groups[1:]
    smaller = ((mask, size - 1), *rest) if size > 1 else rest
    total = 0
    for k in range(NUM_KINDS):
        if pool[k] and (k >= NUM_TYPES or not mask >> k & 1):
            total += _count(smaller, free, (*pool[:k], pool[k] - 1, *pool[k + 1 :]))
    return total


def _epoch_places(state: LabelState, epoch: int) -> tuple[tuple[tuple[int, int], ...], int]:
    """The unrevealed places of ``epoch``'s cards: masked groups and the count of free ones."""
    current, undrawn, _pools, hand, aux = state
    sizes: dict[int, int] = {}
    for (e, mask), n in hand:
        if e == epoch:
            sizes[mask] = sizes.get(mask, 0) + n
    for entry in aux:
        for (e, mask), n in _entry_labels(entry):
            if e == epoch:
                sizes[mask] = sizes.get(mask, 0) + n
    free = sizes.pop(0, 0) + (undrawn if epoch == current else 0)
    return tuple(sorted(sizes.items())), free


def _ways(state: LabelState, epoch: int) -> int:
    groups, free = _epoch_places(state, epoch)
    return _count(groups, free, state[2][epoch])


def _masked(state: LabelState, epoch: int) -> bool:
    """Whether some token of ``epoch`` carries a mask (only then can its deal fail)."""
    return bool(_epoch_places(state, epoch)[0])


def _successors(
    state: LabelState, event: tuple, masks: bool = True
) -> list[tuple[LabelState, int]]:
    """The label states one event leads to, each with its number of card-level choices.
    ``masks`` False: no token carries a mask yet, so no deal can fail (checks skipped)."""
    current, undrawn, pools, hand, aux = state
    code = event[0]
    out: list[tuple[LabelState, int]] = []
    if code == RESHUFFLE:
        if not undrawn:
            out.append(((current + 1, sum(event[1]), (*pools, tuple(event[1])), hand, aux), 1))
    elif code == DRAW:
        n = event[1]
        if n <= undrawn:
            new_hand = _bag_add(hand, (current, 0), n) if n else hand
            out.append(((current, undrawn - n, pools, new_hand, aux), 1))
    elif code == STASH:
        for label, n in hand:
            out.append(((current, undrawn, pools, _bag_take(hand, label), (*aux, label)), n))
    elif code == FROM_HAND:
        kind = event[1]
        for label, n in hand:
            if _allowed(label, kind) and pools[label[0]][kind]:
                new = (
                    current,
                    undrawn,
                    _with_pool(pools, label[0], kind),
                    _bag_take(hand, label),
                    aux,
                )
                if not masks or not _masked(new, label[0]) or _ways(new, label[0]):
                    out.append((new, n))
    elif code == FROM_AUX:
        kind = event[1]
        if aux:
            top = aux[-1]
            for label, n in _entry_labels(top):
                if _allowed(label, kind) and pools[label[0]][kind]:
                    rest = _bag_take(top, label) if _is_bag(top) else ()
                    new_aux = (*aux[:-1], rest) if rest else aux[:-1]
                    new = (current, undrawn, _with_pool(pools, label[0], kind), hand, new_aux)
                    if not masks or not _masked(new, label[0]) or _ways(new, label[0]):
                        out.append((new, n))
    elif code == REARRANGE:
        bag: Counts = ()
        for entry in aux:
            for label, n in _entry_labels(entry):
                bag = _bag_add(bag, label, n)
        out.append(((current, undrawn, pools, hand, (bag,) if bag else ()), 1))
    elif code == NO_MATCH:
        bit = 1 << event[1]
        new_hand: Counts = ()
        for (e, mask), n in hand:
            new_hand = _bag_add(new_hand, (e, mask | bit), n)
        tops: list[tuple[tuple, int]] = [(aux, 1)]
        if event[2] and aux:
            top = aux[-1]
            tops = []
            for (e, mask), n in _entry_labels(top):
                rest = _bag_take(top, (e, mask)) if _is_bag(top) else ()
                below = (*aux[:-1], rest) if rest else aux[:-1]
                tops.append(((*below, (e, mask | bit)), n))
        for new_aux, n in tops:
            new = (current, undrawn, pools, new_hand, new_aux)
            if all(_ways(new, e) for e in range(len(pools)) if _masked(new, e)):
                out.append((new, n))
    else:
        raise ValueError(f"unknown event {event!r}")
    return out


_START: LabelState = (-1, 0, (), (), ())
#: Beyond this many label states a belief gives way to the search fallback (``states`` None).
MAX_STATES = 400


class Belief:
    """The exact posterior over a seat's hidden cards given a prefix of its event log: label
    states with weights (floats, rescaled so the largest is 1). Treat as immutable."""

    __slots__ = ("states", "weights", "origin", "consumed", "masks", "_cumulative")

    def __init__(
        self,
        states: list[LabelState] | None,
        weights: list[float] | None,
        origin: object,
        consumed: int,
        masks: bool = False,
    ) -> None:
        self.states = states
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

    def advance(self, events: list[tuple]) -> Belief:
        """The belief after ``events`` more events of the log."""
        states, weights = self.states, self.weights
        if states is None:  # overflowed before: the search fallback takes over
            return Belief(None, None, self.origin, self.consumed + len(events))
        masks = self.masks
        for event in events:
            masks = masks or event[0] == NO_MATCH
            merged: dict[LabelState, float] = {}
            for state, weight in zip(states, weights):
                for new, n in _successors(state, event, masks):
                    merged[new] = merged.get(new, 0.0) + weight * n
            if not merged:
                raise InconsistentLog(f"no world explains the event log at {event!r}")
            if len(merged) > MAX_STATES:
                return Belief(None, None, self.origin, self.consumed + len(events))
            top = max(merged.values())
            states = list(merged)
            weights = [w / top for w in merged.values()]
        return Belief(states, weights, self.origin, self.consumed + len(events), masks)

    def _final_weights(self) -> np.ndarray:
        if self._cumulative is None:
            final = []
            for state, weight in zip(self.states, self.weights):
                ways = 1.0
                for epoch in range(len(state[2])):
                    if any(state[2][epoch]) or epoch == state[0]:
                        ways *= float(_ways(state, epoch))
                final.append(weight * ways)
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
    # Places in a fixed order: hand labels (sorted), aux entries bottom -> top, the draw pile.
    places: list[tuple[str, int, Label]] = []
    for label, n in hand:
        places += [("hand", 0, label)] * n
    for i, entry in enumerate(aux):
        for label, n in _entry_labels(entry):
            places += [("aux", i, label)] * n
    places += [("draw", 0, (current, 0))] * undrawn
    kinds = [-1] * len(places)
    for epoch, pool in enumerate(pools):
        mine = [j for j, place in enumerate(places) if place[2][0] == epoch]
        if not mine:
            continue
        left = list(pool)
        masked = [j for j in mine if places[j][2][1]]
        free = [j for j in mine if not places[j][2][1]]
        # Masked places one by one, each kind with the share of deals it leaves open...
        for n, j in enumerate(masked):
            sizes: dict[int, int] = {}
            for jj in masked[n + 1 :]:
                sizes[places[jj][2][1]] = sizes.get(places[jj][2][1], 0) + 1
            groups = tuple(sorted(sizes.items()))
            options = []
            for k in range(NUM_KINDS):
                if left[k] and _allowed(places[j][2], k):
                    left[k] -= 1
                    options.append((k, _count(groups, len(free), tuple(left))))
                    left[k] += 1
            total = sum(w for _, w in options)
            r = rng.random() * total  # counts can pass 2**63: drawn as a float share
            k = options[-1][0]
            for kind, w in options:
                if r < w:
                    k = kind
                    break
                r -= w
            kinds[j] = k
            left[k] -= 1
        # ... then the free places: a uniformly random order of what is left.
        cards = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        for j, c in zip(free, rng.permutation(len(cards))):
            kinds[j] = cards[c]
    hand_counts = [0] * NUM_KINDS
    entries: list[list[int]] = [[] for _ in aux]
    draw: list[int] = []
    for (zone, i, _), k in zip(places, kinds):
        if zone == "hand":
            hand_counts[k] += 1
        elif zone == "aux":
            entries[i].append(k)
        else:
            draw.append(k)
    out_aux: list[int] = []
    for entry, block in zip(aux, entries):
        if _is_bag(entry):  # a rearranged deck lies in an order nobody but the owner saw
            block = [block[j] for j in rng.permutation(len(block))]
        out_aux += block
    return hand_counts, out_aux, draw


def sample_hidden(
    log: list[tuple], rng: np.random.Generator
) -> tuple[list[int], list[int], list[int]]:
    """One world consistent with ``log``: (hand counts per kind, aux deck bottom -> top, draw
    pile bottom -> top), from the posterior (:class:`Belief`), or by the search fallback when
    the posterior has too many label states. Raises :class:`InconsistentLog` if none exists."""
    belief = Belief.start().advance(log)
    return belief.sample(rng) if belief.states is not None else search_hidden(log, rng)


# ---------------------------------------------------------------------------------------------
# The search fallback: a large auxiliary deck of cards from several draw piles can give the
# exact posterior more than MAX_STATES label states. Then a world is found by a randomised
# depth-first search over the log's events instead (every world it returns is consistent with
# the log; its choices among labels are uniform, not weighted by the posterior).

#: The search restarts with a fresh random order after this many steps beyond one per event
#: (randomised depth-first searches have heavy tails: an unlucky early choice can hide a dead
#: end deep down) ...
RESTART_STEPS = 1000
#: ... and gives up after this many restarts (never reached in tests).
MAX_RESTARTS = 200

# An aux slot is (epoch, mask, kind it is revealed as later in the log, or -1); a dict of labels
# is a bag: slots rearranged by O2-A, in an order the opponent did not see.
Slot = tuple[int, int, int]


def reveals_of_stashes(log: list[tuple]) -> list[int]:
    """For each event: if it is a stash whose card is later played from the auxiliary deck
    before any rearrangement, the kind it is revealed as; else -1."""
    out = [-1] * len(log)
    stack: list[int] = []  # stash event indices, bottom -> top; -1 = a slot of unknown origin
    for i, event in enumerate(log):
        code = event[0]
        if code == STASH:
            stack.append(i)
        elif code == FROM_AUX and stack:
            j = stack.pop()
            if j >= 0:
                out[j] = event[1]
        elif code == REARRANGE:
            stack = [-1] * len(stack)
    return out


class _Search:
    """The mutable state of the search at one point of the log."""

    __slots__ = ("pools", "reserved", "epoch", "undrawn", "hand", "aux")

    def __init__(self) -> None:
        self.pools: list[list[int]] = []  # per epoch: kinds not yet revealed (drawn or not)
        # per epoch: kinds promised to aux slots that the log reveals later
        self.reserved: list[list[int]] = []
        self.epoch = -1
        self.undrawn = 0  # cards still in the current draw pile
        self.hand: dict[Label, int] = {}
        self.aux: list[Slot | dict[Label, int]] = []  # bottom -> top

    def copy(self) -> _Search:
        new = _Search.__new__(_Search)
        new.pools = [p[:] for p in self.pools]
        new.reserved = [r[:] for r in self.reserved]
        new.epoch = self.epoch
        new.undrawn = self.undrawn
        new.hand = dict(self.hand)
        new.aux = [e if isinstance(e, tuple) else dict(e) for e in self.aux]
        return new

    def key(self, i: int) -> tuple:
        aux = tuple(e if isinstance(e, tuple) else tuple(sorted(e.items())) for e in self.aux)
        pools = tuple(tuple(p) for p in self.pools)
        return (i, self.undrawn, tuple(sorted(self.hand.items())), aux, pools)

    def free(self, label: Label, kind: int) -> bool:
        """A token with this label may turn out to be ``kind`` without breaking a promise."""
        epoch, mask = label
        if kind < NUM_TYPES and mask >> kind & 1:
            return False
        return self.pools[epoch][kind] > self.reserved[epoch][kind]


def _take(counts: dict[Label, int], label: Label) -> None:
    if counts[label] == 1:
        del counts[label]
    else:
        counts[label] -= 1


def _options(s: _Search, event: tuple, promise: int) -> list:
    """The distinct choices an event allows in search state ``s`` (empty: a dead end).
    ``promise``: for a stash, the kind the log later reveals the stashed card as (or -1)."""
    code = event[0]
    if code == STASH:
        if promise < 0:
            return sorted(s.hand)
        return sorted(lab for lab in s.hand if s.free(lab, promise))
    if code == FROM_HAND:
        return sorted(lab for lab in s.hand if s.free(lab, event[1]))
    if code == FROM_AUX:
        if not s.aux:
            return []
        top = s.aux[-1]
        kind = event[1]
        if isinstance(top, tuple):
            epoch, mask, promised = top
            if promised == kind:
                return [None]  # its card was reserved when it was stashed
            return [None] if s.free((epoch, mask), kind) else []
        return sorted(lab for lab in top if s.free(lab, kind))
    if code == NO_MATCH and event[2] and s.aux:
        top = s.aux[-1]
        if isinstance(top, tuple):
            return [] if top[2] == event[1] else [None]
        return sorted(top)  # which card of the rearranged deck is on top
    return [None]


def _apply(s: _Search, event: tuple, choice, promise: int) -> bool:
    """Play one event with one choice; False if it contradicts the state."""
    code = event[0]
    if code == RESHUFFLE:
        if s.undrawn:
            return False
        s.pools.append(list(event[1]))
        s.reserved.append([0] * NUM_KINDS)
        s.epoch += 1
        s.undrawn = sum(event[1])
    elif code == DRAW:
        n = event[1]
        if n > s.undrawn:
            return False
        s.undrawn -= n
        label = (s.epoch, 0)
        s.hand[label] = s.hand.get(label, 0) + n
    elif code == STASH:
        _take(s.hand, choice)
        s.aux.append((choice[0], choice[1], promise))
        if promise >= 0:
            s.reserved[choice[0]][promise] += 1
    elif code == FROM_HAND:
        _take(s.hand, choice)
        s.pools[choice[0]][event[1]] -= 1
    elif code == FROM_AUX:
        top = s.aux[-1]
        kind = event[1]
        if isinstance(top, tuple):
            s.aux.pop()
            epoch = top[0]
            if top[2] == kind:
                s.reserved[epoch][kind] -= 1
        else:
            _take(top, choice)
            if not top:
                s.aux.pop()
            epoch = choice[0]
        s.pools[epoch][kind] -= 1
    elif code == REARRANGE:
        bag: dict[Label, int] = {}
        for e in s.aux:
            items = (((e[0], e[1]), 1),) if isinstance(e, tuple) else e.items()
            for lab, n in items:
                bag[lab] = bag.get(lab, 0) + n
        s.aux = [bag] if bag else []
    elif code == NO_MATCH:
        bit = 1 << event[1]
        hand: dict[Label, int] = {}
        for (epoch, mask), n in s.hand.items():
            lab = (epoch, mask | bit)
            hand[lab] = hand.get(lab, 0) + n
        s.hand = hand
        if event[2] and s.aux:
            top = s.aux[-1]
            if isinstance(top, tuple):
                s.aux[-1] = (top[0], top[1] | bit, top[2])
            else:
                _take(top, choice)
                if not top:
                    s.aux.pop()
                s.aux.append((choice[0], choice[1] | bit, -1))
    else:
        raise ValueError(f"unknown event {event!r}")
    return True


def _labels(entry: Slot | dict[Label, int]) -> list[Label]:
    if isinstance(entry, tuple):
        return [(entry[0], entry[1])]
    return [lab for lab, n in entry.items() for _ in range(n)]


def _epoch_matchable(s: _Search, epoch: int) -> bool:
    """Necessary at every point: the epoch's unrevealed cards fit its unrevealed tokens."""
    masks = [m for (e, m), n in s.hand.items() if e == epoch for _ in range(n)]
    for entry in s.aux:
        masks += [m for e, m in _labels(entry) if e == epoch]
    if not any(masks):
        return True
    if epoch == s.epoch:
        masks += [0] * s.undrawn
    return _matchable(masks, s.pools[epoch])


def _tokens(s: _Search) -> list[tuple[str, int, Label]]:
    """Every unrevealed card as (zone, aux entry index, label)."""
    out: list[tuple[str, int, Label]] = []
    for lab, n in s.hand.items():
        out += [("hand", 0, lab)] * n
    for i, entry in enumerate(s.aux):
        out += [("aux", i, lab) for lab in _labels(entry)]
    out += [("draw", 0, (s.epoch, 0))] * s.undrawn
    return out


def _matchable(masks: list[int], pool: list[int]) -> bool:
    """Can every token (its mask = land types it may not be) get a distinct card of ``pool``?"""
    units = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
    owner = [-1] * len(units)

    def augment(t: int, seen: list[bool]) -> bool:
        for u, k in enumerate(units):
            if seen[u] or (k < NUM_TYPES and masks[t] >> k & 1):
                continue
            seen[u] = True
            if owner[u] < 0 or augment(owner[u], seen):
                owner[u] = t
                return True
        return False

    return all(augment(t, [False] * len(units)) for t in range(len(masks)))


def _deal(masks: list[int], pool: list[int], rng: np.random.Generator) -> list[int] | None:
    """Random kinds for the tokens, one card of ``pool`` each, none of a forbidden type."""
    if sum(pool) != len(masks):
        return None
    if not any(masks):
        cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
        return [cards[i] for i in rng.permutation(len(cards))]
    if not _matchable(masks, pool):
        return None
    pool = pool[:]
    out = [-1] * len(masks)
    order = rng.permutation(len(masks))
    for n, t in enumerate(order):
        rest = [masks[i] for i in order[n + 1 :]]
        for k in rng.permutation(NUM_KINDS):
            if pool[k] == 0 or (k < NUM_TYPES and masks[t] >> k & 1):
                continue
            pool[k] -= 1
            if _matchable(rest, pool):
                out[t] = int(k)
                break
            pool[k] += 1
    return out


def _finish(s: _Search, rng: np.random.Generator) -> tuple[list[int], list[int], list[int]] | None:
    """Cards for every unrevealed token, or None if some epoch cannot be dealt."""
    tokens = _tokens(s)
    kinds = [-1] * len(tokens)
    for epoch, pool in enumerate(s.pools):
        idx = [i for i, tok in enumerate(tokens) if tok[2][0] == epoch]
        dealt = _deal([tokens[i][2][1] for i in idx], pool, rng)
        if dealt is None:
            return None
        for i, k in zip(idx, dealt):
            kinds[i] = k
    hand = [0] * NUM_KINDS
    entries: list[list[int]] = [[] for _ in s.aux]
    draw: list[int] = []
    for (zone, i, _), k in zip(tokens, kinds):
        if zone == "hand":
            hand[k] += 1
        elif zone == "aux":
            entries[i].append(k)
        else:
            draw.append(k)
    aux: list[int] = []
    for block in entries:  # a bag's cards lie in an order nobody but the owner saw
        aux += [block[j] for j in rng.permutation(len(block))]
    draw = [draw[j] for j in rng.permutation(len(draw))]
    return hand, aux, draw


def search_hidden(
    log: list[tuple], rng: np.random.Generator
) -> tuple[list[int], list[int], list[int]]:
    """One world consistent with ``log`` found by a randomised search (the fallback)."""
    for _ in range(MAX_RESTARTS):
        result = _search(log, rng, len(log) + RESTART_STEPS)
        if result is not None:
            return result
    raise InconsistentLog(f"no world found after {MAX_RESTARTS} randomised searches")


def _search(
    log: list[tuple], rng: np.random.Generator, budget: int
) -> tuple[list[int], list[int], list[int]] | None:
    """One randomised depth-first search; None if ``budget`` steps were not enough."""
    s = _Search()
    promises = reveals_of_stashes(log)
    failed: set[tuple] = set()
    # Each frame: (event index, state before it, choices left to try).
    stack: list[tuple[int, _Search, list]] = []
    i = 0
    steps = 0
    while True:
        steps += 1
        if steps > budget:
            return None
        if i == len(log):
            result = _finish(s, rng)
            if result is not None:
                return result
        else:
            event = log[i]
            options = _options(s, event, promises[i])
            if len(options) > 1:
                key = s.key(i)
                if key in failed:
                    options = []
                else:
                    options = [options[j] for j in rng.permutation(len(options))]
                    stack.append((i, s, options[1:]))
                    s = s.copy()
            ok = bool(options) and _apply(s, event, options[0], promises[i])
            if ok and event[0] == NO_MATCH:
                ok = all(_epoch_matchable(s, e) for e in {e for e, _ in s.hand})
            elif ok and event[0] == FROM_HAND:
                ok = _epoch_matchable(s, options[0][0])
            if ok:
                i += 1
                continue
        # Dead end: back to the latest choice with options left.
        while stack:
            j, saved, rest = stack[-1]
            if rest:
                stack[-1] = (j, saved, rest[1:])
                s = saved.copy()
                if _apply(s, log[j], rest[0], promises[j]):
                    i = j + 1
                    break
                continue
            stack.pop()
            failed.add(saved.key(j))
        else:
            raise InconsistentLog("no world explains the event log")
