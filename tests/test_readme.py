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
