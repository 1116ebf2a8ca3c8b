"""The other seats' hands now, given their hands at the last reshuffle: exact rejection.

After the last reshuffle seat q's record takes it from its hand ``G_q`` at that reshuffle to
its hand now ``H_q`` in ``B_q(G_q, H_q)`` ways (``reshuffled.py``), and the hands now share the
cards ``U`` the others hold or the draw pile holds: the target, given the split at the last
reshuffle, is ``prod_q B_q(G_q, H_q) * (U)_s`` (``s = sum_q H_q``, a falling factorial per kind:
the orders of the pile's rest, up to a constant). Each seat takes its hand one of two ways,
chosen per seat and candidate ``G`` (``LastStep.dealt``), as ``exact.py`` does for the deal:

- *drawn*: from its own weights ``B(G, .) * (U)_H`` (total ``norm``), the drawn hands accepted
  together with the chance ``prod_k (U_k)_(s_k) / prod_q (U_k)_(H_q[k])`` that they fit in
  ``U`` at once;
- *dealt*: its cards dealt one by one, without replacement, from what the drawn hands left of
  ``U``, the hand accepted with ``phi(H) = B(G, H) / orders(H)`` over its largest value ``top``
  (a seat whose record barely constrains its hand accepts nearly always, where drawing it
  independently of the others would often not fit).

Where the draw pile holds at most ``DEAL_LAST_PILE`` unseen cards, the last seat is also dealt
at the rows where a deal from what the others leave proposes less weight than drawing it, and
its dealt rows' ``top`` is taken over the hands ``U`` can make (``leftover_of_last``, session
42): with the pile empty its hand is exactly what the others leave.

The split's proposal weight carries each seat's bound (``norm`` drawn, ``top`` dealt) and the
ways to deal the dealt seats' cards, ``(|U| - n_D)_(n_T)`` (``log_deal``), so that the proposal
times the acceptance is exactly the target times a constant: the accepted sample is exact. A
seat is dealt where a uniformly dealt hand would be accepted at least ``DEALT_AT_LEAST`` of the
time (``norm >= DEALT_AT_LEAST * top * (|U|)_m``).

*Tilted* (``tilt``: a log weight ``t_k <= 0`` per kind, ``tilted.py``): every seat is drawn,
from ``B(G, .) * (U)_H * exp(t . H)``, and the drawn hands are accepted with the chance above
times ``exp(t . (U - s))`` (at most 1, as ``t <= 0`` and ``s <= U``): the proposal times the
acceptance is again the target times a constant. A tilt that makes the kinds scarce in ``U``
rarer in the drawn hands makes them fit together far more often where the draw pile is
nearly empty (the hands now nearly a split of ``U``).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from math import exp, lgamma

import numpy as np
from cardzoo.envs.sitting_ducks.data import NUM_KINDS
from cardzoo.envs.sitting_ducks.exact import _HANDS, _falling

#: A seat whose uniformly dealt hand would be accepted at least this often is dealt.
DEALT_AT_LEAST = 0.3
#: The rate is compared with ``DEALT_AT_LEAST`` less this relative slack: a rate of exactly
#: 0.3 happens (a row whose weights are a uniform deal's, times small integers), and its last
#: bit depends on the summation order (the live rows or every row, session 9: found as two
#: builds of one six-player posterior that chose differently). Either choice is exact; the
#: slack makes the choice, and so the sample for a given rng, the same on every path.
TIE_SLACK = 1e-9
#: A batch whose first acceptance keeps at most this many proposals with a dealt seat deals
#: their hands one by one in Python (``_deal_lists``) rather than in arrays (session 13).
DEAL_ONE_BY_ONE = 8
#: A hand's counts in base 4 (no hand holds more than 3 of a kind): its key.
BASE = 4 ** np.arange(NUM_KINDS, dtype=np.int64)
#: Per hand size: the hands' keys sorted, and the hand index behind each.
KEYS = [np.argsort(t.counts @ BASE) for t in _HANDS]
SORTED = [(t.counts @ BASE)[order] for t, order in zip(_HANDS, KEYS)]
#: The most cards of one kind the other seats' hands can hold together (five seats of 3).
MAX_TAKEN = 15
_KINDS = np.arange(NUM_KINDS)
#: Per hand size, each hand's counts packed 4 bits a kind: the other seats' hands hold at
#: most ``MAX_TAKEN`` = 15 of a kind together, so packed hands add without carry.
_SHIFTS = 4 * _KINDS
#: ... with one more entry, 0, last: a dealt seat's hand index is set to -1 (``_drawn_hands``),
#: so that its packed counts and log weight read as nothing without a masked write.
_PACKED = [np.append(t.counts @ (1 << _SHIFTS), 0) for t in _HANDS]
_LOG_FACT = np.array([lgamma(n + 1.0) for n in range(256)])
#: Where the draw pile holds few unseen cards, the last seat's hand now is nearly what the
#: other seats leave of ``U``, and drawing it from its own weights rarely fits theirs: the last
#: seat is then also dealt, from their leftovers, at the rows where that proposes less weight
#: than drawing it (``leftover_of_last``, session 42). Either choice is exact.
DEAL_LAST_FROM_LEFT = True
#: ... and there its dealt rows are bounded by their largest ``phi`` among the hands ``U`` can
#: make (a dealt hand always comes from ``U``), not among every hand.
BOUND_BY_POOL = True
#: ... where the draw pile holds at most this many unseen cards (the rule's first test).
DEAL_LAST_PILE = 2


def _ordered(n: float, size: int) -> float:
    """``(n)_size``: the ordered deals of ``size`` cards from ``n``."""
    out = 1.0
    for i in range(size):
        out *= n - i
    return out


def leftover_of_last(unseen_total: int, others: list[LastStep], size: int) -> int | None:
    """What the last seat (``size`` cards) would be dealt from (``LastStep``'s ``leftover``):
    ``|U|`` less the other seats' cards, each counted by the share of its live rows drawn.
    None (the usual rule alone) where the draw pile holds more than ``DEAL_LAST_PILE`` unseen
    cards: there nothing changes, and nothing is computed beyond that test."""
    pile = unseen_total - size - sum(last.size for last in others)
    if not DEAL_LAST_FROM_LEFT or pile > DEAL_LAST_PILE:
        return None
    if any(last.tilt is not None for last in others):
        return None
    drawn = 0.0
    for last in others:  # a seat dealt at some rows leaves its cards to the deal there
        live = last.norm > 0
        drawn += last.size * float((live & ~last.dealt).sum()) / max(1, int(live.sum()))
    return int(round(unseen_total - drawn))


class LastStep:
    """One seat's last step, one row per candidate hand ``G`` at the last reshuffle (``b``:
    rows x hands now, the weights ``B(G, .)``): ``norm`` (drawn: the total of ``B * (U)_H``),
    ``dealt`` per row, ``bound`` per row (the seat's factor in the split's proposal weight);
    the cumulative ``B * (U)_H`` of some rows (``_add``) and ``phi`` (``phi / top`` at some
    (row, hand) pairs) are made only for the rows a proposal reaches: a call at a new position
    builds a ``LastStep`` per seat but draws from few of its rows. With ``live`` (session 8)
    ``b`` holds only those of the ``rows`` rows (the walk's live rows, ``walks.walk_rows``):
    the per-row arrays cover every row, the rows left out weighing zero (never drawn from).
    Proposals in batches draw each seat's hand from all the rows kept at once (``pick``)."""

    __slots__ = (
        "size",
        "b",
        "falling",
        "norm",
        "dealt",
        "safe",
        "bound",
        "_where",
        "_slot",
        "_kept",
        "_lists",
        "tilt",
    )

    def __init__(
        self,
        b: np.ndarray,
        size: int,
        unseen: np.ndarray,
        live: np.ndarray | None = None,
        rows: int = 0,
        tilt: np.ndarray | None = None,
        leftover: int | None = None,
    ) -> None:
        table = _HANDS[size]
        # Only the per-row totals are needed for every row: ``B * (U)_H`` is summed as one
        # matrix-vector product and made in full only for the rows drawn from (``_add``).
        self.b = b
        self.falling = _falling(unseen, size)
        self.tilt = tilt
        if tilt is not None:  # (a new array: ``_falling``'s answers are shared)
            self.falling = self.falling * np.exp(table.counts @ tilt)
        self.size = size
        norm = b @ self.falling
        phi = b / table.orders
        top = phi.max(axis=1) if len(b) else np.zeros(0)
        self._where = None
        if live is not None:  # ``b`` holds only the rows ``live`` of ``rows``: the rest weigh 0
            self._where = np.full(rows, -1, dtype=np.int64)
            self._where[live] = np.arange(len(live))
            norm, top = _spread(norm, live, rows), _spread(top, live, rows)
        self.norm = norm
        safe = np.where(top > 0, top, 1.0)
        deals = float(np.prod(unseen.sum() - np.arange(size)))  # (|U|)_m ordered deals
        at_least = DEALT_AT_LEAST * (1.0 - TIE_SLACK) * deals
        self.dealt = (top > 0) & (self.norm >= at_least * safe) & (tilt is None)
        held = top
        if leftover is not None and tilt is None:  # (``leftover_of_last``)
            if BOUND_BY_POOL and len(b):
                pool = np.flatnonzero(self.falling > 0)
                held = phi[:, pool].max(axis=1) if len(pool) else np.zeros(len(b))
                held = _spread(held, live, rows) if live is not None else held
            near = held * _ordered(leftover, size) * (1.0 + TIE_SLACK)
            self.dealt |= (held > 0) & (self.norm > near)
        self.safe = np.where(held > 0, held, 1.0)
        self.bound = np.where(self.dealt, held, self.norm)
        # The rows drawn from so far, in one sorted array shared by the seats (``link``; a
        # seat alone gets its own on first use: most are never drawn from).
        self._kept = None
        self._lists: dict[int, tuple] = {}  # slots drawn from alone (``pick_one``)

    def _store(self) -> _Kept:
        """The kept array this seat draws from (its own if it was never linked)."""
        if self._kept is None:
            link([self])
        return self._kept

    def _b(self, rows):
        """``B`` at ``rows`` (rows of weight zero, left out of ``b``, are never drawn from)."""
        return self.b[rows if self._where is None else self._where[rows]]

    def _add(self, rows: np.ndarray) -> None:
        """Keeps the cumulative weights ``B * (U)_H`` of new ``rows`` (distinct), each row
        scaled to end at 1 and lifted by its slot number: slot ``k`` holds ``k + cum / total``,
        so all the rows kept form one sorted array, and one ``searchsorted`` draws for
        proposals from many rows (session 12; repeated calls at a position draw from the
        same rows, so a row is made once)."""
        cum = np.cumsum(self._b(rows) * self.falling, axis=1)
        total = cum[:, -1:]
        cum /= np.where(total > 0, total, 1.0)  # exactly 1 from the row's last weight on
        self._slot[rows] = self._store().keep(cum)

    def _add_one(self, row: int) -> int:
        """``_add`` for one row (a proposal drawn alone): its slot."""
        cum = np.cumsum(self._b(row) * self.falling)
        if cum[-1] > 0:
            cum /= cum[-1]
        slot = int(self._store().keep(cum[None, :])[0])
        self._slot[row] = slot
        return slot

    def pick(self, rows: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per proposal (``rows``: its row, ``x``: its uniform): the hand drawn from the row's
        weights ``B * (U)_H``: the first hand whose cumulative share exceeds ``x`` (one seat's
        ``_drawn_hands``)."""
        self._store()
        slot = self._slot[rows]
        if (slot < 0).any():
            self._add(np.unique(rows[slot < 0]))
            slot = self._slot[rows]
        return self._kept.find(slot, x)

    def pick_one(self, row: int, x: float) -> int:
        """``pick`` for one proposal, without the arrays' overhead."""
        kept = self._store()
        slot = int(self._slot[row])
        if slot < 0:
            slot = self._add_one(row)
        got = self._lists.get(slot)
        if got is None:  # the slot's shares and hands as lists: a bisection there costs least
            first, last = int(kept.start[slot]), int(kept.last[slot]) + 1
            got = self._lists[slot] = (
                kept.flat[first:last].tolist(),
                kept.hand_at[first:last].tolist(),
            )
        part, hands = got
        x = math.floor(x * kept.grid) / kept.grid
        return hands[min(bisect_right(part, slot + x), len(part) - 1)]

    def phi_one(self, row: int, hand: int) -> float:
        """``phi`` at one (row, hand) pair, without the arrays' overhead."""
        where = row if self._where is None else int(self._where[row])
        return float(self.b[where, hand] / _HANDS[self.size].orders[hand] / self.safe[row])

    def phi(self, rows, hands):
        """``phi / top`` at (row, hand) pairs: a dealt hand's acceptance."""
        where = rows if self._where is None else self._where[rows]
        return self.b[where, hands] / _HANDS[self.size].orders[hands] / self.safe[rows]


class _Kept:
    """The rows drawn from so far by the seats ``link`` joined, one after another in one
    sorted array: slot ``k`` holds ``k`` plus the row's cumulative shares, from ``start[k]``
    to ``last[k]``, only where a hand's share is not 0 (and always the row's last hand: most
    hands of a row cannot be held, and the array is far smaller without them, session 23);
    ``hand_at``: the hand of each entry. Shares and uniforms are cut to multiples of ``1 / grid``,
    so that a slot number plus either is exact (53 bits hold both) and which hand is drawn
    cannot depend on the slot, that is on which rows were kept before: a sample stays a
    function of the position and the rng alone. Joined, the seats' rows are looked up in one
    array (``slot_of``, ``dealt``: each seat's rows from its ``offsets`` entry), and one
    ``searchsorted`` draws every seat's hand of a batch (session 13)."""

    __slots__ = (
        "flat",
        "hand_at",
        "used",
        "start",
        "last",
        "slots",
        "grid",
        "slot_of",
        "dealt",
        "offsets",
        "by_size",
        "log_falling",
        "hand_log",
        "any_dealt",
    )

    def __init__(self, lasts: list[LastStep]) -> None:
        sizes = [len(last.norm) for last in lasts]
        self.offsets = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
        self.grid = 2.0 ** (52 - max(1, sum(sizes)).bit_length())
        self.slot_of = np.full(sum(sizes), -1, dtype=np.int64)
        self.dealt = np.concatenate([last.dealt for last in lasts])
        self.any_dealt = bool(self.dealt.any())
        #: The seats by hand size.
        sizes_of = [last.size for last in lasts]
        self.by_size = [
            (size, [i for i, z in enumerate(sizes_of) if z == size])
            for size in sorted(set(sizes_of))
        ]
        self.log_falling = None
        self.hand_log: dict[int, np.ndarray] = {}
        self.flat = np.zeros(0)
        self.hand_at = np.zeros(0, dtype=np.int64)
        self.used = 0
        self.start = np.zeros(0, dtype=np.int64)
        self.last = np.zeros(0, dtype=np.int64)
        self.slots = 0

    def keep(self, cum: np.ndarray) -> np.ndarray:
        """Appends rows of cumulative shares (rows x hands, each ending at 1; the array is
        overwritten), cut to the grid and lifted by their new slots' numbers; returns the
        slots. Grown by doubling.

        A hand whose cut share is 0 repeats the value before it: no uniform stops there (the
        first entry above it comes first), so it is left out, which never changes the hand a
        uniform finds; the row's last hand is kept, so that no row is empty."""
        k, hands = cum.shape
        slots = np.arange(self.slots, self.slots + k)
        cum *= self.grid  # (in place, the same arithmetic: ``cum`` is the caller's to give)
        np.floor(cum, out=cum)
        cum /= self.grid
        cum += slots[:, None]
        shown = np.empty(cum.shape, dtype=bool)
        np.greater(cum[:, 1:], cum[:, :-1], out=shown[:, 1:])
        shown[:, 0] = cum[:, 0] > slots
        shown[:, -1] = True
        counts = shown.sum(axis=1)
        end = self.used + int(counts.sum())
        if end > len(self.flat):
            size = max(2 * len(self.flat), end)
            self.flat = _grown(self.flat, size, self.used)
            self.hand_at = _grown(self.hand_at, size, self.used)
        if self.slots + k > len(self.start):
            size = max(2 * len(self.start), self.slots + k)
            self.start = _grown(self.start, size, self.slots)
            self.last = _grown(self.last, size, self.slots)
        self.flat[self.used : end] = cum[shown]
        self.hand_at[self.used : end] = np.nonzero(shown)[1]
        ends = self.used + np.cumsum(counts)
        self.start[self.slots : self.slots + k] = ends - counts
        self.last[self.slots : self.slots + k] = ends - 1
        self.used, self.slots = end, self.slots + k
        return slots

    def find(self, slot: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Per (slot, uniform): the first hand of the slot whose cumulative share exceeds
        ``x``."""
        x = np.floor(x * self.grid) / self.grid
        found = search(self.flat[: self.used], slot + x)
        return self.hand_at[np.minimum(found, self.last[slot])]


def search(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(values, keys, "right")`` (``values`` sorted), the keys looked up in
    increasing order where they are many (``SEARCH_SORTED_FROM``): NumPy's search starts from
    where the previous key's ended when the keys increase, so a batch of proposals' uniforms,
    sorted first, is found two to three times faster (session 34). The same indices."""
    if keys.size < SEARCH_SORTED_FROM:
        return np.searchsorted(values, keys, "right")
    flat = keys.ravel()
    order = flat.argsort()
    found = np.empty(flat.size, dtype=np.intp)
    found[order] = np.searchsorted(values, flat[order], "right")
    return found.reshape(keys.shape)


#: ``search`` sorts the keys from this many on (measured: 2,560 keys among 1,213 values 142 ->
#: 63 us, 512 among 11,536 24 -> 17 us, but 160 among 1,213 3.1 -> 6.2 us).
SEARCH_SORTED_FROM = 512


def _grown(values: np.ndarray, size: int, used: int) -> np.ndarray:
    """``values`` in a new array of ``size`` entries, its first ``used`` copied."""
    grown = np.zeros(size, dtype=values.dtype)
    grown[:used] = values[:used]
    return grown


def link(lasts: list[LastStep]) -> None:
    """Joins the seats' ``LastStep`` of one split's proposals in one kept array (before any
    row is kept): their batches then draw every seat's hand at once (``_drawn_hands``)."""
    if any(last._kept is not None and last._kept.slots for last in lasts):
        raise ValueError("link the seats before any row is kept")
    kept = _Kept(lasts)
    for last, start in zip(lasts, kept.offsets.tolist()):
        end = start + len(last.norm)
        last._kept = kept
        last._slot = kept.slot_of[start:end]  # views: a seat's rows in the joint arrays
        last.dealt = kept.dealt[start:end]


def _drawn_hands(lasts: list[LastStep], rows: np.ndarray, u: np.ndarray, log_falling) -> tuple:
    """Per proposal and seat (``rows``: each seat's row; ``u``: its uniform in the first
    ``len(lasts)`` columns): whether the seat is dealt (None where no seat's row is ever
    dealt) and the drawn seats' hands (ids; -1 where dealt); per proposal the drawn hands'
    cards per kind together (``s``) and the sum of their ``log (U_k)_(H[k])`` (``own``). One
    lookup and one ``searchsorted`` for every seat (``link``), made for every (proposal,
    seat) and the dealt ones' masked after (cheaper than selecting them first); the hands'
    counts packed 4 bits a kind, so that the seats' sum is one sum."""
    m = rows.shape[1]
    kept = lasts[0]._kept
    at = rows + kept.offsets
    slots = kept.slot_of[at]
    dealt = kept.dealt[at] if kept.any_dealt else None
    missing = slots < 0 if dealt is None else ~dealt & (slots < 0)
    if missing.any():
        for i in np.flatnonzero(missing.any(axis=0)).tolist():
            lasts[i]._add(np.unique(rows[missing[:, i], i]))
        slots = kept.slot_of[at]
    if kept.slots:  # (garbage where dealt: masked below)
        ids = kept.find(slots, u[:, :m])
    else:  # every seat dealt: no row kept
        ids = np.zeros(rows.shape, dtype=np.int64)
    if kept.log_falling is not log_falling:  # per hand, its log (U_k)_(H[k]) summed (0 last)
        kept.log_falling = log_falling
        kept.hand_log = {  # (once per hand size, not per seat: session 34)
            size: np.append(log_falling[_KINDS, _HANDS[size].counts].sum(axis=1), 0.0)
            for size, _ in kept.by_size
        }
    if dealt is not None:  # the tables' last entry: nothing drawn (the index is overwritten
        ids[dealt] = -1  # where the proposal is accepted, ``_deal_lists``, ``_deal_arrays``)
    if len(kept.by_size) == 1:
        size = kept.by_size[0][0]
        packed, logs = _PACKED[size][ids], kept.hand_log[size][ids]
    else:
        packed = np.empty(ids.shape, dtype=np.int64)
        logs = np.empty(ids.shape)
        for size, cols in kept.by_size:
            packed[:, cols] = _PACKED[size][ids[:, cols]]
            logs[:, cols] = kept.hand_log[size][ids[:, cols]]
    s = (packed.sum(axis=1)[:, None] >> _SHIFTS) & 15
    return dealt, ids, s, logs.sum(axis=1)


def _spread(x: np.ndarray, live: np.ndarray, rows: int) -> np.ndarray:
    """Per-row values of the rows ``live`` spread over all ``rows`` rows (0 elsewhere)."""
    out = np.zeros(rows)
    out[live] = x
    return out


def log_deal(lasts: list[LastStep], rows: np.ndarray, unseen_total: int) -> np.ndarray:
    """Per split (``rows``: splits x seats, each seat's candidate row): the log of the ways to
    deal the dealt seats' cards in order from what the drawn seats leave,
    ``(|U| - n_D)_(n_T)``."""
    drawn = np.zeros(len(rows), dtype=np.int64)
    total = 0
    for i, last in enumerate(lasts):
        drawn += last.size * ~last.dealt[rows[:, i]]
        total += last.size
    return _LOG_FACT[unseen_total - drawn] - _LOG_FACT[unseen_total - total]


def uniforms(seats: int) -> int:
    """The uniforms one proposal of the hands now uses (drawn, fit, deals, keep)."""
    return 4 * seats + 2


def propose_one(lasts: list[LastStep], rows: list[int], unseen: list[int], log_falling, u):
    """One proposal of every seat's hand index now, from the uniforms ``u`` (a list, popped;
    ``uniforms`` of them), or None if rejected (``log_falling`` as nested lists, or an array)."""
    ids = [0] * len(lasts)
    s = [0] * NUM_KINDS
    log_p = 0.0
    for i, (last, row) in enumerate(zip(lasts, rows)):
        x = u.pop()
        if last.dealt[row]:
            continue
        ids[i] = h = last.pick_one(row, x)
        hand = _HANDS[last.size].hands[h]
        for k in set(hand):
            s[k] += hand.count(k)
            log_p -= log_falling[k][hand.count(k)]
    for k in range(NUM_KINDS):
        if s[k]:
            log_p += log_falling[k][min(s[k], MAX_TAKEN)]
    tilt = lasts[0].tilt
    if tilt is not None:
        log_p += sum(t * (c - x) for t, c, x in zip(tilt.tolist(), unseen, s) if t)
    if u.pop() >= exp(log_p):
        return None
    left = [c - t for c, t in zip(unseen, s)]
    keep = 1.0
    for i, (last, row) in enumerate(zip(lasts, rows)):
        if not last.dealt[row]:
            continue
        hand = []
        for _ in range(last.size):
            x = u.pop() * sum(left)
            k = 0
            while x >= left[k] and k < NUM_KINDS - 1:
                x -= left[k]
                k += 1
            left[k] -= 1
            hand.append(k)
        ids[i] = _HANDS[last.size].index[tuple(sorted(hand))]
        keep *= last.phi_one(row, ids[i])
    return ids if u.pop() < keep else None


def propose_many(
    lasts: list[LastStep], rows: np.ndarray, unseen: np.ndarray, log_falling, u, first=False
):
    """``len(rows)`` independent proposals (``rows``: their splits' candidate rows per seat;
    ``u``: proposals x ``uniforms``): each seat's hand index now, and which are accepted.
    With ``first``, only the first accepted proposal is marked (the others' dealt hands are
    not made: a draw takes the first, and dealing costs most of a batch where seats are
    dealt; the same proposal as without, since each reads its own uniforms)."""
    m = rows.shape[1]
    # Dealt seats' hands come below; only the drawn ones are drawn from their rows.
    dealt, ids, s, own = _drawn_hands(lasts, rows, u, log_falling)
    log_p = log_falling[_KINDS, s].sum(axis=1) - own  # (s: at most MAX_TAKEN, 4 bits)
    if lasts[0].tilt is not None:  # every seat drawn (``dealt`` is None)
        log_p += (unseen[None, :] - s) @ lasts[0].tilt
    accepted = u[:, m] < np.exp(log_p)
    if dealt is None:
        if first and accepted.any():
            accepted[np.argmax(accepted) + 1 :] = False
        return ids, accepted
    if first:  # the proposals that fit up to the first with no dealt seat, in order
        fits = np.flatnonzero(accepted)
        if not len(fits):
            return ids, accepted
        plain = fits[~dealt[fits].any(axis=1)]
        end = int(plain[0]) if len(plain) else len(rows)
        dealing = fits[fits < end]  # all dealt but (at most) the last
        found = None
        if len(dealing):  # (what the drawn hands left of ``U``: made only for these)
            left = np.maximum(unseen[None, :] - s[dealing], 0)
            found = _deal_lists(lasts, rows, dealt, left, u, ids, dealing, first=True)
        accepted[:] = False
        if found is not None or end < len(rows):
            accepted[end if found is None else found] = True
        return ids, accepted
    left = np.maximum(unseen[None, :] - s, 0)
    dealing = np.flatnonzero(accepted & dealt.any(axis=1))
    if len(dealing) <= DEAL_ONE_BY_ONE:
        keep = _deal_lists(lasts, rows, dealt, left[dealing], u, ids, dealing)
    else:
        keep = _deal_arrays(lasts, rows, dealt & accepted[:, None], left, u, ids)
    accepted &= u[:, -1] < keep
    return ids, accepted


def _deal_lists(lasts: list[LastStep], rows, dealt, left, u, ids, dealing, first=False):
    """``_deal_arrays`` for the proposals ``dealing`` alone, one by one in Python lists: the
    same arithmetic, so the same hands and factors (a batch keeps a few proposals for this
    step; the arrays' calls cost more than their work there; session 13). ``left``: what the
    drawn hands left of ``U``, a row per proposal of ``dealing``. With ``first``, returns the
    first of them accepted (or None) as soon as it is found."""
    keep = np.ones(len(rows))
    if not len(dealing):
        return None if first else keep
    m = len(lasts)
    for p, lp, up, rp, dp in zip(
        dealing.tolist(),
        left.tolist(),
        u[dealing].tolist(),
        rows[dealing].tolist(),
        dealt[dealing].tolist(),
    ):
        col = m + 1
        factor = 1.0
        for i, last in enumerate(lasts):
            if not dp[i]:
                col += last.size
                continue
            hand = []
            total = sum(lp)
            for _ in range(last.size):
                x = up[col] * total
                col += 1
                total -= 1
                k, acc = 0, lp[0]
                while acc <= x and k < NUM_KINDS - 1:
                    k += 1
                    acc += lp[k]
                lp[k] -= 1
                hand.append(k)
            h = _HANDS[last.size].index[tuple(sorted(hand))]
            ids[p, i] = h
            factor *= last.phi_one(rp[i], h)
        if first and up[-1] < factor:
            return p
        keep[p] = factor
    return None if first else keep


def _deal_arrays(lasts: list[LastStep], rows, dealt, left, u, ids) -> np.ndarray:
    """The dealt seats' hands of the proposals where ``dealt`` (proposals x seats), dealt card
    by card from what is ``left`` of ``U`` with the uniforms after the first acceptance's;
    written into ``ids``. Returns each proposal's product of the dealt hands' ``phi / top``."""
    n, m = rows.shape
    keep = np.ones(n)
    col = m + 1
    for i, last in enumerate(lasts):
        d = dealt[:, i]
        if not d.any():
            col += last.size
            continue
        counts = np.zeros((n, NUM_KINDS), dtype=np.int64)
        rows_d = np.flatnonzero(d)
        for _ in range(last.size):
            cl = left[rows_d].cumsum(axis=1)
            x = u[rows_d, col] * cl[:, -1]
            col += 1
            kind = np.minimum((cl <= x[:, None]).sum(axis=1), NUM_KINDS - 1)
            left[rows_d, kind] -= 1
            counts[rows_d, kind] += 1
        keys = counts[d] @ BASE
        where = np.minimum(np.searchsorted(SORTED[last.size], keys), len(KEYS[last.size]) - 1)
        ids[d, i] = KEYS[last.size][where]
        keep[d] *= last.phi(rows[d, i], ids[d, i])
    return keep
