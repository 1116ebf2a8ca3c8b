"""Team games in training and evaluation (issue 17, item 0) and eval's per-game JSON (item 4).

Sitting Ducks Gallery's team mode seats partners at q and q + N/2; its two-seat team game is the
``duel`` variant. A team win must count as a win (not a draw) everywhere results are counted.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cardzoo.envs.outcome import DRAW, LOSS, WIN, Outcome
from cardzoo.train.cli import main
from cardzoo.train.pool import OpponentPool
from cardzoo.train.tournament import finishing_places, run_tournament, side_margins, side_places
from cardzoo.train.vec_env import BatchedCardEnv
from train_helpers import tiny_actor

TEAM4 = {"mode": "team"}


# -- finishing places and margins by side ---------------------------------------------------------


def test_side_places_and_margins_count_partners_as_one_side():
    teams = ((0, 2), (1, 3))
    end = Outcome("last_one_standing", (1, 3), (-0.5, 0.5, -0.5, 0.5), teams)
    scores = (0.0, 3.0, 0.0, 3.0)
    assert side_places(end, scores) == [2, 1, 2, 1]  # by seats it would be 3 for the losers
    assert finishing_places(end, scores) == [3, 1, 3, 1]
    assert side_margins(teams, scores) == [-3.0, 3.0, -3.0, 3.0]
    assert [end.team_result(q) for q in range(4)] == [LOSS, WIN, LOSS, WIN]
    assert [end.result(q) for q in range(4)] == [LOSS, DRAW, LOSS, DRAW]  # seat by seat
    # three sides of two: the losers are placed by score, the margin is against the others' mean
    teams6 = ((0, 3), (1, 4), (2, 5))
    end6 = Outcome("last_one_standing", (2, 5), (0.0,) * 6, teams6)
    scores6 = (1.0, 2.0, 4.0, 1.0, 2.0, 4.0)
    assert side_places(end6, scores6) == [3, 2, 1, 3, 2, 1]
    assert side_margins(teams6, scores6) == [-2.0, -0.5, 2.5, -2.0, -0.5, 2.5]


def test_side_places_without_partnerships_are_finishing_places():
    teams = ((0,), (1,), (2,))
    for winners, scores in [((1,), (2.0, 5.0, 2.0)), ((0, 2), (4.0, 1.0, 4.0)), ((), (1.0,) * 3)]:
        end = Outcome("win", winners, (0.0,) * 3, teams)
        assert side_places(end, scores) == finishing_places(end, scores)


# -- training: partners play the current policy and share the reward ---------------------------


def team_env(pool: OpponentPool, seed: int) -> BatchedCardEnv:
    return BatchedCardEnv(
        "sitting_ducks", 1, pool, num_players=4, learner_seat=0, seed=seed, **TEAM4
    )


def test_a_scripted_team_game_gives_the_team_reward_to_both_partners():
    """The learner (seat 0) always plays its first legal move; its partner (seat 2) is the pool's
    current policy, the opponents (1, 3) are drawn from the pool. Each finished game pays the
    learner exactly what the env pays its partner: +0.5 each for a team win, -0.5 for a loss."""
    pool = OpponentPool("sitting_ducks", ["random"], weights=(0.0, 0.0, 1.0))
    env = team_env(pool, seed=5)
    pool.set_current(tiny_actor(env.encoder.size, env.encoder.num_actions))
    env.reset()
    rewards = []
    while len(rewards) < 6:
        table = env.tables[0]
        assert table.seats[2] is pool.current and table.seats[0] is None
        assert [p.name for p in (table.seats[1], table.seats[3])] == ["random", "random"]
        assert table.names == ("random", "random")  # the partner is not an opponent
        action = int(np.flatnonzero(env.action_masks()[0])[0])
        _, reward, done, infos = env.step(np.array([action]))
        if not done[0]:
            assert reward[0] == 0.0
            continue
        winners = infos[0]["winners"]
        assert winners[0] == winners[2] and winners[1] == winners[3]  # partners win together
        assert reward[0] == (0.5 if winners[0] else -0.5)
        assert infos[0]["opponents"] == ("random", "random")
        rewards.append(float(reward[0]))
    assert 0.5 in rewards and -0.5 in rewards  # both ways were seen (seeded, deterministic)


def test_without_a_current_policy_partners_are_drawn_like_opponents():
    env = team_env(OpponentPool.fixed(["random"], "sitting_ducks"), seed=1)
    env.reset()
    assert env.tables[0].names == ("random", "random", "random")


def test_a_game_without_partnerships_ignores_the_current_policy_for_partners():
    """Four-player standard mode: every other seat is an opponent drawn from the pool."""
    pool = OpponentPool("sitting_ducks", ["random"], weights=(0.0, 0.0, 1.0))
    env = BatchedCardEnv("sitting_ducks", 2, pool, num_players=4, seed=3)
    pool.set_current(tiny_actor(env.encoder.size, env.encoder.num_actions))
    env.reset()
    for table in env.tables:
        assert table.names == ("random", "random", "random")
        assert all(p is None or p.name == "random" for p in table.seats)


# -- evaluation: a team win is a win ----------------------------------------------------------


def test_team_eval_of_heuristic_team_against_random_team_reports_team_wins():
    """heuristic,random at four team seats: each agent plays a whole side. The heuristic team
    beat the random team in every one of 40 games measured (seed 0); before, every team win was
    a draw (shared victory) and both rows showed 0.000."""
    result = run_tournament("sitting_ducks", ["heuristic", "random"], 8, 4, config=TEAM4)
    assert result.side_lineup and result.sides == [[0, 2], [1, 3]]
    heuristic, rand = result.agents
    assert heuristic.games == rand.games == 8
    assert heuristic.draws == rand.draws == 0
    assert heuristic.wins == rand.losses and rand.wins == heuristic.losses
    assert heuristic.win_rate >= 0.75
    data = result.to_dict()
    assert data["agents"][0]["mean_rank"] < data["agents"][1]["mean_rank"]
    assert data["agents"][0]["mean_margin"] > 0 > data["agents"][1]["mean_margin"]
    assert "team win rate) 1/2 = 0.500" in result.table()


def test_four_agents_at_four_team_seats_each_get_their_team_result():
    """One agent per seat: slots 0 and 2 are partners in every game (the lineup rotates by one
    seat), so they share every result."""
    specs = ["heuristic", "random", "heuristic", "random"]
    result = run_tournament("sitting_ducks", specs, 4, 4, config=TEAM4, game_log=True)
    assert not result.side_lineup
    a, b, c, d = result.agents
    assert (a.wins, a.losses) == (c.wins, c.losses) == (b.losses, b.wins) == (d.losses, d.wins)
    assert a.draws == 0 and a.games == 4
    for entry in result.game_log:
        assert (entry["seats"][2] - entry["seats"][0]) % 4 == 2
        assert entry["results"][0] == entry["results"][2] != entry["results"][1]


def test_evaluate_plays_the_partner_seats_with_the_policy_and_counts_team_wins(monkeypatch):
    from cardzoo.envs import load
    from cardzoo.train.evaluate import evaluate
    from cardzoo.train.opponents import PolicyOpponent

    encoder = load("sitting_ducks").raw_env(num_players=4, **TEAM4).encoder
    actor = tiny_actor(encoder.size, encoder.num_actions, seed=2)
    offsets = set()  # seats the policy decided for, counted from the learner's seat
    act_batch = PolicyOpponent.act_batch

    def spy(self, tables, enc):
        offsets.update((t.state.current_player - t.learner) % 4 for t in tables)
        return act_batch(self, tables, enc)

    monkeypatch.setattr(PolicyOpponent, "act_batch", spy)
    result = evaluate("sitting_ducks", actor, "random", 8, 4, env_options=TEAM4)
    assert offsets == {0, 2}  # its own seat and its partner's, never an opponent's
    assert result.fair_share == 0.5
    assert result.games == 8 and result.draws == 0  # a team game has one winning side
    assert result.wins + result.losses == 8
    assert 1.0 <= result.mean_rank <= 2.0
    # with no partnerships the fair share is one over the seats
    plain = evaluate("sitting_ducks", actor, "random", 4, 4)
    assert plain.fair_share == 0.25


# -- cardzoo train: variants and modes at every count the game accepts ------------------------

TINY_TRAIN = [
    "--timesteps", "64", "--envs", "2", "--eval-every", "64", "--eval-games", "4",
    "--threads", "1", "--quiet", "--set", "n_steps=32", "--set", "batch_size=32",
    "--set", "n_epochs=1", "--set", "net_arch=8", "--set", "eval_opponents=random",
]  # fmt: skip


def read_eval(folder) -> list[dict[str, str]]:
    import csv

    with open(folder / "eval.csv", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.mark.parametrize(
    ("argv", "players", "options"),
    [
        (["--variant", "duel"], 2, {"variant": "duel"}),
        (["--players", "2", "mode=team"], 2, {"mode": "team"}),
        (["--players", "4", "mode=team"], 4, {"mode": "team"}),
    ],
)
def test_train_accepts_variants_and_team_mode(argv, players, options, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(["train", "sitting_ducks", *argv, *TINY_TRAIN, "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    config = json.loads((out / "config.json").read_text())
    assert (config["players"], config["options"]) == (players, options)
    rows = read_eval(out)
    assert rows and all(r["draws"] == "0" for r in rows)  # every game has one winning side
    assert all(float(r["fair_share"]) == 0.5 for r in rows)


def test_train_refuses_two_variants_and_a_variant_on_resume(tmp_path, capsys):
    argv = ["train", "sitting_ducks", "--variant", "duel", "variant=team", *TINY_TRAIN]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 2
    assert "two variants given" in capsys.readouterr().err
    run = tmp_path / "b"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"game": "sitting_ducks", "players": 2}))
    assert main(["train", "--resume", str(run), "--variant", "duel"]) == 2
    assert "rule options and --variant cannot change" in capsys.readouterr().err


# -- cardzoo eval --json: every game ----------------------------------------------------------


def test_eval_json_lists_every_game_with_seats_outcome_and_length(tmp_path, capsys):
    path = tmp_path / "eval.json"
    argv = ["eval", "beasty_bar", "--games", "6", "--workers", "1", "--quiet", "--json", str(path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "margin" in out
    data = json.loads(path.read_text())
    log = data["game_log"]
    assert [e["game"] for e in log] == list(range(6))
    for agent_index, agent in enumerate(data["agents"]):
        results = [e["results"][agent_index] for e in log]
        assert (results.count(WIN), results.count(DRAW), results.count(LOSS)) == (
            agent["wins"],
            agent["draws"],
            agent["losses"],
        )
        margins = [e["scores"][agent_index] - e["scores"][1 - agent_index] for e in log]
        assert agent["mean_margin"] == pytest.approx(sum(margins) / 6)
    for e in log:
        assert e["seats"] == [e["game"] % 2, (e["game"] + 1) % 2]
        assert e["steps"] > 0 and e["turns"] > 0 and e["end_reason"]
    assert sum(e["steps"] for e in log) / 6 == pytest.approx(data["mean_steps"])


# -- gymnasium: a variant sets the seat count ---------------------------------------------------


def test_gymnasium_make_with_the_duel_variant_gives_the_two_seat_game():
    gymnasium = pytest.importorskip("gymnasium")
    import cardzoo.train  # noqa: F401  (registers the ids)

    env = gymnasium.make("cardzoo/SittingDucksGallery-v0", variant="duel")
    config = env.unwrapped.aec.config
    assert (config.num_players, config.mode) == (2, "team")
    obs, info = env.reset(seed=0)
    assert info["learner_seat"] in (0, 1) and len(info["opponents"]) == 1
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    default = gymnasium.make("cardzoo/SittingDucksGallery-v0")
    assert default.unwrapped.aec.config.num_players == 3  # the game's smallest count
    with pytest.raises(ValueError, match="num_players"):
        gymnasium.make("cardzoo/SittingDucksGallery-v0", variant="duel", num_players=3)
