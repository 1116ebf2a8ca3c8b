"""Session 8: the walks through the current pile keep only their live rows, and
``now.propose_many`` draws per distinct row; same samples as the paths they replace.

- ``now.propose_many`` draws a seat's hand from the rows it keeps (``LastStep.pick``, each
  row's cumulative weights made once, since session 12 all in one sorted array) instead of a
  (proposals x hands) array: the same hands and acceptances as comparing every proposal with
  its own row's cumulative weights.
- The walks through the current pile (one row per candidate hand at the last reshuffle) keep
  only the rows still alive (``walks.walk_rows``, ``crowded._Seat``, ``now.LastStep`` with
  ``live``): the same weights (up to rounding) and samples as walking every row.
"""

from __future__ import annotations

import numpy as np
import pytest
from cardzoo.envs.sitting_ducks import Config, State, crowded, exact, now, reshuffled, walks
from cardzoo.envs.sitting_ducks.data import NUM_KINDS
from cardzoo.envs.sitting_ducks.exact import _HANDS


def _lasts(rng: np.random.Generator, sizes: list[int], unseen: np.ndarray) -> list:
    """``now.LastStep`` per seat from random sparse weights (some rows all zero)."""
    out = []
    for size in sizes:
        b = rng.random((12, len(_HANDS[size].hands)))
        b[b < 0.6] = 0.0
        flat = rng.random(12) < 0.4  # nearly as dealt: these rows are dealt
        b[flat] = _HANDS[size].orders * rng.uniform(0.8, 1.0, (flat.sum(), b.shape[1]))
        b[rng.random(12) < 0.2] = 0.0
        out.append(now.LastStep(b, size, unseen))
    now.link(out)
    return out


def _reference(lasts, rows, unseen, log_falling, u):
    """``propose_many`` with each proposal compared with its own row's cumulative weights
    (the path before session 8), as (ids of the accepted proposals, acceptances)."""
    saved = now._drawn_hands

    def per_proposal(lasts, rows, u, log_falling):
        n, m = rows.shape
        dealt = np.stack([last.dealt[rows[:, i]] for i, last in enumerate(lasts)], axis=1)
        ids = np.zeros((n, m), dtype=np.int64)
        held = np.zeros((n, m, NUM_KINDS), dtype=np.int64)
        for i, last in enumerate(lasts):
            drawn = np.flatnonzero(~dealt[:, i])
            cum = np.cumsum(last.b[rows[drawn, i]] * last.falling, axis=1)
            x = u[drawn, i] * cum[:, -1]
            h = np.minimum((cum <= x[:, None]).sum(axis=1), cum.shape[1] - 1)
            ids[drawn, i] = h
            held[drawn, i] = _HANDS[last.size].counts[h]
        own = log_falling[np.arange(NUM_KINDS), held].sum(axis=(1, 2))
        return dealt, ids, held.sum(axis=1), own

    now._drawn_hands = per_proposal
    try:
        return now.propose_many(lasts, rows, unseen, log_falling, u)
    finally:
        now._drawn_hands = saved


