"""Resampling what one player cannot see, consistently with the public record (``determinize``
where the exact samplers decline: positions ``exact.covered`` rejects (a hand dealt more than
three cards, a turn that ended without a draw), positions after a reshuffle past
``crowded.MAX_WAYS`` or ``crowded.MAX_KEPT`` or where the exact rejection accepts too rarely
(under one in 4096, ``reshuffled.py``, and tilted under one in 16,384, ``tilted.py``), or,
with ``reshuffled.CROWDED`` switched off, five and six players after a reshuffle and two to
four past ``reshuffled.MAX_SPLITS``).

Hidden from player p: the other hands, the draw pile, and (hidden mode) the others' colours. The
engine keeps a log of every turn: who played or discarded which card (public), the unplayable
card kinds when a discard was forced (public: computed from the row), reshuffles with the
composition of the discard pile that became the draw pile (public), and each drawn card (used here
only for p's own draws, which p saw).

The replay walks that log from p's side with *tokens*: a card in another player's hand is a token
knowing only the pile ("epoch") it came from: the initial deck, or the draw pile made by the
k-th reshuffle. When the player plays a card, one of their tokens whose epoch still holds such a
card becomes it; a forced discard restricts that hand's remaining tokens to the kinds that were
unplayable then (Hall's condition keeps every epoch's restricted tokens satisfiable). At the end
the still unknown tokens receive the remaining cards of their epochs at random, and what is left
of the current epoch forms the draw pile. Every sample is therefore a world in which the whole
public history could have happened (``tests/sitting_ducks/ducks_witness.py`` checks the history
behind each sample).

Which token a played card was is a choice; a wrong one can leave a later play unexplained (the
epoch ran out of that kind). Such dead ends are repaired by jumping back to a choice that used up
the missing kind from those epochs, or where a seat kept tokens of those epochs instead of others,
and by steering later choices away from the shortage; after ``MAX_JUMPS`` jumps a replay restarts.
In random games at six players about one call in several hundred exhausts ``ATTEMPTS`` replays.
Then a complete search takes over (``_search``): a depth-first search over the same choices in the
same weighted random order, backtracking chronologically, pruned by a look-ahead (every later
play of a kind needs a card of that kind left in a pile its seat can hold, and every later play
of a seat needs its own token), and restarted with Luby budgets (so no single run can stall the
call). It never gives up; if the whole tree fails for every colour assignment, no world explains
the record, which is a bug, and it raises ``RuntimeError``. It never uses the true hands.

The distribution is *not* the exact posterior over consistent worlds: each played card's token is
chosen with probability proportional to its epoch's share of that kind among the cards still
unattributed (a sequential proposal without correcting weights), dead ends are repaired or
backtracked, and the still unknown tokens are filled at random. Every consistent world has a
positive probability (each choice on its path has a positive weight), but the probabilities are
only close to the posterior; the complete search (rare) is further from it, and in hidden mode the
colour assignment is drawn uniformly among those the evidence allows, not in proportion to the
worlds behind each. The same rng gives the same sample, and the sample depends only on what the
seat saw and on the rng.

In hidden mode the others' colours are drawn first, uniformly among the assignments that agree
with the colours each seat's own-duck cards and forced discards showed (``State.colour_evidence``).
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import permutations
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks.data import NUM_KINDS, ORDER_PHASE

ALL_KINDS = (1 << NUM_KINDS) - 1

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

#: Replays tried before the complete search takes over.
ATTEMPTS = 20


def colour_assignments(state: State, player: int) -> list[list[int]]:
    """Every ``colour -> seat`` assignment ``player`` cannot rule out (hidden mode), else the
    public one."""
    if state.mode != "hidden":
        return [state.colour_owner[:]]
    n = state.num_players
    mine = state.seat_colours[player].bit_length() - 1
    others = [q for q in range(n) if q != player]
    free = [c for c in range(state.num_colours) if c != mine]
    evidence = state.colour_evidence
    out = []
    for perm in permutations(free):
        if all(evidence[q] >> c & 1 for q, c in zip(others, perm)):
            owners = [0] * state.num_colours
            owners[mine] = player
            for q, c in zip(others, perm):
                owners[c] = q
            out.append(owners)
    return out


def resample_hidden(
    state: State,
    player: int,
    rng: np.random.Generator,
    attempts: int = ATTEMPTS,
    with_witness: bool = False,
) -> tuple:
    """``(colour owners, hands, draw pile)`` of a world consistent with what ``player`` saw:
    from up to ``attempts`` replays, else from the complete search (never the true hands);
    RuntimeError if no world is consistent (a bug). ``with_witness`` adds a history that
    explains the sample: the card behind each token, keyed by the log entry that drew it
    (initial hand cards: ``-2 - 3 * seat - index``); tests replay it to check the sample."""
    choices = colour_assignments(state, player)
    entries, pools, epochs = _prepare(state, player)
    stream = _Stream(rng)
    avoid: dict[tuple[int, int], int] = {}  # (epoch, kind) -> dead ends it caused
    result = None
    for _ in range(attempts):
        owners = choices[int(rng.integers(len(choices)))]
        result = _replay(state, player, owners, entries, pools, epochs, stream, avoid)
        if result is not None:
            break
    else:
        # Every replay gave up: a complete search. Its runs are restarted with budgets
        # following the Luby sequence (1, 1, 2, 1, 1, 2, 4, ... units), which cures its
        # occasional very long runs while every colour assignment still gets unbounded
        # budgets; an assignment whose whole search tree failed is dropped.
        left = [choices[int(i)] for i in rng.permutation(len(choices))]
        restart = 0
        while left and result is None:
            owners = left[restart % len(left)]
            restart += 1
            budget = SEARCH_UNIT * _luby(restart)
            result = _search(state, player, owners, entries, pools, epochs, stream, budget)
            if result is None:
                left.remove(owners)
            elif result is _OUT_OF_BUDGET:
                result = None
        if result is None:
            raise RuntimeError(
                f"sitting_ducks determinize: no world is consistent with what seat {player} "
                f"saw (turn {state.turn}); the public record cannot be explained (a bug)"
            )
    hands, draw, witness = result
    return (owners, hands, draw, witness) if with_witness else (owners, hands, draw)


def _prepare(state: State, player: int) -> tuple[list[tuple], list[list[int]], list[int]]:
    """The turns to replay, every pile ("epoch") the action cards were drawn from without the
    cards ``player`` saw drawn from it (a card they drew later was not available before), and
    the epoch current at each turn's draw."""
    log = state._log[: state._log_len]
    _, initial, pool0 = log[0]
    entries = [(-1, initial, None, None, -1), *log[1:]]
    if state.phase == ORDER_PHASE:  # Disorderly Conduckt played, its turn not logged yet
        entries.append((state.current_player, state._turn_card, None, None, -1))
    pools = [list(pool0)]
    for kind in initial[player]:
        pools[0][kind] -= 1
    epochs = []
    for q, _, _, reshuffled, drawn in entries[1:]:
        if reshuffled is not None:
            pools.append(list(reshuffled))
        if q == player and drawn >= 0:
            pools[-1][drawn] -= 1
        epochs.append(len(pools) - 1)
    return entries[1:], pools, [0, *epochs]


