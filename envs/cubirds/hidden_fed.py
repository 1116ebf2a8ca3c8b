"""Piles made of hands thrown away face down, for Cubirds' exact ``determinize``
(:mod:`.hidden_exact`; ``reveal_round_end_discards=False``; session 20).

At a face-down round end every other seat throws its hidden hand away: per species, the total
of its interval of that species still open then. A reshuffle later turns the discard pile into
the draw pile, so that pile holds its public discards, the seat's own thrown-away cards and
those hidden hands. Its content per species is therefore a constant plus a sum of interval
totals: a linear condition in one species, like every other condition of the model. Two things
change in the count (:class:`.hidden_count.Programme`, ``feeds``):

- the pile's condition: its boxes (and what is left of it, if it is the current pile) hold
  exactly that content less the cards the seat saw leave it, which now grows with what the
  feeding intervals' boxes hold (they lie in earlier piles, so they are chosen first);
- its weight: a pile's uniformly random order contributes ``prod_s C[s]!`` (``C``: its whole
  content), a constant while ``C`` is public, not here.

Both stay within one species, so the programme counts them level by level as before, within
``hidden_exact.FED_PILES`` times its limits and ``hidden_exact.FED_CLASSES`` classes (at two
players ``FED_DUEL_PILES`` and ``FED_DUEL_CLASSES``; since session 33 its large tries count
every state of a level at once, :mod:`.hidden_levels`, as the other joint counts' do). Where it
does not fit and the current pile is the only fed one, the per-seat chains with the rejection
step serve at 2 and 3 players (:class:`FedLast`, session 21; since session 28 its bound only
over what the chains can reach, :meth:`FedLast.tighten`); otherwise the replay (inexact).
Exactness is checked against a brute-force reference that shuffles such a pile whole
(``tests/cubirds/test_cubirds_exact_posterior.py::test_a_pile_made_of_thrown_away_hands_is_sampled_exactly``,
both ways).
"""

from __future__ import annotations

import math

import numpy as np
from cardzoo.envs.cubirds.data import EV_SOURCE, NUM_SPECIES
from cardzoo.envs.cubirds.hidden_count import TooLarge

SPECIES = range(NUM_SPECIES)

#: Where the joint programme does not fit and only the current pile is fed: the chains with the
#: rejection step (:class:`FedLast`, session 21) at up to this many players (0: never, the
#: replay serves). At 4 and 5 players few such positions are served and every first call pays
#: for trying (``docs/cubirds_determinize.md``) ...
FED_SEATS = 3
#: ... unless a pilot run (fixed seed) keeps fewer than this many of
#: ``hidden_exact.RARE_DRAWS`` proposals (most such positions keep none: a pile drawn to its end
#: was not pinned, and a call would spend ``REJECT_TRIES`` proposals on nothing; 0: no pilot).
FED_KEPT = 2
#: The groups' limit when the pile drawn before is pinned whole: with face-down discards that
#: pile spans every round before the reshuffle, and many of its splits do not fit at any limit
#: that pays (``docs/cubirds_determinize.md``). 30,000 in sessions 21-27; 150,000 (as
#: ``hidden_group.GROUP_STEPS``) since session 28, when the bound's tightening
#: (:meth:`FedLast.tighten`) made the pinned positions keep enough.
FED_GROUP_STEPS = 150_000
#: ... and at two players, where a single seat's boxes make the group (``FED_SOLE``). Along
#: face-down seeds 100-119, calls left to the replay 6.6 % at 150,000, 6.0 % at 300,000, 5.6 %
#: at 2,000,000, the process's peak 221 / 230 / 671 MB (8.6 % before the pin; session 39).
FED_DUEL_GROUP_STEPS = 300_000
#: A pile before the fed one that a single seat drew to its end through several boxes is
#: pinned whole too (its boxes drawn given that content, :func:`.hidden_group.pile_candidates`'
#: ``sole``); False: only piles drawn from by two seats or more (before session 39). At two
#: players this is the usual shape: the only other seat drew every card seat 0 did not see.
FED_SOLE = True


