"""``determinize`` gives the same worlds in every process (issue 16): a seeded experiment must
replay, so no sample may depend on Python's hash seed (the iteration order of a set or a dict
of strings, tuples or bytes) or on anything else a fresh process chooses.

One seeded random game per case (``conformance_cases.CASES``); the seat to play determinizes
with ``default_rng(i)`` at each of its first ``DECISIONS`` decisions, and every seat's view of
each sample is hashed. The hashes computed here must equal those of two fresh processes with
the hash seeds 0 and 1 (this process's is random unless PYTHONHASHSEED is set).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conformance_cases import CASES

DECISIONS = 40

#: Run in this process and in the fresh ones: (module name, config) pairs in, hashes out.
SCRIPT = """
import hashlib, importlib, json, sys
import numpy as np
from cardzoo.train.bench_loops import game_moves

def digest(module_name, config, decisions):
    spec = importlib.import_module(module_name).GAME
    cfg = spec.make_config(**config)
    (moves,) = game_moves(spec.state_cls, cfg, 1, 11)
    state = spec.state_cls(cfg, seed=11)
    h = hashlib.sha256()
    for i, move in enumerate(moves[:decisions]):
        sample = state.determinize(state.current_player, np.random.default_rng(i))
        h.update(repr([sample.view(q) for q in range(sample.num_players)]).encode())
        state.apply_id(move)
    return h.hexdigest()

if __name__ == "__main__":
    cases, decisions = json.loads(sys.argv[1]), int(sys.argv[2])
    print(json.dumps([digest(name, config, decisions) for name, config in cases]))
"""


def test_samples_are_the_same_in_fresh_processes_with_other_hash_seeds():
    cases = [(p.values[0].__name__, p.values[1]) for p in CASES]
    namespace: dict = {}
    exec(compile(SCRIPT, "<determinize digest>", "exec"), namespace)
    here = [namespace["digest"](name, config, DECISIONS) for name, config in cases]
    for seed in ("0", "1"):
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, json.dumps(cases), str(DECISIONS)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=600,
            check=True,
        )
        there = json.loads(done.stdout)
        differ = [p.id for p, a, b in zip(CASES, here, there) if a != b]
        assert not differ, f"other worlds with PYTHONHASHSEED={seed}: {differ}"
