"""The arena on a Ray cluster: blocks of deals as Ray tasks.

``play_match`` and ``round_robin`` play their deals in blocks (``block`` deals each, the agents
reseeded at the start of every block) and take an ``executor`` that runs the blocks; the results
are put together in deal order, so they depend on the seed, the deals and the block size, never
on where the blocks ran. ``RayExecutor`` runs each block as a Ray task, every block of every table
at once; Ray spreads the tasks over the cluster's CPUs.

    from hearts_env.arena import play_match
    from hearts_env.arena.sharding import RayExecutor

    with RayExecutor() as ray_tasks:  # starts Ray here, or joins a cluster: RayExecutor("auto")
        result = play_match(None, agents, deals=2000, seed=0, episode="hand", block=100, executor=ray_tasks)

Every node of the cluster needs the project installed (``pip install -e ".[ray]"``, the same
version), since each task unpickles the agents and imports ``hearts_env`` there; the agents
travel with the task (a trained policy's arrays included). ``RayActors`` keeps objects on Ray
actors instead, for work that holds state between calls (the training tables of
``hearts_env.envs.sharded``). Ray is imported only here, by the functions that need it.
"""

from __future__ import annotations

import argparse
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = [
    "RAY_MISSING",
    "RayActors",
    "RayAddressError",
    "RayExecutor",
    "add_ray_argument",
    "check_address",
    "init_ray",
    "ray_address",
    "ray_failure",
]

CONNECT_TIMEOUT = 5.0
"""Seconds a cluster's ``HOST:PORT`` has to answer before ``init_ray`` gives up."""
RAY_MISSING = 'needs Ray: pip install -e ".[ray]"'
"""What a ``--ray`` flag says where Ray is not installed."""


class RayAddressError(ConnectionError, ValueError):
    """A ``--ray`` address that names no Ray cluster: not one Ray reads, or a ``HOST:PORT`` where
    nothing answers, or where something that is not Ray answers. A ``ConnectionError`` (Ray cannot
    be joined there) and a ``ValueError`` (a bad setting)."""


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # and empty SETTINGS


def check_address(address: str | None) -> None:
    """The one check of a ``--ray`` address, done at once: None or "" (Ray started here), ``auto``
    and ``local`` pass (Ray finds the cluster, or starts one); anything else must be ``HOST:PORT``
    or ``ray://HOST:PORT`` (a port 1..65535) where a Ray cluster answers within ``CONNECT_TIMEOUT``
    seconds, else ``RayAddressError`` saying which: not such an address, nothing answers there, or
    what answers does not speak gRPC (HTTP/2), as a Ray cluster's GCS and its client server do.
    (Ray itself retries a silent or foreign address for minutes.)"""
    where = _host_and_port(address)
    if where is None:
        return
    host, port = where
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT) as connection:
            connection.sendall(_HTTP2_PREFACE)
            answer = _read(connection, 9)  # the server's first frame: its SETTINGS
    except OSError as error:
        raise RayAddressError(f"nothing answers at {host}:{port} ({error.strerror or error})") from None
    except UnicodeError:  # the name's encoding for DNS (IDNA) refuses it: a label of over 63 characters, or none
        raise RayAddressError(f"{address!r:.80} is not a Ray address: {host[:60]!r} is no host name") from None
    if len(answer) < 9 or answer[3] != 4:
        said = f"it answered {answer[:40]!r}" if answer else f"it said nothing within {CONNECT_TIMEOUT:g} s"
        raise RayAddressError(f"what answers at {host}:{port} is not a Ray cluster (no gRPC: {said})")


def _host_and_port(address: str | None) -> tuple[str, int] | None:
    """(host, port) of a ``HOST:PORT`` or ``ray://HOST:PORT`` address; None for None, "", ``auto``
    and ``local``; ``RayAddressError`` for anything else."""
    if address is None or (isinstance(address, str) and address.strip() in ("", "auto", "local")):
        return None
    host, colon, port = str(address).removeprefix("ray://").rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [::1]:6379
    digits = port.lstrip("0")  # a port of more digits than int() reads is no port either
    if (
        not isinstance(address, str)
        or not colon
        or not host.strip()
        or not (port.isascii() and port.isdigit() and len(digits) <= 5 and 0 < int(port) < 65536)
    ):
        raise RayAddressError(
            f"{address!r:.80} is not a Ray address: auto, local, HOST:PORT or ray://HOST:PORT (a port 1..65535)"
        )
    return host, int(port)