def group_steps(model) -> int:
    """The groups' limit where the last pile is fed: ``FED_DUEL_GROUP_STEPS`` at two players,
    else ``FED_GROUP_STEPS``."""
    return FED_DUEL_GROUP_STEPS if model.num_players == 2 else FED_GROUP_STEPS


def round_end(model, i: int, ev: tuple) -> None:
    """Hands thrown away face down (``ev``: the round end at log index ``i``): every other
    seat's intervals end there with whatever they hold (no requirement: they stay open, ``req =
    -1``, and their cards weigh like any open card) and its next hand starts fresh ones. The
    thrown-away cards feed the next pile if a reshuffle makes one (:func:`new_pile`); the
    others' thrown cards are read for their number only (public: the hands' sizes)."""
    own = tuple(ev[1][model.player])
    ended: list[list[int] | None] = [None] * model.num_players
    for q in range(model.num_players):
        if q != model.player:
            ended[q] = list(model.open[q])
            model._fresh(q)
    model.round_ends.append((i, ended, own))
    size = sum(sum(h) for q, h in enumerate(ev[1]) if q != model.player)
    model._thrown.append((ended, own, size))


def new_pile(model, i: int, tag: int, public: tuple, allowed: float) -> dict:
    """A new pile (a source or a reshuffle with these ``public`` cards, at log index ``i``):
    its tag, where it starts, its content
    (``public``, with the seat's own thrown-away cards), the cards seen to leave it (none yet),
    per species the intervals whose totals it also holds (``feeds``, None: none) and how many
    cards those are (``fed``). TooLarge where hands thrown away face down would feed a source,
    or any pile when ``allowed`` is 0."""
    thrown, model._thrown = model._thrown, []
    content, feeds = list(public), None
    if thrown:
        if tag == EV_SOURCE or not allowed:
            raise TooLarge("face-down round-end discards in a reshuffled pile")
        feeds = [{iv[s] for ended, _, _ in thrown for iv in ended if iv} for s in range(8)]
        content = [c + sum(own[s] for _, own, _ in thrown) for s, c in enumerate(content)]
    fed = sum(size for _, _, size in thrown)
    known = [0] * NUM_SPECIES
    return {"tag": tag, "at": i, "public": content, "known": known, "feeds": feeds, "fed": fed}


def fed_intervals(piles: list[dict]) -> set[int]:
    """The intervals whose totals some pile holds (they keep their own label in the boxes)."""
    return {iv for p in piles if p["feeds"] for ivs in p["feeds"] for iv in ivs}


def only_last_fed(piles: list[dict]) -> bool:
    """Whether the current pile is the only one fed by thrown-away hands (the per-seat chains
    then serve too, :class:`FedLast`)."""
    return bool(piles[-1]["feeds"]) and not any(p["feeds"] for p in piles[:-1])


