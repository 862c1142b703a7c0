"""A hostile HTTP server on 127.0.0.1: compression bombs, endless bodies, drips, lies.

Only the standard library is used (brotli/zstd bombs only when those packages are
importable). Every response closes its connection. Routes (query strings as shown):

* ``/bomb/<encodings>[?type=text/plain&size=N]`` — N zero bytes (default 1 GiB)
  compressed with each encoding in turn, ``Content-Encoding`` listing them in the order
  applied. Encodings: ``gzip``, ``x-gzip``, ``deflate`` (zlib-wrapped), ``raw-deflate``
  (raw, sent as ``deflate``), ``br``, ``zstd``. ``/bomb/gzip,gzip`` is 1 GiB inside
  about 2 kB. Built once per process and cached.
* ``/chunked-forever`` — an endless chunked HTML body.
* ``/drip[?every=1.0]`` — headers, then one body byte every ``every`` seconds, forever.
* ``/drip-headers[?every=1.0]`` — the status line and headers one byte at a time, forever.
* ``/sleep?s=2`` — waits, then a small page.
* ``/binary/<kind>[?type=text/html]`` — a file of that kind served as HTML: ``pdf``,
  ``zip``, ``png``, ``gif``, ``jpeg``, ``random``.
* ``/echo`` — a page listing the request headers; ``/echo-error`` — the same as HTTP 500.
* ``/reset`` — a TCP reset instead of an answer; ``/silent-close`` — closes without one.
* ``/short-body`` — promises 1000 bytes, sends 20, closes.
* ``/garbage`` — a reply that is not HTTP.
* ``/corrupt/<encoding>`` — ``Content-Encoding: <encoding>`` over bytes that are not.
* ``/encoding?name=<value>`` — a small page sent with ``Content-Encoding: <value>``.
* ``/redirect?to=<location>`` — 302 with that exact ``Location`` (``&bomb=1``: and a
  gzip-bomb body, which a client must not read).
* ``/loop`` — redirects to itself.
* ``/page`` — a small ordinary page.
* ``/robots.txt`` — 404, or the route named by :attr:`HostileServer.robots`.

Every request is recorded as ``(path, headers)`` in :attr:`HostileServer.requests`.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import random
import socket
import struct
import threading
import zlib
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.tracking import TrackingServer

if TYPE_CHECKING:
    from typing import Self

__all__ = ["BINARY_KINDS", "BOMB_SIZE", "HostileServer", "bomb_body", "optional_module"]

#: Zero bytes inside a bomb by default.
BOMB_SIZE = 1 << 30
_BLOCK = 1 << 20
_PAGE = (b"<!doctype html><html><head><title>Fine</title></head>"
         b"<body><p>A fine page.</p></body></html>")

BINARY_KINDS: dict[str, bytes] = {
    "pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n" + bytes(200),
    "zip": b"PK\x03\x04\x14\x00\x06\x00\x08\x00" + bytes(range(256)),
    "png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "gif": b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + bytes(range(256)),
    "jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)),
    "random": random.Random(7).randbytes(4096),
}
"""Bodies of ``/binary/<kind>``."""

_bombs: dict[tuple[str, int], bytes] = {}
_bomb_lock = threading.Lock()


def optional_module(*names: str) -> Any:
    """The first of ``names`` that imports, else None (brotli, zstd)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _raw_deflate_zeros(n: int) -> bytes:
    # One 1 MiB block of zeros deflated and ended with a full flush resets the
    # compressor, so the same bytes are valid again for every further block: 1 GiB
    # costs one block's work.
    full, rest = divmod(n, _BLOCK)
    comp = zlib.compressobj(9, zlib.DEFLATED, -15)
    segment = comp.compress(bytes(_BLOCK)) + comp.flush(zlib.Z_FULL_FLUSH)
    tail = zlib.compressobj(9, zlib.DEFLATED, -15)
    return segment * full + tail.compress(bytes(rest)) + tail.flush(zlib.Z_FINISH)


