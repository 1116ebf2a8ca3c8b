"""The Beasty Bar heuristic: legal, blind to hidden cards, and clearly better than random."""

from __future__ import annotations

import random

import pytest
from cardzoo.agents.base import Seat
from cardzoo.agents.beasty_bar_heuristic import BeastyBarHeuristic
from cardzoo.envs.beasty_bar import Config, State


def _random_states(cfg: Config, games: int):
    for seed in range(games):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while not s.terminal:
            yield s
            s.apply(rng.choice(s.legal_move_ids()))


@pytest.mark.parametrize(
    "cfg",
    [Config(num_players=2), Config(num_players=4), Config(scoring="points", set_aside=4)],
)
def test_moves_are_legal_and_ignore_hidden_cards(cfg):
    checked = 0
    for s in _random_states(cfg, 6):
        p = s.current_player
        move = BeastyBarHeuristic(seed=1).act(None, None, seat=Seat(s, p))
        assert move in s.legal_move_ids()
        # the same view with other hidden cards must give the same move
        other = s.determinize(p, random.Random(checked).randrange(1 << 30))
        assert other.view(p) == s.view(p)
        assert BeastyBarHeuristic(seed=1).act(None, None, seat=Seat(other, p)) == move
        checked += 1
    assert checked > 50


def test_needs_state_and_player():
    with pytest.raises(ValueError):
        BeastyBarHeuristic().act(None, None)


@pytest.mark.parametrize("num_players, minimum", [(2, 0.75), (4, 0.4)])
def test_beats_random_players(num_players, minimum):
    games = 150
    wins = 0
    for g in range(games):
        s = State(Config(num_players=num_players), seed=10_000 + g)
        seat = g % num_players
        agent = BeastyBarHeuristic(seed=g)
        rng = random.Random(g)
        while not s.terminal:
            if s.current_player == seat:
                s.apply(agent.act(None, None, seat=Seat(s, seat)))
            else:
                s.apply(rng.choice(s.legal_move_ids()))
        wins += s.winners() == (seat,)
    assert wins / games >= minimum
