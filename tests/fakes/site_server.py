"""Serve fixture websites over real HTTP on 127.0.0.1, plus scripted special routes.

Special routes (see :meth:`SiteServer.route`) simulate hostile or flaky servers: slow
responses, slow-drip bodies, redirects, connection resets and gzip bombs.

Only the standard library is used.
"""

from __future__ import annotations

import contextlib
import pathlib
import socket
import struct
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import Self

from urllib.parse import unquote, urlsplit

from tests.fakes.tracking import TrackingServer

__all__ = ["CONTENT_TYPES", "SiteServer"]

CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html",
    ".htm": "text/html",
    ".txt": "text/plain",
    ".pdf": "application/pdf",
    ".png": "image/png",
    ".json": "application/json",
}
"""Static-file content types by suffix (no charset, so clients must sniff); else octet-stream."""

_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


def _gzip_zeros(n: int) -> bytes:
    """Gzip-compress ``n`` zero bytes quickly (a 200 MB bomb takes milliseconds).

    One 1 MiB block of zeros is deflated and ended with a full flush, which resets the
    compressor, so the same bytes are valid for every further block; they are repeated,
    then a fresh stream for the remainder (with the final block) and the gzip trailer follow.
    """
    block = 1 << 20
    full, rest = divmod(n, block)
    zeros = bytes(block)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = comp.compress(zeros) + comp.flush(zlib.Z_FULL_FLUSH)
    tail_comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    tail = tail_comp.compress(zeros[:rest]) + tail_comp.flush(zlib.Z_FINISH)
    crc = 0
    for _ in range(full):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(zeros[:rest], crc)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"  # gzip, deflate, no name, max comp
    trailer = struct.pack("<II", crc & 0xFFFFFFFF, n & 0xFFFFFFFF)
    return header + segment * full + tail + trailer


@dataclass(frozen=True)
class _Route:
    """A scripted response for one path."""

    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"
    delay: float = 0.0
    drip: tuple[int, float] | None = None
    redirect: str | None = None
    reset: bool = False
    gzip_bomb: int | None = None


class _Server(TrackingServer):
    owner: SiteServer

    def __init__(self, owner: SiteServer) -> None:
        super().__init__(owner, _Handler)


class _Handler(BaseHTTPRequestHandler):
    """Serves static files from the owner's root or a scripted :class:`_Route`."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # avoid 40 ms Nagle/delayed-ACK stalls on loopback
    server: _Server

    def log_message(self, *args: Any) -> None:
        """Silence the default stderr access log."""

    def do_GET(self) -> None:
        """Handle GET requests."""
        self._handle()

    def do_HEAD(self) -> None:
        """Handle HEAD requests like GET, without a body."""
        self._handle()

    def do_POST(self) -> None:
        """Handle POST requests (body discarded) like GET."""
        length = int(self.headers.get("Content-Length") or 0)
        if length > 0:
            self.rfile.read(length)
        self._handle()

    # -- helpers ---------------------------------------------------------------------------

    def _handle(self) -> None:
        owner = self.server.owner
        owner._record(self.command, self.path, self.client_address[1])
        try:
            route = owner._lookup(self.path)
            if route is not None:
                self._serve_route(route)
            else:
                self._serve_static()
        except OSError:
            self.close_connection = True

    def _send(
        self,
        status: int,
        body: bytes,
        headers: list[tuple[str, str]],
        drip: tuple[int, float] | None = None,
    ) -> None:
        stopping = self.server.owner._stopping
        self.send_response(status)
        names = {name.lower() for name, _ in headers}
        for name, value in headers:
            self.send_header(name, value)
        if "content-length" not in names:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        if self.command == "HEAD" or not body:
            return
        if drip is None:
            self.wfile.write(body)
            return
        size, interval = max(1, drip[0]), drip[1]
        for start in range(0, len(body), size):
            if start and stopping.wait(interval):
                self.close_connection = True
                return
            self.wfile.write(body[start : start + size])
            self.wfile.flush()

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0, then close)."""
        self.close_connection = True
        conn = self.connection
        with contextlib.suppress(OSError):
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.rfile.close()
        with contextlib.suppress(OSError):
            conn.close()

    def _serve_route(self, route: _Route) -> None:
        owner, path = self.server.owner, urlsplit(self.path).path
        owner._busy(path, 1)
        try:
            stopped = route.delay > 0 and owner._stopping.wait(route.delay)
        finally:
            owner._busy(path, -1)  # before the answer: the next request may follow it
        if stopped:
            self.close_connection = True
            return
        if route.reset:
            self._reset()
            return
        extra = list(route.headers.items())
        overridden = {name.lower() for name, _ in extra}
        base: list[tuple[str, str]] = []
        if route.redirect is not None:
            status = route.status if route.status in _REDIRECT_CODES else 302
            base.append(("Location", route.redirect))
            body = route.body
        elif route.gzip_bomb is not None:
            status = route.status
            body = self.server.owner._bomb(route.gzip_bomb)
            base.append(("Content-Encoding", "gzip"))
        else:
            status = route.status
            body = route.body
        base.append(("Content-Type", route.content_type))
        headers = [(k, v) for k, v in base if k.lower() not in overridden] + extra
        self._send(status, body, headers, route.drip)

    def _serve_static(self) -> None:
        owner = self.server.owner
        raw_path = urlsplit(self.path).path
        parts = [p for p in unquote(raw_path).replace("\\", "/").split("/") if p not in ("", ".")]
        if ".." in parts or any("\0" in p for p in parts):
            self._error(403, "Forbidden")
            return
        root = owner.root.resolve()
        target = root.joinpath(*parts).resolve()
        if target != root and root not in target.parents:
            self._error(403, "Forbidden")
            return
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            self._error(404, "Not Found")
            return
        body = target.read_bytes()
        ctype = CONTENT_TYPES.get(target.suffix.lower(), "application/octet-stream")
        self._send(200, body, [("Content-Type", ctype)])

    def _error(self, status: int, reason: str) -> None:
        body = (
            f"<!doctype html><html><head><title>{status} {reason}</title></head>"
            f"<body><h1>{status} {reason}</h1></body></html>"
        ).encode()
        self._send(status, body, [("Content-Type", "text/html; charset=utf-8")])


