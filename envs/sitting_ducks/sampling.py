"""What one seat knows of the hidden action cards, kept up to date, and exact sampling from it
(``State.determinize``).

Hidden from seat p: the other hands, the draw pile and (hidden mode) the others' colours. The
engine logs every turn: who played or discarded which card (public), the unplayable kinds when a
discard was forced (public, per colour in hidden mode), reshuffles with the make-up of the pile
they made (public) and the card drawn (seen here only for p's own draws).

The model (docs/rules/sitting_ducks.md, section 10). A card in another seat's hand is a *token*
that knows only its *epoch* (the pile it was drawn from: the first deck, or the pile made by the
k-th reshuffle) and a mask of the kinds it may be (forced discards narrow it). A *world* fixes
every shuffled pile card by card and, for every card another seat played or discarded, which of
its tokens it was. It is consistent when each such token could be that card and the cards left
fill the remaining tokens (within their masks) and the draw pile. ``determinize`` draws
uniformly among the consistent worlds (hidden mode: jointly with the colour assignments that
agree with the public evidence): the card a seat plays counts as any one of its hand cards that
could be it, and the kinds seen are the only evidence.

Exact filtering, seat by seat. The number of worlds behind a history is a product: for every
seat, how many of its tokens each of its plays could have been (its *local* choices), times, per
epoch, the arrangements of the cards left unaccounted for (a multinomial coefficient). So every
seat keeps its own short list of *local states*: the multiset of its tokens' (epoch, mask), the
cards it gave back to past epochs while that differs between its local states (``attr``), the
colour its forced discards were read with, and how many local histories lead there. What all
local states of a seat agree on moves into the shared per-epoch pools. A seat usually has one
local state; several only while it holds tokens of different epochs or masks. ``State`` caches
one :class:`Knowledge` per seat and advances it by the log entries added since, so a call costs
the same early and late in a game.

Sampling combines the seats exactly: a small dynamic programme over seats (keyed by the cards
given back so far, the masked tokens and, in hidden mode, the colours taken) weighs every
combination by the multinomial factor of what it leaves in the pools and by the chance that a
uniform fill respects the masks, draws a combination backwards, then fills the masked tokens one
by one with exact conditional probabilities and the free tokens and the draw pile by a uniform
shuffle of the rest. Every list is built in a canonical order from the seat's knowledge before
the rng touches it, so the sample is a function of that knowledge and the rng alone.
"""

from __future__ import annotations

from itertools import permutations
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks.data import NUM_KINDS, ORDER_PHASE

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.game import State

ALL_KINDS = (1 << NUM_KINDS) - 1
_SHIFT = 16  # a token is ``epoch << 16 | mask``; an attributed card ``epoch << 4 | kind``
_FREE = ALL_KINDS


class NoConsistentWorld(RuntimeError):
    """No world agrees with the public record: a bug in the engine or in the knowledge."""


def colour_assignments(state: State, player: int) -> list[list[int]]:
    """Every ``colour -> seat`` assignment ``player`` cannot rule out (hidden mode), else the
    public one; in a canonical order."""
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


# ---------------------------------------------------------------------------------------------
# Knowledge


class Knowledge:
    """One seat's knowledge after the first ``upto`` log entries (immutable once built).

    ``pools``: per epoch, the 16 counts of cards that no local state accounts for. ``seats``:
    per seat, its local states ``(weight, tokens, attr, colour)`` (none for the seat itself):
    sorted token codes, sorted codes of the cards it gave back beyond ``pools``, its colour as
    its forced discards read it (-1: none). ``last``: the last entry read (a clone's log shares
    it while it shares the prefix). Witness mode keeps the chain (``prev``) and, for the seat
    that acted (``actor``), per new local state its ``(parent, token played, colour, weight)``.
    """

    __slots__ = ("player", "upto", "last", "pools", "seats", "actor", "edges", "prev", "sampler")

    def __init__(self, player, upto, last, pools, seats, actor=-1, edges=None, prev=None):
        self.player = player
        self.upto = upto
        self.last = last
        self.pools = pools
        self.seats = seats
        self.actor = actor
        self.edges = edges
        self.prev = prev
        self.sampler = None