class _Stream:
    """Uniform numbers drawn from ``generator`` in batches (one numpy call per 256 draws)."""

    def __init__(self, generator: np.random.Generator) -> None:
        self.generator = generator
        self._buf: list[float] = []

    def uniform(self) -> float:
        if not self._buf:
            self._buf = self.generator.random(256).tolist()
        return self._buf.pop()

    def weighted_order(self, items: list, weights: list[float]) -> list:
        """``items`` in a random order, each next one drawn with probability proportional to
        its weight among those left (Efraimidis-Spirakis keys); zero weights go last."""
        keys = []
        for w in weights:
            if not self._buf:
                self._buf = self.generator.random(256).tolist()
            u = self._buf.pop()
            keys.append(u ** (1.0 / w) if w > 0 else -1.0)
        order = sorted(range(len(items)), key=keys.__getitem__, reverse=True)
        return [items[i] for i in order]


#: Backjumps allowed in one replay before it restarts from scratch.
MAX_JUMPS = 200


def _initial_hands(state: State, player: int) -> list[list[list[int]]]:
    """Every seat's dealt hand as tokens ``[epoch, kind, allowed kinds, origin]``: ``player``'s
    own cards are known; another seat's are unknown (kind -1) tokens of the initial deck."""
    _, initial, _ = state._log[0]
    hands = []
    for q in range(state.num_players):
        if q == player:
            hands.append([[0, kind, ALL_KINDS, -1] for kind in initial[q]])
        else:
            hands.append([[0, -1, ALL_KINDS, -2 - 3 * q - i] for i in range(len(initial[q]))])
    return hands


