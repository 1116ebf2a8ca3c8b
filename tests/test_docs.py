"""The rules pages in ``docs/rules/`` ship with the package, so they are checked like code.

- every test a page cites as ``tests/<file>.py::<name>`` exists in that file;
- every game has a page, and its env's doc page (module docstring) links to it;
- every rule option of a game is named on its page, and an options table with a "default" column
  gives the defaults that ``Config`` really has;
- the Cubirds page's species table agrees with the game data.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import re
from functools import cache
from pathlib import Path

import pytest
from cardzoo.envs import ENV_MODULES

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "docs" / "rules"
PAGES = sorted(RULES_DIR.glob("*.md"))

# ``tests/dir/test_x.py::test_name`` or ``...::TestClass::test_name``; a parametrize id in
# brackets may follow and is ignored.
CITATION = re.compile(r"(tests/[\w./-]+?\.py)::([A-Za-z_]\w*(?:::[A-Za-z_]\w*)?)")


def _game_name(module: str) -> str:
    return module.rsplit("_v", 1)[0]


@cache
def _tests_in(path: Path) -> frozenset[str]:
    """Names pytest would collect from a test file: ``test*`` functions, ``Test*::test*``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    funcs = (ast.FunctionDef, ast.AsyncFunctionDef)
    for node in tree.body:
        if isinstance(node, funcs) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in node.body:
                if isinstance(item, funcs) and item.name.startswith("test"):
                    names.add(f"{node.name}::{item.name}")
    return frozenset(names)


def citations(text: str) -> list[tuple[str, str]]:
    """Every ``(file, test name)`` cited in a page, in order of appearance."""
    return CITATION.findall(text)


def missing_citations(text: str, root: Path = ROOT) -> list[str]:
    """The cited tests that do not exist (wrong file or no such test in it)."""
    missing = []
    for file, name in citations(text):
        path = root / file
        if not path.is_file():
            missing.append(f"{file}::{name} (no such file)")
        elif name not in _tests_in(path):
            missing.append(f"{file}::{name} (no such test in {file})")
    return missing


def option_table_defaults(text: str) -> dict[str, str]:
    """``{option: default cell}`` from every markdown table whose header has an "option" (or
    "name") first column and a "default" column."""
    found: dict[str, str] = {}
    default_col = None
    for line in text.splitlines():
        if not line.startswith("|"):
            default_col = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        lowered = [c.lower() for c in cells]
        if lowered[0] in ("option", "name") and "default" in lowered:
            default_col = lowered.index("default")
        elif default_col is not None and not set(line) <= set("|-: "):
            found[cells[0].strip("`")] = cells[default_col]
    return found


def _same_default(cell: str, value: object) -> bool:
    shown = cell.strip("`").strip("\"'").lower()
    return shown == str(value).lower()


# ---------------------------------------------------------------------------------------------
# The checks, on every page


def test_there_are_rules_pages():
    assert PAGES, f"no rules pages in {RULES_DIR}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_cited_test_exists(page: Path):
    text = page.read_text()
    assert citations(text), f"{page.name} cites no test (tests/<file>.py::<name>)"
    assert missing_citations(text) == []


@pytest.mark.parametrize("module", ENV_MODULES)
def test_every_game_has_a_rules_page_linked_from_its_env(module: str):
    name = _game_name(module)
    page = RULES_DIR / f"{name}.md"
    assert page.is_file(), f"docs/rules/{name}.md is missing"
    doc = importlib.import_module(f"cardzoo.envs.{module}").__doc__ or ""
    assert f"docs/rules/{name}.md" in doc, f"the {module} doc page does not link its rules page"


@pytest.mark.parametrize("module", ENV_MODULES)
def test_every_rule_option_is_on_the_rules_page_with_its_real_default(module: str):
    page = RULES_DIR / f"{_game_name(module)}.md"
    if not page.is_file():
        pytest.skip(f"{page.name} missing (reported by the test above)")
    text = page.read_text()
    config_cls = importlib.import_module(f"cardzoo.envs.{module}").GAME.config_cls
    fields = {f.name: f.default for f in dataclasses.fields(config_cls)}
    absent = [name for name in fields if f"`{name}`" not in text]
    assert absent == [], f"{page.name} does not name these options: {absent}"
    for option, cell in option_table_defaults(text).items():
        assert option in fields, f"{page.name} lists {option!r}, which Config does not have"
        assert _same_default(cell, fields[option]), (
            f"{page.name} gives {option} the default {cell}, Config has {fields[option]!r}"
        )


# ---------------------------------------------------------------------------------------------
# The checkers themselves catch what they are for


def test_missing_citations_finds_wrong_names_and_files():
    here = "tests/test_docs.py"
    text = (
        f"see `{here}::test_there_are_rules_pages`, `{here}::test_no_such_thing`, "
        f"`tests/nowhere.py::test_x` and `{here}::test_every_cited_test_exists[cubirds.md]`"
    )
    assert [f"{f}::{n}" for f, n in citations(text)] == [
        f"{here}::test_there_are_rules_pages",
        f"{here}::test_no_such_thing",
        "tests/nowhere.py::test_x",
        f"{here}::test_every_cited_test_exists",
    ]
    assert missing_citations(text) == [
        f"{here}::test_no_such_thing (no such test in {here})",
        "tests/nowhere.py::test_x (no such file)",
    ]


def test_option_table_parser_reads_defaults_and_ignores_other_tables():
    text = "\n".join(
        [
            "| species | cards |",
            "|---|---|",
            "| Owl | 10 |",
            "",
            "| option | values | default | meaning |",
            "|---|---|---|---|",
            '| `first_player` | seat or `"random"` | `"random"` | who starts |',
            "| `max_turns` | int | `1000` | cap |",
        ]
    )
    assert option_table_defaults(text) == {"first_player": '`"random"`', "max_turns": "`1000`"}
    assert _same_default('`"random"`', "random") and _same_default("`false`", False)
    assert not _same_default("`100`", 1000)


# ---------------------------------------------------------------------------------------------
# Cubirds: the species table is the game data


def test_cubirds_species_table_matches_the_game_data():
    from cardzoo.envs.cubirds.data import (
        BIG_FLOCK,
        CARD_COUNTS,
        SMALL_FLOCK,
        SPECIES_LETTERS,
        SPECIES_NAMES,
    )

    text = (RULES_DIR / "cubirds.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 6 and cells[1] in SPECIES_NAMES:
            rows[cells[1]] = cells
    assert list(rows) == list(SPECIES_NAMES), "species table missing, incomplete or out of order"
    for s, name in enumerate(SPECIES_NAMES):
        expected = [str(s), name, f"`{SPECIES_LETTERS[s]}`"]
        expected += [str(CARD_COUNTS[s]), str(SMALL_FLOCK[s]), str(BIG_FLOCK[s])]
        assert rows[name][:6] == expected
