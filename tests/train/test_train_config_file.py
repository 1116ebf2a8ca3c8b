"""``cardzoo train --config FILE.toml``: the file fills the settings, flags override it, unknown
keys fail naming the key (issue 17, item 1)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from cardzoo.train.cli import main
from cardzoo.train.ppo import TrainConfig

pytest.importorskip("sb3_contrib", reason="training needs the train extra")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def captured(monkeypatch):
    """Run `cardzoo train` up to the Trainer and keep the config it would train with."""
    from cardzoo.train import ppo

    seen: dict = {}

    class FakeTrainer:
        def __init__(self, config, out, resume=False, quiet=False):
            seen["config"], seen["out"] = config, out

        def run(self):
            return {"interrupted": False}

    monkeypatch.setattr(ppo, "Trainer", FakeTrainer)
    monkeypatch.setattr(ppo, "summary_table", lambda summary: "")
    return seen


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "run.toml"
    path.write_text(text)
    return str(path)


def test_the_file_sets_flags_settings_and_rule_options(tmp_path, captured):
    out = tmp_path / "run"
    config = write(
        tmp_path,
        f"""
game = "sitting_ducks"
players = 4
timesteps = 12_345
envs = 8
seed = 7
eval_every = 5000
max_minutes = 3
out = "{out}"
net_arch = [64, 32]
pool_weights = [0.5, 0.25, 0.25]
learning_rate = 0.0005
[options]
mode = "team"
""",
    )
    assert main(["train", "--config", config]) == 0
    c = captured["config"]
    assert (c.game, c.players, c.timesteps, c.envs, c.seed) == ("sitting_ducks", 4, 12345, 8, 7)
    assert (c.eval_every, c.max_minutes, c.learning_rate) == (5000, 3.0, 0.0005)
    assert c.net_arch == [64, 32] and c.pool_weights == [0.5, 0.25, 0.25]
    assert c.options == {"mode": "team"}
    assert Path(captured["out"]) == out


def test_command_line_flags_override_the_file(tmp_path, captured):
    config = write(
        tmp_path,
        'game = "beasty_bar"\ntimesteps = 1000\nseed = 3\nnet_arch = [64]\n'
        f'out = "{tmp_path / "from_file"}"\n',
    )
    argv = ["train", "--config", config, "--timesteps", "2000", "--set", "net_arch=16,16"]
    assert main([*argv, "--out", str(tmp_path / "flag")]) == 0
    c = captured["config"]
    assert c.timesteps == 2000 and c.net_arch == [16, 16]
    assert c.seed == 3  # not given on the command line: the file's value
    assert Path(captured["out"]) == tmp_path / "flag"


def test_a_positional_game_and_rule_option_override_the_file(tmp_path, captured):
    config = write(tmp_path, 'game = "cubirds"\nplayers = 4\n[options]\nmode = "team"\n')
    argv = ["train", "sitting_ducks", "--config", config, "mode=standard", "--timesteps", "64"]
    assert main([*argv, "--out", str(tmp_path / "r")]) == 0
    c = captured["config"]
    assert c.game == "sitting_ducks" and c.options == {"mode": "standard"} and c.players == 4


@pytest.mark.parametrize(
    "text, words",
    [
        ('game = "beasty_bar"\ntimestep = 10\n', ["unknown key 'timestep'", "timesteps"]),
        ('game = "beasty_bar"\n[extra]\nx = 1\n', ["unknown key 'extra'"]),
        ('game = "beasty_bar"\nplayers = "two"\n', ["players must be an int"]),
        ('game = "beasty_bar"\nlearning_rate = "fast"\n', ["learning_rate must be a number"]),
        ("game = 3\n", ["game must be a string"]),
        ('game = "beasty_bar"\noptions = 3\n', ["options must be a table"]),
        ('game = "beasty_bar"\n[options]\nnum_players = 3\n', ["player count"]),
        ('game = "beasty_bar"\n[options]\nno_such_rule = 1\n', ["no_such_rule"]),
        ("game = [\n", ["not valid TOML"]),
    ],
)
def test_bad_files_fail_naming_what_is_wrong(tmp_path, captured, capsys, text, words):
    config = write(tmp_path, text)
    assert main(["train", "--config", config, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    for word in words:
        assert word in err, err
    assert "config" not in captured  # nothing was trained
    assert err.count("\n") == 1  # one line


def test_missing_file_and_resume_are_refused(tmp_path, captured, capsys):
    assert main(["train", "--config", str(tmp_path / "none.toml")]) == 2
    assert "no such file" in capsys.readouterr().err
    config = write(tmp_path, 'game = "beasty_bar"\n')
    assert main(["train", "--config", config, "--resume", str(tmp_path)]) == 2
    assert "--resume" in capsys.readouterr().err
    assert "config" not in captured


def test_every_zoo_config_is_a_valid_run_config(tmp_path, captured):
    """Each shipped config builds a TrainConfig whose settings match the model made from it."""
    from cardzoo.zoo import model_info, model_names

    names = model_names()
    assert names, "the zoo ships no model"
    for name in names:
        assert (ROOT / "zoo" / f"{name}.toml").is_file()  # kept in the repository too
        assert main(["train", "--config", f"zoo:{name}", "--out", str(tmp_path / name)]) == 0
        made = dict(model_info(name)["config"])
        built = json.loads(json.dumps(captured["config"].__dict__))
        made.pop("cardzoo", None)
        # settings added to TrainConfig after the model was made: the config keeps the default
        for f in dataclasses.fields(TrainConfig):
            if f.name not in made:
                factory = f.default_factory
                default = f.default if factory is dataclasses.MISSING else factory()
                made[f.name] = json.loads(json.dumps(default))
        assert built == made, name
