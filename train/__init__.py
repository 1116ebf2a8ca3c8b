"""Command line, tournaments and self-play training.

Importing this package registers the single-agent Gymnasium views
(``gymnasium.make("cardzoo/BeastyBar-v0", opponents="heuristic")``).
"""

from cardzoo.train.single_agent import register_envs

register_envs()