def test_propose_many_draws_the_same_hands_from_rows_made_once(monkeypatch):
    """Same hands and acceptances as the per-proposal comparison, for several seat counts and
    dealt/drawn mixes, also when called again (the rows kept by the first call serve the
    second); a row's cumulative weights are made once (``LastStep._add`` and ``_add_one``, for
    a row drawn from alone, never see a row twice) and only for rows drawn from."""
    added: list[tuple[int, int]] = []
    add = now.LastStep._add

    def record(self, rows):
        added.extend((id(self), int(r)) for r in rows)
        return add(self, rows)

    add_one = now.LastStep._add_one

    def record_one(self, row):
        added.append((id(self), int(row)))
        return add_one(self, row)

    monkeypatch.setattr(now.LastStep, "_add", record)
    monkeypatch.setattr(now.LastStep, "_add_one", record_one)
    for seed in range(6):
        added.clear()
        rng = np.random.default_rng(seed)
        unseen = rng.integers(2, 6, NUM_KINDS).astype(np.int64)
        sizes = [3, 2, 3, 3][: 2 + seed % 3]
        lasts = _lasts(rng, sizes, unseen.astype(float))
        m = len(lasts)
        live = [np.flatnonzero(last.bound > 0) for last in lasts]
        log_falling = reshuffled.log_falling(unseen.tolist())
        for _ in range(2):
            rows = np.stack([rng.choice(r, 64) for r in live], axis=1)
            u = rng.random((64, now.uniforms(m)))
            want_ids, want_ok = _reference(lasts, rows, unseen, log_falling, u)
            got_ids, got_ok = now.propose_many(lasts, rows, unseen, log_falling, u)
            assert np.array_equal(got_ok, want_ok) and got_ok.any()
            assert np.array_equal(got_ids[got_ok], want_ids[got_ok])
            for i, last in enumerate(lasts):  # one at a time: the same hands as in a batch
                for k in range(8):
                    if not last.dealt[rows[k, i]]:
                        assert last.pick_one(int(rows[k, i]), u[k, i]) == got_ids[k, i]
        for last in lasts:
            drawn = {int(r) for r in np.flatnonzero(last._slot >= 0)}
            assert drawn and not any(last.dealt[r] for r in drawn)
        assert added and len(added) == len(set(added))


def test_propose_many_first_marks_the_first_accepted_proposal_alone():
    """``first=True`` (what a draw asks for) marks only the proposal that is accepted first
    without it, with the same hands there, for dealt/drawn mixes and batches where none or
    several are accepted; no seat dealt anywhere takes the path without dealing."""
    for seed in range(12):
        rng = np.random.default_rng(100 + seed)
        unseen = rng.integers(2, 6, NUM_KINDS).astype(np.int64)
        sizes = [3, 2, 3, 3][: 2 + seed % 3]
        lasts = _lasts(rng, sizes, unseen.astype(float))
        if seed % 4 == 3:  # no row dealt: every seat drawn
            for last in lasts:
                last.dealt[:] = False
            lasts[0]._kept.any_dealt = False
        m = len(lasts)
        live = [np.flatnonzero(last.bound > 0) for last in lasts]
        log_falling = reshuffled.log_falling(unseen.tolist())
        seen = set()
        for k in (1, 4, 16, 64):
            rows = np.stack([rng.choice(r, k) for r in live], axis=1)
            u = rng.random((k, now.uniforms(m)))
            all_ids, all_ok = now.propose_many(lasts, rows, unseen, log_falling, u)
            ids, ok = now.propose_many(lasts, rows, unseen, log_falling, u, first=True)
            assert ok.sum() == min(1, all_ok.sum())
            if ok.any():
                at = int(np.argmax(all_ok))
                assert ok[at] and np.array_equal(ids[at], all_ids[at])
                seen.add(bool(lasts[0]._kept.dealt[rows[at] + lasts[0]._kept.offsets].any()))
        assert seed % 4 == 3 or seen  # something accepted in every setting


def test_walk_rows_keeps_the_live_rows_of_the_walk_from_the_start():
    """Extended step by step, the kept walk holds exactly the rows of the whole walk that are
    not all zero, with their weights and factor; other steps or another origin start afresh."""
    memo: dict = {}
    rows = np.arange(0, 816, 7)
    start = reshuffled._start(rows, 3)
    steps = [(0, None), None, (5, None), None, (5, None), None, (2, None), None]
    dropped = False
    for cut in range(len(steps) + 1):
        v, live, size, scale = walks.walk_rows(memo, ("last", 0), start, steps[:cut], 0, 1)
        full, size2, scale2 = walks.advance(*start(), steps[:cut], 0)
        alive = np.flatnonzero(full.any(axis=1))
        assert size == size2 and scale == pytest.approx(scale2)
        assert np.array_equal(live, alive) and v.any(axis=1).all()
        assert np.allclose(v, full[alive], rtol=1e-12, atol=0.0)
        dropped |= len(live) < len(rows)
    assert dropped
    for origin, other in [(2, steps), (1, [(7, None), None])]:
        v, live, _, _ = walks.walk_rows(memo, ("last", 0), start, other, 0, origin)
        full = walks.advance(*start(), other, 0)[0]
        assert np.array_equal(live, np.flatnonzero(full.any(axis=1)))
        assert np.allclose(v, full[live], rtol=1e-12, atol=0.0)


