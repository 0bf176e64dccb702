"""Who may reach the simulated board's web server.

The page drives a board, so by default only this machine may: connections whose client address
is not loopback are refused (HTTP 403; a WebSocket is closed with 1008, policy violation) unless
the server was started with `--allow-remote`. Two browser-borne attacks are refused as well:

- a page of another site opening a WebSocket to the board: a browser always sends `Origin` on a
  WebSocket upgrade, and it must be this server's own origin (`http://` + the `Host` it was
  reached by);
- DNS rebinding (another site's name made to resolve to 127.0.0.1, so that its origin and host
  agree): without `--allow-remote` the `Host` must be a loopback name or address.

Clients without an `Origin` header (scripts, `websockets`, curl) pass the origin check; they
are local programs, already trusted with the machine.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from starlette.types import ASGIApp, Receive, Scope, Send

POLICY_VIOLATION = 1008
LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or bool(mapped and mapped.is_loopback)


def host_name(host_header: str) -> str:
    """The name or address part of a Host header ("[::1]:8800" -> "::1")."""
    if host_header.startswith("["):
        return host_header[1 : host_header.find("]")] if "]" in host_header else host_header
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def _headers(scope: Scope) -> Mapping[str, str]:
    return {
        key.decode("latin-1").lower(): value.decode("latin-1")
        for key, value in scope.get("headers", ())
    }


def refusal(scope: Scope, allow_remote: bool) -> str | None:
    """Why this connection is refused, or None to let it through."""
    headers = _headers(scope)
    host = headers.get("host", "")
    if not allow_remote:
        client = scope.get("client")
        address = client[0] if client else None
        if not is_loopback(address):
            return (
                f"connections from {address or 'an unknown address'} are refused: "
                "this board serves only its own machine (see --allow-remote)"
            )
        if not is_loopback(host_name(host)):
            return f"this board answers only to a loopback address, not {host or 'no Host'!r}"
    if scope["type"] == "websocket" and "origin" in headers:
        scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
        own = f"{scheme}://{host}".lower()
        if headers["origin"].lower() != own:
            return f"WebSocket from origin {headers['origin']!r} refused: only {own} may connect"
    return None


class Guard:
    """ASGI middleware refusing what `refusal` says."""

    def __init__(self, app: ASGIApp, allow_remote: bool = False) -> None:
        self.app = app
        self.allow_remote = allow_remote

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            reason = refusal(scope, self.allow_remote)
            if reason is not None:
                if scope["type"] == "websocket":
                    await send({"type": "websocket.close", "code": POLICY_VIOLATION})
                else:
                    body = f"403 Forbidden: {reason}\n".encode()
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 403,
                            "headers": [
                                (b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(body)).encode()),
                            ],
                        }
                    )
                    await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