class FedLast:
    """The current pile's factor in the rejection step where thrown-away hands fed it (session
    21; the piles before it are not fed).

    Per species, with ``F`` the fed intervals' cards (the others' hands thrown away before the
    reshuffle), ``t`` the cards the other seats drew from the pile and ``C = base + F`` its
    content, the pile weighs ``C! / r!`` (``r = C - known - t``: what is left of it). The
    chains weigh each card drawn from the pile ``w[s]`` and each card of a fed interval
    ``u[s]`` on top of its own pile's weight, so a proposal is kept with probability
    ``prod_s h_s(t, F) / max``, ``h_s = C! / r! / (w**t * u**F)``: the maximum over every
    ``(t, F)`` with the right totals (both are fixed: the cards drawn from the pile and the
    thrown hands' sizes are public), a knapsack over species in two dimensions. Any positive
    ``w`` and ``u`` are exact; they are set near the expected content so that ``h`` is flat
    and the bound is tight."""

    def __init__(self, model, lows: list[int], box_tilt: list[list[float]]) -> None:
        last = len(model.piles) - 1
        pile = model.piles[last]
        self.avail = avail = model.avail[last]  # its public content less what left it
        fed = pile["fed"]
        #: Per species, the most cards of it the thrown hands can have held: every hidden card
        #: came from an earlier pile.
        self.most = most = [min(fed, sum(row[s] for row in model.avail[:-1])) for s in SPECIES]
        drawn = sum(avail) + fed - model.box_size[-1]
        feeds = pile["feeds"]
        self.cells = [
            (g, s)
            for g, lab in enumerate(model.box_label[:-1])
            for s in SPECIES
            if lab[s] in feeds[s]
        ]
        share = [fed * m / (sum(most) or 1) for m in most]  # the thrown cards spread as held
        w = [max(a + f, 0.5) if a + m > 0 else 0.0 for a, f, m in zip(avail, share, most)]
        u = []
        for s in SPECIES:
            content = pile["public"][s] + share[s]
            left = max(avail[s] + share[s] - drawn * w[s] / (sum(w) or 1.0), 0.0)
            u.append((content + 0.5) / (left + 0.5))  # about d log(C! / r!) / dF
        self.tilts = (w, u)
        self.seen: list | None = None  # (with a list: what the proposals gave, for the tests)
        for g, row in enumerate(box_tilt):
            if model.box_pile[g] == last:
                row[:] = w
        for g, s in self.cells:
            box_tilt[g][s] *= u[s]
        self.h = [
            [
                [
                    self._log_h(pile["public"][s], avail[s], t, f, w[s], u[s])
                    for f in range(most[s] + 1)
                ]
                for t in range(max(min(drawn, avail[s] + most[s]) + 1, 0))
            ]
            for s in SPECIES
        ]
        for s in SPECIES:
            for t in range(min(lows[s], len(self.h[s]))):
                self.h[s][t] = [-math.inf] * (most[s] + 1)
        self.drawn, self.fed = drawn, fed
        self.log_top = self._bound(drawn, fed)

    @staticmethod
    def _log_h(base: int, avail: int, t: int, f: int, w: float, u: float) -> float:
        left = avail + f - t
        if left < 0 or (t and not w):
            return -math.inf
        tilt = (t * math.log(w) if t else 0.0) + f * math.log(u)
        return math.lgamma(base + f + 1) - math.lgamma(left + 1) - tilt

    def _bound(self, drawn: int, fed: int) -> float:
        """The largest ``sum_s log h_s(t_s, F_s)`` with ``sum t = drawn`` and ``sum F = fed``."""
        best = np.full((drawn + 1, fed + 1), -np.inf)
        best[0, 0] = 0.0
        for rows in self.h:
            new = np.full_like(best, -np.inf)
            for t, row in enumerate(rows[: drawn + 1]):
                for f, v in enumerate(row[: fed + 1]):
                    if v > -math.inf:
                        np.maximum(
                            new[t:, f:], best[: drawn + 1 - t, : fed + 1 - f] + v, out=new[t:, f:]
                        )
            best = new
        top = float(best[drawn, fed])
        if top == -math.inf:
            raise ValueError("no world agrees with the log (the fed pile's bound)")
        return top

    def tighten(self, seats: list, box_pile: list[int]) -> None:
        """The bound over what the proposals can reach (session 28): per species, ``t`` and
        ``F`` lie between the sums of the seats' least and most (:func:`reach`, over each
        chain's fillings of positive weight), so ``h`` is set to -inf outside and the knapsack
        made again. At three-player positions along seeded games the bound over every ``(t,
        F)`` stood 5-8 nats above any proposal's, keeping 0-1 of 2,000."""
        last = max(box_pile)  # (the current pile: what is left of it is the last box)
        self.loose_top = self.log_top  # (the bound before: for the tests)
        cells: dict[int, set[int]] = {}
        for g, s in self.cells:
            cells.setdefault(g, set()).add(s)
        t_lo, t_hi, f_lo, f_hi = ([0] * NUM_SPECIES for _ in range(4))
        for boxes, prog in seats:
            steps = boxes[::-1]  # (the chain counts its boxes in reverse)
            for counted, lo, hi in (
                ([set(SPECIES) if box_pile[g] == last else set() for g in steps], t_lo, t_hi),
                ([cells.get(g, set()) for g in steps], f_lo, f_hi),
            ):
                least, most = reach(prog, counted)
                for s in SPECIES:
                    lo[s] += least[s]
                    hi[s] += most[s]
        self.ranges = (t_lo, t_hi, f_lo, f_hi)
        for s, rows in enumerate(self.h):
            for t, row in enumerate(rows):
                for f in range(len(row)):
                    if not (t_lo[s] <= t <= t_hi[s] and f_lo[s] <= f <= f_hi[s]):
                        row[f] = -math.inf
        self.log_top = self._bound(self.drawn, self.fed)

    def keep(self, x: list[list[int]], taken: list[int]) -> tuple[float, list[int] | None]:
        """``log`` of the probability to keep a proposal (``x``: its boxes; ``taken``: what it
        took from this pile), and what is left of the pile then (None if it is turned down)."""
        fed = [0] * NUM_SPECIES
        for g, s in self.cells:
            fed[s] += x[g][s]
        log_keep = -self.log_top
        for s, rows in enumerate(self.h):
            t, f = taken[s], fed[s]
            if t >= len(rows) or f >= len(rows[t]):
                return -math.inf, None
            log_keep += rows[t][f]
        if self.seen is not None:
            self.seen.append((taken, fed, log_keep))
        if log_keep == -math.inf:
            return log_keep, None
        return log_keep, [a + f - t for a, f, t in zip(self.avail, fed, taken)]


