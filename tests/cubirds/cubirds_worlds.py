"""Helpers of the Cubirds information tests: random games over every option, and an independent
check that a resampled game (``determinize``) agrees with everything its player has seen."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from cardzoo.envs.cubirds import hidden, hidden_exact
from cardzoo.envs.cubirds.data import (
    EV_BATCH,
    EV_CLOSE,
    EV_PUBLIC,
    EV_RESHUFFLE,
    EV_ROUND_END,
    EV_SOURCE,
)
from cardzoo.envs.cubirds.game import CARD_TOTALS, Config, State
from cardzoo.envs.cubirds.hidden_exact import ExactModel
from cubirds_posterior import reference

PLAYER_COUNTS = (2, 3, 4, 5)


def fresh_model(state: State) -> ExactModel:
    """The seat in turn's exact model of ``state``, built afresh (nothing reused from the builds
    kept by earlier tests); it must fit."""
    hidden_exact._BUILT.clear()
    model = ExactModel(state.log, state.current_player, state.num_players)
    assert model.build()
    return model


def replay_serves(state: State, monkeypatch) -> None:
    """With the settings as ``monkeypatch`` left them: the seat in turn's exact model of
    ``state`` does not build, and a ``determinize`` there goes to the replay (once) and agrees
    with everything the seat saw (nothing kept from earlier tests)."""
    hidden_exact._BUILT.clear()
    p = state.current_player
    assert not ExactModel(state.log, p, state.num_players).build()
    monkeypatch.setattr(hidden, "_PLANS", [])
    replays = []
    real = hidden._resample
    monkeypatch.setattr(hidden, "_resample", lambda *a: replays.append(1) or real(*a))
    agrees_with_what_was_seen(state, state.determinize(p, np.random.default_rng(0)), p)
    assert replays == [1]


def config_for(n: int, seed: int) -> Config:
    """Every rule option value appears across seeds."""
    return Config(
        num_players=n,
        draw_after_empty_hand=seed % 3 == 1,
        midturn_exhaustion="partial" if seed % 4 == 3 else "end_game",
        reveal_round_end_discards=seed % 5 not in (2, 4),
        flock_step="always" if seed % 2 else "auto",
    )


def random_states(
    n: int, seed: int, every: int = 1, config: Config | None = None
) -> Iterator[State]:
    """The states of one random game (every ``every``-th decision, and the last one); every
    state's cards add up to the whole deck."""
    state = State(config or config_for(n, seed), seed=seed)
    rng = np.random.default_rng(seed + 7)
    step = 0
    while not state.terminal and state.turn < 1000:
        if step % every == 0:
            assert _totals(state) == CARD_TOTALS
            yield state
        ids = state.legal_move_ids()
        state.apply_id(ids[int(rng.integers(len(ids)))])
        step += 1
    yield state


def _counts(cards: list[int]) -> list[int]:
    out = [0] * 8
    for c in cards:
        out[c] += 1
    return out


