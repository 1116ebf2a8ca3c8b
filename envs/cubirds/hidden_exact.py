"""Exact resampling of what one Cubirds seat has not seen (issue 16): a draw from the posterior,
not a replay steered by local checks.

**What "exact" means here.** Every shuffle of the game (the pack at setup, every reshuffle of the
discard pile) is a uniformly random order of distinct cards, so every card-level history of the
game is equally likely. A seat's information is its log view (the public events, its own unseen
draws and its own thrown-away cards; see :mod:`cardzoo.envs.cubirds.hidden`). The exact
distribution is the uniform one over card-level histories that agree with that view: what one
gets by dealing fresh games again and again and keeping those in which the seat saw exactly
what it saw. (The policies of the players are not modelled: a move says nothing about a hand
beyond what the rules make public. Neither is the timing signal of ``flock_step="auto"``.)

**Why species counts suffice.** Call a *segment* a run of one other seat's unseen draws from one
pile with none of its lays or flocks in between, and ``x[g][s]`` the cards of species ``s`` it
drew. Every lay and flock and every pile's content are linear conditions on ``x`` of one species
each (a lay of ``s`` by seat ``q`` fixes the sum of ``x[.][s]`` over ``q``'s segments since its
previous lay of ``s``; a pile drawn to its end fixes the sum of its segments' ``x[.][s]``). The
number of card-level histories with given ``x`` is, up to a constant,

    prod over segments g and species s of 1 / x[g][s]!
    * prod over reshuffled piles j of prod_s C[j][s]!   (C: the pile's content, which depends
                                                         on ``x`` only with face-down discards)
    * prod_s 1 / r[s]!                                 (r: what is left of the current pile)

a product of one factor per species, and the species are tied only by every segment's size.
So the worlds can be counted species by species (:class:`.hidden_count.Programme`: a dynamic
programme whose state is the room left in every *box*, i.e. every segment and the rest of the
draw pile; boxes that no species still to be counted tells apart are merged, and a multinomial
coefficient counts the ways to split them again). A sample draws ``x`` from those counts, splits
each segment into its draws uniformly (multivariate hypergeometric) and orders the draw pile
uniformly. Two ways to count, both exact:

- **per seat, with a rejection step** (one draw pile since the last public source, the usual
  case): each other seat's runs of draws are counted alone, in order
  (:class:`.hidden_chain.SeatChain`, which skips the states that Hall's condition on the rest
  of each interval rules out), a card of species ``s`` in an open interval (drawn since the
  seat's last lay or flock of ``s``) weighing ``tilt[s]`` instead of the pile's condition:
  ``tilt[s] = avail[s] - C[s]``, what the pile holds of ``s`` beyond the ``C[s]`` cards the
  closed intervals of all seats took (their number is fixed, so they weigh 1). A proposal
  (every seat drawn from its own chain, ``T[s] >= C[s]`` cards of ``s`` in all) is kept with
  probability ``prod_s h_s(T[s]) / max``, ``h_s(t) = tilt[s]**-(t - C[s]) / (avail[s] - t)!``,
  the maximum taken over every ``T`` with the right total (a knapsack over species): this
  turns the proposal into the exact distribution. Used unless a pilot run (fixed seed) keeps
  less than ``MIN_KEPT`` of its proposals and the joint programme fits (``ONE_RARE_KEPT``);
- **joint**: one programme over every box, with each pile's content as a condition.

Several piles since the last public source (a reshuffle within the round): the joint programme
when it fits its limits, else the per-seat chains with a rejection step of the same kind. Every
pile but the last was drawn to its end, so a proposal is kept only if the seats took exactly
what each of those piles held (the pile's condition is 1 or 0). In the chains every card, of a
closed interval or an open one, weighs what its pile held of its species (``PILE_TILT``; the
proposal's mean then matches each pile), so the emptied piles' weight is the same for every
proposal kept, and the last pile's factor is ``h_s`` with ``C[s] = 0`` and ``tilt[s] =
avail[s]`` (the same knapsack, ``T[s]`` now at least what the closed intervals of ``s`` took
beyond what the emptied piles held). Exact
(``tests/cubirds/test_cubirds_exact_posterior.py::test_two_piles_since_the_source_are_sampled_exactly``,
``::test_the_several_piles_bound_holds_along_games``), but not cheap: the emptied piles must come
out exactly, which only a few per cent of the proposals do. So a pile drawn to its end is split
among the seats that drew from it, by the product of their weights, then each seat's other boxes
are drawn given its share (``PIN_PILE``, :class:`.hidden_pin.PinnedPile`; a seat's boxes there
as one member, :mod:`.hidden_group`); the last pile too where little is left of it, and at one
pile where the pilot keeps too few (``ONE_PILE_PIN``); else one seat's only box in an emptied
pile is set to what the others left of it (``PIN_BOX``); and the settings ``CAP_SOLE_BOXES``,
``WIDE_PILE_STEPS``, ``TAIL_KEPT`` (:mod:`.hidden_tail`) and ``CHOICE_KEPT`` (the rejection step:
:mod:`.hidden_reject`; each setting's session and measurements, and what was tried and not kept:
``docs/cubirds_determinize.md``). A joint try with ``LEVELS_SHARE`` or more of the limits counts
every state of a level at once (:mod:`.hidden_levels`, session 27: the same counts).

Face-down round-end discards (:mod:`.hidden_fed`): thrown-away cards are sampled with the rest
(``tests/cubirds/test_cubirds_exact_posterior.py::test_face_down_round_ends_are_sampled_exactly``),
a pile a reshuffle makes of them counted by the joint programme (``FED_PILES``) or, the current
pile alone fed, by the chains (:class:`.hidden_fed.FedLast`; 2-3 players), the pile before it
pinned whole even where one seat alone drew it (``hidden_fed.FED_SOLE``, session 39).

Not covered (:func:`.hidden.sample_hidden` then uses the inexact replay): fed piles where both
ways exceed their limits or an earlier pile is fed (:class:`TooLarge` if ``FED_PILES`` is 0);
positions whose chains and joint programme both exceed their limits; samples whose rejection
keeps nothing in ``REJECT_TRIES`` rounds while the joint programme is too large (None).

Reuse: a position's model is built once (:func:`.hidden.plan_for`), its results kept by all it
read (``_BUILT``); the seat chains share the counts of every prefix of a seat's boxes
(:mod:`.hidden_chain`). A function of the key alone: a sample never depends on what was kept.
"""