def initial_knowledge(state: State, player: int) -> Knowledge:
    """What ``player`` knows right after the deal logged in ``state._log[0]``."""
    first = state._log[0]
    _, initial, pool0 = first
    pool = list(pool0)
    for kind in initial[player]:
        pool[kind] -= 1
    seats = tuple(
        () if q == player else ((1.0, (_FREE,) * len(initial[q]), (), -1),)
        for q in range(state.num_players)
    )
    return Knowledge(player, 1, first, (tuple(pool),), seats)


def advance(know: Knowledge, entries, colours: tuple | None, keep: bool = False) -> Knowledge:
    """The knowledge after ``entries`` (log entries following ``know``'s prefix). ``colours``:
    hidden mode, the colours each seat may own before any evidence; else None."""
    p = know.player
    pools, seats = know.pools, know.seats
    upto = know.upto
    for entry in entries:
        pools, seats, edges = _step(pools, seats, entry, p, colours, keep)
        upto += 1
        if keep:
            know = Knowledge(p, upto, entry, pools, seats, entry[0], edges, know)
    if not keep and entries:
        know = Knowledge(p, upto, entries[-1], pools, seats)
    return know


def _step(pools, seats, entry, p: int, colours, keep: bool):
    """One log entry: the acting seat's local states branch on the token its card was; draws
    and reshuffles follow; what its local states agree on moves into the pools."""
    q, card, forced, reshuffled, drawn = entry
    edges = None
    if q != p:
        merged: dict = {}
        links: dict = {}
        for index, (w, hand, attr, colour) in enumerate(seats[q]):
            prev = -1
            for i, token in enumerate(hand):
                if token == prev:
                    continue
                prev = token
                if not token >> card & 1:
                    continue
                e = token >> _SHIFT
                code = e << 4 | card
                if attr.count(code) >= pools[e][card]:
                    continue  # that epoch has no such card left for this local state
                weight = w * hand.count(token)
                rest = hand[:i] + hand[i + 1 :]
                new_attr = tuple(sorted((*attr, code)))
                if forced is None:
                    options = [(colour, -1)]
                elif colours is None:
                    options = [(-1, forced[0])]
                elif colour >= 0:
                    options = [(colour, forced[colour])]
                else:
                    options = [(c, forced[c]) for c in range(len(forced)) if colours[q] >> c & 1]
                for c, allowed in options:
                    tokens = rest if allowed < 0 else _mask(rest, allowed, pools)
                    if tokens is None:
                        continue
                    key = (tokens, new_attr, c)
                    merged[key] = merged.get(key, 0.0) + weight
                    if keep:
                        links.setdefault(key, []).append((index, token, c, weight))
        if not merged:
            raise NoConsistentWorld(f"sitting_ducks: no world explains log entry {entry}")
        total = sum(merged.values())
        if total <= 0:
            raise NoConsistentWorld(f"sitting_ducks: no world explains log entry {entry}")
        states = [(w / total, *key) for key, w in merged.items()]
        if keep:
            edges = [links[s[1:]] for s in states]
    else:
        states = None
    if reshuffled is not None:
        pools = (*pools, tuple(reshuffled))
    emptied = set()
    if drawn >= 0:
        e = len(pools) - 1
        if q == p:
            pool = pools[e]
            if not pool[drawn]:
                raise NoConsistentWorld(f"sitting_ducks: seat {p} drew a card its pile lacks")
            pools = pools[:e] + (pool[:drawn] + (pool[drawn] - 1,) + pool[drawn + 1 :],)
            if pool[drawn] == 1:
                emptied.add(e)
        else:
            new = e << _SHIFT | _FREE
            states = [(w, tuple(sorted((*h, new))), a, c) for w, h, a, c in states]
    if states is not None:
        common = states[0][2]
        for s in states[1:]:
            if not common:
                break
            common = _intersect(common, s[2])
        if common:
            pools = list(pools)
            for code in common:
                e, kind = code >> 4, code & 15
                pool = pools[e]
                if not pool[kind]:
                    raise NoConsistentWorld("sitting_ducks: a pile gave more cards than it had")
                pools[e] = pool[:kind] + (pool[kind] - 1,) + pool[kind + 1 :]
                if pool[kind] == 1:
                    emptied.add(e)
            pools = tuple(pools)
            states = [(w, h, _minus(a, common), c) for w, h, a, c in states]
        seats = seats[:q] + (tuple(states),) + seats[q + 1 :]
    for e in sorted(emptied):
        seats = _recanon(seats, pools, e)
    return pools, seats, edges


