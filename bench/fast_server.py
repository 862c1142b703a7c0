"""A near-idle fake web and LLM server for the throughput benchmarks, in its own process.

The test fakes (:mod:`tests.fakes`) are thread-per-connection ``http.server`` servers:
right for tests, but at a few hundred requests a second they take a tenth of this
2-core machine in the bench's own process, so a batch measured against them competes
with its own servers for the cores. This one is a single asyncio protocol with canned
answers (about 30 us of CPU a request), so what a benchmark measures is the batch:

* ``GET /lead/...``: 200 with ``--page`` (keep-alive, ``Content-Length``);
* ``POST .../chat/completions``: after ``--delay`` seconds, 200 with an OpenAI chat
  completion whose content is ``--answer`` (a JSON file), 100 + 50 tokens of usage;
* ``GET /_stats``: ``{"pages": N, "chats": N, "other": N}`` (the bench's checks);
* ``GET /_chat_times``: ``{"pages": [...], "asked": [...], "answered": [...]}``, the
  ``time.time()`` of every page asked for and chat completion asked for and answered
  (a run's timeline);
* anything else (``/robots.txt`` among them): 404.

Run as ``python -m bench.fast_server --page FILE --answer FILE [--delay 0.3]``; it prints
its port on the first line of stdout and serves on 127.0.0.1 until killed. Use
:class:`FastServer` to run it from a bench.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from bench.harness import REPO

COUNTS = {"pages": 0, "chats": 0, "other": 0}
#: When each page was asked for, and each chat completion asked for and answered
#: (``time.time()``), for a
#: bench's timeline of a run: how long before the first request, how full the LLM's
#: slots were.
CHAT_TIMES: dict[str, list[float]] = {"pages": [], "asked": [], "answered": []}


def response(status: str, body: bytes, content_type: str = "text/html; charset=utf-8"
             ) -> bytes:
    return (f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: keep-alive\r\n\r\n").encode() + body


class Http(asyncio.Protocol):
    """One client connection: requests parsed from the buffer, answered in order."""

    def __init__(self, page: bytes, chat: bytes, delay: float) -> None:
        self.page, self.chat, self.delay = page, chat, delay
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.replies: asyncio.Queue[asyncio.Future[bytes]] = asyncio.Queue()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.sender = asyncio.ensure_future(self.send_in_order())

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            head = self.buffer[:end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            if len(self.buffer) < end + 4 + length:
                return  # the body is still coming
            self.buffer = self.buffer[end + 4 + length:]
            method, path = head.split(" ", 2)[:2]
            self.replies.put_nowait(asyncio.ensure_future(self.answer(method, path)))

    async def answer(self, method: str, path: str) -> bytes:
        if method == "GET" and path.startswith("/lead/"):
            COUNTS["pages"] += 1
            CHAT_TIMES["pages"].append(time.time())
            return self.page
        if method == "POST" and path.endswith("/chat/completions"):
            COUNTS["chats"] += 1
            CHAT_TIMES["asked"].append(time.time())
            await asyncio.sleep(self.delay)
            CHAT_TIMES["answered"].append(time.time())
            return self.chat
        if path == "/_stats":
            return response("200 OK", json.dumps(COUNTS).encode(), "application/json")
        if path == "/_chat_times":
            return response("200 OK", json.dumps(CHAT_TIMES).encode(), "application/json")
        COUNTS["other"] += 1
        return response("404 Not Found", b"not found")

    async def send_in_order(self) -> None:
        while True:
            reply = await (await self.replies.get())
            if self.transport is None or self.transport.is_closing():
                return
            self.transport.write(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.replies.put_nowait(asyncio.ensure_future(asyncio.sleep(0, b"")))


def chat_reply(answer: dict[str, Any]) -> bytes:
    body = {"id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()),
            "model": "fake-model",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                         "message": {"role": "assistant", "content": json.dumps(answer),
                                     "refusal": None}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}}
    return response("200 OK", json.dumps(body).encode(), "application/json")


async def serve(page: bytes, chat: bytes, delay: float) -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Http(page, chat, delay), "127.0.0.1", 0,
                                      backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--page", type=Path, required=True)
    parser.add_argument("--answer", type=Path, required=True)
    parser.add_argument("--delay", type=float, default=0.3)
    args = parser.parse_args()
    page = response("200 OK", args.page.read_bytes())
    chat = chat_reply(json.loads(args.answer.read_text(encoding="utf-8")))
    asyncio.run(serve(page, chat, args.delay))


class FastServer:
    """:mod:`bench.fast_server` in a child process: ``url(path)``, ``stats()``, ``cpu_s``."""

    def __init__(self, page: Path, answer: Path, delay: float) -> None:
        self.args = [sys.executable, "-m", "bench.fast_server", "--page", str(page),
                     "--answer", str(answer), "--delay", str(delay)]

    def __enter__(self) -> FastServer:
        self.process = subprocess.Popen(self.args, cwd=REPO, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.port = int(self.process.stdout.readline())
        self.base_url = f"http://127.0.0.1:{self.port}"
        return self

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def stats(self) -> dict[str, int]:
        import httpx

        return dict(httpx.get(self.url("_stats"), timeout=10).json())

    def chat_times(self) -> dict[str, list[float]]:
        import httpx

        return dict(httpx.get(self.url("_chat_times"), timeout=10).json())

    @property
    def cpu_s(self) -> float:
        """CPU seconds the server has used so far (Linux /proc)."""
        import os

        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.process.kill()
        self.process.wait()


if __name__ == "__main__":
    main()
