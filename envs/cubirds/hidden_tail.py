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
) -> PileTail | None:
    """The tail of the last pile: every seat not in ``busy`` (already pinned) whose boxes all
    lie in the last pile, and what is left of it (``rest`` cards, at most ``REST_CONTENTS``
    contents, each open card weighing what the pile held). None if no seat qualifies, a
    seat's group is too large, or the count passes ``most`` steps (``PILE_STEPS`` if None).
    A function of the seats' structure alone."""
    last = len(avail) - 1
    pile = avail[last]
    what_is_left = RestOfPile(rest, pile, pile)
    if rest <= 0 or what_is_left.count() > hidden_group.REST_CONTENTS:
        return None
    members = [
        (i, list(range(len(boxes))))
        for i, (boxes, prog) in enumerate(seats)
        if i not in busy and prog.total > 0.0 and all(box_pile[g] == last for g in boxes)
    ]
    if not members:
        return None
    try:
        pins = pin_members(seats, members, pile)
    except GroupTooLarge:
        return None
    places = [i for i, _ in members]
    tail = PileTail([*pins, what_is_left], [*places, -1], pile, most or hidden_pin.PILE_STEPS)
    return tail if tail.fits else None