def _mask_keys(state: State, owners: list[int]) -> list[int]:
    """Per seat, the index of its forced-discard mask: masks are stored per colour in hidden
    mode (so under the sampled colour owners), per seat otherwise."""
    key = [0] * state.num_players
    if state.mode == "hidden":
        for c, q in enumerate(owners):
            key[q] = c
    return key


def _replay(state, player, owners, entries, pools0, epochs, rng, avoid):
    """One replay of the log (see the module docstring); None at a dead end it cannot repair.

    Choice points (a played card several of the player's tokens could have been) are kept with a
    snapshot. At a dead end (a card no token can explain, or forced-discard constraints that no
    longer fit), the replay jumps back to the latest choice that used up a card the dead end
    needed, and takes another option there."""
    pools = [p[:] for p in pools0]
    hands = _initial_hands(state, player)
    key = _mask_keys(state, owners)
    stack: list[tuple] = []  # (entry, snapshot, card, chosen option, untried options, seat)
    # Per entry: (token id, card) of the play, and the epoch the card was taken from.
    consumed: list[tuple[int, int] | None] = [None] * len(entries)
    taken_from = [-1] * len(entries)
    retry: tuple | None = None
    jumps = 0
    j = 0
    while j < len(entries):
        q, card, forced, _, drawn = entries[j]
        hand = hands[q]
        failure = None
        if q == player:
            hand.remove(next(t for t in hand if t[1] == card))
        else:
            if retry is not None:
                snapshot, options = retry
                retry = None
            else:
                options = _options(hand, card, pools, rng, avoid)
                snapshot = _snapshot(hands, pools) if len(options) > 1 else None
            chosen = None
            while options:
                option = options.pop(0)
                tid = _apply(hands, q, player, card, pools, option)
                if tid is not None:
                    chosen = option
                    consumed[j] = (tid, card)
                    taken_from[j] = option[1]
                    break
            if chosen is None:
                epochs_needed = {t[0] for t in hand if t[1] < 0 and t[2] >> card & 1}
                failure = (card, epochs_needed)
                for e in epochs_needed:  # steer later choices away from this shortage
                    avoid[(e, card)] = avoid.get((e, card), 0) + 1
            else:
                if options:
                    stack.append((j, snapshot, card, chosen, options, q))
                if forced is not None:
                    involved = _constrain(hands, q, player, forced[key[q]], pools)
                    if involved is not None:
                        failure = involved
        if failure is not None:
            jumps += 1
            if not stack or jumps > MAX_JUMPS:
                return None
            j, snapshot, options = _backjump(stack, failure, q, j, entries, taken_from, rng)
            hands, pools = _restore(snapshot)
            retry = (snapshot, options)
            continue
        if drawn >= 0:
            hand.append([epochs[j + 1], drawn if q == player else -1, ALL_KINDS, j])
        j += 1
    return _complete(state, player, hands, pools, epochs[-1], rng, consumed)


