"""Exact sampling of the other seats' action cards while no reshuffle has happened yet.

Target (issue 16): the uniform distribution over the *worlds* consistent with everything
``player`` saw, where a world gives a kind to every position of the shuffled action deck that
``player`` did not see (the other seats' dealt cards, their draws, the draw pile) and, in hidden
mode, a colour to every other seat. A uniformly shuffled deck makes every arrangement of its
kinds equally likely, so this is the exact posterior of the deal given the public record, each
record entry read as a constraint (a seat held the card it played; a seat that discarded held
no playable card).

Until the first reshuffle every such position comes from the one dealt deck, and the count of
worlds factorises:

    worlds(H_1..H_n) = prod_q N_q(H_q) * |R|! / prod_k R_k!

where ``H_q`` is seat q's hand now, ``N_q(H)`` the number of kind sequences for q's own dealt
cards and draws that explain every play and forced discard of q and leave it holding ``H``, and
``R = c - sum_q H_q`` the draw pile (``c``: the deck's cards that ``player`` neither holds nor
saw played or drawn). ``N_q`` is a vector over the 816 hands of three cards (a multiset of
kinds), computed by a forward pass over q's turns: a play keeps the hands holding the card and
removes it, a forced discard keeps the hands made only of unplayable kinds, a draw adds any
kind. The coupling through the draw pile is handled by rejection: each hand is proposed
independently with weight ``N_q(H) * prod_k c_k^H[k]`` and the whole proposal accepted with
probability ``prod_k (c_k)_(s_k) / c_k^s_k`` (``s = sum_q H_q``, a falling factorial over a
power, at most 1), which leaves exactly the target. In hidden mode the colour assignment is part
of the proposal: drawn with weight ``prod_q Z_q`` (``Z_q`` the sum of seat q's proposal weights
under its colour, which decides its forced discards' masks), accepted or rejected with the hands.

After a reshuffle the cards of several piles are mixed in the hands and the counts no longer
factorise this way. What the seat knows there still makes the posterior a short chain: the new
pile is the public discard pile, shuffled, and the others' hands at that moment hold a known
multiset (``reshuffled.py`` works it through); ``sample`` serves those positions too, and
returns None (the replay of ``sampling.py``, not exact, takes over) only where a
reshuffle's known multiset has too many splits among the other seats: where ``crowded.py``
sums them (five and six players, and two to four past ``reshuffled.MAX_SPLITS`` since
session 11) past its guards (``crowded.MAX_WAYS``, ``crowded.MAX_KEPT``) or where its
rejection accepts too rarely, plainly and tilted (``tilted.py``), or past ``MAX_SPLITS`` if
``reshuffled.CROWDED`` is switched off.

Along a game (a call at every decision, issue 16) nothing here is read afresh from the whole
record: the record cut at the reshuffles (``split.py``) and each seat's walk ``N_q`` (``walks.py``)
are kept per record and extended by the turns played since the last call; both are the same
whoever the viewer is, apart from the viewer's own cards.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import combinations_with_replacement
from math import exp, factorial, log
from typing import TYPE_CHECKING, Any

import numpy as np
from cardzoo.envs.sitting_ducks.data import NUM_KINDS, ORDER_PHASE

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

#: The largest hand (a hand-set position may give a seat more cards: the replay serves it).
MAX_HAND = 3


class _Hands:
    """The hands of ``m`` cards (multisets of kinds, as sorted tuples) and per-hand tables."""

    def __init__(self, m: int) -> None:
        self.hands = list(combinations_with_replacement(range(NUM_KINDS), m))
        self.counts = np.array([[h.count(k) for k in range(NUM_KINDS)] for h in self.hands])
        self.counts = self.counts.reshape(len(self.hands), NUM_KINDS)
        #: Bitmask of the kinds in each hand (a forced discard keeps the unplayable ones).
        self.kinds = np.array([sum(1 << k for k in set(h)) for h in self.hands], dtype=np.int64)
        #: Dealt hands: how many orders of m dealt positions give that multiset.
        self.orders = np.array([factorial(m) / _perms(h) for h in self.hands])
        index = {h: i for i, h in enumerate(self.hands)}
        self.index = index
        #: Per hand and card: its kind, and how many cards of that kind come before it.
        self.slot_kind = np.array(self.hands, dtype=np.int64).reshape(len(self.hands), m)
        self.slot_rank = np.array(
            [[h[:j].count(k) for j, k in enumerate(h)] for h in self.hands], dtype=float
        ).reshape(len(self.hands), m)
        smaller = list(combinations_with_replacement(range(NUM_KINDS), m - 1)) if m else []
        small_index = {h: i for i, h in enumerate(smaller)}
        #: play[k][i]: the m-card hand that becomes the (m-1)-card hand i once k is played.
        self.play = np.array(
            [[index[tuple(sorted((*h, k)))] for h in smaller] for k in range(NUM_KINDS)]
        ).reshape(NUM_KINDS, len(smaller))
        #: draw[r][i]: the (m-1)-card hand that became hand i by drawing its r-th distinct kind,
        #: or the padding index len(smaller) (weight 0) when it has fewer distinct kinds.
        self.draw = np.full((max(m, 1), len(self.hands)), len(smaller))
        for i, h in enumerate(self.hands):
            for r, k in enumerate(sorted(set(h))):
                rest = list(h)
                rest.remove(k)
                self.draw[r, i] = small_index[tuple(rest)]


def _perms(h: tuple[int, ...]) -> int:
    out = 1
    for k in set(h):
        out *= factorial(h.count(k))
    return out


#: _HANDS[m]: the tables of the hands of m cards.
_HANDS = [_Hands(m) for m in range(MAX_HAND + 1)]


def applies(state: State) -> bool:
    """Whether this module's own sampler covers the position: no reshuffle yet, and
    ``covered`` holds."""
    return covered(state) and all(e[3] is None for e in state._log[1 : state._log_len])


def covered(state: State) -> bool:
    """Whether the exact samplers may take the position at all: every turn of the record ended
    with its draw (a tiny deck can leave the draw pile and discards both empty), and no hand
    was dealt more than ``MAX_HAND`` cards (hand-set positions may). After a reshuffle
    ``reshuffled.py`` may still decline it (too many splits): ``sample`` returns None."""
    log_ = state._log
    if any(len(h) > MAX_HAND for h in log_[0][1]):
        return False
    return all(log_[i][4] >= 0 for i in range(1, state._log_len))


def _record(state: State) -> list[tuple]:
    entries = list(state._log[1 : state._log_len])
    if state.phase == ORDER_PHASE:  # Disorderly Conduckt played, its turn not logged yet
        entries.append((state.current_player, state._turn_card, None, None, -1))
    return entries


def seat_weights(
    steps: list, q: int, dealt: int, mask_key: int, memo: dict | None = None
) -> tuple[np.ndarray, int, float]:
    """``N_q`` up to a factor: per hand seat q may hold now, the number of kind sequences of
    its ``dealt`` cards and its draws that explain its record (``steps``: seat q's, from its
    deal). Returns the vector (over the hands of ``size`` cards), ``size``, and the natural
    log of the factor. ``memo`` (``walks.memo_for``): the walk is kept there and a later
    position of the record walks only its new steps."""
    from cardzoo.envs.sitting_ducks import walks

    return walks.walk(memo, ("deal", q, mask_key), walks.from_deal(dealt), steps, mask_key)


def play_step(v: np.ndarray, size: int, card: int, forced: Any, key: int) -> tuple[np.ndarray, int]:
    """Weights over hands of ``size`` cards (last axis) after playing ``card``: only hands that
    hold it stay, without it; a forced discard (``forced``: masks by ``key``) first keeps only
    the hands of unplayable kinds."""
    table = _HANDS[size]
    if forced is not None:
        v = v * ((table.kinds & ~forced[key]) == 0)
    return v[..., table.play[card]], size - 1


def draw_step(v: np.ndarray, size: int) -> tuple[np.ndarray, int]:
    """Weights over hands of ``size`` cards (last axis) after drawing a card of any kind."""
    draw = _HANDS[size + 1].draw
    if v.ndim == 2:
        # Hands as rows (rows x hands -> hands x rows): ``take`` along the first axis copies
        # whole rows, 2-3 times faster than gathering columns at 5-60 rows (session 43).
        # The same sums in the same order, so the same bits; the answer is a transposed view.
        padded = np.empty((v.shape[1] + 1, v.shape[0]))
        padded[:-1] = v.T
        padded[-1] = 0.0
        out = np.take(padded, draw[0], axis=0)
        for r in range(1, len(draw)):
            out += np.take(padded, draw[r], axis=0)
        return out.T, size + 1
    padded = np.concatenate([v, np.zeros((*v.shape[:-1], 1))], axis=-1)
    # One hand's predecessors at a time, added in place: the same sums in the same order as
    # gathering them all at once, without that (rows x 3 x hands) array (session 7).
    out = padded[..., draw[0]]
    for r in range(1, len(draw)):
        out += padded[..., draw[r]]
    return out, size + 1


def normalised(v: np.ndarray) -> tuple[np.ndarray, float]:
    """``v`` over its sum and the log of that sum; ``-inf`` (``v`` unchanged) when it is 0."""
    total = float(v.sum())
    if total <= 0.0:
        return v, float("-inf")
    return v / total, log(total)


def _falling(c: np.ndarray, size: int) -> np.ndarray:
    """Per hand of ``size`` cards: prod_k (c_k)_(H[k]), the ways to pick its cards from ``c``
    physical cards per kind (zero where a kind runs short: one factor is then 0). Kept by
    ``c`` and ``size`` (``_FALLING``: one call weighs every other seat against the same
    ``c``); the products of small integers are exact, slot by slot as over the rows (session
    8). Read only: the array is shared."""
    key = (c.dtype.str, c.tobytes(), size)
    found = _FALLING.get(key)
    if found is None:
        if len(_FALLING) >= 64:
            _FALLING.clear()
        kinds, ranks = _SLOTS[size]
        found = np.ones(len(_HANDS[size].hands))
        for j in range(size):
            found = found * (c[kinds[j]] - ranks[j])
        _FALLING[key] = found
    return found


#: ``_falling``'s answers by (the counts' type and bytes, size).
_FALLING: dict[tuple[str, bytes, int], np.ndarray] = {}
#: Per hand size: each slot's kinds and ranks over the hands (slot-major).
_SLOTS = [(t.slot_kind.T.copy(), t.slot_rank.T.copy()) for t in _HANDS]


class _Seat:
    """One seat's proposal, given its colour (which decides its forced discards' masks).

    ``dealt``: the seat takes a uniformly dealt hand, accepted with probability ``phi[H] =
    N(H) / orders(H)`` over its maximum, when that accepts often (``DEALT_AT_LEAST``); otherwise
    its hand is drawn with weight ``N(H) * (c)_H`` (``cum``: cumulative weights). ``log_weight``
    is the log of the proposal's normaliser (max of phi for a dealt seat), factor included."""

    __slots__ = ("size", "dealt", "cum", "phi", "log_weight")

    def __init__(self, v: np.ndarray, size: int, scale: float, c: np.ndarray) -> None:
        table = _HANDS[size]
        self.size = size
        w = v * _falling(c, size)
        total = float(w.sum())
        phi = v / table.orders
        top = float(phi.max()) if len(phi) else 0.0
        if total <= 0.0 or scale == float("-inf"):
            self.dealt, self.cum, self.phi, self.log_weight = False, [], [], float("-inf")
            return
        # The chance that a uniformly dealt hand is accepted: sum_H N(H) (c)_H / (top (|c|)_m).
        deal_rate = total / (top * float(np.prod(c.sum() - np.arange(size))))
        self.dealt = deal_rate >= DEALT_AT_LEAST * (1.0 - 1e-9)  # see now.TIE_SLACK
        # Only what the proposals read: a dealt seat its acceptances, the others their
        # cumulative weights (session 37: a list of every hand costs about as much as the
        # rest of a seat's setup, and a first call at a position made both).
        self.cum = [] if self.dealt else np.cumsum(w).tolist()
        self.phi = (phi / top).tolist() if self.dealt else []
        self.log_weight = scale + log(top if self.dealt else total)


