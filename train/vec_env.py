"""A batched Stable-Baselines3 ``VecEnv``: K games in one process, opponents decided in batches.

Each of the K games is a :class:`~cardzoo.train.opponents.Table` with a learner seat. After the
learner's K actions, every game where an opponent must move is grouped by opponent, each group is
decided at once (one forward pass for a policy network), and this repeats until every game waits
on the learner again. Observations and masks are written into preallocated ``(K, D)`` and
``(K, A)`` arrays; ``action_masks()`` (and ``env_method("action_masks")``, what sb3-contrib's
``MaskablePPO`` calls) is served from that cache, with no per-game call.

In a team game the learner's partners play the pool's current policy (the learner's latest
weights, :meth:`~cardzoo.train.pool.OpponentPool.set_current`) and share its reward (the env's:
winners share +1, losers -1); only the opponents' seats are drawn from the pool, and only they
are listed in ``infos[k]["opponents"]``. A pool without a current policy (fixed opponents) fills
the partners' seats from the pool too.

The rules engine and encoder are driven directly (no AEC bookkeeping on the hot path); for the
same seeds the games agree step by step with :class:`~cardzoo.train.single_agent.SingleAgentEnv`
(tested). Game ``k`` of an env seeded with ``s`` is the single env reset with seed ``s + k``.

Finished games restart at once; as SB3 expects, the step that ends a game returns the new game's
first observation, with the last one in ``infos[k]["terminal_observation"]`` and
``infos[k]["TimeLimit.truncated"]`` set when the game was cut by ``max_turns``. The end-of-game
info also holds ``"episode"`` (``r``, ``l``, ``t``: SB3's episode statistics), ``"opponents"``,
``"learner_seat"``, ``"winners"`` and ``"end_reason"``.

:class:`SubprocBatchedEnv` runs the same batches in worker processes (one per core) for bigger
machines.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from cardzoo.envs import load
from cardzoo.envs.core import IllegalMoveError
from cardzoo.envs.outcome import outcome
from cardzoo.train.opponents import Table, state_factory
from cardzoo.train.pool import OpponentPool
from cardzoo.train.single_agent import MAX_REDEALS, check_learner_seat, make_pool, raw_env_for
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv


class BatchedCardEnv(VecEnv):
    """K games of one cardzoo game in one process, as an SB3 ``VecEnv``.

    Args:
        game: plain or versioned game name.
        num_envs: K, the number of games played side by side.
        opponents: as for :class:`~cardzoo.train.single_agent.SingleAgentEnv` (an
            :class:`OpponentPool` for self-play).
        num_players: seats per game (default: what the variant or rule options set, else the
            game's smallest player count).
        learner_seat: fixed learner seat, or ``None`` for a random seat every game.
        seed: game ``k`` draws from ``seed + k``; ``None`` seeds from the OS.
        **env_options: rule options, ``encoder``, ``variant`` (as for ``env()``).

    The observation space is the flat observation vector (the mask comes from
    ``action_masks()``); rewards are win/loss (+1 / -1 shared, 0 for a draw), or with
    ``reward="score"`` the seat's score minus the others' mean (the env's reward option).
    """

    render_mode = None

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Any = "random",
        num_players: int | None = None,
        learner_seat: int | None = None,
        seed: int | None = None,
        **env_options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        # reward="score" (the score margin, a shaped reward) is allowed for training ablations
        self.reward = env_options.get("reward", "win_loss")
        module = load(game)
        self.module = module
        self.game = module.GAME
        self.env_options = dict(env_options)
        first = raw_env_for(module, num_players, **env_options)  # checks the options
        n = first.config.num_players
        check_learner_seat(learner_seat, n)
        self.num_players = n
        self.learner_seat = None if learner_seat is None else int(learner_seat)
        self.pool = make_pool(opponents, self.game.name)
        self.encoder = first.encoder
        self.max_turns = first.max_turns
        self.end_reasons = first.end_reasons
        size, num_actions = self.encoder.size, self.encoder.num_actions
        obs_space = spaces.Box(0, self.encoder.high, (size,), self.encoder.dtype)
        super().__init__(num_envs, obs_space, spaces.Discrete(num_actions))
        self.metadata = {**self.metadata, **first.metadata}
        # Deals as the PettingZoo env's reset(seed) does, without its bookkeeping (which costs
        # more than the deal); the agreement test with SingleAgentEnv checks it.
        self._new_game = state_factory(module, first.config)
        self._base_seed = seed
        self.tables: list[Table] = []
        self._obs = np.zeros((num_envs, size), dtype=self.encoder.dtype)
        self._masks = np.zeros((num_envs, num_actions), dtype=np.int8)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._dones = np.zeros(num_envs, dtype=bool)
        self._actions: np.ndarray | None = None
        self._started = np.zeros(num_envs)  # wall time each game started (episode stats)
        self.opponent_moves = 0  # opponent decisions so far (for decisions/s)
        self._end_index = {r: i for i, r in enumerate(self.end_reasons)}
        self._seed_tables(seed)

    # -- seeding --------------------------------------------------------------------------------

    def _seed_tables(self, seed: int | None) -> None:
        if seed is None:
            root = np.random.SeedSequence()
            rngs = [np.random.default_rng(s) for s in root.spawn(self.num_envs)]
        else:
            rngs = [np.random.default_rng(seed + k) for k in range(self.num_envs)]
        self.tables = [Table(self._new_game, rng) for rng in rngs]

    def restore_rngs(self, states: Sequence[dict[str, Any]]) -> None:
        """Continue every game's stream from ``states`` (resume); overrides pending seeds."""
        self.set_rng_states(states)
        self._reset_seeds()

    def rng_states(self) -> list[dict[str, Any]]:
        """Each game's generator state (for checkpoints)."""
        return [t.rng.bit_generator.state for t in self.tables]

    def set_rng_states(self, states: Sequence[dict[str, Any]]) -> None:
        if len(states) != self.num_envs:
            raise ValueError(f"{len(states)} generator states for {self.num_envs} games")
        for t, s in zip(self.tables, states):
            t.rng.bit_generator.state = s

    # -- VecEnv API -----------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        if any(s is not None for s in self._seeds):
            if all(s is not None for s in self._seeds):
                base = self._seeds[0]
                if list(self._seeds) != [base + k for k in range(self.num_envs)]:
                    raise ValueError("per-game seeds must be consecutive: seed() sets them")
                self._seed_tables(base)
            self._reset_seeds()
        now = time.perf_counter()
        for k, table in enumerate(self.tables):
            self._deal(table)
            self._started[k] = now
        self._advance(list(range(self.num_envs)), [{} for _ in range(self.num_envs)])
        for k in range(self.num_envs):
            self._write(k)
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        actions = self._actions
        if actions is None:
            raise RuntimeError("step_wait() called without step_async()")
        self._actions = None
        rewards, dones = self._rewards, self._dones
        rewards[:] = 0.0
        dones[:] = False
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        tables = self.tables
        for k in range(self.num_envs):
            state = tables[k].state
            a = int(actions[k])
            if not (0 <= a < self.encoder.num_actions and state.is_legal(a)):
                raise IllegalMoveError(
                    f"game {k}: illegal action {a} for the learner (seat {tables[k].learner}); "
                    f"legal: {state.legal_move_ids()}"
                )
        for k in range(self.num_envs):
            table = tables[k]
            table.state.apply_id(int(actions[k]))
            table.steps += 1
        self._advance(list(range(self.num_envs)), infos)
        for k in range(self.num_envs):
            self._write(k)
        return self._obs.copy(), rewards.copy(), dones.copy(), infos

    def action_masks(self) -> np.ndarray:
        """``(K, A)`` int8 masks of the learner's legal actions (a copy of the cache)."""
        return self._masks.copy()

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"{type(self).__name__} has no per-game attributes to set")

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        index = list(self._get_indices(indices))
        if method_name == "action_masks":
            return [self._masks[i].copy() for i in index]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in index]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def sync_pool(self, pool: OpponentPool) -> None:
        """Use ``pool``'s current weights and snapshots (the in-process env shares the object)."""
        if pool is not self.pool:
            self.pool.load_weights(pool.state_dict())

    # -- internals ------------------------------------------------------------------------------

    def _deal(self, table: Table) -> None:
        # Team games are learned as a team: the learner's partners play the pool's current
        # policy (the learner's latest weights) when it has one; only opponents are drawn.
        table.deal(self.pool, self.learner_seat, partner=self.pool.current)

    def _record_end(self, k: int, infos: list[dict[str, Any]]) -> None:
        """Game ``k`` is over: record the learner's result in ``infos[k]``, deal a new game."""
        table = self.tables[k]
        state = table.state
        result = outcome(state, self.reward)  # the env's rewards; truncated: 0 for everyone
        reward = result.rewards[table.learner]
        self._rewards[k] = reward
        self._dones[k] = True
        now = time.perf_counter()
        infos[k] = {
            "terminal_observation": self.encoder.encode(state, table.learner),
            "TimeLimit.truncated": result.truncated,
            "episode": {"r": reward, "l": table.steps, "t": round(now - self._started[k], 6)},
            "opponents": table.names,
            "learner_seat": table.learner,
            "winners": result.winners_vector(),
            "end_reason": self._end_index[result.end_reason],
        }
        self._deal(table)
        self._started[k] = now

    def _advance(self, pending: list[int], infos: list[dict[str, Any]]) -> None:
        """Until every game in ``pending`` waits on the learner: record and restart the games
        that ended, and let opponents move, one batch per opponent."""
        tables = self.tables
        encoder = self.encoder
        redeals = dict.fromkeys(pending, 0)
        while pending:
            groups: dict[int, tuple[Any, list[int]]] = {}
            again = []
            for k in pending:
                table = tables[k]
                state = table.state
                if state.terminal or state.truncated:
                    if table.steps:
                        self._record_end(k, infos)
                    else:  # ended before the learner's first decision: not an episode
                        redeals[k] += 1
                        if redeals[k] > MAX_REDEALS:
                            raise RuntimeError(
                                f"{MAX_REDEALS} games in a row ended before the learner's first "
                                f"decision (max_turns={self.max_turns} is too small)"
                            )
                        self._deal(table)
                    again.append(k)
                    continue
                player = table.seats[state.current_player]
                if player is None:
                    continue  # the learner's turn: this game is ready
                group = groups.get(id(player))
                if group is None:
                    groups[id(player)] = (player, [k])
                else:
                    group[1].append(k)
            for player, ks in groups.values():
                actions = player.act_batch([tables[k] for k in ks], encoder)
                for k, a in zip(ks, actions):
                    tables[k].state.apply_id(a)
                again.extend(ks)
                self.opponent_moves += len(ks)
            pending = again

    def _write(self, k: int) -> None:
        table = self.tables[k]
        self.encoder.encode_to(table.state, table.learner, self._obs[k])
        self.encoder.mask_to(table.state, self._masks[k])

    def _get_indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


