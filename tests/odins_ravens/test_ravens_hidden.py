"""What each Odin's Ravens seat may see (rules doc, "Information"), and ``determinize``: every
resampled world keeps the view and agrees with every deduction the event log allows."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.odins_ravens import Config, Joker, State
from cardzoo.envs.odins_ravens.hidden import (
    DRAW,
    FROM_AUX,
    FROM_HAND,
    NO_MATCH,
    REARRANGE,
    RESHUFFLE,
    STASH,
    InconsistentLog,
    sample_hidden,
)
from ravens_helpers import position

F, M, P, S, W = range(5)


def pool(**counts: int) -> tuple[int, ...]:
    names = ("F", "M", "P", "S", "W", "O1", "O2", "O3", "O4")
    return tuple(counts.get(n, 0) for n in names)


def samples(log, n=60, seed=0):
    rng = np.random.default_rng(seed)
    return [sample_hidden(log, rng) for _ in range(n)]


def random_states(cfg: Config, games: int, every: int = 23):
    for seed in range(games):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not s.terminal and not s.truncated:
            s.apply(rng.choice(s.legal_move_ids()))
            k += 1
            if k % every == 0:
                yield s


# -- deductions from the event log -----------------------------------------------------------


def test_a_card_stashed_before_a_reshuffle_is_from_the_old_pile():
    # hand F F F F; a new pile {M, W, W}: draw 1; stash 1; play an M from hand. The M can only
    # be the card just drawn, so the stashed card was an F; then the two W are drawn.
    log = [
        (RESHUFFLE, pool(F=4)),
        (DRAW, 4),
        (RESHUFFLE, pool(M=1, W=2)),
        (DRAW, 1),
        (STASH,),
        (FROM_HAND, M),
        (DRAW, 2),
    ]
    for hand, aux, draw in samples(log):
        assert aux == [F] and draw == [] and hand[F] == 3 and hand[W] == 2


def test_the_draw_pile_holds_only_cards_of_its_last_reshuffle():
    log = [(RESHUFFLE, pool(F=2, M=3)), (DRAW, 5), (FROM_HAND, F), (FROM_HAND, M)]
    log += [(RESHUFFLE, pool(W=2, S=1)), (DRAW, 1)]
    seen = set()
    for hand, _aux, draw in samples(log):
        assert len(draw) == 2 and Counter(draw) <= Counter([W, W, S])
        assert sum(hand) == 4 and Counter({F: 1, M: 2}) <= Counter(
            {k: n for k, n in enumerate(hand)}
        )
        seen.add(tuple(sorted(draw)))
    assert seen == {(S, W), (W, W)}  # both possibilities do occur


def test_a_joker_under_the_strict_rule_shows_there_is_no_match_in_hand():
    log = [(RESHUFFLE, pool(M=3, F=3)), (DRAW, 3), (NO_MATCH, M, False)]
    for hand, _aux, draw in samples(log):
        assert hand[M] == 0 and sorted(draw) == [M, M, M]


def test_no_match_also_covers_the_aux_top():
    log = [(RESHUFFLE, pool(M=1, F=2)), (DRAW, 2), (STASH,), (NO_MATCH, M, True)]
    for hand, aux, draw in samples(log):
        assert aux == [F] and hand[F] == 1 and draw == [M]
    log[-1] = (NO_MATCH, M, False)  # the hand only: the M may be the stashed card
    assert {tuple(aux) for _, aux, _ in samples(log)} == {(F,), (M,)}


def test_a_strict_joker_from_the_aux_tells_exactly_what_the_rule_requires():
    """After a strict joker taking the aux top, the opponent learns: no M in hand and the new aux
    top is no M. Nothing more: an M may lie below that top or in the draw pile."""
    cfg = Config(joker_requires_no_match=True)
    hand = ["S", "F", "P", "W"]
    s = position("MFPSWFPSW", config=cfg, hands=[hand, []], aux=[["S", "F", "M", "M"], []])
    assert s.is_legal(s.MOVE_INDEX[Joker(S, 1)])
    s.apply(Joker(S, 1))
    assert s.logs[0][-1] == (NO_MATCH, M, True)
    rng = np.random.default_rng(3)
    below = in_draw = 0
    for _ in range(300):
        w = s.determinize(1, rng)
        assert w.hands[0][M] == 0 and w.aux[0][-1] != M
        below += M in w.aux[0]
        in_draw += M in w.draws[0]
    assert below > 30 and in_draw > 30


def test_a_slot_revealed_later_fixes_what_the_others_can_be():
    # two cards {F, M} stashed; the top one is later played: an F. The other one is the M.
    log = [(RESHUFFLE, pool(F=1, M=1)), (DRAW, 2), (STASH,), (STASH,), (FROM_AUX, F)]
    for _hand, aux, _draw in samples(log):
        assert aux == [M]


def test_a_rearranged_aux_deck_is_in_an_unseen_order():
    log = [(RESHUFFLE, pool(F=1, M=1)), (DRAW, 2), (STASH,), (STASH,), (REARRANGE,)]
    orders = {tuple(aux) for _, aux, _ in samples(log)}
    assert orders == {(F, M), (M, F)}
    log.append((FROM_AUX, M))  # the rearranged deck's top turned out to be the M
    assert {tuple(aux) for _, aux, _ in samples(log)} == {(F,)}


def test_an_impossible_log_is_reported():
    with pytest.raises(InconsistentLog):
        sample_hidden([(RESHUFFLE, pool(F=1)), (DRAW, 1), (FROM_HAND, M)], np.random.default_rng())


# -- views and determinize in real games ------------------------------------------------------


@pytest.mark.parametrize("cfg", [Config(), Config(joker_requires_no_match=True)])
def test_determinize_keeps_the_view_and_resamples_hidden_cards(cfg):
    rng = np.random.default_rng(5)
    checked = changed = 0
    for s in random_states(cfg, 6):
        for p in (0, 1):
            other = s.determinize(p, rng)
            assert other.view(p) == s.view(p)
            assert other.render_for(p) == s.render_for(p)
            assert [sum(c) for c in zip(*other.census().values())] == s.card_totals
            q = 1 - p
            assert sum(other.hands[q]) == sum(s.hands[q]) and len(other.aux[q]) == len(s.aux[q])
            assert sorted(other.draws[p]) == sorted(s.draws[p])
            k = s.land_known
            assert other.land_deck[:k] == s.land_deck[:k]
            assert sorted(other.land_deck) == sorted(s.land_deck)
            assert other.legal_move_ids() == s.legal_move_ids() or s.current_player != p
            checked += 1
            changed += other.census() != s.census()
    assert checked > 50 and changed > checked // 2


def test_determinized_worlds_replay_every_public_event():
    """The opponent's sampled hidden cards must agree with what its public log revealed: the
    cards it played from hand and aux are counted in its discard pile / Magic Way row, so its
    unseen cards (hand + aux + draw) keep their make-up."""
    rng = np.random.default_rng(11)
    for s in random_states(Config(), 5):
        for p in (0, 1):
            q = 1 - p
            other = s.determinize(p, rng)
            unseen = Counter(other.aux[q]) + Counter(other.draws[q])
            unseen.update({k: n for k, n in enumerate(other.hands[q]) if n})
            truth = Counter(s.aux[q]) + Counter(s.draws[q])
            truth.update({k: n for k, n in enumerate(s.hands[q]) if n})
            assert unseen == truth


def test_the_view_shows_only_sizes_of_the_opponents_hidden_cards():
    s = State(Config(), seed=4)
    v = s.view(0)
    assert v.hand == tuple(s.hands[0]) and v.aux == tuple(reversed(s.aux[0]))
    assert v.hand_sizes == (5, 5) and not hasattr(v, "hands")
    text = s.render_for(0)
    assert "my hand" in text and "seat 1: raven -1, hand 5 cards" in text
    assert s.render_for(0) != s.render_for(1) != s.render()


def test_render_for_depends_on_the_view_only():
    for s in random_states(Config(), 3, every=41):
        for p in (0, 1):
            assert s.determinize(p, np.random.default_rng(1)).render_for(p) == s.render_for(p)
