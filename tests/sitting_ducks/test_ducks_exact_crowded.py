"""Five and six players after a reshuffle, sampled exactly (``crowded.py``, the default; off
through ``reshuffled.CROWDED``; issue 16).

Tiny five-player positions one reshuffle in (a 20-card deck of Shoots and Take Aims, forced
discards in one of them) are solved by brute force (``ducks_exact.py``) and the sampler's
frequencies compared with a chi-square test, as in ``test_ducks_exact_reshuffled.py``: both
ways the hands now are drawn (all summed, and by rejection when they are too many to sum).
The replay fails the same check. On seeded six-player games the sampler covers some
post-reshuffle positions, gives the same sample to hidden twins, and every sample is a
world the seat's view allows.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import (
    Config,
    State,
    crowded,
    exact,
    last_split,
    now,
    reshuffled,
    tilted,
)
from cardzoo.envs.sitting_ducks.sampling import resample_hidden
from cardzoo.train.bench_loops import game_moves, game_position, game_positions, random_position
from ducks_exact import exact_posterior
from scipy.stats import chisquare
from test_ducks_exact import _NONE, ALPHA, SAMPLES, counts_of, p_value, played

DECK = _NONE + ",shoot:13,take_aim:7"
#: (game seed, random decisions played): five players, one reshuffle in.
CASES = [(4, 6), (5, 6)]


@pytest.fixture(autouse=True)
def crowded_on(monkeypatch):
    monkeypatch.setattr(reshuffled, "CROWDED", True)
    monkeypatch.setattr(exact, "_CACHE", {})


def case_state(seed: int, decisions: int) -> State:
    state = played(Config(num_players=5, action_deck_counts=DECK), seed, decisions)
    assert any(e[3] is not None for e in state._log[1 : state._log_len])
    return state


#: ``dealt`` matters on the rejection path only (``summed`` False). The batches (4, 128): the
#: vectorized path from the first try (batches of 4 throughout made the rarely accepting
#: dealt case take four minutes). Every seat dealt on the rejection path is checked once, at
#: case 1 with the default batches (one proposal at a time, then batches): at case 0 it took
#: 45 s, and with batches (4, 128) 29 s, for a path the other cases cover.
@pytest.mark.parametrize(
    "seed,decisions,summed,batches,dealt,walk",
    [
        (*CASES[0], True, None, None, False),
        (*CASES[1], True, None, None, False),
        (*CASES[1], True, (4, 128), None, False),
        (*CASES[1], False, None, None, False),
        (*CASES[1], False, (4, 128), None, False),
        (*CASES[1], False, (1, 1, 4, 128), None, True),
        (*CASES[0], False, None, None, False),
        (*CASES[1], False, None, 0.0, False),
    ],
)
def test_five_players_after_a_reshuffle_match_the_brute_force(
    monkeypatch, seed, decisions, summed, batches, dealt, walk
):
    """``summed``: the last step and the hands now swept (``last_split.Staged``), else the last
    step swept alone and the hands now by rejection (``last_split.Swept``); ``batches``:
    the proposals drawn in batches (the vectorized path); ``dealt`` 0: on the rejection path
    every seat's hand now is dealt from what the others left (``now.py``), None: the default
    rule per seat; ``walk``: the last split's rows by a walk back through the seats, not from
    the listed paths (``last_split.MAX_PATHS``)."""
    monkeypatch.setattr(last_split, "MAX_PATHS", 0 if walk else last_split.MAX_PATHS)
    if dealt is not None:
        monkeypatch.setattr(now, "DEALT_AT_LEAST", dealt)
    if summed:  # the hands now summed too (not tried by default)
        monkeypatch.setattr(crowded, "MAX_HAND_WAYS", 200_000)
    else:  # by rejection, however rarely it accepts on these tiny decks
        monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)
    if batches:  # these batches, not those the trial's share would choose (``schedule``)
        monkeypatch.setattr(reshuffled, "BATCHES", batches)
        monkeypatch.setattr(reshuffled, "ADAPTIVE", False)
    state = case_state(seed, decisions)
    player = state.current_player
    post = reshuffled.Posterior(state, player)
    kind = last_split.Staged if summed else last_split.Swept
    assert all(isinstance(c, kind) for c in post.chains)
    if not summed:
        assert all((c.paths is None) == walk for c in post.chains)
    worlds = exact_posterior(state, player)
    assert len(worlds) > 1
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


#: (game seed, random decisions played): five players, two reshuffles in, forced discards.
#: One game (a second one, seed 8, cost 51 s of the suite for the same paths).
TWICE = [(9, 12)]


@pytest.mark.parametrize("summed", [True, False])
@pytest.mark.parametrize("seed,decisions", TWICE)
def test_five_players_two_reshuffles_in_match_the_brute_force(monkeypatch, seed, decisions, summed):
    """Two reshuffles in: the step from the first reshuffle's splits to the last one's, then
    the hands now summed (``Staged``) or by rejection (``Swept``)."""
    if summed:
        monkeypatch.setattr(crowded, "MAX_HAND_WAYS", 200_000)
    else:
        monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)
    state = case_state(seed, decisions)
    assert sum(e[3] is not None for e in state._log[1:]) == 2
    assert any(e[2] is not None for e in state._log[1:])
    player = state.current_player
    kind = last_split.Staged if summed else last_split.Swept
    assert all(isinstance(c, kind) for c in reshuffled.Posterior(state, player).chains)
    worlds = exact_posterior(state, player)
    assert len(worlds) > 20
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


@pytest.mark.parametrize(
    "seed,decisions,summed,closed",
    [(*CASES[1], True, True), (*TWICE[0], False, True), (*TWICE[0], False, False)],
)
def test_seats_summed_in_another_order_match_the_brute_force(
    monkeypatch, seed, decisions, summed, closed
):
    """A position whose usual order passes ``MAX_WAYS`` is summed again in another order
    (``crowded.spread_order``): here the usual order is made to decline and the other one is
    a fixed shuffle of the seats, so that the hands drawn in that order must be put back in
    the seats' order (``last_split.in_seat_order``) for the check to pass. The splits before
    the last reshuffle are summed in the usual order, their columns permuted; where that
    order declines them too (``closed`` False), in the other order (``crowded._closed_for``)."""
    summed_in = crowded._summed
    closed_in = crowded._closed_splits
    closed_orders = []

    def closed_declining(split, seats, keys, memo, order=None):
        closed_orders.append(order)
        if order is None and not closed:
            raise crowded.NotCovered
        return closed_in(split, seats, keys, memo, order)

    monkeypatch.setattr(crowded, "_closed_splits", closed_declining)

    def declining(split, seats, others, keys, memo, order=None, tilt=None):
        if order is None:
            raise crowded.NotCovered
        return summed_in(split, seats, others, keys, memo, order, tilt)

    monkeypatch.setattr(crowded, "_summed", declining)
    monkeypatch.setattr(crowded, "spread_order", lambda seats: [2, 0, 3, 1])
    if summed:
        monkeypatch.setattr(crowded, "MAX_HAND_WAYS", 200_000)
    else:
        monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)
    state = case_state(seed, decisions)
    player = state.current_player
    chains = reshuffled.Posterior(state, player).chains
    kind = last_split.Staged if summed else last_split.Swept
    assert all(isinstance(c, kind) and c.order == (2, 0, 3, 1) for c in chains)
    assert ((2, 0, 3, 1) in closed_orders) == (not closed)
    worlds = exact_posterior(state, player)
    sampled = counts_of(exact.sample, state, player, seed)
    assert p_value(worlds, sampled, SAMPLES) > ALPHA


@pytest.mark.parametrize("spread_first", [True, False])
def test_the_second_order_is_tried_only_after_the_first_declines(monkeypatch, spread_first):
    # Along a seeded six-player game with a small MAX_WAYS and MAX_KEPT (at every decision):
    # the seats are summed first fewest hands per row first (``spread_order``; the usual order
    # first with SPREAD_FIRST off, as before session 26). A sum served in the first order tries
    # no other; some that the first declines are served in the second (their chains say which).
    monkeypatch.setattr(crowded, "MAX_WAYS", 30_000)
    monkeypatch.setattr(crowded, "MAX_KEPT", 30_000)
    monkeypatch.setattr(crowded, "SPREAD_FIRST", spread_first)
    tried: list[tuple] = []
    in_order = crowded._in_order
    spread_of = crowded.spread_order

    def recording(split, seats, keys, memo, order, tilt):
        tried.append(tuple(order))
        return in_order(split, seats, keys, memo, order, tilt)

    monkeypatch.setattr(crowded, "_in_order", recording)
    sums = crowded.last_splits
    calls = []

    def each_sum(split, keys, advance, memo=None, tilt=None):
        tried.clear()
        spreads.clear()
        try:
            found = sums(split, keys, advance, memo, tilt)
        finally:
            calls.append((list(tried), spreads[:1]))
        if found is not None:
            served = found[5] if len(found) == 6 else tuple(range(len(split.others)))
            assert served == tried[-1]
        return found

    monkeypatch.setattr(reshuffled, "last_splits", each_sum)
    spreads: list[tuple] = []

    def spread_recorded(seats):
        spreads.append(tuple(spread_of(seats)))
        return list(spreads[-1])

    monkeypatch.setattr(crowded, "spread_order", spread_recorded)
    config = Config(num_players=6)
    [moves] = game_moves(State, config, 1, 1001)
    state = State(config, seed=1001)
    for move in moves:
        state.apply_id(move)
        if not state.terminal:
            exact._posterior(state, state.current_player)
    usual = tuple(range(5))
    assert calls and all(1 <= len(t) <= 2 for t, _ in calls)
    for t, spread in calls:
        assert t[0] == (spread[0] if spread_first else usual)
        if len(t) == 2:
            assert t[1] == (usual if spread_first else spread[0]) and t[1] != t[0]
    seconds = [t for t, _ in calls if len(t) == 2]
    # (both orders serve somewhere; with SPREAD_FIRST on, one that is not the usual order)
    assert seconds and any(len(t) == 1 and (t[0] != usual or not spread_first) for t, _ in calls)


def _randomly_played(players: int, seed: int, decisions: int) -> State:
    return random_position(State, Config(num_players=players), seed, decisions)


def _assert_samples_keep_the_view(state: State, player: int) -> None:
    for seed in range(10):
        world = state.determinize(player, np.random.default_rng(seed))
        assert world.view(player) == state.view(player)
        assert world.hands[player] == state.hands[player]
        assert len(world.draw) == len(state.draw)
        # The cards the seat has not seen are the same multiset, spread otherwise.
        unseen = [
            sorted(s.draw + [k for q, h in enumerate(s.hands) if q != player for k in h])
            for s in (world, state)
        ]
        assert unseen[0] == unseen[1]


def test_a_position_accepting_under_one_percent_is_sampled_not_replayed(monkeypatch):
    """Five players, seed 1, 142 random decisions, seat 0 to play: two reshuffles in, the hands
    now accept about 0.3 % of the rejection's proposals. The trial (4096 proposals, at least
    1/1024 accepted) serves it, where the trial before session 11 (256 proposals, at least
    1 %) sent it to the replay; its samples come from the rejection's batches (up to 512
    proposals each) and keep the seat's view. (Without ``now.DEAL_LAST_FROM_LEFT``: the pile
    holds two cards there, and since session 42 the last seat's deal from what the others
    leave keeps 2.4 % of the proposals; this test is about the trial.)"""
    monkeypatch.setattr(now, "DEAL_LAST_FROM_LEFT", False)
    state = _randomly_played(5, 1, 142)
    player = state.current_player
    monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.0)
    post = reshuffled.Posterior(state, player)
    assert all(isinstance(c, last_split.Swept) for c in post.chains)
    share = post._proposals(np.random.default_rng(0), reshuffled.TRIAL)[2].mean()
    assert 1 / 1024 <= share < 0.01
    monkeypatch.setattr(reshuffled, "MIN_ACCEPTANCE", 0.01)
    monkeypatch.setattr(reshuffled, "TRIAL", 256)
    monkeypatch.setattr(reshuffled, "TRIAL_PARTS", (32,))
    monkeypatch.setattr(tilted, "fit", lambda post, rebuild: False)  # the first trial alone
    monkeypatch.setattr(reshuffled, "PLAIN_AFTER_TILT", False)
    with pytest.raises(reshuffled.NotCovered):
        reshuffled.Posterior(state, player)
    monkeypatch.undo()
    monkeypatch.setattr(exact, "_CACHE", {})
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    _assert_samples_keep_the_view(state, player)


def test_the_trial_share_sets_the_batches_of_the_draws(monkeypatch):
    """Six players, seed 3, 76 random decisions: the hands now accept under one per cent of the
    proposals (none of the trial's first 32, a few of 256), so the draws come in batches of
    the size ``schedule`` finds cheapest for the trial's share (session 12), not one at a time
    first: the draws cost less by the schedule's own cost model than the fixed schedule's,
    and the schedule, like the sample, is a function of the position (a second build
    agrees)."""
    state = _randomly_played(6, 3, 76)
    player = state.current_player
    post = reshuffled.Posterior(state, player)
    assert all(isinstance(c, last_split.Swept) for c in post.chains)
    accepted = post._proposals(np.random.default_rng(0), 256)[2]  # the trial's first parts
    assert accepted[:32].sum() < reshuffled.MIN_ACCEPTANCE * reshuffled.TRIAL
    share = accepted.mean()
    assert 1 / 1024 <= share < 0.03
    assert post.batches == reshuffled.schedule(share) and post.batches[0] >= 32
    assert reshuffled.Posterior(state, player).batches == post.batches
    made: list[int] = []
    proposals, one = reshuffled.Posterior._proposals, reshuffled.Posterior._one

    def counted(self, rng, k, first=False):
        made.append(k)
        return proposals(self, rng, k, first)

    def counted_one(self, rng):
        made.append(1)
        return one(self, rng)

    def cost() -> float:
        ones = made.count(1)
        batches = [k for k in made if k > 1]
        base, each = reshuffled.BATCH_COST
        return ones * reshuffled.ONE_COST + len(batches) * base + sum(batches) * each

    monkeypatch.setattr(reshuffled.Posterior, "_proposals", counted)
    monkeypatch.setattr(reshuffled.Posterior, "_one", counted_one)
    for seed in range(40):
        post.draw(np.random.default_rng(seed))
    assert made and 1 not in made
    adaptive = cost()
    monkeypatch.setattr(reshuffled, "ADAPTIVE", False)
    fixed = reshuffled.Posterior(state, player)
    assert fixed.batches == reshuffled.BATCHES
    made.clear()
    for seed in range(40):
        fixed.draw(np.random.default_rng(seed))
    assert adaptive < cost()


def test_listed_paths_weigh_what_the_walks_back_draw():
    """``last_split.Swept`` lists the walks back where they are few: at a six-player position
    the listed paths are distinct, their weights add up to each last state's, and rows drawn
    by walking back (``Swept.rows``) come up as often as the listed weights say
    (chi-square); with ``MAX_PATHS`` below their count the walk serves instead."""
    state = _randomly_played(6, 3, 76)
    chain = reshuffled.Posterior(state, state.current_player).chains[0]
    assert isinstance(chain, last_split.Swept) and chain.paths is not None
    paths, weights = last_split._paths(chain.levels, np.diff(chain.cum, prepend=0.0))
    assert len({tuple(p) for p in paths.tolist()}) == len(paths) > 20
    assert np.isclose(weights.sum(), chain.cum[-1])
    rng = np.random.default_rng(5)
    n = 40_000
    u = rng.random((n, len(chain.levels) + 1))
    walked = chain.rows(np.searchsorted(chain.cum, u[:, 0] * chain.cum[-1], "right"), u[:, 1:])
    index = {tuple(p): i for i, p in enumerate(paths.tolist())}
    counts = np.bincount([index[tuple(r)] for r in walked.tolist()], minlength=len(paths))
    expected = weights / weights.sum() * n
    big = expected >= 5
    observed = np.append(counts[big], counts[~big].sum())
    wanted = np.append(expected[big], expected[~big].sum())
    assert chisquare(observed, wanted).pvalue > 1e-4
    assert last_split._path_count(chain.levels) == len(paths)


def test_the_schedule_starts_alone_only_where_most_proposals_are_accepted():
    assert reshuffled.schedule(0.6)[: reshuffled.ALONE] == (1,) * reshuffled.ALONE
    sizes = [reshuffled.schedule(r)[-1] for r in (0.002, 0.01, 0.03, 0.07)]
    assert all(len(reshuffled.schedule(r)) == 1 for r in (0.002, 0.01, 0.03, 0.07))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]


def _made_at_once(m, p, left, hands, packing, done):
    """``crowded._fitting_pairs`` as before session 18: every pair made at once (NotCovered
    past ``MAX_WAYS`` of them), then those whose hand fits kept."""
    way, g = crowded._nonzero_pairs(m, p)
    ok, rest = crowded._take_hands(left, way, g, hands, packing, done)
    return way[ok], g[ok], rest


def _assert_declined_past(monkeypatch, state: State, most: int) -> None:
    """With ``crowded.MAX_WAYS`` at ``most`` and the last sweep's pairs made at once, as
    before session 18, the exact sampler declines the position (the memos emptied before
    and after, so nothing built under the lower limit is kept)."""
    monkeypatch.setattr(crowded, "_MEMOS", {})
    with monkeypatch.context() as m:
        m.setattr(crowded, "MAX_WAYS", most)
        m.setattr(crowded, "_fitting_pairs", _made_at_once)
        with pytest.raises(reshuffled.NotCovered):
            reshuffled.Posterior(state, state.current_player)
    monkeypatch.setattr(crowded, "_MEMOS", {})


def test_a_position_past_the_old_max_ways_is_sampled_not_replayed(monkeypatch):
    """Six players, seed 2, 86 random decisions, seat 5 to play: both seat orders build more
    than 300,000 partial splits in one step (``crowded.MAX_WAYS`` until session 11), not more
    than the 1.2M allowed since, so the exact sampler serves the position."""
    state = _randomly_played(6, 2, 86)
    player = state.current_player
    assert crowded.MAX_WAYS >= 1_200_000
    _assert_declined_past(monkeypatch, state, 300_000)
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    _assert_samples_keep_the_view(state, player)


def test_a_position_past_twice_the_old_max_ways_is_sampled_not_replayed(monkeypatch):
    """Six players, the seeded random game 1003 after 214 decisions (the bench's along games):
    both seat orders build more than 1.2M partial splits in one step (``crowded.MAX_WAYS``
    until session 12), not more than the 2.4M allowed since. There the replay's complete
    search took 9 to 24 s a call; the exact sweep builds in about half a second."""
    state = game_position(State, Config(num_players=6), 1003, 214)
    player = state.current_player
    assert crowded.MAX_WAYS >= 2_400_000
    _assert_declined_past(monkeypatch, state, 1_200_000)
    post = reshuffled.Posterior(state, player)
    assert all(isinstance(c, last_split.Swept) for c in post.chains)
    _assert_samples_keep_the_view(state, player)


def test_a_position_past_max_ways_pairs_made_is_sampled_exactly(monkeypatch):
    """Six players, the seeded random game 1001 after 132 decisions (the bench's along
    games): the last reshuffle's sweep makes 8.2M pairs in one step (3.8M in the retry
    order), more than ``MAX_WAYS``, and keeps 2.4M. With only the fitting pairs made
    (session 18) the position is served exactly, where it went to the replay."""
    state = game_position(State, Config(num_players=6), 1001, 132)
    player = state.current_player
    assert crowded.MAX_KEPT >= 2_400_000
    _assert_declined_past(monkeypatch, state, crowded.MAX_WAYS)
    post = reshuffled.Posterior(state, player)
    assert all(isinstance(c, last_split.Swept) for c in post.chains)
    _assert_samples_keep_the_view(state, player)


def test_a_position_past_6m_pairs_kept_is_sampled_exactly(monkeypatch):
    """Six players, the seeded random game 0 after 170 decisions (``tools/det_along.py``'s
    games): the last reshuffle's sweep keeps 11.8M pairs in one step, more than the 6M of
    ``crowded.MAX_KEPT`` until session 22, not more than the 12M since. Declined at 6M (the
    replay served it), it is now sampled exactly."""
    state = game_position(State, Config(num_players=6), 0, 170)
    player = state.current_player
    assert crowded.MAX_KEPT >= 12_000_000
    monkeypatch.setattr(crowded, "_MEMOS", {})
    with monkeypatch.context() as m:
        m.setattr(crowded, "MAX_KEPT", 6_000_000)
        with pytest.raises(reshuffled.NotCovered):
            reshuffled.Posterior(state, player)
    monkeypatch.setattr(crowded, "_MEMOS", {})
    monkeypatch.setattr(exact, "_CACHE", {})
    _assert_samples_keep_the_view(state, player)  # (builds the posterior once, kept)
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    (post,) = [found for log, found in exact._CACHE.values() if log is state._log]
    assert all(isinstance(c, last_split.Swept) for c in post.chains)


def test_a_closed_step_past_max_ways_pairs_made_is_sampled_exactly(monkeypatch):
    """Six players, the seeded random game 3039 after 168 decisions: the step into the
    reshuffle before the last one makes more than ``MAX_WAYS`` non-zero pairs, most of which
    do not fit. With every pair made first (``FITTING_CLOSED`` off, as before session 44) the
    position is declined, and the replay served it; with only the fitting pairs listed, as the
    last sweep lists them, it is sampled exactly, and the samples are those the old way gives
    with room for all its pairs (the same pairs in the same order: the same sums)."""
    state = game_position(State, Config(num_players=6), 3039, 168)
    player = state.current_player
    assert crowded.FITTING_CLOSED

    def samples(fitting: bool, most: int) -> list | None:
        fresh = game_position(State, Config(num_players=6), 3039, 168)  # (nothing kept)
        with monkeypatch.context() as m:
            m.setattr(crowded, "FITTING_CLOSED", fitting)
            m.setattr(crowded, "MAX_WAYS", most)
            m.setattr(crowded, "_MEMOS", {})
            m.setattr(exact, "_CACHE", {})
            try:
                post = reshuffled.Posterior(fresh, player)
            except reshuffled.NotCovered:
                return None
        assert all(isinstance(c, last_split.Swept) for c in post.chains)
        return [repr(post.draw(np.random.default_rng(k))) for k in range(8)]

    assert samples(False, crowded.MAX_WAYS) is None
    new = samples(True, crowded.MAX_WAYS)
    assert new is not None and len(set(new)) > 1
    assert new == samples(False, 100_000_000)
    _assert_samples_keep_the_view(state, player)


def test_fitting_pairs_are_the_pairs_made_at_once_that_fit(monkeypatch):
    """``crowded._fitting_pairs`` reads the fitting pairs off a table per distinct (row, rest)
    combination: the same pairs, in the same order, with the same rests, as making every
    pair and testing it; in chunks of combinations too; NotCovered past ``MAX_KEPT`` kept."""
    rng = np.random.default_rng(4)
    pool = [2, 1, 3, 0, 2, 1, 0, 1, 2, 0, 1, 0, 1, 0, 1, 0]
    radix = np.cumprod([1] + [c + 1 for c in pool[:-1]]).astype(np.int64)
    packing = (*crowded._packing(pool), radix)
    hands = crowded._COUNTS[2][crowded._fits(pool, 2)].astype(np.int64)
    everything = np.ones(int(radix[-1]) * (pool[-1] + 1), dtype=bool)
    whole = crowded._whole(pool, packing, 60)  # then 60 rests, each one hand taken
    taken = rng.integers(0, len(hands), 60)
    ok, left = crowded._take_hands(whole, np.arange(60), taken, hands, packing, everything)
    assert len(ok) == 60 and len(np.unique(left[:, 1])) < 60  # some rests shared
    done = rng.random(len(everything)) < 0.5
    m = rng.random((30, len(hands))) * (rng.random((30, len(hands))) < 0.4)
    p = rng.integers(0, 30, 60)
    at_once = _made_at_once(m, p, left, hands, packing, done)
    assert 0 < len(at_once[0]) < (m[p] != 0).sum()
    # Read off the table per (row, rest) combination (in one chunk, then in chunks of three
    # combinations), and made at once (a small step, ``MADE_AT_ONCE``).
    for made_at_once, most in ((0, crowded.MAX_WAYS), (0, 3 * len(hands)), (1 << 30, 0)):
        monkeypatch.setattr(crowded, "MADE_AT_ONCE", made_at_once)
        monkeypatch.setattr(crowded, "MAX_WAYS", most or crowded.MAX_WAYS)
        read = crowded._fitting_pairs(m, p, left, hands, packing, done)
        assert all(np.array_equal(a, b) for a, b in zip(at_once, read))
        assert [x.dtype for x in read[:2]] == [np.int32, np.int32]
    for made_at_once in (0, 1 << 30):
        monkeypatch.setattr(crowded, "MADE_AT_ONCE", made_at_once)
        monkeypatch.setattr(crowded, "MAX_KEPT", len(at_once[0]) - 1)
        with pytest.raises(crowded.NotCovered):
            crowded._fitting_pairs(m, p, left, hands, packing, done)
        monkeypatch.setattr(crowded, "MAX_KEPT", len(at_once[0]))
        assert len(crowded._fitting_pairs(m, p, left, hands, packing, done)[0]) == len(at_once[0])


def test_a_position_accepting_under_1_in_1024_is_sampled_not_replayed(monkeypatch):
    """Six players, the seeded random game 1001 after 173 decisions (the bench's along games):
    the hands now accept 1 of the first 4096 proposals of the fixed trial and 11 of 16,384.
    The trial since session 12 (16,384 proposals, at least 1/4096 accepted) serves it; the
    trial of session 11 (4096, at least 1/1024) sent it to the replay. (Counted with the
    rows walked back, ``last_split.MAX_PATHS`` 0: the listed paths read the trial's uniforms
    otherwise, and accept 4 of its first 4096; and in the usual seat order, ``SPREAD_FIRST``
    off: the proposals follow the order the seats are summed in. And without
    ``now.DEAL_LAST_FROM_LEFT``: since session 42 the last seat is dealt from what the others
    leave there, and 62 of 10,240 proposals are kept.)"""
    monkeypatch.setattr(now, "DEAL_LAST_FROM_LEFT", False)
    monkeypatch.setattr(last_split, "MAX_PATHS", 0)
    monkeypatch.setattr(crowded, "SPREAD_FIRST", False)
    state = game_position(State, Config(num_players=6), 1001, 173)
    player = state.current_player
    post = reshuffled.Posterior(state, player)
    assert all(isinstance(c, last_split.Swept) for c in post.chains)
    accepted = post._proposals(np.random.default_rng(0), reshuffled.TRIAL)[2]
    assert accepted[:4096].sum() < 4 and accepted.sum() >= reshuffled.TRIAL / 4096
    assert post.batches[0] >= 256  # one sample takes about 1500 proposals
    with monkeypatch.context() as m:
        m.setattr(reshuffled, "TRIAL", 4096)
        m.setattr(reshuffled, "MIN_ACCEPTANCE", 1 / 1024)
        m.setattr(reshuffled, "TRIAL_PARTS", (32, 256))
        m.setattr(tilted, "fit", lambda post, rebuild: False)  # the first trial alone
        m.setattr(reshuffled, "PLAIN_AFTER_TILT", False)
        with pytest.raises(reshuffled.NotCovered):
            reshuffled.Posterior(state, player)
    monkeypatch.setattr(exact, "_CACHE", {})
    assert exact.sample(state, player, np.random.default_rng(0)) is not None
    _assert_samples_keep_the_view(state, player)


def test_the_five_player_cases_have_forced_discards():
    forced = [e[2] for s, d in CASES for e in case_state(s, d)._log[1:] if e[2] is not None]
    assert forced


def test_the_check_rejects_the_replay_at_five_players():
    state = case_state(*CASES[0])
    player = state.current_player
    worlds = exact_posterior(state, player)
    sampled = counts_of(resample_hidden, state, player, 0)
    assert p_value(worlds, sampled, SAMPLES) < 1e-6


def test_switched_off_five_and_six_players_go_to_the_replay(monkeypatch):
    monkeypatch.setattr(reshuffled, "CROWDED", False)
    state = case_state(*CASES[0])
    with pytest.raises(reshuffled.NotCovered):
        reshuffled.Posterior(state, state.current_player)


#: Six-player positions after reshuffles that the exact sampler covers: (game seed, position).
SIX = [(5, "middle"), (1, "late")]


@pytest.mark.parametrize("seed,position", SIX)
def test_six_players_twins_agree_and_samples_are_consistent(seed, position):
    state = game_positions(State, Config(num_players=6), 1, seed=seed)[position][0]
    assert any(e[3] is not None for e in state._log[1 : state._log_len])
    player = state.current_player
    first = exact.sample(state, player, np.random.default_rng(3))
    assert first is not None
    # A hidden twin (same view, other hidden cards) gets the same sample from the same rng.
    twin = state.determinize(player, np.random.default_rng(11))
    assert twin.hands != state.hands
    assert exact.sample(twin, player, np.random.default_rng(3)) == first
    for seed in range(20):
        world = state.determinize(player, np.random.default_rng(seed))
        assert world.view(player) == state.view(player)
        assert world.hands[player] == state.hands[player]


@pytest.mark.parametrize("mode", ["standard", "hidden"])
def test_the_seats_memo_along_a_game_equals_a_build_from_scratch(monkeypatch, mode):
    """``crowded._Seat`` keeps each seat's closed piles and its last pile's walk per record
    and walks only the new steps: along a seeded five-player game (determinized for the seat
    to play at every decision, as an agent would), every post-reshuffle posterior equals one
    built from scratch (memos cleared), in its weights and its draws; and so does each of
    those positions visited again backwards, with memos of later records."""
    state = State(Config(num_players=5, mode=mode), seed=3)
    pick = np.random.default_rng(3)
    compared = 0
    earlier = []  # clones sharing the record: visited again backwards at the end
    while not state.terminal and compared < 40:
        player = state.current_player
        if any(e[3] is not None for e in state._log[1 : state._log_len]):
            earlier.append(state.clone())
            try:
                carried = reshuffled.Posterior(state, player)
            except reshuffled.NotCovered:  # declined (the trial): so is a build from scratch
                monkeypatch.setattr(crowded, "_MEMOS", {})
                with pytest.raises(reshuffled.NotCovered):
                    reshuffled.Posterior(state, player)
                carried = None
            if carried is None:
                legal = state.legal_move_ids()
                state.apply_id(legal[int(pick.integers(len(legal)))])
                continue
            monkeypatch.setattr(crowded, "_MEMOS", {})
            fresh = reshuffled.Posterior(state, player)
            assert len(carried.chains) == len(fresh.chains)
            for a, b in zip(carried.chains, fresh.chains):
                assert type(a) is type(b)
                assert np.allclose(a.cum, b.cum) and a.log_weight == pytest.approx(b.log_weight)
            draws = [p.draw(np.random.default_rng(compared)) for p in (carried, fresh)]
            assert draws[0] == draws[1]
            compared += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert compared == 40
    monkeypatch.setattr(exact, "_CACHE", {})
    for clone in reversed(earlier):  # the memos now hold later records' walks
        player = clone.current_player
        try:
            carried = reshuffled.Posterior(clone, player).chains
        except reshuffled.NotCovered:
            carried = None
        monkeypatch.setattr(crowded, "_MEMOS", {})
        try:
            fresh = reshuffled.Posterior(clone, player).chains
        except reshuffled.NotCovered:
            fresh = None
        assert (carried is None) == (fresh is None)
        for a, b in zip(carried or [], fresh or []):
            assert np.allclose(a.cum, b.cum) and a.log_weight == pytest.approx(b.log_weight)


def test_taking_a_hand_from_a_packed_rest_is_taking_it_from_the_counts():
    """``crowded._take_hands`` keeps what is left of a reshuffle's multiset packed in one int
    (a guard bit per kind) and as its mixed-radix number: over random multisets of up to 15
    cards and every hand of three cards, a pair is kept exactly when the hand fits and the
    rest is marked done, and the rest it gives is the packed rest and number of the counts."""
    rng = np.random.default_rng(5)
    hands = crowded._COUNTS[3]
    for _ in range(40):
        pool = [0] * 16
        for kind in rng.choice(16, size=int(rng.integers(3, 16)), p=rng.dirichlet(np.ones(16))):
            pool[kind] += 1
        weights, guard = crowded._packing(pool)
        radix = np.cumprod([1] + [c + 1 for c in pool[:-1]]).astype(np.int64)
        done = rng.random(int(radix[-1]) * (pool[-1] + 1)) < 0.7
        left = crowded._whole(pool, (weights, guard, radix), 1)
        col = np.arange(len(hands))
        ok, rest = crowded._take_hands(
            left, np.zeros_like(col), col, hands, (weights, guard, radix), done
        )
        counts = np.array(pool) - hands
        fits = (counts >= 0).all(axis=1)
        want = np.flatnonzero(fits)
        want = want[done[counts[want] @ radix]]
        assert ok.tolist() == want.tolist()
        assert rest[:, 0].tolist() == (counts[want] @ weights).tolist()
        assert rest[:, 1].tolist() == (counts[want] @ radix).tolist()
