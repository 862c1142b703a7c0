"""Secrets and control characters kept out of everything the engine prints or stores.

Every error message can carry text the engine did not write: a server's reply (which
may echo the ``Authorization`` header it was sent), a URL with ``user:pass@`` in it, a
CSV cell with a terminal escape sequence. :func:`safe_message` is applied where such
text leaves the engine: the CLI's error line, stored errors, the batch summary.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

#: Environment variables that hold keys; their values never leave the process.
KEY_VARIABLES = ("GROQ_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LEADENGINE_API_KEY",
                 "LEADENGINE_EMBEDDINGS_API_KEY", "LEADENGINE_TOKEN",
                 "LEADENGINE_WEBHOOK_SECRET")
#: What stands in for a secret.
MASK = "[redacted]"

_KEY_SHAPES = re.compile(
    r"\b(?:gsk_[A-Za-z0-9]{16,}|sk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_\-]{16,}"
    r"|xai-[A-Za-z0-9]{16,}|AIza[0-9A-Za-z_\-]{30,}|hf_[A-Za-z0-9]{20,}"
    r"|le_[0-9a-f]{12}_[A-Za-z0-9_\-]{43})")
_AUTH_HEADER = re.compile(r"(?i)\b(authorization|x-api-key|api-key)(\"?\s*[:=]\s*\"?)"
                          r"(?:bearer\s+|basic\s+)?[^\s\"',;}]+")
_BEARER = re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}")
_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@:]*(?::[^/\s@]*)?@")
_KEY_PARAMS = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access_token)=)[^&\s#]+")
#: C0/C1 controls (CR, LF, ESC...) and the bidi controls that reorder a terminal line.
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def secrets_from(env: Mapping[str, str] | None = None) -> list[str]:
    """The key values configured in ``env`` (default: the process environment)."""
    source = os.environ if env is None else env
    return [value for name in KEY_VARIABLES if len(value := source.get(name, "")) >= 6]


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with keys, Authorization values and URL credentials masked."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if secret:
            text = text.replace(secret, MASK)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    text = _BEARER.sub("Bearer " + MASK, text)
    text = _KEY_SHAPES.sub(MASK, text)
    text = _URL_CREDENTIALS.sub(lambda m: m.group(1) + MASK + "@", text)
    return _KEY_PARAMS.sub(lambda m: m.group(1) + MASK, text)


def one_line(text: str) -> str:
    """``text`` on one line with no raw control characters: line breaks, tabs, ESC and
    bidi overrides are shown escaped (``\\n``, ``\\x1b``) instead of acting on the
    terminal."""
    def show(match: re.Match[str]) -> str:
        char = match.group(0)
        named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
        return named.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                                   else f"\\u{ord(char):04x}")

    return _CONTROLS.sub(show, text)


def safe_message(text: str, env: Mapping[str, str] | None = None) -> str:
    """What may be shown or stored of a message: secrets masked, on one clean line."""
    return one_line(redact(text, secrets_from(env)))
