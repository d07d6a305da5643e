"""The one check of a ``--ray`` address (``hearts_env.arena.sharding.check_address``, which
``init_ray`` runs before Ray starts and the flag's type runs at parse time): a malformed address
is a ray address error, and a ``HOST:PORT`` where nothing answers, or where something that is not
a Ray cluster answers, fails at once with a clear error instead of Ray's minutes of retries.
Needs no Ray: local sockets stand in for the servers."""

from __future__ import annotations

import argparse
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from hearts_env.arena import sharding
from hearts_env.arena.sharding import RayAddressError, add_ray_argument, check_address

SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # an HTTP/2 server's first frame (gRPC: a Ray cluster)


def serve(reply: Callable[[socket.socket], None]) -> Iterator[int]:
    """A local server calling ``reply`` on each connection; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                reply(connection)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@pytest.fixture
def web_server() -> Iterator[int]:
    def http(connection: socket.socket) -> None:
        connection.recv(1024)
        connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    yield from serve(http)


@pytest.fixture
def silent_server() -> Iterator[int]:
    yield from serve(lambda connection: time.sleep(1.0))


@pytest.fixture
def grpc_server() -> Iterator[int]:
    def http2(connection: socket.socket) -> None:
        connection.sendall(SETTINGS)
        connection.recv(1024)

    yield from serve(http2)


@pytest.mark.parametrize(
    "address",
    [
        *("localhost", "localhost:", ":6379", "localhost:port", "localhost:0", "localhost:70000", "ray://", "a b:x:"),
        *("localhost:-1", "localhost:65536", "localhost:+80", "localhost:٣", "localhost:" + "9" * 5000, 6379),
    ],
)
def test_a_malformed_address_is_a_ray_address_error(address):
    with pytest.raises(
        RayAddressError, match="is not a Ray address: auto, local, HOST:PORT or ray://HOST:PORT"
    ) as error:
        check_address(address)
    assert repr(address)[:80] in str(error.value)
    assert isinstance(error.value, ConnectionError) and isinstance(error.value, ValueError)


def test_a_host_name_dns_cannot_hold_is_a_ray_address_error():
    for host in ("a" * 64, "x" * 300 + ".com", "a..b"):  # a label over 63 characters, an empty one
        with pytest.raises(RayAddressError, match=f"is not a Ray address: '{host[:20]}.*' is no host name"):
            check_address(f"{host}:6379")


@pytest.mark.parametrize("address", [None, "", "auto", "local"])
def test_ray_here_and_the_clusters_ray_finds_pass_unchecked(address):
    check_address(address)


def test_an_address_where_nothing_listens_fails_at_once():
    with socket.socket() as probe:  # a port just freed: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(RayAddressError, match=f"^nothing answers at 127.0.0.1:{port} "):
        check_address(f"127.0.0.1:{port}")
    assert time.monotonic() - started < 2


def test_an_address_where_something_else_answers_fails_at_once(web_server):
    started = time.monotonic()
    for address in (f"127.0.0.1:{web_server}", f"ray://127.0.0.1:{web_server}"):
        with pytest.raises(
            RayAddressError, match=rf"^what answers at 127.0.0.1:{web_server} is not a Ray cluster .*HTTP/1.1"
        ):
            check_address(address)
    assert time.monotonic() - started < 2


def test_an_address_where_something_answers_nothing_fails_within_the_timeout(silent_server, monkeypatch):
    monkeypatch.setattr(sharding, "CONNECT_TIMEOUT", 0.3)
    started = time.monotonic()
    with pytest.raises(RayAddressError, match=r"is not a Ray cluster \(no gRPC: it said nothing within 0.3 s\)"):
        check_address(f"127.0.0.1:{silent_server}")
    assert time.monotonic() - started < 1


def test_an_address_where_grpc_answers_passes(grpc_server):
    check_address(f"127.0.0.1:{grpc_server}")
    check_address(f"ray://127.0.0.1:{grpc_server}")


def test_the_ray_flag_refuses_a_malformed_address_naming_it(capsys):
    parser = argparse.ArgumentParser(prog="prog")
    add_ray_argument(parser)
    assert parser.parse_args([]).ray is None
    assert parser.parse_args(["--ray"]).ray == ""
    assert parser.parse_args(["--ray", "auto"]).ray == "auto"
    assert parser.parse_args(["--ray", "10.0.0.1:6379"]).ray == "10.0.0.1:6379"
    with pytest.raises(SystemExit):
        parser.parse_args(["--ray", "10.0.0.1"])
    assert "argument --ray: '10.0.0.1' is not a Ray address" in capsys.readouterr().err