def _intersect(a: tuple, b: tuple) -> tuple:
    out = []
    b = list(b)
    for x in a:
        if x in b:
            b.remove(x)
            out.append(x)
    return tuple(out)


def _minus(a: tuple, b: tuple) -> tuple:
    out = list(a)
    for x in b:
        out.remove(x)
    return tuple(out)


def _support(pool: tuple) -> int:
    return sum(1 << k for k in range(NUM_KINDS) if pool[k])


def _canon(e: int, mask: int, support: int) -> int | None:
    """A token's code with its mask cut to the kinds its epoch still has (all of them: free),
    so that equal knowledge gives equal codes; None if it can be no card left."""
    live = mask & support
    if not live:
        return None
    return e << _SHIFT | (_FREE if live == support else live)


def _mask(hand: tuple, allowed: int, pools) -> tuple | None:
    """Tokens narrowed to ``allowed`` kinds, or None if one can no longer be any card left."""
    out = []
    for token in hand:
        e = token >> _SHIFT
        code = _canon(e, token & allowed, _support(pools[e]))
        if code is None:
            return None
        out.append(code)
    return tuple(sorted(out))


def _recanon(seats: tuple, pools, e: int) -> tuple:
    """After a kind of epoch ``e`` ran out: masked tokens of ``e`` in canonical form (a local
    state left with a token that can be no card is dropped)."""
    support = _support(pools[e])
    out = list(seats)
    for q, states in enumerate(seats):
        if not any(t >> _SHIFT == e and t & _FREE != _FREE for s in states for t in s[1]):
            continue
        new_states = []
        for w, hand, attr, colour in states:
            tokens = []
            for t in hand:
                if t >> _SHIFT == e and t & _FREE != _FREE:
                    t = _canon(e, t & _FREE, support)
                    if t is None:
                        break
                tokens.append(t)
            else:
                new_states.append((w, tuple(sorted(tokens)), attr, colour))
                continue
            new_states.append((0.0, hand, attr, colour))  # keeps indices for the witness
        out[q] = tuple(new_states)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The state's cache


def _base_colours(state: State, player: int) -> tuple | None:
    if state.mode != "hidden":
        return None
    mine = state.seat_colours[player]
    everything = (1 << state.num_colours) - 1
    return tuple(mine if q == player else everything & ~mine for q in range(state.num_players))


def knowledge(state: State, player: int, keep: bool = False) -> Knowledge:
    """``player``'s knowledge after the whole log of ``state``, cached on the state and advanced
    by the entries logged since; ``keep`` rebuilds it from the deal keeping every step."""
    if state._foreign is not None and state._foreign[0] != player:
        _materialize(state)
    log = state._log
    n = state._log_len
    colours = _base_colours(state, player)
    if keep:
        return advance(initial_knowledge(state, player), log[1:n], colours, True)
    cache = state._know
    know = cache[player] if cache is not None else None
    if know is None or know.upto > n or log[know.upto - 1] is not know.last:
        know = initial_knowledge(state, player)
    if know.upto < n:
        know = advance(know, log[know.upto : n], colours)
    if cache is None or cache[player] is not know:
        cache = [None] * state.num_players if cache is None else list(cache)
        cache[player] = know
        state._know = tuple(cache)
    return know


def _pending(state: State) -> tuple | None:
    """Disorderly Conduckt played, its turn not logged yet: the entry it stands for."""
    if state.phase == ORDER_PHASE:
        return (state.current_player, state._turn_card, None, None, -1)
    return None


def _current(state: State, player: int, keep: bool = False, pending=False) -> Knowledge:
    know = knowledge(state, player, keep)
    entry = _pending(state) if pending is False else pending
    if entry is not None:
        know = advance(know, [entry], _base_colours(state, player), keep)
    return know