def ray_address(text: str) -> str:
    """The type of the ``--ray`` flag: ``text`` if it has the form of a Ray address
    (``check_address``'s first half, at parse time), else ``argparse.ArgumentTypeError`` saying so."""
    try:
        _host_and_port(text)
    except RayAddressError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def _read(connection: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes, until the peer stops or ``CONNECT_TIMEOUT`` passes (b"" if none)."""
    data = b""
    try:
        while len(data) < size and (chunk := connection.recv(size - len(data))):
            data += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return data


def ray_failure(address: str | None, error: BaseException) -> str:
    """Why Ray could not be had, in one line: ``cannot join the Ray cluster at ADDRESS: ...``, or
    ``cannot start Ray: ...`` (no address: Ray started here)."""
    return f"cannot {f'join the Ray cluster at {address}' if address else 'start Ray'}: {error}"


def init_ray(address: str | None = None, **init_kwargs: Any) -> bool:
    """Start Ray on this machine (``address`` None: or join the cluster ``ray start`` made here,
    or ``RAY_ADDRESS``) or join the cluster at ``address`` (``auto``, ``HOST:PORT``,
    ``ray://HOST:PORT``), unless this process has initialized Ray already; returns whether it
    did. An address that names no Ray cluster raises ``RayAddressError`` at once (``check_address``)."""
    import ray

    if ray.is_initialized():
        return False
    check_address(address)
    ray.init(address=address, **init_kwargs)
    return True


def _call(fn: Callable[[Any], Any], item: Any) -> Any:
    return fn(item)


class RayExecutor:
    """An executor for the arena (``map``) that runs every call as a Ray task of ``num_cpus``
    CPUs, on the Ray of ``init_ray(address, **init_kwargs)``: started here, a cluster joined, or
    the one this process has already initialized (used as it is). Used as a context manager it
    shuts Ray down on exit if it started it."""

    def __init__(self, address: str | None = None, num_cpus: float = 1, **init_kwargs: Any) -> None:
        self.num_cpus = num_cpus
        self.started = init_ray(address, **init_kwargs)

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


class RayActors:
    """One object ``cls(*args)`` on a Ray actor of ``num_cpus`` CPUs for each entry of ``args``,
    anywhere in the cluster, on the Ray of ``init_ray(address, **init_kwargs)``; ``call`` runs a
    method on every object at once. ``shutdown`` ends the actors, and Ray if this started it. An
    actor holds its CPUs while it lives: more than the cluster has raises ``ValueError`` (Ray
    would wait for them for ever)."""

    def __init__(
        self, cls: type, args: Sequence[tuple], address: str | None = None, num_cpus: float = 1, **init_kwargs: Any
    ) -> None:
        import ray

        self.started = init_ray(address, **init_kwargs)
        self.actors: list[Any] = []
        cpus = ray.cluster_resources().get("CPU", 0)
        if len(args) * num_cpus > cpus:
            self.shutdown()
            raise ValueError(
                f"{len(args)} actors of {num_cpus:g} CPU need {len(args) * num_cpus:g} CPUs; Ray has {cpus:g}"
            )
        actor: Any = ray.remote(num_cpus=num_cpus)(cls)
        self.actors = [actor.remote(*a) for a in args]

    def call(self, method: str, args: Sequence[tuple]) -> list[Any]:
        """``getattr(object, method)(*a)`` on every object with its entry ``a`` of ``args``, side by
        side; the results in the objects' order."""
        import ray

        return ray.get([getattr(actor, method).remote(*a) for actor, a in zip(self.actors, args, strict=True)])

    def shutdown(self) -> None:
        import ray

        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self.started:
            ray.shutdown()
            self.started = False


def add_ray_argument(
    parser: argparse._ActionsContainer,  # a parser, or a group of one
    what: str = "play the blocks as Ray tasks",
) -> None:
    """The ``--ray [ADDRESS]`` flag of the commands that run on Ray (``hearts-arena``, ``hearts-bench
    run``, the trainers): None without it, "" for Ray started here, else the cluster's address, of
    the form ``check_address`` reads (a malformed one is a usage error naming --ray; whether a Ray
    cluster answers there is checked where Ray starts, ``init_ray``)."""
    parser.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        type=ray_address,
        metavar="ADDRESS",
        help=f"{what}: Ray started here, or the cluster at ADDRESS (auto, HOST:PORT)",
    )
