"""Piles made of hands thrown away face down, for Cubirds' exact ``determinize``
(:mod:`.hidden_exact`; ``reveal_round_end_discards=False``; session 20).

At a face-down round end every other seat throws its hidden hand away: per species, the total
of its interval of that species still open then. A reshuffle later turns the discard pile into
the draw pile, so that pile holds its public discards, the seat's own thrown-away cards and
those hidden hands. Its content per species is therefore a constant plus a sum of interval
totals: a linear condition in one species, like every other condition of the model. Two things
change in the count (:class:`.hidden_count.Programme`, ``feeds``):

- the pile's condition: its boxes (and what is left of it, if it is the current pile) hold
  exactly that content less the cards the seat saw leave it, which now grows with what the
  feeding intervals' boxes hold (they lie in earlier piles, so they are chosen first);
- its weight: a pile's uniformly random order contributes ``prod_s C[s]!`` (``C``: its whole
  content), a constant while ``C`` is public, not here.

Both stay within one species, so the programme counts them level by level as before. The
per-seat chains with a rejection step do not (yet): such positions take the joint programme
alone, within ``hidden_exact.FED_PILES`` times its limits and ``hidden_exact.FED_CLASSES``
classes (at two players ``FED_DUEL_PILES`` and ``FED_DUEL_CLASSES``), and otherwise the replay
(inexact). Exactness is checked against a brute-force
reference that shuffles such a pile whole
(``tests/cubirds/test_cubirds_exact_posterior.py::test_a_pile_made_of_thrown_away_hands_is_sampled_exactly``).
"""

from __future__ import annotations

from cardzoo.envs.cubirds.data import EV_SOURCE, NUM_SPECIES
from cardzoo.envs.cubirds.hidden_count import TooLarge


def round_end(model, i: int, ev: tuple) -> None:
    """Hands thrown away face down (``ev``: the round end at log index ``i``): every other
    seat's intervals end there with whatever they hold (no requirement: they stay open, ``req =
    -1``, and their cards weigh like any open card) and its next hand starts fresh ones. The
    thrown-away cards feed the next pile if a reshuffle makes one (:func:`new_pile`); the
    others' thrown cards are read for their number only (public: the hands' sizes)."""
    own = tuple(ev[1][model.player])
    ended: list[list[int] | None] = [None] * model.num_players
    for q in range(model.num_players):
        if q != model.player:
            ended[q] = list(model.open[q])
            model._fresh(q)
    model.round_ends.append((i, ended, own))
    size = sum(sum(h) for q, h in enumerate(ev[1]) if q != model.player)
    model._thrown.append((ended, own, size))


def new_pile(model, i: int, tag: int, public: tuple, allowed: float) -> dict:
    """A new pile (a source or a reshuffle with these ``public`` cards, at log index ``i``):
    its tag, where it starts, its content
    (``public``, with the seat's own thrown-away cards), the cards seen to leave it (none yet),
    per species the intervals whose totals it also holds (``feeds``, None: none) and how many
    cards those are (``fed``). TooLarge where hands thrown away face down would feed a source,
    or any pile when ``allowed`` is 0."""
    thrown, model._thrown = model._thrown, []
    content, feeds = list(public), None
    if thrown:
        if tag == EV_SOURCE or not allowed:
            raise TooLarge("face-down round-end discards in a reshuffled pile")
        feeds = [{iv[s] for ended, _, _ in thrown for iv in ended if iv} for s in range(8)]
        content = [c + sum(own[s] for _, own, _ in thrown) for s, c in enumerate(content)]
    fed = sum(size for _, _, size in thrown)
    known = [0] * NUM_SPECIES
    return {"tag": tag, "at": i, "public": content, "known": known, "feeds": feeds, "fed": fed}


def fed_intervals(piles: list[dict]) -> set[int]:
    """The intervals whose totals some pile holds (they keep their own label in the boxes)."""
    return {iv for p in piles if p["feeds"] for ivs in p["feeds"] for iv in ivs}
