"""``cardzoo rate``: the schedule (every agent in every seat equally often), the rating fit
(known strengths recovered within their intervals, draws as half a win), the same table whatever
``--workers``, and misuse refused before any game."""

from __future__ import annotations

import itertools
import json
import math
from collections import Counter

import numpy as np
import pytest
from cardzoo.envs.outcome import Outcome
from cardzoo.train.cli import main
from cardzoo.train.rate import (
    ELO_PER_NAT,
    PRIOR_DRAWS,
    RoundRobin,
    fit_elo,
    fit_ratings,
    pair_scores,
    perfect_record_bound,
    play_round_robin,
    rate,
    seating_orders,
    table,
)
from cardzoo.train.tournament import finishing_places

pytest.importorskip("choix")


def simulate(strength_elo: list[float], players: int, per_table: int, seed: int):
    """Finishing orders drawn from a Plackett-Luce model (Bradley-Terry at two players) with the
    given strengths: each place goes to one of the agents left with odds by strength."""
    rng = np.random.default_rng(seed)
    weights = np.exp(np.array(strength_elo) / ELO_PER_NAT)
    n = len(strength_elo)
    scores, strata = [], []
    for t, members in enumerate(itertools.combinations(range(n), players)):
        for _ in range(per_table):
            left = list(members)
            places = {}
            for place in range(1, players + 1):
                w = weights[left]
                pick = left[rng.choice(len(left), p=w / w.sum())]
                places[pick] = place
                left.remove(pick)
            scores.append(pair_scores(list(members), [places[a] for a in members], n))
            strata.append(t)
    return np.array(scores), strata


@pytest.mark.parametrize(
    "players, per_table, truth",
    [(2, 400, [0.0, 120.0, 300.0, 550.0]), (3, 400, [0.0, 150.0, -100.0, 400.0])],
)
def test_known_strengths_are_recovered_within_their_intervals(players, per_table, truth):
    scores, strata = simulate(truth, players, per_table, seed=players)
    ratings = fit_ratings(scores, strata, anchor=0, resamples=300, seed=1)
    assert ratings.rating[0] == 0 and ratings.low[0] == ratings.high[0] == 0  # the anchor
    for i, value in enumerate(truth):
        assert ratings.low[i] <= value <= ratings.high[i], (i, value, ratings)
        assert ratings.high[i] - ratings.low[i] < 160  # informative, not just wide
    assert not ratings.perfect


def test_a_wrong_scale_or_a_wrong_sign_would_miss_the_truth():
    """The recovery test can fail: strengths fitted on another scale land outside."""
    truth = [0.0, 300.0]
    scores, strata = simulate(truth, 2, 400, seed=5)
    ratings = fit_ratings(scores, strata, anchor=0, resamples=200, seed=1)
    natural_log_units = ratings.rating[1] / ELO_PER_NAT  # what a fit without the Elo factor gives
    assert not ratings.low[1] <= natural_log_units <= ratings.high[1]
    assert not ratings.low[1] <= -truth[1] <= ratings.high[1]


def test_a_draw_counts_half_a_win_for_each_side():
    # agent 0 against agent 1: 30 wins, 10 losses, 20 draws
    games = [([0, 1], [1, 2])] * 30 + [([0, 1], [2, 1])] * 10 + [([0, 1], [1, 1])] * 20
    total = sum(pair_scores(a, p, 2) for a, p in games)
    assert total.tolist() == [[0, 40], [20, 0]]
    half = PRIOR_DRAWS / 2  # the virtual draw between every pair
    expected = 400 * math.log10((40 + half) / (20 + half))
    assert fit_elo(total, anchor=1)[0] == pytest.approx(expected, abs=1e-6)
    # at three places, the pairs of one finishing order: a tie for first, then the third
    assert pair_scores([0, 1, 2], [1, 1, 3], 3).tolist() == [[0, 0.5, 1], [0.5, 0, 1], [0, 0, 0]]


def test_a_perfect_record_is_named_and_stays_finite():
    scores = np.array([pair_scores([0, 1], [2, 1], 2)] * 50)  # agent 1 wins all 50 games
    ratings = fit_ratings(scores, [0] * 50, anchor=0, resamples=20)
    assert ratings.perfect == [(1, 0)]
    assert ratings.rating[1] == pytest.approx(400 * math.log10(50.5 / 0.5), abs=1e-6)
    # 50 wins in 50 games: a win probability of 0.929 wins them all 2.5% of the time
    assert perfect_record_bound(50) == pytest.approx(400 * math.log10(0.92886 / 0.07114), abs=0.5)