# ---------------------------------------------------------------------------------------------
# Sampling


def resample_hidden(
    state: State, player: int, rng: np.random.Generator, with_witness: bool = False
) -> tuple:
    """``(colour owners, hands, draw pile)`` of a world drawn uniformly among those consistent
    with what ``player`` saw (see the module docstring); raises :class:`NoConsistentWorld` if
    there is none. ``with_witness`` adds a history explaining it: the card behind every hidden
    draw, keyed by the log entry that drew it (initial hand cards: ``-2 - 3 * seat - index``)."""
    if with_witness:
        return WitnessSampler(state, player).sample(rng)
    owners, _, hands, draw = _sample(state, _current(state, player), rng)
    return owners, hands, draw


def _sample(state: State, know: Knowledge, rng: np.random.Generator):
    sampler = know.sampler
    evidence = tuple(state.colour_evidence)
    if sampler is None or sampler.evidence != evidence:
        sampler = know.sampler = _Sampler(state, know, evidence)
    owners, chosen, pools, tokens = sampler.pick(rng)
    fills, draw = _fill(pools, tokens, rng)
    hands = [list(f) for f in fills]
    hands[know.player] = state.hands[know.player][:]
    if len(draw) != len(state.draw) or any(
        len(hands[q]) != len(state.hands[q]) for q in range(state.num_players)
    ):
        raise NoConsistentWorld("sitting_ducks determinize: the hand sizes do not add up")
    return owners, (chosen, fills), hands, draw


def determinize_hidden(state: State, player: int, rng: np.random.Generator) -> tuple:
    """``resample_hidden`` for ``State.determinize``: also the handle that lets the sample's log
    be rewritten later with a history behind it (:func:`_materialize`)."""
    know = _current(state, player)
    owners, picked, hands, draw = _sample(state, know, rng)
    handle = (player, state._log_len, _pending(state), picked, int(rng.integers(2**63)))
    return owners, hands, draw, handle


def _materialize(state: State) -> None:
    """A determinized state's log still holds the other seats' draws of the world it came from:
    replace them by a history drawn for the sample (so that every seat's knowledge follows the
    sample), the first time a seat other than the one it was drawn for needs its knowledge."""
    player, upto, pending, (chosen, fills), seed = state._foreign
    state._foreign = None
    log = state._log
    saved = state._log_len
    state._log_len = upto
    try:
        know = _current(state, player, keep=True, pending=pending)
        witness = _witness(state, know, chosen, fills, np.random.default_rng(seed))
    finally:
        state._log_len = saved
    _, initial, pool0 = log[0]
    hands = tuple(
        tuple(initial[q]) if q == player else tuple(witness[-2 - 3 * q - i] for i in range(len(h)))
        for q, h in enumerate(initial)
    )
    new_log = [(-1, hands, pool0)]
    for j, entry in enumerate(log[1:upto]):
        q, card, forced, reshuffled, drawn = entry
        if q != player and drawn >= 0:
            entry = (q, card, forced, reshuffled, witness[j])
        new_log.append(entry)
    state._log = new_log + log[upto:saved]
    state._know = None


class WitnessSampler:
    """Samples like :func:`resample_hidden`, each with a history that explains it (tests): the
    knowledge is rebuilt once from the deal keeping every step. For the same rng state its
    ``(owners, hands, draw)`` equal those of ``resample_hidden``."""

    def __init__(self, state: State, player: int) -> None:
        self.state = state
        self.know = _current(state, player, keep=True)

    def sample(self, rng: np.random.Generator) -> tuple:
        owners, (chosen, fills), hands, draw = _sample(self.state, self.know, rng)
        return owners, hands, draw, _witness(self.state, self.know, chosen, fills, rng)


