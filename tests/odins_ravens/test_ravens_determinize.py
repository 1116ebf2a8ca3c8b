"""``State.determinize`` of Odin's Ravens (issue 16): a function of what the seat knows and of the
rng alone, drawn from the exact posterior of ``hidden.Belief``, and consistent with every event.

Timing is measured by ``bench_ravens_determinize.py`` in this folder (not a test).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import Config, State, hidden
from cardzoo.envs.odins_ravens.hidden import (
    DRAW,
    FROM_AUX,
    FROM_HAND,
    NO_MATCH,
    REARRANGE,
    RESHUFFLE,
    STASH,
    Belief,
    sample_hidden,
)

F, M, P, S, W = range(5)
CONFIGS = [Config(), Config(joker_requires_no_match=True)]


def pool(**counts: int) -> tuple[int, ...]:
    names = ("F", "M", "P", "S", "W", "O1", "O2", "O3", "O4")
    return tuple(counts.get(n, 0) for n in names)


def random_positions(cfg: Config, seeds, every: int = 37, limit: int = 1200, beliefs: bool = False):
    """Clones of seeded random games every ``every`` moves; with ``beliefs``, each seat's
    belief advanced along the game (as an agent calling at every turn keeps it, so the tests'
    calls do not replay whole logs; a fresh replay gives the same belief:
    ``test_the_sample_does_not_depend_on_earlier_calls``)."""
    for seed in seeds:
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        while not s.terminal and not s.truncated and s.move_count < limit:
            s.apply(rng.choice(s.legal_move_ids()))
            if s.move_count % every == 0:
                if beliefs:
                    s.belief(0), s.belief(1)
                yield s.clone()


def views(state: State) -> tuple:
    return (state.view(0), state.view(1))


# -- (a) seed-exact hidden-twin invariance ------------------------------------------------------


@pytest.mark.parametrize("cfg", CONFIGS, ids=["default", "strict"])
def test_hidden_twins_give_the_same_sample_for_the_same_rng(cfg):
    checked = differ_from_truth = 0
    for n, s in enumerate(random_positions(cfg, range(3), beliefs=True)):
        for p in (0, 1):
            twin = s.determinize(p, np.random.default_rng(1000 + n))
            assert twin.view(p) == s.view(p)
            differ_from_truth += twin.view(1 - p) != s.view(1 - p)
            a = s.determinize(p, np.random.default_rng(7))
            b = twin.determinize(p, np.random.default_rng(7))
            assert views(a) == views(b), f"position {n}, seat {p}"
            moves = random.Random(n)
            for _ in range(30):
                if a.terminal:
                    break
                legal = a.legal_move_ids()
                assert legal == b.legal_move_ids()
                move = moves.choice(legal)
                a.apply(move)
                b.apply(move)
                assert views(a) == views(b), f"position {n}, seat {p}, after {move}"
            checked += 1
    assert checked >= 40 and differ_from_truth * 2 > checked


def test_the_sample_does_not_depend_on_earlier_calls():
    """The belief kept between calls is a function of the log: a state whose beliefs were
    advanced at every move and a fresh replay of the same game give the same samples."""
    cfg = Config(joker_requires_no_match=True)
    for seed in range(3):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        moves = []
        while not s.terminal and len(moves) < 400:
            move = rng.choice(s.legal_move_ids())
            moves.append(move)
            s.apply(move)
            s.determinize(len(moves) & 1, np.random.default_rng(0))
        fresh = State(cfg, seed=seed)
        for move in moves:
            fresh.apply(move)
        for p in (0, 1):
            a = s.determinize(p, np.random.default_rng(7))
            b = fresh.determinize(p, np.random.default_rng(7))
            assert views(a) == views(b)


def test_a_sampled_world_shares_the_belief_it_was_drawn_from():
    """A world from ``determinize`` has the state's logs, so it keeps the belief just advanced
    for the opponent: a search that calls ``determinize`` again on the world (or on a clone of
    it) starts from there instead of replaying the log from its checkpoint."""
    checked = 0
    for s in random_positions(
        Config(joker_requires_no_match=True), range(1), 40, limit=440, beliefs=True
    ):
        if s.terminal:
            continue
        s.apply(random.Random(0).choice(s.legal_move_ids()))  # beliefs one move behind
        for p in (0, 1):
            world = s.determinize(p, np.random.default_rng(3))
            assert world._beliefs[1 - p] is s.belief(1 - p)
            assert world.clone().belief(1 - p) is s.belief(1 - p)
            checked += 1
    assert checked >= 10


# -- (b) no pull toward the truth ---------------------------------------------------------------


def test_a_fresh_hand_comes_back_no_more_often_than_its_chance():
    """At the deal the opponent's hand is 5 cards of a shuffled 33-card deck: the true hand's
    multiset has a known chance, and the samples may hit it only about that often."""
    n = 400
    for seed in range(8):
        s = State(Config(), seed=seed)
        truth = tuple(s.hands[1])
        deck = Config().deck
        chance = math.prod(math.comb(deck[k], truth[k]) for k in range(9)) / math.comb(33, 5)
        rng = np.random.default_rng(seed)
        hits = sum(tuple(s.determinize(0, rng).hands[1]) == truth for _ in range(n))
        mean = n * chance
        assert hits <= mean + 5 * math.sqrt(mean) + 3, (seed, hits, chance)


@pytest.mark.parametrize("cfg", CONFIGS, ids=["default", "strict"])
def test_samples_hit_the_truth_as_often_as_a_twins_truth(cfg):
    """Over many worlds the truth is one of them: samples of the position hit its hidden part
    about as often as samples of a twin hit it (both are draws from the same posterior)."""
    positions = list(random_positions(cfg, range(2), every=113, limit=700, beliefs=True))
    assert len(positions) >= 8
    for s in positions:
        p = s.current_player
        truth = s.view(1 - p)
        twin = s.determinize(p, np.random.default_rng(99))
        own = sum(
            s.determinize(p, np.random.default_rng(i)).view(1 - p) == truth for i in range(60)
        )
        other = sum(
            twin.determinize(p, np.random.default_rng(500 + i)).view(1 - p) == truth
            for i in range(60)
        )
        k = own + other
        tail = sum(math.comb(k, i) for i in range(own, k + 1)) / 2**k if k else 1.0
        assert tail > 1e-5, (own, other)


# -- (c) the exact posterior and consistency ----------------------------------------------------


def brute_force(log: list[tuple]) -> Counter:
    """Every card-level history of ``log`` (each draw pile in every order of its cards, every
    choice of hand card and of O2-A order), counted by the world it ends in."""
    worlds: Counter = Counter()

    def run(i, hand, aux, pile):
        if i == len(log):
            counts = tuple(sum(1 for c in hand if c == k) for k in range(9))
            worlds[(counts, tuple(aux), tuple(pile))] += 1
            return
        event = log[i]
        code = event[0]
        if code == RESHUFFLE:
            if pile:
                return
            cards = [k for k in range(9) for _ in range(event[1][k])]
            for order in itertools.permutations(cards):
                run(i + 1, hand, aux, list(order))
        elif code == DRAW:
            n = event[1]
            if n <= len(pile):
                run(i + 1, hand + pile[len(pile) - n :][::-1], aux, pile[: len(pile) - n])
        elif code == STASH:
            for j in range(len(hand)):
                run(i + 1, hand[:j] + hand[j + 1 :], [*aux, hand[j]], pile)
        elif code == FROM_HAND:
            for j in range(len(hand)):
                if hand[j] == event[1]:
                    run(i + 1, hand[:j] + hand[j + 1 :], aux, pile)
        elif code == FROM_AUX:
            if aux and aux[-1] == event[1]:
                run(i + 1, hand, aux[:-1], pile)
        elif code == REARRANGE:
            for order in itertools.permutations(aux):
                run(i + 1, hand, list(order), pile)
        elif code == NO_MATCH:
            t = event[1]
            if t not in hand and not (event[2] and aux and aux[-1] == t):
                run(i + 1, hand, aux, pile)

    run(0, [], [], [])
    return worlds


SMALL_LOGS = {
    "two piles and a stash": [
        (RESHUFFLE, pool(F=2, M=1)),
        (DRAW, 2),
        (STASH,),
        (DRAW, 1),
        (RESHUFFLE, pool(M=1, W=2)),
        (DRAW, 1),
        (FROM_HAND, M),
        (DRAW, 1),
    ],
    "a stash revealed later": [
        (RESHUFFLE, pool(F=2, M=2, W=1)),
        (DRAW, 3),
        (STASH,),
        (STASH,),
        (FROM_AUX, F),
        (DRAW, 1),
        (FROM_HAND, M),
    ],
    "rearranged, then a strict joker": [
        (RESHUFFLE, pool(F=2, M=2, S=2)),
        (DRAW, 4),
        (STASH,),
        (STASH,),
        (REARRANGE,),
        (FROM_HAND, S),
        (NO_MATCH, M, True),
    ],
}


def assert_samples_follow_brute_force(log: list[tuple], seed: int, n: int = 6000) -> None:
    """6,000 samples of ``log``'s hidden cards: every world one that a history explains, and
    their frequencies within 0.04 (total variation) of the brute-force posterior."""
    exact = brute_force(log)
    total = sum(exact.values())
    assert len(exact) >= 2
    rng = np.random.default_rng(seed)
    got: Counter = Counter()
    for _ in range(n):
        hand, aux, draw = sample_hidden(log, rng)
        got[(tuple(hand), tuple(aux), tuple(draw))] += 1
    assert set(got) <= set(exact), "a sampled world no history explains"
    distance = sum(abs(got[w] / n - exact[w] / total) for w in exact) / 2
    assert distance < 0.04, f"total variation {distance:.3f} from the exact posterior"


@pytest.mark.parametrize("name", sorted(SMALL_LOGS))
def test_samples_follow_the_exact_posterior(name):
    log = SMALL_LOGS[name]
    assert_samples_follow_brute_force(log, seed=3)


def test_the_search_fallback_keeps_every_deduction(monkeypatch):
    """Beyond MAX_STATES label states the search takes over; its worlds still fit the log."""
    monkeypatch.setattr(hidden, "MAX_STATES", 0)
    for name, log in SMALL_LOGS.items():
        assert Belief.start().advance(log).states is None, name
        support = set(brute_force(log))
        rng = np.random.default_rng(0)
        for _ in range(100):
            hand, aux, draw = sample_hidden(log, rng)
            assert (tuple(hand), tuple(aux), tuple(draw)) in support, name


@pytest.mark.parametrize("cfg", CONFIGS, ids=["default", "strict"])
def test_the_shortened_log_gives_the_same_posterior_as_the_whole_race(cfg):
    """From a reshuffle at which the hand held every hidden card, the engine resamples from that
    hand instead of the whole race: the opponent's hand comes out alike either way."""
    compared = 0
    for s in random_positions(cfg, range(4), every=53, limit=900, beliefs=True):
        p = s.current_player
        q = 1 - p
        if s.known_from[q][1] is None:
            continue
        whole = Belief.start().advance(s.logs[q])
        if whole.states is None:
            continue
        rng = np.random.default_rng(compared)
        # Mean count of each kind in the opponent's hand, either way (4 standard errors apart
        # at most: a hand has some hundred possible make-ups, too many to compare one by one).
        a = np.mean([s.determinize(p, rng).hands[q] for _ in range(800)], axis=0)
        b = np.mean([whole.sample(rng)[0] for _ in range(800)], axis=0)
        assert np.abs(a - b).max() < 0.15, (compared, a, b)
        compared += 1
        if compared == 6:
            break
    assert compared >= 3


def test_the_checkpoint_hand_is_every_hidden_card():
    """``known_from`` is taken only when the draw pile and the aux deck are empty: the hand it
    names must then be the seat's true hidden cards (checked right at the reshuffle)."""
    seen = 0
    for seed in range(4):
        s = State(Config(), seed=seed)
        rng = random.Random(seed)
        last = list(s.known_from)
        while not s.terminal and s.move_count < 1500:
            before = [(h[:], a[:]) for h, a in zip(s.hands, s.aux)]
            s.apply(rng.choice(s.legal_move_ids()))
            for p in (0, 1):
                if s.known_from[p] is not last[p] and s.known_from[p][1] is not None:
                    start, hand = s.known_from[p]
                    # the events before the reshuffle: a draw of the cards drawn this refill
                    drawn = s.logs[p][start - 1][1] if s.logs[p][start - 1][0] == DRAW else 0
                    old_hand, old_aux = before[p]
                    assert not old_aux and sum(hand) == sum(old_hand) + drawn
                    seen += 1
            last = list(s.known_from)
            if s.race != 1:
                break
    assert seen >= 5
