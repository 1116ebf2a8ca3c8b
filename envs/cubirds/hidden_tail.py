"""The last pile's *tail*, for Cubirds' exact ``determinize`` at positions with several piles
(:mod:`.hidden_exact`; session 16): some seats, each drawing only from the last pile, and what
is left of it, drawn last and together, taking what the other seats left of the pile.

Where an emptied pile is split among its seats (:class:`.hidden_pin.PinnedPile`) the last pile
was left to the rejection step's last factor: at the bench's costliest five-player position
(three seats' first hands make up the emptied pile, three cards are left of the last one) one
proposal in 500 was kept, most of them failing because the seats together took more of a
species than the last pile held. Here the seats that drew only from the last pile, and what is
left of it, are the *tail*. The other seats are drawn first (as before); they leave ``L`` of
the pile; the tail's members then take ``L`` between them, split in proportion to the product
of their weights (``Z_i``, :class:`.hidden_pin.PinnedBox` or :class:`.hidden_group.PinnedGroup`
for a seat; :class:`.hidden_group.RestOfPile`, the last pile's factor, for what is left), each
seat's boxes drawn given its share. With ``T(L)`` the weight of every such split of ``L``, a
tail member's filling is proposed with probability ``w_i(x_i) ... / T(L)``, so a proposal is
kept with the extra factor ``T(L) / max T``, and the last pile's factor is not applied again
(it is in the rest's weight): the kept proposals follow the exact law, as with the single
pinned box of :mod:`.hidden_pin`, of which this is the several-member form.

``T`` is counted once per position, member by member from the whole pile
(:func:`.hidden_pin.count_member`): after the last member, per content left (``L``'s
complement, what the other seats took), the weight of every way there.
"""

from __future__ import annotations

import math

import numpy as np
from cardzoo.envs.cubirds import hidden_group, hidden_pin
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from cardzoo.envs.cubirds.hidden_group import GroupTooLarge, RestOfPile, pin_members
from cardzoo.envs.cubirds.hidden_pin import (
    _GUARD,
    _listed,
    _pack,
    _radix,
    count_member,
    step_back,
)


class PileTail:
    """The tail's members (``pins``: seats' :class:`PinnedBox` or :class:`PinnedGroup`, then
    a :class:`RestOfPile`), their seats' places in the model's ``seats`` (``places``, -1 for
    the rest), counted from the last pile ``pile``. ``fits`` is False past ``most`` steps."""

    def __init__(self, pins: list, places: list[int], pile: list[int], most: int) -> None:
        self.pins = pins
        self.places = places
        self.pile = pile
        listed = [_listed(pin.contents(pile)) for pin in pins]
        self.items = [items for items, _ in listed]
        #: Per member counted, per content left of the pile: the weight of the ways there.
        self.left: list[dict[int, float]] = [{_pack(pile) + _GUARD: 1.0}]
        self.fits = all(self.items)
        steps = 0
        radix = _radix(pile)
        for items, arrays in listed:
            before = self.left[-1]
            steps += len(before) * len(items)
            if not self.fits or steps > most:
                self.fits = False
                break
            self.left.append(count_member(before, items, arrays, radix))
        top = max(self.left[-1].values(), default=0.0) if self.fits else 0.0
        self.fits = top > 0.0
        self.log_top = math.log(top) if self.fits else 0.0
        self._ways: list[dict[int, tuple]] = [{} for _ in pins]

    def log_weight(self, taken: list[int]) -> float:
        """``log T(L) - log max T``, ``L`` what is left of the pile once the other seats took
        ``taken`` from it (-inf when the tail cannot take it)."""
        if any(t > a for t, a in zip(taken, self.pile)):
            return -math.inf
        got = self.left[-1].get(_pack(taken) + _GUARD)
        return math.log(got) - self.log_top if got else -math.inf

    def draw(self, rng: np.random.Generator, taken: list[int]) -> list[tuple]:
        """Each member's content (in ``pins``' order), a split of what ``taken`` left, in
        proportion to the product of the members' weights (only where :meth:`log_weight` is
        finite)."""
        u = rng.random(len(self.pins)).tolist()
        rest = _pack(taken) + _GUARD
        split: list = [None] * len(self.pins)
        for t in range(len(self.pins) - 1, -1, -1):
            rest, split[t] = step_back(self.left[t], self.items[t], self._ways[t], rest, u[t])
        return split


def choose_tail(
    seats: list[tuple[list[int], SeatChain]],
    box_pile: list[int],
    avail: list[list[int]],
    rest: int,
    busy: set[int],
    most: int | None = None,
    weights: list[float] | None = None,
) -> PileTail | None:
    """The tail of the last pile: the seats not in ``busy`` (already pinned) whose boxes all
    lie in the last pile, and what is left of it (``rest`` cards, at most ``REST_CONTENTS``
    contents, each open card weighing ``weights``, by default what the pile held; no member
    where nothing is left). None if no seat qualifies or the count cannot fit ``most`` steps
    (``PILE_STEPS`` if None). A function of the seats' structure alone.

    Since session 28 the tail may leave seats out: the seats' groups are counted fewest cards
    first within one budget of ``GROUP_STEPS``; once one does not fit, the groups after it are
    left to the rejection step (before, one group too large left the pile without a tail); where
    the count passes ``most``, the member with the most contents is left out and the rest
    counted again. The members stay in the seats' order."""
    last = len(avail) - 1
    pile = avail[last]
    what_is_left = [RestOfPile(rest, weights or pile, pile)] if rest > 0 else []
    if rest < 0 or (what_is_left and what_is_left[0].count() > hidden_group.REST_CONTENTS):
        return None
    qualify = [
        i
        for i, (boxes, prog) in enumerate(seats)
        if i not in busy and prog.total > 0.0 and all(box_pile[g] == last for g in boxes)
    ]
    left, fitted = hidden_group.GROUP_STEPS, {}
    for i in sorted(qualify, key=lambda i: (sum(seats[i][1].box_size), i)):
        try:
            (pin,) = pin_members(seats, [(i, list(range(len(seats[i][0]))))], pile, left)
        except GroupTooLarge:
            left = 0  # (the budget spent: only seats with a single box may join now)
            continue
        left -= getattr(pin, "steps", 0)
        fitted[i] = pin
    places = sorted(fitted)
    while places:
        pins = [fitted[i] for i in places]
        members = [*places, *(-1 for _ in what_is_left)]
        tail = PileTail([*pins, *what_is_left], members, pile, most or hidden_pin.PILE_STEPS)
        if tail.fits:
            return tail
        sizes = [len(pin.contents(pile)) for pin in pins]
        places.pop(sizes.index(max(sizes)))
    return None


def one_pile(model) -> bool:
    """One pile, where the chains serve alone and a pilot kept few (``hidden_exact``'s
    ``ONE_PILE_TAIL``, session 28): the tail of the seats whose groups fit and what is left of
    the pile, each open card weighing the chains' tilt (:func:`choose_tail`), if one fits.
    True: the chains serve either way."""
    rest = model.box_size[-1]
    model.tail = choose_tail(
        model.seats, model.box_pile, model.avail, rest, set(), None, model.tilt
    )
    return True
