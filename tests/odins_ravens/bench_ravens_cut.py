"""Measure how often Odin's Ravens' belief is not the exact posterior: seeded random games, and
after every move the belief over each seat's hidden cards (``State.belief``), counted as
exact, cut (``dropped > 0``: some label states were dropped, see ``hidden.py``) or searched
(``states is None``: the search fallback samples that position).

Not a test (a scan of many games); run it by hand::

    .venv/bin/python tests/odins_ravens/bench_ravens_cut.py [GAMES] [MAX_STATES] [variant ...]

Every option that changes the hidden model is a variant: the strict joker rule (its no-match
events), and the deck make-up (how many cards a reshuffle brings back).
"""

from __future__ import annotations

import random
import sys
import time

from cardzoo.envs.odins_ravens import Config, State, hidden

VARIANTS: dict[str, dict] = {
    "default": {},
    "strict": {"joker_requires_no_match": True},
    "small_deck": {"flight_cards_per_type": 2, "odin_copies_per_type": 1},
    "small_deck_strict": {
        "flight_cards_per_type": 2,
        "odin_copies_per_type": 1,
        "joker_requires_no_match": True,
    },
    "big_deck": {"flight_cards_per_type": 8, "odin_copies_per_type": 4},
    "no_odin": {"odin_copies_per_type": 0},
}


def scan(config: Config, games: int, seed0: int = 0) -> dict[str, float]:
    """Counts over ``games`` seeded random games: position-seats, cut, searched, the largest
    ``dropped`` and its mean over the cut ones."""
    seen = cut = searched = 0
    dropped_sum = dropped_max = 0.0
    for seed in range(seed0, seed0 + games):
        s = State(config, seed=seed)
        rng = random.Random(seed)
        while not s.terminal and not s.truncated:
            s.apply(rng.choice(s.legal_move_ids()))
            for seat in (0, 1):
                belief = s.belief(seat)
                seen += 1
                if belief.states is None:
                    searched += 1
                elif belief.dropped:
                    cut += 1
                    dropped_sum += belief.dropped
                    dropped_max = max(dropped_max, belief.dropped)
    return {
        "seen": seen,
        "cut": cut,
        "searched": searched,
        "dropped_max": dropped_max,
        "dropped_mean": dropped_sum / cut if cut else 0.0,
    }


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    if len(sys.argv) > 2:
        hidden.MAX_STATES = int(sys.argv[2])
    names = sys.argv[3:] or list(VARIANTS)
    for name in names:
        t0 = time.process_time()
        r = scan(Config(**VARIANTS[name]), games)
        print(
            f"{name:18s} {games} games, {r['seen']} position-seats: cut {r['cut']} "
            f"({r['cut'] / r['seen']:.2%}), searched {r['searched']} "
            f"({r['searched'] / r['seen']:.2%}); dropped mean {r['dropped_mean']:.3f} "
            f"max {r['dropped_max']:.3f}; {time.process_time() - t0:.1f} s CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
