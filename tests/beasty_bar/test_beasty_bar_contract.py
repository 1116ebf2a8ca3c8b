"""Beasty Bar engine contract: move_count, END_REASONS, render_for, and scores that agree with
the result (rules doc ``docs/rules/beasty_bar.md`` §8, §11)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.envs import beasty_bar_v0
from cardzoo.envs.beasty_bar import Config, Play, SetAside, State
from cardzoo.envs.beasty_bar.data import (
    CHAMELEON,
    CROCODILE,
    GIRAFFE,
    HIPPO,
    LION,
    MONKEY,
    NAMES,
    PARROT,
    SEAL,
    SKUNK,
    ZEBRA,
)
from cardzoo.envs.core import IllegalMoveError

CONFIGS = [
    Config(num_players=2),
    Config(num_players=3, scoring="points"),
    Config(num_players=4),
    Config(num_players=2, scoring="points", set_aside=4),
    Config(num_players=3, set_aside=4, chameleon_may_decline=True),
]


def random_states(cfg: Config, games: int, seed0: int = 0):
    """Every state (terminal ones included) of a few random games."""
    for seed in range(seed0, seed0 + games):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while True:
            yield s
            if s.terminal:
                break
            s.apply(rng.choice(s.legal_move_ids()))


# ---------------------------------------------------------------------------------------------
# move_count and END_REASONS


def test_move_count_counts_every_applied_move_and_is_copied():
    cfg = Config(num_players=2, scoring="points", set_aside=4)
    s = State(cfg, seed=2)
    assert s.move_count == 0
    s.apply(SetAside(LION))  # set-aside decisions are moves, though not turns
    assert (s.move_count, s.turn) == (1, 0)
    with pytest.raises(IllegalMoveError):
        s.apply(SetAside(LION))
    assert s.move_count == 1  # a rejected move changes nothing
    rng = random.Random(0)
    while not s.terminal:
        before = s.move_count
        c = s.clone()
        d = s.determinize(s.current_player, np.random.default_rng(before))
        assert c.move_count == d.move_count == before
        s.apply_id(rng.choice(s.legal_move_ids()))
        assert s.move_count == before + 1 and c.move_count == before
    assert s.move_count == 2 * 4 + 2 * 8  # 4 set-aside decisions and 8 turns per seat


def test_move_count_starts_at_zero_in_a_hand_set_position():
    s = State.from_position(Config(), hands=[[LION], [SEAL]], turn=5)
    assert s.move_count == 0 and s.turn == 5
    s.apply(Play(LION))
    assert s.move_count == 1 and s.turn == 6


def test_end_reasons_name_every_end():
    assert State.END_REASONS == ("all_cards_played",)
    for cfg in CONFIGS[:4]:
        for s in random_states(cfg, 3):
            if s.terminal:
                assert s.end_reason in State.END_REASONS
            else:
                assert s.end_reason is None
    finished = State.from_position(Config(), hands=[[], []])
    assert finished.end_reason == State.END_REASONS[0]


# ---------------------------------------------------------------------------------------------
# render_for: a player's-eye render


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.set_aside}")
def test_render_for_is_unchanged_when_hidden_cards_are_resampled(cfg):
    resampled = changed = 0
    for k, s in enumerate(random_states(cfg, 8)):
        for p in range(cfg.num_players):
            d = s.determinize(p, np.random.default_rng(k * 7 + p))
            assert d.render_for(p) == s.render_for(p)
            resampled += 1
            changed += d.render() != s.render()  # hidden cards did move
    assert resampled > 200 and changed > resampled // 2


def test_render_for_shows_own_cards_and_only_sizes_of_others():
    s = State.from_position(
        Config(num_players=2, first_player=0),
        queue=[(HIPPO, 1), (PARROT, 0)],
        hands=[[LION, SEAL], [ZEBRA, GIRAFFE, CHAMELEON]],
        draw_piles=[[SKUNK], [MONKEY]],
        bar=[(CROCODILE, 0)],
        thats_it=[(GIRAFFE, 0)],
        current_player=0,
    )
    # seat 0's unplaced animals are in THAT'S IT (from_position); seat 1's hand shows only as
    # part of its animals not yet played (hand + draw pile), which is public
    head = (
        "Beasty Bar, 2 players, scoring count, turn 0 (7 cards left to play), seat 0 to play\n"
        "seen by seat {me} (seat 0 played first)\n"
        "queue (gate -> exclusion): 0:Hippo(1) 1:Parrot(0)\n"
        "my hand: {hand}; cards in my draw pile: 1 (order unknown)\n"
        "seat    score  sum  hand  draw  bar / THAT'S IT\n"
    )
    out0 = "Kangaroo, Monkey, Chameleon, Zebra, Giraffe, Snake, Hippo"
    out1 = "Skunk, Parrot, Kangaroo, Seal, Snake, Crocodile, Lion"
    row0 = f"      1   10     2     1  Crocodile / {out0}"
    row1 = f"      0    0     3     1  - / {out1}"
    assert s.render_for(0) == (
        head.format(me=0, hand="Seal, Lion")
        + f"0 (me){row0}\n1     {row1}\n"
        + "seat 1 not yet played (hand + draw pile): Monkey, Chameleon, Zebra, Giraffe"
    )
    assert s.render_for(1) == (
        head.format(me=1, hand="Chameleon, Zebra, Giraffe")
        + f"0     {row0}\n1 (me){row1}\n"
        + "seat 0 not yet played (hand + draw pile): Skunk, Seal, Lion"
    )


def test_render_for_shows_own_set_aside_cards_only():
    cfg = Config(num_players=2, scoring="points", set_aside=4)
    renders = []
    for picks in ([LION, HIPPO, CROCODILE, SKUNK], [PARROT, SEAL, ZEBRA, MONKEY]):
        s = State(cfg, seed=4)
        for animal in picks:
            s.apply(SetAside(animal))
        mine = s.render_for(0)
        assert f"my set-aside animals: {', '.join(NAMES[a] for a in sorted(picks))}" in mine
        theirs = s.render_for(1)
        assert "my set-aside animals: -" in theirs
        assert "0           0    0     8     0     4  - / -" in theirs  # 4 set aside, 8 in hand
        renders.append(theirs)
    assert renders[0] == renders[1]  # seat 1 cannot tell what seat 0 put aside


def test_render_for_rejects_a_bad_seat():
    s = State(Config(num_players=2), seed=0)
    for bad in (2, -1, "0", None, True):
        with pytest.raises(ValueError, match="player must be a seat"):
            s.render_for(bad)


def test_render_for_at_the_end_names_the_winners():
    s = State.from_position(Config(), bar=[(LION, 1)], hands=[[], []])
    assert "game over, winners [1]" in s.render_for(0).splitlines()[0]


# ---------------------------------------------------------------------------------------------
# Scores agree with the result (reward="score")


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.scoring}")
def test_every_winner_scores_more_than_every_loser(cfg):
    ties_on_bar_score = 0
    for s in random_states(cfg, 150, seed0=1000):
        if not s.terminal:
            continue
        scores, winners = s.scores(), s.winners()
        losers = [q for q in range(cfg.num_players) if q not in winners]
        assert len({scores[w] for w in winners}) == 1  # shared winners score the same
        if losers:
            assert min(scores[w] for w in winners) > max(scores[q] for q in losers)
            bar = s.bar_scores()
            ties_on_bar_score += max(bar[q] for q in losers) == bar[winners[0]]
    # the strength-sum tiebreak decided some of these games
    assert ties_on_bar_score > 0


def test_score_tie_on_bar_animals_goes_to_the_lower_strength_sum():
    # both seats have 2 animals in the bar; seat 0's sum is lower, so seat 0 wins and scores more
    bar = [(SKUNK, 0), (PARROT, 0), (LION, 1), (HIPPO, 1)]
    s = State.from_position(Config(), bar=bar, hands=[[], []])
    assert s.bar_scores() == (2, 2)
    assert s.winners() == (0,)
    assert s.scores() == (1.97, 1.77)


def test_score_reward_pays_winners_more_than_losers():
    for n in (2, 3):
        env = beasty_bar_v0.env(num_players=n, reward="score")
        for seed in range(40):
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            final = {}
            for agent in env.agent_iter():
                obs, reward, term, trunc, _ = env.last()
                if term or trunc:
                    final[agent] = reward
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            state = env.unwrapped.game_state
            paid = [final[f"player_{q}"] for q in range(n)]
            winners = state.winners()
            losers = [q for q in range(n) if q not in winners]
            if losers:
                assert min(paid[w] for w in winners) > max(paid[q] for q in losers)
            assert sum(paid) == pytest.approx(0.0)


def test_hand_set_draw_pile_longer_than_a_real_one_is_refused():
    # a real pile never holds more than 12 - 4 cards; the global state has room for 8
    nine = [SKUNK, PARROT, MONKEY, CHAMELEON, SEAL, ZEBRA, GIRAFFE, CROCODILE, HIPPO]
    with pytest.raises(ValueError, match="draw_piles: at most 8 cards"):
        State.from_position(Config(), hands=[[LION], []], draw_piles=[nine, []])
