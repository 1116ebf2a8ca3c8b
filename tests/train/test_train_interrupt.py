"""``cardzoo train``: what Ctrl-C leaves behind, ``--checkpoint-every``, the progress line."""

from __future__ import annotations

import io
import re

import pytest

pytest.importorskip("sb3_contrib")

from cardzoo.agents.policy import checkpoint_files, load_checkpoint  # noqa: E402
from cardzoo.train import ppo  # noqa: E402
from cardzoo.train.cli import main  # noqa: E402
from cardzoo.train.ppo import TrainConfig, Trainer, progress_line, summary_table  # noqa: E402

# 4 games x 32 steps: one update every 128 learner steps; evaluations every 1,024 steps.
TINY = {
    "envs": 4,
    "n_steps": 32,
    "batch_size": 64,
    "n_epochs": 1,
    "net_arch": [16],
    "threads": 1,
    "eval_every": 1024,
    "eval_games": 4,
}
STOP_AT = 1500  # learner steps: inside the rollout that follows the update at 1,408


def test_ctrl_c_in_a_rollout_keeps_plot_checkpoint_and_says_how_old_the_eval_is(
    tmp_path, monkeypatch
):
    original = ppo._Callback._on_step

    def ctrl_c(self):
        if self.model.num_timesteps >= STOP_AT:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(ppo._Callback, "_on_step", ctrl_c)
    log = io.StringIO()
    config = TrainConfig(game="beasty_bar", timesteps=4096, **TINY)
    summary = Trainer(config, tmp_path, stream=log).run()
    text = log.getvalue()

    # the unfinished rollout's decisions never reached an update: not counted, and said so
    assert summary["interrupted"]
    assert summary["timesteps"] == 1408  # the last update's count (11 x 128)
    assert "interrupted at 1,408 learner steps" in text
    assert re.search(r"the \d+ decisions of the unfinished rollout were not learned from", text)
    # a checkpoint of the interrupted model, and the learning curve
    assert load_checkpoint(tmp_path)["timesteps"] == 1408
    assert (tmp_path / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert summary["plot"].endswith("learning_curve.png")
    # the evaluation shown is the one of step 1,024, and the summary says so
    assert summary["eval_timesteps"] == 1024
    table = summary_table(summary)
    assert "evaluation at 1,024 learner steps (384 steps before this checkpoint" in table
    assert "interrupted" in table.splitlines()[0]
    assert "(eval at 1.02k)" in text  # the progress lines name the evaluation's step too

    # the run resumes from that checkpoint
    monkeypatch.setattr(ppo._Callback, "_on_step", original)
    assert main(["train", "--resume", str(tmp_path), "--timesteps", "1664", "--quiet"]) == 0
    assert load_checkpoint(tmp_path)["timesteps"] == 1664


def test_ctrl_c_during_the_first_evaluation_still_ends_cleanly(tmp_path, monkeypatch):
    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ppo, "evaluate", ctrl_c)
    summary = Trainer(TrainConfig(game="beasty_bar", **TINY), tmp_path, quiet=True).run()
    assert summary["interrupted"] and summary["timesteps"] == 0
    assert summary["eval_timesteps"] is None
    assert checkpoint_files(tmp_path)
    assert (tmp_path / "learning_curve.png").exists()
    assert "evaluation at" not in summary_table(summary)


def steps_of(run_dir) -> list[int]:
    return [int(p.stem.split("-")[1]) for p in checkpoint_files(run_dir)]


def test_checkpoint_every(tmp_path, capsys):
    argv = ["train", "beasty_bar", "--timesteps", "1024", "--envs", "4", "--threads", "1"]
    argv += ["--eval-games", "2", "--eval-every", "100000", "--quiet"]
    argv += ["--set", "n_steps=32", "--set", "batch_size=64", "--set", "n_epochs=1"]
    argv += ["--set", "net_arch=8"]
    assert main([*argv, "--out", str(tmp_path / "plain")]) == 0
    assert steps_of(tmp_path / "plain") == [0, 1024]  # the first evaluation and the end
    assert main([*argv, "--out", str(tmp_path / "every"), "--checkpoint-every", "256"]) == 0
    assert steps_of(tmp_path / "every") == [512, 768, 1024]  # 256 too, but 3 are kept
    saved = (tmp_path / "every" / "config.json").read_text()
    assert '"checkpoint_every": 256' in saved
    capsys.readouterr()


