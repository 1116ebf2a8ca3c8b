"""``docs/rules/beasty_bar.md`` is checked like code: the tests it cites exist, its animal table
is the game data, its options table is ``Config``, every worked example names its own test, and
the env and engine docstrings point to it."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from cardzoo.envs import beasty_bar_v0
from cardzoo.envs.beasty_bar import Config, game
from cardzoo.envs.beasty_bar.data import ANIMALS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "rules" / "beasty_bar.md"
CITED = re.compile(r"(tests/[\w/]+\.py)::(\w+)")


def text() -> str:
    return PAGE.read_text()


def section(number: int) -> str:
    """The body of ``## <number>.`` up to the next level-2 heading."""
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", text(), re.S | re.M)
    assert match, f"no section {number}"
    return match.group(0)


def table_rows(body: str, first_header: str) -> list[list[str]]:
    """The rows of the markdown table in ``body`` whose first header cell is ``first_header``."""
    rows, inside = [], False
    for line in body.splitlines():
        if not line.startswith("|"):
            inside = False
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == first_header:
            inside = True
        elif inside and not set(line) <= set("|-: "):
            rows.append(cells)
    return rows


def defined_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_cited_test_exists():
    cited = CITED.findall(text())
    assert len(cited) > 100
    missing = [
        f"{file}::{name}"
        for file, name in cited
        if not (ROOT / file).is_file() or name not in defined_tests(ROOT / file)
    ]
    assert missing == []


def test_every_beasty_bar_rules_test_is_cited():
    # a rule whose test cannot be found from the doc page is a rule nobody can check
    cited = {name for file, name in CITED.findall(text()) if file.endswith("test_rules.py")}
    tests = {t for t in defined_tests(ROOT / "tests/beasty_bar/test_rules.py") if t[:5] == "test_"}
    assert sorted(tests - cited) == []


def test_animal_table_matches_the_game_data():
    rows = table_rows(section(2), "strength")
    assert [int(r[0]) for r in rows] == list(range(12, 0, -1))
    for row in rows:
        animal = ANIMALS[int(row[0]) - 1]
        assert row[1] == animal.name
        assert int(row[2]) == animal.points
        recurring = row[3].startswith("yes")
        assert recurring == animal.recurring, row  # the zebra's passive block is not an action


def test_options_table_is_the_config():
    rows = table_rows(section(14), "option")
    fields = {f.name: f.default for f in dataclasses.fields(Config)}
    assert [r[0].strip("`") for r in rows] == list(fields)
    for row in rows:
        shown = row[2].strip("`").strip('"').lower()
        assert shown == str(fields[row[0].strip("`")]).lower(), row


def test_every_worked_example_names_its_test():
    items = re.split(r"^(\d+)\. ", section(13), flags=re.M)[1:]
    numbers = [int(n) for n in items[0::2]]
    assert numbers == list(range(1, 25))
    for number, body in zip(numbers, items[1::2], strict=True):
        assert f"tests/beasty_bar/test_rules.py::test_example_{number:02d}_" in body, number


def test_docstrings_point_to_the_doc_page():
    for doc in (beasty_bar_v0.__doc__, game.__doc__):
        assert "docs/rules/beasty_bar.md" in doc
        assert "shared/rules" not in doc
    assert "Rule decisions" in beasty_bar_v0.__doc__
