"""The arena on a Ray cluster: blocks of deals as Ray tasks.

``play_match`` and ``round_robin`` play their deals in blocks (``block`` deals each, the agents
reseeded at the start of every block) and take an ``executor`` that runs the blocks; the results
are put together in deal order, so they depend on the seed, the deals and the block size, never
on where the blocks ran. ``RayExecutor`` runs each block as a Ray task, every block of every table
at once; Ray spreads the tasks over the cluster's CPUs.

    from hearts_env.arena import play_match
    from hearts_env.arena.sharding import RayExecutor

    with RayExecutor() as ray_tasks:  # starts Ray here, or joins a cluster: RayExecutor("auto")
        result = play_match(None, agents, deals=2000, seed=0, games="hand", block=100, executor=ray_tasks)

Every node of the cluster needs the project installed (``pip install -e ".[ray]"``, the same
version), since each task unpickles the agents and imports ``hearts_env`` there; the agents
travel with the task (a trained policy's arrays included). Ray is imported only here, by the
functions that need it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["RayExecutor"]


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    return fn(item)


class RayExecutor:
    """An executor for the arena (``map``) that runs every call as a Ray task of ``num_cpus``
    CPUs. ``address``: None starts Ray on this machine (or joins the cluster ``ray start`` made
    here, or ``RAY_ADDRESS``), ``"auto"`` or ``"HOST:PORT"`` joins a running cluster; if Ray is
    already initialized in this process, that is used as it is. Used as a context manager it
    shuts Ray down on exit if it started it."""

    def __init__(self, address: str | None = None, num_cpus: float = 1, **init_kwargs: Any) -> None:
        import ray

        self.num_cpus = num_cpus
        self.started = not ray.is_initialized()
        if self.started:
            ray.init(address=address, **init_kwargs)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Submit ``fn(item)`` for every item now (``fn`` goes to the object store once); yield
        the results in the order of the items."""
        import ray

        task = ray.remote(num_cpus=self.num_cpus)(_call)
        fn_ref = ray.put(fn)
        refs = [task.remote(fn_ref, item) for item in items]
        return (ray.get(ref) for ref in refs)

    def shutdown(self) -> None:
        """Shut Ray down if this executor started it."""
        import ray

        if self.started:
            ray.shutdown()
            self.started = False

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