def explained_by_its_log(state: State) -> None:
    """Assert that ``state``'s cards are exactly what its own log of unseen draws says.

    Replays the log as the truth: every lay or flock count, every round-end leftover, every pile
    (never negative; its rest is the draw pile), every hand (known cards + hidden draws not laid)
    and, with face-down discards, the discard pile.
    """
    n = state.num_players
    hidden = [[0] * 8 for _ in range(n)]
    pile = [0] * 8
    pending = [[0] * 8 for _ in range(n)]
    for ev in state.log:
        tag = ev[0]
        if tag == EV_SOURCE:
            pile = list(ev[1])
            pending = [[0] * 8 for _ in range(n)]
        elif tag == EV_RESHUFFLE:
            pile = list(ev[1])
            for q in range(n):
                pile = [a + b for a, b in zip(pile, pending[q])]
            pending = [[0] * 8 for _ in range(n)]
        elif tag == EV_BATCH:
            q, counts = ev[1], ev[2]
            pile = [a - b for a, b in zip(pile, counts)]
            hidden[q] = [a + b for a, b in zip(hidden[q], counts)]
        elif tag == EV_PUBLIC:
            pile[ev[1]] -= 1
        elif tag == EV_CLOSE:
            q, s, count = ev[1], ev[2], ev[3]
            assert hidden[q][s] == count, ("a lay or flock count disagrees", ev, hidden[q])
            hidden[q][s] = 0
        else:
            assert tag == EV_ROUND_END
            for q in range(n):
                assert list(ev[1][q]) == hidden[q], ("round-end leftovers disagree", q)
                pending[q] = [a + b for a, b in zip(pending[q], hidden[q])]
            hidden = [[0] * 8 for _ in range(n)]
        assert min(pile) >= 0, ("a pile went negative", ev)
    assert pile == _counts(state.draw), "the draw pile is not what its pile's record leaves"
    for q in range(n):
        assert state.hands[q] == [k + h for k, h in zip(state.known[q], hidden[q])], q
        for s in range(8):
            if state.exact[q][s]:
                assert state.hands[q][s] == state.known[q][s], ("exact flag broken", q, s)
    if not state.config.reveal_round_end_discards:
        discard = list(state.discard_public)
        for q in range(n):
            discard = [a + b for a, b in zip(discard, pending[q])]
            seen = [a + b for a, b in zip(state.discard_public, pending[q])]
            assert list(state.discard_known[q]) == seen, q
        assert state.discard == discard


def agrees_with_what_was_seen(original: State, sample: State, player: int) -> None:
    """Assert that ``sample`` is a game ``player`` cannot tell from ``original``: the same view,
    the same public record and own draws, and cards explained by the sample's own record."""
    assert sample.view(player) == original.view(player)
    assert len(sample.log) == len(original.log)
    for mine, theirs in zip(original.log, sample.log):
        assert mine[0] == theirs[0]
        if mine[0] == EV_BATCH:
            assert mine[1] == theirs[1] and sum(mine[2]) == sum(theirs[2])
            if mine[1] == player:
                assert mine == theirs, "the player's own draws were changed"
        elif mine[0] == EV_ROUND_END:
            assert mine[1][player] == theirs[1][player], "the player's own discards changed"
        else:
            assert mine == theirs, "a public event was changed"
    explained_by_its_log(sample)
    assert _totals(sample) == _totals(original)


def _totals(state: State) -> list[int]:
    """Cards per species over all zones (``CARD_TOTALS`` unless a hand-set partial deck)."""
    totals = [0] * 8
    for zone in state.census().values():
        totals = [a + b for a, b in zip(totals, zone)]
    return totals


def seat_chains(turns: range) -> list:
    """The seat chains of the seat in turn at the positions of one seeded 4-player game whose
    turn is in ``turns`` (wherever its model builds with chains)."""
    from cardzoo.envs.cubirds.hidden_exact import ExactModel

    out = []
    for state in random_states(4, 2, every=2, config=Config(num_players=4)):
        if state.terminal or state.turn not in turns:
            continue
        model = ExactModel(state.log, state.current_player, 4)
        if model.build() and model.seats is not None:
            out.extend(prog for _, prog in model.seats)
    return out


def small_position(seed: int, n: int = 2, piles: int = 1) -> State:
    """The first position of an ``n``-player game (turn >= 3, default options) at which the
    brute-force reference (``cubirds_posterior.reference``) keeps between 3 % and 50 % of its
    tries: small enough for it, large enough to tell samplers apart. ``piles``: at least that
    many draw piles since the last public source."""
    rng = np.random.default_rng(99)
    for state in random_states(n, seed, every=3, config=Config(num_players=n)):
        if state.terminal or state.turn < 3:
            continue
        if piles > 1 and len(ExactModel(state.log, state.current_player, n).piles) < piles:
            continue
        got, tries = reference(state.log, state.current_player, n, rng, 100, 3000)
        if 0.03 <= sum(got.values()) / tries <= 0.5:
            return state
    raise AssertionError("no small position in this game")
