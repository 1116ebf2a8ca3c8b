"""Two players, face-down round-end discards: a pile that the only other seat drew to its end,
through several boxes, pinned whole before the pile fed by the thrown-away hands (session 39,
``hidden_fed.FED_SOLE``, with the groups' limit ``FED_DUEL_GROUP_STEPS``).

Before, a pile was pinned only where two seats or more drew from it, so at two players the
chains proposed that pile's content freely and the rejection step had to meet it exactly: at
seeded game 1000 after 112 decisions it kept too few proposals and every call went to the
inexact replay. Pinned, the pile's content is given and only the fed pile's factor is left to
the rejection step. Along face-down seeds 1000-1007 the positions left to the replay went from
82 to 56 of 1,109 (docs/determinize.md, session 39)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.cubirds import Config, State, hidden_fed
from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cardzoo.train.bench_loops import game_position
from cubirds_posterior import reference
from cubirds_small_logs import face_down_log, worst_p_value
from cubirds_worlds import agrees_with_what_was_seen, fresh_model, replay_serves

SAMPLES = 3000
ALPHA = 1e-4


def _model_world(model: ExactModel, rng: np.random.Generator) -> tuple:
    """One sample of ``model`` (seat 0's view, two players) as a world of the reference."""
    hid, draw, _, _, _, leftovers = model.sample(rng)
    thrown = tuple(tuple(leftovers[i][1]) for i in sorted(leftovers))
    return (tuple(hid[1]), *thrown), tuple(draw)


def _sole_pin(model: ExactModel) -> bool:
    """Whether the model pinned its first pile with one seat as its only member."""
    pin = model.pile_pin
    return pin is not None and pin.index == 0 and len(pin.places) == 1


@pytest.mark.parametrize("sole", [False, True])
def test_a_pile_one_seat_drew_whole_is_sampled_exactly(sole, monkeypatch):
    # Seat 1 drew the whole first pile (two boxes, a round end between them), then the thrown
    # hands fed the next one. The chains serve (the joint count is not tried); pinned or not,
    # the samples follow the rejection reference.
    monkeypatch.setattr(hidden_fed, "FED_SOLE", sole)
    monkeypatch.setattr(he, "FED_DUEL_CLASSES", 0)
    he._BUILT.clear()
    log = face_down_log()
    rng = np.random.default_rng(8)
    ref, _ = reference(log, 0, 2, rng, SAMPLES, 10**7)
    assert sum(ref.values()) == SAMPLES
    model = ExactModel(log, 0, 2)
    assert model.build() and model.fed_last is not None and model.seats is not None
    assert _sole_pin(model) == sole
    got = Counter(_model_world(model, rng) for _ in range(SAMPLES))
    assert set(got) <= set(ref)
    assert worst_p_value(ref, got) > ALPHA


#: Seeded positions (game seed, decisions played) that the replay served before: the first
#: fits the groups' old limit once the pile is pinned, the second needs the duel's new one.
POSITIONS = {"sole": (1000, 112), "steps": (1004, 116)}


@pytest.fixture(scope="module", params=sorted(POSITIONS))
def position(request) -> tuple[str, State]:
    config = Config(num_players=2, reveal_round_end_discards=False)
    return request.param, game_position(State, config, *POSITIONS[request.param])


def test_seeded_positions_are_sampled_by_the_chains_with_the_pile_pinned(position):
    _, state = position
    model = fresh_model(state)
    assert len(model.piles) == 2 and model.piles[1]["feeds"] and not model.piles[0]["feeds"]
    assert model.joint is None and model.fed_last is not None and _sole_pin(model)
    p = state.current_player
    rng = np.random.default_rng(3)
    for _ in range(20):
        agrees_with_what_was_seen(state, state.determinize(p, rng), p)


def test_before_session_39_the_replay_served_them(position, monkeypatch):
    # The first without the pin, the second with the groups' old limit at two players.
    which, state = position
    if which == "sole":
        monkeypatch.setattr(hidden_fed, "FED_SOLE", False)
    else:
        monkeypatch.setattr(hidden_fed, "FED_DUEL_GROUP_STEPS", hidden_fed.FED_GROUP_STEPS)
    replay_serves(state, monkeypatch)
