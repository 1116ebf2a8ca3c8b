"""The engine contract for Cubirds: ``move_count``, ``END_REASONS``, ``render_for`` and scores
that always rank the winners above the losers."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs import cubirds_v0
from cardzoo.envs.cubirds.game import Config, Draw, Flock, Lay, State
from cubirds_worlds import config_for, random_states

F, O, T, D, P, M, W, R = range(8)  # noqa: E741 (O is the spec letter for Owl)


def test_move_count_counts_every_applied_move_and_is_copied():
    s = State(Config(num_players=3), seed=2)
    assert s.move_count == 0
    rng = np.random.default_rng(0)
    for k in range(1, 60):
        ids = s.legal_move_ids()
        if k % 2:
            s.apply(ids[int(rng.integers(len(ids)))])
        else:
            s.apply_id(ids[int(rng.integers(len(ids)))])
        assert s.move_count == k
        assert s.clone().move_count == k
        assert s.determinize(0, rng).move_count == k
    with pytest.raises(ValueError):
        s.apply(999)  # refused: not counted
    assert s.move_count == 59


def test_move_count_starts_at_zero_in_a_hand_set_position():
    s = State.from_position(hands=["DM", "OO"], rows=["FOP", "WRT", "WRM", "FTW"], draw="RRWW")
    assert s.move_count == 0
    s.apply(Lay(D, 0, 1))
    assert s.move_count == 1


def test_end_reasons_name_every_end():
    assert State.END_REASONS == ("win", "failed_deal", "exhaustion")
    seen = set()
    for n in (2, 3, 4, 5):
        for seed in range(25):
            *_, last = random_states(n, seed, every=1000)
            if last.terminal:
                assert last.end_reason in State.END_REASONS
                seen.add(last.end_reason)
            else:
                assert last.end_reason is None
    assert seen == set(State.END_REASONS)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_render_for_is_unchanged_when_hidden_cards_are_resampled(n):
    rng = np.random.default_rng(n)
    changed = 0
    for seed in range(5):
        for state in random_states(n, seed, every=11, config=config_for(n, seed)):
            for p in range(n):
                text = state.render_for(p)
                for _ in range(2):
                    other = state.determinize(p, rng)
                    assert other.render_for(p) == text
                    changed += other.render() != state.render()
    assert changed > 20


def test_render_for_shows_own_hand_sizes_and_known_cards_only():
    s = State.from_position(
        hands=["DDM", "OOOTW"],
        rows=["FOP", "WRT", "WRM", "FTW"],
        draw="RRWWRRWW",
        collections=["F", "R"],
    )
    s.apply(Lay(D, 0, 1))  # seat 0 laid its Ducks: everyone knows it holds no Duck now
    s.apply(Draw(False))
    text = s.render_for(1)
    assert "my hand: 3 Owl, 1 Toucan, 1 Warbler" in text
    lines = {line.split()[0]: line for line in text.splitlines() if line[:1].isdigit()}
    assert "Magpie" not in lines["0"]  # seat 0's Magpie is hidden
    assert lines["0"].split()[1] == "1"  # seat 0's hand size
    assert lines["0"].endswith("-; Duck")  # no known cards; known to hold no Duck
    assert "seen by seat 1" in text and "seat 1's turn" not in text
    assert "my turn (seat 1) to lay" in text
    mine = s.render_for(0)
    assert "my hand: 1 Magpie" in mine and "seat 1's turn" in mine
    with pytest.raises(ValueError):
        s.render_for(2)


def test_render_for_at_the_end_names_the_winners():
    s = State.from_position(
        hands=["TTTD", "OOW"],
        rows=["FOP", "WRT", "WRM", "FTW"],
        draw="RRRR",
        collections=["TTFFF", "R"],
    )
    s.apply(Lay(D, 0, 1))
    s.apply(Draw(False))
    s.apply(Flock(T))
    assert "game over, winners [0]" in s.render_for(1)


# -- scores ------------------------------------------------------------------------------------


def test_outright_winner_with_the_smaller_collection_scores_more():
    # Seat 0 wins with two triples (6 cards) while seat 1 holds 8 cards.
    s = State.from_position(
        hands=["TTTD", "OOW"],
        rows=["FOP", "WRT", "WRM", "FTW"],
        draw="RRRR",
        collections=["TTFFF", "ROPMWDDO"],
    )
    assert s.scores() == (5.0, 8.0)  # before the end: collection sizes
    s.apply(Lay(D, 0, 1))
    s.apply(Draw(False))
    s.apply(Flock(T))
    assert s.terminal and s.winners() == (0,)
    assert sum(s.collections[0]) == 6 < sum(s.collections[1]) == 8
    assert s.scores() == (9.0, 8.0)


def test_outright_winner_with_the_largest_collection_keeps_its_size():
    s = State.from_position(
        hands=["TTTD", "OOW"],
        rows=["FOP", "WRT", "WRM", "FTW"],
        draw="RRRR",
        collections=["TTFFFOO", "R"],
    )
    s.apply(Lay(D, 0, 1))
    s.apply(Draw(False))
    s.apply(Flock(T))
    assert s.scores() == (8.0, 1.0)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_scores_rank_winners_above_losers_in_random_play(n):
    ends = 0
    for seed in range(40):
        *_, s = random_states(n, seed, every=1000)
        if not s.terminal:
            continue
        scores = s.scores()
        winners = s.winners()
        losers = [q for q in range(n) if q not in winners]
        assert len({scores[w] for w in winners}) == 1  # tied winners score the same
        assert all(scores[w] > scores[q] for w in winners for q in losers)
        ends += 1
    assert ends > 30


def test_score_reward_pays_an_outright_winner_with_fewer_cards():
    # Issue 6: with reward="score" an outright winner could get a negative reward. Find seeded
    # 3-player games won outright by a player whose collection is not the largest.
    found = 0
    for seed in range(400):
        env = cubirds_v0.env(num_players=3, reward="score")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        rewards = {}
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                rewards[agent] = reward
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        state = env.unwrapped.game_state
        if state.end_reason != "win":
            continue
        (w,) = state.winners()
        sizes = [sum(c) for c in state.collections]
        if sizes[w] > max(sizes[q] for q in range(3) if q != w):
            continue
        assert rewards[f"player_{w}"] > 0
        assert all(rewards[f"player_{w}"] > rewards[f"player_{q}"] for q in range(3) if q != w)
        found += 1
    assert found >= 3
