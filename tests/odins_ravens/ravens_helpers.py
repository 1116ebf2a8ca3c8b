"""Helpers for the Odin's Ravens scenario tests: hand-set positions and move shorthands."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from cardzoo.envs.odins_ravens import MOVE_INDEX, Config, State
from cardzoo.envs.odins_ravens.data import LAND_CARDS, LAND_LETTERS, NUM_TYPES


def types(text: str) -> list[int]:
    """``"MMW"`` -> ``[1, 1, 4]``."""
    return [LAND_LETTERS.index(c) for c in text]


def other_path(p0: list[int]) -> list[int]:
    """A seat-1 path for ``p0`` that the default land cards can build: mixed cards, and no two
    equal neighbours on it (so seat 1's flights move one space at a time)."""
    left = Counter((min(a, b), max(a, b)) for a, b in LAND_CARDS)
    out: list[int] = []
    for a in p0:
        for step in range(1, NUM_TYPES):
            b = (a + step + len(out)) % NUM_TYPES
            pair = (min(a, b), max(a, b))
            if b != a and left[pair] and (not out or out[-1] != b):
                left[pair] -= 1
                out.append(b)
                break
        else:
            raise ValueError(f"cannot complete a seat-1 path for {p0}")
    return out


def position(p0: str, p1: str | None = None, config: Config | None = None, **kw: Any) -> State:
    """``State.from_position`` with paths given as letter strings (seat 1's filled in)."""
    path0 = types(p0)
    path1 = other_path(path0) if p1 is None else types(p1)
    return State.from_position(config, paths=(path0, path1), **kw)


def full_land_deck(top: list[tuple[str, str]], p0: str) -> list[tuple[str, str]]:
    """A land deck (top first) for the row ``position(p0)`` builds: ``top``, then every other
    land card, in a fixed order."""
    left = Counter((min(a, b), max(a, b)) for a, b in LAND_CARDS)
    path0 = types(p0)
    for a, b in zip(path0, other_path(path0)):
        left[(min(a, b), max(a, b))] -= 1
    for x, y in top:
        a, b = LAND_LETTERS.index(x), LAND_LETTERS.index(y)
        left[(min(a, b), max(a, b))] -= 1
    rest = [(a, b) for (a, b), n in sorted(left.items()) for _ in range(n)]
    return top + [(LAND_LETTERS[a], LAND_LETTERS[b]) for a, b in rest]


def ok(state: State, move: Any) -> bool:
    """Whether ``move`` (a move object) is legal now."""
    return state.is_legal(MOVE_INDEX[move])


def snapshot(state: State) -> tuple:
    """Everything observable about a state (to check that a rejected move changed nothing)."""
    return (
        state.render(),
        state.census(),
        state.legal_move_ids(),
        state.view(0),
        state.view(1),
        state.move_count,
    )


def belief_within(log: list[tuple], limit: int):
    """The belief over ``log`` built event by event from the start of the game; None once it
    passes ``limit`` states (so that brute-force comparisons stay cheap)."""
    from cardzoo.envs.odins_ravens.hidden import Belief

    belief = Belief.start()
    for event in log:
        belief = belief.advance([event])
        if len(belief.states) > limit:
            return None
    return belief


def shares(states, weights) -> dict:
    """Each distinct state's share of the total weight."""
    total = sum(weights)
    out: dict = defaultdict(float)
    for state, weight in zip(states, weights):
        out[state] += weight / total
    return out
