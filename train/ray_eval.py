"""``cardzoo eval ... --ray [--address ADDR]``: a tournament's games as Ray tasks.

The tournament is cut into the same chunks as a local run (:func:`run_tournament`), each chunk
is one Ray task running :func:`~cardzoo.train.tournament.play_chunk`, and the counts are merged
as they come back. Game ``g`` is dealt from ``(seed, g)`` wherever it runs, so the result equals
the local one for the same seed. Without ``--address`` a local Ray is started with ``--workers``
CPUs; ``--address auto`` (or ``HOST:PORT``, ``ray://HOST:PORT``) joins a running cluster, whose
nodes need cardzoo installed. See docs/ray.md.
"""

from __future__ import annotations

import argparse
import contextlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Tasks kept queued per CPU of the cluster: enough to keep every CPU busy, few enough that a
#: long tournament does not submit all of its chunks at once.
TASKS_PER_CPU = 2


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
        if args.address:
            ray.init(address=args.address, log_to_driver=False)
        else:
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
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
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False)
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
