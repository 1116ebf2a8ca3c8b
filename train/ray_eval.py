"""``cardzoo eval ... --ray [--address ADDR]``: a tournament's games as Ray tasks.

The tournament is cut into the same chunks as a local run (:func:`run_tournament`), each chunk
is one Ray task running :func:`~cardzoo.train.tournament.play_chunk`, and the counts are merged
as they come back. Game ``g`` is dealt from ``(seed, g)`` wherever it runs, so the result equals
the local one for the same seed. Without ``--address`` a local Ray is started with ``--workers``
CPUs; ``--address auto`` (or ``HOST:PORT``, ``ray://HOST:PORT``) joins a running cluster, whose
nodes need cardzoo installed. See docs/ray.md.

:func:`init_ray` is how every cardzoo command starts or joins Ray (``train-ray`` too).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Tasks kept queued per CPU of the cluster: enough to keep every CPU busy, few enough that a
#: long tournament does not submit all of its chunks at once.
TASKS_PER_CPU = 2

CLIENT_HINT = (
    "a Ray Client address needs a head started with a client server (ray start --head "
    "--ray-client-server-port=PORT; Ray's default port is 10001), the same Ray and Python "
    "versions here and on the cluster, and, as Ray 2.60 clusters use token authentication, the "
    "cluster's token on this machine (RAY_AUTH_TOKEN, or the file ~/.ray/auth_token; "
    "`ray get-auth-token` on the head prints it)"
)


#: What Ray Client reports when the head could not start the server of one connection.
CLIENT_SERVER_FAILED = "Starting Ray client server failed"


def _client_token_auth() -> None:
    """Send the auth token with a Ray Client connection when one is available here.

    ``ray.init("ray://...")`` does not look for a token by itself unless ``RAY_AUTH_MODE=token``
    is set, and a token-auth cluster then refuses the connection (it shows as "ray client
    connection timeout"); ``ray start`` does the same check."""
    try:
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:  # another Ray release: leave it to RAY_AUTH_MODE
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


def init_ray(address: str | None, **local: Any) -> None:
    """``ray.init`` for the cardzoo commands: join the cluster at ``address`` (``auto``,
    ``HOST:PORT`` or ``ray://HOST:PORT``, Ray Client) or, without one, start a new local Ray
    with the keyword arguments ``local`` (e.g. ``num_cpus``), whatever RAY_ADDRESS says. A
    cluster that cannot be reached is a ``ValueError`` saying what was tried and what a client
    address needs."""
    import ray

    if not address:
        # "local": a Ray of our own even when RAY_ADDRESS is set or a `ray start` cluster runs
        # on this machine (ray.init() would join those, and then refuse ``num_cpus``).
        ray.init(address="local", include_dashboard=False, log_to_driver=False, **local)
        return
    client = address.startswith("ray://")
    if client:
        _client_token_auth()
    for attempt in (1, 2):
        try:
            ray.init(address=address, log_to_driver=False)
            return
        except (ConnectionError, RuntimeError, ImportError) as err:
            ray.shutdown()  # no half-made client connection left behind
            if client and attempt == 1 and CLIENT_SERVER_FAILED in str(err):
                # Seen here on a freshly started head: the head's per-connection server
                # process exited at once, and the next connection worked.
                print(
                    f"Ray Client: {CLIENT_SERVER_FAILED} on the head; trying once more",
                    file=sys.stderr,
                )
                continue
            hint = CLIENT_HINT if client else "is `ray start --head` running there (ray status)?"
            raise ValueError(
                f"could not connect to Ray at {address!r}: {type(err).__name__}: {err}; {hint}"
            ) from None


def add_eval_flags(parser: argparse.ArgumentParser) -> None:
    """``--ray`` and ``--address`` of ``cardzoo eval``."""
    parser.add_argument(
        "--ray",
        action="store_true",
        help="play the games as Ray tasks (local Ray with --workers CPUs, or --address); "
        "same results as without (needs the ray extra)",
    )
    parser.add_argument(
        "--address", help="with --ray: a running Ray cluster (auto, HOST:PORT, ray://HOST:PORT)"
    )


def executor_for(args: argparse.Namespace) -> Callable[[Iterator[tuple]], Iterable[dict]] | None:
    """The tournament executor ``eval`` asked for: None without ``--ray``."""
    if not getattr(args, "ray", False):
        if getattr(args, "address", None):
            raise ValueError("--address needs --ray")
        return None
    if getattr(args, "record", None) is not None:
        raise ValueError(
            "--record cannot be used with --ray (records would be written on the nodes)"
        )
    try:
        import ray  # noqa: F401
    except ImportError as err:
        raise ValueError(f"--ray needs the ray extra (pip install 'cardzoo[ray]'): {err}") from None
    return ray_executor(address=args.address, num_cpus=args.workers)


@contextlib.contextmanager
def ray_started(args: argparse.Namespace) -> Iterator[None]:
    """With ``--ray``: Ray running for the whole block (so that the executors of several
    tournaments share it instead of each starting and stopping its own), shut down after."""
    if not getattr(args, "ray", False):
        yield
        return
    import ray

    started = not ray.is_initialized()
    if started:
        init_ray(args.address, num_cpus=args.workers)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


def ray_executor(
    address: str | None = None, num_cpus: int | None = None
) -> Callable[[Iterator[tuple]], Iterable[dict]]:
    """An executor for :func:`~cardzoo.train.tournament.run_tournament`: each job is a Ray task.

    Results are handed back in job order (as a one-process run merges them), so even the float
    sums of the result are bit for bit those of ``workers=1``; up to ``TASKS_PER_CPU`` tasks
    per CPU of the cluster run or wait meanwhile.

    Ray is started when the first job comes (``address`` or a local Ray with ``num_cpus``) unless
    it is already running, and shut down at the end if it was started here.
    """

    def execute(jobs: Iterator[tuple]) -> Iterator[dict]:
        import ray
        from cardzoo.train.tournament import play_chunk

        started = not ray.is_initialized()
        if started:
            init_ray(address, num_cpus=num_cpus)
        task = ray.remote(num_cpus=1)(play_chunk)
        limit = TASKS_PER_CPU * max(1, int(ray.cluster_resources().get("CPU", 1)))
        pending: deque[Any] = deque()
        try:
            for job in jobs:
                pending.append(task.remote(job))
                if len(pending) >= limit:
                    yield ray.get(pending.popleft())
            while pending:
                yield ray.get(pending.popleft())
        finally:
            for ref in pending:  # stopped early (Ctrl-C, an error): drop the queued games
                ray.cancel(ref)
            if started:
                ray.shutdown()

    return execute
