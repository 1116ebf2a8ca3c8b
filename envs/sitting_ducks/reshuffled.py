"""Exact sampling of the other seats' action cards after one or more reshuffles.

What the seat knows at a reshuffle (spec §5.4 and §10): the draw pile is empty, and the discard
pile, public and face up, becomes the new draw pile. So the new pile is a uniformly shuffled
*known* multiset, drawn independently of everything before, and the cards then in the other
seats' hands are known as a whole: every action card that is neither in the discard pile, on
the table, nor in the seat's own hand. Call that multiset ``T_b`` at reshuffle ``b``; only how it
is split among the other seats is hidden. A world (``exact.py``) now gives a kind to every
position of every pile the seat did not see, and with the piles ("epochs") shuffled
independently its count is

    prod_q A_q(G1_q) * prod_b prod_q B^b_q(G^b_q, G^(b+1)_q) * (c_E)_(s_E)   (one factor per
                                                                        split, times a constant)

summed over the splits ``G^b`` of every ``T_b`` (``sum_q G^b_q = T_b`` exactly: a closed pile was
drawn to its last card). ``A_q(G)`` counts the kind sequences of seat q's dealt cards and first
pile's draws that explain its record up to the first reshuffle and leave it holding ``G``;
``B^b_q(G, G')`` counts those of its draws from pile ``b`` that take it from ``G`` to ``G'`` while
explaining its plays and forced discards in between; the last ``G'`` is its hand now, ``H_q``.
``(c_E)_(s_E)``, a falling factorial of the current pile's unseen cards over the ones the others
drew from it, counts the orders of what is left in the pile; it equals a constant times
``(U)_(sum_q H_q)`` with ``U`` the cards the others hold now or the pile holds.

The splits form a Markov chain, one state per reshuffle. While every ``T_b`` has few splits
(``MAX_SPLITS``: always with one or two other seats, usually with three) the sampler sums the
chain forward exactly (``alpha``). The hands now then come one of two ways:

- few ways to take them from ``U`` (a table of at most ``MAX_CELLS`` (split, hands now)
  pairs, counted before it is listed: ``ways.py``): the last step is summed too, over every
  pair weighted by the pile's orders ``|R|! / prod_k R_k!`` (``R = U - sum_q H_q``), and one
  pair is drawn: no rejection;
- otherwise: the split at the last reshuffle is drawn with its weight times each seat's
  bound for its hand now, and the hands now come by the exact rejection of ``now.py`` (a seat
  whose record barely constrains its hand now takes one dealt from what the others left, the
  others draw theirs from their own weights and must fit in ``U`` together); a rejection
  restarts the proposal (one at a time, then vectorized batches, ``BATCHES``), so the
  accepted sample is exact.

In hidden mode the colour assignment is drawn first, with its total weight (part of every
proposal). Up to four players (``MAX_PLAYERS``) every split is listed; a reshuffle with more
than ``MAX_SPLITS`` splits is summed by ``crowded.py`` as at five and six players (since
session 11: along 8 seeded four-player games it served the 12 of 897 positions the replay
served before, at the same mean cost; ``CROWDED`` off: the replay). Five and six players have
millions of splits: there ``crowded.py`` (the default,
``CROWDED``) builds only the splits the record allows and the chain's non-zero steps, sweeps
the last reshuffle's split keeping only what is left of it, and the hands now come by the
rejection above (a position where a fixed trial of ``TRIAL`` proposals accepts under
``MIN_ACCEPTANCE`` is tried again with the hands now drawn tilted, ``tilted.py``, since
session 18; one where that too accepts too rarely, or past ``crowded.MAX_WAYS``, goes to
the replay; the trial's first ``TRIAL_PARTS[0]`` proposals usually decide it alone).

Kept per record (``walks.py``) and extended by the turns played since: the record cut at the
reshuffles (``split.py``), each seat's walk through the first pile and through the current one
(the latter over the candidate hands still alive only: ``walks.walk_rows``, session 8), and the
listed splits with the chain summed up to the last reshuffle (``_listed_kept``); at the next
reshuffle the closed piles' matrices (per record) and each reshuffle's listed splits (by its
multiset and the hand sizes, ``_split_lists``) are not built again, only the newest pile's
(session 8, ``tests/sitting_ducks/test_ducks_piles_kept.py``). Tests:
``tests/sitting_ducks/test_ducks_exact_reshuffled.py`` and ``test_ducks_exact_crowded.py``
(brute force on tiny positions).
"""

from __future__ import annotations

