"""The rejection step of Cubirds' exact ``determinize`` (:mod:`.hidden_exact`): a proposal
drawn seat by seat from the chains (with the piles pinned where the model pinned them), and the
probability to keep it. Split from :mod:`.hidden_exact` (session 16), whose
:class:`~.hidden_exact.ExactModel` inherits it; the argument for each factor is there and in
:mod:`.hidden_pin` and :mod:`.hidden_group`. With nothing pinned, where the pilot
keeps under ``hidden_batch.BATCH_BELOW`` of its proposals, they are drawn in NumPy batches
(:mod:`.hidden_batch`, session 40): the same distribution, fewer Python steps a proposal.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from cardzoo.envs.cubirds import hidden_batch, hidden_group
from cardzoo.envs.cubirds.data import NUM_SPECIES
from cardzoo.envs.cubirds.hidden_pin import PinnedPile


def _pinned(pin, rng: np.random.Generator, counts, taken: list[int]):
    """The pinned seat's boxes given its pinned box's ``counts``, added to ``taken``."""
    drawn = pin.sample(rng, list(counts))
    for row in drawn:
        for s, v in enumerate(row):
            taken[s] += v
    return drawn


#: Proposals draw first the seats whose boxes close a pile not pinned (``_draw_order``;
#: False: the seats' order, as before session 41).
DRAW_ORDER = True
#: ``lgamma(k + 1)`` for every card count of the game's deck (``_log_factorial``).
_LOG_FACTORIALS = [math.lgamma(k + 1) for k in range(128)]


def _log_factorial(k: int) -> float:
    """``lgamma(k + 1)`` (from a table where it can)."""
    return _LOG_FACTORIALS[k] if k < 128 else math.lgamma(k + 1)


class Rejection:
    """The proposal and its keep step, over the attributes :class:`.hidden_exact.ExactModel`
    prepares (``seats``, ``pin``, ``pile_pin``, ``avail``, ``log_h``, ``log_top``, ...)."""

    def _sample_seats(self, rng: np.random.Generator) -> list[list[int]] | None:
        """Every seat's boxes from its own programme; kept with probability
        ``prod_s h_s(T_s) / max h_s`` (``T``: the cards of all seats), else None."""
        x: list[list[int]] = [[] for _ in self.box_size]
        taken = [0] * NUM_SPECIES
        # Several piles: a seat that takes more of a species than a pile held ends the
        # proposal early (it would be turned down whatever the other seats draw): an emptied
        # pile must come out exactly, and the last pile's factor is 0 past what it held.
        room = [row[:] for row in self.avail] if len(self.piles) > 1 else None
        fed_last = getattr(self, "fed_last", None)
        if fed_last is not None:  # its content grows with the thrown hands (hidden_fed)
            room[-1] = [a + m for a, m in zip(room[-1], fed_last.most)]
        last = len(self.piles) - 1
        pin = getattr(self, "pin", None)
        log_pin = 0.0
        pile_pin = getattr(self, "pile_pin", None)
        pile_pins = () if pile_pin is None else (pile_pin.index,)
        if pile_pin is not None:  # the pinned pile's split, then its seats last
            split = pile_pin.draw(rng)
            first = len(self.seats) - len(split)
            first += pile_pin.places[-1] < 0  # what is left of the last pile, split too
        tail = getattr(self, "tail", None)
        later = () if tail is None else tail.places  # the tail's seats: drawn after the keep
        seats = self.seats
        for i in getattr(self, "draw_order", None) or range(len(seats)):
            if i in later:
                continue
            boxes, prog = seats[i]
            if pile_pin is not None and i >= first:
                drawn = _pinned(pile_pin.pins[i - first], rng, split[i - first], taken)
            elif pin is not None and i == len(self.seats) - 1:
                # The pinned box takes what the others left of its pile (see hidden_pin).
                rows = room[pin[2]]
                log_pin = pin[3].log_weight(rows)
                if log_pin == -math.inf:
                    return None
                drawn = _pinned(pin[3], rng, rows, taken)
            else:
                drawn = prog.sample_counts(rng, taken)
            if not self._placed(boxes, drawn, x, room):
                return None
            # Past what all the piles held of a species: turned down whatever comes next (a
            # doomed proposal ends here rather than after every seat drew; session 12).
            for t, most in zip(taken, self.most_taken):
                if t > most:
                    return None
        if room is not None:
            taken = self._from_last_pile(room, taken)
            if taken is None:
                return None
        log_keep, rest = self._log_keep_of(x, taken, tail, last in pile_pins)
        log_keep += log_pin
        if log_keep == -math.inf or math.log(1.0 - rng.random()) > log_keep:
            return None
        if tail is not None:
            self._draw_tail(rng, tail, taken, x)
            return x
        x[-1] = rest if rest is not None else [a - t for a, t in zip(self.avail[-1], taken)]
        return x

    def _log_keep_of(self, x, taken: list[int], tail, pinned_last: bool) -> tuple:
        """A proposal's ``log`` keep probability from the last pile (``taken``: what it took
        from it), and what is left of that pile where thrown-away hands fed it (else None).
        The last pile pinned whole: its condition holds, its factor is 1 (see hidden_group);
        with a tail, its factor is in the tail's weight (see hidden_tail)."""
        if getattr(self, "fed_last", None) is not None:
            return self.fed_last.keep(x, taken)
        if tail is not None:
            return tail.log_weight(taken), None
        return (0.0 if pinned_last else self._log_keep_last(taken)), None

    def _pilot_kept(self, draws: int, need: int, give_up: bool = False) -> int:
        """How many of ``draws`` proposals (seeded 0) the rejection step keeps, counted up to
        ``need`` (and, with ``give_up``, only while ``need`` can still be reached). Which of
        them are kept is remembered per sampler (the seats' programmes in their order and the
        pins), with the generator where it stopped: a later pilot of the same sampler reads
        them and draws only the proposals past them (session 28: the same answers)."""
        sampler = self.sampler_key()
        pilots = self.__dict__.setdefault("_pilots", {})
        found = pilots.get(sampler)
        if found is None:  # (a generator is made only for a new sampler)
            found = pilots[sampler] = ([], np.random.default_rng(0))
        outcomes, pilot = found
        kept = 0
        for drawn in range(1, draws + 1):
            if drawn > len(outcomes):
                outcomes.append(self._sample_seats(pilot) is not None)
            kept += outcomes[drawn - 1]
            if kept >= need or (give_up and kept + draws - drawn < need):
                break
        return kept

    def sampler_key(self) -> tuple:
        """What decides the proposals: the seats' programmes in their order and the pins."""
        return (
            *(prog for _, prog in self.seats),
            *(getattr(self, name, None) for name in ("pin", "pile_pin", "tail", "fed_last")),
        )

    def samplers_for(self, built: bool) -> None:
        """What a model just built (``built``: it fits) draws its proposals with: the seats'
        order (``draw_order``) and the batch sampler, if any."""
        self.draw_order = self._draw_order()
        self.batch = hidden_batch.wanted(self) if built else None

    def _draw_order(self) -> list[int] | None:
        """The seats in the order a proposal draws them, where it matters: those with a box
        in a pile drawn to its end and not pinned whole come first, since that pile's
        condition turns a proposal down as soon as its last box is drawn (session 41: at
        several piles with one pinned, most proposals are turned down there). Given the
        pinned split, the seats' draws are independent: any order samples the same
        distribution. The seat of a single pinned box stays last; None: the seats' order."""
        if not DRAW_ORDER or self.seats is None or len(self.piles) < 2:
            return None
        pile_pin = getattr(self, "pile_pin", None)
        pinned = -1 if pile_pin is None else pile_pin.index
        last = len(self.piles) - 1
        fixed = 1 if getattr(self, "pin", None) is not None else 0
        movable = range(len(self.seats) - fixed)

        def later(i: int) -> bool:
            return all(self.box_pile[g] in (pinned, last) for g in self.seats[i][0])

        order = sorted(movable, key=later) + list(range(len(movable), len(self.seats)))
        return None if order == sorted(order) else order

    def first_kept(self, rng: np.random.Generator, tries: int) -> list[list[int]] | None:
        """The first of up to ``tries`` proposals that the rejection step keeps, in batches
        where the model's build chose them (:mod:`.hidden_batch`); None if none was kept."""
        batch = getattr(self, "batch", None)
        if batch is not None:
            return batch.sample(rng, tries)
        for _ in range(tries):
            x = self._sample_seats(rng)
            if x is not None:
                return x
        return None

    def _pin_best(self, candidates: Iterator[PinnedPile], draws: int, enough: int) -> None:
        """Pin the first candidate pile; where a pilot run (fixed seed) of ``draws`` proposals
        then keeps fewer than ``enough``, the next ones are tried in turn, and the first to
        keep that many is pinned, else the one that kept the most (the earliest of equals; 0:
        the first alone). Any pile pinned samples exactly; this only picks the one whose
        condition the rejection step fails least often. A function of the seat's information
        (``hidden_exact.CHOICE_KEPT``, session 19)."""
        first = next(candidates, None)
        order = self.seats[:]
        self._pin_pile(first)
        if first is None or not enough:
            return
        best, chosen = self._pilot_kept(draws, enough), first
        for pile in candidates if best < enough else ():
            self.seats[:] = order
            self._pin_pile(pile)
            kept = self._pilot_kept(draws, enough)
            if kept > best:
                best, chosen = kept, pile
                if kept >= enough:
                    break
        if self.pile_pin is not chosen:
            self.seats[:] = order
            self._pin_pile(chosen)

    def _widen(self, draws: int, kept: int, most: int) -> None:
        """Where a pilot run keeps fewer than ``kept`` of ``draws`` proposals, a pile split
        among its seats (and what is left of the last pile) within ``most`` steps
        (``hidden_exact.WIDE_PILE_STEPS``), instead of the single pinned box, if one fits: the
        rejection then never fails that pile."""
        if self._keeps_enough(draws, kept):
            return
        candidates = hidden_group.pile_candidates(
            self.seats, self.box_pile, self.avail, self._pin_rest(), most=most
        )
        pinned = next(candidates, None)
        if pinned is not None:
            self.pin = None
            self._pin_pile(pinned)

    def _pin_rest(self) -> int:
        """What is left of the last pile, for the pins; -1 (never pinned) where thrown-away
        hands fed it: its content is not known (:class:`.hidden_fed.FedLast`)."""
        return -1 if getattr(self, "fed_last", None) is not None else self.box_size[-1]

    def _pin_pile(self, pinned: PinnedPile | None) -> None:
        """Use ``pinned`` (if any): its seats are drawn last, in its order."""
        self.pile_pin = pinned
        if pinned is not None:
            places = [i for i in pinned.places if i >= 0]
            seats = self.seats
            seats[:] = [s for i, s in enumerate(seats) if i not in places] + [
                seats[i] for i in places
            ]

    def _placed(self, boxes: list[int], drawn: list, x: list, room) -> bool:
        """A seat's boxes into ``x``, each taken from its pile's ``room`` (``room`` None: one
        pile); False if one took more than is left."""
        for g, counts in zip(boxes, drawn):
            x[g] = counts
            if room is not None:
                row = room[self.box_pile[g]]
                for s, v in enumerate(counts):
                    row[s] -= v
                    if row[s] < 0:
                        return False
        return True

    def _draw_tail(self, rng: np.random.Generator, tail, taken: list[int], x: list) -> None:
        """The tail's seats' boxes and what is left of the last pile, into ``x``, given what
        the other seats took from it (``taken``)."""
        split = tail.draw(rng, taken)
        ignored = [0] * NUM_SPECIES
        x[-1] = [0] * NUM_SPECIES  # (nothing left of the pile: the tail has no rest member)
        for place, pin, content in zip(tail.places, tail.pins, split):
            if place < 0:
                x[-1] = list(content)
                continue
            for g, counts in zip(self.seats[place][0], _pinned(pin, rng, content, ignored)):
                x[g] = counts

    def _from_last_pile(self, room: list[list[int]], taken: list[int]) -> list[int] | None:
        """What a proposal took from the last pile (``taken``: from all of them), or None if
        the emptied piles did not come out exactly: every box of an emptied pile took from its
        ``room``, so they did if nothing is left of them (the last pile's row aside)."""
        if any(any(row) for row in room[:-1]):
            return None
        for row in self.avail[:-1]:
            taken = [t - v for t, v in zip(taken, row)]
        return taken

    def log_keep(self, x: list[list[int]], taken: list[int]) -> float:
        """``log`` of the probability to keep a proposal (``x``: its segments; ``taken``: its
        cards per species, which becomes what it took from the last pile); at most 0 when the
        bound holds (``tests/cubirds/test_cubirds_exact_posterior.py``)."""
        if len(self.piles) > 1 and not self._piles_emptied(x, taken):
            return -math.inf
        if getattr(self, "fed_last", None) is not None:
            return self.fed_last.keep(x, taken)[0]
        return self._log_keep_last(taken)

    def _log_h_row(self, s: int) -> list[float]:
        """``log h_s(t)`` for every ``t`` from 0 to what the last pile held of ``s``:
        ``tilt[s] ** -(e + t - closed[s]) / (avail[s] - t)!`` with ``avail`` the last pile's and
        ``e`` what the piles drawn to their end held of ``s`` (``spent``): the seats' open cards
        of ``s`` number ``e + t - closed[s]`` in an accepted proposal, and the cards of the
        closed intervals weigh 1 in it (their number is fixed); ``-inf`` below
        ``closed[s] - e``. (One species at once since session 31, the same numbers.)"""
        a, w, c = self.avail[-1][s], self.tilt[s], self.closed[s] - self.spent[s]
        row = [-math.inf] * (a + 1)
        if c > a:
            return row
        if c >= 0:
            row[c] = 0.0 - _log_factorial(a - c)
        if w == 0.0:
            return row
        log_w = math.log(w) if a > c else 0.0
        for t in range(max(c + 1, 0), a + 1):
            row[t] = (c - t) * log_w - _log_factorial(a - t)
        return row

    def _log_keep_last(self, taken: list[int]) -> float:
        """``log_keep`` given what the proposal took from the last pile (``taken``)."""
        log_keep = -self.log_top
        for row, t in zip(self.log_h, taken):
            if t >= len(row):
                return -math.inf
            log_keep += row[t]
        return log_keep

    def _piles_emptied(self, x: list[list[int]], taken: list[int]) -> bool:
        """Whether the seats took exactly what every pile drawn to its end held (the pile's
        condition: 1 or 0 in the weight of the proposal); ``taken`` becomes what they took
        from the last pile."""
        took = [[0] * NUM_SPECIES for _ in self.piles]
        for counts, j in zip(x, self.box_pile):
            row = took[j]
            for s, v in enumerate(counts):
                row[s] += v
        if took[:-1] != self.avail[:-1]:
            return False
        taken[:] = took[-1]
        return True