def _backjump(stack, failure, q: int, j: int, entries, taken_from, rng) -> tuple:
    """Unwind the replay's choice ``stack`` to the choice to blame for the dead end at entry
    ``j`` of seat ``q``; returns that choice's ``(entry, snapshot, untried options)``."""
    needed, where = failure
    # Seats whose plays of a needed kind took it from one of those epochs: their choices of
    # which tokens to keep share the blame.
    blamed = {q}
    for i in range(j):
        if taken_from[i] in where and _matches(entries[i][1], needed):
            blamed.add(entries[i][0])
    del stack[_culprit(stack, blamed, needed, where, rng) + 1 :]
    entry, snapshot, _, _, options, _ = stack.pop()
    return entry, snapshot, options


#: How often the complete search ran (a counter for measurements and tests).
SEARCHES = 0
#: Entries a complete search run may process per unit of its Luby budget.
SEARCH_UNIT = 500


def _luby(i: int) -> int:
    """The i-th term (from 1) of the Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while (1 << k) - 1 != i:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


_OUT_OF_BUDGET = ("out of budget",)


def _search(state, player, owners, entries, pools0, epochs, rng, budget: int):
    """A depth-first search over the same choices as :func:`_replay`, in the same weighted
    random order, backtracking chronologically, and pruned by :class:`_Lookahead`: returns a
    sample; None only if no choice of tokens explains the log under these colour owners
    (the whole tree was searched); ``_OUT_OF_BUDGET`` after ``budget`` entries processed."""
    global SEARCHES
    SEARCHES += 1
    n = state.num_players
    pools = [p[:] for p in pools0]
    hands = _initial_hands(state, player)
    key = _mask_keys(state, owners)
    consumed: list[tuple[int, int] | None] = [None] * len(entries)
    ahead = _Lookahead(entries, epochs, player, n, key)
    stack: list[tuple] = []  # (entry, snapshot before it, untried options)
    retry: list | None = None
    j = 0
    while True:
        budget -= 1
        if budget < 0:
            return _OUT_OF_BUDGET
        ok = True
        if j == len(entries):
            result = _complete(state, player, hands, pools, epochs[-1], rng, consumed)
            if result is not None:
                return result
            ok = False
        else:
            q, card, forced, _, drawn = entries[j]
            hand = hands[q]
            if q == player:
                hand.remove(next(t for t in hand if t[1] == card))
            else:
                ok = _search_play(stack, retry, j, q, card, hands, pools, player, consumed, rng)
                retry = None
                if ok and forced is not None:
                    ok = _constrain(hands, q, player, forced[key[q]], pools) is None
            if ok and drawn >= 0:
                hand.append([epochs[j + 1], drawn if q == player else -1, ALL_KINDS, j])
        if ok and j < len(entries):
            ok = ahead.possible(j, hands, pools)
        if ok:
            j += 1
            continue
        # Dead end: back to the latest choice with untried options.
        while stack and not stack[-1][2]:
            stack.pop()
        if not stack:
            return None
        j, snapshot, options = stack[-1]
        hands, pools = _restore(snapshot)
        retry = options


def _search_play(stack, retry, j: int, q: int, card: int, hands, pools, player, consumed, rng):
    """The search's step for seat ``q`` playing ``card`` at entry ``j``: take the first of its
    options (or of ``retry``, the untried options left when the search came back here) that a
    token can explain, and keep the rest on ``stack``. False if none can."""
    hand = hands[q]
    if retry is not None:
        options = retry
        snapshot = stack[-1][1]
    else:
        options = _options(hand, card, pools, rng, {})
        snapshot = _snapshot(hands, pools) if len(options) > 1 else None
    tid = None
    while options and tid is None:
        tid = _apply(hands, q, player, card, pools, options.pop(0))
    if tid is None:
        return False
    consumed[j] = (tid, card)
    if snapshot is not None and (not stack or stack[-1][0] != j):
        stack.append((j, snapshot, options))
    elif stack and stack[-1][0] == j:
        stack[-1] = (j, snapshot, options)
    return True


class _Lookahead:
    """A necessary condition for the rest of the log, checked after each entry of the search:
    for every kind, the other seats' later plays of it can each be given a card of that kind
    from a distinct card left in a pile the seat holds a token of (allowed that kind) or will
    draw from before the play. It ignores that one token serves one play, so it only prunes."""

    def __init__(self, entries, epochs, player: int, n: int, key: list[int]) -> None:
        self.plays: list[list[tuple[int, int]]] = [[] for _ in range(NUM_KINDS)]
        # A card a seat plays after its forced discard that was playable then was not in its
        # hand then: it was drawn after. barrier[j] is the latest such discard before play j.
        self.barrier: dict[int, int] = {}
        last_forced: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self.draw_at: list[list[int]] = [[] for _ in range(n)]  # entries where q drew
        self.draw_cum: list[list[int]] = [[0] for _ in range(n)]  # epochs drawn before, bits
        self.draw_epoch: list[list[int]] = [[] for _ in range(n)]
        self.seat_plays: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for j, (q, card, forced, _, drawn) in enumerate(entries):
            if q == player:
                continue
            self.plays[card].append((j, q))
            self.seat_plays[q].append((j, card))
            for f, allowed in reversed(last_forced[q]):
                if not allowed >> card & 1:
                    self.barrier[j] = f
                    break
            if forced is not None:
                last_forced[q].append((j, forced[key[q]]))
            if drawn >= 0:
                self.draw_at[q].append(j)
                self.draw_epoch[q].append(epochs[j + 1])
                self.draw_cum[q].append(self.draw_cum[q][-1] | 1 << epochs[j + 1])

    def possible(self, j: int, hands, pools) -> bool:
        """Whether the plays after entry ``j`` (already applied) pass the check."""
        return self._kinds_fit(j, hands, pools) and self._seats_fit(j, hands, pools)

    def _kinds_fit(self, j: int, hands, pools) -> bool:
        """Per kind: each later play of it can get its own card of that kind from a pile the
        seat can take it from."""
        for card in range(NUM_KINDS):
            plays = self.plays[card]
            start = bisect_right(plays, (j, len(hands)))
            if start == len(plays):
                continue
            supply = [pool[card] for pool in pools]
            stocked = sum(1 << e for e, c in enumerate(supply) if c)
            held = [0] * len(hands)
            for q, hand in enumerate(hands):
                for e, k, allowed, _ in hand:
                    if k < 0 and allowed >> card & 1:
                        held[q] |= 1 << e
            masks = []
            for later, q in plays[start:]:
                draws = self.draw_at[q]
                barrier = self.barrier.get(later, -1)
                i1 = bisect_right(draws, max(j, barrier - 1))
                i2 = bisect_right(draws, later - 1)
                mask = held[q] if barrier <= j else 0
                if i2 > i1:
                    first = self.draw_epoch[q][i1]
                    mask |= self.draw_cum[q][i2] & ~((1 << first) - 1)
                mask &= stocked
                if not mask:
                    return False
                masks.append([e for e in range(len(supply)) if mask >> e & 1])
            if not _matchable(masks, supply):
                return False
        return True

    def _seats_fit(self, j: int, hands, pools) -> bool:
        """Per seat: each later play needs its own token (held now, or drawn before the play)
        from a pile with such a card left."""
        for q, hand in enumerate(hands):
            plays = self.seat_plays[q]
            start = bisect_right(plays, (j, NUM_KINDS))
            if start == len(plays):
                continue
            tokens = [(-1, e, allowed) for e, k, allowed, _ in hand if k < 0]
            draws = self.draw_at[q]
            i1 = bisect_right(draws, j)
            wants = []
            for later, card in plays[start:]:
                i2 = bisect_right(draws, later - 1)
                barrier = self.barrier.get(later, -1)
                if barrier <= j:
                    want = [
                        t
                        for t, (_, e, allowed) in enumerate(tokens)
                        if allowed >> card & 1 and pools[e][card] > 0
                    ]
                else:
                    want = []
                for i in range(max(i1, bisect_right(draws, barrier - 1)), i2):
                    if pools[self.draw_epoch[q][i]][card] > 0:
                        want.append(len(tokens) + i - i1)
                if not want:
                    return False
                wants.append(want)
            total = len(tokens) + len(draws) - i1
            if not _matchable(wants, [1] * total):
                return False
        return True


def _matchable(wants: list[list[int]], supply: list[int]) -> bool:
    """Whether every demand (a list of the resources it may use) can get its own unit of
    ``supply`` (augmenting paths; the demands are few)."""
    left = supply[:]
    holders: list[list[int]] = [[] for _ in supply]  # resource -> demands using it
    for d in sorted(range(len(wants)), key=lambda d: len(wants[d])):
        if not _augment(d, wants, left, holders, set()):
            return False
    return True


def _augment(d: int, wants, left: list[int], holders, seen: set[int]) -> bool:
    for r in wants[d]:
        if left[r] > 0:
            left[r] -= 1
            holders[r].append(d)
            return True
    for r in wants[d]:
        if r not in seen:
            seen.add(r)
            for i, other in enumerate(holders[r]):
                if _augment(other, wants, left, holders, seen):
                    holders[r][i] = d
                    return True
    return False


def _options(hand: list[list[int]], card: int, pools, rng, avoid) -> list[tuple[int, int, int]]:
    """The distinct kinds of token that can have been ``card``: ``(card, -1, 0)`` for a token
    known to be one, ``(-1, epoch, allowed)`` for an unknown one; in a random order weighted by
    the share of such cards among the unattributed cards of the token's epoch."""
    options: list[tuple[int, int, int]] = []
    for e, k, allowed, _ in hand:
        if k == card:
            option = (card, -1, 0)
        elif k < 0 and allowed >> card & 1 and pools[e][card] > 0:
            option = (-1, e, allowed)
        else:
            continue
        if option not in options:
            options.append(option)
    if len(options) > 1:
        weights = [
            1.0
            if o[0] >= 0
            else pools[o[1]][card] / sum(pools[o[1]]) * 0.05 ** avoid.get((o[1], card), 0)
            for o in options
        ]
        options = rng.weighted_order(options, weights)
    return options


