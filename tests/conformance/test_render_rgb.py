"""``render_mode="rgb_array"`` (issue 18, item 2): the table picture as an image array.

With the ``render`` extra (CairoSVG), ``render()`` returns the all-seeing SVG picture
(``render_svg(None)``, the same spectator's view as ``"ansi"``) rasterised to ``(H, W, 3)`` uint8.
Without it, the env refuses the mode at construction with ``RenderModeError`` (a ``TypeError`` as
well, so tools that fall back to no render mode, like Stable-Baselines3's ``make_vec_env``, still
work); the refusal is checked here by hiding CairoSVG from the import system.
"""

from __future__ import annotations

import builtins
import re
import sys

import numpy as np
import pytest
from cardzoo.envs import games, raster
from cardzoo.envs.base import RenderModeError
from cardzoo.envs.svg import CARD_H, CARD_W

GAMES = [pytest.param(m, id=m.GAME.env_name) for m in games()]
BACKGROUND = (0xFB, 0xFA, 0xF7)  # the fill of the picture's background rect (envs/svg.py)

needs_cairosvg = pytest.mark.skipif(
    raster.rasteriser_missing() is not None, reason="the render extra (CairoSVG) is not installed"
)


@pytest.fixture
def no_cairosvg(monkeypatch):
    """CairoSVG made unimportable for the test (and the cached answer forgotten around it)."""
    raster.rasteriser_missing.cache_clear()
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # `import cairosvg` -> ImportError
    yield
    monkeypatch.undo()
    raster.rasteriser_missing.cache_clear()


def svg_size(svg: str) -> tuple[int, int]:
    """(height, width) from the root element's attributes."""
    width, height = re.search(r'<svg[^>]* width="(\d+)" height="(\d+)"', svg).groups()
    return int(height), int(width)


def first_moves(env, count: int) -> None:
    """Play ``count`` legal moves (the first legal action each time)."""
    for _ in range(count):
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@needs_cairosvg
@pytest.mark.parametrize("module", GAMES)
def test_rgb_array_is_the_all_seeing_picture(module):
    env = module.env(render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=3)
    image = env.render()
    svg = env.unwrapped.render_svg(None)
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    assert image.shape == (*svg_size(svg), 3), "one pixel per SVG unit"
    # Not blank: the corner is the background colour, and the cards add many more colours.
    assert tuple(image[0, 0]) == BACKGROUND
    colours = np.unique(image.reshape(-1, 3), axis=0)
    assert len(colours) > 20, len(colours)
    assert (image != np.array(BACKGROUND)).any(axis=2).sum() > 20 * CARD_W * CARD_H // 10
    # The spectator's (all-seeing) picture, as "ansi" mode's text is: not a seat's view.
    assert np.array_equal(image, raster.svg_to_rgb(svg))
    if svg != env.unwrapped.render_svg(0):
        assert not np.array_equal(image, raster.svg_to_rgb(env.unwrapped.render_svg(0)))


@needs_cairosvg
@pytest.mark.parametrize("module", GAMES)
def test_picture_changes_after_moves_and_mode_changes_no_game(module):
    env = module.env(render_mode="rgb_array")
    plain = module.env()
    env.reset(seed=5)
    plain.reset(seed=5)
    before = env.render()
    first_moves(env, 2)
    first_moves(plain, 2)
    after = env.render()
    assert before.shape[2] == after.shape[2] == 3
    assert before.shape != after.shape or not np.array_equal(before, after)
    # Drawing consumes no randomness and changes nothing: the same game as without a render mode.
    for agent in env.possible_agents:
        a, b = env.observe(agent), plain.observe(agent)
        assert np.array_equal(a["observation"], b["observation"])
        assert np.array_equal(a["action_mask"], b["action_mask"])
    assert env.agent_selection == plain.agent_selection


@pytest.mark.parametrize("module", GAMES)
def test_refused_without_cairosvg(module, no_cairosvg):
    with pytest.raises(RenderModeError, match=r"cardzoo\[render\]") as info:
        module.env(render_mode="rgb_array")
    assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
    # The other modes do not need it.
    env = module.env(render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str)


def test_refused_when_the_cairo_library_is_missing(monkeypatch):
    """cairocffi raises OSError when it finds no libcairo: refused, naming the library."""
    real_import = builtins.__import__

    def failing_import(name, *args, **kwargs):
        if name == "cairosvg":
            raise OSError("no library called 'cairo-2' was found")
        return real_import(name, *args, **kwargs)

    raster.rasteriser_missing.cache_clear()
    monkeypatch.delitem(sys.modules, "cairosvg", raising=False)
    monkeypatch.setattr(builtins, "__import__", failing_import)
    try:
        with pytest.raises(RenderModeError, match="libcairo2"):
            games()[0].env(render_mode="rgb_array")
    finally:
        monkeypatch.undo()
        raster.rasteriser_missing.cache_clear()


def test_fallback_to_no_render_mode_without_cairosvg(no_cairosvg):
    """What Stable-Baselines3's make_vec_env does: ask for "rgb_array", on TypeError ask again."""
    module = games()[0]
    try:
        env = module.env(render_mode="rgb_array")
    except TypeError:
        env = module.env()
    assert env.render_mode is None
    env.reset(seed=0)
    first_moves(env, 1)