def test_last_step_over_live_rows_equals_the_last_step_over_every_row():
    rng = np.random.default_rng(7)
    unseen = rng.integers(1, 5, NUM_KINDS).astype(float)
    for size in (2, 3):
        b = rng.random((40, len(_HANDS[size].hands)))
        b[b < 0.5] = 0.0
        b[::3] = _HANDS[size].orders  # dealt rows
        b[rng.random(40) < 0.4] = 0.0
        live = np.flatnonzero(b.any(axis=1))
        full, kept = now.LastStep(b, size, unseen), now.LastStep(b[live], size, unseen, live, 40)
        for name in ("norm", "dealt", "bound", "safe"):
            assert np.allclose(getattr(kept, name), getattr(full, name), rtol=1e-12, atol=0.0)
        assert kept.dealt.any() and (~kept.dealt[live]).any()
        x = rng.random((50, len(live)))
        alone = now.LastStep(b[live], size, unseen, live, 40)  # rows kept one at a time first
        for k, row in enumerate(live.tolist()):
            assert alone.pick_one(row, x[0, k]) == full.pick(live[k : k + 1], x[0, k : k + 1])[0]
        assert np.array_equal(alone.pick(live, x[1]), full.pick(live, x[1]))
        for k in range(50):  # every live row drawn from alike, alone or many at once
            assert np.array_equal(kept.pick(live, x[k]), full.pick(live, x[k]))
            row = int(live[k % len(live)])
            assert kept.pick_one(row, x[k, 0]) == full.pick_one(row, x[k, 0])
        assert len(set(kept.pick(live[:1].repeat(50), x[:, 0]).tolist())) > 5
        hands = rng.integers(0, len(_HANDS[size].hands), len(live))
        assert np.allclose(kept.phi(live, hands), full.phi(live, hands), rtol=1e-12, atol=0.0)


def _every_row(v, live):
    return v, live


@pytest.mark.parametrize(
    "n,mode,seed,first,filled",
    [(3, "standard", 1, 0, 0), (4, "hidden", 2, 0, 0), (6, "standard", 5, 40, 0)]
    + [(6, "standard", 5, 40, 3)],
)
def test_live_rows_sample_as_every_row_along_a_game(monkeypatch, n, mode, seed, first, filled):
    """Along a seeded game (determinize for the seat to play at every decision, as an agent
    does), every posterior after a reshuffle built from the live rows only has the weights (up
    to rounding) and the samples of one built walking every row (``live_rows`` switched off,
    the path before session 8). ``filled``: other records' memos already kept, so the seats'
    memos are dropped at other moments (session 9: then a six-player position was built from
    scratch on both paths, where a seat's deal rate was exactly ``now.DEALT_AT_LEAST`` and the
    summation order chose dealt on one path, drawn on the other; ``now.TIE_SLACK``)."""
    from test_ducks_walks import _fingerprint, _same

    others = [[i] for i in range(filled)]  # kept alive: their memos stay until a clear
    monkeypatch.setattr(crowded, "_MEMOS", {(id(r), 0, 0): (r, {}) for r in others})
    dropped = []
    live_rows = walks.live_rows

    def counting(v, live):
        out = live_rows(v, live)
        dropped.append(len(out[1]) < len(live))
        return out

    monkeypatch.setattr(walks, "live_rows", counting)
    state = State(Config(num_players=n, mode=mode), seed=seed)
    pick = np.random.default_rng(seed)
    compared = 0
    for turn in range(400):
        if state.terminal or compared == 12:
            break
        if turn >= first and any(e[3] is not None for e in state._log[1 : state._log_len]):
            player = state.current_player
            kept = _fingerprint(_posterior(state, player))
            with monkeypatch.context() as m:
                for module, name in [(walks, "_RECORDS"), (crowded, "_MEMOS")]:
                    m.setattr(module, name, {})
                m.setattr(reshuffled, "_PREFIXES", {})
                m.setattr(walks, "live_rows", _every_row)
                _same(kept, _fingerprint(_posterior(state, player)))
            compared += 1
        legal = state.legal_move_ids()
        state.apply_id(legal[int(pick.integers(len(legal)))])
    assert compared == 12 and any(dropped)