def _zeros_checksum(n: int, function: Any, start: int) -> int:
    value = start
    block = bytes(_BLOCK)
    full, rest = divmod(n, _BLOCK)
    for _ in range(full):
        value = function(block, value)
    return int(function(block[:rest], value)) & 0xFFFFFFFF


@functools.cache
def _first_layer(name: str, n: int) -> bytes:
    """``n`` zero bytes compressed with ``name``, without ever holding them."""
    if name == "x-gzip":
        return _first_layer("gzip", n)
    if name == "gzip":
        header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
        trailer = struct.pack("<II", _zeros_checksum(n, zlib.crc32, 0), n & 0xFFFFFFFF)
        return header + _raw_deflate_zeros(n) + trailer
    if name == "deflate":
        trailer = struct.pack(">I", _zeros_checksum(n, zlib.adler32, 1))
        return b"\x78\xda" + _raw_deflate_zeros(n) + trailer
    if name == "raw-deflate":
        return _raw_deflate_zeros(n)
    block = bytes(_BLOCK)
    full, rest = divmod(n, _BLOCK)
    if name == "br":
        brotli = optional_module("brotli", "brotlicffi")
        comp = brotli.Compressor(quality=5)
        parts = [comp.process(block) for _ in range(full)] + [comp.process(block[:rest])]
        return b"".join(parts) + bytes(comp.finish())
    if name == "zstd":
        zstd = optional_module("compression.zstd", "backports.zstd")
        zcomp = zstd.ZstdCompressor(level=3)
        parts = [zcomp.compress(block) for _ in range(full)] + [zcomp.compress(block[:rest])]
        return b"".join(parts) + bytes(zcomp.flush())
    raise ValueError(f"unknown encoding {name!r}")


def _next_layer(name: str, data: bytes) -> bytes:
    if name in ("gzip", "x-gzip"):
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        return comp.compress(data) + comp.flush()
    if name == "deflate":
        return zlib.compress(data, 9)
    if name == "raw-deflate":
        comp = zlib.compressobj(9, zlib.DEFLATED, -15)
        return comp.compress(data) + comp.flush()
    if name == "br":
        return bytes(optional_module("brotli", "brotlicffi").compress(data))
    if name == "zstd":
        return bytes(optional_module("compression.zstd", "backports.zstd").compress(data))
    raise ValueError(f"unknown encoding {name!r}")


def bomb_body(encodings: str, size: int = BOMB_SIZE) -> bytes:
    """``size`` zero bytes compressed with each of ``encodings`` (comma-separated, in the
    order applied); cached per process."""
    key = (encodings, size)
    with _bomb_lock:
        cached = _bombs.get(key)
        if cached is None:
            names = encodings.split(",")
            cached = _first_layer(names[0], size)
            for name in names[1:]:
                cached = _next_layer(name, cached)
            _bombs[key] = cached
    return cached