class _Sampler:
    """The combination of the seats' local states, prepared once per knowledge (and colour
    evidence) and then sampled from as often as needed."""

    def __init__(self, state: State, know: Knowledge, evidence: tuple) -> None:
        self.evidence = evidence
        self.player = p = know.player
        self.pools = know.pools
        self.others = [q for q in range(state.num_players) if q != p]
        seats = know.seats
        self.seats = seats
        self.hidden = state.mode == "hidden"
        self.mine = state.seat_colours[p].bit_length() - 1
        self.public_owners = state.colour_owner[:]
        self.simple = all(len(seats[q]) == 1 for q in self.others)
        # Colours matter to the combination only if a forced discard was read with one.
        self.coupled = self.hidden and any(s[3] >= 0 for q in self.others for s in seats[q])
        if not self.simple and not self.coupled:
            self.assignments = colour_assignments(state, p) if self.hidden else []
        if self.simple:
            # One local state per seat: nothing couples the seats but the fill itself.
            hands = tuple(seats[q][0][1] if q != p else () for q in range(state.num_players))
            self.hands = hands
            fixed = tuple(seats[q][0][3] if q != p else -1 for q in range(state.num_players))
            self.assignments = [
                a
                for a in colour_assignments(state, p)
                if all(fixed[q] < 0 or a[fixed[q]] == q for q in self.others)
            ]
            if not self.assignments or not _mask_chance(self.pools, hands):
                raise NoConsistentWorld("sitting_ducks determinize: no consistent world")
            return
        self._programme(state)

    def _programme(self, state: State) -> None:
        """Forward pass over the seats. The weight of a combination is the product of its local
        weights, of the multinomial factor of the cards it gives back (a product over cards,
        each share taken after the earlier ones) and of the chance that the masks hold. A key
        keeps only what later seats need: the given-back cards later seats also give back (all
        of them in epochs with masked tokens), per epoch how many, the masked tokens, and
        (hidden mode) the colours taken."""
        p = self.player
        mine = state.seat_colours[p] if self.coupled else 0
        pools = self.pools
        sizes = [sum(pool) for pool in pools]
        seats = [self.seats[q] for q in self.others]
        masked_epochs = {
            t >> _SHIFT for st in seats for s in st for t in s[1] if t & _FREE != _FREE
        }
        later: list[set] = []
        codes: set = set()
        for st in reversed(seats):
            later.append(set(codes))
            codes |= {x for s in st for x in s[2]}
        later.reverse()
        memo: dict = {}

        def extend(open_: tuple, totals: tuple, b: tuple, keep: set):
            """The key part after giving back ``b``, and its multinomial factor."""
            got = memo.get((open_, totals, b))
            if got is None:
                factor = 1.0
                taken = list(open_)
                local: list[int] = []
                totals_l = list(totals)
                for code in b:
                    e = code >> 4
                    have = pools[e][code & 15] - taken.count(code) - local.count(code)
                    if have <= 0:
                        factor = 0.0
                        break
                    factor *= have / (sizes[e] - totals_l[e])
                    totals_l[e] += 1
                    local.append(code)
                merged = sorted(x for x in taken + local if x in keep or x >> 4 in masked_epochs)
                got = memo[(open_, totals, b)] = (tuple(merged), tuple(totals_l), factor)
            return got

        layers = []
        layer: dict = {((), (0,) * len(pools), (), mine): 1.0}
        for q, states, keep in zip(self.others, seats, later):
            nxt: dict = {}
            for key, weight in layer.items():
                open_, totals, masked0, used = key
                for index, (w, hand, attr, colour) in enumerate(states):
                    if not w:
                        continue
                    open2, totals2, factor = extend(open_, totals, attr, keep)
                    if not factor:
                        continue
                    masked = tuple(t for t in hand if t & _FREE != _FREE)
                    m = tuple(sorted(masked0 + masked)) if masked else masked0
                    if self.coupled:
                        allowed = self.evidence[q] & ~used
                        choices = [c for c in range(state.num_colours) if allowed >> c & 1]
                        if colour >= 0:
                            choices = [colour] if colour in choices else []
                    else:
                        choices = [-1]
                    for c in choices:
                        k = (open2, totals2, m, used | 1 << c if c >= 0 else used)
                        link = (key, index, c, weight * w * factor)
                        item = nxt.get(k)
                        if item is None:
                            nxt[k] = [link[3], [link]]
                        else:
                            item[0] += link[3]
                            item[1].append(link)
            layers.append(nxt)
            layer = {k: v[0] for k, v in nxt.items()}
        finals = []
        total = 0.0
        for key, weight in layer.items():
            w = weight
            if key[2]:
                w *= _chance_masked(_after(pools, key[0]), key[2])
            if w > 0:
                total += w
                finals.append((total, key))
        if not finals:
            raise NoConsistentWorld("sitting_ducks determinize: no consistent world")
        self.layers = layers
        self.finals = finals

    def pick(self, rng: np.random.Generator):
        """``(owners, local state index per seat, pools left, token codes per seat)``."""
        n = len(self.seats)
        if self.simple:
            a = self.assignments
            owners = a[int(rng.integers(len(a)))] if len(a) > 1 else a[0]
            return owners[:], [0] * n, self.pools, self.hands
        finals = self.finals
        if len(finals) == 1:
            key = finals[0][1]
        else:
            u = rng.random() * finals[-1][0]
            key = next((k for c, k in finals if u < c), finals[-1][1])
        chosen = [0] * n
        colour_of = [-1] * n
        for q, layer in zip(reversed(self.others), reversed(self.layers)):
            links = layer[key][1]
            if len(links) == 1:
                link = links[0]
            else:
                u = rng.random() * sum(x[3] for x in links)
                link = links[-1]
                for x in links:
                    if u < x[3]:
                        link = x
                        break
                    u -= x[3]
            key, chosen[q], colour_of[q] = link[0], link[1], link[2]
        hands = tuple(self.seats[q][chosen[q]][1] if q != self.player else () for q in range(n))
        if self.hidden and not self.coupled:
            a = self.assignments
            owners = a[int(rng.integers(len(a)))] if len(a) > 1 else a[0]
            owners = owners[:]
        elif self.hidden:
            owners = [0] * len(colour_of)
            for q in range(n):
                c = colour_of[q] if q != self.player else -1
                if c >= 0:
                    owners[c] = q
            owners[self.mine] = self.player
        else:
            owners = self.public_owners[:]
        given = tuple(x for q in self.others for x in self.seats[q][chosen[q]][2])
        return owners, chosen, _after(self.pools, given), hands