#: A seat whose uniformly dealt hand is accepted at least this often takes one (cheap); the
#: others draw their hand from their own weights.
DEALT_AT_LEAST = 0.3


def _accept_probability(s: list[int], hands: list[tuple[int, ...]], c: list[int]) -> float:
    """``prod_k (c_k)_(s_k) / prod_H (c_k)_(H[k])``: the chance that the hands drawn
    independently (each from all ``c``) fit in the deck together; ``s`` sums ``hands``."""
    p = 1.0
    for k in range(NUM_KINDS):
        for i in range(s[k]):
            p *= c[k] - i
    for hand in hands:
        for k in set(hand):
            for i in range(hand.count(k)):
                p /= c[k] - i
    return p


class _Posterior:
    """What every sample of one position for one seat shares: the unseen counts ``c``, the
    colour assignments with their cumulative weights, and per assignment each other seat's
    proposal.

    One proposal: an assignment (weight: the product of its seats' normalisers, times the ways
    to deal the dealt seats' cards from what the drawn seats leave), then the drawn seats'
    hands (each from all ``c``), then the dealt seats' hands dealt uniformly from the rest. It
    is accepted with probability (drawn hands fit together) * prod over dealt seats of
    ``phi[H]``, which leaves exactly the target ``prod_q N_q(H_q) * (c)_s``."""

    __slots__ = ("log", "c", "choices", "choice_cum", "proposals")

    def __init__(self, state: State, player: int, split=None, memo: dict | None = None) -> None:
        from cardzoo.envs.sitting_ducks import walks
        from cardzoo.envs.sitting_ducks.sampling import colour_assignments
        from cardzoo.envs.sitting_ducks.split import split_for

        self.log = state._log  # kept to tell a reused id() from the same record
        if memo is None:
            memo = walks.memo_for(state._log)
        if split is None:
            split = split_for(state, player, memo)
        split.check()
        c = split.unseen[:]  # the split is kept for later positions: never changed here
        self.c = c
        c_arr = np.array(c, dtype=float)
        hidden = state.mode == "hidden"
        discarded = {q for q in split.others if split.forced[q]}
        dealt = state._log[0][1]
        steps = [seat[0] for seat in split.steps]  # no reshuffle yet: one pile
        by_key: dict[tuple[int, int], _Seat] = {}
        self.choices = colour_assignments(state, player)
        self.proposals: list[list[tuple[int, _Seat]]] = []
        logs: list[float] = []
        for owners in self.choices:
            seats = []
            for q in range(state.num_players):
                if q != player:
                    key = (q, owners.index(q) if hidden and q in discarded else 0)
                    if key not in by_key:
                        weights = seat_weights(steps[q], q, len(dealt[q]), key[1], memo)
                        by_key[key] = _Seat(*weights, c_arr)
                    seats.append((q, by_key[key]))
            self.proposals.append(seats)
            logs.append(_log_weight(seats, sum(c)))
        best = max(logs)
        if best == float("-inf"):
            raise RuntimeError(
                f"sitting_ducks determinize: no world is consistent with what seat {player} "
                f"saw (turn {state.turn}); the public record cannot be explained (a bug)"
            )
        self.choice_cum = np.cumsum([exp(x - best) for x in logs]).tolist()

    def draw(self, rng: np.random.Generator) -> tuple[list[int], list[list[int]], list[int]]:
        """Proposals until one is accepted: (owners, hands, draw pile); the viewer's own hand
        is left empty."""
        c = self.c
        while True:
            u = rng.random(40).tolist()
            i = bisect_right(self.choice_cum, u.pop() * self.choice_cum[-1])
            result = _propose(self.proposals[i], c, u)
            if result is not None:
                hands, left = result
                break
        pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        return self.choices[i], hands, [pile[j] for j in rng.permutation(len(pile))]


