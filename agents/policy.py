"""Learned policies as agents: ``PolicyAgent`` plays a checkpoint written by ``cardzoo train``.

``make_agent("ppo:PATH", game)`` builds one, PATH being a checkpoint file or a run folder (its
latest checkpoint). The policy runs in plain numpy (:class:`NumpyActor`); reading the checkpoint
file needs torch (the ``train`` extra). A checkpoint made for another game, player count or
encoder version is refused with an error saying which.

Checkpoints are read with ``torch.load(weights_only=True)``: only tensors and plain data, no code.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
from cardzoo.agents.base import Seat, seat_from
from cardzoo.envs import load as load_game

#: The ``format`` entry of every checkpoint this version reads and writes.
CHECKPOINT_FORMAT = "cardzoo-ppo-1"
CHECKPOINT_DIR = "checkpoints"
_CHECKPOINT_NAME = re.compile(r"^ckpt-(\d+)\.pt$")


class NumpyActor:
    """The action head of a policy network as plain numpy: dense layers, then logits.

    Cheaper than torch for the small batches of opponent moves, picklable (it is sent to worker
    processes and stored in checkpoints), and enough to play a trained policy without SB3.
    """

    ACTIVATIONS = ("tanh", "relu")

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str) -> None:
        if activation not in self.ACTIVATIONS:
            raise ValueError(f"activation must be one of {self.ACTIVATIONS}, got {activation!r}")
        if not layers:
            raise ValueError("a NumpyActor needs at least its output layer")
        # Each layer is (W of shape (in, out), b of shape (out,)); the last one gives the logits.
        self.layers = [
            (np.ascontiguousarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32))
            for w, b in layers
        ]
        self.activation = activation
        self._torch: list[Any] | None = None  # torch views of the layers, made on first use
        for (w1, _), (w2, _) in zip(self.layers, self.layers[1:]):
            if w1.shape[1] != w2.shape[0]:
                raise ValueError(f"layer shapes do not chain: {w1.shape} then {w2.shape}")

    @property
    def obs_size(self) -> int:
        return self.layers[0][0].shape[0]

    @property
    def num_actions(self) -> int:
        return self.layers[-1][0].shape[1]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists of arrays), for pickling and checkpoints."""
        return {
            "activation": self.activation,
            "weights": [w for w, _ in self.layers],
            "biases": [b for _, b in self.layers],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NumpyActor:
        weights = [np.asarray(w) for w in data["weights"]]
        biases = [np.asarray(b) for b in data["biases"]]
        return cls(list(zip(weights, biases)), data["activation"])

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Action logits for a batch of observations (rows)."""
        x = np.asarray(obs, dtype=np.float32)
        if self._torch is None:
            self._torch = _torch_layers(self.layers)
        if self._torch:  # torch on one thread: several times faster than numpy's BLAS here
            return _torch_logits(self._torch, x, self.activation == "tanh")
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w
            x += b
            if i < last:
                if self.activation == "tanh":
                    np.tanh(x, out=x)
                else:
                    np.maximum(x, 0.0, out=x)
        return x

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_torch": None}  # tensor views are rebuilt after loading

    def act(
        self,
        obs: np.ndarray,
        masks: np.ndarray,
        rngs: list[np.random.Generator] | None = None,
        deterministic: bool = False,
    ) -> list[int]:
        """One legal action per row of ``obs``: the most likely one, or one sampled (one uniform
        draw from each row's generator in ``rngs``)."""
        legal = np.asarray(masks) != 0
        if not legal.any(axis=1).all():
            raise ValueError("an action mask has no legal action")
        z = np.where(legal, self.logits(obs), -np.inf)
        if deterministic:
            return z.argmax(axis=1).tolist()
        if rngs is None or len(rngs) != len(z):
            raise ValueError("sampled actions need one random generator per row")
        z -= z.max(axis=1, keepdims=True)
        np.exp(z, out=z)
        np.cumsum(z, axis=1, out=z)
        u = np.fromiter((rng.random() for rng in rngs), np.float64, len(z)) * z[:, -1]
        # the first action whose cumulative probability passes u: illegal ones add nothing
        actions = np.minimum((z <= u[:, None]).sum(axis=1), z.shape[1] - 1)
        ok = legal[np.arange(len(z)), actions]
        if not ok.all():  # rounding at the top end: the last legal action
            for row in np.flatnonzero(~ok):
                actions[row] = np.flatnonzero(legal[row])[-1]
        return actions.tolist()


def _torch_layers(layers: list[tuple[np.ndarray, np.ndarray]]) -> list[Any]:
    """The layers as torch tensors sharing the arrays' memory, or ``[]`` without torch."""
    try:
        import torch
    except ImportError:  # pragma: no cover - depends on the install
        return []
    return [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in layers]


def _torch_logits(layers: list[Any], x: np.ndarray, tanh: bool) -> np.ndarray:
    import torch

    with torch.no_grad():
        t = torch.from_numpy(x)
        last = len(layers) - 1
        for i, (w, b) in enumerate(layers):
            t = torch.addmm(b, t, w)
            if i < last:
                t = t.tanh_() if tanh else t.relu_()
        return t.numpy()


def checkpoint_files(run_dir: str | os.PathLike) -> list[Path]:
    """The complete checkpoints of a run folder, oldest first (by timesteps).

    Only files named ``ckpt-<timesteps>.pt`` count: a checkpoint is written under a temporary
    name and renamed when complete, so a write cut short is never listed.
    """
    folder = Path(run_dir)
    if (folder / CHECKPOINT_DIR).is_dir():
        folder = folder / CHECKPOINT_DIR
    found = []
    for p in folder.iterdir() if folder.is_dir() else ():
        m = _CHECKPOINT_NAME.match(p.name)
        if m and p.is_file():
            found.append((int(m.group(1)), p))
    return [p for _, p in sorted(found)]


def resolve_checkpoint(path: str | os.PathLike) -> Path:
    """A checkpoint file: ``path`` itself, or the latest checkpoint of the run folder ``path``."""
    p = Path(path)
    if p.is_file():
        return p
    if not p.exists():
        raise ValueError(f"no checkpoint or run folder at {str(p)!r}")
    files = checkpoint_files(p)
    if not files:
        raise ValueError(f"run folder {str(p)!r} has no checkpoint (ckpt-*.pt) yet")
    return files[-1]


def load_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Read a checkpoint file (or a run folder's latest one) as a dict."""
    try:
        import torch
    except ImportError as err:  # pragma: no cover - depends on the install
        raise ImportError("reading a checkpoint needs torch: pip install 'cardzoo[train]'") from err
    file = resolve_checkpoint(path)
    try:
        data = torch.load(file, map_location="cpu", weights_only=True)
    except Exception as err:
        raise ValueError(f"{str(file)!r} is not a readable cardzoo checkpoint: {err}") from err
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(file)!r} is not a cardzoo checkpoint (format {CHECKPOINT_FORMAT})")
    data["path"] = str(file)
    return data


def to_numpy(obj: Any) -> Any:
    """``obj`` with every torch tensor inside dicts, lists and tuples turned into numpy."""
    if isinstance(obj, dict):
        return {k: to_numpy(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_numpy(v) for v in obj)
    if hasattr(obj, "detach") and hasattr(obj, "numpy"):
        return obj.detach().cpu().numpy()
    return obj


def check_compatible(data: dict[str, Any], game: str, num_players: int | None = None) -> None:
    """Raise ``ValueError`` unless checkpoint ``data`` fits ``game`` (plain or versioned name),
    ``num_players`` (when given) and the game's current encoder version."""
    from cardzoo.envs import load

    spec = load(game).GAME
    where = data.get("path", "the checkpoint")
    if data["env_name"] != spec.env_name:
        raise ValueError(f"{where} was trained on {data['env_name']}, not {spec.env_name}")
    if num_players is not None and data["num_players"] != num_players:
        raise ValueError(
            f"{where} was trained for {data['num_players']} players, not {num_players}"
        )
    encoder = data["encoder"]
    if encoder not in spec.encoders:
        raise ValueError(f"{where} uses encoder {encoder!r}, which {spec.name} no longer has")
    version = spec.encoders[encoder].version
    if str(version) != str(data["encoder_version"]):
        raise ValueError(
            f"{where} was trained with {spec.name} encoder {encoder!r} version "
            f"{data['encoder_version']}; this cardzoo has version {version}"
        )


_CACHE: dict[tuple[str, int], tuple[dict[str, Any], NumpyActor]] = {}


def _load_actor(path: str | os.PathLike) -> tuple[dict[str, Any], NumpyActor]:
    """(checkpoint data without the training state, actor), cached per file and mtime (a
    tournament makes a new agent for every game)."""
    file = resolve_checkpoint(path)
    key = (str(file.resolve()), file.stat().st_mtime_ns)
    hit = _CACHE.get(key)
    if hit is None:
        data = load_checkpoint(file)
        actor = NumpyActor.from_dict(to_numpy(data["actor"]))
        keep = (
            "path",
            "env_name",
            "game",
            "num_players",
            "encoder",
            "encoder_version",
            "timesteps",
            "config",
        )
        hit = _CACHE[key] = ({k: data[k] for k in keep if k in data}, actor)
    return hit


class PolicyAgent:
    """Plays a trained policy (the most likely legal action, or one sampled).

    Args:
        path: a checkpoint file or a run folder (its latest checkpoint).
        game: the game it will play (plain or versioned name); checked against the checkpoint.
        deterministic: the most likely legal action (default) or a sample from the policy.
        seed: seed of the sampling generator.
        num_players: the table size, checked against the checkpoint when given (``act`` also
            checks it from its ``seat`` handle or the observation size).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        game: str,
        deterministic: bool = True,
        seed: int | None = None,
        num_players: int | None = None,
    ) -> None:
        self.info, self.actor = self._load(path)
        check_compatible(self.info, game, num_players)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.name = f"{self.kind}@{self.info.get(self.counter, '?')}"
        self._spec = spec = load_game(game).GAME
        self._own_encoder = self.info.get("encoder", spec.default_encoder) != spec.default_encoder
        self._encoders: dict[Any, Any] = {}  # by the game's config

    def _encoder_for(self, seat: Seat) -> Any:
        """The checkpoint's encoder for the seat's game config (built once per config)."""
        config = seat.config
        key = repr(config)
        encoder = self._encoders.get(key)
        if encoder is None:
            encoder = self._encoders[key] = self._spec.encoders[self.info["encoder"]](config)
        return encoder

    #: What the name says and which field of ``info`` counts the training (subclasses change
    #: them, and ``_load`` and ``_network_input``, for policies saved by other trainers).
    kind, counter = "ppo", "timesteps"

    @staticmethod
    def _load(path: str | os.PathLike) -> tuple[dict[str, Any], NumpyActor]:
        return _load_actor(path)

    def _network_input(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """What the network reads for one observation and its action mask."""
        return np.asarray(observation)

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        *,
        seat: Seat | None = None,
        state: Any = None,
        player: int | None = None,
    ) -> int:
        if state is not None or player is not None:
            seat = seat_from(seat, state, player, "PolicyAgent")
        expected = self.info["num_players"]
        if seat is not None and seat.num_players != expected:
            raise ValueError(
                f"{self.info['path']} was trained for {expected} players, not {seat.num_players}"
            )
        mask = np.asarray(action_mask).reshape(1, -1)
        if seat is not None and self._own_encoder:
            # trained on another encoder than the env's default: encode the seat's view with it
            observation = seat.observe(self._encoder_for(seat))
        obs = self._network_input(observation, mask[0])
        if obs.shape != (self.actor.obs_size,):
            raise ValueError(
                f"observation of shape {np.shape(observation)} for a policy trained on "
                f"({self.actor.obs_size},) ({self.info['env_name']}, {expected} players)"
            )
        return self.actor.act(obs[None], mask, [self.rng], self.deterministic)[0]
