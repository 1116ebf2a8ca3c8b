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
chain forward exactly (``alpha``), draws the split at the last reshuffle with its weight times
the normaliser of the last step, then the hands now: each seat independently from
``B^E_q(G_q, .) * (U)_H`` (accepted if they fit in ``U`` together) or dealt from what is left
and accepted with ``B / orders`` over its maximum, as in ``exact.py``. A rejection restarts the
whole proposal, so the accepted sample is exact. In hidden mode the colour assignment is drawn
first, with its total weight. Positions with more splits (five or six players after a
reshuffle) are not covered: ``sample`` returns None and the replay (``sampling.py``) serves them.
"""

from __future__ import annotations

from bisect import bisect_right
from math import exp, log
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks.data import NUM_KINDS
from cardzoo.envs.sitting_ducks.exact import (
    _HANDS,
    DEALT_AT_LEAST,
    _accept_probability,
    _falling,
    _record,
)

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

#: The most splits of one reshuffle's ``T_b`` the exact chain takes (its matrices are
#: splits x splits); a position with more goes to the replay.
MAX_SPLITS = 1500
#: A draw step of a seat's record (a play step is ``(card, forced masks or None)``).
DRAW = None


class NotCovered(Exception):
    """The position has too many splits for the exact chain."""


class _Split:
    """The record cut at the reshuffles, from ``player``'s side: per other seat and epoch its
    steps, per reshuffle ``T_b`` (counts) and every seat's hand size, and ``U`` now."""

    def __init__(self, state: State, player: int, entries: list[tuple]) -> None:
        _, dealt, pool = state._log[0]
        unseen = list(pool)
        for kind in dealt[player]:
            unseen[kind] -= 1
        size = [len(h) for h in dealt]
        self.dealt = size[:]
        self.steps: list[list[list]] = [[[]] for _ in dealt]
        self.pools: list[list[int]] = []
        self.sizes: list[list[int]] = []
        for q, card, forced, reshuffled, drawn in entries:
            size[q] -= 1
            if q != player:
                unseen[card] -= 1
                self.steps[q][-1].append((card, forced))
            if reshuffled is not None:
                self.pools.append(unseen[:])  # the pile is empty: all of it is in hands
                self.sizes.append(size[:])
                for seat in self.steps:
                    seat.append([])
                unseen = [a + b for a, b in zip(unseen, reshuffled)]
            if drawn >= 0:
                size[q] += 1
                if q == player:
                    unseen[drawn] -= 1
                else:
                    self.steps[q][-1].append(DRAW)
        if min(min(p) for p in [unseen, *self.pools]) < 0:
            raise RuntimeError("sitting_ducks determinize: more cards seen than the deck holds")
        self.unseen = unseen
        self.final = size


def advance(v: np.ndarray, size: int, steps: list, key: int) -> tuple[np.ndarray, int, float]:
    """Carry weights over hands of ``size`` cards (last axis) through a seat's steps: a play
    keeps the hands holding the card and removes it (a forced discard first keeps the hands of
    unplayable kinds, masks ``key``), a draw adds any kind. Returns the weights over the hands
    of the new size, the size, and the log of the factor divided out (-inf: none left)."""
    scale = 0.0
    for step in steps:
        if step is DRAW:
            size += 1
            padded = np.concatenate([v, np.zeros((*v.shape[:-1], 1))], axis=-1)
            v = padded[..., _HANDS[size].draw].sum(axis=-2)
        else:
            card, forced = step
            table = _HANDS[size]
            if forced is not None:
                v = v * ((table.kinds & ~forced[key]) == 0)
            v = v[..., table.play[card]]
            size -= 1
        total = float(v.sum())
        if total <= 0.0:
            return v, size, float("-inf")
        v = v / total
        scale += log(total)
    return v, size, scale


def splits(pool: list[int], sizes: list[int]) -> np.ndarray:
    """Every way to split the multiset ``pool`` into hands of ``sizes`` cards (in seat order):
    an array (splits x seats) of hand indices. NotCovered past ``MAX_SPLITS``."""
    out: list[tuple[int, ...]] = []

    def extend(i: int, left: np.ndarray, acc: tuple[int, ...]) -> None:
        if i == len(sizes) - 1:
            hand = tuple(k for k in range(NUM_KINDS) for _ in range(left[k]))
            if len(hand) == sizes[i]:
                out.append((*acc, _HANDS[sizes[i]].index[hand]))
                if len(out) > MAX_SPLITS:
                    raise NotCovered
            return
        table = _HANDS[sizes[i]]
        for h in np.flatnonzero((table.counts <= left).all(axis=1)):
            extend(i + 1, left - table.counts[h], (*acc, int(h)))

    extend(0, np.array(pool), ())
    return np.array(out, dtype=np.int64).reshape(len(out), len(sizes))


class _Last:
    """One seat's last step given its hand ``G`` at the last reshuffle (one row per candidate
    ``G``): its hand now drawn from ``B(G, .) * (U)_H`` (``cum``), or dealt and kept with
    ``phi``; ``norm[G]`` is that proposal's normaliser."""

    __slots__ = ("size", "dealt", "cum", "phi", "norm")

    def __init__(self, b: np.ndarray, size: int, unseen: np.ndarray) -> None:
        table = _HANDS[size]
        self.size = size
        w = b * _falling(unseen, size)
        drawn_norm = w.sum(axis=1)
        phi = b / table.orders
        top = phi.max(axis=1)
        deals = float(np.prod(unseen.sum() - np.arange(size)))
        rate = drawn_norm.sum() / (top.sum() * deals) if top.sum() > 0 else 0.0
        self.dealt = bool(rate >= DEALT_AT_LEAST)
        if self.dealt:
            self.norm = top
            self.phi = phi / np.where(top > 0, top, 1.0)[:, None]
            self.cum = None
        else:
            self.norm = drawn_norm
            self.cum = np.cumsum(w, axis=1)
            self.phi = None


