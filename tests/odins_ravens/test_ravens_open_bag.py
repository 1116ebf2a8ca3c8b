"""Open bags in Odin's Ravens' ``hidden.Belief`` (issue 16, exactness): the cards a seat stashes
from one hand with no card added to it between (no draw) lie in an exchangeable order, so they
share one aux entry, a bag, instead of one slot each; a draw, a rearrangement (O2-A) or a
no-match mask closes it (``hidden._open_after``). Checked two ways:

- on random small logs, the belief's whole world distribution (every deal of every label
  state, enumerated) equals the brute-force count of card-level histories, to rounding;
- at positions of seeded random games, the belief equals the one built with a slot per stash
  (``_open_after`` always 0) once that one's slots are grouped as the bags are.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, defaultdict

import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden
from cardzoo.envs.odins_ravens.data import NUM_KINDS
from cardzoo.envs.odins_ravens.hidden import (
    DRAW,
    FROM_AUX,
    FROM_HAND,
    NO_MATCH,
    REARRANGE,
    RESHUFFLE,
    STASH,
    Belief,
)
from cardzoo.envs.odins_ravens.labels import _allowed, _entry_labels, _is_bag
from cardzoo.train.bench_loops import game_positions
from ravens_helpers import belief_within, shares
from test_ravens_determinize import brute_force, pool, random_positions

F, M, P = range(3)


def belief_worlds(belief: Belief) -> dict:
    """The belief's exact distribution over worlds (hand counts, aux bottom -> top, draw pile):
    every state's weight spread over every deal of its epochs' cards to its tokens (masks
    obeyed) and every order of its bags' cards, each equally likely."""
    out: dict = defaultdict(float)
    for state, weight in zip(belief.states, belief.weights):
        current, undrawn, pools, hand, aux = state
        places = [("hand", 0, label) for label, n in hand for _ in range(n)]
        for i, entry in enumerate(aux):
            places += [("aux", i, label) for label, n in _entry_labels(entry) for _ in range(n)]
        places += [("draw", 0, (current, 0))] * undrawn
        per_epoch = []
        for epoch, left in enumerate(pools):
            mine = [j for j, place in enumerate(places) if place[2][0] == epoch]
            cards = [k for k in range(NUM_KINDS) for _ in range(left[k])] if left else []
            assert len(cards) == len(mine), "an epoch's tokens are as many as its cards"
            per_epoch.append(
                [
                    list(zip(mine, deal))
                    for deal in set(itertools.permutations(cards))
                    if all(_allowed(places[j][2], k) for j, k in zip(mine, deal))
                ]
            )
        for combo in itertools.product(*per_epoch):
            kinds = dict(pair for part in combo for pair in part)
            counts = [0] * NUM_KINDS
            blocks: list[list[int]] = [[] for _ in aux]
            draw = []
            for j, (zone, i, _) in enumerate(places):
                if zone == "hand":
                    counts[kinds[j]] += 1
                elif zone == "aux":
                    blocks[i].append(kinds[j])
                else:
                    draw.append(kinds[j])
            orders = [
                list(itertools.permutations(b)) if _is_bag(e) else [tuple(b)]
                for b, e in zip(blocks, aux)
            ]
            share = weight / max(1, len(list(itertools.product(*orders))))
            for chosen in itertools.product(*orders):
                world = (tuple(counts), tuple(k for b in chosen for k in b), tuple(draw))
                out[world] += share
    return out