def test_finishing_places():
    scores = (3.0, 5.0, 1.0, 5.0)
    teams = tuple((q,) for q in range(4))
    win = Outcome("win", (2,), (0.0,) * 4, teams)
    assert finishing_places(win, scores) == [4, 2, 1, 2]  # winner first, then by score
    assert finishing_places(Outcome("end", (), (0.0,) * 4, teams), scores) == [1, 1, 1, 1]
    offended = Outcome("illegal_action", (), (0.0,) * 4, teams, offender=1)
    assert finishing_places(offended, scores) == [1, 2, 1, 1]


def test_every_table_is_seated_every_way():
    assert seating_orders(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert seating_orders(3, 3) == [(0, 1, 2), (0, 2, 1)]
    assert len(seating_orders(5, 4)) == math.comb(5, 4) * math.factorial(3)


@pytest.mark.parametrize("players, games", [(2, 4), (3, 6)])
def test_seat_rotation_is_exact_in_a_real_round_robin(players, games):
    specs = ["random", "heuristic", "random"]
    rr = play_round_robin("beasty_bar", specs, players, games, seed=3)
    tables = math.comb(len(specs), players)
    assert len(rr.games) == games * tables
    seats = Counter((a, s) for g in rr.games for a, s in zip(g["agents"], g["seats"]))
    per_seat = games * math.comb(len(specs) - 1, players - 1) // players
    assert seats == {(a, s): per_seat for a in range(len(specs)) for s in range(players)}
    # every seating of every table (who sits where) equally often: here exactly once each
    seatings = Counter(tuple(a for _, a in sorted(zip(g["seats"], g["agents"]))) for g in rr.games)
    expected = {
        p: games // math.factorial(players)
        for t in itertools.combinations(range(len(specs)), players)
        for p in itertools.permutations(t)
    }
    assert seatings == expected


def test_same_seed_same_table_with_one_or_two_workers(tmp_path, capsys):
    reports, tables = [], []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.json"
        argv = ["rate", "beasty_bar", "--agents", "random,heuristic,random", "--games", "4"]
        argv += ["--seed", "7", "--bootstrap", "50", "--quiet", "--json", str(path)]
        assert main([*argv, "--workers", str(workers)]) == 0
        out = capsys.readouterr().out
        tables.append([line for line in out.splitlines() if "s of play" not in line])
        report = json.loads(path.read_text())
        report.pop("seconds")
        reports.append(report)
    assert reports[0] == reports[1]
    assert tables[0][:-1] == tables[1][:-1]  # the last line names the JSON file
    assert "Bradley-Terry" in tables[0][1] and "random = 0" in tables[0][1]
    rows = {r["name"]: r for r in reports[0]["agents"]}
    assert rows["random"]["rating"] == 0 and rows["heuristic"]["games"] == 8
    assert len(reports[0]["game_log"]) == 12


@pytest.mark.parametrize(
    "args, words",
    [
        (["--agents", "random,nosuch"], "nosuch"),
        (["--agents", "random"], "at least two agents"),
        (["--agents", "random,heuristic", "--players", "3"], "--players must be from 2"),
        (["--agents", "random,heuristic", "--players", "1"], "--players"),
        (["--agents", "random,random,random,random,random", "--players", "5"], "players"),
        (["--agents", "random,heuristic", "--games", "5"], "multiple of 2"),
        (["--agents", "random,heuristic,random", "--players", "3", "--games", "8"], "e.g. 6"),
        (["--agents", "random,heuristic", "--bootstrap", "-1"], "--bootstrap"),
        (["--agents", "random,heuristic", "nosuch_option=1"], "nosuch_option"),
    ],
)
def test_bad_input_is_refused_before_any_game(args, words, capsys):
    code = main(["rate", "beasty_bar", "--workers", "1", "--quiet", *args])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith("cardzoo rate: error: ") and words in err, err
    assert len(err.strip().splitlines()) == 1 and not out


def test_the_table_stars_a_perfect_record_and_gives_its_measured_bound():
    specs = ["random", "heuristic"]
    order = {"order": [0, 1], "seed": 0, "games": 20}
    rr = RoundRobin("beasty_bar", 2, specs, specs, {}, 0, 20, [order], [])
    for g in range(20):  # the heuristic (agent 1) wins every game, from either seat
        seats = [g % 2, 1 - g % 2]
        rr.games.append({"order": 0, "game": g, "agents": [0, 1], "seats": seats, "places": [2, 1]})
    report = rate(rr, resamples=20)
    assert [r["name"] for r in report["agents"]] == ["heuristic", "random"]
    bound = perfect_record_bound(20)
    assert report["perfect_records"] == [
        {"winner": "heuristic", "loser": "random", "games": 20, "min_gap": bound}
    ]
    text = table(report)
    assert "*" in text.splitlines()[3] and f"at least {bound:.0f} (95%)" in text
