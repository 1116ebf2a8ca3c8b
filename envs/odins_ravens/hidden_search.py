"""The search fallback of ``hidden.py``: one world consistent with a seat's event log, found by
a randomised depth-first search over the log's events.

A large auxiliary deck of cards from several draw piles can give the exact posterior
(``hidden.Belief``) more than ``hidden.MAX_STATES`` label states. Then a world is found here
instead: every world the search returns is consistent with the log, but its choices among
labels are uniform, not weighted by the posterior. The events and labels are those of
``hidden.py``.
"""

from __future__ import annotations

import numpy as np
from cardzoo.envs.odins_ravens.data import NUM_KINDS, NUM_TYPES
from cardzoo.envs.odins_ravens.hidden import (
    DRAW,
    FROM_AUX,
    FROM_HAND,
    NO_MATCH,
    REARRANGE,
    RESHUFFLE,
    STASH,
    InconsistentLog,
    Label,
)

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
        _apply_from_aux(s, event[1], choice)
    elif code == REARRANGE:
        bag: dict[Label, int] = {}
        for e in s.aux:
            items = (((e[0], e[1]), 1),) if isinstance(e, tuple) else e.items()
            for lab, n in items:
                bag[lab] = bag.get(lab, 0) + n
        s.aux = [bag] if bag else []
    elif code == NO_MATCH:
        _apply_no_match(s, event, choice)
    else:
        raise ValueError(f"unknown event {event!r}")
    return True


def _apply_from_aux(s: _Search, kind: int, choice) -> None:
    """``(FROM_AUX, kind)``: the top slot, or ``choice``'s card of a rearranged bag on top."""
    top = s.aux[-1]
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


def _apply_no_match(s: _Search, event: tuple, choice) -> None:
    """``(NO_MATCH, t, top)``: every hand token, and the aux top if ``top`` (for a bag on top:
    ``choice``'s card, which becomes a slot), is known not to be of type ``t``."""
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
