"""The search baseline ``ismcts:N`` / ``ismcts-h:N`` (cardzoo.agents.ismcts).

It must act on its seat's information only (hidden twins get the same seeded decision, while a
search that reads the true state does not), find a lone winning move at a small N (for the seat
to move at 2 and 3 players, backing up each mover's own reward), play only legal moves in every
game at every player count, be deterministic for a seed, and refuse bad specs clearly.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from cardzoo.agents import AGENT_KINDS, HEURISTICS, Seat, make_agent
from cardzoo.agents.ismcts import ISMCTSAgent, side_rewards
from cardzoo.envs import load
from cardzoo.envs.cubirds.data import SPECIES_LETTERS
from cardzoo.envs.cubirds.game import MOVE_INDEX, Config, Flock, Lay, State

GAMES = sorted(HEURISTICS)


def _new_state(
    game: str, players: int | None = None, seed: int = 0, variant: str | None = None, **options
):
    spec = load(game).GAME
    if players is not None:
        options["num_players"] = players
    if variant is None and players is None:
        options["num_players"] = spec.player_counts[0]
    return spec.state_cls(spec.make_config(variant, **options), seed=seed)


def _advance(state, moves: int, seed: int):
    """Play up to ``moves`` random moves (fewer if the game ends first); returns the state."""
    rng = random.Random(seed)
    for _ in range(moves):
        if state.terminal or state.truncated:
            break
        state.apply(rng.choice(state.legal_move_ids()))
    return state


def _decision_points(game: str, players: int | None, count: int):
    """``count`` midgame positions with a real choice (2+ legal moves) for the seat to move."""
    found = []
    seed = 0
    while len(found) < count:
        state = _advance(_new_state(game, players, seed=seed), 3 + 4 * seed, seed)
        seed += 1
        if not state.terminal and not state.truncated and len(state.legal_move_ids()) > 1:
            found.append(state)
    return found


# -- information: hidden twins --------------------------------------------------------------------


TWIN_CASES = [(g, None) for g in GAMES] + [("cubirds", 3), ("beasty_bar", 4), ("sitting_ducks", 4)]


@pytest.mark.parametrize(("game", "players"), TWIN_CASES)
def test_hidden_twins_get_the_same_seeded_decision(game, players):
    differ = 0
    for i, state in enumerate(_decision_points(game, players, 4)):
        p = state.current_player
        twin = state.determinize(p, np.random.default_rng(100 + i))
        assert twin.view(p) == state.view(p)
        differ += twin.render() != state.render()  # the hidden cards really differ
        real = make_agent("ismcts:12", game, seed=i).act(None, None, seat=Seat(state, p))
        other = make_agent("ismcts:12", game, seed=i).act(None, None, seat=Seat(twin, p))
        assert real == other, f"{game} position {i}: the search saw hidden cards"
    assert differ >= 3


def test_hidden_twins_give_the_same_decisions_through_a_game_with_heuristic_rollouts():
    """A persistent ``ismcts-h`` agent for seat 0 through a whole Beasty Bar game, asked on the
    real game and on a hidden twin of each of its positions: the same sequence of moves."""
    state = _new_state("beasty_bar", seed=4)
    real = make_agent("ismcts-h:8", "beasty_bar", seed=4)
    twin = make_agent("ismcts-h:8", "beasty_bar", seed=4)
    sampler = np.random.default_rng(5)
    others = random.Random(4)
    decisions = 0
    while not state.terminal and not state.truncated:
        if state.current_player == 0:
            other = state.determinize(0, sampler)
            expected = twin.act(None, None, seat=Seat(other, 0))
            move = real.act(None, None, seat=Seat(state, 0))
            assert move == expected
            decisions += 1
        else:
            move = others.choice(state.legal_move_ids())
        state.apply(move)
    assert decisions >= 8


class _SeeingSeat:
    """A seat handle whose ``determinize`` returns a copy of the true state: an ISMCTS given it
    searches with the hidden cards in view, which the twin test must catch."""

    def __init__(self, state, player: int) -> None:
        self._seat = Seat(state, player)
        self._state = state
        self.player = player
        self.num_players = state.num_players
        self.current_player = state.current_player

    def legal_move_ids(self) -> list[int]:
        return self._seat.legal_move_ids()

    def determinize(self, rng):
        return self._state.clone()


def test_the_twin_check_catches_a_search_that_sees_the_true_state():
    changed = 0
    for i, state in enumerate(_decision_points("cubirds", None, 6)):
        p = state.current_player
        twins = [state.determinize(p, np.random.default_rng(i * 10 + k)) for k in range(4)]
        seats = [_SeeingSeat(s, p) for s in [state, *twins]]
        moves = {ISMCTSAgent(12, seed=i).act(None, None, seat=seat) for seat in seats}
        changed += len(moves) > 1
    assert changed >= 1


# -- strength: a lone winning move ----------------------------------------------------------------

D = SPECIES_LETTERS.index("D")
F = SPECIES_LETTERS.index("F")
WINNING_LAY = MOVE_INDEX[Lay(D, 0, 0)]  # Ducks at the left end of row 0: captures the Flamingo


def _one_winning_move(players: int, me: int) -> State:
    """Cubirds, ``me`` to lay, collection 2 Flamingos + 3 Owls: laying its Duck at the left end
    of row 0 captures a Flamingo, and flocking the two Flamingos then wins (two triples). Any
    other of its 32 lays loses: the next player lays its only card, the round ends, too few cards
    are left to deal, and the larger collections win."""
    hands = ["R"] * players
    hands[me] = "FDTTP"
    collections = ["TTDDPPMMW"] * players
    collections[me] = "FFOOO"
    return State.from_position(
        Config(num_players=players),
        hands=hands,
        rows=["MFD", "OTP", "POM", "TDO"],
        draw="RRWWRRWW",
        collections=collections,
        current_player=me,
    )


@pytest.mark.parametrize(("players", "me"), [(2, 0), (3, 1)])
def test_a_lone_winning_move_is_found_at_small_n(players, me):
    state = _one_winning_move(players, me)
    assert len(state.legal_move_ids()) == 32
    for seed in range(4):
        agent = make_agent("ismcts:150", "cubirds", seed=seed)
        move = agent.act(None, None, seat=Seat(state, me))
        assert move == WINNING_LAY, f"seed {seed}: played {state.MOVES[move]}"
    state.apply(WINNING_LAY)
    flock = make_agent("ismcts:50", "cubirds", seed=0).act(None, None, seat=Seat(state, me))
    assert flock == MOVE_INDEX[Flock(F)]
    state.apply(flock)
    assert state.terminal and state.winners() == (me,)


def _below(node, n: int):
    """Every (mover, node) of the subtree under ``node``."""
    for key, child in node.children.items():
        yield key % n, child
        yield from _below(child, n)


def test_each_node_backs_up_the_reward_of_its_mover():
    """Three players, seat 1 searching: below a losing lay of seat 1, seat 2's moves end the game
    in a victory seat 2 shares with seat 0 (reward 1/2 for seat 2), while seat 1's own moves
    score 0 for seat 1."""
    state = _one_winning_move(3, 1)
    root = ISMCTSAgent(400, seed=0).search(Seat(state, 1))
    n = 3
    win = root.children[WINNING_LAY * n + 1]
    assert win.total / win.visits > 0.9
    losing = [c for k, c in root.children.items() if k != WINNING_LAY * n + 1]
    assert len(losing) == 31
    below = [pair for lay in losing for pair in _below(lay, n)]
    theirs = [c for mover, c in below if mover == 2]
    mine = [c for mover, c in [*((1, c) for c in losing), *below] if mover == 1]
    assert theirs and mine
    assert sum(c.total for c in mine) == 0
    share = sum(c.total for c in theirs) / sum(c.visits for c in theirs)
    assert 0.4 < share <= 0.5


def test_side_rewards_share_one_victory_among_the_winning_sides():
    with pytest.raises(ValueError, match="still going on"):
        side_rewards(_new_state("cubirds"))
    won = _one_winning_move(3, 1)
    won.apply(WINNING_LAY)
    won.apply(MOVE_INDEX[Flock(F)])
    assert side_rewards(won) == [0.0, 1.0, 0.0]
    shared = _one_winning_move(3, 1)
    shared.apply(MOVE_INDEX[Lay(F, 2, 0)])  # no capture: seat 1 declines the draw, passes on
    while not shared.terminal:
        shared.apply(shared.legal_move_ids()[0])
    assert shared.winners() == (0, 2) and side_rewards(shared) == [0.5, 0.0, 0.5]
    cut = _advance(_new_state("cubirds", 3, max_turns=2), 10_000, 0)
    assert cut.truncated and side_rewards(cut) == pytest.approx([1 / 3] * 3)
    ducks = _advance(_new_state("sitting_ducks", variant="team", seed=3), 10_000, 3)
    assert ducks.terminal and len(ducks.teams()) == 2
    winners = set(ducks.winners())
    rewards = side_rewards(ducks)
    for team in ducks.teams():  # a partnership's two seats share its one win
        assert [rewards[q] for q in team] == [1.0 if winners & set(team) else 0.0] * 2


# -- legal moves only, every game and player count ------------------------------------------------


def _cases() -> list[tuple[str, int | None, str | None]]:
    cases = []
    for module in (load(g) for g in GAMES):
        spec = module.GAME
        cases += [(spec.name, n, None) for n in spec.player_counts]
        cases += [(spec.name, None, v) for v in spec.variants]
    return cases


@pytest.mark.parametrize(("game", "players", "variant"), _cases())
def test_only_legal_moves_in_every_game_and_player_count(game, players, variant):
    state = _advance(_new_state(game, players, seed=1, variant=variant), 8, 1)
    agents = {}
    decisions = 0
    while decisions < 6 and not state.terminal and not state.truncated:
        q = state.current_player
        spec = "ismcts-h:2" if q % 2 else "ismcts:3"
        agent = agents.setdefault(q, make_agent(spec, game, seed=q))
        legal = state.legal_move_ids()
        mask = np.zeros(len(state.MOVES), dtype=np.int8)
        mask[legal] = 1
        move = agent.act(None, mask, seat=Seat(state, q))
        assert move in legal
        state.apply(move)
        decisions += 1
    assert decisions > 0


# -- determinism, forced moves, specs -------------------------------------------------------------


def test_the_same_seed_gives_the_same_decisions():
    positions = _decision_points("sitting_ducks", 3, 5)
    first = [make_agent("ismcts:10", "sitting_ducks", seed=7) for _ in positions]
    again = [make_agent("ismcts:10", "sitting_ducks", seed=7) for _ in positions]
    for s, a, b in zip(positions, first, again):
        seat = Seat(s, s.current_player)
        assert a.act(None, None, seat=seat) == b.act(None, None, seat=seat)
        assert a.last_iterations == 10


def test_a_forced_move_is_played_without_searching():
    state = _new_state("sitting_ducks", 3, seed=2)
    rng = random.Random(2)
    while len(state.legal_move_ids()) != 1:  # random play reaches one within a few moves
        state.apply(rng.choice(state.legal_move_ids()))
    agent = make_agent("ismcts:1000", "sitting_ducks", seed=0)
    move = agent.act(None, None, seat=Seat(state, state.current_player))
    assert move == state.legal_move_ids()[0] and agent.last_iterations == 0


@pytest.mark.parametrize(
    "spec", ["ismcts:0", "ismcts:x", "ismcts:", "ismcts", "ismcts-h:-3", "ismcts:1.5", "ismcts:²"]
)
def test_bad_specs_are_refused_with_a_clear_error(spec):
    with pytest.raises(ValueError, match=r"ismcts(-h)?:N needs N, the iterations per move"):
        make_agent(spec, "cubirds")


def test_the_specs_are_listed_and_the_agent_checks_its_arguments():
    assert "ismcts:N" in AGENT_KINDS and "ismcts-h:N" in AGENT_KINDS
    with pytest.raises(ValueError, match="unknown agent spec"):
        make_agent("ismcts-x:5", "cubirds")
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="iterations must be"):
            ISMCTSAgent(bad)
    with pytest.raises(ValueError, match="exploration must be >= 0"):
        ISMCTSAgent(5, exploration=float("nan"))
    state = _new_state("beasty_bar")
    with pytest.raises(ValueError, match="is not to move"):
        ISMCTSAgent(5).act(None, None, seat=Seat(state, 1 - state.current_player))
    assert make_agent("ismcts-h:7", "beasty_bar").name == "ismcts-h:7"
