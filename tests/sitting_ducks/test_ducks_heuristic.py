"""The Sitting Ducks heuristic: legal, blind to hidden information, and far better than random."""

from __future__ import annotations

import random

import pytest
from cardzoo.agents.base import Seat
from cardzoo.agents.sitting_ducks_heuristic import SittingDucksHeuristic
from cardzoo.envs.sitting_ducks import Config, Place, State
from cardzoo.envs.sitting_ducks.data import DISORDERLY_CONDUCKT, SHOOT, TAKE_AIM
from cardzoo.envs.sitting_ducks.moves import MOVES


def _random_states(cfg: Config, games: int):
    for seed in range(games):
        rng = random.Random(seed)
        s = State(cfg, seed=seed)
        while not s.terminal:
            yield s
            s.apply(rng.choice(s.legal_move_ids()))


@pytest.mark.parametrize(
    "cfg",
    [
        Config(num_players=3),
        Config(num_players=4, mode="hidden"),
        Config(num_players=2, mode="team"),
    ],
    ids=["3p", "hidden", "duel"],
)
def test_moves_are_legal_and_ignore_hidden_information(cfg):
    checked = 0
    for s in _random_states(cfg, 3):
        p = s.current_player
        move = SittingDucksHeuristic(seed=1).act(None, None, seat=Seat(s, p))
        assert move in s.legal_move_ids()
        # Another world with the same view (other hands, deck order, RNG, secret colours)
        # must give the same move.
        other = s.determinize(p, random.Random(checked).randrange(1 << 30))
        assert other.view(p) == s.view(p)
        assert SittingDucksHeuristic(seed=1).act(None, None, seat=Seat(other, p)) == move
        checked += 1
    assert checked > 100


def test_the_replay_sample_gives_the_moves_the_exact_one_would(monkeypatch):
    # The heuristic samples with ``exact=False`` because its score never reads the other hands:
    # forcing the exact posterior instead must not change a single move (six players, where the
    # exact samplers serve after a reshuffle).
    state_cls = State
    real = state_cls.determinize
    calls = []

    def forced_exact(self, player, rng=None, *, exact=True):
        calls.append(exact)
        return real(self, player, rng, exact=True)

    states = [s.clone() for s in _random_states(Config(num_players=6), 1)][::4]
    replay = [SittingDucksHeuristic(seed=3).act(None, None, seat=Seat(s, s.current_player))
              for s in states]  # fmt: skip
    monkeypatch.setattr(state_cls, "determinize", forced_exact)
    exact = [SittingDucksHeuristic(seed=3).act(None, None, seat=Seat(s, s.current_player))
             for s in states]  # fmt: skip
    assert calls and not any(calls)  # the heuristic asked for the replay
    assert replay == exact and len(states) > 30


def test_determinize_without_the_exact_samplers_is_consistent_and_blind_to_the_truth():
    states = [s.clone() for s in _random_states(Config(num_players=6), 1)]
    s = states[len(states) * 3 // 4]
    p = s.current_player
    twin = s.determinize(p, 5)
    a, b = s.determinize(p, 9, exact=False), twin.determinize(p, 9, exact=False)
    assert a.view(p) == s.view(p) == b.view(p)
    assert a.hands == b.hands and a.draw == b.draw and a.deck == b.deck


def test_needs_state_and_player():
    with pytest.raises(ValueError):
        SittingDucksHeuristic().act(None, None)


def test_shoots_an_opponent_not_itself():
    s = State.from_position(
        Config(), row=["R", "B", "~", "G", "~", "~"], hands={0: [SHOOT, TAKE_AIM]}, targets={0, 1}
    )
    move = MOVES[SittingDucksHeuristic(seed=0).act(None, None, seat=Seat(s, 0))]
    assert move.card == SHOOT and move.slot == 1


def test_disorderly_conduckt_puts_opponents_under_the_targets():
    s = State.from_position(
        Config(),
        row=["B", "R", "~", "G", "~", "R"],
        hands={0: [DISORDERLY_CONDUCKT]},
        targets={0, 1},
    )
    agent = SittingDucksHeuristic(seed=0)
    s.apply(agent.act(None, None, seat=Seat(s, 0)))
    while s.current_player == 0 and not s.terminal:
        move = agent.act(None, None, seat=Seat(s, 0))
        assert isinstance(MOVES[move], Place)
        s.apply(move)
    assert {s.row[0] & 7, s.row[1] & 7} == {1, 2}  # blue and green now sit under the targets


@pytest.mark.parametrize(
    "cfg, minimum",
    [
        (Config(num_players=3), 0.6),
        (Config(num_players=6), 0.3),
        (Config(num_players=2, mode="team"), 0.85),
    ],
    ids=["3p", "6p", "duel"],
)
def test_beats_random_players(cfg, minimum):
    games = 60
    wins = 0
    for g in range(games):
        s = State(cfg, seed=20_000 + g)
        seat = g % cfg.num_players
        agent = SittingDucksHeuristic(seed=g)
        rng = random.Random(g)
        while not s.terminal:
            if s.current_player == seat:
                s.apply(agent.act(None, None, seat=Seat(s, seat)))
            else:
                s.apply(rng.choice(s.legal_move_ids()))
        wins += s.winners() == (seat,)
    assert wins / games >= minimum