def test_help_documents_checkpoint_every(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--checkpoint-every N also write a checkpoint every N learner steps" in help_text
    assert "(default 0: only at each evaluation, every --eval-every steps)" in help_text


def test_progress_line_is_clamped():
    evals = [
        {"opponent": "random", "win_rate": 0.5, "timesteps": 100_000},
        {"opponent": "random", "win_rate": 0.75, "timesteps": 300_000},
    ]
    # SB3 finishes its last rollout past the total: 303,100 of 300,000
    line = progress_line("bb 2p", 303_100, 300_000, 1000.0, evals)
    assert "300.00k/300.00k steps" in line and "303.10k" not in line
    assert "eta 0s" in line and "eta -" not in line
    assert "[" + "#" * 30 + "]" in line
    assert line.endswith("vs random 0.750 (eval at 300.00k)")
    line = progress_line("bb 2p", 150_000, 300_000, 1000.0, evals[:1])
    assert "150.00k/300.00k steps 1,000/s eta 2m30s" in line
    assert "[" + "#" * 15 + "." * 15 + "]" in line and "(eval at 100.00k)" in line
    line = progress_line("bb 2p", 0, 300_000, 0.0, [])
    assert line.endswith("eta ?") and "0/300.00k" in line
    assert "eta 0s" in progress_line("bb 2p", 300_000, 300_000, 0.0, [])


def test_progress_lines_of_an_overshooting_run_stay_within_the_total(tmp_path):
    log = io.StringIO()
    config = TrainConfig(game="beasty_bar", timesteps=200, **TINY)  # 2 updates: 256 steps
    summary = Trainer(config, tmp_path, stream=log).run()
    assert summary["timesteps"] == 256
    shown = re.findall(r"(\S+)/200 steps", log.getvalue())
    assert shown and shown[-1] == "200" and all(s != "256" for s in shown)
    assert "eta -" not in log.getvalue()


def test_summary_table_marks_rows_of_an_evaluation_cut_short():
    def row(opponent: str, timesteps: int) -> dict:
        return {"opponent": opponent, "timesteps": timesteps, "games": 4, "wins": 2, "draws": 0,
                "losses": 2, "win_rate": 0.5, "ci_low": 0.15, "ci_high": 0.85}  # fmt: skip

    summary = {
        "game": "beasty_bar", "players": 2, "timesteps": 3000, "interrupted": True,
        "wall_s": 5.0, "learner_steps_per_s": 600.0, "rollout_s": 1.0, "update_s": 1.0,
        "other_s": 1.0, "final_eval": [row("random", 3000), row("heuristic", 2048)],
        "eval_timesteps": 2048, "checkpoint": "ckpt",
    }  # fmt: skip
    lines = summary_table(summary).splitlines()
    assert lines[1] == (
        "evaluation at 2,048 learner steps (952 steps before this checkpoint: not of the final "
        "policy)"
    )
    assert lines[3].startswith("random") and lines[3].endswith("(at 3,000 steps)")
    assert lines[4].startswith("heuristic") and "(at" not in lines[4]


def test_time_budget_inside_a_rollout_counts_only_learned_steps(tmp_path, monkeypatch):
    original = ppo._Callback._on_step

    def budget_spent(self):  # what the time budget does, at a step count known in advance
        return original(self) and self.model.num_timesteps < 300

    monkeypatch.setattr(ppo._Callback, "_on_step", budget_spent)
    log = io.StringIO()
    config = TrainConfig(game="beasty_bar", timesteps=4096, **TINY)
    summary = Trainer(config, tmp_path, stream=log).run()
    assert not summary["interrupted"] and summary["timesteps"] == 256  # 2 updates of 128
    assert "time budget spent: the 44 decisions of the unfinished rollout" in log.getvalue()
    assert load_checkpoint(tmp_path)["timesteps"] == 256
    assert summary["eval_timesteps"] == 256  # the final evaluation is of the final policy