def _apply(hands, q: int, player: int, card: int, pools, option) -> int | None:
    """Play ``card`` from a token of seat q's hand matching ``option``; returns the token's id,
    or None (nothing changed) if that would leave some epoch's constrained tokens
    unsatisfiable."""
    hand = hands[q]
    known, e, allowed = option
    if known >= 0:
        i = next(i for i, t in enumerate(hand) if t[1] == card)
        return hand.pop(i)[3]
    i = next(i for i, t in enumerate(hand) if t[0] == e and t[1] < 0 and t[2] == allowed)
    pools[e][card] -= 1
    token = hand.pop(i)
    if _feasible(hands, player, pools[e], e):
        return token[3]
    hand.insert(i, token)
    pools[e][card] += 1
    return None


def _matches(card: int, needed: int) -> bool:
    """Whether ``card`` is the needed kind (or one of the kinds, a bitmask given as -mask - 1)."""
    return card == needed if needed >= 0 else bool((-needed - 1) >> card & 1)


def _culprit(stack: list[tuple], blamed: set[int], needed: int, epochs: set[int], rng) -> int:
    """Where to jump back to when a card of the ``needed`` kind cannot be explained from tokens
    of ``epochs``: a choice that used up such a card from one of those epochs, or where a
    ``blamed`` seat kept tokens of those epochs rather than others (one of them at random: the
    latest is often not the one to change); failing both, simply the latest choice."""
    candidates = []
    for s in range(len(stack)):
        _, _, card, chosen, options, who = stack[s]
        if chosen[0] >= 0:
            continue
        if (chosen[1] in epochs and _matches(card, needed)) or (
            who in blamed and chosen[1] not in epochs and any(o[1] in epochs for o in options)
        ):
            candidates.append(s)
    if not candidates:
        return len(stack) - 1
    return candidates[int(rng.uniform() * len(candidates))]


