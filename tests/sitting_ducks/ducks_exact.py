"""Brute force: every world behind one seat's view of a small Sitting Ducks position, counted.

A *world* is everything the deal and the reshuffles fixed that ``player`` did not see: the kind
of every action card the other seats received (their dealt hands and each of their draws), the
order of the draw pile, and (hidden mode) the other seats' secret colours. Each pile of the game
("epoch": the dealt deck, then each reshuffled discard pile) is a uniformly shuffled multiset, so
every arrangement of its kinds is equally likely a priori, and so is every colour assignment;
the exact posterior is therefore uniform over the worlds in which the whole public record could
have happened. This module enumerates them all (feasible only for tiny decks) and counts them
per *hidden state*: the colour owners, the other seats' hands and the draw pile's contents. The
draw pile's order is left out of the key: it is a uniform shuffle of its contents in every
world, so it carries no information.

It shares no code with the engine's sampler: it replays the record from ``state._log`` itself.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations, product

from cardzoo.envs.sitting_ducks.data import NUM_KINDS, ORDER_PHASE

HiddenKey = tuple


def _distinct_orders(counts: list[int]) -> list[tuple[int, ...]]:
    """Every distinct sequence of the multiset ``counts`` (kind -> copies)."""
    total = sum(counts)
    out: list[tuple[int, ...]] = []
    seq: list[int] = []

    def extend() -> None:
        if len(seq) == total:
            out.append(tuple(seq))
            return
        for kind in range(NUM_KINDS):
            if counts[kind]:
                counts[kind] -= 1
                seq.append(kind)
                extend()
                seq.pop()
                counts[kind] += 1

    extend()
    return out


def _record(state) -> list[tuple]:
    entries = list(state._log[1 : state._log_len])
    if state.phase == ORDER_PHASE:  # Disorderly Conduckt played, its turn not logged yet
        entries.append((state.current_player, state._turn_card, None, None, -1))
    return entries


def _slots(state, player: int) -> tuple[list[list[int]], list[list[tuple]]]:
    """Per epoch: the kinds nobody but ``player`` has seen (counts) and the places they went:
    ``("deal", seat, index)``, ``("draw", entry)`` or ``("pile", index)``."""
    _, initial, pool0 = state._log[0]
    pools = [list(pool0)]
    places: list[list[tuple]] = [[]]
    for kind in initial[player]:
        pools[0][kind] -= 1
    for q in range(state.num_players):
        if q != player:
            places[0] += [("deal", q, i) for i in range(len(initial[q]))]
    for j, (q, _, _, reshuffled, drawn) in enumerate(_record(state)):
        if reshuffled is not None:
            pools.append(list(reshuffled))
            places.append([])
        if drawn >= 0:
            if q == player:
                pools[-1][drawn] -= 1
            else:
                places[-1].append(("draw", j))
    places[-1] += [("pile", i) for i in range(len(state.draw))]
    for pool, where in zip(pools, places):
        assert sum(pool) == len(where) and min(pool) >= 0, "the piles do not add up"
    return pools, places


def _owner_choices(state, player: int) -> list[tuple[int, ...]]:
    if state.mode != "hidden":
        return [tuple(state.colour_owner)]
    mine = state.seat_colours[player].bit_length() - 1
    others = [q for q in range(state.num_players) if q != player]
    free = [c for c in range(state.num_colours) if c != mine]
    out = []
    for perm in permutations(others):
        owners = [player] * state.num_colours
        for c, q in zip(free, perm):
            owners[c] = q
        out.append(tuple(owners))
    return out


def _replay(state, player, owners, entries, dealt, drawn_by) -> list[list[int]] | None:
    """The other seats' hands now if this world explains the record, else None."""
    _, initial, _ = state._log[0]
    hands = [list(initial[q]) if q == player else list(dealt[q]) for q in range(len(initial))]
    colour = {q: c for c, q in enumerate(owners)}
    for j, (q, card, forced, _, drawn) in enumerate(entries):
        hand = hands[q]
        if card not in hand:
            return None
        if forced is not None:
            allowed = forced[colour[q]] if state.mode == "hidden" else forced[0]
            if any(not allowed >> k & 1 for k in hand):
                return None
        hand.remove(card)
        if drawn >= 0:
            hand.append(drawn if q == player else drawn_by[j])
    return hands


def exact_posterior(state, player: int) -> Counter:
    """Worlds per hidden state ``(owners, other seats' sorted hands, sorted draw pile)``."""
    pools, places = _slots(state, player)
    entries = _record(state)
    evidence = state.colour_evidence
    counts: Counter = Counter()
    orders = [_distinct_orders(pool[:]) for pool in pools]
    for owners in _owner_choices(state, player):
        if any(not evidence[q] >> c & 1 for c, q in enumerate(owners) if q != player):
            continue  # own-duck cards showed the seat cannot own that colour
        for choice in product(*orders):
            dealt: dict[int, list[int]] = {}
            drawn_by: dict[int, int] = {}
            pile: list[int] = []
            for seq, where in zip(choice, places):
                for kind, place in zip(seq, where):
                    if place[0] == "deal":
                        dealt.setdefault(place[1], []).append(kind)
                    elif place[0] == "draw":
                        drawn_by[place[1]] = kind
                    else:
                        pile.append(kind)
            hands = _replay(state, player, owners, entries, dealt, drawn_by)
            if hands is not None:
                counts[hidden_key(state, player, owners, hands, pile)] += 1
    return counts


def hidden_key(state, player: int, owners, hands, draw) -> HiddenKey:
    others = tuple(tuple(sorted(h)) for q, h in enumerate(hands) if q != player)
    return (tuple(owners), others, tuple(sorted(draw)))


def world_count(state, player: int) -> int:
    """How many arrangements the enumeration walks (to keep test positions small)."""
    pools, _ = _slots(state, player)
    total = 1
    for pool in pools:
        total *= len(_distinct_orders(pool[:]))
    return total * len(_owner_choices(state, player))