def _posterior(state: State, player: int):
    try:
        return exact._posterior(state, player)
    except reshuffled.NotCovered:
        return None


def _first_hand_past(last: now.LastStep, row: int, x: float) -> int:
    """The hand a uniform ``x`` draws from ``row`` counted in full: every hand's cumulative
    share cut to the grid, the first above ``x`` (the way before session 23)."""
    grid = last._kept.grid
    cum = np.cumsum(last._b(row) * last.falling)
    cum = np.floor(cum / (cum[-1] if cum[-1] > 0 else 1.0) * grid) / grid
    found = int(np.searchsorted(cum, np.floor(x * grid) / grid, "right"))
    return min(found, len(cum) - 1)


def test_rows_kept_without_their_empty_hands_draw_the_hands_counted_in_full():
    """Session 23: a kept row holds only the hands whose share is not 0 (and its last one).
    Rows where most hands weigh 0, or all of them, draw for every uniform (boundaries and
    their neighbours too) the hand the full row draws, in batches and one by one."""
    rng = np.random.default_rng(5)
    unseen = rng.integers(1, 5, NUM_KINDS).astype(float)
    b = rng.random((60, len(_HANDS[3].hands))) * (rng.random((60, len(_HANDS[3].hands))) < 0.05)
    b[7] = 0.0  # a row no hand can come from
    b[8, -1] = 0.0  # ... and rows whose first or last hand weighs 0
    b[9, 0] = 0.0
    last = now.LastStep(b, 3, unseen)
    rows = np.arange(60)
    last.pick(rows, rng.random(60))
    kept = last._kept
    assert kept.used < b.size // 5  # the empty hands were left out
    for row in (3, 7, 8, 9, 41):
        slot = int(last._slot[row])
        shares = kept.flat[kept.start[slot] : kept.last[slot] + 1] - slot
        x = np.concatenate([shares, np.nextafter(shares, 0.0), rng.random(30), [0.0]])
        x = x[(x >= 0.0) & (x < 1.0)]
        want = [_first_hand_past(last, row, v) for v in x]
        assert last.pick(np.full(len(x), row), x).tolist() == want
        assert [last.pick_one(row, v) for v in x] == want


def test_the_hand_drawn_does_not_depend_on_the_rows_kept_before():
    """A row's slot in the kept array depends on which rows were drawn from before it (the
    history of calls at a position); the hand drawn for a uniform must not. Shares and
    uniforms are cut to a grid fine enough that a slot plus either is exact, so two steps that
    kept their rows in opposite orders draw alike, also for uniforms on or next to a boundary
    between two hands (where a slot's rounding would otherwise decide)."""
    rng = np.random.default_rng(11)
    unseen = rng.integers(1, 5, NUM_KINDS).astype(float)
    b = rng.random((700, len(_HANDS[3].hands))) ** 8  # weights of very different sizes
    forward, backward = now.LastStep(b, 3, unseen), now.LastStep(b, 3, unseen)
    rows = np.arange(700)
    forward.pick(rows, rng.random(700))
    backward.pick(rows[350:], rng.random(350))  # the later rows kept first
    backward.pick(rows[:350], rng.random(350))
    assert forward._slot[5] == 5 and backward._slot[5] == 355
    kept = forward._kept
    for row in (5, 350, 694):
        slot = int(forward._slot[row])
        # The row's boundaries between hands (session 23: only hands whose share is not 0).
        shares = kept.flat[kept.start[slot] : kept.last[slot] + 1] - slot
        cuts = shares[rng.choice(len(shares), 40)]
        x = np.concatenate([cuts, np.nextafter(cuts, 0.0), np.nextafter(cuts, 1.0)])
        x = x[(x >= 0.0) & (x < 1.0)]
        at = np.full(len(x), row)
        assert np.array_equal(forward.pick(at, x), backward.pick(at, x))
        assert [forward.pick_one(row, v) for v in x] == [backward.pick_one(row, v) for v in x]


