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
import errno
import importlib
import ipaddress
import os
import re
import socket
import ssl
import stat
import time
import unicodedata
import zlib
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import SplitResult, unquote, urljoin, urlsplit, urlunsplit

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
#: ``http:`` or ``https:`` and whatever slashes follow (browsers read ``\\`` as ``/``).
_HTTP_PREFIX = re.compile(r"(?i)^(https?):[/\\]*")
_SCHEME = re.compile(r"(?i)^([a-z][a-z0-9+.\-]*):")
#: One part of an IPv4 address as ``inet_aton`` and browsers read it: hex, octal, decimal.
_IPV4_PART = re.compile(r"(?i)0x[0-9a-f]*|[0-9]+")
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
#: Set while open_response sends a request: its redirects are followed here, not by httpx.
_MANUAL_REDIRECTS: ContextVar[bool] = ContextVar("leadengine_manual_redirects", default=False)
#: Where a redirect's Location waits for open_response (``Response.extensions``).
_LOCATION = "leadengine.location"

#: Decompressed output per decompressor call: the most a single step can add to memory.
DECODE_STEP = 64 * 1024
#: Stacked Content-Encodings accepted ("gzip, gzip" is legal but rare; more is an attack).
MAX_ENCODINGS = 2


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


class ReadProblem(Exception):
    """Why a response could not be read, in words; the caller adds the URL."""


# -- targets and URLs ----------------------------------------------------------------------


def normalise_target(target: str) -> str:
    """A URL for ``target``: http(s) URLs as given, files and folders as file://, a bare
    ``example.com[:port][/path]`` as https, ``localhost`` or an IP address as http.

    The host of an http(s) URL is put in the form it is connected to: full-width or
    other compatibility characters NFKC-normalised, and an IPv4 address written in
    octal, hex or as one number (``0177.0.0.1``, ``0x7f.1``, ``2130706433``) in dotted
    decimal, so the SSRF guard and the messages see the address the OS would use. Any
    input gives a URL httpx accepts or a FetchError, never another exception.
    """
    # Spaces and control characters around a URL are dropped, as browsers and urlsplit do.
    target = target.strip("".join(map(chr, range(33))))
    if not target:
        raise FetchError(target, "empty URL")
    try:
        url = _target_url(target)
        if urlsplit(url).scheme in ("http", "https"):
            url = _canonical_http(target, url)
    except (ValueError, OSError) as exc:
        # urlsplit refuses a broken [IPv6] host or a netloc that NFKC turns into "/" or
        # "@"; the OS refuses a path with a NUL or one that is too long.
        raise FetchError(target, f"not a valid URL or file name ({_short(exc)})") from None
    return url


def _target_url(target: str) -> str:
    prefix = _HTTP_PREFIX.match(target)
    if prefix and target[prefix.end():prefix.end() + 1] not in ("", "?", "#"):
        # "http:\\host\path", "https:/host": browsers read every form as scheme://host.
        front, rest = _split_query(target[prefix.end():])
        target = f"{prefix.group(1)}://{front.replace(chr(92), '/')}{rest}"
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        if not parts.hostname or " " in target:
            raise FetchError(target, "not a valid URL (expected e.g. https://example.com)")
        return target
    if parts.scheme == "file":
        path = unquote(parts.path)
        if not path.startswith("/"):
            raise FetchError(target, "not a valid file URL (expected e.g. "
                                     "file:///home/me/page.html)")
        return Path(path).as_uri()
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


def _split_query(url: str) -> tuple[str, str]:
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:cut], url[cut:]


def _canonical_http(target: str, url: str) -> str:
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 -- urlsplit checks the range only when asked
    except ValueError:
        raise FetchError(target, "not a valid URL (the port is not a number from 0 to "
                                 "65535)") from None
    host = parts.hostname or ""
    canonical = host
    if not host.isascii():
        canonical = unicodedata.normalize("NFKC", host).lower()
        if any(char in canonical for char in "/\\?#@:[]% "):
            raise FetchError(target, "not a valid host name")
    canonical = _ipv4_number(canonical) or canonical
    if canonical != host:
        url = urlunsplit(parts._replace(netloc=_with_host(parts, canonical)))
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise FetchError(target, f"not a valid URL ({_short(exc)})") from None
    if not parsed.host:
        raise FetchError(target, "not a valid URL (expected e.g. https://example.com)")
    return url


def _with_host(parts: SplitResult, host: str) -> str:
    userinfo, at, hostport = parts.netloc.rpartition("@")
    port = ""
    if hostport.startswith("["):
        port = hostport[hostport.find("]") + 1:]
    elif ":" in hostport:
        port = ":" + hostport.rsplit(":", 1)[1]
    return f"{userinfo}{at}{host}{port}"