def random_log(rng: random.Random, length: int = 12) -> list[tuple]:
    """A log of a random small game: two piles drawn into one hand first (so stashes mix their
    cards), then random draws, stashes, plays, rearrangements and no-match events."""
    pile: list[int] = []
    hand: list[int] = []
    aux: list[int] = []
    log: list[tuple] = []
    epochs = 0

    def reshuffle() -> None:
        nonlocal pile, epochs
        pile = [rng.choice((0, 1, 2, 5)) for _ in range(rng.randint(2, 3))]
        epochs += 1
        log.append((RESHUFFLE, tuple(pile.count(k) for k in range(NUM_KINDS))))

    def draw(n: int) -> None:
        nonlocal pile
        hand.extend(pile[len(pile) - n :])
        pile = pile[: len(pile) - n]
        log.append((DRAW, n))

    reshuffle()
    draw(len(pile))
    reshuffle()
    draw(rng.randint(1, len(pile)))
    while len(log) < length:
        options = ["draw"] * bool(pile) + ["reshuffle"] * (not pile and epochs < 3)
        options += ["stash"] * 3 * bool(hand) + ["play"] * bool(hand) + ["aux"] * 2 * bool(aux)
        options += ["rearrange"] * (1 < len(aux) < 4) + ["no_match"]
        choice = rng.choice(options)
        if choice == "reshuffle":
            reshuffle()
        elif choice == "draw":
            draw(rng.randint(1, len(pile)))
        elif choice == "stash":
            aux.append(hand.pop(rng.randrange(len(hand))))
            log.append((STASH,))
        elif choice == "play":
            log.append((FROM_HAND, hand.pop(rng.randrange(len(hand)))))
        elif choice == "aux":
            log.append((FROM_AUX, aux.pop()))
        elif choice == "rearrange":
            rng.shuffle(aux)
            log.append((REARRANGE,))
        else:
            types = [t for t in range(3) if t not in hand and not (aux and aux[-1] == t)]
            if types:
                log.append((NO_MATCH, rng.choice(types), True))
    return log


def _mixed_bags(belief: Belief) -> int:
    """States holding a bag of cards of two piles or more (where an open bag merges states)."""
    return sum(
        any(_is_bag(e) and len({label[0] for label, _ in e}) > 1 for e in state[4])
        for state in belief.states
    )


# Two piles in one hand, two stashes, then a no-match mask on the hand and the top card: the
# stash after it must not join the card stashed first (unmasked, under the masked top).
MASKED_OPEN_BAG = [
    (RESHUFFLE, pool(F=1, M=1)),
    (DRAW, 2),
    (RESHUFFLE, pool(M=1, P=1, O1=1)),
    (DRAW, 2),
    (STASH,),
    (STASH,),
    (NO_MATCH, F, True),
    (FROM_AUX, M),
    (STASH,),
]


def test_beliefs_with_open_bags_equal_the_brute_force_posterior():
    """80 random logs and one written out: the belief's worlds and their probabilities are
    exactly the brute-force posterior's. Fails if a draw, a no-match mask or a rearrangement
    does not close the open bag, or if a card played from the aux deck does not shrink it
    (each mutation tried)."""
    rng = random.Random(4)
    compared = mixed = 0
    for n in range(81):
        log = random_log(rng) if n else MASKED_OPEN_BAG
        exact = brute_force(log)
        total = sum(exact.values())
        belief = Belief.start().advance(log)
        assert belief.dropped == 0
        got = belief_worlds(belief)
        norm = sum(got.values())
        assert set(got) == set(exact), log
        for world, count in exact.items():
            assert got[world] / norm == pytest.approx(count / total, rel=1e-9, abs=1e-12), log
        compared += len(exact) > 1
        mixed += _mixed_bags(belief) > 0
    assert compared >= 50 and mixed >= 10


def _peak(log: list[tuple]) -> int:
    """The most label states the uncut belief holds along ``log``."""
    belief, peak = Belief.start(), 1
    for event in log:
        belief = belief.advance([event])
        peak = max(peak, len(belief.states))
    return peak


def test_small_logs_that_a_slot_per_stash_would_cut_are_held_exactly(monkeypatch):
    """Random small logs where the belief with a slot per stash needs more label states than
    the one with open bags: with ``MAX_STATES`` set to the latter's peak, the slot belief is
    cut (the situation of the cut positions of real games, in miniature) while the open-bag
    belief is not, and its worlds are exactly the brute-force posterior's. Fails if open bags
    stop merging (no log qualifies) or merge wrongly."""
    monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
    monkeypatch.setattr(hidden, "UNMASKED_FACTOR", 1)  # the limit is the peak, masks or not
    monkeypatch.setattr(hidden, "CUT_MASS", 0.0)
    rng = random.Random(11)
    held = 0
    for _ in range(120):
        log = random_log(rng)
        limit = _peak(log)
        with monkeypatch.context() as m:
            m.setattr(hidden, "_open_after", lambda open_bag, event: 0)
            if _peak(log) <= limit:
                continue
            m.setattr(hidden, "MAX_STATES", limit)
            slots = Belief.start().advance(log)
            # cut, or cut and then left with no state that fits a later event
            assert slots.dropped > 0 or slots.states is None
        monkeypatch.setattr(hidden, "MAX_STATES", limit)
        belief = Belief.start().advance(log)
        monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
        assert belief.dropped == 0
        exact = brute_force(log)
        total = sum(exact.values())
        got = belief_worlds(belief)
        norm = sum(got.values())
        assert set(got) == set(exact), log
        for world, count in exact.items():
            assert got[world] / norm == pytest.approx(count / total, rel=1e-9, abs=1e-12), log
        held += 1
    assert held >= 5


