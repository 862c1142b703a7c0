"""Network failures in words: httpx exceptions and their causes (reset connections,
DNS, TLS, timeouts) turned into short reasons for a one-line :class:`FetchError`.
"""

from __future__ import annotations

import errno
import socket
import ssl

import httpx

from leadengine.config import Settings
from leadengine.errors import FetchError
from leadengine.website.guard import BlockedAddress


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
        return f"cannot connect: {_cause_reason(exc) or short_reason(exc)}"
    if isinstance(exc, httpx.RemoteProtocolError):
        return _cause_reason(exc) or _protocol_reason(exc)
    if isinstance(exc, httpx.NetworkError):
        return _cause_reason(exc) or "the connection broke off"
    if isinstance(exc, httpx.InvalidURL | httpx.UnsupportedProtocol):
        return f"not a valid URL ({short_reason(exc)})"
    if isinstance(exc, httpx.DecodingError):
        return "the server sent corrupt compressed data"
    return _cause_reason(exc) or f"network error ({type(exc).__name__}: {short_reason(exc)})"


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
            return f"secure connection (TLS) failed ({cause.reason or short_reason(cause)})"
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
    return f"the server sent an invalid HTTP response ({short_reason(exc)})"


def _chain(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 8:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    return chain


def short_reason(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return (lines[0][:160] if lines else "") or type(exc).__name__
