"""A tiny SVG builder shared by the games' table pictures (``envs/<game>/svg.py``).

A picture is a title, a status line and a list of :class:`Section` s, each a label over a row of
:class:`Card` s drawn as rounded rectangles with the card's name, a count badge and a note. No
artwork: plain shapes and text, so a picture reads at a glance and stays small. Each section is a
``<g>`` with an ``id`` (e.g. ``hand-0``), so tests and tools can find its cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

CARD_W, CARD_H, GAP = 96, 66, 8
PER_LINE = 10  # cards per line before a section wraps
MARGIN, LABEL_H, TITLE_H = 16, 20, 54
WIDTH = 2 * MARGIN + PER_LINE * (CARD_W + GAP) - GAP
FACE_DOWN = "#8a8f98"


@dataclass(frozen=True)
class Card:
    """One card (or a stack of equal cards, ``count`` > 1) as drawn."""

    name: str
    colour: str = "#f2efe6"
    count: int = 1
    note: str = ""  # small text at the bottom (up to two "\n"-separated lines of ~15 chars)
    face_down: bool = False  # drawn grey, ``name`` says what pile it is; skipped when count is 0
    mark: bool = False  # a thick outline (a target, a raven's card)


@dataclass(frozen=True)
class Section:
    """A labelled row of cards; ``key`` becomes the group's ``id``."""

    key: str
    label: str
    cards: Sequence[Card]


def _text_colour(fill: str) -> str:
    """Dark text on light fills, white on dark ones (by the fill's luminance)."""
    r, g, b = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return "#1b1b1b" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _wrap(name: str, width: int = 14) -> list[str]:
    """At most two lines of about ``width`` characters, split at spaces."""
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines[:1] + [" ".join(lines[1:])] if len(lines) > 2 else lines


def text(x: float, y: float, s: str, size: int = 12, **attrs: str) -> str:
    """A ``<text>`` element; ``s`` and every attribute value are escaped."""
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(v)}" for k, v in attrs.items())
    return f'<text x="{x:g}" y="{y:g}" font-size="{size}"{extra}>{escape(s)}</text>'


def card(x: float, y: float, c: Card) -> str:
    """One card as a ``<g class="card">``: rounded rectangle, name, count badge, note."""
    fill = FACE_DOWN if c.face_down else c.colour
    ink = _text_colour(fill)
    stroke = 'stroke="#d12a2a" stroke-width="3"' if c.mark else 'stroke="#333" stroke-width="1"'
    parts = [
        f'<rect x="{x:g}" y="{y:g}" width="{CARD_W}" height="{CARD_H}" rx="8" ry="8" '
        f'fill="{fill}" {stroke}/>'
    ]
    lines = _wrap(c.name) + ["(face down)"] if c.face_down else _wrap(c.name)
    for i, line in enumerate(lines):
        parts.append(
            text(x + CARD_W / 2, y + 18 + 13 * i, line, 12, text_anchor="middle", fill=ink)
        )
    if c.count > 1 or c.face_down:
        parts.append(
            text(x + CARD_W - 6, y + CARD_H - 6, f"x{c.count}", 13, text_anchor="end", fill=ink)
        )
    for i, line in enumerate(reversed(c.note.split("\n")[:2]) if c.note else ()):
        parts.append(text(x + 6, y + CARD_H - 6 - 12 * i, line, 10, fill=ink))
    return f'<g class="card">{"".join(parts)}</g>'


def page(title: str, status: str, sections: Sequence[Section]) -> str:
    """The whole picture as SVG text (sections stacked top to bottom)."""
    body: list[str] = []
    y = TITLE_H
    for s in sections:
        s = Section(s.key, s.label, [c for c in s.cards if c.count or not c.face_down])
        group = [text(MARGIN, y + 14, s.label, 13, font_weight="bold")]
        y += LABEL_H
        if not s.cards:
            group.append(text(MARGIN + 4, y + 16, "(none)", 12, fill="#666"))
            y += 26
        for i, c in enumerate(s.cards):
            col, line = i % PER_LINE, i // PER_LINE
            group.append(card(MARGIN + col * (CARD_W + GAP), y + line * (CARD_H + GAP), c))
        if s.cards:
            y += ((len(s.cards) - 1) // PER_LINE + 1) * (CARD_H + GAP)
        body.append(f'<g class="section" id={quoteattr(s.key)}>{"".join(group)}</g>')
        y += 6
    height = y + MARGIN
    head = [
        f'<rect width="{WIDTH}" height="{height}" fill="#fbfaf7"/>',
        text(MARGIN, 24, title, 18, font_weight="bold"),
        text(MARGIN, 44, status, 13, fill="#333"),
    ]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">'
        + "".join(head + body)
        + "</svg>\n"
    )


def who(seat: int | None) -> str:
    """The point of view named in a title."""
    return "all-seeing (every card shown)" if seat is None else f"seen by seat {seat}"