from math import exp, log
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks import crowded, now, tilted, walks, ways
from cardzoo.envs.sitting_ducks.crowded import NotCovered, last_splits
from cardzoo.envs.sitting_ducks.data import MAX_ACTION_CARDS, NUM_KINDS
from cardzoo.envs.sitting_ducks.exact import _HANDS
from cardzoo.envs.sitting_ducks.last_split import Staged, Swept, in_seat_order
from cardzoo.envs.sitting_ducks.split import Split as _Split
from cardzoo.envs.sitting_ducks.split import split_for
from cardzoo.envs.sitting_ducks.walks import advance, one_hot

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

#: The most splits of one reshuffle's ``T_b`` the exact chain takes (its matrices are
#: splits x splits); a position with more is summed by ``crowded.py``.
MAX_SPLITS = 1500
#: Up to four players every split of a reshuffle's multiset is listed; at five and six it
#: has millions, and only those the record allows are built (``crowded.py``).
MAX_PLAYERS = 4
#: Whether five and six players after a reshuffle are sampled exactly (``crowded.py``, the
#: default). Switched off, the replay of ``sampling.py`` (consistent, not exact) serves them.
CROWDED = True


_BASE, _KEYS, _SORTED = now.BASE, now.KEYS, now.SORTED
#: The most (partial splits x hands) one step of ``splits`` may build.
MAX_PAIRS = 60_000


def _take(pool: list[int], sizes: list[int], most: int) -> tuple[np.ndarray, np.ndarray]:
    """Every way to take hands of ``sizes`` cards (in seat order) from the multiset ``pool``:
    (ways x seats) hand indices and (ways x kinds) what is left. NotCovered past ``most``
    ways, or ``MAX_PAIRS`` (partial ways x hands) in one step."""
    if not sizes:
        return np.zeros((1, 0), dtype=np.int64), np.array(pool, dtype=np.int16)[None, :]
    acc, left = _first_seat(pool, sizes[0], most)
    for size in sizes[1:]:
        fit = np.flatnonzero((_COUNTS[size] <= left.max(axis=0)).all(axis=1))
        if len(left) * len(fit) > MAX_PAIRS:
            raise NotCovered
        rest = left[:, None, :] - _COUNTS[size][fit][None, :, :]
        ok_row, ok_hand = np.nonzero((rest >= 0).all(axis=2))
        if len(ok_row) > most:  # every partial way completes: there would be too many
            raise NotCovered
        left = rest[ok_row, ok_hand]
        acc = np.concatenate([acc[ok_row], fit[ok_hand][:, None]], axis=1)
    return acc, left


def _first_seat(pool: list[int], size: int, most: int) -> tuple[np.ndarray, np.ndarray]:
    """``_take``'s first seat: from one row of cards every hand that fits it is a way, so
    none is checked again (session 8): the hands (ways x 1) and what each leaves."""
    left = np.array(pool, dtype=np.int16)
    fit = np.flatnonzero((_COUNTS[size] <= left).all(axis=1))
    if len(fit) > min(most, MAX_PAIRS):
        raise NotCovered
    return fit[:, None], left - _COUNTS[size][fit]


#: Per hand size: each hand's counts per kind, small ints (the enumerations' arrays).
_COUNTS = [t.counts.astype(np.int16) for t in _HANDS]


def splits(pool: list[int], sizes: list[int]) -> np.ndarray:
    """Every way to split the multiset ``pool`` into hands of ``sizes`` cards (in seat order):
    an array (splits x seats) of hand indices. NotCovered past ``MAX_SPLITS``."""
    acc, left = _take(pool, sizes[:-1], MAX_SPLITS)
    size = sizes[-1]
    keep = left.sum(axis=1) == size
    keys = left[keep].astype(np.int64) @ _BASE
    where = np.minimum(np.searchsorted(_SORTED[size], keys), len(_SORTED[size]) - 1)
    keep_key = _SORTED[size][where] == keys  # a count above 3 has no hand
    last = _KEYS[size][where[keep_key]]
    out = np.concatenate([acc[keep][keep_key], last[:, None]], axis=1)
    if len(out) > MAX_SPLITS:
        raise NotCovered
    return out


#: log(n!) for the pile's orders.
_LOG_FACT = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, 256)))])


