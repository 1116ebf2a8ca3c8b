"""The peers of ``cardzoo bench``: PettingZoo classic card and board envs, and RLCard's own API.

They are timed with the very loops our envs are timed with (``bench_loops.aec_loop``), in the same
run, so ratios compare like with like. They need the ``bench`` extra (rlcard, pygame-ce); a peer
that cannot be imported is reported and skipped.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cardzoo.train.bench_loops import Sample, aec_loop

#: PettingZoo classic envs timed as peers: name -> module.
PETTINGZOO_PEERS: dict[str, str] = {
    "leduc_holdem_v4": "pettingzoo.classic.leduc_holdem_v4",
    "texas_holdem_v4": "pettingzoo.classic.texas_holdem_v4",
    "connect_four_v3": "pettingzoo.classic.connect_four_v3",
}
#: The env every ratio is taken against (its ``env()``).
REFERENCE = ("pettingzoo", "leduc_holdem_v4", "env")


@dataclass
class Peer:
    """One peer measurement: a row key and a function timing it for some seconds."""

    suite: str
    env: str
    players: int
    api: str
    measure: Callable[[float], Sample]


def rlcard_loop(env: Any, seconds: float, seed: int = 0) -> Sample:
    """RLCard's own API under random legal play: ``reset()``, then ``step(action)`` to the end.

    Every RLCard step is a decision (no steps retire finished players).
    """
    pick = random.Random(seed).random
    decisions = episodes = 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0 + seconds
    while True:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[int(pick() * len(legal))])
            decisions += 1
        episodes += 1
        if time.perf_counter() >= deadline:
            break
    return Sample(
        decisions, decisions, episodes, time.perf_counter() - wall0, time.process_time() - cpu0
    )


def load_peers(report: Callable[[str], None] = print) -> list[Peer]:
    """Every importable peer: ``env()`` and ``raw_env()`` of each PettingZoo one, RLCard's leduc."""
    peers: list[Peer] = []
    for name, module_name in PETTINGZOO_PEERS.items():
        try:
            module = importlib.import_module(module_name)
        except Exception as err:  # missing optional deps (rlcard, pygame)
            report(f"peer {name}: not importable ({type(err).__name__}: {err}); skipped")
            continue
        for api in ("env", "raw_env"):
            factory = getattr(module, api)
            peers.append(
                Peer(
                    "pettingzoo",
                    name,
                    2,
                    api,
                    lambda seconds, factory=factory: aec_loop(factory(), seconds),
                )
            )
    try:
        import rlcard
    except Exception as err:
        report(f"peer rlcard leduc-holdem: not importable ({type(err).__name__}: {err}); skipped")
    else:
        peers.append(
            Peer(
                "rlcard",
                "leduc-holdem",
                2,
                "native",
                lambda seconds: rlcard_loop(rlcard.make("leduc-holdem", {"seed": 0}), seconds),
            )
        )
    return peers
