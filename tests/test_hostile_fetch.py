"""Hostile servers: compression bombs, endless and dripping bodies, binaries served as
HTML, broken connections and odd redirects, against tests/fakes/hostile_server.py."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import quote

import pytest

from leadengine import ContentError, FetchError, Settings
from leadengine.website.fetch import Page, fetch_page, make_client, supported_encodings
from leadengine.website.load import load_site
from leadengine.website.robots import MAX_ROBOTS_BYTES, RobotsPolicy
from tests.conftest import REPO
from tests.fakes.hostile_server import BOMB_SIZE, HostileServer, bomb_body, optional_module

_BROTLI = "br" in supported_encodings()
_ZSTD = "zstd" in supported_encodings()
ENCODINGS = [
    "gzip", "x-gzip", "deflate", "raw-deflate", "gzip,gzip", "deflate,gzip", "gzip,deflate",
    "raw-deflate,gzip", "x-gzip,deflate",
    pytest.param("br", marks=pytest.mark.skipif(not _BROTLI, reason="no brotli >= 1.2")),
    pytest.param("gzip,br", marks=pytest.mark.skipif(not _BROTLI, reason="no brotli >= 1.2")),
    pytest.param("zstd", marks=pytest.mark.skipif(not _ZSTD, reason="no zstd module")),
    pytest.param("zstd,gzip", marks=pytest.mark.skipif(not _ZSTD, reason="no zstd module")),
]
MB = 1_000_000


@pytest.fixture(scope="module")
def server() -> Iterator[HostileServer]:
    with HostileServer() as hostile:
        yield hostile


@pytest.fixture
def hostile(server: HostileServer) -> Iterator[HostileServer]:
    """The module's server, with no robots.txt route left over from another test."""
    server.robots = None
    yield server
    server.robots = None


def fetch(url: str, **settings: Any) -> Page:
    settings.setdefault("allow_private", True)
    return asyncio.run(fetch_page(url, Settings(**settings)))


def peak_python_memory(run: Callable[[], Any]) -> tuple[Any, int]:
    """``run()``'s result and the peak bytes Python allocated meanwhile."""
    tracemalloc.start()
    try:
        result = run()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- compression bombs -----------------------------------------------------------------------


@pytest.mark.parametrize("encodings", ENCODINGS)
def test_compression_bomb_is_cut_at_the_byte_cap(hostile: HostileServer,
                                                 encodings: str) -> None:
    wire = len(bomb_body(encodings))  # built before measuring: server memory is not ours
    started = time.monotonic()
    page, peak = peak_python_memory(
        lambda: fetch(hostile.url(f"bomb/{encodings}"), max_bytes=MB))
    assert page.truncated and len(page.html) == MB
    # 1 GiB inside; a few copies of the 1 MB cap in memory, never a decompressed read.
    assert wire < 1_100_000 and peak < 16 * MB, (wire, peak)
    assert time.monotonic() - started < 5


def test_a_double_gzip_bomb_is_tiny_on_the_wire() -> None:
    assert len(bomb_body("gzip,gzip")) < 3_000 and BOMB_SIZE == 1 << 30


def test_three_stacked_encodings_are_refused(hostile: HostileServer) -> None:
    with pytest.raises(FetchError, match=r"too many content encodings \(3: gzip, gzip, gzip\)"):
        fetch(hostile.url("bomb/gzip,gzip,gzip"))


def test_an_encoding_that_cannot_be_decoded_is_named(hostile: HostileServer) -> None:
    with pytest.raises(FetchError, match=r": the response is compressed with 'compress', "
                                         r"which cannot be decoded$"):
        fetch(hostile.url("encoding?name=compress"))
    if not _BROTLI:
        with pytest.raises(FetchError, match="compressed with 'br', which cannot be decoded"):
            fetch(hostile.url("encoding?name=br"))


def test_identity_and_an_empty_encoding_are_no_encoding(hostile: HostileServer) -> None:
    assert "A fine page" in fetch(hostile.url("encoding?name=identity")).html
    assert "A fine page" in fetch(hostile.url("encoding?name=")).html


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_corrupt_compressed_data_is_an_error_in_words(hostile: HostileServer,
                                                      encoding: str) -> None:
    with pytest.raises(FetchError, match=f": the server sent corrupt {encoding} data$"):
        fetch(hostile.url(f"corrupt/{encoding}"))


def test_only_decodable_encodings_are_asked_for(hostile: HostileServer) -> None:
    page = fetch(hostile.url("echo"))
    assert f"Accept-Encoding: {', '.join(supported_encodings())}</li>" in page.html