@pytest.mark.parametrize("seed", range(4))
def test_dealt_hands_one_by_one_match_the_arrays(monkeypatch, seed):
    """Session 13: a batch that keeps few proposals past the first acceptance deals their
    dealt seats' hands one by one in Python lists (``now._deal_lists``); the same hands and
    acceptances as the arrays' path for the same uniforms, with several dealt seats."""
    rng = np.random.default_rng(seed)
    unseen = rng.integers(2, 6, NUM_KINDS).astype(np.int64)
    lasts = _lasts(rng, [3, 2, 3, 3, 2][: 3 + seed % 3], unseen.astype(float))
    m = len(lasts)
    live = [np.flatnonzero(last.bound > 0) for last in lasts]
    log_falling = reshuffled.log_falling(unseen.tolist())
    dealt_seen = 0
    for _ in range(3):
        rows = np.stack([rng.choice(r, 256) for r in live], axis=1)
        u = rng.random((256, now.uniforms(m)))
        got = {}
        for one_by_one in (0, 10**6):
            monkeypatch.setattr(now, "DEAL_ONE_BY_ONE", one_by_one)
            got[one_by_one] = now.propose_many(lasts, rows, unseen, log_falling, u)
        (ids_a, ok_a), (ids_l, ok_l) = got[0], got[10**6]
        assert np.array_equal(ok_a, ok_l) and ok_a.any()
        assert np.array_equal(ids_a[ok_a], ids_l[ok_l])
        dealt = np.stack([last.dealt[rows[:, i]] for i, last in enumerate(lasts)], axis=1)
        dealt_seen += int((dealt[ok_a].sum(axis=1) >= 2).sum())
    assert dealt_seen > 0


def test_drawn_hands_count_the_drawn_seats_alone():
    """``now._drawn_hands`` sums the drawn seats' hands (packed, one sum) and their
    ``log (U_k)_(H[k])``; a dealt seat adds nothing, also where the hand its id 0 stands for is
    impossible (one card of kind 0 unseen: that hand's log is -inf, and a product with a zero
    mask would give NaN and turn the proposal down)."""
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(4):
        unseen = rng.integers(2, 6, NUM_KINDS).astype(np.int64)
        unseen[0] = 1
        lasts = _lasts(rng, [3, 2, 3, 3], unseen.astype(float))
        log_falling = reshuffled.log_falling(unseen.tolist())
        live = [np.flatnonzero(last.bound > 0) for last in lasts]
        rows = np.stack([rng.choice(r, 128) for r in live], axis=1)
        u = rng.random((128, now.uniforms(len(lasts))))
        dealt, ids, s, own = now._drawn_hands(lasts, rows, u, log_falling)
        for p in range(128):
            want_s = np.zeros(NUM_KINDS, dtype=np.int64)
            want_own = 0.0
            for i, last in enumerate(lasts):
                assert dealt[p, i] == last.dealt[rows[p, i]]
                if dealt[p, i]:
                    continue
                counts = _HANDS[last.size].counts[ids[p, i]]
                want_s += counts
                want_own += log_falling[np.arange(NUM_KINDS), counts].sum()
            assert np.array_equal(s[p], want_s)
            assert np.isfinite(own[p]) and own[p] == pytest.approx(want_own)
            checked += bool(dealt[p].any())
    assert checked > 50