from __future__ import annotations

import math

import numpy as np
from cardzoo.envs.cubirds import (
    hidden_batch,
    hidden_count,
    hidden_fed,
    hidden_group,
    hidden_pin,
    hidden_reject,
    hidden_tail,
)
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_CLOSE,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
    NUM_SPECIES,
)
from cardzoo.envs.cubirds.hidden_chain import SeatChain
from cardzoo.envs.cubirds.hidden_count import (
    MAX_OPTIONS,
    MAX_STATES,
    Programme,
    TooLarge,  # noqa: F401 (raised at reading, by hidden_fed; callers catch it from here)
    draw_counts,
)
from cardzoo.envs.cubirds.hidden_reject import Rejection, knapsack_top

#: Rejection rounds before the joint programme (if it fits) or the inexact replay is used
#: instead: 2,000 since session 17 (200 before; where the pilot keeps 1.6 %, a call gives up
#: with probability under 1e-14; measured in docs/cubirds_determinize.md).
REJECT_TRIES = 2000
#: The pilot's proposals (how many the rejection step keeps); below this share, joint first.
PILOT_DRAWS = 16
MIN_KEPT = 0.4
#: The share of the limits the joint programme gets when the per-seat chains are at hand.
JOINT_SHARE = 0.25
#: With the chains at hand, no first joint try past this many classes of boxes (6 of 556 that
#: fitted had more, along 24 random games); only the larger one, to ``ONE_RARE_CLASSES``.
JOINT_CLASSES = 6
#: One pile, the joint programme past ``JOINT_SHARE`` of its limits, the first pilot keeping at
#: most ``ONE_RARE_FIRST``: if one of ``RARE_DRAWS`` keeps fewer than ``ONE_RARE_KEPT``, it goes
#: on to ``ONE_RARE_SHARE`` of them (0: never; sessions 24-25), past ``JOINT_CLASSES`` alone.
ONE_RARE_FIRST, ONE_RARE_KEPT, ONE_RARE_SHARE, ONE_RARE_CLASSES = 1, 8, 4.0, 14
#: Several piles: the joint programme's share of the limits (session 8: 2; session 27: 16, now
#: that a large count takes a fifth of the time, ``LEVELS_SHARE``), only with at most
#: ``MULTI_JOINT_CLASSES`` classes of boxes (session 17: of those with more along 6 seeded
#: games, none fitted; ``docs/cubirds_determinize.md``).
MULTI_JOINT_SHARE, MULTI_JOINT_CLASSES = 16.0, 15
#: Several piles, where the joint programme exceeded its limits: if a pilot run (fixed seed) of
#: ``RARE_DRAWS`` proposals keeps fewer than ``RARE_KEPT`` (``FEW_KEPT`` with at most
#: ``FEW_CLASSES`` classes of boxes: 10 in session 24, 14 since session 27, the large counts
#: being cheap), the joint programme is tried again with ``RARE_JOINT_SHARE`` times the limits,
#: unless it has more than ``RARE_CLASSES`` classes (0: never; session 12; 64 times since
#: session 25). It builds in 5-100 ms (session 27), then samples in about 0.1 ms: a search gains.
RARE_DRAWS, RARE_KEPT, FEW_KEPT, FEW_CLASSES = 128, 2, 8, 14
RARE_JOINT_SHARE, RARE_CLASSES = 64.0, 14
#: Joint tries with at least this share of the limits count every state of a level at once
#: (:mod:`.hidden_levels`; session 27) from scratch, after a depth-first try within
#: ``LEVELS_FIRST`` of them below ``LEVELS_FIRST_CLASSES`` classes (session 28: past, rare fits).
LEVELS_SHARE, LEVELS_FIRST, LEVELS_FIRST_CLASSES = 2.0, 0.1, 8
#: Several piles, none fed, the chains kept, the pilot of ``RARE_DRAWS`` keeping fewer than
#: ``LAST_KEPT``: the joint programme again at ``LAST_JOINT_SHARE`` times the limits whatever its
#: classes, else (no pile drawn to its end pinned) the chains again with ``LAST_GROUP_STEPS`` for
#: a pile split's groups (session 32; 0: never; a call there gave up one time in five or so).
LAST_JOINT_SHARE, LAST_KEPT, LAST_GROUP_STEPS = 1024.0, 2, 8_000_000
#: Several piles since the last public source: 1, the chains with the rejection step where the
#: joint programme exceeds its limits; 0, the joint programme alone; 2, the chains alone (tests).
MULTI_PILE_SEATS = 1
#: A pile fed by hands thrown away face down (``reveal_round_end_discards=False``, then a
#: reshuffle): counted by the joint programme alone, within this share of the limits (0: not
#: counted, the replay serves; session 20; :mod:`.hidden_fed` says how).
FED_PILES = 2.0
FED_CLASSES = 13
#: ... at two players, where it fits far more often (``docs/cubirds_determinize.md``, session 33).
FED_DUEL_PILES = 128.0
FED_DUEL_CLASSES = 40
#: Several piles: every card in the chains weighs what its pile held of its species (False: one
#: tilt per species on open cards; measured to keep fewer proposals).
PILE_TILT = True
#: Several piles: one seat's only box in a pile drawn to its end is set to what the other seats
#: left of that pile, with the matching weight (:mod:`.hidden_pin`); False: left to chance.
PIN_BOX = True
#: Several piles: the boxes drawn from a pile drawn to its end pinned together to a split of it
#: (:class:`.hidden_pin.PinnedPile`, :mod:`.hidden_group`) before the single pin; False: not.
PIN_PILE = True
#: One pile: where a pilot run keeps fewer than ``MIN_KEPT`` of its proposals, the pile is split
#: among the seats and what is left of it (:mod:`.hidden_group`, session 14); where that does
#: not fit and the chains serve alone, some seats and what is left as a tail (session 28).
ONE_PILE_PIN = ONE_PILE_TAIL = True
#: Several piles, where no pile's split fits ``hidden_pin.PILE_STEPS``: if a pilot run (fixed
#: seed) of ``RARE_DRAWS`` proposals keeps fewer than ``WIDE_KEPT``, the splits are tried again
#: within ``WIDE_PILE_STEPS`` (0: never; session 16; not at one pile or a fed last pile).
WIDE_PILE_STEPS = 6_000_000
WIDE_KEPT = 3
#: Several piles, where more than one pile can be pinned whole: if a pilot run (fixed seed) of
#: ``CHOICE_DRAWS`` proposals with the first one pinned keeps fewer than ``CHOICE_KEPT``, the
#: others are tried (``hidden_reject.Rejection._pin_best``; 0: the first alone; session 19).
CHOICE_DRAWS = 32
CHOICE_KEPT = 3
#: Several piles, the last one not split among its seats: where a pilot run of ``RARE_DRAWS``
#: proposals keeps fewer than ``TAIL_KEPT``, the seats drawing only from the last pile and what
#: is left of it are drawn last, together (:mod:`.hidden_tail`; 0: never; session 16).
TAIL_KEPT = 8
#: Several piles: no box holds more of a species than its pile held (off: measured dearer).
CAP_BOXES = False
#: Several piles: a box drawn alone from a pile drawn to its end holds that pile's content;
#: its chain knows it (the box capped at what the pile held: nothing else fits its size).
CAP_SOLE_BOXES = True

