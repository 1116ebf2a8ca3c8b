"""Small hand-made Cubirds logs and the checks the several-pile tests share (session 16)."""

from __future__ import annotations

from collections import Counter

from cardzoo.envs.cubirds.data import EV_BATCH, EV_CLOSE, EV_RESHUFFLE, EV_ROUND_END, EV_SOURCE
from cardzoo.envs.cubirds.hidden_group import RestOfPile
from scipy.stats import chi2_contingency


def sole_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view): the source's unseen cards all go to seat 2
    (one box, alone in that pile), then a reshuffle; seats 1 and 2 draw from the new pile, seat
    2 reveals a count over both piles, and two cards of the new pile are left."""
    z = (0,) * 5
    return [
        (EV_SOURCE, (2, 2, 2, *z)),
        (EV_BATCH, 2, (0, 0, 4, *z)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 0, (0, 1, 1, *z)),
        (EV_RESHUFFLE, (1, 2, 1, 1, 2, 0, 0, 0)),
        (EV_BATCH, 1, (0, 0, 3, *z)),
        (EV_BATCH, 2, (0, 0, 1, *z)),
        (EV_CLOSE, 2, 1, 1),
        (EV_BATCH, 2, (0, 0, 1, *z)),
    ]


def emptied_pile_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view) whose only pile was drawn to its end: seats 1
    and 2 draw 4 and 5 of its 12 cards, seat 0 the last 3, and seat 1 reveals one card of
    species 0 (session 22: nothing is left of the pile)."""
    z = (0,) * 4
    return [
        (EV_SOURCE, (3, 3, 3, 3, *z)),
        (EV_BATCH, 1, (0, 0, 4, 0, *z)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 2, (0, 0, 5, 0, *z)),
        (EV_BATCH, 0, (0, 1, 1, 1, *z)),
        (EV_CLOSE, 1, 0, 1),
    ]


def one_pile_rest_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view) with one pile and two of its 12 cards left:
    seat 1 draws 3, reveals two cards of species 0 and draws 1 more (two boxes), seat 2 draws
    4 (one box), seat 0 draws 2 (session 28: the one-pile tail)."""
    z = (0,) * 4
    return [
        (EV_SOURCE, (3, 3, 3, 3, *z)),
        (EV_BATCH, 1, (0, 0, 3, 0, *z)),  # hidden draws carry a size only: species are not read
        (EV_CLOSE, 1, 0, 2),
        (EV_BATCH, 1, (0, 0, 1, 0, *z)),
        (EV_BATCH, 2, (0, 0, 4, 0, *z)),
        (EV_BATCH, 0, (0, 1, 1, 0, *z)),
    ]


def two_pile_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view) with a reshuffle since its source: seats 1
    and 2 draw from both piles, and each reveals a count by an interval spanning the
    reshuffle (seat 2's) or ending before it (seat 1's)."""
    z = (0,) * 5
    return [
        (EV_SOURCE, (2, 2, 2, *z)),
        (EV_BATCH, 1, (0, 0, 2, *z)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 2, (0, 0, 2, *z)),
        (EV_BATCH, 0, (0, 1, 1, *z)),
        (EV_CLOSE, 1, 0, 1),
        (EV_RESHUFFLE, (1, 2, 1, 1, 1, 0, 0, 0)),
        (EV_BATCH, 1, (0, 0, 2, *z)),
        (EV_BATCH, 2, (0, 0, 1, *z)),
        (EV_CLOSE, 2, 1, 1),
        (EV_BATCH, 2, (0, 0, 2, *z)),
    ]


def four_seat_log() -> list[tuple]:
    """A hand-made 4-player log (seat 0's view) with a reshuffle since its source: seats 2 and
    3 draw the rest of the source pile, seat 3 reveals a count there, then seats 1 and 2 draw
    from the new pile and two of its cards are left."""
    z = (0,) * 4
    return [
        (EV_SOURCE, (2, 2, 2, 2, *z)),
        (EV_BATCH, 0, (0, 1, 1, 1, *z)),
        (EV_BATCH, 2, (0, 0, 2, *z, 0)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 3, (0, 0, 3, *z, 0)),
        (EV_CLOSE, 3, 0, 1),
        (EV_RESHUFFLE, (1, 2, 1, 1, 1, 0, 0, 0)),
        (EV_BATCH, 1, (0, 0, 2, *z, 0)),
        (EV_BATCH, 2, (0, 0, 2, *z, 0)),
    ]