class SubprocBatchedEnv(VecEnv):
    """The batches of :class:`BatchedCardEnv` spread over worker processes (one per core).

    Games are split into ``workers`` contiguous blocks, each a :class:`BatchedCardEnv` in its
    own process; game ``k`` is seeded exactly as in the single-process env, so both give the
    same games. Opponent pools are copied to the workers; :meth:`sync_pool` sends the learner's
    new weights and snapshots after each update. Masks come back with every step and are served
    from the cache like the in-process env's.
    """

    render_mode = None

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponents: Any = "random",
        num_players: int | None = None,
        learner_seat: int | None = None,
        seed: int | None = None,
        workers: int = 2,
        **env_options: Any,
    ) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be an int >= 1, got {workers!r}")
        if workers > num_envs:
            raise ValueError(f"{workers} workers for {num_envs} games: at most one per game")
        # Built here first: bad arguments fail in this process with the usual errors.
        probe = BatchedCardEnv(game, 1, opponents, num_players, learner_seat, None, **env_options)
        self.pool = probe.pool
        self.encoder = probe.encoder
        self.end_reasons = probe.end_reasons
        super().__init__(num_envs, probe.observation_space, probe.action_space)
        self.metadata = {**self.metadata, **probe.metadata}
        bounds = np.linspace(0, num_envs, workers + 1).astype(int)
        self._blocks = [(int(a), int(b)) for a, b in zip(bounds, bounds[1:])]
        context = mp.get_context("spawn")  # no fork of a process that may hold torch threads
        self._conns = []
        self._procs = []
        for a, b in self._blocks:
            parent, child = context.Pipe()
            args = {
                "game": game,
                "num_envs": b - a,
                "opponents": self.pool,
                "num_players": num_players,
                "learner_seat": learner_seat,
                "seed": None if seed is None else seed + a,
                **env_options,
            }
            proc = context.Process(target=_worker, args=(child, args), daemon=True)
            proc.start()
            child.close()
            self._conns.append(parent)
            self._procs.append(proc)
        for conn in self._conns:
            self._receive(conn)  # "ready", or the worker's error
        self._obs = np.zeros((num_envs, self.encoder.size), dtype=self.encoder.dtype)
        self._masks = np.zeros((num_envs, self.encoder.num_actions), dtype=np.int8)
        self._moves = [0] * workers
        self._closed = False

    @property
    def opponent_moves(self) -> int:
        return sum(self._moves)

    def _receive(self, conn: Any) -> Any:
        kind, payload = conn.recv()
        if kind == "error":
            raise RuntimeError(f"a worker of SubprocBatchedEnv failed:\n{payload}")
        return payload

    def _call(self, command: str, data: list[Any] | None = None) -> list[Any]:
        for i, conn in enumerate(self._conns):
            conn.send((command, None if data is None else data[i]))
        return [self._receive(conn) for conn in self._conns]

    def reset(self) -> np.ndarray:
        if any(s is not None for s in self._seeds):
            base = self._seeds[0]
            seeds = [None if base is None else base + a for a, _ in self._blocks]
            self._reset_seeds()
        else:
            seeds = [None] * len(self._blocks)
        for (a, b), (obs, masks) in zip(self._blocks, self._call("reset", seeds)):
            self._obs[a:b] = obs
            self._masks[a:b] = masks
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(self.num_envs)
        n = self.encoder.num_actions
        for k, a in enumerate(actions):
            if not (0 <= a < n and self._masks[k, a]):
                raise IllegalMoveError(
                    f"game {k}: illegal action {a} for the learner; legal: "
                    f"{np.flatnonzero(self._masks[k]).tolist()}"
                )
        for (a, b), conn in zip(self._blocks, self._conns):
            conn.send(("step", actions[a:b]))

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = []
        for i, ((a, b), conn) in enumerate(zip(self._blocks, self._conns)):
            obs, r, d, info, masks, moves = self._receive(conn)
            self._obs[a:b] = obs
            self._masks[a:b] = masks
            rewards[a:b] = r
            dones[a:b] = d
            infos.extend(info)
            self._moves[i] = moves
        return self._obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self._masks.copy()

    def sync_pool(self, pool: OpponentPool) -> None:
        """Send ``pool``'s current weights and snapshots to every worker."""
        state = pool.state_dict()
        self._call("pool", [state] * len(self._conns))

    def rng_states(self) -> list[dict[str, Any]]:
        return [s for block in self._call("rngs") for s in block]

    def restore_rngs(self, states: Sequence[dict[str, Any]]) -> None:
        if len(states) != self.num_envs:
            raise ValueError(f"{len(states)} generator states for {self.num_envs} games")
        self._call("restore", [list(states[a:b]) for a, b in self._blocks])
        self._reset_seeds()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            try:
                conn.send(("close", None))
            except (BrokenPipeError, OSError):
                pass
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.is_alive():
                proc.terminate()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"{type(self).__name__} has no per-game attributes to set")

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        index = list(self._get_indices(indices))
        if method_name == "action_masks":
            return [self._masks[i].copy() for i in index]
        method = getattr(self, method_name)
        return [method(*method_args, **method_kwargs) for _ in index]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: Any) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


def _worker(conn: Any, args: dict[str, Any]) -> None:
    """A worker process: one BatchedCardEnv driven by commands from the pipe."""
    import signal
    import traceback

    # Ctrl-C is the main process's to handle: it still needs the workers (e.g. for the RNG
    # states of its last checkpoint); they end when it closes the pipe or exits.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    try:
        env = BatchedCardEnv(**args)
        conn.send(("ok", "ready"))
    except Exception:
        conn.send(("error", traceback.format_exc()))
        return
    while True:
        try:
            command, data = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        try:
            if command == "step":
                obs, rewards, dones, infos = env.step(data)
                reply = (obs, rewards, dones, infos, env._masks.copy(), env.opponent_moves)
            elif command == "reset":
                if data is not None:
                    env.seed(data)
                reply = (env.reset(), env._masks.copy())
            elif command == "pool":
                env.pool.load_weights(data)
                reply = None
            elif command == "rngs":
                reply = env.rng_states()
            elif command == "restore":
                env.restore_rngs(data)
                reply = None
            elif command == "close":
                conn.send(("ok", None))
                return
            else:
                raise ValueError(f"unknown command {command!r}")
            conn.send(("ok", reply))
        except Exception:
            conn.send(("error", traceback.format_exc()))