SPECIES = range(NUM_SPECIES)

#: The settings a build reads, by module (None: this one), in its key in ``_BUILT``.
_SETTINGS = (
    (None, "MIN_KEPT PILOT_DRAWS JOINT_CLASSES JOINT_SHARE MULTI_JOINT_SHARE MULTI_JOINT_CLASSES"),
    (None, "MULTI_PILE_SEATS FED_PILES FED_CLASSES FED_DUEL_PILES FED_DUEL_CLASSES PILE_TILT"),
    (None, "PIN_BOX PIN_PILE ONE_PILE_PIN CAP_BOXES CAP_SOLE_BOXES WIDE_PILE_STEPS WIDE_KEPT"),
    (None, "ONE_RARE_FIRST ONE_RARE_KEPT ONE_RARE_SHARE ONE_RARE_CLASSES FEW_KEPT FEW_CLASSES"),
    (None, "CHOICE_DRAWS CHOICE_KEPT TAIL_KEPT RARE_DRAWS RARE_KEPT RARE_JOINT_SHARE RARE_CLASSES"),
    (None, "LEVELS_SHARE LEVELS_FIRST LEVELS_FIRST_CLASSES ONE_PILE_TAIL"),
    (None, "LAST_JOINT_SHARE LAST_KEPT LAST_GROUP_STEPS"),
    (hidden_fed, "FED_SEATS FED_KEPT FED_GROUP_STEPS FED_DUEL_GROUP_STEPS FED_SOLE"),
    (hidden_pin, "PILE_STEPS GRID_CELLS GRID_PAIRS GRID_SPARSITY"),
    (hidden_group, "GROUPS LAST_PILE REST_CONTENTS GROUP_STEPS"),
    (hidden_count, "TIGHT_BOUNDS GREEDY_ORDER NEEDS HOPELESS"),
    (hidden_batch, "BATCH BATCH_BELOW SEVERAL_PILES"),
    (hidden_reject, "DRAW_ORDER"),
)


