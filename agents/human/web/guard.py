"""What keeps other web pages from acting for the person: host and origin checks, and the headers
that stop the browser from running anything the server did not write.

A page on another site can make the person's browser send requests to ``hearts-web`` on their
machine. A "simple" cross-site request (a form post, a ``text/plain`` fetch) needs no CORS
preflight, so the server itself must refuse it:

* every request must name one of the server's own hosts in ``Host`` (a DNS-rebinding page sends
  its own name there), unless the server listens on every address (``--host 0.0.0.0``);
* a request that changes anything (any method but GET and HEAD) must come from the server's own
  page: an ``Origin`` header, when sent, must be the server's origin, and ``Sec-Fetch-Site``, when
  sent, must say ``same-origin`` (a program such as curl sends neither and is let through);
* the endpoints read only ``application/json`` bodies (replays: ``application/x-ndjson``), types
  a cross-site page cannot send without a preflight that this server never grants.

Every response carries a Content-Security-Policy that runs only the server's own script and
style, and refuses framing, so even a string that slipped into the page could not run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
SAFE_METHODS = ("GET", "HEAD")
HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
        "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
}


def allowed_hosts(host: str) -> frozenset[str] | None:
    """The names a request may give in ``Host`` for a server listening on ``host``; None (any) for a
    server listening on every address."""
    if host in WILDCARDS:
        return None
    return frozenset(h.lower() for h in (*LOOPBACK, host.strip("[]")))


def _host_name(host: str) -> str:
    """``Host`` without its port: ``[::1]:8000`` -> ``::1``, ``localhost:8000`` -> ``localhost``."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    return host.rsplit(":", 1)[0].lower() if host.count(":") == 1 else host.lower()


def refusal(scope: Scope, hosts: frozenset[str] | None) -> str | None:
    """Why this request is refused, or None if it may go on."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    host = headers.get("host", "")
    if hosts is not None and _host_name(host) not in hosts:
        return f"this server answers only to {', '.join(sorted(hosts))}, not to the host {host!r:.60}"
    if scope.get("method", "GET") in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and origin != f"{scope.get('scheme', 'http')}://{host}":
        return f"a request from another site ({origin!r:.60}) may not change anything here"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"a {site} request may not change anything here"
    return None


class Guard:
    """ASGI middleware: refuses (403, ``{"error": ...}``) what ``refusal`` names, and adds ``HEADERS``
    to every response."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str] | None) -> None:
        self.app = app
        self.hosts = None if hosts is None else frozenset(h.lower() for h in hosts)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.encode(), v.encode()) for k, v in HEADERS.items()]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        why = refusal(scope, self.hosts)
        if why is None:
            await self.app(scope, receive, send_with_headers)
            return
        from starlette.responses import JSONResponse

        await JSONResponse({"error": why}, status_code=403)(scope, receive, send_with_headers)
