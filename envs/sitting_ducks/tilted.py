"""A second try at five and six players where the hands now by rejection accept too rarely.

Where the draw pile is (nearly) empty after a reshuffle, the other seats' hands now must be
nearly a split of the cards ``U`` they and the pile hold. ``now.py`` draws each seat's hand
from its own weights and accepts the hands when they fit in ``U`` together; drawn
independently, they seldom do (along seeds 0-2 at six players, three positions accepted 2-9
of 409,600 proposals, session 17). A position whose fixed trial declines is tried once more
with the hands drawn *tilted* (``now.LastStep``'s ``tilt``): a kind's weight is scaled by
``x_k = exp(t_k)`` per card of it, and the acceptance carries ``x^(U - s)`` so that the
sample stays exact whatever the tilt. The tilt is fitted so that the drawn hands hold, on
average, each kind in the share ``U`` holds it (``ROUNDS`` rounds of ``PROPOSALS`` proposals
from a fixed seed, each moving ``t`` by ``STEP`` times the log of the ratio wanted / drawn;
then ``t <= 0`` with its largest at 0), and the chains are summed again with each seat's
bound under that tilt. The position is served if a trial of ``TRIAL`` proposals accepts at
least ``MIN_ACCEPTANCE`` of them; else the plain proposals are tried once more against the
same trial and floor (``reshuffled.PLAIN_AFTER_TILT``, session 44: a tilt can do worse than
none), and if they fall short too the replay serves it, as before.

Everything here is a function of the position (fixed seeds), so the sample stays a function
of what the seat knows and the rng. Measured in ``docs/rules/sitting_ducks.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from cardzoo.envs.sitting_ducks.exact import _HANDS

if TYPE_CHECKING:
    from cardzoo.envs.sitting_ducks.reshuffled import Posterior

#: Rounds of the fit, proposals per round and the step on the log ratio.
ROUNDS = 4
PROPOSALS = 8192
STEP = 2.0
#: A round's move of one kind's log weight is clipped to this (a kind seldom drawn would
#: otherwise jump far on a noisy mean).
MOST_MOVE = 2.0
#: The tilted position is served if ``TRIAL`` proposals accept at least this share: a sample
#: then costs at most about 16,384 proposals (about 20 ms at six players).
TRIAL = 65536
MIN_ACCEPTANCE = 1 / 16384


def fit(post: Posterior, rebuild: Callable[[np.ndarray], None]) -> bool:
    """Fits a tilt for ``post`` (``rebuild(tilt)`` sums its chains again under a tilt) and
    leaves ``post`` built with it; whether its trial then accepts often enough."""
    unseen = post.unseen_array.astype(float)
    want = unseen * (sum(post.sizes) / unseen.sum())
    counts = [_HANDS[size].counts for size in post.sizes]
    tilt = np.zeros(len(unseen))
    rng = np.random.default_rng(0)
    for _ in range(ROUNDS):
        rebuild(tilt)
        ids = post._proposals(rng, PROPOSALS)[1]
        drawn = sum(c[ids[:, i]] for i, c in enumerate(counts)).mean(axis=0)
        moved = (want > 0) & (drawn > 0)
        step = STEP * np.log(want[moved] / drawn[moved])
        tilt[moved] += np.clip(step, -MOST_MOVE, MOST_MOVE)
        tilt[want > 0] -= tilt[want > 0].max()
    rebuild(tilt)
    return post._trial_accepts(TRIAL, MIN_ACCEPTANCE)
