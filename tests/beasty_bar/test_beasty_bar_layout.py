"""The Beasty Bar engine split into rooms (issue 15): what moved out of ``game.py`` is still
importable from it, ``State`` uses the shared legal-move cache of ``envs/core.py``, and hippo,
crocodile and giraffe act in step 3 with the same action they perform when played."""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.beasty_bar import Config, Play, State, config, data, game, hidden, moves, render
from cardzoo.envs.beasty_bar.data import CROCODILE, GIRAFFE, HIPPO, PARROT, SKUNK, ZEBRA
from cardzoo.envs.beasty_bar.positions import strength
from cardzoo.envs.core import CachedLegalMoves

MOVED = {
    "Config": config,
    "View": hidden,
    "render_view": render,
    "Play": moves,
    "SetAside": moves,
    "MOVES": moves,
    "MOVE_INDEX": moves,
    "NUM_MOVES": moves,
    "NUM_PLAY_MOVES": moves,
    "SET_ASIDE_BASE": moves,
    "CHAMELEON_NO_IMITATION": moves,
    "move_from_id": moves,
    "SPECIES": data,
    "OWNER": data,
    "MAX_CARDS": data,
    "MAX_PILE": data,
    "MAX_BEFORE_PLAY": data,
    "card_of": data,
    "card_name": data,
    "SET_ASIDE_PHASE": data,
    "PLAY_PHASE": data,
    "GAME_OVER": data,
    "PHASE_NAMES": data,
    "END_ALL_PLAYED": data,
}


@pytest.mark.parametrize("name", sorted(MOVED))
def test_names_that_moved_out_of_game_py_are_still_importable_from_it(name):
    assert getattr(game, name) is getattr(MOVED[name], name)
    assert name in game.__all__


def test_state_uses_the_shared_legal_move_cache_and_apply_clears_it():
    assert issubclass(State, CachedLegalMoves)
    assert "legal_move_ids" not in vars(State) and "is_legal" not in vars(State)
    rng = np.random.default_rng(0)
    for cfg in (Config(num_players=3), Config(set_aside=4)):
        s = State(cfg, seed=5)
        while not s.terminal:
            ids = s.legal_move_ids()
            assert ids == s._compute_legal()  # the cache holds this position's moves
            assert all(s.is_legal(i) == (i in ids) for i in range(len(s.MOVES)))
            s.apply_id(ids[int(rng.integers(len(ids)))])
        assert s.legal_move_ids() == []


@pytest.mark.parametrize("animal", [HIPPO, CROCODILE, GIRAFFE])
def test_a_recurring_animal_acts_in_step_3_as_it_does_when_played(animal):
    # Skunk and parrot are weaker than all three: a hippo passes them, a crocodile eats them, a
    # giraffe passes one. The same animal acts once from the back of the same queue: played by
    # seat 1, or already standing there when seat 0 plays a zebra behind it (zebras never act).
    front = [(SKUNK, 0), (PARROT, 0)]
    played = State.from_position(queue=front, hands=[[ZEBRA], [animal]], current_player=1)
    played.apply(Play(animal))
    waiting = State.from_position(
        queue=[*front, (animal, 1)], hands=[[ZEBRA], []], current_player=0
    )
    waiting.apply(Play(ZEBRA))
    assert waiting.animals("queue")[-1] == (ZEBRA, 0)
    assert waiting.animals("queue")[:-1] == played.animals("queue")
    assert sorted(waiting.animals("thats_it")) == sorted(played.animals("thats_it"))
    assert played.animals("queue") != [*front, (animal, 1)]  # it did act


def test_strength_reads_names_and_numbers_and_names_bad_input():
    assert strength(" lion ") == 12 == strength(12)
    assert strength("Skunk") == SKUNK
    with pytest.raises(ValueError, match="unknown animal 'dog'"):
        strength("dog")
    for bad in (0, 13, True):
        with pytest.raises(ValueError, match="animal strength must be 1..12"):
            strength(bad)