def _after(pools, attr: tuple):
    """The pools without the cards in ``attr``, or None if a pile runs short."""
    if not attr:
        return pools
    out = [list(pool) for pool in pools]
    for code in attr:
        pool = out[code >> 4]
        pool[code & 15] -= 1
        if pool[code & 15] < 0:
            return None
    return tuple(tuple(pool) for pool in out)


def _chance_masked(pools, masked: tuple) -> float:
    chance = 1.0
    by_epoch: dict[int, list[int]] = {}
    for t in masked:
        by_epoch.setdefault(t >> _SHIFT, []).append(t & _FREE)
    for e, masks in by_epoch.items():
        chance *= _chance(masks, list(pools[e]))
    return chance


def _mask_chance(pools, hands) -> float:
    return _chance_masked(pools, tuple(t for h in hands for t in h if t & _FREE != _FREE))


_CHANCES: dict = {}


def _chance(masks: list[int], pool: list[int]) -> float:
    """Drawing ``len(masks)`` cards from ``pool`` without replacement, the chance that the i-th
    is of a kind in ``masks[i]`` (memoised: a pure function of its arguments)."""
    if not masks:
        return 1.0
    key = (tuple(masks), tuple(pool))
    got = _CHANCES.get(key)
    if got is not None:
        return got
    size = sum(pool)
    mask, rest = masks[0], masks[1:]
    total = 0.0
    for k in range(NUM_KINDS):
        if mask >> k & 1 and pool[k]:
            share = pool[k] / size
            pool[k] -= 1
            total += share * _chance(rest, pool)
            pool[k] += 1
    if len(_CHANCES) > 200_000:
        _CHANCES.clear()
    _CHANCES[key] = total
    return total