def _log_weight(seats: list[tuple[int, _Seat]], unseen: int) -> float:
    """The log weight of a colour assignment's proposal (see ``_Posterior``)."""
    weight = sum(seat.log_weight for _, seat in seats)
    drawn = sum(seat.size for _, seat in seats if not seat.dealt)
    dealt = sum(seat.size for _, seat in seats if seat.dealt)
    return weight + sum(log(unseen - drawn - i) for i in range(dealt))


def _propose(seats: list[tuple[int, _Seat]], c: list[int], u: list[float]):
    """One proposal from uniforms ``u``: (hands, cards left for the pile), or None if
    rejected."""
    hands: list[list[int]] = [[] for _ in range(len(seats) + 1)]
    s = [0] * NUM_KINDS
    drawn = []
    for q, seat in seats:
        if not seat.dealt:
            hand = _HANDS[seat.size].hands[bisect_right(seat.cum, u.pop() * seat.cum[-1])]
            hands[q] = list(hand)
            drawn.append(hand)
            for k in hand:
                s[k] += 1
    if drawn and u.pop() >= _accept_probability(s, drawn, c):
        return None
    left = [c[k] - s[k] for k in range(NUM_KINDS)]
    pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    keep = 1.0
    for q, seat in seats:
        if seat.dealt:
            hand = []
            for _ in range(seat.size):
                j = int(u.pop() * len(pile))
                pile[j], pile[-1] = pile[-1], pile[j]
                hand.append(pile.pop())
            hand.sort()
            keep *= seat.phi[_HANDS[seat.size].index[tuple(hand)]]
            hands[q] = hand
            for k in hand:
                left[k] -= 1
    if u.pop() >= keep:
        return None
    return hands, left


