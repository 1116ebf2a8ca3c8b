"""Agents: the protocol, a random agent, one heuristic per game, and a factory by name.

Agent specs are names (``"random"``, ``"heuristic"``) or ``kind:argument`` strings for agents that
need an argument: ``ppo:PATH`` plays a policy trained by ``cardzoo train`` (PATH a checkpoint
file or a run folder, meaning its latest checkpoint) with its most likely legal action, and
``ppo-sample:PATH`` samples from it. ``ismcts:N`` searches N iterations of information-set Monte
Carlo tree search per move with random rollouts, ``ismcts-h:N`` with the game's heuristic playing
the rollouts (:mod:`cardzoo.agents.ismcts`). ``zoo:NAME`` plays a model shipped with cardzoo
(:mod:`cardzoo.zoo`, docs/zoo.md).

``rllib:PATH`` plays a policy exported by ``cardzoo train-ray``
(:mod:`cardzoo.agents.rllib_policy`), without Ray.
"""

from __future__ import annotations

import importlib

from cardzoo.agents.base import Agent, RandomAgent, Seat

#: Heuristic agent class per game, as "module:Class" (imported on demand).
HEURISTICS: dict[str, str] = {
    "cubirds": "cardzoo.agents.cubirds_heuristic:CubirdsHeuristic",
    "beasty_bar": "cardzoo.agents.beasty_bar_heuristic:BeastyBarHeuristic",
    "odins_ravens": "cardzoo.agents.odins_ravens_heuristic:OdinsRavensHeuristic",
    "sitting_ducks": "cardzoo.agents.sitting_ducks_heuristic:SittingDucksHeuristic",
}

AGENT_KINDS = (
    "random",
    "heuristic",
    "ppo:PATH",
    "ppo-sample:PATH",
    "rllib:PATH",
    "ismcts:N",
    "ismcts-h:N",
    "zoo:NAME",
)


def make_agent(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build an agent from its spec for the given plain game name (e.g. ``"cubirds"``)."""
    kind, _, argument = spec.partition(":")
    if kind == "random" and not argument:
        return RandomAgent(seed)
    if kind == "heuristic" and not argument:
        if game not in HEURISTICS:
            raise ValueError(
                f"no heuristic agent for game {game!r}; games with one: {sorted(HEURISTICS)}"
            )
        module, _, cls = HEURISTICS[game].partition(":")
        return getattr(importlib.import_module(module), cls)(seed=seed)
    if kind in ("ppo", "ppo-sample"):
        if not argument:
            raise ValueError(f"agent spec {spec!r} needs a path: {kind}:PATH")
        from cardzoo.agents.policy import PolicyAgent

        return PolicyAgent(argument, game, deterministic=kind == "ppo", seed=seed)
    if kind == "zoo":  # a model shipped in cardzoo.zoo (docs/zoo.md)
        from cardzoo.zoo import make_zoo_agent

        return make_zoo_agent(argument, game, seed=seed)
    if kind in ("ismcts", "ismcts-h"):
        from cardzoo.agents.ismcts import make_ismcts

        return make_ismcts(spec, game, seed)
    if kind == "rllib":
        if not argument:
            raise ValueError(f"agent spec {spec!r} needs a path: rllib:PATH")
        from cardzoo.agents.rllib_policy import RllibPolicyAgent

        return RllibPolicyAgent(argument, game, seed=seed)
    raise ValueError(f"unknown agent spec {spec!r}; available: {', '.join(AGENT_KINDS)}")


__all__ = ["AGENT_KINDS", "HEURISTICS", "Agent", "RandomAgent", "Seat", "make_agent"]