def _fill(pools, hands, rng: np.random.Generator):
    """A card for every token (masked ones first, exactly; the rest by a uniform shuffle) and
    the draw pile (what is left of the last epoch, in a uniform order)."""
    fills = [[-1] * len(hand) for hand in hands]
    last = len(pools) - 1
    draw: list[int] = []
    for e, pool in enumerate(pools):
        pool = list(pool)
        tokens = [
            (q, i, t & _FREE)
            for q, hand in enumerate(hands)
            for i, t in enumerate(hand)
            if t >> _SHIFT == e and t & _FREE != _FREE
        ]
        masks = [m for _, _, m in tokens]
        for j, (q, i, mask) in enumerate(tokens):
            kinds = []
            weights = []
            for k in range(NUM_KINDS):
                if mask >> k & 1 and pool[k]:
                    pool[k] -= 1
                    weights.append((pool[k] + 1) * _chance(masks[j + 1 :], pool))
                    pool[k] += 1
                    kinds.append(k)
            u = rng.random() * sum(weights)
            pick = len(kinds) - 1
            for a, wt in enumerate(weights):
                if u < wt:
                    pick = a
                    break
                u -= wt
            if not kinds:
                raise NoConsistentWorld(f"sitting_ducks determinize: epoch {e} runs short")
            pool[kinds[pick]] -= 1
            fills[q][i] = kinds[pick]
        slots = [
            (q, i)
            for q, hand in enumerate(hands)
            for i, t in enumerate(hand)
            if t >> _SHIFT == e and fills[q][i] < 0
        ]
        cards = [k for k in range(NUM_KINDS) for _ in range(pool[k])]
        if len(cards) < len(slots) or (e < last and len(cards) != len(slots)):
            raise NoConsistentWorld(f"sitting_ducks determinize: epoch {e} does not add up")
        if len(cards) > 1:
            cards = [cards[i] for i in rng.permutation(len(cards))]
        for (q, i), kind in zip(slots, cards):
            fills[q][i] = kind
        if e == last:
            draw = cards[len(slots) :]
    return fills, draw


# ---------------------------------------------------------------------------------------------
# A history behind a sample (tests)


def _witness(state: State, know: Knowledge, chosen: list[int], fills, rng) -> dict[int, int]:
    """The card behind every token of the other seats in a history leading to the sample: per
    seat, its local history is drawn backwards in proportion to the weights the filter gave."""
    player = know.player
    n = state.num_players
    index = chosen[:]
    steps: list[tuple[int, int]] = []  # per entry, from the last: (token played, colour)
    node = know
    while node.prev is not None:
        q = node.actor
        if q != player and q >= 0:
            links = node.edges[index[q]]
            u = rng.random() * sum(x[3] for x in links)
            link = links[-1]
            for x in links:
                if u < x[3]:
                    link = x
                    break
                u -= x[3]
            index[q] = link[0]
            steps.append((link[1], link[2]))
        else:
            steps.append((-1, -1))
        node = node.prev
    steps.reverse()
    chain = []
    node = know
    while node.prev is not None:
        chain.append(node)
        node = node.prev
    chain.reverse()
    _, initial, _ = state._log[0]
    held = [
        [] if q == player else [[-2 - 3 * q - i, _FREE] for i in range(len(initial[q]))]
        for q in range(n)
    ]
    witness: dict[int, int] = {}
    epoch = 0
    for j, (node, (token, colour)) in enumerate(zip(chain, steps)):
        q, card, forced, reshuffled, drawn = node.last
        if q != player:
            hand = held[q]
            t = next(t for t in hand if t[1] == token)
            hand.remove(t)
            witness[t[0]] = card
            if forced is not None:
                allowed = forced[colour] if colour >= 0 else forced[0]
                for t in hand:
                    e = t[1] >> _SHIFT
                    t[1] = _canon(e, t[1] & allowed, _support(node.pools[e]))
        if reshuffled is not None:
            epoch += 1
        if drawn >= 0 and q != player:
            held[q].append([j, epoch << _SHIFT | _FREE])
        for hand in held:  # the canonical masks the filter used after this entry
            for t in hand:
                if t[1] & _FREE != _FREE:
                    e = t[1] >> _SHIFT
                    t[1] = _canon(e, t[1] & _FREE, _support(node.pools[e]))
    for q in range(n):
        if q != player:
            final = sorted(held[q], key=lambda t: t[1])
            if [t[1] for t in final] != list(know.seats[q][chosen[q]][1]):
                raise NoConsistentWorld("sitting_ducks: the witness does not follow the sample")
            for t, kind in zip(final, fills[q]):
                witness[t[0]] = kind
    return witness