def _ipv4_number(host: str) -> str | None:
    """``host`` as a dotted-decimal IPv4 address if the OS resolver would read it as one
    (WHATWG's IPv4 parser: 1-4 parts, each decimal, 0x-hex or 0-octal), else None."""
    labels = host.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()
    if not 1 <= len(labels) <= 4 or not all(_IPV4_PART.fullmatch(part) for part in labels):
        return None
    numbers = [_ipv4_part(part) for part in labels]
    if any(n is None for n in numbers):
        return None
    *front, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in front) or last >= 256 ** (4 - len(front)):
        return None
    value = last + sum(n << (8 * (3 - i)) for i, n in enumerate(front))
    return str(ipaddress.IPv4Address(value))


def _ipv4_part(part: str) -> int | None:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8) if set(part) <= set("01234567") else None
    return int(part)


def redirect_url(base: str, location: str) -> str:
    """The http(s) URL a redirect's ``Location`` leads to from ``base``, read the way
    browsers read it (``\\`` as ``/``, ``http:\\\\host`` as ``http://host``); a ReadProblem
    for anything else."""
    location = re.sub(r"[\t\n\r]", "", location).strip(" \x00\x0b\x0c")
    front, rest = _split_query(location)
    location = front.replace("\\", "/") + rest
    scheme = _SCHEME.match(location)
    if scheme:
        name, after = scheme.group(1).lower(), location[scheme.end():]
        if name not in ("http", "https"):
            raise ReadProblem(f"redirects to an unsupported address ({name}: URL)")
        if name == urlsplit(base).scheme and not after.startswith("/"):
            location = after  # "http:page" on an http page is a relative link
        else:
            location = f"{name}://{after.lstrip('/')}"
    try:
        url = urljoin(base, location)
        if " " in urlsplit(url).netloc:
            raise ValueError("a space in the host name")
        # Servers do send "/our menu.html"; browsers send it as %20.
        return normalise_target(url.replace(" ", "%20"))
    except (FetchError, ValueError) as exc:
        raise ReadProblem(f"redirects to an invalid address ({_short(exc)})") from None


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
        request = client.build_request("GET", url)
        manual = _MANUAL_REDIRECTS.set(True)
        try:
            response = await client.send(request, stream=True, follow_redirects=False)
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


async def read_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The decoded body, at most ``max_bytes`` of it, and whether it was cut.

    httpx's decoders decompress a whole network read at once (a 2 kB read of a stacked
    gzip bomb is gigabytes), so the raw bytes are decoded here, layer by layer, in
    steps of :data:`DECODE_STEP`, and reading stops at the cap.
    """
    decoder = BodyDecoder(response.headers.get_list("content-encoding", split_commas=True))
    body = bytearray()
    # Compressed data is never much larger than what it decodes to: a stream that keeps
    # sending bytes that decode to nothing is cut too.
    raw_budget = 2 * max_bytes + DECODE_STEP
    async for raw in response.aiter_raw():
        raw_budget -= len(raw)
        if _take(body, decoder.feed(raw), max_bytes) or raw_budget < 0:
            return bytes(body), True
    return bytes(body), False


def _take(body: bytearray, pieces: Iterator[bytes], limit: int) -> bool:
    """Append ``pieces`` to ``body`` up to ``limit``; True once a byte beyond it arrives
    (the rest of ``pieces`` is then never decompressed)."""
    for piece in pieces:
        room = limit - len(body)
        if len(piece) > room:
            body += piece[:room]
            return True
        body += piece
    return False


# -- content decoding ------------------------------------------------------------------------


def _load_brotli() -> Any:
    # Brotli >= 1.2 (or brotlicffi with the same API) can cap the output of one call;
    # an older one cannot, so it is not used at all.
    for name in ("brotli", "brotlicffi"):
        try:
            module = importlib.import_module(name)
            module.Decompressor().process(b"", output_buffer_limit=1)
        except Exception:  # an import or API failure of an optional package
            continue
        return module
    return None


def _load_zstd() -> Any:
    # Python 3.14's compression.zstd, or its backport: decompress() takes max_length.
    for name in ("compression.zstd", "backports.zstd"):
        try:
            module = importlib.import_module(name)
            module.ZstdDecompressor(options={module.DecompressionParameter.window_log_max: 23})
        except Exception:  # an import or API failure of an optional package
            continue
        return module
    return None


_brotli = _load_brotli()
_zstd = _load_zstd()


def supported_encodings() -> list[str]:
    """The Content-Encodings :func:`read_body` decodes, for the Accept-Encoding header."""
    return ["gzip", "deflate"] + ["br"] * (_brotli is not None) + ["zstd"] * (_zstd is not None)


class _Layer(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decoded output for ``data``, in pieces of about DECODE_STEP bytes at most."""
        ...