def _snapshot(hands, pools):
    return [[t[:] for t in h] for h in hands], [p[:] for p in pools]


def _restore(snapshot):
    hands, pools = snapshot
    return [[t[:] for t in h] for h in hands], [p[:] for p in pools]


def _constrain(hands, q: int, player: int, allowed: int, pools):
    """A forced discard: every card left in seat q's hand was of an unplayable kind. Returns
    None if that still fits, else what a repair needs: (``-allowed - 1``, epochs involved)."""
    epochs = set()
    for token in hands[q]:
        if token[1] >= 0:
            if not allowed >> token[1] & 1:
                return (-allowed - 1, set())
        else:
            token[2] &= allowed
            epochs.add(token[0])
    if all(_feasible(hands, player, pools[e], e) for e in epochs):
        return None
    return (-allowed - 1, epochs)


def _feasible(hands, player: int, pool: list[int], epoch: int) -> bool:
    """Hall's condition: the unknown tokens of ``epoch`` can all get a card of their allowed
    kinds from ``pool`` (tokens are grouped by their allowed set; there are few groups)."""
    groups: dict[int, int] = {}
    for q, hand in enumerate(hands):
        if q != player:
            for e, k, allowed, _ in hand:
                if e == epoch and k < 0:
                    groups[allowed] = groups.get(allowed, 0) + 1
    if len(groups) == 1 and ALL_KINDS in groups:
        return groups[ALL_KINDS] <= sum(pool)
    return _hall(groups, pool)