class _Server(TrackingServer):
    owner: HostileServer

    def __init__(self, owner: HostileServer) -> None:
        super().__init__(owner, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, *args: Any) -> None:
        """No access log."""

    def do_GET(self) -> None:
        """Answer as the route says."""
        self.close_connection = True
        owner = self.server.owner
        parts = urlsplit(self.path)
        owner._record(parts.path, {k: v for k, v in self.headers.items()})
        path = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if path == "/robots.txt":
            if owner.robots is None:
                self._send(404, b"not here", [("Content-Type", "text/plain")])
                return
            parts = urlsplit(owner.robots)
            path = parts.path
            query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        # The client hanging up is expected for bombs, drips and endless bodies.
        with contextlib.suppress(OSError):
            self._route(path, query)

    def _route(self, path: str, query: dict[str, str]) -> None:
        stopping = self.server.owner.stopping
        ctype = query.get("type", "text/html")
        head, _, rest = path.lstrip("/").partition("/")
        if head == "bomb":
            size = int(query.get("size", BOMB_SIZE))
            sent = ", ".join("deflate" if n == "raw-deflate" else n for n in rest.split(","))
            self._send(200, bomb_body(rest, size), [("Content-Type", ctype),
                                                    ("Content-Encoding", sent)])
        elif head == "chunked-forever":
            self._start(200, [("Content-Type", ctype), ("Transfer-Encoding", "chunked")])
            chunk = b"<p>" + b"endless " * 1000 + b"</p>\n"
            frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
            while not stopping.is_set():
                self.wfile.write(frame)
        elif head == "drip":
            every = float(query.get("every", "1.0"))
            self._start(200, [("Content-Type", ctype), ("Content-Length", "1000000000")])
            self.wfile.write(b"<html><body>")
            while not stopping.wait(every):
                self.wfile.write(b"x")
                self.wfile.flush()
        elif head == "drip-headers":
            every = float(query.get("every", "1.0"))
            for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Slow: " + b"y" * 10**6:
                if stopping.wait(every):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        elif head == "sleep":
            if not stopping.wait(float(query.get("s", "2"))):
                self._send(200, _PAGE, [("Content-Type", "text/html")])
        elif head == "binary":
            self._send(200, BINARY_KINDS[rest], [("Content-Type", ctype)])
        elif head in ("echo", "echo-error"):
            lines = "".join(f"<li>{k}: {v}</li>" for k, v in self.headers.items())
            body = f"<html><body><h1>Your request</h1><ul>{lines}</ul></body></html>".encode()
            self._send(500 if head == "echo-error" else 200, body,
                       [("Content-Type", "text/html; charset=utf-8")])
        elif head == "reset":
            self._reset()
        elif head == "silent-close":
            self.connection.shutdown(socket.SHUT_RDWR)
        elif head == "short-body":
            self._start(200, [("Content-Type", "text/html"), ("Content-Length", "1000")])
            self.wfile.write(b"<html><body>short...")
        elif head == "garbage":
            self.wfile.write(b"THIS IS NOT HTTP AT ALL\r\n\r\n")
        elif head == "corrupt":
            self._send(200, b"\x1f\x8b\x08\x00garbage, not compressed data" * 10,
                       [("Content-Type", ctype), ("Content-Encoding", rest)])
        elif head == "encoding":
            self._send(200, _PAGE, [("Content-Type", ctype),
                                    ("Content-Encoding", query.get("name", ""))])
        elif head == "redirect":
            body = bomb_body("gzip,gzip") if query.get("bomb") else b""
            extra = [("Content-Encoding", "gzip, gzip")] if body else []
            # Sent as UTF-8 bytes, as servers do (http.server would refuse non-Latin-1).
            location = query.get("to", "/page").encode("utf-8").decode("latin-1")
            self._send(302, body, [("Location", location), ("Content-Type", "text/html"),
                                   *extra])
        elif head == "loop":
            self._send(302, b"", [("Location", "/loop")])
        elif head == "page":
            self._send(200, _PAGE, [("Content-Type", "text/html; charset=utf-8")])
        else:
            self._send(404, b"<html><body>not found</body></html>",
                       [("Content-Type", "text/html")])

    def _start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in [*headers, ("Connection", "close")]:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self._start(status, [*headers, ("Content-Length", str(len(body)))])
        self.wfile.write(body)
        self.wfile.flush()

    def _reset(self) -> None:
        conn = self.connection
        with contextlib.suppress(OSError):
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.rfile.close()
        with contextlib.suppress(OSError):
            conn.close()


class HostileServer:
    """The routes above on 127.0.0.1, an ephemeral port, one thread per connection."""

    def __init__(self) -> None:
        #: Route served at /robots.txt (e.g. "/bomb/gzip,gzip", "/drip?every=0.2"),
        #: or None for a 404 (no rules).
        self.robots: str | None = None
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("HostileServer is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """Absolute URL of ``path`` on this server."""
        return self.base_url + "/" + path.lstrip("/")

    def start(self) -> Self:
        """Serve in a daemon thread."""
        if self._server is None:
            self.stopping.clear()
            self._server = _Server(self)
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.01},
                                            name=f"HostileServer:{self.port}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and wake every drip and endless body. Idempotent."""
        server, thread = self._server, self._thread
        if server is None:
            return
        self.stopping.set()
        server.shutdown()
        server.drop_connections()
        server.server_close()
        if thread is not None:
            thread.join(timeout=2.0)
        self._server = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    def _record(self, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append((path, headers))
