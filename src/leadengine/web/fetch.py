"""Fetch one page: an http(s) URL with httpx, or a saved HTML file.

Limits come from :class:`~leadengine.config.Settings`: connect/read timeout,
redirect cap, and a byte cap applied while streaming the (decompressed) body,
so a huge page or a gzip bomb never lands in memory whole. Every failure is a
:class:`~leadengine.errors.FetchError` whose message names the URL and says
what went wrong in words.
"""

from __future__ import annotations

import asyncio
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

import charset_normalizer
import httpx

from leadengine.config import Settings
from leadengine.errors import ContentError, FetchError
from leadengine.web.guard import BlockedAddress, GuardedTransport, Resolver

_HTML_TYPES = ("text/html", "application/xhtml+xml")
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
#: A target ending like this is a file name, never a bare domain.
_FILE_SUFFIXES = (*_HTML_SUFFIXES, ".txt", ".csv", ".md", ".pdf", ".json")
_HOST = (r"(?P<host>localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]"
         r"|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})")
#: ``host:port[/path]``: the explicit port makes it an address, whatever the path ends with.
_BARE_HOST_PORT = re.compile(_HOST + r":\d{1,5}(?:[/?#]\S*)?", re.I)
#: ``host[/path]`` without a scheme (a file name like ``menu.html`` is ruled out first).
_BARE_HOST = re.compile(_HOST + r"(?:[/?#]\S*)?", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.I)


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


def normalise_target(target: str) -> str:
    """A URL for ``target``: http(s) URLs as given, files and folders as file://, a bare
    ``example.com[:port][/path]`` as https, ``localhost`` or an IP address as http."""
    target = target.strip()
    if not target:
        raise FetchError(target, "empty URL")
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        if not parts.hostname or " " in target:
            raise FetchError(target, "not a valid URL (expected e.g. https://example.com)")
        return target
    if parts.scheme == "file":
        return target
    if Path(target).exists():
        return Path(target).resolve().as_uri()
    # Checked before the file-name rule and the scheme rule: urlsplit reads the host of
    # "example.com:8080/x" as a scheme, and "localhost:8080/menu.html" is no file name.
    bare = _BARE_HOST_PORT.fullmatch(target)
    if bare:
        return _bare_url(target, bare.group("host"))
    if not parts.scheme and (target.lower().endswith(_FILE_SUFFIXES)
                             or target.startswith((".", "/", "~"))):
        raise FetchError(target, "file not found")
    bare = _BARE_HOST.fullmatch(target)
    if not parts.scheme and bare:
        return _bare_url(target, bare.group("host"))
    if parts.scheme and parts.scheme not in ("http", "https", "file") and len(parts.scheme) > 1:
        raise FetchError(target, f"unsupported URL scheme {parts.scheme!r} (use http or https)")
    raise FetchError(target, "not a valid URL or existing file (expected e.g. "
                             "https://example.com or page.html)")


def _bare_url(target: str, host: str) -> str:
    # A local development server rarely has a certificate; every public site has one.
    local = host.lower() == "localhost" or host[0].isdigit() or host.startswith("[")
    return f"{'http' if local else 'https'}://{target}"


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
                 "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"},
        transport=transport,
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
        async with client.stream("GET", url) as response:
            if response.status_code >= 400:
                reason = response.reason_phrase or ""
                raise FetchError(url, f"HTTP {response.status_code} {reason}".rstrip())
            content_type = response.headers.get("content-type", "")
            body, truncated = await _read_capped(response, settings.max_bytes)
            final_url = str(response.url)
    except FetchError:
        raise
    except (BlockedAddress, httpx.HTTPError) as exc:
        raise http_error(url, exc, settings) from None
    _check_html(url, content_type, body)
    html, encoding = decode_html(body, content_type)
    return Page(url=url, final_url=final_url, status=response.status_code,
                content_type=content_type.split(";")[0].strip() or "text/html", html=html,
                encoding=encoding, truncated=truncated, fetched_at=time.time())


def http_error(url: str, exc: Exception, settings: Settings) -> FetchError:
    """The FetchError, in words, for an exception raised while fetching ``url``."""
    if isinstance(exc, BlockedAddress):
        return FetchError(url, str(exc))
    if isinstance(exc, httpx.TimeoutException):
        return FetchError(url, f"timed out after {settings.timeout:g}s")
    if isinstance(exc, httpx.TooManyRedirects):
        return FetchError(url, f"too many redirects (more than {settings.max_redirects})")
    if isinstance(exc, httpx.ConnectError):
        return FetchError(url, f"cannot connect: {_reason(exc)}")
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return FetchError(url, f"not a valid URL ({exc})")
    return FetchError(url, f"{type(exc).__name__}: {_reason(exc)}")


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


def _read_file(url: str, settings: Settings) -> Page:
    path = Path(unquote(urlsplit(url).path))
    try:
        with path.open("rb") as handle:
            body = handle.read(settings.max_bytes + 1)
    except FileNotFoundError:
        raise FetchError(str(path), "file not found") from None
    except IsADirectoryError:
        index = path / "index.html"
        if index.is_file():
            return _read_file(index.as_uri(), settings)
        raise FetchError(str(path), "is a directory without index.html") from None
    except OSError as exc:
        raise FetchError(str(path), f"cannot read file ({exc.strerror})") from None
    truncated = len(body) > settings.max_bytes
    body = body[: settings.max_bytes]
    content_type = "text/html" if path.suffix.lower() in _HTML_SUFFIXES else ""
    _check_html(str(path), content_type, body)
    html, encoding = decode_html(body, content_type)
    return Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding=encoding, truncated=truncated, fetched_at=time.time())


def _check_html(url: str, content_type: str, body: bytes) -> None:
    mime = content_type.split(";")[0].strip().lower()
    if mime and mime not in _HTML_TYPES:
        raise ContentError(url, f"is {mime}, not an HTML page")
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


def _reason(exc: BaseException) -> str:
    # httpx wraps the socket error; its own text may only say "All connection attempts failed".
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 6:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(c, ConnectionRefusedError) for c in chain):
        return "connection refused"
    if any(isinstance(c, socket.gaierror) for c in chain):
        return "host name not found (DNS)"
    text = " ".join(str(c) for c in chain) or type(exc).__name__
    if "Name or service not known" in text or "nodename nor servname" in text or \
            "Temporary failure in name resolution" in text or "No address associated" in text:
        return "host name not found (DNS)"
    if "Connection refused" in text:
        return "connection refused"
    return str(exc) or type(exc).__name__