def knapsack_top(rows: list[list[float]], lows: list[int], highs: list[int], total: int) -> float:
    """The largest ``sum_s rows[s][T_s]`` with ``lows[s] <= T_s <= highs[s]`` and ``sum(T)`` =
    ``total`` (``-inf`` where none is finite). Each row is concave where finite (``log h_s``:
    its steps ``log((avail[s] - t) / tilt[s])`` fall as ``t`` grows), so the best ``T`` starts
    every species at its first finite entry and adds the largest steps of all species: a
    sort instead of a dynamic programme over every total (session 31, about a tenth of a
    two-player first call). The sum is added species by species from 0, as the programme did
    (``tests/cubirds/test_cubirds_knapsack.py::test_the_knapsack_bound_is_the_best_total``)."""
    chosen = []  # each species' first finite entry in its range (the finite ones are a run)
    steps: list[tuple[float, int]] = []
    for s, (row, low, high) in enumerate(zip(rows, lows, highs)):
        first = next((t for t in range(low, high + 1) if row[t] != -math.inf), None)
        if first is None:
            return -math.inf
        chosen.append(first)
        for t in range(first, high):
            if row[t + 1] == -math.inf:
                break
            steps.append((row[t + 1] - row[t], s))
    need = total - sum(chosen)
    if need < 0 or need > len(steps):
        return -math.inf
    steps.sort(reverse=True)
    for _, s in steps[:need]:
        chosen[s] += 1
    out = 0.0
    for row, t in zip(rows, chosen):
        out += row[t]
    return out
