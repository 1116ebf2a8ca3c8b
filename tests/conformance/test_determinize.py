"""``State.determinize(player, rng)`` is a function of what ``player`` knows and of ``rng`` alone
(issue 16), on every game, mode, variant and player count (``conformance_cases.DETERMINIZE_CASES``:
every case of the conformance suite, and each variant and rule option again at the largest
player count).

Positions come from seeded uniformly random games: the states after 10%, 50% and 90% of the
game's decisions (*early*, *middle*, *late*; a game cut by its truncation cap counts up to the
cut). Three properties:

(a) **Seed-exact hidden-twin invariance.** A *twin* of a position is ``state.determinize(p, r)``:
    the same for seat ``p``, other hidden cards. The position and its twin, each determinized
    with ``default_rng(7)``, must give samples in which every seat sees the same (``view(q)`` for
    every ``q``), and they must stay so through the same 30 random legal moves. A sampler that
    shuffles the true hidden order fails this: anyone who knows the seed could read it back.
(b) **No pull toward the truth.** ``hits_truth`` counts the samples of the position (seeds
    ``0..N-1``) whose hidden part equals the true one, judged game-agnostically: every other
    seat's ``view`` equal to the truth's. ``hits_twin`` counts the same event over samples of a
    twin that differs from the truth (other seeds). A truth-independent sampler draws both from
    the same distribution, so both are Binomial(N, pi) where pi is the truth's share of the
    consistent worlds; given ``k = hits_truth + hits_twin``, ``hits_truth`` is Binomial(k, 1/2).
    The test fails when its upper tail is below ``ALPHA``: a sampler that returns the truth
    (``hits_truth = N``, ``hits_twin = 0``) fails with probability 1 - 2^-N. At least half of
    the positions must have a twin that differs from the truth (there, more than one world is
    consistent), which a sampler that returns the truth cannot produce either. Positions with a
    single consistent world (Beasty Bar early in its set-aside phase) are passed over.
(c) **Consistency.** Every sample (and every twin) looks to ``p`` exactly like the truth:
    ``sample.view(p) == state.view(p)``.

The self-tests at the end run (a) and (b) against deliberately broken samplers and check that
they fail.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from cardzoo.envs import beasty_bar_v0
from cardzoo.envs.core import child_seed
from cardzoo.train.bench_loops import POSITIONS, game_positions
from conformance_cases import DETERMINIZE_CASES

#: Games whose determinize is being fixed by other work of issue 16: skipped here until it lands.
#: Remove a game from this set when its fix is committed.
PENDING: set[str] = set()

FRACTIONS = POSITIONS
#: Seeded random games per case for (a), and their positions: every seat at each of them.
TWIN_GAMES = 4
#: Random legal moves applied to both samples after the first comparison.
FOLLOW_MOVES = 30
#: (b): games per case, samples per position (for the truth, and again for its twin), and the
#: false-alarm rate per position of a sampler that is truth-independent.
TRUTH_GAMES = 2
TRUTH_SAMPLES = 80
ALPHA = 1e-5


def _skip_pending(module: Any) -> None:
    name = module.GAME.name
    if name in PENDING:
        pytest.skip(f"issue 16: {name}'s determinize is being fixed; remove it from PENDING then")


def positions(module: Any, config: dict, seed: int) -> dict[str, Any]:
    """The early, middle and late states of one seeded random game (clones), as the bench
    takes them."""
    spec = module.GAME
    found = game_positions(spec.state_cls, spec.make_config(**config), games=1, seed=seed)
    return {name: states[0] for name, states in found.items()}


def views(state: Any) -> tuple:
    return tuple(state.view(q) for q in range(state.num_players))


def hidden_part(state: Any, player: int) -> tuple:
    """What the other seats see: equal for two worlds iff their hidden parts agree (as far as
    any seat can tell)."""
    return tuple(state.view(q) for q in range(state.num_players) if q != player)


def twin_mismatch(state: Any, twin: Any, player: int, follow_seed: int) -> str | None:
    """Property (a) (and (c)) at one position: ``None`` if it holds, else what went wrong."""
    truth_view = state.view(player)
    if twin.view(player) != truth_view:
        return f"the twin looks different to seat {player}"
    a = state.determinize(player, np.random.default_rng(7))
    b = twin.determinize(player, np.random.default_rng(7))
    if a.view(player) != truth_view:
        return f"the sample looks different to seat {player} than the truth"
    if views(a) != views(b):
        return "twins gave different samples for default_rng(7)"
    pick = random.Random(follow_seed).random
    for step in range(FOLLOW_MOVES):
        if a.terminal or a.truncated:
            break
        legal = a.legal_move_ids()
        if legal != b.legal_move_ids():
            return f"twins' samples have different legal moves after {step} moves"
        move = legal[int(pick() * len(legal))]
        a.apply_id(move)
        b.apply_id(move)
        if views(a) != views(b):
            return f"twins' samples differ after {step + 1} of the same moves"
    if (a.terminal, a.truncated) != (b.terminal, b.truncated):
        return "twins' samples ended differently"
    return None


def check_twins(module: Any, config: dict) -> tuple[int, int]:
    """Run (a) over the case's positions; returns (checks made, twins that differed from the
    truth). Raises AssertionError on the first failure."""
    checks = distinct = 0
    for game in range(TWIN_GAMES):
        for i, (name, state) in enumerate(positions(module, config, 100 + game).items()):
            for player in range(state.num_players):
                twin = state.determinize(player, np.random.default_rng([game, i, player]))
                problem = twin_mismatch(state, twin, player, game)
                assert problem is None, f"game seed {100 + game}, {name}, seat {player}: {problem}"
                distinct += hidden_part(twin, player) != hidden_part(state, player)
                checks += 1
    return checks, distinct


def upper_tail(k: int, hits: int) -> float:
    """P(X >= hits) for X ~ Binomial(k, 1/2)."""
    return sum(math.comb(k, i) for i in range(hits, k + 1)) / 2**k


def truth_pull(state: Any, player: int) -> tuple[int, int] | None:
    """(hits_truth, hits_twin) of property (b) at one position, or None if no twin that differs
    from the truth was found (a position with a single consistent world)."""
    truth = hidden_part(state, player)
    twin = None
    for seed in range(5):
        candidate = state.determinize(player, np.random.default_rng(10**6 + seed))
        if hidden_part(candidate, player) != truth:
            twin = candidate
            break
    if twin is None:
        return None
    hits_truth = hits_twin = 0
    for seed in range(TRUTH_SAMPLES):
        sample = state.determinize(player, np.random.default_rng(seed))
        assert sample.view(player) == state.view(player), "the sample looks different to p"
        hits_truth += hidden_part(sample, player) == truth
        other = twin.determinize(player, np.random.default_rng(TRUTH_SAMPLES + seed))
        hits_twin += hidden_part(other, player) == truth
    return hits_truth, hits_twin


def check_truth_independence(module: Any, config: dict) -> int:
    """Run (b) over the case's positions; returns how many had a twin that differs from the
    truth. Raises AssertionError if the truth is hit too often anywhere."""
    qualified = 0
    for game in range(TRUTH_GAMES):
        for name, state in positions(module, config, 200 + game).items():
            result = truth_pull(state, state.current_player)
            if result is None:
                continue
            qualified += 1
            hits_truth, hits_twin = result
            tail = upper_tail(hits_truth + hits_twin, hits_truth)
            assert tail >= ALPHA, (
                f"game seed {200 + game}, {name}: the truth's hidden part came back in "
                f"{hits_truth} of {TRUTH_SAMPLES} samples, but in {hits_twin} of "
                f"{TRUTH_SAMPLES} samples of a twin (tail {tail:.2g} < {ALPHA:g})"
            )
    return qualified


@pytest.mark.parametrize("module,config", DETERMINIZE_CASES)
def test_hidden_twins_give_the_same_sample(module, config):
    _skip_pending(module)
    checks, distinct = check_twins(module, config)
    # Meaningful only if twins really differ from the truth, at least at the early positions.
    assert distinct * 4 >= checks, f"only {distinct} of {checks} twins differed from the truth"


@pytest.mark.parametrize("module,config", DETERMINIZE_CASES)
def test_samples_are_not_pulled_toward_the_truth(module, config):
    _skip_pending(module)
    qualified = check_truth_independence(module, config)
    total = TRUTH_GAMES * len(FRACTIONS)
    assert 2 * qualified >= total, (
        f"determinize found a world other than the truth at only {qualified} of {total} positions"
    )


# -- the checks fail on broken samplers -------------------------------------------------------


def _patched(monkeypatch: pytest.MonkeyPatch, make: Callable[[Callable], Callable]) -> None:
    state_cls = beasty_bar_v0.GAME.state_cls
    monkeypatch.setattr(state_cls, "determinize", make(state_cls.determinize))


def test_a_shuffle_of_the_true_order_fails_the_twin_check(monkeypatch):
    """The Beasty Bar sampler before issue 16: every opponent's unplayed cards shuffled starting
    from their true order (right distribution, but the seed reveals the order)."""
    from cardzoo.envs.core import make_rng

    def make(original: Callable) -> Callable:
        def shuffled_truth(self, player, rng=None):
            rng = make_rng(rng)
            new = self.clone()
            for q in range(self.num_players):
                if q == player:
                    continue
                hand, aside = self.hands[q], self.set_asides[q]
                pool = hand + aside + self.draws[q]
                pool = [pool[i] for i in rng.permutation(len(pool))]
                h, a = len(hand), len(aside)
                new.hands[q], new.set_asides[q] = pool[:h], pool[h : h + a]
                new.draws[q] = pool[h + a :]
            new.rng = np.random.default_rng(child_seed(rng))
            new._legal = None
            return new

        return shuffled_truth

    _patched(monkeypatch, make)
    with pytest.raises(AssertionError, match="twins gave different samples"):
        check_twins(beasty_bar_v0, {"num_players": 3})


def test_a_sampler_that_keeps_the_truth_half_the_time_fails_the_truth_check(monkeypatch):
    def make(original: Callable) -> Callable:
        def sometimes_truth(self, player, rng=None):
            rng = np.random.default_rng(rng)
            if rng.random() < 0.5:
                return self.clone()
            return original(self, player, rng)

        return sometimes_truth

    _patched(monkeypatch, make)
    with pytest.raises(AssertionError, match="the truth's hidden part came back"):
        check_truth_independence(beasty_bar_v0, {"num_players": 2})


def test_a_sampler_that_returns_the_truth_finds_no_other_world(monkeypatch):
    _patched(monkeypatch, lambda original: lambda self, player, rng=None: self.clone())
    assert check_truth_independence(beasty_bar_v0, {"num_players": 2}) == 0
    checks, distinct = check_twins(beasty_bar_v0, {"num_players": 2})
    assert distinct == 0 < checks


def test_upper_tail():
    assert upper_tail(0, 0) == 1.0
    assert upper_tail(4, 4) == 1 / 16
    assert upper_tail(4, 2) == 11 / 16


# -- known faults outside the cases above -----------------------------------------------------


def test_cubirds_face_down_discards_last_resort_depends_on_the_truth():
    from cardzoo.envs import cubirds_v0

    config = {"num_players": 4, "reveal_round_end_discards": False}
    state = positions(cubirds_v0, config, 5011)["late"]
    twin = state.determinize(0, np.random.default_rng([11, 2, 0, 1]))
    assert twin_mismatch(state, twin, 0, 11) is None
