"""The Cubirds engine split into rooms (issue 15): what moved out of ``game.py`` is still importable
from it and from the package, each seat's pool kept move by move equals the one rebuilt from what
it knows (``hidden.refresh_pool``), and the fast replay's Hall check on a hand-made log."""

from __future__ import annotations

import cardzoo.envs.cubirds as package
import numpy as np
import pytest
from cardzoo.envs.cubirds import config, data, game, hidden, moves, render
from cardzoo.envs.cubirds.data import (
    CARD_COUNTS,
    EV_BATCH,
    EV_CLOSE,
    EV_SOURCE,
    NUM_SPECIES,
)
from cardzoo.envs.cubirds.hidden_replay import _FastReplay, _Plan
from cubirds_worlds import random_states

D = 3  # Duck

MOVED = {
    "Config": config,
    "View": hidden,
    "render_view": render,
    "row_blocks": render,
    "Lay": moves,
    "Draw": moves,
    "Flock": moves,
    "Move": moves,
    "MOVES": moves,
    "MOVE_INDEX": moves,
    "NUM_MOVES": moves,
    "NUM_LAY_MOVES": moves,
    "DECLINE_DRAW": moves,
    "TAKE_DRAW": moves,
    "FLOCK_BASE": moves,
    "PASS_FLOCK": moves,
    "LEFT": moves,
    "RIGHT": moves,
    "move_from_id": moves,
    "CARD_TOTALS": data,
    "LAY_PHASE": data,
    "DRAW_PHASE": data,
    "FLOCK_PHASE": data,
    "GAME_OVER": data,
    "PHASE_NAMES": data,
    "END_WIN": data,
    "END_FAILED_DEAL": data,
    "END_EXHAUSTION": data,
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_names_that_moved_out_of_game_py_are_still_importable_from_it(name):
    assert getattr(game, name) is getattr(MOVED[name], name)
    assert name in game.__all__


@pytest.mark.parametrize("name", package.__all__)
def test_the_package_exports_the_same_objects_as_game_py(name):
    assert getattr(package, name) is getattr(game, name)


@pytest.mark.parametrize("reveal", [True, False])
def test_each_seats_pool_kept_move_by_move_equals_the_one_rebuilt_from_what_it_knows(reveal):
    # _draw_public updates every seat's pool card by card; refresh_pool rebuilds it from the
    # source each seat knows and the cards seen leaving it. They must agree at every step.
    checked = 0
    for seed in range(6):
        cfg = game.Config(num_players=2 + seed % 4, reveal_round_end_discards=reveal)
        for state in random_states(cfg.num_players, seed, every=3, config=cfg):
            rebuilt = state.clone()
            for q in range(state.num_players):
                hidden.refresh_pool(rebuilt, q)
            assert rebuilt.pool_lb == state.pool_lb
            assert rebuilt.pool_unknown == state.pool_unknown
            checked += sum(state.taken_seen) > 0
    assert checked > 20  # positions where public draws had changed the pool


def _lay_log(hidden_laid: int) -> list[tuple]:
    """Seat 0 is dealt 8 cards, seat 1 draws 3 unseen and then lays ``hidden_laid`` Ducks that
    nobody saw it take."""
    seat0 = (1, 1, 1, 1, 1, 1, 1, 1)
    seat1 = tuple(3 if s == D else 0 for s in range(NUM_SPECIES))
    return [
        (EV_SOURCE, tuple(CARD_COUNTS)),
        (EV_BATCH, 0, seat0),
        (EV_BATCH, 1, seat1),
        (EV_CLOSE, 1, D, hidden_laid),
    ]


def test_a_lay_of_all_drawn_cards_forces_every_position_of_the_batch():
    plan = _Plan(_lay_log(3), player=0, num_players=2)
    replay = _FastReplay(plan, np.random.default_rng(0))
    assert replay._hall(1, 0) == 3  # the 3 Ducks fill positions 0..2 exactly: tight at 3
    for seed in range(5):
        result = plan.sample(np.random.default_rng(seed))
        assert result is not None
        batches = result[4]
        assert batches[2] == tuple(3 if s == D else 0 for s in range(NUM_SPECIES))


def test_a_lay_of_more_cards_than_were_drawn_is_a_dead_end():
    plan = _Plan(_lay_log(4), player=0, num_players=2)
    assert _FastReplay(plan, np.random.default_rng(0))._hall(1, 0) is None
    assert all(plan.sample(np.random.default_rng(seed)) is None for seed in range(5))


@pytest.mark.parametrize("bad", [0.5, "Z", "FO", 8, -1, None, True])
def test_a_hand_set_card_that_is_no_species_is_refused_by_name(bad):
    from cardzoo.envs.cubirds import Config, State

    rows = [[0, 1, 2], [3, 4, 5], [6, 7, 0], [1, 2, 3]]
    with pytest.raises(ValueError, match=r"unknown card .*: a species id 0\.\.7 or one of"):
        State.from_position(
            Config(), hands=[[bad], [1]], rows=rows, draw=[], discard=[], current_player=0
        )
    # letters and numpy ints are cards
    s = State.from_position(
        Config(), hands=["FO", [np.int64(7)]], rows=rows, draw="T", discard=[], current_player=0
    )
    assert s.hands[0][0] == 1 and s.hands[0][1] == 1 and s.hands[1][7] == 1