class _Inflate:
    """gzip (all members) or deflate (zlib-wrapped or raw), DECODE_STEP bytes per call."""

    def __init__(self, gzip: bool) -> None:
        self.gzip = gzip
        self.obj: zlib._Decompress | None = None
        #: Bytes held until the stream's first two bytes tell its format.
        self.head = b""
        self.members = 0
        self.ended = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        while not self.ended:
            if self.obj is None:
                self.head += data
                if len(self.head) < 2:
                    return
                data, self.head = self.head, b""
                self.obj = self._start(data)
                if self.obj is None:
                    self.ended = True  # bytes after the last gzip member: ignored
                    return
            data = yield from self._inflate(self.obj, data)
            if self.obj is not None or not data:
                return

    def _start(self, head: bytes) -> zlib._Decompress | None:
        if self.gzip:
            if self.members and not head.startswith(b"\x1f\x8b"):
                return None
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        zlib_wrapped = head[0] & 0x0F == 8 and ((head[0] << 8) | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)

    def _inflate(self, obj: zlib._Decompress, data: bytes) -> Generator[bytes, None, bytes]:
        # Returns what follows the end of the stream, if it ended.
        while True:
            out = obj.decompress(data, DECODE_STEP)
            data = obj.unconsumed_tail
            if out:
                yield out
            if obj.eof:
                self.obj = None
                self.members += 1
                self.ended = not self.gzip
                return obj.unused_data
            if not data and len(out) < DECODE_STEP:
                return b""


class _Brotli:
    def __init__(self) -> None:
        self.obj = _brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.obj.is_finished():
            return
        out = self.obj.process(data, output_buffer_limit=DECODE_STEP)
        while out:
            yield out
            if self.obj.is_finished():
                return
            out = self.obj.process(b"", output_buffer_limit=DECODE_STEP)


class _Zstd:
    def __init__(self) -> None:
        self.obj = self._new()

    @staticmethod
    def _new() -> Any:
        # An 8 MiB window (RFC 9659's limit for HTTP): a frame asking for more would
        # make the decoder allocate up to 2 GiB before writing a byte.
        return _zstd.ZstdDecompressor(options={_zstd.DecompressionParameter.window_log_max: 23})

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self.obj.eof:
                data = self.obj.unused_data + data
                if not data:
                    return
                self.obj = self._new()
            out = self.obj.decompress(data, max_length=DECODE_STEP)
            data = b""
            if out:
                yield out
            if not self.obj.eof and (self.obj.needs_input or not out):
                return


def _decode_errors() -> tuple[type[Exception], ...]:
    errors: list[type[Exception]] = [zlib.error, EOFError]
    if _brotli is not None:
        errors.append(_brotli.error)
    if _zstd is not None:
        errors.append(_zstd.ZstdError)
    return tuple(errors)


_DECODE_ERRORS = _decode_errors()