class _Chain:
    """Per colour assignment: the split at the last reshuffle (cumulative weights over its
    splits, ``rows``: each seat's candidate row) and each other seat's ``_Last``;
    ``log_weight`` is the log of the assignment's total weight."""

    def __init__(self, split: _Split, parts: list, others: list[int], keys: list[int]) -> None:
        # Per reshuffle and seat: the hands it may hold there, and each split's row in them.
        cands = [[np.unique(p[:, i]) for i in range(len(others))] for p in parts]
        pos = [
            np.stack([np.searchsorted(c[i], p[:, i]) for i in range(len(others))], axis=1)
            for c, p in zip(cands, parts)
        ]
        unseen = np.array(split.unseen, dtype=float)
        alpha, scale = np.ones(len(parts[0])), 0.0
        mats: list[list[np.ndarray]] = [[] for _ in parts[1:]]
        self.lasts: list[_Last] = []
        for i, (q, key) in enumerate(zip(others, keys)):
            v, size, s = advance(
                _HANDS[split.dealt[q]].orders.copy(), split.dealt[q], split.steps[q][0], key
            )
            alpha, scale = alpha * v[cands[0][i]][pos[0][:, i]], scale + s
            for b in range(1, len(parts) + 1):
                rows = cands[b - 1][i]
                v = np.zeros((len(rows), len(_HANDS[size].hands)))
                v[np.arange(len(rows)), rows] = 1.0
                v, size, s = advance(v, size, split.steps[q][b], key)
                scale += s
                if b < len(parts):
                    mats[b - 1].append(v[:, cands[b][i]])
            self.lasts.append(_Last(v, size, unseen))
        alpha, scale = _forward(alpha, scale, mats, pos)
        w = alpha
        for i, last in enumerate(self.lasts):
            w = w * last.norm[pos[-1][:, i]]
        total = float(w.sum())
        self.rows = pos[-1]
        self.cum = np.cumsum(w).tolist()
        drawn = sum(last.size for last in self.lasts if not last.dealt)
        dealt = sum(last.size for last in self.lasts if last.dealt)
        left = int(unseen.sum()) - drawn
        deals = sum(log(left - i) for i in range(dealt))
        self.log_weight = scale + log(total) + deals if total > 0 else float("-inf")


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


class Posterior:
    """Everything the samples of one position for one seat share (see the module docstring).
    NotCovered if a reshuffle's multiset has more than ``MAX_SPLITS`` splits."""

    __slots__ = ("log", "unseen", "choices", "choice_cum", "chains", "others")

    def __init__(self, state: State, player: int) -> None:
        from cardzoo.envs.sitting_ducks.sampling import colour_assignments

        self.log = state._log
        entries = _record(state)
        split = _Split(state, player, entries)
        self.others = [q for q in range(state.num_players) if q != player]
        parts = [splits(p, [s[q] for q in self.others]) for p, s in zip(split.pools, split.sizes)]
        self.unseen = split.unseen
        hidden = state.mode == "hidden"
        discarded = {q for q, _, forced, _, _ in entries if forced is not None}
        self.choices = colour_assignments(state, player)
        by_keys: dict[tuple[int, ...], _Chain] = {}
        self.chains: list[_Chain] = []
        for owners in self.choices:
            keys = tuple(owners.index(q) if hidden and q in discarded else 0 for q in self.others)
            if keys not in by_keys:
                by_keys[keys] = _Chain(split, parts, self.others, list(keys))
            self.chains.append(by_keys[keys])
        logs = [chain.log_weight for chain in self.chains]
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
        while True:
            u = rng.random(40).tolist()
            a = bisect_right(self.choice_cum, u.pop() * self.choice_cum[-1])
            chain = self.chains[a]
            rows = chain.rows[bisect_right(chain.cum, u.pop() * chain.cum[-1])]
            result = self._propose(chain, rows, u)
            if result is not None:
                hands, left = result
                break
        pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        return self.choices[a], hands, [pile[j] for j in rng.permutation(len(pile))]

    def _propose(self, chain: _Chain, rows: np.ndarray, u: list[float]):
        """The hands now given the split's rows: (hands, cards left for the pile) or None."""
        c = self.unseen
        hands: list[list[int]] = [[] for _ in range(len(self.others) + 1)]
        s = [0] * NUM_KINDS
        drawn = []
        for q, last, row in zip(self.others, chain.lasts, rows):
            if not last.dealt:
                cum = last.cum[row]
                hand = _HANDS[last.size].hands[
                    int(np.searchsorted(cum, u.pop() * cum[-1], "right"))
                ]
                hands[q] = list(hand)
                drawn.append(hand)
                for k in hand:
                    s[k] += 1
        if drawn and u.pop() >= _accept_probability(s, drawn, c):
            return None
        left = [c[k] - s[k] for k in range(NUM_KINDS)]
        pile = [k for k in range(NUM_KINDS) for _ in range(left[k])]
        keep = 1.0
        for q, last, row in zip(self.others, chain.lasts, rows):
            if last.dealt:
                hand = []
                for _ in range(last.size):
                    j = int(u.pop() * len(pile))
                    pile[j], pile[-1] = pile[-1], pile[j]
                    hand.append(pile.pop())
                hand.sort()
                keep *= last.phi[row, _HANDS[last.size].index[tuple(hand)]]
                hands[q] = hand
                for k in hand:
                    left[k] -= 1
        if u.pop() >= keep:
            return None
        return hands, left