def _hall(groups: dict[int, int], pool: list[int]) -> bool:
    items = list(groups.items())
    for subset in range(1, 1 << len(items)):
        union = 0
        need = 0
        for i, (mask, count) in enumerate(items):
            if subset >> i & 1:
                union |= mask
                need += count
        have = sum(pool[k] for k in range(NUM_KINDS) if union >> k & 1)
        if need > have:
            return False
    return True


def _complete(state, player, hands, pools, epoch, rng, consumed):
    """Give the still unknown tokens cards left in their epochs (within their allowed kinds);
    what is left of the current epoch is the draw pile."""
    unknown: dict[int, list[list[int]]] = {}
    for q, hand in enumerate(hands):
        if q != player:
            for token in hand:
                if token[1] < 0:
                    unknown.setdefault(token[0], []).append(token)
    draw: list[int] = []
    for e, pool in enumerate(pools):
        tokens = unknown.get(e, [])
        spare = sum(pool) - len(tokens)
        if spare < 0 or (e < epoch and spare):
            raise RuntimeError(f"sitting_ducks determinize: epoch {e} does not add up")
        # Most constrained first; each choice keeps the rest satisfiable (Hall's condition).
        tokens.sort(key=lambda t: bin(t[2]).count("1"))
        for i, token in enumerate(tokens):
            rest: dict[int, int] = {}
            for t in tokens[i + 1 :]:
                rest[t[2]] = rest.get(t[2], 0) + 1
            kinds = [k for k in range(NUM_KINDS) if token[2] >> k & 1 and pool[k] > 0]
            for k in rng.weighted_order(kinds, [pool[k] for k in kinds]):
                pool[k] -= 1
                if _hall(rest, pool):
                    token[1] = k
                    break
                pool[k] += 1
            else:
                return None
        if e == epoch:
            draw = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
            draw = [draw[i] for i in rng.generator.permutation(len(draw))]
    if len(draw) != len(state.draw):
        raise RuntimeError("sitting_ducks determinize: the draw pile does not add up")
    out = [[token[1] for token in hand] for hand in hands]
    out[player] = state.hands[player][:]
    # The witness history: the card behind every token (draw at entry j, or initial -2-3q-i).
    witness = dict(c for c in consumed if c is not None)
    for hand in hands:
        for token in hand:
            witness[token[3]] = token[1]
    return out, draw, witness
