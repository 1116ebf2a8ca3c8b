"""Cubirds' rejection step in batches (:mod:`.hidden_reject`): where it keeps few proposals,
many are drawn at once with NumPy, every seat's chain stepped for all of them together.

With nothing pinned (no pile split among its seats, no tail, no fed pile, no capped box), a
proposal is every other seat's boxes drawn from its own chain
(:class:`.hidden_chain.SeatChain`); it is kept with probability ``prod_s h_s(T_s) / max``
(:meth:`.hidden_reject.Rejection._log_keep_last`, ``T``: what it took from the last pile) if
its boxes in each pile drawn to its end took exactly what that pile held, else never. The
scalar loop costs about 25 us a proposal in Python; where the rejection keeps one proposal in
ten or fewer, a call pays for ten or more of them. Here each chain is laid out level by level
(step ``r`` of a seat: its states, each state's choices with their cumulative weights
normalised to 1 and offset by the state's index, so that one ``searchsorted`` picks a choice
for every proposal at once), and the seats' levels of the same step are concatenated, so that
one round of a few NumPy calls steps every seat of every proposal in the batch. The open cards
of a box are drawn the same way from the species' cumulative tilts. With several piles (since
session 41) each step's counts are also summed pile by pile, one small matrix product. A batch
keeps the first proposal (in its order) that passes the keep step, which makes each call's
sample a draw from the same distribution as the scalar loop's (a proposal's fate does not
depend on the others'); the generator is consumed differently, so the samples differ from the
scalar loop's for the same seed.

Where it serves is fixed when the model is built (``wanted``): the pilot that decided the
sampler (a fixed seed) must have kept fewer than ``BATCH_BELOW`` of its proposals. A function
of the seat's information, as every choice of sampler is.
"""

from __future__ import annotations

import math

import numpy as np
from cardzoo.envs.cubirds.data import NUM_SPECIES

#: Proposals drawn at once (measured at the bench's dearest five-player position, session 40).
BATCH = 32
#: The pilot's kept share below which batches serve (0: never).
BATCH_BELOW = 0.125
#: Several piles too (session 41; False: one pile alone, as in session 40).
SEVERAL_PILES = True


def wanted(model) -> BatchSampler | None:
    """A batch sampler for ``model``'s rejection step where it applies and its pilot kept fewer
    than ``BATCH_BELOW`` of its proposals, else None."""
    if not BATCH_BELOW or model.seats is None or (len(model.piles) > 1 and not SEVERAL_PILES):
        return None
    if any(getattr(model, a, None) is not None for a in ("pin", "pile_pin", "tail", "fed_last")):
        return None
    if any(sfx is not None for _, prog in model.seats for sfx in prog.open_sfx):
        return None
    outcomes = model.__dict__.get("_pilots", {}).get(model.sampler_key())
    if not outcomes or not outcomes[0] or sum(outcomes[0]) >= BATCH_BELOW * len(outcomes[0]):
        return None
    return BatchSampler(model)


def _levels(prog) -> list[tuple]:
    """A chain level by level from its root: per step, per choice (state by state) its
    normalised cumulative weight offset by its state's index, the last choice of each state,
    the closed species' counts, the open cards, and the state it leads to (an index into the
    next level's states)."""
    out = []
    frontier = [prog.memo[(prog.ids[0], (0,) * NUM_SPECIES)]]
    for r in range(prog.n):
        closed = prog.draws[r][0]
        cum: list[float] = []
        last: list[int] = []
        rows: list[list[int]] = []
        opens: list[int] = []
        nexts: list[int] = []
        index: dict[int, int] = {}
        following: list[tuple] = []
        for i, entry in enumerate(frontier):
            _, choices, weights, _, _, _, follow = entry
            total = weights[-1]
            for (x, m), w, kid in zip(choices, weights, follow):
                cum.append(i + w / total)
                row = [0] * NUM_SPECIES
                for s, v in zip(closed, x):
                    row[s] = v
                rows.append(row)
                opens.append(m)
                if kid is None:
                    nexts.append(0)
                    continue
                k = index.get(id(kid))
                if k is None:
                    k = index[id(kid)] = len(following)
                    following.append(kid)
                nexts.append(k)
            last.append(len(cum) - 1)
        out.append((cum, last, rows, opens, nexts, len(frontier)))
        frontier = following
    return out


def _offsets(levels: list[list[tuple]], active: list[int], r: int) -> dict[int, int]:
    """Per seat of ``active``, where its states of level ``r`` start among those of every seat
    (0 for a seat whose chain ends before ``r``)."""
    out, total = {}, 0
    for k in active:
        out[k] = total
        if r < len(levels[k]):
            total += levels[k][r][5]
    return out