def reach(prog, counted: list[set[int]]) -> tuple[list[int], list[int]]:
    """Per species, the least and the most cards that ``prog``'s fillings of positive weight
    put in the counted cells (``counted[r]``: the species counted at the chain's step ``r``):
    over its choices' closed counts, and for its open cards each open species between what the
    others cannot hold and its cap (none where its tilt is 0)."""
    memo: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
    zero = [0] * NUM_SPECIES
    # From the first step whose steps after it count nothing, every filling adds 0.
    done = len(counted)
    while done and not counted[done - 1]:
        done -= 1

    def rec(r: int, entry: tuple) -> tuple[list[int], list[int]]:
        if r >= done:
            return zero, zero
        got = memo.get((r, id(entry)))
        if got is not None:
            return got
        closed, opened = prog.boxes[r][0], prog.boxes[r][3]
        caps = prog.open_caps[r] or [prog.box_size[r]] * len(opened)
        live = [(s, c) for s, w, c in zip(opened, prog.open_tilts[r], caps) if w > 0.0]
        room = sum(c for _, c in live)
        mine = counted[r]
        lo = hi = None
        for (x, m), after in zip(entry[1], entry[6]):
            a, b = rec(r + 1, after) if r + 1 < prog.n else (zero, zero)
            if mine:
                a, b = a[:], b[:]
                for s, v in zip(closed, x):
                    if s in mine:
                        a[s] += v
                        b[s] += v
                for s, c in live:
                    if s in mine:
                        a[s] += max(0, m - (room - c))
                        b[s] += min(m, c)
            lo = a if lo is None else list(map(min, lo, a))
            hi = b if hi is None else list(map(max, hi, b))
        memo[(r, id(entry))] = got = (lo, hi)
        return got

    if not prog.n:
        return [0] * NUM_SPECIES, [0] * NUM_SPECIES
    return rec(0, prog.memo[(prog.ids[0], (0,) * NUM_SPECIES)])
