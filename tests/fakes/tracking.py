"""The HTTP server every fake in this folder runs: threads for handlers (daemons, so a
hung handler never blocks the test run), 127.0.0.1 on an ephemeral port, and the open
client sockets tracked so that stopping the fake wakes handlers blocked mid-reply.

Only the standard library is used.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class TrackingServer(ThreadingHTTPServer):
    """Threading server with daemon handler threads and tracked client sockets; ``owner``
    is the fake the handlers answer for."""

    daemon_threads = True
    allow_reuse_address = False
    # socketserver's default listen backlog is 5: a batch opening 64 connections at once
    # overflowed it, and the dropped SYNs came back after 1 s, 3 s... (TCP's retry), or
    # as a broken connection.
    request_queue_size = 1024

    def __init__(self, owner: Any, handler: type[BaseHTTPRequestHandler]) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        self.conn_lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.conn_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.conn_lock:
            self.connections.discard(request)
        with contextlib.suppress(OSError):
            super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Stay quiet: clients hanging up mid-reply is expected in tests."""

    def drop_connections(self) -> None:
        """Shut down every open client socket so blocked handler threads wake up."""
        with self.conn_lock:
            conns = list(self.connections)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
