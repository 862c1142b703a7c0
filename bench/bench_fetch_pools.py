"""Benchmark: one HTTP client for a batch's sites against a client per site (issue 16).

Run from the repository root::

    python -m bench.bench_fetch_pools [--sites 1000] [--concurrency 64] [--pages 4]
                                      [--origins 200] [--repeats 3]

Real sites are each an origin of their own; the throughput benches serve every URL from
one origin (one host standing in for many sites), where connections are reused from site
to site. Here ``--origins`` listeners on 127.0.0.1 (one port each: a port is an origin)
answer every GET with a 2 KB page, in this process, and ``--sites`` sites, each on one of
them, fetch ``--pages`` pages one after another, ``--concurrency`` sites at a time,
through :func:`leadengine.website.fetch.make_client` (the SSRF guard, redirects, pools):

* ``shared``: one client for every site (what a batch did until December 2026);
* ``per-site``: a client for each site, closed when its pages are fetched (what a batch
  does: :meth:`leadengine.batch.BatchRun.work_one`).

Reported: CPU per request (the client's and the listeners', which are the same in both
modes), the middle of ``--repeats`` interleaved runs. httpx's pool (httpcore 1.0) looks
at each of its connections against the others every time it places or releases a
request, so a pool holding the connections of many sites costs more a request.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Sequence

from bench.harness import RESULTS_DIR, make_parser, print_head, python_on, run_info, write_results
from leadengine.config import Settings
from leadengine.website.fetch import make_client

RESULTS = RESULTS_DIR / "fetch_pools.json"
PAGE = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Content-Length: 2000\r\nConnection: keep-alive\r\n\r\n" + b"<p>x</p>" * 250)


class Listener(asyncio.Protocol):
    """Answers each request on a connection with :data:`PAGE`."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport, self.buffer = transport, b""

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            _, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            self.transport.write(PAGE)


async def run(mode: str, sites: int, concurrency: int, pages: int, origins: int) -> float:
    """CPU milliseconds per request of one run."""
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(Listener, "127.0.0.1", 0) for _ in range(origins)]
    ports = [server.sockets[0].getsockname()[1] for server in servers]
    settings = Settings(allow_private=True)
    shared = make_client(settings)
    gate = asyncio.Semaphore(concurrency)

    async def fetch_site(index: int) -> None:
        base = f"http://127.0.0.1:{ports[index % origins]}"
        async with gate:
            if mode == "shared":
                for page in range(pages):
                    (await shared.get(f"{base}/p{page}?site={index}")).raise_for_status()
                return
            async with make_client(settings) as own:
                for page in range(pages):
                    (await own.get(f"{base}/p{page}?site={index}")).raise_for_status()

    start = time.process_time()
    await asyncio.gather(*(fetch_site(index) for index in range(sites)))
    used = time.process_time() - start
    await shared.aclose()
    for server in servers:
        server.close()
    return used / (sites * pages) * 1000


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--sites", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--pages", type=int, default=4, help="pages a site fetches")
    parser.add_argument("--origins", type=int, default=200,
                        help="listeners (origins) the sites are spread over")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{python_on()}; {args.sites} sites x {args.pages} pages over {args.origins} "
          f"origins, {args.concurrency} sites at a time")
    runs: dict[str, list[float]] = {"shared": [], "per-site": []}
    for _ in range(args.repeats):
        for mode in runs:
            runs[mode].append(asyncio.run(run(mode, args.sites, args.concurrency,
                                              args.pages, args.origins)))
    print_head("CPU per request (client and listeners), middle run [every run]")
    for mode, values in runs.items():
        print(f"  {mode:9s} {statistics.median(values):.3f} ms  "
              f"[{', '.join(f'{v:.3f}' for v in values)}]")
    saved = statistics.median(runs["shared"]) - statistics.median(runs["per-site"])
    print(f"a client per site: {saved:+.3f} ms of CPU a request less")
    write_results(RESULTS, {**run_info(args), "ms_per_request": runs, "saved_ms": saved})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