#: ``_SETTINGS`` as (module or None, name) pairs, split once.
_SETTING_NAMES = [(module, name) for module, names in _SETTINGS for name in names.split()]


def _settings() -> tuple:
    here = globals()
    return tuple(
        here[name] if module is None else getattr(module, name) for module, name in _SETTING_NAMES
    )


#: What the last builds prepared, by :meth:`ExactModel._key`: (fits, the attributes set). A
#: seat's next decision often finds the counts of its last one unchanged (its own lays and
#: captures change nothing it counts), and a joint programme that exceeds its limits is then
#: not tried again. A function of the key alone, so a model from here samples like a fresh one.
_BUILT: dict[tuple, tuple[bool, dict]] = {}
BUILT_KEPT = 64
_SHARED = """limits seats joint joint_tried tilt log_h log_top closed spent pin pile_pin
    tail most_taken fed_last batch draw_order""".split()


class ExactModel(Rejection):
    """One seat's view of a log, as segments and linear conditions, and (after :meth:`build`)
    the world counts to sample from.

    Intervals: per other seat and species, the stretch between two of its lays (or flocks) of
    that species, or from its last one to now (open, ``req = -1``)."""

    group_steps: int | None = None  # (the groups' limit: ``LAST_GROUP_STEPS`` once tried)

    def __init__(self, log: list[tuple], player: int, num_players: int) -> None:
        self.player = player
        self.num_players = num_players
        self.iv_seat: list[int] = []
        self.iv_species: list[int] = []
        self.iv_req: list[int] = []
        self.iv_segs: list[list[int]] = []
        self.seg_size: list[int] = []
        self.seg_pile: list[int] = []
        self.seg_ivs: list[tuple[int, ...]] = []
        self.seg_batches: list[list[tuple[int, int]]] = []
        #: Per pile: tag, public content, cards known to leave it (public and own draws).
        self.piles: list[dict] = []
        self.open: list[list[int] | None] = [None] * num_players
        self._cur: list[int | None] = [None] * num_players
        #: Face-down round ends read so far: (log index, per seat the intervals its thrown-away
        #: hand closed (``None`` for ``player``), ``player``'s own thrown-away cards).
        self.round_ends: list[tuple[int, list, tuple]] = []
        self._thrown: list[tuple] = []  # since the current pile: (ended, own, size)
        for q in range(num_players):
            self._fresh(q)
        for i, ev in enumerate(log):
            self._read(i, ev)
        self.tables: list[dict] | None = None

    # -- reading the log ------------------------------------------------------------------------

    def _fresh(self, q: int) -> None:
        if q == self.player:
            return
        self.open[q] = [self._interval(q, s) for s in SPECIES]
        self._cur[q] = None

    def _read(self, i: int, ev: tuple) -> None:
        tag = ev[0]
        if tag == EV_SOURCE or tag == EV_RESHUFFLE:
            self.piles.append(hidden_fed.new_pile(self, i, tag, ev[1], FED_PILES))
            self._cur = [None] * self.num_players
        elif tag == EV_PUBLIC:
            self.piles[-1]["known"][ev[1]] += 1
        elif tag == EV_BATCH:
            self._read_batch(i, ev[1], ev[2])
        elif tag == EV_CLOSE:
            q, s = ev[1], ev[2]
            if q != self.player:
                iv = self.open[q][s]
                self.iv_req[iv] = ev[3]
                self._new_open(q, s)
                self._cur[q] = None
        elif tag == EV_ROUND_END:
            hidden_fed.round_end(self, i, ev)
        else:
            raise ValueError(f"unknown log event {ev!r}")

    def _new_open(self, q: int, s: int) -> None:
        self.open[q][s] = self._interval(q, s)

    def _interval(self, q: int, s: int) -> int:
        """A new open interval of seat ``q`` and species ``s``: its index."""
        self.iv_seat.append(q)
        self.iv_species.append(s)
        self.iv_req.append(-1)
        self.iv_segs.append([])
        return len(self.iv_req) - 1

    def _read_batch(self, i: int, q: int, counts: tuple) -> None:
        pile = self.piles[-1]
        if q == self.player:
            for s in SPECIES:
                pile["known"][s] += counts[s]
            return
        k = sum(counts)
        if not k:
            return
        g = self._cur[q]
        if g is None:
            g = len(self.seg_size)
            self.seg_size.append(0)
            self.seg_pile.append(len(self.piles) - 1)
            self.seg_ivs.append(tuple(self.open[q]))
            self.seg_batches.append([])
            for iv in self.open[q]:
                self.iv_segs[iv].append(g)
            self._cur[q] = g
        self.seg_size[g] += k
        self.seg_batches[g].append((i, k))

    # -- counting -------------------------------------------------------------------------------

    def _boxes(self) -> None:
        """The boxes cards are dealt into: every segment, then what is left of the current pile
        (the draw pile); per box its pile, size and per species its label (a closed interval's
        index, or ``-1 - pile`` when nothing but its pile constrains it)."""
        last = len(self.piles) - 1
        self.avail = [[p["public"][s] - p["known"][s] for s in SPECIES] for p in self.piles]
        rest = (
            sum(self.avail[last])
            + self.piles[last]["fed"]
            - sum(k for k, j in zip(self.seg_size, self.seg_pile) if j == last)
        )
        # (a pile fed by thrown-away hands may show more of a species than its public part)
        if rest < 0 or any(
            a < 0 for p, row in zip(self.piles, self.avail) if not p["feeds"] for a in row
        ):
            raise ValueError("the log takes more cards from a pile than it holds")
        self.box_pile = [*self.seg_pile, last]
        self.box_size = [*self.seg_size, rest]
        fed = hidden_fed.fed_intervals(self.piles)  # (their own labels: they feed a pile)
        labels = []
        for g, ivs in enumerate(self.seg_ivs):
            j = self.seg_pile[g]
            labels.append(tuple(iv if self.iv_req[iv] >= 0 or iv in fed else -1 - j for iv in ivs))
        labels.append(tuple(-1 - last for _ in SPECIES))
        self.box_label = labels

    def build(self, max_states: int = MAX_STATES, max_options: int = MAX_OPTIONS) -> bool:
        """Prepare the counts (see the module docstring); False when they would exceed their
        limits (the caller then uses another sampler)."""
        for iv, req in enumerate(self.iv_req):
            if req > 0 and not self.iv_segs[iv]:
                raise ValueError(f"interval {iv} needs {req} hidden cards but has no draws")
        self._boxes()
        used = set(self.box_pile)
        for j, row in enumerate(self.avail):
            if j not in used and any(row) and not self.piles[j]["feeds"]:
                raise ValueError(f"pile {j} keeps cards that nobody drew")
        key = self._key(max_states, max_options)
        got = _BUILT.get(key)
        if got is not None:  # the same counts were prepared at an earlier position
            self.__dict__.update(got[1])
            self._partial_joint = (None, 0.0)  # (a joint tried later starts afresh)
            return got[0]
        ok = self._build(max_states, max_options)
        self.samplers_for(ok)
        self._partial_joint = (None, 0.0)  # (its tables are not needed after the build)
        _BUILT[key] = (ok, {name: getattr(self, name) for name in _SHARED if hasattr(self, name)})
        if len(_BUILT) > BUILT_KEPT:
            del _BUILT[next(iter(_BUILT))]
        return ok

    def _key(self, max_states: int, max_options: int) -> tuple:
        """Everything :meth:`_build` reads (the boxes and their seats, the intervals, the
        piles, the limits and the settings), so that equal keys prepare equal counts."""
        seat = tuple(self._seat(g) for g in range(len(self.seg_size)))
        return (
            self.player,
            self.num_players,
            tuple(self.box_size),
            tuple(self.box_pile),
            tuple(self.box_label),
            seat,
            tuple(self.iv_req),
            tuple(self.iv_species),
            tuple(tuple(row) for row in self.avail),
            tuple(
                (p["fed"], tuple(p["known"]), *map(frozenset, p["feeds"] or ())) for p in self.piles
            ),
            len(self.piles),
            max_states,
            max_options,
            *_settings(),
        )

    def _build(self, max_states: int, max_options: int) -> bool:
        self.limits = (max_states, max_options)
        self.seats: list[tuple[list[int], Programme]] | None = None
        self.joint: Programme | None = None
        self.joint_tried = False
        self._partial_joint: tuple[Programme | None, float] = (None, 0.0)
        self.fed_last = None
        if len(self.piles) > 1:
            return self._build_several()
        if self.box_size[-1] == 0 and self._build_joint():  # nothing left: as before session 22
            return True
        seats = self._build_seats()
        # One seeded pilot answers both questions below (session 23: it ran twice).
        enough = bool(seats) and self._keeps_enough()
        if seats and ONE_PILE_PIN and not enough:
            # The rejection keeps few (nothing left, since session 22, too): the pile split.
            candidates = hidden_group.pile_candidates(
                self.seats, self.box_pile, self.avail, self.box_size[-1], self.tilt
            )
            self._pin_pile(next(candidates, None))
        if seats and (MIN_KEPT <= 0 or self.pile_pin is not None or enough):
            return True
        # With the chains at hand: a share of the limits; past JOINT_CLASSES the larger try alone.
        share = JOINT_SHARE if seats else 1
        many = seats and self._classes() > JOINT_CLASSES
        if many and self._classes() > ONE_RARE_CLASSES:
            return not ONE_PILE_TAIL or hidden_tail.one_pile(self)
        if (not many and self._build_joint(share)) or (
            seats
            and ONE_RARE_SHARE > share
            and self.pilot <= ONE_RARE_FIRST  # (kept by the first pilot: _keeps_enough)
            and not self._keeps_enough(RARE_DRAWS, ONE_RARE_KEPT)
            and self._build_joint(ONE_RARE_SHARE)  # (going on from what it counted)
        ):
            self.seats = None
            return True
        return seats and (not ONE_PILE_TAIL or hidden_tail.one_pile(self))

    def _build_several(self) -> bool:
        """Several piles: the joint programme when it fits, else the chains with the rejection
        step (each pile drawn to its end must come out exactly; a fed pile: ``FED_PILES``, then
        the chains if it is the last and only fed one, :class:`.hidden_fed.FedLast`)."""
        fed = any(p["feeds"] for p in self.piles)
        if fed:
            duel = self.num_players == 2
            share, most = (FED_DUEL_PILES, FED_DUEL_CLASSES) if duel else (FED_PILES, FED_CLASSES)
            if self._classes() <= most and self._build_joint(share):
                return True
            chains = self.num_players <= hidden_fed.FED_SEATS and PILE_TILT
            if not (chains and hidden_fed.only_last_fed(self.piles)):
                return False
        small = MULTI_PILE_SEATS == 0 or self._classes() <= MULTI_JOINT_CLASSES
        if MULTI_PILE_SEATS < 2 and small and not fed and self._build_joint(MULTI_JOINT_SHARE):
            return True
        if not (MULTI_PILE_SEATS > 0 and self._build_seats()):
            return False
        if fed and hidden_fed.FED_KEPT and not self._keeps_enough(RARE_DRAWS, hidden_fed.FED_KEPT):
            return False
        if PIN_PILE and self.pile_pin is None and WIDE_PILE_STEPS and not fed:
            self._widen(RARE_DRAWS, WIDE_KEPT, WIDE_PILE_STEPS)
        last = len(self.piles) - 1
        self.tail = None
        if (
            TAIL_KEPT
            and not fed
            and (self.pile_pin is None or self.pile_pin.index != last)
            and not self._keeps_enough(RARE_DRAWS, TAIL_KEPT)
        ):
            # The rejection keeps few: the seats drawing only from the last pile, and what is
            # left of it, take together what the others left (:mod:`.hidden_tail`).
            busy = set() if self.pile_pin is None else set(self.pile_pin.places)
            if self.pin is not None:
                busy.add(len(self.seats) - 1)  # the pinned seat, drawn last
            self.tail = hidden_tail.choose_tail(
                self.seats, self.box_pile, self.avail, self.box_size[-1], busy
            )
        if (
            MULTI_PILE_SEATS == 1
            and RARE_JOINT_SHARE
            and self._classes() <= RARE_CLASSES
            and not self._keeps_enough(
                RARE_DRAWS, FEW_KEPT if self._classes() <= FEW_CLASSES else RARE_KEPT
            )
        ):
            # The joint programme again, larger (going on from what it counted).
            if self._build_joint(RARE_JOINT_SHARE):
                self.seats = None
        again = LAST_JOINT_SHARE and MULTI_PILE_SEATS == 1 and not fed and self.seats is not None
        if again and self._pilot_kept(RARE_DRAWS, LAST_KEPT) < LAST_KEPT:
            if self._build_joint(LAST_JOINT_SHARE):  # (the rejection keeps almost nothing)
                self.seats = None
            elif LAST_GROUP_STEPS and getattr(self.pile_pin, "index", last) == last:
                self.group_steps = LAST_GROUP_STEPS  # (the chains again: their counts are kept)
                self._build_seats()
        return True

    def _group_steps(self) -> int | None:
        return self.group_steps if self.fed_last is None else hidden_fed.group_steps(self)

    def _classes(self) -> int:
        """The boxes that the joint programme's first level tells apart (by pile and label)."""
        return len({(j, *lab) for j, lab in zip(self.box_pile, self.box_label)})

    def _build_joint(self, share: float = 1) -> bool:
        """One programme over every box, the piles' contents as conditions, within ``share`` of
        the limits in all (one past a smaller share goes on from what it counted)."""
        self.joint_tried = True
        joint, spent = self._partial_joint
        if joint is None:
            fed = {j: (p["known"], p["feeds"]) for j, p in enumerate(self.piles) if p["feeds"]}
            joint = Programme(
                self.box_size, self.box_pile, self.box_label, self.iv_req, self.avail, feeds=fed
            )
        if share <= spent:
            return False
        if share >= LEVELS_SHARE and not hidden_count.NEEDS:
            # Every state of a level at once (hidden_levels), from scratch: the same counts;
            # small programmes depth first before, within LEVELS_FIRST of the limits (cheaper).
            first = joint._partial is None and self._classes() < LEVELS_FIRST_CLASSES
            ok = first and joint.build(*(int(v * LEVELS_FIRST) for v in self.limits))
            ok = ok or joint.build_levels(*(int(v * share) for v in self.limits))
        else:
            limits = (int(limit * (share - spent)) for limit in self.limits)
            ok = joint.build(*limits, hopeless=hidden_count.HOPELESS)
        if not ok:
            self._partial_joint = (joint, share)
            return False
        self._partial_joint = (None, 0.0)
        if not joint.total > 0.0:
            raise ValueError("no world agrees with the log")
        self.joint = joint
        return True

    def _build_seats(self) -> bool:
        """One draw pile: a programme per other seat, each card of species ``s`` it draws in
        an open interval weighted by ``tilt[s]`` (what is left of ``s`` in the pile once the
        closed intervals took theirs) instead of the pile's condition, which a rejection step
        restores (:meth:`_sample_seats`)."""
        self.closed = [0] * NUM_SPECIES
        for iv, req in enumerate(self.iv_req):
            if req > 0:
                self.closed[self.iv_species[iv]] += req
        #: Per species, what the piles drawn to their end held of it (the seats took it all).
        self.spent = [sum(row[s] for row in self.avail[:-1]) for s in SPECIES]
        left = [a + e - c for a, e, c in zip(self.avail[-1], self.spent, self.closed)]
        if min(left) < 0:
            raise ValueError("the lays and flocks took more cards than the piles held")
        return self._seat_programmes([float(v) for v in left])

    def _keeps_enough(self, draws: int = PILOT_DRAWS, need: int = 0) -> bool:
        """Whether the rejection step keeps at least ``need`` (default: ``MIN_KEPT`` of them)
        of ``draws`` proposals (a fixed seed, so that the choice of sampler is a function of
        the seat's information). The run stops as soon as the answer is known."""
        need = need or math.ceil(MIN_KEPT * draws)
        self.pilot = self._pilot_kept(draws, need, give_up=True)  # (read by _build)
        return self.pilot >= need

    def _seat_programmes(self, tilt: list[float]) -> bool:
        """The programmes of every other seat with this tilt, and the rejection step's bound:
        the largest sum over species of ``log h_s(T_s)`` with ``sum(T)`` = the cards all other
        seats drew (a knapsack over species; ``T_s`` is at least what the closed intervals of
        ``s`` took)."""
        self.tilt = tilt
        avail = self.avail[-1]
        drawn = sum(avail) - self.box_size[-1]
        #: Per species, the most cards of it the seats can take from all the piles: a proposal
        #: past it is turned down whatever the seats still to draw take (``_sample_seats``).
        self.most_taken = [sum(row[s] for row in self.avail) for s in SPECIES]
        box_tilt = None
        if len(self.piles) > 1 and PILE_TILT:
            # Every card weighs what its pile held of its species: the emptied piles' weight
            # is then the same for every accepted proposal, and the last pile's is in h_s.
            box_tilt = [[float(v) for v in self.avail[j]] for j in self.box_pile]
            self.tilt = tilt = [float(v) for v in avail]
            self.closed = [0] * NUM_SPECIES
            self.spent = [0] * NUM_SPECIES
            lows = [max(c - e, 0) for c, e in zip(self._closed_all(), self._spent_all())]
            if self.piles[-1]["feeds"]:  # (the last pile's factor: see hidden_fed.FedLast)
                self.fed_last = hidden_fed.FedLast(self, lows, box_tilt)
                self.most_taken = [m + f for m, f in zip(self.most_taken, self.fed_last.most)]
        else:
            lows = [max(c - e, 0) for c, e in zip(self.closed, self.spent)]
        #: Per species, ``log h_s(t)`` for every ``t`` (of ``s`` taken from the last pile).
        self.log_h = [self._log_h_row(s) for s in SPECIES]
        if self.fed_last is None:
            self.log_top = knapsack_top(self.log_h, lows, [min(a, drawn) for a in avail], drawn)
        else:
            self.log_top = self.fed_last.log_top
        seats, hidden_group._GROUPS = [], {}  # (the groups kept serve one build: its chains)
        for q in range(self.num_players):
            boxes = [g for g in range(len(self.seg_size)) if self.open[q] and self._seat(g) == q]
            if not boxes:
                continue
            prog = SeatChain(
                [self.box_size[g] for g in boxes],
                [self.box_label[g] for g in boxes],
                self.iv_req,
                tilt,
                None if box_tilt is None else [box_tilt[g] for g in boxes],
                self._caps(boxes) if box_tilt else None,
            )
            if not prog.build() or not prog.total > 0.0:
                return False
            seats.append((boxes, prog))
        self.seats = seats
        if self.fed_last is not None:  # its bound over what the chains can reach (session 28)
            self.fed_last.tighten(seats, self.box_pile)
        self.pin = self.pile_pin = self.tail = None
        if len(self.piles) > 1 and PIN_PILE:
            rest, steps = self._pin_rest(), self._group_steps()
            sole = self.fed_last is not None and hidden_fed.FED_SOLE
            # A copy: pinning reorders ``seats``, while the candidates still to come are made.
            found = hidden_group.pile_candidates(
                seats[:], self.box_pile, self.avail, rest, group_steps=steps, sole=sole
            )
            self._pin_best(found, CHOICE_DRAWS, CHOICE_KEPT)
        if self.pile_pin is None and len(self.piles) > 1 and PIN_BOX:
            self.pin = hidden_pin.choose(seats, self.box_pile, self.box_size, self.avail)
            if self.pin is not None:  # the pinned seat is drawn last
                seats.append(seats.pop(self.pin[0]))
        return True

    def _caps(self, boxes: list[int]) -> list[list[int] | None] | None:
        """Per box its cap (what its pile held; None: none): every box with ``CAP_BOXES``,
        else only a box drawn alone from a pile drawn to its end, whose content is then that
        pile's (``CAP_SOLE_BOXES``)."""
        if CAP_BOXES:
            return [self.avail[self.box_pile[g]] for g in boxes]
        if not CAP_SOLE_BOXES:
            return None
        last = len(self.piles) - 1
        drawn = [0] * len(self.piles)
        for j in self.box_pile[:-1]:
            drawn[j] += 1
        caps = [
            self.avail[self.box_pile[g]]
            if self.box_pile[g] < last and drawn[self.box_pile[g]] == 1
            else None
            for g in boxes
        ]
        return caps if any(cap is not None for cap in caps) else None

    def _closed_all(self) -> list[int]:
        out = [0] * NUM_SPECIES
        for iv, req in enumerate(self.iv_req):
            if req > 0:
                out[self.iv_species[iv]] += req
        return out

    def _spent_all(self) -> list[int]:
        return [sum(row[s] for row in self.avail[:-1]) for s in SPECIES]

    def _seat(self, g: int) -> int:
        return self.iv_seat[self.seg_ivs[g][0]]

    def sample_counts(self, rng: np.random.Generator) -> list[list[int]] | None:
        """Per box (segments, then the draw pile) its cards per species, in one world; None
        when the rejection step kept nothing in ``REJECT_TRIES`` rounds and the joint programme
        exceeds its limits."""
        if self.seats is not None:
            x = self.first_kept(rng, REJECT_TRIES)
            if x is not None:
                return x
            if self.joint is None and (self.joint_tried or not self._build_joint()):
                return None
        return self.joint.sample_counts(rng)

    def sample(self, rng: np.random.Generator) -> tuple | None:
        """One world, in the shape of the replay's result: ``(hidden, avail, pending,
        source_own, batches, leftovers)`` (see :mod:`cardzoo.envs.cubirds.hidden_replay`), or
        None (see :meth:`sample_counts`)."""
        x = self.sample_counts(rng)
        if x is None:
            return None
        n = self.num_players
        iv_total = [0] * len(self.iv_req)
        batches: dict[int, tuple[int, ...]] = {}
        for g, ivs in enumerate(self.seg_ivs):
            counts = x[g]
            for s in SPECIES:
                iv_total[ivs[s]] += counts[s]
            left = counts[:]
            for i, k in self.seg_batches[g]:
                if k == sum(left):
                    part = left
                else:
                    part = draw_counts(left, k, rng)
                batches[i] = tuple(part)
                left = [a - b for a, b in zip(left, part)]
        hidden = [
            None if q == self.player else [iv_total[iv] for iv in self.open[q]] for q in range(n)
        ]
        # Per seat its thrown-away cards in the discard pile (since the current pile was made)
        # and in the current pile (thrown while the pile before it was drawn, if they fed it).
        thrown = [[0] * NUM_SPECIES for _ in range(n)]
        source = [[0] * NUM_SPECIES for _ in range(n)]
        start = [p["at"] for p in self.piles[-2:]] if self.piles[-1]["feeds"] else [-1, -1]
        leftovers = {}
        for i, ended, own in self.round_ends:
            left = [
                own if q == self.player else tuple(iv_total[iv] for iv in ended[q])
                for q in range(n)
            ]
            into = thrown if i > self.piles[-1]["at"] else source if i > start[0] else None
            for q in range(n) if into is not None else ():
                into[q] = [a + b for a, b in zip(into[q], left[q])]
            leftovers[i] = tuple(left)
        return hidden, x[-1], thrown, source, batches, leftovers