def test_a_robots_txt_bomb_is_read_up_to_the_robots_cap(hostile: HostileServer) -> None:
    hostile.robots = "/bomb/gzip,gzip"
    bomb_body("gzip,gzip")

    async def check() -> None:
        settings = Settings(allow_private=True)
        async with make_client(settings) as client:
            await RobotsPolicy(client, settings).check(hostile.url("page"))

    _, peak = peak_python_memory(lambda: asyncio.run(check()))
    assert peak < 8 * MAX_ROBOTS_BYTES  # zeros: no rules, so allowed
    site = asyncio.run(load_site(hostile.url("page"), Settings(allow_private=True)))
    assert "A fine page" in site.content


def test_a_robots_txt_with_too_many_encodings_means_disallow(hostile: HostileServer) -> None:
    hostile.robots = "/bomb/gzip,gzip,gzip"
    with pytest.raises(FetchError, match=r"robots.txt could not be read \(too many content "
                                         r"encodings"):
        asyncio.run(load_site(hostile.url("page"), Settings(allow_private=True)))


_SIXTEEN_BOMBS = """
import asyncio, json, resource, sys, time
from leadengine import Settings
from leadengine.website.fetch import fetch_page, make_client
from leadengine.website.robots import RobotsPolicy

base, paths = sys.argv[1], sys.argv[2:]


def peak_kb():
    # VmHWM is this process image's own peak. ru_maxrss is not: Linux carries the parent's
    # resident size at fork over the exec, so a big pytest process (as in CI) would
    # count as this child's.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


before = peak_kb()

async def main():
    settings = Settings(allow_private=True)
    async with make_client(settings) as client:
        # Each row its own robots policy, so all 16 read the robots.txt bomb too.
        robots = [RobotsPolicy(client, settings).check(base + p) for p in paths]
        pages = [fetch_page(base + p, settings, client) for p in paths]
        return await asyncio.gather(*robots, *pages)

started = time.monotonic()
results = asyncio.run(main())[len(paths):]
print(json.dumps({"seconds": time.monotonic() - started,
                  "imports_kb": before,
                  "peak_kb": peak_kb(),
                  "pages": [[len(p.html), p.truncated] for p in results]}))
"""


def test_sixteen_bombs_at_once_stay_under_300_mb(hostile: HostileServer) -> None:
    # Measured in a child process, by its own VmHWM: the peak of this process (pytest,
    # the server, other tests) is not the fetch's, and ru_maxrss inherits it over exec.
    encodings = ["gzip,gzip", "deflate,gzip", "gzip", "raw-deflate,gzip", "x-gzip",
                 "gzip,deflate", "deflate", "raw-deflate"] * 2
    encodings[-2:] = ["gzip,br" if _BROTLI else "gzip", "zstd,gzip" if _ZSTD else "gzip"]
    for name in set(encodings):
        bomb_body(name)
    hostile.robots = "/bomb/gzip,gzip"
    paths = [f"/bomb/{name}?row={i}" for i, name in enumerate(encodings)]
    result = subprocess.run([sys.executable, "-c", _SIXTEEN_BOMBS, hostile.base_url, *paths],
                            capture_output=True, text=True, timeout=120, cwd=REPO)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    default_cap = Settings().max_bytes
    assert report["pages"] == [[default_cap, True]] * 16
    assert report["peak_kb"] < 300 * 1024, report
    assert report["seconds"] < 30, report


# -- endless and slow bodies -----------------------------------------------------------------


def test_an_endless_chunked_body_stops_at_the_cap(hostile: HostileServer) -> None:
    started = time.monotonic()
    page = fetch(hostile.url("chunked-forever"), max_bytes=300_000)
    assert page.truncated and len(page.html) == 300_000
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("route", ["drip?every=1.0", "drip-headers?every=0.2"])
def test_a_drip_ends_at_the_page_deadline(hostile: HostileServer, route: str) -> None:
    # One byte a second never trips the 5 s read timeout; the 2 s page deadline ends it.
    started = time.monotonic()
    with pytest.raises(FetchError, match=r": took longer than 2s \(slow server\)$"):
        fetch(hostile.url(route), page_deadline=2.0, timeout=5.0)
    assert time.monotonic() - started < 3.5


def test_a_dripping_robots_txt_ends_at_the_page_deadline(hostile: HostileServer) -> None:
    hostile.robots = "/drip?every=0.2"
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"robots.txt could not be read \(not finished "
                                         r"within 1s\)"):
        asyncio.run(load_site(hostile.url("page"), Settings(allow_private=True,
                                                            page_deadline=1.0)))
    assert time.monotonic() - started < 2.5


def test_a_silent_robots_txt_times_out_in_words(hostile: HostileServer) -> None:
    hostile.robots = "/sleep?s=3"
    with pytest.raises(FetchError, match=r"/page: robots.txt: timed out after 0.3s waiting "
                                         r"for the server$"):
        asyncio.run(load_site(hostile.url("page"), Settings(allow_private=True, timeout=0.3)))


