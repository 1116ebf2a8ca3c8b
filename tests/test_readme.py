"""The README's quick start is a contract: its code must run as printed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def test_loading_a_trained_policy_runs_as_printed(tmp_path):
    """The README's "trained policy in Python" block, on a tiny run trained here."""
    pytest.importorskip("sb3_contrib")
    from cardzoo.train.ppo import TrainConfig, Trainer

    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    (block,) = [b for b in blocks if 'make_agent("ppo:runs/bb"' in b]
    config = TrainConfig(
        game="beasty_bar", timesteps=128, envs=2, n_steps=32, batch_size=32, n_epochs=1,
        net_arch=[8], threads=1, eval_every=10**9, eval_games=2,
    )  # fmt: skip
    Trainer(config, tmp_path / "bb", quiet=True).run()
    scope: dict = {}
    exec(compile(block.replace("runs/bb", str(tmp_path / "bb")), "README policy", "exec"), scope)
    env = scope["env"]
    assert not env.agents, "the game did not run to its end"
    assert env.unwrapped.game_state.terminal


def test_train_extra_states_a_torch_lower_bound_and_make_installs_the_cpu_build_first():
    """A library pins no exact torch (it would clash with others and pull a CUDA build)."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    root = README.parent
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    (torch,) = [r for r in extras["train"] if re.match(r"torch\b", r)]
    assert re.fullmatch(r"torch>=[\d.]+", torch.replace(" ", "")), torch
    makefile = (root / "Makefile").read_text()
    recipe = makefile.split("$(VENV)/.installed: pyproject.toml", 1)[1].split("touch $@")[0]
    assert recipe.index("'$(TORCH)'") < recipe.index("-e '.["), "torch must come before the extras"
