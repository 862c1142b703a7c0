"""Fetch one page: an http(s) URL with httpx, or a saved HTML file.

Limits come from :class:`~leadengine.config.Settings`: connect/read timeout,
redirect cap, a total page deadline, and a byte cap that holds while the body is
decompressed (layer by layer, 64 KiB at a time), so a huge page or a compression
bomb never lands in memory whole. Every failure is a
:class:`~leadengine.errors.FetchError` whose message names the URL and says what
went wrong in words.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import charset_normalizer
import httpx

from leadengine.config import Settings
from leadengine.errors import ContentError, FetchError
from leadengine.website.decode import DECODE_STEP as DECODE_STEP
from leadengine.website.decode import MAX_ENCODINGS as MAX_ENCODINGS
from leadengine.website.decode import BodyDecoder as BodyDecoder
from leadengine.website.decode import ReadProblem as ReadProblem
from leadengine.website.decode import read_body as read_body
from leadengine.website.decode import supported_encodings as supported_encodings
from leadengine.website.guard import BlockedAddress, GuardedTransport, Resolver
from leadengine.website.network_errors import http_error as http_error
from leadengine.website.network_errors import network_reason as network_reason
from leadengine.website.network_errors import short_reason
from leadengine.website.urls import HTML_SUFFIXES
from leadengine.website.urls import normalise_target as normalise_target
from leadengine.website.urls import redirect_url as redirect_url

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.I)
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
#: Set while open_response sends a request: its redirects are followed here, not by httpx.
_MANUAL_REDIRECTS: ContextVar[bool] = ContextVar("leadengine_manual_redirects", default=False)
#: Where a redirect's Location waits for open_response (``Response.extensions``).
_LOCATION = "leadengine.location"


@dataclass(frozen=True)
class Page:
    """A fetched HTML page, decoded to text."""

    #: The address asked for (normalised).
    url: str
    #: The address that answered, after redirects (equal to ``url`` for files).
    final_url: str
    status: int
    content_type: str
    html: str
    encoding: str
    #: True when the body was cut at the byte cap.
    truncated: bool
    #: Seconds since the epoch when the page was read.
    fetched_at: float


# -- targets and URLs ----------------------------------------------------------------------


# -- fetching ------------------------------------------------------------------------------


async def fetch_page(target: str, settings: Settings | None = None,
                     client: httpx.AsyncClient | None = None) -> Page:
    """Fetch ``target`` (URL or file path) and decode it as HTML."""
    settings = settings or Settings()
    url = normalise_target(target)
    if url.startswith("file:"):
        return _read_file(url, settings)
    if client is not None:
        return await _fetch_http(client, url, settings)
    async with make_client(settings) as own_client:
        return await _fetch_http(own_client, url, settings)


def make_client(settings: Settings, transport: httpx.AsyncBaseTransport | None = None,
                resolver: Resolver | None = None) -> httpx.AsyncClient:
    """An httpx client with the engine's timeouts, redirect cap, user agent and SSRF guard
    (``transport`` replaces the guarded one, e.g. httpx.MockTransport in tests)."""
    if transport is None:
        transport = GuardedTransport(settings.allow_private, resolver)
    return httpx.AsyncClient(
        timeout=httpx.Timeout(settings.timeout),
        follow_redirects=True,
        max_redirects=settings.max_redirects,
        headers={"User-Agent": settings.user_agent,
                 "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
                 # Only what read_body can decode with a cap (not httpx's own list).
                 "Accept-Encoding": ", ".join(supported_encodings())},
        transport=transport,
        event_hooks={"response": [_take_location]},
    )


async def _fetch_http(client: httpx.AsyncClient, url: str, settings: Settings) -> Page:
    try:
        async with asyncio.timeout(settings.page_deadline):
            return await _fetch_stream(client, url, settings)
    except TimeoutError:
        # The read timeout is per read; a server that drips a byte at a time never trips
        # it, so each page also has a total deadline.
        raise FetchError(url, f"took longer than {settings.page_deadline:g}s (slow server)"
                         ) from None


async def _fetch_stream(client: httpx.AsyncClient, url: str, settings: Settings) -> Page:
    try:
        async with open_response(client, url, settings.max_redirects) as response:
            if response.status_code >= 400:
                reason = (response.reason_phrase or "")[:80]
                raise FetchError(url, f"HTTP {response.status_code} {reason}".rstrip())
            content_type = response.headers.get("content-type", "")
            body, truncated = await read_body(response, settings.max_bytes)
            final_url = str(response.url)
            status = response.status_code
    except ReadProblem as exc:
        raise FetchError(url, str(exc)) from None
    except (BlockedAddress, httpx.HTTPError, httpx.InvalidURL) as exc:
        raise http_error(url, exc, settings) from None
    _check_html(url, content_type, body)
    html, encoding = decode_html(body, content_type)
    return Page(url=url, final_url=final_url, status=status,
                content_type=content_type.split(";")[0].strip() or "text/html", html=html,
                encoding=encoding, truncated=truncated, fetched_at=time.time())


@asynccontextmanager
async def open_response(client: httpx.AsyncClient, url: str,
                        max_redirects: int) -> AsyncIterator[httpx.Response]:
    """GET ``url`` as a stream, following up to ``max_redirects`` redirects.

    Redirects are followed here rather than by httpx, because httpx reads (and
    decompresses) a redirect's whole body before following it, and resolves a
    ``Location`` with backslashes differently from browsers. A redirect body is
    never read.
    """
    _add_location_hook(client)
    for _ in range(max_redirects + 1):
        manual = _MANUAL_REDIRECTS.set(True)
        try:
            response = await _send(client, url)
        finally:
            _MANUAL_REDIRECTS.reset(manual)
        try:
            location = response.extensions.get(_LOCATION)
            if response.status_code not in _REDIRECT_CODES or location is None:
                yield response
                return
        finally:
            await response.aclose()
        url = redirect_url(str(response.url), location)
    raise ReadProblem(f"too many redirects (more than {max_redirects})")


async def _send(client: httpx.AsyncClient, url: str) -> httpx.Response:
    """GET ``url`` (headers read, body not); once more if the connection broke before
    any answer: a kept-alive connection the server closed (its idle timeout) just as
    the request went out fails that way, and a browser sends a GET again then too."""
    try:
        return await client.send(client.build_request("GET", url), stream=True,
                                 follow_redirects=False)
    except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError) as exc:
        if isinstance(exc, httpx.RemoteProtocolError) and "without sending" not in str(exc):
            raise
    return await client.send(client.build_request("GET", url), stream=True,
                             follow_redirects=False)


async def _take_location(response: httpx.Response) -> None:
    # httpx builds the next request of every redirect, even one it will not follow, and
    # raises (InvalidURL, not even an httpx.HTTPError) on a Location like "http:\\host";
    # so under open_response the Location is taken away before httpx sees it.
    if _MANUAL_REDIRECTS.get() and "location" in response.headers:
        response.extensions[_LOCATION] = response.headers.get_list("location")[0]
        del response.headers["location"]


def _add_location_hook(client: httpx.AsyncClient) -> None:
    # A client not built by make_client (tests, callers with their own client).
    hooks = client.event_hooks
    if _take_location not in hooks["response"]:
        client.event_hooks = {"request": hooks["request"],
                              "response": [_take_location, *hooks["response"]]}


# -- content decoding ------------------------------------------------------------------------


# -- errors in words -------------------------------------------------------------------------


# -- saved files -----------------------------------------------------------------------------


def _read_file(url: str, settings: Settings) -> Page:
    path = Path(unquote(urlsplit(url).path))
    name = str(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise FetchError(name, "file not found") from None
    except (OSError, ValueError) as exc:
        raise FetchError(name, f"cannot read file ({_os_reason(exc)})") from None
    if stat.S_ISDIR(mode):
        index = path / "index.html"
        if index.is_file():
            return _read_file(index.as_uri(), settings)
        raise FetchError(name, "is a directory without index.html")
    if not stat.S_ISREG(mode):
        # A FIFO without a writer blocks forever; /dev/zero never ends.
        raise FetchError(name, f"is {_file_kind(mode)}, not a regular file; not read")
    try:
        body = _read_regular(path, settings.max_bytes + 1)
    except OSError as exc:
        raise FetchError(name, f"cannot read file ({_os_reason(exc)})") from None
    if body is None:
        raise FetchError(name, "is not a regular file; not read")
    truncated = len(body) > settings.max_bytes
    body = body[: settings.max_bytes]
    content_type = "text/html" if path.suffix.lower() in HTML_SUFFIXES else ""
    _check_html(name, content_type, body)
    html, encoding = decode_html(body, content_type)
    return Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding=encoding, truncated=truncated, fetched_at=time.time())


def _read_regular(path: Path, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of ``path``; None if it is no longer a regular file (swapped
    since it was checked). O_NONBLOCK: opening a FIFO never waits for a writer."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while limit > 0 and (chunk := os.read(fd, min(limit, 1 << 20))):
            chunks.append(chunk)
            limit -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _file_kind(mode: int) -> str:
    kinds = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def _os_reason(exc: BaseException) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else short_reason(exc)


# -- HTML or not -----------------------------------------------------------------------------

#: File signatures of what is served as a web page by mistake (or on purpose).
_MAGIC = (
    (b"%PDF-", "a PDF document"), (b"PK\x03\x04", "a ZIP archive (or Office document)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Office document"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"\x1f\x8b\x08", "gzip-compressed data"), (b"\x7fELF", "a program"),
)
#: C0 control bytes that text does not contain (tab, line breaks, form feed and the ESC
#: of ISO-2022 encodings excepted; NUL is counted separately).
_CONTROL_BYTES = bytes(b for b in range(1, 32) if b not in (9, 10, 11, 12, 13, 27))
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


def sniff_binary(body: bytes, content_type: str = "") -> str | None:
    """What ``body`` is if it is no text page at all ("a PDF document"), else None."""
    head = body[:2048]
    start = head.lstrip(b" \t\r\n")
    for magic, kind in _MAGIC:
        if start.startswith(magic):
            return kind
    if head.startswith(_WIDE_BOMS) or re.search(r"charset=\W*utf-?(16|32)", content_type, re.I):
        return None  # UTF-16/32 text: Thai is 0x0e in every other byte
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    # NULs alone are zero padding or UTF-16 text; with other control bytes, binary data.
    if controls and (controls + head.count(0)) * 20 > len(head):
        return "binary data"
    return None


def _check_html(url: str, content_type: str, body: bytes) -> None:
    mime = content_type.split(";")[0].strip().lower()
    if mime and mime not in _HTML_TYPES:
        raise ContentError(url, f"is {mime}, not an HTML page")
    kind = sniff_binary(body, content_type)
    if kind is not None:
        raise ContentError(url, f"is {kind}, not an HTML page")
    if not mime and not _looks_like_html(body):
        raise ContentError(url, "does not look like an HTML page")
    if not body.strip():
        raise ContentError(url, "the page is empty")


def _looks_like_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype", b"<html", b"<head", b"<body", b"<!--", b"<meta",
                            b"<title", b"<div", b"<p", b"\xef\xbb\xbf<")) or (not head)


def decode_html(body: bytes, content_type: str = "") -> tuple[str, str]:
    """Decode HTML bytes so a page that declares the wrong charset still reads.

    Order: a BOM; strict UTF-8 (non-ASCII text that decodes as UTF-8 almost
    always is UTF-8, whatever the page declares); the declared charset (header,
    then meta tag); a statistical guess (charset-normalizer).
    """
    if body.startswith(b"\xef\xbb\xbf"):
        return body[3:].decode("utf-8", errors="replace"), "utf-8"
    declared = []
    match = re.search(r"charset=([\w\-:.]+)", content_type, re.I)
    if match:
        declared.append(match.group(1))
    meta = _META_CHARSET.search(body[:4096])
    if meta:
        declared.append(meta.group(1).decode("ascii", "ignore"))
    for encoding in ["utf-8", *declared]:
        try:
            return body.decode(encoding), encoding.lower()
        except (UnicodeDecodeError, LookupError):
            continue
    best = charset_normalizer.from_bytes(body).best()
    if best is not None:
        return str(best), best.encoding
    return body.decode("utf-8", errors="replace"), "utf-8"