def test_a_reset_robots_txt_is_said_in_words(hostile: HostileServer) -> None:
    hostile.robots = "/reset"
    with pytest.raises(FetchError, match=r"robots.txt could not be read \((connection reset "
                                         r"by the server|the server closed the connection "
                                         r"without answering)\)"):
        asyncio.run(load_site(hostile.url("page"), Settings(allow_private=True)))


# -- what is not a page ----------------------------------------------------------------------


@pytest.mark.parametrize("kind,said", [
    ("pdf", "a PDF document"), ("zip", r"a ZIP archive \(or Office document\)"),
    ("png", "a PNG image"), ("gif", "a GIF image"), ("jpeg", "a JPEG image"),
    ("random", "binary data"),
])
def test_a_binary_served_as_html_is_named(hostile: HostileServer, kind: str, said: str) -> None:
    with pytest.raises(ContentError, match=f": is {said}, not an HTML page$"):
        fetch(hostile.url(f"binary/{kind}"))


# -- broken connections, in words ------------------------------------------------------------


@pytest.mark.parametrize("route,said", [
    ("reset", "(connection reset by the server|the server closed the connection without "
              "answering)"),
    ("silent-close", "the server closed the connection without answering"),
    ("short-body", "the server closed the connection before the page was complete"),
    ("garbage", r"the server sent an invalid HTTP response \(.*\)"),
    ("echo-error", "HTTP 500 Internal Server Error"),
])
def test_broken_answers_are_said_in_words(hostile: HostileServer, route: str, said: str) -> None:
    with pytest.raises(FetchError, match=f"/{route}: {said}$"):
        fetch(hostile.url(route))


# -- redirects -------------------------------------------------------------------------------


def redirect(hostile: HostileServer, location: str, bomb: bool = False) -> str:
    return hostile.url(f"redirect?to={quote(location, safe='')}" + ("&bomb=1" if bomb else ""))


@pytest.mark.parametrize("location,path", [
    ("http:\\\\{host}\\page", "/page"), ("http:\\\\\\\\{host}\\\\page", "//page"),
    ("http:/{host}/page", "/page"), ("http:///{host}/page", "/page"),
    ("\\\\{host}\\page", "/page"), ("/\\{host}/page", "/page"),
    ("http:\\\\{full}\\page", "/page"), ("  http://{host}/page\t", "/page"),
    ("page", "/page"), ("/page?q=a b", "/page?q=a%20b"),
])
def test_redirect_locations_are_read_as_browsers_read_them(hostile: HostileServer,
                                                           location: str, path: str) -> None:
    host = f"127.0.0.1:{hostile.port}"
    full = f"１２７．０．０．１:{hostile.port}"
    page = fetch(redirect(hostile, location.format(host=host, full=full)))
    assert page.final_url == hostile.base_url + path


@pytest.mark.parametrize("location,said", [
    ("ftp://example.com/", r"redirects to an unsupported address \(ftp: URL\)"),
    ("file:///etc/passwd", r"redirects to an unsupported address \(file: URL\)"),
    ("javascript:alert(1)", r"redirects to an unsupported address \(javascript: URL\)"),
    ("http://[::1/", r"redirects to an invalid address \(.+\)"),
    ("http://exa mple.com/", r"redirects to an invalid address \(.+\)"),
])
def test_bad_redirect_locations_are_clear_errors(hostile: HostileServer, location: str,
                                                 said: str) -> None:
    with pytest.raises(FetchError, match=f": {said}$"):
        fetch(redirect(hostile, location))


def test_a_redirect_body_is_never_read(hostile: HostileServer) -> None:
    bomb_body("gzip,gzip")
    page, peak = peak_python_memory(lambda: fetch(redirect(hostile, "/page", bomb=True)))
    assert page.final_url == hostile.url("page") and peak < 4 * MB


def test_a_redirect_loop_stops_at_the_cap(hostile: HostileServer) -> None:
    with pytest.raises(FetchError, match=r"/loop: too many redirects \(more than 2\)$"):
        fetch(hostile.url("loop"), max_redirects=2)


def test_brotli_and_zstd_are_used_only_when_safe() -> None:
    # Without a module that caps output per call (brotli >= 1.2, compression.zstd or
    # backports.zstd), the encoding is neither asked for nor decoded.
    brotli = optional_module("brotli", "brotlicffi")
    capped = brotli is not None and hasattr(brotli.Decompressor(), "can_accept_more_data")
    assert capped is _BROTLI
    assert (optional_module("compression.zstd", "backports.zstd") is not None) is _ZSTD
