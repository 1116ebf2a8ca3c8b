"""SVG pictures of the table (issue 18, item 2): ``env.unwrapped.render_svg(seat)`` for every game.

A seat's picture must be valid XML, show the cards that seat holds, and depend only on what the
seat may see: a hidden twin (``state.determinize(seat)``: same view, other hidden cards) gets the
same picture, while the all-seeing picture (``seat=None``) changes with the hidden cards.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from cardzoo.envs import games
from cardzoo.envs.base import ResetRequiredError
from cardzoo.envs.beasty_bar.data import NAMES
from cardzoo.envs.cubirds.data import SPECIES_NAMES
from cardzoo.envs.odins_ravens.svg import KIND_LABELS
from cardzoo.envs.sitting_ducks.data import CARD_NAMES
from conformance_cases import CASES

NS = "{http://www.w3.org/2000/svg}"


def held_names(game: str, view) -> set[str]:
    """The names of the cards in ``view``'s own hand, from the game's data tables."""
    if game == "cubirds":
        return {SPECIES_NAMES[s] for s, c in enumerate(view.hand) if c}
    if game == "beasty_bar":
        return {NAMES[a] for a in view.hand}
    if game == "sitting_ducks":
        return {CARD_NAMES[k] for k in view.hand}
    return {KIND_LABELS[k] for k, c in enumerate(view.hand) if c}


def section_text(svg: str, key: str) -> str:
    """All text of the section ``<g id=key>`` (a card's name may be wrapped on two lines)."""
    root = ET.fromstring(svg)  # also the validity check: parses as XML
    (group,) = [g for g in root.iter(f"{NS}g") if g.get("id") == key]
    return " ".join(t.text or "" for t in group.iter(f"{NS}text"))


def positions(module, config: dict, count: int = 3):
    """A few positions of a seeded random game: the deal, then after some random moves."""
    env = module.env(**config)
    n = env.unwrapped.config.num_players
    env.reset(seed=7 * n)
    rng = np.random.default_rng(n)
    for stop in range(count):
        yield env
        for _ in range(5 + 4 * stop):
            if not env.agents or env.terminations[env.agent_selection]:
                return
            legal = env.unwrapped.legal_actions()
            if not legal:
                return
            env.step(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("module,config", CASES)
def test_seat_pictures_show_only_what_the_seat_sees(module, config):
    # Every game at every player count, and each variant and rule option that changes the view.
    game = module.GAME
    differed = 0
    for env in positions(module, config):
        state = env.unwrapped.game_state
        n = state.num_players
        everything = env.unwrapped.render_svg()
        for seat in range(n):
            svg = env.unwrapped.render_svg(seat)
            view = state.view(seat)
            held = held_names(game.name, view)
            assert held, "a seat with an empty hand checks nothing"
            assert all(name in section_text(svg, f"hand-{seat}") for name in held)
            # The all-seeing table shows this seat's hand too.
            assert all(name in section_text(everything, f"hand-{seat}") for name in held)
            for k in range(2):
                twin = state.determinize(seat, np.random.default_rng(k))
                assert twin.view(seat) == view
                assert game.svg(twin, seat) == svg, "the picture depends on hidden cards"
                # Some other hand was dealt again: the all-seeing picture must show it.
                if any(twin.view(q).hand != state.view(q).hand for q in range(n)):
                    differed += 1
                    assert game.svg(twin, None) != everything
    assert differed, "no hidden twin had other hands: the test checked nothing"


@pytest.mark.parametrize("module", games(), ids=lambda m: m.GAME.name)
def test_bad_seat_and_before_reset(module):
    env = module.env()
    with pytest.raises(ResetRequiredError, match=r"render_svg\(\) called before reset"):
        env.unwrapped.render_svg()
    env.reset(seed=0)
    n = env.unwrapped.config.num_players
    for bad in (n, -1, "0", True, 0.0):
        with pytest.raises(ValueError, match="seat must be None or an int seat"):
            env.unwrapped.render_svg(bad)
    assert env.unwrapped.render_svg(np.int64(0)) == env.unwrapped.render_svg(0)


@pytest.mark.parametrize("module", games(), ids=lambda m: m.GAME.name)
def test_other_hands_are_face_down_counts(module):
    env = module.env()
    env.reset(seed=3)
    state = env.unwrapped.game_state
    svg = env.unwrapped.render_svg(0)
    other = section_text(svg, "hand-1")
    assert "hand (face down)" in other
    assert f"x{state.view(0).hand_sizes[1]}" in other


EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "images"


def example_svg(module) -> str:
    """The example picture in docs/images: seat 0's view after 12 seeded random moves."""
    env = module.env(num_players=min(module.GAME.player_counts[-1], 3))
    env.reset(seed=2026)
    rng = np.random.default_rng(0)
    for _ in range(12):
        legal = env.unwrapped.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    return env.unwrapped.render_svg(0)


@pytest.mark.parametrize("module", games(), ids=lambda m: m.GAME.name)
def test_docs_example_pictures_are_current(module):
    # Regenerate after a drawing change: CARDZOO_WRITE_SVG=1 pytest tests/conformance/test_svg.py
    path = EXAMPLES / f"{module.GAME.name}.svg"
    svg = example_svg(module)
    if os.environ.get("CARDZOO_WRITE_SVG"):
        path.write_text(svg)
    assert path.read_text() == svg


def test_builder_escapes_text_and_attributes():
    from cardzoo.envs.svg import Card, Section, page

    odd = "a <b> & \"c\" 'd'"
    svg = page(odd, odd, [Section(odd, odd, [Card(odd, note=odd), Card(odd, face_down=True)])])
    root = ET.fromstring(svg)
    (group,) = [g for g in root.iter(f"{NS}g") if g.get("class") == "section"]
    assert group.get("id") == odd
    assert odd in [t.text for t in root.iter(f"{NS}text")]
