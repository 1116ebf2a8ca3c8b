"""SVG table pictures as image arrays, for PettingZoo's ``render_mode="rgb_array"``.

The pictures themselves are drawn as SVG text (``envs/svg.py`` and ``envs/<game>/svg.py``);
this module only rasterises them with CairoSVG (the optional ``render`` extra:
``pip install "cardzoo[render]"``), which needs the system's cairo library.

CairoSVG is imported only when an env asks for ``"rgb_array"``: importing it takes about as long
as importing cardzoo's envs, and most runs never draw a picture.
"""

from __future__ import annotations

import functools
import importlib.util
import io

import numpy as np

#: The extra that installs the rasteriser; named in every refusal.
EXTRA = 'pip install "cardzoo[render]"'


def rasteriser_installed() -> bool:
    """Whether the ``cairosvg`` package is installed (a cheap check: it is not imported)."""
    return importlib.util.find_spec("cairosvg") is not None


@functools.cache
def rasteriser_missing() -> str | None:
    """``None`` when CairoSVG and the cairo library load, else why not (for error messages).

    Imports CairoSVG once per process; the answer is cached.
    """
    try:
        import cairosvg  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError as err:
        return f"render_mode='rgb_array' needs CairoSVG ({EXTRA}): {err}"
    except OSError as err:  # cairocffi found no libcairo
        return f"render_mode='rgb_array' needs the cairo library (libcairo2) for CairoSVG: {err}"
    return None


def svg_to_rgb(svg: str) -> np.ndarray:
    """The picture as an ``(H, W, 3)`` uint8 array, one pixel per SVG unit.

    Transparent parts (none in cardzoo's pictures, which paint a background) come out white.
    """
    import cairosvg
    from PIL import Image

    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    with Image.open(io.BytesIO(png)) as image:
        rgba = image.convert("RGBA")
    background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(background, rgba).convert("RGB"), dtype=np.uint8)
