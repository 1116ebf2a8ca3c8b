"""The Odin's Ravens heuristic: legal, blind to hidden cards, and far better than random."""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.agents.base import Seat
from cardzoo.agents.odins_ravens_heuristic import OdinsRavensHeuristic
from cardzoo.envs.odins_ravens import Config, Fly, Odin, State, StoneTarget
from ravens_helpers import position


def _mixed_states(cfg: Config, games: int):
    """States of heuristic-vs-random games (the heuristic on both seats in turn)."""
    for seed in range(games):
        s = State(cfg, seed=seed)
        rng = random.Random(seed)
        agent = OdinsRavensHeuristic(seed=seed)
        while not s.terminal and not s.truncated:
            yield s
            p = s.current_player
            if (p + seed) % 2:
                s.apply(agent.act(None, None, seat=Seat(s, p)))
            else:
                s.apply(rng.choice(s.legal_move_ids()))


@pytest.mark.parametrize("cfg", [Config(), Config(joker_requires_no_match=True)])
def test_moves_are_legal_and_ignore_hidden_cards(cfg):
    checked = 0
    rng = np.random.default_rng(0)
    for s in _mixed_states(cfg, 8):
        p = s.current_player
        move = OdinsRavensHeuristic(seed=1).act(None, None, seat=Seat(s, p))
        assert move in s.legal_move_ids()
        other = s.determinize(p, rng)  # the same view with other hidden cards
        assert OdinsRavensHeuristic(seed=1).act(None, None, seat=Seat(other, p)) == move
        checked += 1
    assert checked > 300


def test_needs_state_and_player():
    with pytest.raises(ValueError):
        OdinsRavensHeuristic().act(None, None)


def test_it_finishes_the_race_when_it_can():
    s = position("FPSMWFPSM", pos=(7, 2), hands=[["M", "O1", "F"], []])
    assert OdinsRavensHeuristic().act(None, None, seat=Seat(s, 0)) in (
        s.MOVE_INDEX[Fly(0)],
        s.MOVE_INDEX[Odin(0, 1, 0)],
    )


def test_it_moves_the_stone_off_its_path_onto_the_opponents():
    s = position("FPSMWFPSW", pos=(2, 4), stone=(3, 0), hands=[["O4", "M", "M"], []])
    agent = OdinsRavensHeuristic()
    assert agent.act(None, None, seat=Seat(s, 0)) == s.MOVE_INDEX[Odin(3, 0, 0)]
    s.apply(Odin(3, 0, 0))
    assert agent.act(None, None, seat=Seat(s, 0)) == s.MOVE_INDEX[StoneTarget(5, False)]


def test_beats_random_players():
    games = 60
    wins = 0
    for g in range(games):
        s = State(Config(), seed=20_000 + g)
        seat = g % 2
        agent = OdinsRavensHeuristic(seed=g)
        rng = random.Random(g)
        while not s.terminal and not s.truncated:
            if s.current_player == seat:
                s.apply(agent.act(None, None, seat=Seat(s, seat)))
            else:
                s.apply(rng.choice(s.legal_move_ids()))
        wins += s.winners() == (seat,)
    assert wins / games >= 0.9
