"""One other seat's runs of unseen draws, counted box by box (:class:`SeatChain`), for Cubirds'
exact ``determinize`` (:mod:`.hidden_exact`), with what one position counted kept for the next.

The chain is counted from a seat's *latest* box back to its first, so that every state's count
covers a *prefix* of the seat's boxes (its first boxes up to some point) and the requirements
still open there. A prefix's structure (per box its size, the closed species with their
requirements and where their intervals start and end, and the weight of its open species) does
not change when the seat draws again or lays a species whose interval started later, and that
is what happens from one position of a game to the next. So the counts are kept in a table
shared by every chain (:data:`_TABLES`), keyed by an id of the prefix's structure and the state:
a chain built at a later position computes only the states of the prefixes that changed.

A kept count is a function of its key alone, computed in the same order whoever computes it,
so a chain built on a full table counts and samples bit for bit like one built on an empty one
(``tests/cubirds/test_cubirds_chain_reuse.py``). The limits of a build
(``CHAIN_STATES``, ``CHAIN_OPTIONS``) count every state the chain reaches, kept or not, so
whether a build fits does not depend on what was kept either.

Shapes (2026-12-02, session 8). The weight of the open species (the tilt, what the pile holds)
changes at nearly every position and with the viewer, so a prefix's structure above rarely
comes back whole; without that weight (its *shape*) it does: at 3 to 5 players most chains
built along a game have the shape of a chain built before (for another viewer, or before a
draw from the pile). A state's choices (the closed species' counts, their weights, the open
cards left, the state each leads to) and the enumeration steps they took depend on the shape
alone, so they are listed once per shape and state (``_Tables.shapes``) and only the counts are
computed again for a new tilt; the limits are kept per shape too (the states and steps do not
depend on the tilt). The same floating-point operations in the same order: counts and samples
are bit for bit those of before (``tests/cubirds/test_cubirds_chain_shapes.py``). Measured
(CPU time; the chain builds of 4 seeded random games per player count, captured along the
games and replayed in order, the old and new module one after the other, machine shared with
other sessions): 620 -> 549 ms at 2 players, 834 -> 585 ms at 4, 905 -> 626 ms at 5. Along
games (the same 8 games both ways, alternating game by game in one process) the whole call
went 1.52 -> 1.34 / 1.98 -> 2.09 / 5.29 -> 5.39 / 7.84 -> 7.41 ms at 2 / 3 / 4 / 5 players
on average, medians 0.75 -> 0.73 / 1.03 -> 1.05 / 1.83 -> 1.58 / 2.41 -> 2.44 ms; over 16 more
games (seed 500) 1.39 -> 1.42 / 3.62 -> 3.40 / 4.17 -> 3.95 / 5.87 -> 5.55 ms (about 5 % at 3
to 5 players, near the noise of other sessions' jobs: the chains were a third of the cost, joint
programmes and the rejection step the rest; calls not exact unchanged, the samples the same).
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

import numpy as np
from cardzoo.envs.cubirds.data import NUM_SPECIES
from cardzoo.envs.cubirds.hidden_count import _INV_FACT, CHAIN_OPTIONS, CHAIN_STATES, TooLarge

SPECIES = range(NUM_SPECIES)

#: Entries kept in the shared table before a new one is started (a chain keeps the table it
#: was built on, so dropping the shared one never breaks a kept chain). Measured in random
#: games, calling ``determinize`` at every decision: a 5-player game adds about 8,000 entries,
#: and 33,000 entries came with about 60 MB more memory; reuse only needs the last positions.
TABLE_KEPT = 20_000


class _Tables:
    """One generation of the shared table: prefix structure -> id; (id, state) -> count and
    choices; the same without the open species' weight (its *shape*) -> id; (shape id, state)
    -> the state's choices before any weight of the open cards; root shape id -> (states,
    steps) of its whole chain."""

    def __init__(self) -> None:
        self.ids: dict[tuple, int] = {}
        self.memo: dict[tuple, tuple] = {}
        self.shape_ids: dict[tuple, int] = {}
        self.shapes: dict[tuple, tuple] = {}
        self.stats: dict[int, tuple[int, int]] = {}


_TABLES = _Tables()


def clear_tables() -> None:
    """Start an empty shared table (the tests compare chains built on empty and full ones)."""
    global _TABLES
    _TABLES = _Tables()


def _tables() -> _Tables:
    global _TABLES
    if len(_TABLES.memo) + len(_TABLES.shapes) > TABLE_KEPT:
        _TABLES = _Tables()
    return _TABLES


class SeatChain:
    """The fillings of one seat's boxes (its runs of unseen draws from one pile, in order) with
    no pile condition, each card of species ``s`` in an open interval weighing ``tilt[s]`` (a
    closed interval's cards weigh 1: their number is fixed, so a tilt there would only scale
    every filling alike). A box's cards of the species whose interval is closed are chosen one
    species at a time (the state is what each closed interval still needs); the rest goes to the
    species still open there, whose fillings add up to ``(sum of their tilts)**m / m!`` (the
    multinomial theorem) and are drawn card by card in proportion to their tilts when sampling.

    Internally the boxes are in reverse order (step ``r`` is box ``n - 1 - r``), see the module
    docstring."""

    def __init__(
        self,
        box_size: list[int],
        box_label: list[tuple[int, ...]],
        req: list[int],
        tilt: list[float],
        box_tilt: list[list[float]] | None = None,
        box_cap: list[list[int]] | None = None,
    ) -> None:
        """``box_tilt``: per box a tilt on every card of it, closed or open (several piles: the
        pile's), instead of ``tilt`` on its open cards. ``box_cap``: per box and species the most
        cards it can hold (what its pile held); fillings beyond weigh 0."""
        n = len(box_size)
        sizes = box_size[::-1]
        labels = box_label[::-1]
        tilts = box_tilt[::-1] if box_tilt is not None else [tilt] * n
        #: Per step, per closed species, the weight of ``v`` cards (``w**v / v!``).
        self.fac = []
        self.n = n
        self.cards = sum(sizes)
        self.box_size = sizes
        self.tilt = tilt
        self.boxes = []
        #: Per step, the tilt of each open species there (in ``opened``'s order).
        self.open_tilts: list[list[float]] = []
        #: Per step, with caps: each open species' cap, and the key of its tables
        #: (:func:`_capped_sums`, :func:`_capped_cums`; ``rest`` is the first row of the sums).
        self.open_caps: list[list[int] | None] = []
        self.open_sfx: list[tuple | None] = []
        caps = box_cap[::-1] if box_cap is not None else None
        descs = []
        for r in range(n):
            lab, tilt = labels[r], tilts[r]
            closed = tuple(s for s in SPECIES if lab[s] >= 0 and req[lab[s]] >= 0)
            opened = [s for s in SPECIES if s not in closed]
            starts = tuple((s, req[lab[s]]) for s in closed if r == 0 or labels[r - 1][s] != lab[s])
            last = tuple(s for s in closed if r == n - 1 or labels[r + 1][s] != lab[s])
            weight = sum(tilt[s] for s in opened)
            probs = list(accumulate(tilt[s] for s in opened))  # an open card's species
            rest = [weight**m * _INV_FACT[m] for m in range(sizes[r] + 1)] if opened else [1.0]
            cap = caps[r] if caps is not None else None
            self.open_caps.append(None if cap is None else [cap[s] for s in opened])
            self.open_sfx.append(None)
            if cap is not None and opened:
                key = (tuple(tilt[s] for s in opened), tuple(cap[s] for s in opened), sizes[r])
                self.open_sfx[r] = key
                rest = _capped_sums(*key)[0]
            self.boxes.append((closed, starts, last, opened, rest, probs))
            self.open_tilts.append([tilt[s] for s in opened])
            ctilt = tuple(tilt[s] for s in closed) if box_tilt is not None else None
            self.fac.append(
                [
                    _INV_FACT[: sizes[r] + 1]
                    if ctilt is None
                    else [
                        w**v * _INV_FACT[v] if cap is None or v <= cap[s] else 0.0
                        for v in range(sizes[r] + 1)
                    ]
                    for s, w in zip(closed, ctilt or closed)
                ]
            )
            ccap = None if cap is None else tuple(cap)
            descs.append((sizes[r], closed, starts, last, weight if opened else None, ctilt, ccap))
        #: Per step, what a draw reads: the closed species, the open ones with their
        #: cumulative tilts, the tilts' total and the last open index.
        self.draws = [
            (b[0], b[3], b[5], b[5][-1] if b[5] else 0.0, len(b[3]) - 1) for b in self.boxes
        ]
        self._room_checks()
        self._prefix_ids(descs)

    def _prefix_ids(self, descs: list[tuple]) -> None:
        """Per step, the id of the prefix it starts (its box and every earlier one) in the
        shared table; and the id of the prefix's shape: the same without the weight of the open
        species (it changes at nearly every position; the choices, the states and the limits
        do not depend on it, only the counts do)."""
        n = self.n
        self.tables = _tables()
        ids, shape_ids = self.tables.ids, self.tables.shape_ids
        self.ids = [0] * (n + 1)
        self.ids[n] = -1
        self.shape = [0] * (n + 1)
        self.shape[n] = -1
        for r in range(n - 1, -1, -1):
            desc = descs[r]
            self.ids[r] = ids.setdefault((desc, self.ids[r + 1]), len(ids))
            key = ((*desc[:4], desc[4] is not None, *desc[5:]), self.shape[r + 1])
            self.shape[r] = shape_ids.setdefault(key, len(shape_ids))
        self.memo = self.tables.memo
        self.shapes = self.tables.shapes

    def _room_checks(self) -> None:
        """What the steps after step ``r`` must still hold (Hall's condition for the windows
        ``r + 1 .. e``, every one starting right after ``r``): per closed species the room left
        in its interval (``self.room[r][s]``), and per window end the species whose interval
        ends in it, the requirement of the intervals lying wholly after ``r`` inside it, and
        its room (``self.checks[r]``). A state failing them counts 0; pruning it saves time.
        Every step after ``r`` is an earlier box: a prefix's checks depend on it alone."""
        n = self.n
        end: list[dict[int, int]] = [{} for _ in range(n + 1)]  # step -> species -> its end
        for r in range(n - 1, -1, -1):
            closed, _, last = self.boxes[r][:3]
            for s in closed:
                end[r][s] = r if s in last else end[r + 1][s]
        suffix = list(accumulate(reversed(self.box_size)))[::-1] + [0]
        self.room = [{}] * n
        self.checks = [[]] * n
        later: list[tuple[int, int]] = []  # intervals starting after r: (end, requirement)
        for r in range(n - 1, -1, -1):
            if r + 1 < n:
                later.extend((end[r + 1][s], req) for s, req in self.boxes[r + 1][1])
            closed, _, last = self.boxes[r][:3]
            going = [s for s in closed if s not in last]
            self.room[r] = {s: suffix[r + 1] - suffix[end[r][s] + 1] for s in going}
            checks = []
            for e in sorted({end[r][s] for s in going} | {e for e, _ in later}):
                # The species by their place in ``closed`` (a choice lists them in that order).
                where = tuple(i for i, s in enumerate(closed) if s in going and end[r][s] <= e)
                fut = sum(q for f, q in later if f <= e)
                checks.append((where, fut - (suffix[r + 1] - suffix[e + 1])))
            self.checks[r] = checks

    def build(self, max_states: int = CHAIN_STATES, max_options: int = CHAIN_OPTIONS) -> bool:
        """Count; False beyond the limits. ``self.total``: the count."""
        self._limits = (max_states, max_options)
        root = self.shape[0] if self.n else -1
        stats = self.tables.stats.get(root)
        if stats is not None and self.n:
            if stats[0] > max_states or stats[1] > max_options:
                return False
            self.total = self._known(0, (0,) * NUM_SPECIES)[0]
            return True
        self._seen: set[tuple] = set()
        self._states = 0
        self._steps = 0
        try:
            self.total = self._value(0, (0,) * NUM_SPECIES)
        except TooLarge:
            return False
        finally:
            del self._seen
        if self.n:
            self.tables.stats[root] = (self._states, self._steps)
        return True

    def _value(self, r: int, needs: tuple[int, ...]) -> float:
        """Weight of every way to fill steps ``r..`` (boxes ``0 .. n - 1 - r``) given what the
        closed intervals still need (intervals starting at ``r`` not yet entered)."""
        if r == self.n:
            return 0.0 if any(needs) else 1.0
        return self._entry(r, needs)[0]

    def _entry(self, r: int, needs: tuple[int, ...]) -> tuple:
        """The entry of state ``needs`` at step ``r < n`` (see :meth:`_count`), counted or
        taken from the table. A state reached for the first time by this build counts towards
        its limits, kept or not (a kept one's states after it are visited for that)."""
        key = (self.ids[r], needs)
        if key in self._seen:
            return self.memo[key]
        self._seen.add(key)
        self._states += 1
        if self._states > self._limits[0]:
            raise TooLarge("states")
        entry = self.memo.get(key)
        if entry is None:
            entry = self._count(r, needs)
            self.memo[key] = entry
        elif r + 1 < self.n:
            for kid in entry[5]:
                self._entry(r + 1, kid)
        self._steps += entry[4]
        if self._steps > self._limits[1]:
            raise TooLarge("options")
        return entry

    def _known(self, r: int, needs: tuple[int, ...]) -> tuple:
        """The entry of a state of a chain whose shape is known to fit its limits (nothing to
        count towards them): from the table, or from the shape's choices."""
        key = (self.ids[r], needs)
        entry = self.memo.get(key)
        if entry is None:
            entry = self.memo[key] = self._count(r, needs, self._known)
        return entry

    def _count(self, r: int, needs: tuple[int, ...], entry_of=None) -> tuple:
        """The entry of a state: (weight, choices, their cumulative weights, the states they
        lead to, the enumeration steps taken, every state reached from it, the entries of the
        states the choices lead to); from its shape's choices, listed once per shape
        (:meth:`_shape`). ``entry_of``: how the states after it are reached."""
        key = (self.shape[r], needs)
        shape = self.shapes.get(key)
        if shape is None:
            shape = self.shapes[key] = self._shape(r, needs)
        steps, options, kids = shape
        rest = self.boxes[r][4]
        choices, cum, nexts, follow = [], [], [], []
        total = 0.0
        if r + 1 < self.n:
            entry_of = entry_of or self._entry
            r1 = r + 1
            for x, w, m, nxt in options:
                kid = entry_of(r1, nxt)
                w *= rest[m] * kid[0]
                if w > 0.0:
                    total += w
                    choices.append((x, m))
                    cum.append(total)
                    nexts.append(nxt)
                    follow.append(kid)
        else:
            for x, w, m, nxt in options:
                w *= rest[m] * (0.0 if any(nxt) else 1.0)
                if w > 0.0:
                    total += w
                    choices.append((x, m))
                    cum.append(total)
                    nexts.append(nxt)
                    follow.append(None)
        # (Tuples: kept for the game, and tuples of numbers leave the cyclic GC's lists.)
        return (total, tuple(choices), tuple(cum), tuple(nexts), steps, kids, tuple(follow))

    def _shape(self, r: int, needs: tuple[int, ...]) -> tuple:
        """A state's choices before the open cards' weight: (the enumeration steps taken, per
        choice ``(x, its closed cards' weight, open cards m, the state it leads to)``, the
        states it leads to); a function of the prefix's shape and the state alone."""
        closed, starts, last = self.boxes[r][:3]
        need = list(needs)
        for s, q in starts:
            if need[s]:  # the interval before ended short of its requirement
                return (0, (), ())
            need[s] = q
        # Hall's checks on what is left: the species of ``where`` must have taken at least
        # ``least`` here (what they still need beyond the room of their windows); the checks
        # no choice can fail are dropped.
        checks = []
        for where, over in self.checks[r]:
            least = over + sum(need[closed[i]] for i in where)
            if least > 0:
                checks.append((where, least))
        options, steps = self._choices(r, closed, last, need)
        if checks:
            options = [
                o
                for o in options
                if not any(sum([o[0][i] for i in where]) < least for where, least in checks)
            ]
        return (steps, tuple(options), tuple(o[3] for o in options))

    def _choices(
        self, r: int, closed: tuple, last: tuple, need: list[int]
    ) -> tuple[list[tuple], int]:
        """Counts ``x`` of the closed species at step ``r`` (at most what each needs, exactly
        that at an interval's last box, at least what the rest of its interval cannot hold, at
        most the box's room in all, and the box's room exactly when no species is open there),
        each as ``(x, weight, open cards m, what the closed intervals need after it)``, in
        lexicographic order; and the enumeration steps taken. Bounds on the species still to
        choose prune the enumeration (a box after the deal may close all eight species). With
        no species open, ``m`` is always 0 (the bounds fill the box)."""
        cap = self.box_size[r]
        room = self.room[r]
        fac = self.fac[r]
        k = len(closed)
        lo = [need[s] if s in last else max(need[s] - room[s], 0) for s in closed]
        hi = [min(need[s], cap) for s in closed]
        if any(a > z for a, z in zip(lo, hi)):
            return [], 1
        lo_rest = list(accumulate(reversed(lo), initial=0))[::-1]
        hi_rest = list(accumulate(reversed(hi), initial=0))[::-1]
        fill = not self.boxes[r][3]  # no open species: the closed ones fill the box
        if lo_rest[0] > cap or (fill and hi_rest[0] < cap):
            return [], 1
        if not k:  # one empty choice, one step
            return [((), 1.0, cap, tuple(need))], 1
        out: list[tuple] = []
        x = [0] * k
        after = need[:]  # what the closed intervals need once the choice is made
        steps = 0
        final = k - 1
        s_final = closed[final]
        need_final = need[s_final]
        fac_final = fac[final]

        def rec(i: int, used: int, w: float) -> None:
            nonlocal steps
            steps += 1
            first = lo[i]
            if fill:
                first = max(first, cap - used - hi_rest[i + 1])
            top = min(hi[i], cap - used - lo_rest[i + 1])
            if i == final:  # the leaves inline, each still one step
                if top >= first:
                    steps += top - first + 1
                    for v in range(first, top + 1):
                        x[i] = v
                        after[s_final] = need_final - v
                        out.append((tuple(x), w * fac_final[v], cap - used - v, tuple(after)))
                return
            s, f, nxt = closed[i], fac[i], i + 1
            base = need[s]
            for v in range(first, top + 1):
                x[i] = v
                after[s] = base - v
                rec(nxt, used + v, w * f[v])

        rec(0, 0, 1.0)
        return out, steps

    def sample_counts(
        self, rng: np.random.Generator, taken: list[int] | None = None
    ) -> list[list[int]]:
        """Per box (in the seat's order), its cards per species, drawn from the counts; each
        species' cards in all are added to ``taken`` if given."""
        out = []
        if taken is None:
            taken = [0] * NUM_SPECIES
        # One uniform per step and per open card (at most a box's size): one call to NumPy.
        u = rng.random(self.n + self.cards).tolist()
        k = self.n
        entry = self.memo[(self.ids[0], (0,) * NUM_SPECIES)]
        sfx = self.open_sfx
        for r, (closed, opened, probs, top, last) in enumerate(self.draws):
            _, choices, cum, _, _, _, follow = entry
            j = bisect_right(cum, u[r] * cum[-1])
            if j == len(choices):  # (u * total rounded up to the total)
                j -= 1
            x, m = choices[j]
            counts = [0] * NUM_SPECIES
            for s, v in zip(closed, x):
                counts[s] = v
                taken[s] += v
            if m and sfx[r] is not None:
                more = [0] * NUM_SPECIES
                self.fill_open(r, m, rng, more)
                for s, v in enumerate(more):
                    counts[s] += v
                    taken[s] += v
            elif m:  # each open card's species in proportion to its tilt
                for v in u[k : k + m]:
                    i = bisect_right(probs, v * top)
                    s = opened[i if i <= last else last]
                    counts[s] += 1
                    taken[s] += 1
                k += m
            out.append(counts)
            entry = follow[j]
        out.reverse()
        return out

    def add_open(
        self, r: int, m: int, u: list[float], k: int, rng: np.random.Generator, row: list[int]
    ) -> int:
        """Add step ``r``'s ``m`` open cards to ``row``, each drawn in proportion to its tilt
        with the uniforms ``u[k:k + m]`` (with caps: :meth:`fill_open`); the index of the next
        unused uniform."""
        if self.open_sfx[r] is not None:
            self.fill_open(r, m, rng, row)
            return k
        _, opened, probs, top, last = self.draws[r]
        for v in u[k : k + m]:
            i = bisect_right(probs, v * top)
            row[opened[i if i <= last else last]] += 1
        return k + m

    def fill_open(self, r: int, m: int, rng: np.random.Generator, counts: list[int]) -> None:
        """Add ``m`` open cards of step ``r`` to ``counts``, drawn in proportion to their weights
        (with caps: species by species, over what the species after it can still take)."""
        opened = self.boxes[r][3]
        sfx = self.open_sfx[r]
        if sfx is None:
            probs = self.boxes[r][5]
            top, last = probs[-1], len(opened) - 1
            for u in rng.random(m).tolist():
                counts[opened[min(bisect_right(probs, u * top), last)]] += 1
            return
        cums = _capped_cums(*sfx)
        for s, cum, u in zip(opened, cums, rng.random(len(opened)).tolist()):
            ws = cum[m]
            v = min(bisect_right(ws, u * ws[-1]), len(ws) - 1)
            counts[s] += v
            m -= v
            if not m:
                return


@lru_cache(maxsize=4096)
def _capped_sums(tilt: tuple, cap: tuple, size: int) -> list[list[float]]:
    """Per ``i``, per ``m`` up to ``size``: the sum over spreads ``o`` of ``m`` cards on the
    open species from the ``i``-th on, each at most its cap, of ``prod t**o / o!`` (kept:
    the same boxes come back at every position; callers only read it)."""
    out = [[1.0] + [0.0] * size]
    for t, c in zip(reversed(tilt), reversed(cap)):
        after = out[-1]
        top = min(c, size)
        row = [
            sum(t**v * _INV_FACT[v] * after[m - v] for v in range(min(top, m) + 1))
            for m in range(size + 1)
        ]
        out.append(row)
    return out[::-1]


@lru_cache(maxsize=4096)
def _capped_cums(tilt: tuple, cap: tuple, size: int) -> list[list[list[float]]]:
    """Per open species ``i`` and cards left ``m``: the cumulative weights of giving it ``v``
    of them (``tilt**v / v!`` times what the species after it can take of the rest)."""
    sfx = _capped_sums(tilt, cap, size)
    return [
        [
            list(accumulate(t**v * _INV_FACT[v] * sfx[i + 1][m - v] for v in range(min(c, m) + 1)))
            for m in range(size + 1)
        ]
        for i, (t, c) in enumerate(zip(tilt, cap))
    ]