def face_down_log() -> list[tuple]:
    """A hand-made 2-player log (seat 0's view) where a reshuffle makes a pile of the hands
    thrown away face down: seat 1 draws 2 cards and throws them away with seat 0's 2 (a round
    end), draws 2 more from the source, then the discard pile (those 4 cards and one public
    card) becomes the draw pile; seat 0 draws 2 of it, seat 1 draws 1 and reveals a count over
    its hand. Seat 1's leftovers in the round end are read only for their number."""
    z = (0,) * 5
    return [
        (EV_SOURCE, (2, 2, 2, *z)),
        (EV_BATCH, 1, (0, 0, 2, *z)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 0, (1, 0, 1, *z)),
        (EV_ROUND_END, ((1, 0, 1, *z), (0, 2, 0, *z)), (1, 0, 1, *z)),
        (EV_BATCH, 1, (0, 0, 2, *z)),
        (EV_RESHUFFLE, (0, 1, 0, *z)),
        (EV_BATCH, 0, (0, 1, 1, *z)),
        (EV_BATCH, 1, (0, 0, 1, *z)),
        (EV_CLOSE, 1, 1, 1),
    ]


def face_down_three_log() -> list[tuple]:
    """A hand-made 3-player log (seat 0's view) where the pile made of thrown-away hands must
    hold what seat 0 drew of it: two cards of species 1, of which neither the public discards
    nor seat 0's own thrown-away cards hold any (so the other seats threw both away). Seat 2
    reveals a count before the round end, seat 1 one after the reshuffle."""
    z = (0,) * 4
    return [
        (EV_SOURCE, (3, 3, 2, 2, *z)),
        (EV_BATCH, 1, (0, 0, 3, *z, 0)),  # hidden draws carry a size only: species are not read
        (EV_BATCH, 2, (0, 0, 2, *z, 0)),
        (EV_BATCH, 0, (1, 0, 1, *z, 0)),
        (EV_CLOSE, 2, 3, 1),
        (EV_ROUND_END, ((1, 0, 1, *z, 0), (0, 3, 0, *z, 0), (0, 1, 0, *z, 0)), (0,) * 8),
        (EV_BATCH, 1, (0, 0, 2, *z, 0)),
        (EV_BATCH, 2, (0, 0, 1, *z, 0)),
        (EV_RESHUFFLE, (0, 0, 0, 1, *z)),
        (EV_BATCH, 0, (0, 2, 0, *z, 0)),
        (EV_BATCH, 1, (0, 0, 2, *z, 0)),
        (EV_CLOSE, 1, 0, 2),
        (EV_BATCH, 2, (0, 0, 1, *z, 0)),
    ]


def p_value(a: Counter, b: Counter, read) -> float:
    """A chi-square test of two samples on what ``read`` takes of each (1.0 if constant)."""
    da: Counter = Counter()
    db: Counter = Counter()
    for key, c in a.items():
        da[read(key)] += c
    for key, c in b.items():
        db[read(key)] += c
    keys = sorted(set(da) | set(db))
    if len(keys) < 2:
        return 1.0
    return chi2_contingency([[da[k] for k in keys], [db[k] for k in keys]])[1]


def every_split(pile: list[int], members: list[RestOfPile]) -> list[tuple]:
    """Every split of ``pile`` among members of the given sizes (brute force)."""
    out: list[tuple] = []

    def rec(i: int, left: list[int], done: tuple) -> None:
        if i == len(members):
            if not any(left):
                out.append(done)
            return
        for content in members[i].contents(left):
            rest = [a - v for a, v in zip(left, content)]
            if min(rest) >= 0:
                rec(i + 1, rest, (*done, content))

    rec(0, list(pile), ())
    return out


def worst_p_value(a: Counter, b: Counter) -> float:
    """The smallest p-value of a chi-square test over every other seat and species' hidden
    count and every species' count left in the pile, Bonferroni-corrected."""
    seats = len(next(iter(a))[0])
    places = [(i, s) for i in range(seats + 1) for s in range(8)]
    got = [p_value(a, b, lambda key, i=i, s=s: (key[0] + (key[1],))[i][s]) for i, s in places]
    return min(got) * len(places)


def sampled_worlds(model, rng, count: int) -> Counter:
    """``count`` samples of a 3-player ``ExactModel`` (seat 0's view): the other seats' hidden
    counts and the draw pile's, as ``reference`` keys them."""
    got: Counter = Counter()
    for _ in range(count):
        hid, draw = model.sample(rng)[:2]
        got[(tuple(tuple(h) for h in hid[1:]), tuple(draw))] += 1
    return got
