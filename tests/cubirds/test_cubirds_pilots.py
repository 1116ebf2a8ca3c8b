"""The pilots of Cubirds' exact ``determinize`` (``Rejection._pilot_kept``): seeded runs of the
rejection step that choose the sampler. Since session 28 a model remembers, per sampler (the
seats' programmes in their order and the pins), which proposals its pilots kept, so that a later
pilot of the same sampler reads them instead of drawing them again. Its answers must be those
of a pilot drawn afresh, also after the sampler changed between two pilots."""

from __future__ import annotations

from cardzoo.envs.cubirds import hidden_exact as he
from cardzoo.envs.cubirds.game import Config
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cubirds_worlds import random_states

#: (draws, need, give_up) asked in this order: repeats, longer runs, other needs.
QUERIES = [(16, 7, True), (128, 3, True), (128, 8, True), (128, 8, True), (64, 2, False)]
QUERIES += [(300, 10**6, False), (16, 7, True), (128, 1, True)]


def _afresh(model: ExactModel, draws: int, need: int, give_up: bool) -> int:
    model.__dict__.pop("_pilots", None)
    return model._pilot_kept(draws, need, give_up)


def test_pilots_read_from_memory_answer_as_pilots_drawn_afresh(monkeypatch):
    monkeypatch.setattr(he, "MULTI_PILE_SEATS", 2)  # (the chains alone: every model has seats)
    checked = changed = 0
    for state in random_states(5, 3, every=9, config=Config(num_players=5)):
        if state.terminal:
            continue
        model = ExactModel(state.log, state.current_player, 5)
        if not model.build() or model.seats is None:
            continue
        fresh = [_afresh(model, *q) for q in QUERIES]
        model.__dict__.pop("_pilots", None)
        assert [model._pilot_kept(*q) for q in QUERIES] == fresh
        checked += 1
        if model.pile_pin is not None or model.pin is not None:
            # Another sampler (no pin): its own answers, not the pinned one's.
            model.pile_pin = model.pin = None
            unpinned = [model._pilot_kept(*q) for q in QUERIES]
            assert unpinned == [_afresh(model, *q) for q in QUERIES]
            changed += unpinned != fresh
    assert checked >= 5 and changed >= 1
