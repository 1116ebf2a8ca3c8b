"""Label states of Odin's Ravens' belief (``hidden.py``): their types, the bag helpers, the
counting of deals, and the exact merges of states that no later event can tell apart.

Split from ``hidden.py`` (which imports everything it needs from here) to keep modules small;
the model and the names are described there.
"""

from __future__ import annotations

import math
from functools import lru_cache

from cardzoo.envs.odins_ravens.data import NUM_KINDS, NUM_TYPES

Label = tuple[int, int]  # (epoch, bit mask of land types the card is known not to be)
Counts = tuple[tuple[Label, int], ...]  # a bag of labels: sorted (label, count) pairs
# An aux entry is a Label (one slot) or a Counts bag (slots O2-A put in an unseen order).
# A label state: (current epoch, cards left in the draw pile, per-epoch kinds not yet revealed,
# hand, aux entries bottom -> top). Plain tuples: hashable, cheap to copy.
LabelState = tuple[int, int, tuple[tuple[int, ...], ...], Counts, tuple]


def _bag_add(bag: Counts, label: Label, n: int = 1) -> Counts:
    # Bags are short sorted tuples: one scan finds the label's place (no dict, no sort).
    for i, (lab, m) in enumerate(bag):
        if lab == label:
            return (*bag[:i], (lab, m + n), *bag[i + 1 :])
        if label < lab:
            return (*bag[:i], (label, n), *bag[i:])
    return (*bag, (label, n))


def _bag_take(bag: Counts, label: Label) -> Counts:
    for i, (lab, n) in enumerate(bag):
        if lab == label:
            if n > 1:
                return (*bag[:i], (lab, n - 1), *bag[i + 1 :])
            return bag[:i] + bag[i + 1 :]
    raise AssertionError(f"no {label} in {bag}")


def _allowed(label: Label, kind: int) -> bool:
    return kind >= NUM_TYPES or not label[1] >> kind & 1


def _is_bag(entry: tuple) -> bool:
    return bool(entry) and isinstance(entry[0], tuple)


def _entry_labels(entry: tuple) -> Counts:
    return entry if _is_bag(entry) else ((entry, 1),)


def _with_pool(pools: tuple, epoch: int, kind: int) -> tuple:
    """``pools`` with one ``kind`` of ``epoch`` revealed. A pool emptied becomes ``()``: an
    epoch with no card left unrevealed has no token left either, and a short tuple keeps the
    label states cheap to hash late in a race, when many old epochs are spent."""
    pool = list(pools[epoch])
    pool[kind] -= 1
    return (*pools[:epoch], tuple(pool) if any(pool) else (), *pools[epoch + 1 :])


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


def _dealable(state: LabelState, epoch: int) -> bool:
    """Whether ``epoch``'s unrevealed cards can still be dealt to its tokens (always, if none
    of them carries a mask)."""
    sizes = _masked_sizes(state[3], state[4], epoch).get(epoch)
    if not sizes:
        return True
    pool = state[2][epoch]
    return bool(_count(*_groups_free(sizes, pool), pool))


def _masked_sizes(hand: Counts, aux: tuple, only: int = -1) -> dict[int, dict[int, int]]:
    """Per epoch (or for epoch ``only`` alone), the number of its tokens carrying each nonzero
    mask (one pass; written out flat, as it runs for every successor once masks exist)."""
    masked: dict[int, dict[int, int]] = {}
    for (e, mask), n in hand:
        if mask and (only < 0 or e == only):
            sizes = masked.setdefault(e, {})
            sizes[mask] = sizes.get(mask, 0) + n
    for entry in aux:
        if entry[0].__class__ is int:  # one slot: a label
            e, mask = entry
            if mask and (only < 0 or e == only):
                sizes = masked.setdefault(e, {})
                sizes[mask] = sizes.get(mask, 0) + 1
            continue
        for (e, mask), n in entry:  # a rearranged bag
            if mask and (only < 0 or e == only):
                sizes = masked.setdefault(e, {})
                sizes[mask] = sizes.get(mask, 0) + n
    return masked


def _single_kind(pool: tuple[int, ...]) -> int:
    """The one kind ``pool`` holds, or -1 if it holds none or several."""
    found = -1
    for k, n in enumerate(pool):
        if n:
            if found >= 0:
                return -1
            found = k
    return found


def _join_known(state: LabelState, epoch: int) -> LabelState:
    """``state`` with ``epoch`` joined to another fully drawn epoch if both have cards of the
    same one kind ``k`` only left: each of their tokens is a ``k`` whichever pile it came from,
    so they take the lower epoch's label and its pool adds up both (an exact merge)."""
    current, undrawn, pools, hand, aux = state
    pool = pools[epoch]
    if not pool or (epoch == current and undrawn):
        return state
    kind = _single_kind(pool)
    if kind < 0:
        return state
    for other, p in enumerate(pools):
        if other != epoch and p and (other != current or not undrawn):
            if _single_kind(p) == kind:
                break
    else:
        return state
    keep, gone = min(epoch, other), max(epoch, other)
    joined = list(pools[keep])
    joined[kind] += pools[gone][kind]
    new_pools = list(pools)
    new_pools[keep], new_pools[gone] = tuple(joined), ()

    def relabel(bag: Counts) -> Counts:
        out: Counts = ()
        for (e, mask), n in bag:
            out = _bag_add(out, (keep if e == gone else e, mask), n)
        return out

    new_aux = tuple(
        relabel(entry) if _is_bag(entry) else ((keep, entry[1]) if entry[0] == gone else entry)
        for entry in aux
    )
    return (current, undrawn, tuple(new_pools), relabel(hand), new_aux)


def _forget_spent_type(state: LabelState, epoch: int, kind: int) -> LabelState:
    """``state`` with the mask bit of ``kind`` dropped from ``epoch``'s tokens once the epoch
    has no card of that type left unrevealed (an exact merge: the bit rules out nothing)."""
    pool = state[2][epoch]
    if kind >= NUM_TYPES or (pool and pool[kind]):
        return state
    bit = 1 << kind
    current, undrawn, pools, hand, aux = state
    if not any(e == epoch and m & bit for (e, m), _ in hand) and not any(
        e == epoch and m & bit for entry in aux for (e, m), _ in _entry_labels(entry)
    ):
        return state

    def clear(label: Label) -> Label:
        return (label[0], label[1] & ~bit) if label[0] == epoch else label

    def clear_bag(bag: Counts) -> Counts:
        out: Counts = ()
        for label, n in bag:
            out = _bag_add(out, clear(label), n)
        return out

    new_aux = tuple(clear_bag(e) if _is_bag(e) else clear(e) for e in aux)
    return (current, undrawn, pools, clear_bag(hand), new_aux)


@lru_cache(maxsize=1 << 14)
def _arrangements(pool: tuple[int, ...]) -> float:
    """Ways to deal the cards ``pool`` to as many places that take any kind (a float)."""
    ways = math.factorial(sum(pool))
    for n in pool:
        ways //= math.factorial(n)
    return float(ways)


def _groups_free(sizes: dict[int, int], pool: tuple[int, ...]) -> tuple[tuple, int]:
    """``_count``'s masked groups and free places for an epoch with these masked tokens (its
    tokens, drawn or not, are exactly as many as its unrevealed cards)."""
    return tuple(sorted(sizes.items())), sum(pool) - sum(sizes.values())