#: Recent positions' posteriors by (id of the record, its length, phase, seat, its colours,
#: evidence), each kept with its record (a reused id is told apart) or None where the exact
#: samplers decline the position: a search agent determinizes the same position many times.
_CACHE: dict[tuple, tuple] = {}
#: 16, not 64 (session 6): a five- or six-player posterior can hold tens of megabytes.
CACHE_SIZE = 16


def _posterior(state: State, player: int):
    """The exact posterior's shared part for this position, or None if it is not covered
    (``covered``, read from the record's kept ``split.Split``)."""
    from cardzoo.envs.sitting_ducks import reshuffled, walks
    from cardzoo.envs.sitting_ducks.split import split_for

    if any(len(h) > MAX_HAND for h in state._log[0][1]):
        return None
    memo = walks.memo_for(state._log)
    split = split_for(state, player, memo)
    if not split.all_drew:
        return None
    if split.last_reshuffle < 0:
        return _Posterior(state, player, split, memo)
    try:
        return reshuffled.Posterior(state, player, split, memo)
    except reshuffled.NotCovered:
        return None


def sample(state: State, player: int, rng: np.random.Generator) -> tuple | None:
    """``(colour owners, hands, draw pile)`` drawn from the exact posterior, or None (nothing
    drawn from ``rng``) where the exact samplers do not cover the position (``covered``,
    ``reshuffled.MAX_SPLITS``). RuntimeError if no world explains the record (a bug)."""
    key = (
        id(state._log),
        state._log_len,
        state.phase,
        player,
        state.seat_colours[player],
        tuple(state.colour_evidence),
    )
    found = _CACHE.get(key)
    if found is None or found[0] is not state._log:
        found = (state._log, _posterior(state, player))
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = found
    post = found[1]
    if post is None:
        return None
    owners, hands, draw = post.draw(rng)
    hands[player] = state.hands[player][:]
    return owners, hands, draw