class BatchSampler:
    """Every seat's chain, level by level, the seats' levels of one step side by side (the
    seats with the most boxes first, so that the seats still drawing at a step are a prefix of
    the batch's rows)."""

    def __init__(self, model, size: int = BATCH) -> None:
        self.size = size
        seats = model.seats
        self.order = sorted(range(len(seats)), key=lambda i: -seats[i][1].n)
        self.boxes = [seats[i][0] for i in self.order]
        progs = [seats[i][1] for i in self.order]
        levels = [_levels(prog) for prog in progs]
        self.rounds = []
        for r in range(max(prog.n for prog in progs)):
            active = [k for k, prog in enumerate(progs) if prog.n > r]
            here, after = _offsets(levels, active, r), _offsets(levels, active, r + 1)
            cum, last, rows, opens, nexts, probs, species, ends = [], [], [], [], [], [], [], []
            for k in active:
                c, la, ro, op, ne, _ = levels[k][r]
                base = len(cum)
                cum.extend(here[k] + v for v in c)
                last.extend(base + v for v in la)
                rows.extend(ro)
                opens.extend(op)
                nexts.extend(after[k] + v for v in ne)
                _, opened, tilts, top, _ = progs[k].draws[r]
                # (no weight on the open species: no choice there draws open cards)
                probs.extend(k + (t / top if top else 1.0) for t in tilts)
                species.extend(opened)
                ends.append(len(probs) - 1)
            self.rounds.append(
                (
                    len(active),
                    np.array(cum),
                    np.array(last, dtype=np.int64),
                    np.array(rows, dtype=np.int64).reshape(len(rows), NUM_SPECIES),
                    np.array(opens, dtype=np.int64) if any(opens) else None,
                    np.array(nexts, dtype=np.int64),
                    np.array(probs),
                    np.array(species, dtype=np.int64),
                    np.array(ends, dtype=np.int64),
                )
            )
        self.steps = [prog.n for prog in progs]
        # Several piles: per step, which pile each drawing seat's box is in, as a matrix that
        # sums the seats' counts pile by pile (None at one pile: the seats' sum is the pile's).
        self.piles = None
        if len(model.piles) > 1:
            self.piles = []
            for r in range(len(self.rounds)):
                active = [k for k, n in enumerate(self.steps) if n > r]
                onto = np.zeros((len(model.piles), len(active)), dtype=np.int64)
                for col, k in enumerate(active):
                    onto[model.box_pile[self.boxes[k][self.steps[k] - 1 - r]], col] = 1
                self.piles.append(onto)
            self.emptied = np.array(model.avail[:-1], dtype=np.int64)[:, None, :]
        self.rows = len(progs) * size
        # (at the first step every seat is at its root, its place among the seats)
        self.roots = np.repeat(np.arange(len(progs)), size)
        cards = sum(prog.cards for prog in progs)
        self.uniforms = size * (1 + sum(self.steps) + cards)
        width = max(len(row) for row in model.log_h) + 1  # its last column is -inf for all
        self.log_h = np.full((NUM_SPECIES, width), -math.inf)
        for s, row in enumerate(model.log_h):
            self.log_h[s, : len(row)] = row
        self.log_top = model.log_top
        self.pile = model.avail[-1]
        self.num_boxes = len(model.box_size)

    def sample(self, rng: np.random.Generator, tries: int) -> list[list[int]] | None:
        """Per box its cards per species (the draw pile last) of the first proposal kept in
        batches of ``size``, within ``tries`` proposals in all; None if none was kept."""
        for _ in range(-(-tries // self.size)):
            found = self._batch(rng)
            if found is not None:
                return found
        return None

    def _batch(self, rng: np.random.Generator) -> list[list[int]] | None:
        size = self.size
        # Every uniform of the batch in one call: the choices, the keep step, then the open
        # cards (at most every card of every box).
        u = rng.random(self.uniforms)
        used = size
        drawn = []
        at = self.roots
        piles = self.piles
        if piles is None:  # per seat and proposal
            done = np.zeros((self.rows, NUM_SPECIES), dtype=np.int64)
        else:  # per pile, proposal and species
            took = np.zeros((len(piles[0]), size * NUM_SPECIES), dtype=np.int64)
        for r, (seats, cum, last, rows, opens, nexts, probs, species, ends) in enumerate(
            self.rounds
        ):
            n = seats * size
            at = at[:n]
            j = np.searchsorted(cum, at + u[used : used + n], side="right")
            used += n
            np.minimum(j, last[at], out=j)
            counts = rows[j]
            if opens is not None:
                m = opens[j]
                k = int(m.sum())
                if k:
                    owner = np.repeat(np.arange(n), m)
                    seat = owner // size
                    pick = np.searchsorted(probs, seat + u[used : used + k], side="right")
                    used += k
                    np.minimum(pick, ends[seat], out=pick)
                    flat = np.bincount(
                        owner * NUM_SPECIES + species[pick], minlength=n * NUM_SPECIES
                    )
                    counts = counts + flat.reshape(n, NUM_SPECIES)
            if piles is None:
                done[:n] += counts
            else:
                took += piles[r] @ counts.reshape(seats, size * NUM_SPECIES)
            drawn.append(counts)
            at = nexts[j]
        if piles is None:
            taken = done.reshape(-1, size, NUM_SPECIES).sum(axis=0)
        else:
            took = took.reshape(-1, size, NUM_SPECIES)
            taken = took[-1]
        top = self.log_h.shape[1] - 1
        log_keep = self.log_h[np.arange(NUM_SPECIES), np.minimum(taken, top)].sum(axis=1)
        keep = np.log1p(-u[:size]) <= log_keep - self.log_top
        if piles is not None:
            keep &= self._emptied(took)
        kept = np.flatnonzero(keep)
        if not len(kept):
            return None
        p = int(kept[0])
        x: list[list[int]] = [[] for _ in range(self.num_boxes)]
        for k, (boxes, steps) in enumerate(zip(self.boxes, self.steps)):
            for r in range(steps):
                x[boxes[steps - 1 - r]] = drawn[r][k * size + p].tolist()
        x[-1] = [a - t for a, t in zip(self.pile, taken[p].tolist())]
        return x

    def _emptied(self, took: np.ndarray) -> np.ndarray:
        """Per proposal (``took``: per pile, proposal and species), whether its boxes took
        exactly what every pile drawn to its end held (the piles' condition: 1 or 0)."""
        return (took[:-1] == self.emptied).all(axis=(0, 2))
