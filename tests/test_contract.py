"""The engine contract is code: every engine's State fulfils it, and a class that does not fails
when it is defined, naming each missing piece."""

from __future__ import annotations

import pytest
from cardzoo.envs import games
from cardzoo.envs.core import CONTRACT_ATTRIBUTES, CachedLegalMoves, GameState

STATE_CLASSES = [module.raw_env.game.state_cls for module in games()]


@pytest.mark.parametrize("cls", STATE_CLASSES, ids=lambda c: c.__module__.split(".")[2])
def test_every_engine_state_has_every_piece_of_the_contract(cls: type) -> None:
    assert issubclass(cls, GameState)
    for name in CONTRACT_ATTRIBUTES:
        assert hasattr(cls, name), name
    abstract = [n for n in dir(cls) if getattr(getattr(cls, n), "__isabstractmethod__", False)]
    assert abstract == []


@pytest.mark.parametrize("cls", STATE_CLASSES, ids=lambda c: c.__module__.split(".")[2])
def test_an_engine_missing_a_method_fails_at_definition_naming_it(cls: type) -> None:
    # Re-declare the engine's class without `determinize` and `END_REASONS`: the class statement
    # itself must fail, before any game is played.
    body = {
        k: v
        for k, v in vars(cls).items()
        if k not in ("determinize", "END_REASONS", "__slots__", "__dict__", "__weakref__")
    }
    with pytest.raises(TypeError) as err:
        type(cls.__name__, cls.__bases__, {**body, "__slots__": ()})
    message = str(err.value)
    assert "determinize()" in message
    assert "END_REASONS" in message
    assert "view()" not in message  # only what is missing is listed


def test_an_empty_engine_is_told_every_piece() -> None:
    with pytest.raises(TypeError) as err:

        class Empty(GameState):
            __slots__ = ()

    message = str(err.value)
    for name in CONTRACT_ATTRIBUTES:
        assert f"- {name} (" in message
    for method in ("legal_move_ids", "apply_id", "view", "determinize", "census", "render_for"):
        assert f"- {method}() (" in message


def test_a_partial_base_may_opt_out_and_shared_pieces_count() -> None:
    class Partial(CachedLegalMoves, GameState, abstract=True):
        __slots__ = ()

    # CachedLegalMoves provides legal_move_ids and is_legal: they are not reported missing.
    with pytest.raises(TypeError) as err:

        class Child(Partial):
            __slots__ = ()

    assert "legal_move_ids()" not in str(err.value)
    assert "is_legal()" not in str(err.value)
    assert "apply_id()" in str(err.value)