class BodyDecoder:
    """Undoes a response's Content-Encodings, last applied first, one capped step at a
    time: every layer hands the next at most DECODE_STEP bytes per call, so however
    deep or dense the layers, only what the reader asks for is ever decompressed."""

    def __init__(self, encodings: list[str]) -> None:
        names = [name.strip().lower() for name in encodings]
        names = [name for name in names if name and name != "identity"]
        if len(names) > MAX_ENCODINGS:
            raise ReadProblem(f"too many content encodings ({len(names)}: "
                              f"{', '.join(names)[:60]}); at most {MAX_ENCODINGS} are accepted")
        self.names = names
        self.layers = [self._layer(name) for name in reversed(names)]

    @staticmethod
    def _layer(name: str) -> _Layer:
        if name in ("gzip", "x-gzip"):
            return _Inflate(gzip=True)
        if name == "deflate":
            return _Inflate(gzip=False)
        if name == "br" and _brotli is not None:
            return _Brotli()
        if name == "zstd" and _zstd is not None:
            return _Zstd()
        raise ReadProblem(f"the response is compressed with {name[:40]!r}, which cannot be "
                          "decoded")

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes ``data`` gives, lazily, in pieces of at most DECODE_STEP."""
        try:
            yield from self._push(0, data)
        except _DECODE_ERRORS:
            raise ReadProblem(f"the server sent corrupt {', '.join(self.names)} data"
                              ) from None

    def _push(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self.layers):
            if data:
                yield data
            return
        for piece in self.layers[index].feed(data):
            yield from self._push(index + 1, piece)


# -- errors in words -------------------------------------------------------------------------


def http_error(url: str, exc: Exception, settings: Settings) -> FetchError:
    """The FetchError, in words, for an exception raised while fetching ``url``."""
    return FetchError(url, network_reason(exc, settings))


def network_reason(exc: Exception, settings: Settings) -> str:
    """What went wrong, for a salesperson: ``connection reset by the server``, not
    ``ReadError``."""
    if isinstance(exc, BlockedAddress):
        return str(exc)
    limit = f"{settings.timeout:g}s"
    timeouts: list[tuple[type[httpx.TimeoutException], str]] = [
        (httpx.ConnectTimeout, " while connecting"), (httpx.ReadTimeout, " waiting for the server"),
        (httpx.WriteTimeout, " sending the request"),
        (httpx.PoolTimeout, " waiting for a free connection")]
    if isinstance(exc, httpx.TimeoutException):
        during = next((text for kind, text in timeouts if isinstance(exc, kind)), "")
        return f"timed out after {limit}{during}"
    if isinstance(exc, httpx.TooManyRedirects):
        return f"too many redirects (more than {settings.max_redirects})"
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect: {_cause_reason(exc) or _short(exc)}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return _cause_reason(exc) or _protocol_reason(exc)
    if isinstance(exc, httpx.NetworkError):
        return _cause_reason(exc) or "the connection broke off"
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return f"not a valid URL ({_short(exc)})"
    if isinstance(exc, httpx.DecodingError):
        return "the server sent corrupt compressed data"
    return _cause_reason(exc) or f"network error ({type(exc).__name__}: {_short(exc)})"


#: Words for OS error numbers a connection can end with.
_ERRNO_REASONS = {
    errno.ECONNREFUSED: "connection refused", errno.ECONNRESET: "connection reset by the server",
    errno.ECONNABORTED: "connection aborted", errno.EPIPE: "the server closed the connection",
    errno.ENETUNREACH: "network unreachable", errno.EHOSTUNREACH: "no route to host",
    errno.ETIMEDOUT: "the connection timed out", errno.EADDRNOTAVAIL: "address not available",
}
_DNS = "host name not found (DNS)"
#: Text of wrapped errors whose class is lost (httpcore re-raises with the message only).
_TEXT_REASONS = (
    ("Name or service not known", _DNS), ("nodename nor servname", _DNS),
    ("Temporary failure in name resolution", _DNS), ("No address associated", _DNS),
    ("Name does not resolve", _DNS), ("getaddrinfo failed", _DNS),
    ("Connection refused", "connection refused"),
    ("Connection reset", "connection reset by the server"),
    ("Network is unreachable", "network unreachable"), ("No route to host", "no route to host"),
    ("CERTIFICATE_VERIFY_FAILED", "the site's security certificate is not valid"),
    ("WRONG_VERSION_NUMBER", "the server does not speak HTTPS on this port"),
)


def _cause_reason(exc: BaseException) -> str | None:
    # httpx wraps the socket error; its own text may only say "All connection attempts failed".
    chain = _chain(exc)
    for cause in chain:
        if isinstance(cause, ssl.SSLCertVerificationError):
            detail = cause.verify_message or "verification failed"
            return f"the site's security certificate is not valid ({detail})"
        if isinstance(cause, socket.gaierror):
            return _DNS
        if isinstance(cause, ssl.SSLError):
            return f"secure connection (TLS) failed ({cause.reason or _short(cause)})"
        if isinstance(cause, OSError) and cause.errno in _ERRNO_REASONS:
            return _ERRNO_REASONS[cause.errno]
        if isinstance(cause, ConnectionResetError):
            return "connection reset by the server"
    text = " ".join(str(cause) for cause in chain)
    return next((reason for pattern, reason in _TEXT_REASONS if pattern in text), None)


def _protocol_reason(exc: Exception) -> str:
    text = str(exc)
    if "without sending a response" in text:
        return "the server closed the connection without answering"
    if "without sending complete message body" in text:
        return "the server closed the connection before the page was complete"
    return f"the server sent an invalid HTTP response ({_short(exc)})"


def _chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 8:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


def _short(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0][:160] if lines else "") or type(exc).__name__


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
    content_type = "text/html" if path.suffix.lower() in _HTML_SUFFIXES else ""
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
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else _short(exc)


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
