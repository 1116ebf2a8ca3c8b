"""The README's quick start is a contract: its code must run as printed."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_quick_start_runs(capsys):
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python block"
    quick_start = blocks[0]
    assert len(quick_start.strip().splitlines()) <= 12
    exec(compile(quick_start, "README quick start", "exec"), {})
    out = capsys.readouterr().out
    assert "game over" in out  # the final render shows a finished game


def test_games_table_is_what_cardzoo_list_prints():
    from cardzoo.train.cli import list_rows, markdown_table

    assert markdown_table(list_rows()) in README.read_text(), (
        "README's games table differs from `cardzoo list --markdown`: paste its output"
    )


def test_one_version_everywhere(capsys):
    import importlib.metadata

    import cardzoo.envs
    import pytest
    from cardzoo.train.cli import main

    version = cardzoo.envs.__version__
    assert importlib.metadata.version("cardzoo") == version
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"cardzoo {version}"
    changelog = (README.parent / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(version)}\b", changelog, flags=re.M), (
        "CHANGELOG.md has no section for the current version"
    )