def _grouped(state: tuple, shape: list[tuple[int, bool]]) -> tuple:
    """A slot belief's state with its aux tokens (bottom -> top) cut into entries of the
    bagged belief's sizes, each a bag or a slot as there (bags as sorted label counts)."""
    current, undrawn, pools, hand, aux = state
    tokens = [label for entry in aux for label, n in _entry_labels(entry) for _ in range(n)]
    out, at = [], 0
    for size, bag in shape:
        part = tokens[at : at + size]
        at += size
        out.append(tuple(sorted(Counter(part).items())) if bag else part[0])
    assert at == len(tokens)
    return (current, undrawn, pools, hand, tuple(out))


def _assert_bags_equal_grouped_slots(bagged: Belief, slots: Belief) -> None:
    """The bagged belief's shares equal the slot belief's with its slots grouped as the bags."""
    shape = [(sum(n for _, n in _entry_labels(e)), _is_bag(e)) for e in bagged.states[0][4]]
    want = shares([_grouped(st, shape) for st in slots.states], slots.weights)
    got = shares(bagged.states, bagged.weights)
    assert set(got) == set(want)
    for st, share in want.items():
        assert got[st] == pytest.approx(share, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(
    "cfg", [Config(), Config(joker_requires_no_match=True)], ids=["default", "strict"]
)
def test_bagged_belief_equals_the_slot_belief_grouped(cfg, monkeypatch):
    """At positions of seeded random games (no cut either way), the belief with open bags is
    the belief with one slot per stash, its slots grouped as the bags are. Fails if a stash
    into the open bag is weighted or labelled differently from a stash onto a slot."""
    monkeypatch.setattr(hidden, "MAX_STATES", 10**6)
    compared = merged_away = 0
    for s in random_positions(cfg, range(2), every=37, limit=600):
        for seat in (0, 1):
            log = s.logs[seat]
            with monkeypatch.context() as m:
                m.setattr(hidden, "_open_after", lambda open_bag, event: 0)
                slots = belief_within(log, 800)
            if slots is None:
                continue
            bagged = belief_within(log, 800)
            _assert_bags_equal_grouped_slots(bagged, slots)
            compared += 1
            merged_away += len(slots.states) - len(bagged.states)
    assert compared >= 20 and merged_away > 0


def test_a_position_that_was_cut_is_now_held_exactly(monkeypatch):
    """Seat 0 at the late position of the bench's seeded random game 1: with a slot per stash
    the posterior outgrew ``MAX_STATES`` (400 then) on the way there and was cut (0.97% of its
    mass dropped); with open bags it never does, and it equals the uncut slot belief grouped as its
    bags are."""
    state = game_positions(State, Config(), games=1, seed=1)["late"][0]
    belief = state.belief(0)
    assert belief.states is not None and belief.dropped == 0
    start, hand = state.known_from[0]
    log = state.logs[0][start:]
    with monkeypatch.context() as m:
        m.setattr(hidden, "_open_after", lambda open_bag, event: 0)
        m.setattr(hidden, "MAX_STATES", 400)  # the limit of the time (1000 since session 8)
        m.setattr(hidden, "UNMASKED_FACTOR", 1)  # (2 since session 11)
        assert Belief.start(hand, None, start).advance(log).dropped > 0
        m.setattr(hidden, "MAX_STATES", 10**6)
        slots = Belief.start(hand, None, start).advance(log)
    _assert_bags_equal_grouped_slots(belief, slots)