def final_splits(unseen: list[int], sizes: list[int], before: int) -> tuple | None:
    """The hands now and the pile, summed exactly (no rejection) when there are few ways to
    take the hands from ``U`` (the pile nearly drawn): (ways x seats) hand indices, what is
    left (the pile) per way, and the log of the pile's orders ``|R|! / prod_k R_k!`` up to a
    constant. None when the (splits before x ways) table would pass ``MAX_CELLS``: with two
    or more seats counted first (``ways.count``), so that a table too large is never listed
    (one seat's listing is one step, cheaper than the count), and before the count a lower
    bound on it (``ways.at_least``), which usually decides alone (session 8)."""
    most = MAX_CELLS // max(before, 1)
    if len(sizes) > 1 and (ways.at_least(unseen, sizes) > most or ways.count(unseen, sizes) > most):
        return None
    try:
        hands, pile = _take(unseen, sizes, MAX_CELLS // max(before, 1))
    except NotCovered:
        return None
    if len(hands) * before > MAX_CELLS:
        return None
    return hands, pile.astype(np.int64), -_LOG_FACT[pile].sum(axis=1)


#: The largest table the last step sums exactly (else the hands now come by rejection). Small
#: (session 7): at three players a table of tens of thousands of cells cost more (2-3 ms to
#: list and weigh) than the rejection it spares; det_along mean 3p 0.96 -> 0.48 ms (6 games,
#: A/B interleaved, 600k -> 0 cells; 1,000: 0.50 ms, and the tiny tables stay summed).
MAX_CELLS = 1_000


class _Chain:
    """Per colour assignment: the split at the last reshuffle (cumulative weights ``cum`` over
    its splits, ``rows``: each seat's candidate row), then each other seat's ``_Last``, or the
    weights of every (split, hands now) pair summed (``final``); ``log_weight`` is the log of
    the assignment's total weight. ``prefix``: alpha over the last reshuffle's splits and its
    log scale (``_prefix``)."""

    def __init__(self, split: _Split, cands: list, pos: list, keys: list[int], prefix, final, memo):
        alpha, scale = prefix
        unseen = np.array(split.unseen, dtype=float)
        ends = []
        for i, (q, key) in enumerate(zip(split.others, keys)):
            # The last pile's walk, kept per record (``walks.py``): only its new steps walked.
            name = ("last", split.player, q, key)
            start = _start(cands[-1][i], split.sizes[-1][q])
            steps = split.steps[q][-1]
            ends.append(walks.walk_rows(memo, name, start, steps, key, split.last_reshuffle))
            scale += ends[-1][3]
        self.rows = pos[-1]
        self.hands = final[0] if final else None
        self.lasts = []
        if not final:
            for i, ((v, live, size, _), rows) in enumerate(zip(ends, cands[-1])):
                extra = None
                if i == len(ends) - 1:
                    extra = now.leftover_of_last(int(unseen.sum()), self.lasts, size)
                self.lasts.append(now.LastStep(v, size, unseen, live, len(rows), leftover=extra))
        if self.lasts:  # one kept array for the seats: a batch draws every seat's hand at once
            now.link(self.lasts)
        if final:  # the hands now summed exactly: weights per way of taking them
            hands, _, pile_log = final
            step = np.exp(pile_log - pile_log.max())[None, :]
            for i, (v, live, _, _) in enumerate(ends):
                at = _live_at(v, live, len(cands[-1][i]))
                step = step * at[np.ix_(pos[-1][:, i], hands[:, i])]
            w, deals = alpha @ step, float(pile_log.max())
        else:  # the hands now by rejection (``now.py``): each seat's bound, the deals' ways
            w = alpha
            for i, last in enumerate(self.lasts):
                w = w * last.bound[pos[-1][:, i]]
            extra = now.log_deal(self.lasts, pos[-1], int(unseen.sum()))
            deals = float(extra.max())
            w = w * np.exp(extra - deals)
        total = float(w.sum())
        self.cum = np.cumsum(w)
        self.log_weight = scale + log(total) + deals if total > 0 else float("-inf")


def _live_at(v: np.ndarray, live: np.ndarray, rows: int) -> np.ndarray:
    """A walk's weights over all its ``rows`` rows, from those of its live rows ``live``
    (``walks.walk_rows``); the rows left out weigh zero."""
    out = np.zeros((rows, v.shape[1]))
    out[live] = v
    return out


def _start(rows: np.ndarray, size: int):
    """A walk's start (``walks.walk``): one row per candidate hand of ``size`` cards."""
    return lambda: (one_hot(rows, size), size)


def _prefix(split: _Split, cands: list, pos: list, keys: list[int], memo) -> tuple:
    """The record before the last reshuffle summed: alpha over that reshuffle's splits and its
    log scale. With one other seat every split is forced (its hand is all of ``T_b``): flat."""
    alpha, scale = np.ones(len(pos[0])), 0.0
    if len(split.others) == 1:
        return alpha, scale
    mats: list[list[np.ndarray]] = [[] for _ in pos[1:]]
    for i, (q, key) in enumerate(zip(split.others, keys)):
        deal = walks.from_deal(split.dealt[q])
        v, size, s = walks.walk(memo, ("deal", q, key), deal, split.steps[q][0], key)
        alpha, scale = alpha * v[cands[0][i]][pos[0][:, i]], scale + s
        for b in range(1, len(pos)):
            # A closed pile's matrix is the same at every later reshuffle: kept per record
            # (session 8), only the pile closed last is walked.
            name = ("pile", split.player, q, key, b)
            found = memo.get(name) if memo is not None else None
            if found is None:
                v, size, s = advance(one_hot(cands[b - 1][i], size), size, split.steps[q][b], key)
                found = (v[:, cands[b][i]], size, s)
                if memo is not None:
                    memo[name] = found
            mat, size, s = found
            mats[b - 1].append(mat)
            scale += s
    return _forward(alpha, scale, mats, pos)


def _cached_prefix(state: State, player: int, split: _Split, cands, pos, keys: tuple) -> tuple:
    """``_prefix``, kept while the record's last reshuffle stays the same (``_PREFIXES``)."""
    key = (id(state._log), split.last_reshuffle, player, keys)
    found = _PREFIXES.get(key)
    if found is None or found[0] is not state._log:
        if len(_PREFIXES) >= 64:
            _PREFIXES.clear()
        memo = walks.memo_for(state._log)
        found = _PREFIXES[key] = (state._log, _prefix(split, cands, pos, list(keys), memo))
    return found[1]


#: Recent prefixes by (id of the record, where its last reshuffle is, seat, colour keys), each
#: kept with its record: from one reshuffle to the next only the last pile's steps change.
_PREFIXES: dict[tuple, tuple] = {}


def _forward(alpha: np.ndarray, scale: float, mats: list, pos: list) -> tuple[np.ndarray, float]:
    """Sum the chain of splits forward: from the weights of the first reshuffle's splits to
    those of the last one's, each step the product of the seats' matrices (log scale kept)."""
    for b, seat_mats in enumerate(mats):
        step = np.ones((len(pos[b]), len(pos[b + 1])))
        for i, m in enumerate(seat_mats):
            step *= m[np.ix_(pos[b][:, i], pos[b + 1][:, i])]
        alpha = alpha @ step
        total = float(alpha.sum())
        if total <= 0.0:
            return alpha, float("-inf")
        alpha, scale = alpha / total, scale + log(total)
    return alpha, scale


def _listed(state: State, player: int, split: _Split, keyed: list[tuple]) -> dict:
    """Two to four players: every split of each reshuffle's multiset listed, and per colour
    keys the last reshuffle's (candidate hands, splits' rows, prefix)."""
    sizes = [tuple(s[q] for q in split.others) for s in split.sizes]
    lists = [_split_lists(pool, n) for pool, n in zip(split.pools, sizes)]
    cands, pos = [c for c, _ in lists], [p for _, p in lists]
    return {
        keys: ("splits", cands[-1], pos[-1], _cached_prefix(state, player, split, cands, pos, keys))
        for keys in keyed
    }


def _split_lists(pool: list[int], sizes: tuple[int, ...]) -> tuple[list, np.ndarray]:
    """Every split of ``pool`` into hands of ``sizes`` (``splits``), as per seat the hands it
    may hold (sorted) and each split's row in them. Kept by ``(pool, sizes)`` (``_LISTS``):
    from one reshuffle to the next only the newest multiset is new (session 8). NotCovered
    past ``MAX_SPLITS``. Read only: the arrays are shared."""
    key = (tuple(pool), sizes)
    if key not in _LISTS:
        if len(_LISTS) >= 256:
            _LISTS.clear()
        try:
            parts = splits(pool, list(sizes))
        except NotCovered:
            _LISTS[key] = None
        else:
            cands = [np.unique(parts[:, i]) for i in range(len(sizes))]
            rows = [np.searchsorted(c, parts[:, i]) for i, c in enumerate(cands)]
            _LISTS[key] = (cands, np.stack(rows, axis=1))
    if _LISTS[key] is None:
        raise NotCovered
    return _LISTS[key]


#: ``_split_lists``' answers by (multiset, sizes); None where there are too many splits.
_LISTS: dict[tuple, tuple | None] = {}


def _listed_kept(state: State, player: int, split: _Split, keyed: list[tuple], memo) -> dict:
    """``_listed``, kept in the record's memo (``walks.py``) until the next reshuffle: it reads
    the record up to the last reshuffle only. NotCovered (kept too) past ``MAX_SPLITS``."""
    origin = (split.last_reshuffle, tuple(keyed))
    found = memo.get(("listed", player))
    if found is None or found[0] != origin:
        try:
            found = (origin, _listed(state, player, split, keyed))
        except NotCovered:
            found = (origin, None)
        memo[("listed", player)] = found
    if found[1] is None:
        raise NotCovered
    return found[1]


def _last_reshuffle(state: State, player: int, split: _Split, keyed: list[tuple], walked):
    """The record summed up to the last reshuffle, per colour keys: every split listed (two to
    four players, ``_listed_kept``), or only the splits the record allows (``crowded.py``: five
    and six players, and four where a reshuffle has more than ``MAX_SPLITS`` splits to list).
    Returns those sums, the colour keys (merged where ``crowded.py`` sums) and whether
    ``crowded.py`` summed them."""
    if state.num_players <= MAX_PLAYERS:
        try:
            return (
                _listed_kept(state, player, split, list(dict.fromkeys(keyed)), walked),
                keyed,
                False,
            )
        except NotCovered:  # too many splits to list
            if not CROWDED:
                raise
    keyed = _same_masks(split, keyed)
    memo = crowded.memo_for(state._log, player, len(split.pools))
    memo["record"] = walked  # the first pile's walks, shared by every viewer
    return {keys: _crowded(split, keys, memo) for keys in dict.fromkeys(keyed)}, keyed, True


def _crowded(split: _Split, keys: tuple[int, ...], memo: dict, tilt=None) -> tuple | None:
    """Only the splits the record allows (``crowded.py``; ``tilt``: ``tilted.py``)."""
    return last_splits(split, list(keys), advance, memo, tilt)


def _same_masks(split: _Split, keyed: list[tuple]) -> list[tuple]:
    """Colour keys that give a seat the same forced-discard masks weigh alike: each becomes
    the smallest key with the same masks, so each distinct chain is summed once."""
    canon = []
    for q in split.others:
        forced = split.forced[q]
        seen: dict[tuple, int] = {}
        canon.append(
            {
                c: seen.setdefault(tuple(f[c] for f in forced), c)
                for c in range(len(forced[0]) if forced else 0)
            }
        )
    return [tuple(canon[i].get(k, k) for i, k in enumerate(keys)) for keys in keyed]


class _NoWorld:
    """A colour assignment no world explains: weight zero, never drawn."""

    log_weight = float("-inf")


class Posterior:
    """Everything the samples of one position for one seat share (see the module docstring).
    Where ``crowded.py`` sums (past ``MAX_PLAYERS``, or a reshuffle's multiset with more than
    ``MAX_SPLITS`` splits): NotCovered past ``crowded.MAX_WAYS`` or a trial accepting too
    rarely, or if ``CROWDED`` is off."""

    __slots__ = (
        "log",
        "unseen",
        "choices",
        "choice_cum",
        "chains",
        "others",
        "final",
        "sizes",
        "log_falling",
        "log_falling_rows",
        "batches",
        "unseen_array",
    )

    def __init__(self, state: State, player: int, split=None, walked=None) -> None:
        from cardzoo.envs.sitting_ducks.sampling import colour_assignments

        if state.num_players > MAX_PLAYERS and not CROWDED:
            raise NotCovered
        self.log = state._log
        if walked is None:  # the seats' walks and the split kept for this record
            walked = walks.memo_for(state._log)
        if split is None:
            split = split_for(state, player, walked)
        split.check()
        self.others = [q for q in range(state.num_players) if q != player]
        self.batches = BATCHES  # the draws' schedule, unless a trial measured the position
        self.unseen = split.unseen[:]  # the split is kept for later positions
        self.unseen_array = np.array(self.unseen, dtype=np.int64)
        self.log_falling = log_falling(split.unseen)
        self.log_falling_rows = self.log_falling.tolist()  # for proposals one at a time
        self.sizes = [split.final[q] for q in self.others]
        hidden = state.mode == "hidden"
        discarded = {q for q in self.others if split.forced[q]}
        self.choices = colour_assignments(state, player)
        keyed = [
            tuple(owners.index(q) if hidden and q in discarded else 0 for q in self.others)
            for owners in self.choices
        ]
        lasts, keyed, summed = _last_reshuffle(state, player, split, keyed, walked)
        self.final = None  # summed: the hands now come from crowded.py's chains
        if not summed:
            before = len(next(iter(lasts.values()))[2])
            self.final = final_splits(split.unseen, self.sizes, before)
        self._chains(state, player, lasts, keyed, split, walked)
        if summed and any(isinstance(c, Swept) for c in self.chains):
            # The hands now by rejection accept rarely where the draw pile is (nearly) empty:
            # a position where a fixed trial (a function of the position alone) accepts too
            # rarely is tried with the hands now tilted (``tilted.py``), then goes to the
            # replay.
            def rebuild(tilt: np.ndarray) -> None:  # the chains again, the hands now tilted
                memo = crowded.memo_for(state._log, player, len(split.pools))
                sums = {keys: _crowded(split, keys, memo, tilt) for keys in dict.fromkeys(keyed)}
                self._chains(state, player, sums, keyed, split, walked)

            if not self._trial_accepts() and not tilted.fit(self, rebuild):
                # The tilt can make a position worse: the plain proposals serve where they
                # accept what the tilted ones may (session 44).
                if not PLAIN_AFTER_TILT:
                    raise NotCovered
                self._chains(state, player, lasts, keyed, split, walked)
                if not self._trial_accepts(tilted.TRIAL, tilted.MIN_ACCEPTANCE):
                    raise NotCovered

    def _chains(self, state, player, lasts: dict, keyed: list, split: _Split, walked) -> None:
        """The chains per colour assignment from the sums per colour keys, and the
        assignments' cumulative weights."""
        by_keys: dict[tuple[int, ...], _Chain | Staged | Swept | _NoWorld] = {}
        for keys, found in lasts.items():
            if found is None:
                by_keys[keys] = _NoWorld()
            elif found[0] == "staged":
                by_keys[keys] = Staged(*found[1:])
            elif found[0] == "swept":
                by_keys[keys] = Swept(*found[1:])
            else:
                _, cands, pos, prefix = found
                chain = _Chain(split, [cands], [pos], list(keys), prefix, self.final, walked)
                by_keys[keys] = chain
        self.chains = [by_keys[keys] for keys in keyed]
        logs = [chain.log_weight for chain in self.chains]
        best = max(logs)
        if best == float("-inf"):
            raise RuntimeError(
                f"sitting_ducks determinize: no world is consistent with what seat {player} "
                f"saw (turn {state.turn}); the public record cannot be explained (a bug)"
            )
        self.choice_cum = np.cumsum([exp(x - best) for x in logs])

    def _trial_accepts(self, trial: int | None = None, least: float | None = None) -> bool:
        """Whether ``trial`` (``TRIAL``) proposals from a fixed seed accept at least ``least``
        (``MIN_ACCEPTANCE``) of the time. Each proposal reads its own row of uniforms, so
        the trial is made in parts (``TRIAL_PARTS``: the first proposals of the whole trial,
        then more): as soon as enough were accepted the rest cannot change the answer and
        are not made (most positions decide within the first part)."""
        rng = np.random.default_rng(0)
        trial = TRIAL if trial is None else trial
        least = MIN_ACCEPTANCE if least is None else least
        needed = least * trial
        accepted, made = 0, 0
        for end in (*TRIAL_PARTS, trial):
            if end <= made:
                continue
            accepted += int(self._proposals(rng, end - made)[2].sum())
            made = end
            if accepted >= needed:
                if ADAPTIVE and accepted:
                    self.batches = schedule(accepted / made)
                return True
        return False

    def draw(self, rng: np.random.Generator) -> tuple[list[int], list[list[int]], list[int]]:
        """Proposals until one is accepted (in batches once a few failed, see ``BATCHES``):
        (owners, hands, draw pile); the viewer's own hand is left empty."""
        tries = 0
        while True:
            k = self.batches[min(tries, len(self.batches) - 1)]
            found = self._one(rng) if k == 1 else self._first_accepted(rng, k)
            tries += 1
            if found is not None:
                break
        a, hand_ids = found
        hands: list[list[int]] = [[] for _ in range(len(self.others) + 1)]
        left = self.unseen[:]
        for q, size, h in zip(self.others, self.sizes, hand_ids):
            hands[q] = list(_HANDS[size].hands[h])
            for k in hands[q]:
                left[k] -= 1
        pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        return self.choices[a], hands, [pile[j] for j in rng.permutation(len(pile)).tolist()]

    def _one(self, rng: np.random.Generator) -> tuple | None:
        """One proposal as in ``_first_accepted``, without the arrays' overhead."""
        m = len(self.others)
        u = rng.random(now.uniforms(m) + 2 + m).tolist()
        a = int(np.searchsorted(self.choice_cum, u.pop() * self.choice_cum[-1], "right"))
        chain = self.chains[a]
        if isinstance(chain, Swept):  # the first m uniforms walk back, the rest propose
            rows = chain.pick_rows_one(u.pop(), u[:m])
            ids = now.propose_one(chain.lasts, rows, self.unseen, self.log_falling_rows, u)
            return None if ids is None else (a, in_seat_order(chain.order, ids))
        j = int(np.searchsorted(chain.cum, u.pop() * chain.cum[-1], "right"))
        if isinstance(chain, Staged):  # the hands now were summed: no rejection
            return a, in_seat_order(chain.order, chain.pick(j, u))
        if chain.hands is not None:  # the hands now were summed: no rejection
            return a, chain.hands[j].tolist()
        else:
            rows = chain.rows[j].tolist()
        ids = now.propose_one(chain.lasts, rows, self.unseen, self.log_falling_rows, u)
        if ids is None:
            return None
        return a, in_seat_order(getattr(chain, "order", None), ids)

    def _first_accepted(self, rng: np.random.Generator, k: int) -> tuple | None:
        """``k`` independent proposals (``_proposals``): (assignment, each seat's hand index
        now) of the first one accepted, or None."""
        a, ids, accepted = self._proposals(rng, k, first=True)
        if not accepted.any():
            return None
        first = int(np.argmax(accepted))
        return int(a[first]), ids[first].tolist()

    def _proposals(self, rng: np.random.Generator, k: int, first: bool = False) -> tuple:
        """``k`` independent proposals: their assignments, each seat's hand index now, and
        whether each is accepted. A proposal is an assignment, a split at the last reshuffle,
        then each seat's hand now from its row (``now.py``). With ``first``, of each
        assignment's proposals only the first accepted is marked (``now.propose_many``)."""
        m = len(self.others)
        u = rng.random((k, now.uniforms(m) + 2 + m))
        if len(self.chains) == 1:  # one assignment (always but in hidden mode)
            return (np.zeros(k, dtype=np.int64), *self._from_chain(self.chains[0], u, first))
        a = np.searchsorted(self.choice_cum, u[:, 0] * self.choice_cum[-1], "right")
        ids = np.zeros((k, m), dtype=np.int64)
        accepted = np.zeros(k, dtype=bool)
        for ai in np.unique(a).tolist():
            sel = np.flatnonzero(a == ai)
            ids[sel], accepted[sel] = self._from_chain(self.chains[ai], u[sel], first)
        return a, ids, accepted

    def _from_chain(self, chain, u: np.ndarray, first: bool = False) -> tuple:
        """Proposals under one assignment's chain from their uniforms (rows of ``u``, as
        ``_proposals`` lays them out): each seat's hand index now, and which are accepted."""
        m = len(self.others)
        if isinstance(chain, Swept):  # the last m uniforms walk back (where it does)
            got, accepted = now.propose_many(
                chain.lasts,
                chain.pick_rows(u[:, 1], u[:, -m:]),
                self.unseen_array,
                self.log_falling,
                u[:, 2:-m],
                first,
            )
            return in_seat_order(chain.order, got), accepted
        j = np.searchsorted(chain.cum, u[:, 1] * chain.cum[-1], "right")
        if isinstance(chain, Staged):  # the hands now were summed exactly: no rejection
            ids = np.array(
                [
                    in_seat_order(chain.order, chain.pick(int(state), row[2:]))
                    for state, row in zip(j.tolist(), u.tolist())
                ],
                dtype=np.int64,
            ).reshape(len(u), m)
            return ids, np.ones(len(u), dtype=bool)
        if isinstance(chain, _Chain) and chain.hands is not None:  # summed: no rejection
            return chain.hands[j], np.ones(len(u), dtype=bool)
        got, accepted = now.propose_many(
            chain.lasts, chain.rows[j], self.unseen_array, self.log_falling, u[:, 2:-m], first
        )
        return in_seat_order(getattr(chain, "order", None), got), accepted


#: Five and six players: proposals of the fixed trial, and the share of them that must be
#: accepted (else the replay serves the position). 1/1024 of 4096 since session 11 (before: 1 %
#: of 256): of the positions the old trial declined along three seeded six-player games, 48 of
#: 51 accepted 0.006-2 % of 16,384 proposals (41 at least 1/1024; about 3 us a proposal in
#: batches), and a sample at 0.1-1 % costs less than the replay's (2.3 ms against 4.0 at 0.3 %;
#: docs/rules/sitting_ducks.md). 1/4096 of 16,384 since session 12, the batches being cheaper
#: (about 5 us a proposal in batches of 512 at six players): along seeds 0-2 at six players
#: the positions the trial declined went 10 -> 3 of 668 calls, for the same mean first call
#: (15.4 -> 15.6 ms) and repeated call (0.63 -> 0.64 ms; the slowest 8.4 -> 6.8 ms), a
#: position still declined costing 41 ms instead of 18 for its first call.
TRIAL = 16384
MIN_ACCEPTANCE = 1 / 4096
#: Where neither the trial above nor the tilted one (``tilted.py``) accepts often enough, the
#: plain proposals are tried once more with the tilted trial's length and floor
#: (``tilted.TRIAL``, ``tilted.MIN_ACCEPTANCE``) before the replay serves (session 44: at
#: six-player game 3211's decision 169 they accept about 1/4100, the tilted ones 1/16,900).
PLAIN_AFTER_TILT = True
#: Where the trial's parts end (``Posterior._trial_accepts``): most positions accept enough
#: within the first part.
TRIAL_PARTS = (32, 256, 4096)
#: Proposals per batch: one at a time first (most positions accept at once), then batches
#: growing to the last size, repeated until one is accepted. Eight alone since session 12
#: (was two, then 8, 32, ...): at four players one proposal costs 0.03 ms and a batch 0.29 ms
#: at 8, 0.35 at 32, and half the positions accept 37-62 % of the proposals. Repeated calls
#: at the bench's 16 late four-player positions 0.25 -> 0.18 ms (middle 0.17 -> 0.13, three
#: players late 0.125 -> 0.10); det_along over 3 games, 10 repeated calls per position:
#: 4p 0.185 -> 0.141 ms, 3p 0.115 -> 0.094, first calls unchanged. Where a trial measured the
#: position (five and six players) ``schedule`` sets the batches instead.
BATCHES = (1, 1, 1, 1, 1, 1, 1, 1, 32, 128, 512)


#: Five and six players: the draws' batches follow the trial's share accepted (``schedule``).
ADAPTIVE = True
#: What proposals cost (ms, six players): one alone (``Posterior._one``), and a batch of
#: ``k``: ``BATCH_COST[0] + k * BATCH_COST[1]``. Only their ratios matter. Session 15
#: (cheaper batches), at the bench's 16 middle and 16 late six-player positions, two runs on
#: a machine whose speed drifted 1.6-fold: 0.034-0.059 ms alone, 0.10-0.17 / 0.14-0.23 /
#: 0.28-0.42 / 0.77-1.10 ms in batches of 8 / 32 / 128 / 512 (session 12: 0.06 ms alone,
#: 0.40 / 0.58 / 0.96 / 2.5 ms in batches).
ONE_COST = 0.04
BATCH_COST = (0.115, 0.0014)
#: The batch sizes ``schedule`` chooses from, and the proposals tried alone before them.
SIZES = (8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
ALONE = 5


def schedule(rate: float) -> tuple[int, ...]:
    """The draws' batches at a position accepting about ``rate`` of the proposals: the batch
    size that makes an accepted proposal cheapest when batches of it are repeated, after
    ``ALONE`` proposals one at a time if those cost less than that (a fixed batch schedule
    starts with one at a time and grows, which at 5-10 % acceptance pays a batch's overhead
    three or four times). Every schedule takes the first accepted proposal of one sequence of
    independent ones: the sample is exact whatever the schedule; the rate comes from the fixed
    trial, so the schedule is a function of the position alone."""

    def per_sample(k: int) -> float:
        return (BATCH_COST[0] + k * BATCH_COST[1]) / (1.0 - (1.0 - rate) ** k)

    best = min(SIZES, key=per_sample)
    if ONE_COST / rate < per_sample(best):
        return (1,) * ALONE + (best,)
    return (best,)


def log_falling(unseen: list[int]) -> np.ndarray:
    """``[k, m]``: log of the falling factorial ``(U_k)_m`` (-inf where ``m > U_k``)."""
    return _LOG_FALLING[np.asarray(unseen, dtype=np.int64)]


def _log_falling_table(most: int) -> np.ndarray:
    """``[c, m]``: log ``(c)_m`` for ``c`` up to ``most``, ``m`` up to ``now.MAX_TAKEN``."""
    out = np.full((most + 1, now.MAX_TAKEN + 1), -np.inf)
    for c in range(most + 1):
        for m in range(min(c, now.MAX_TAKEN) + 1):
            out[c, m] = sum(log(c - i) for i in range(m))
    return out


#: ``log_falling``'s rows, one per count of unseen cards of a kind (up to a whole deck).
_LOG_FALLING = _log_falling_table(MAX_ACTION_CARDS)