class SiteServer:
    """Serves a directory tree on 127.0.0.1 plus scripted special routes.

    Static files under ``root`` are served by path (a directory serves its
    ``index.html``); routes registered with :meth:`route` take precedence. Every request
    is recorded as ``(method, path)`` in :attr:`requests`.
    """

    def __init__(self, root: pathlib.Path) -> None:
        self.root = pathlib.Path(root)
        self.requests: list[tuple[str, str]] = []
        #: The client's port of each request (its connection), in the order of requests.
        self.ports: list[int] = []
        #: Requests of each routed path being answered at once, and the most there were.
        self.busy: dict[str, int] = {}
        self.most_busy: dict[str, int] = {}
        self._routes: dict[str, _Route] = {}
        self._bombs: dict[int, bytes] = {}
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The TCP port the server is bound to (only after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("SiteServer is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """Absolute URL for ``path`` on this server."""
        return self.base_url + "/" + path.lstrip("/")

    def start(self) -> Self:
        """Bind to 127.0.0.1 on an ephemeral port and serve in a daemon thread."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"SiteServer:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; wakes sleeping handlers and closes open connections. Idempotent."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        server.drop_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2.0)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- scripting -------------------------------------------------------------------------

    def route(
        self,
        path: str,
        *,
        status: int = 200,
        body: bytes | str = b"",
        headers: dict[str, str] | None = None,
        content_type: str = "text/html; charset=utf-8",
        delay: float = 0.0,
        drip: tuple[int, float] | None = None,
        redirect: str | None = None,
        reset: bool = False,
        gzip_bomb: int | None = None,
    ) -> None:
        """Script the response for ``path`` (overrides any static file there).

        ``path`` may include a query string to match only that exact request target;
        otherwise it matches any query. Options:

        * ``redirect`` — 302 (or ``status`` if it is a 3xx redirect code) with ``Location``
          exactly as given (absolute or relative).
        * ``delay`` — sleep this many seconds before sending headers.
        * ``drip=(n_bytes, interval)`` — send headers (with the full Content-Length), then
          the body ``n_bytes`` at a time, sleeping ``interval`` seconds between chunks.
        * ``reset`` — close the socket abruptly with a TCP RST, sending no response.
        * ``gzip_bomb=N`` — body is N zero bytes gzip-compressed, with
          ``Content-Encoding: gzip`` and ``content_type``.
        * ``status`` / ``headers`` / ``content_type`` — as given; ``headers`` override
          the defaults case-insensitively.
        """
        data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
        if gzip_bomb is not None:
            self._bomb(gzip_bomb)
        key = "/" + path.lstrip("/")
        with self._lock:
            self._routes[key] = _Route(
                status=status,
                body=data,
                headers=dict(headers or {}),
                content_type=content_type,
                delay=delay,
                drip=drip,
                redirect=redirect,
                reset=reset,
                gzip_bomb=gzip_bomb,
            )

    # -- internals used by the handler -----------------------------------------------------

    def _busy(self, path: str, change: int) -> None:
        with self._lock:
            self.busy[path] = self.busy.get(path, 0) + change
            self.most_busy[path] = max(self.most_busy.get(path, 0), self.busy[path])

    def _record(self, method: str, path: str, port: int) -> None:
        with self._lock:
            self.requests.append((method, path))
            self.ports.append(port)

    def _lookup(self, target: str) -> _Route | None:
        with self._lock:
            route = self._routes.get(target)
            if route is None:
                route = self._routes.get(urlsplit(target).path)
            return route

    def _bomb(self, n: int) -> bytes:
        with self._lock:
            cached = self._bombs.get(n)
        if cached is None:
            cached = _gzip_zeros(n)
            with self._lock:
                self._bombs[n] = cached
        return cached
