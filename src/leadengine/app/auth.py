"""The workspace's authentication: one team token, and signed session cookies.

The API takes ``Authorization: Bearer <token>``. A browser logs in once at ``/login``
with the token and gets a session cookie (HttpOnly, SameSite=Strict) signed and
timestamped by itsdangerous (``URLSafeTimedSerializer``, HMAC-SHA256, under a secret
drawn when the process starts: restarting the server logs everyone out,
and nothing needs configuring). Every form post carries a CSRF token derived from the
session, and so does a cookie-authenticated API call (``X-CSRF-Token``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from itsdangerous import BadData, Signer, URLSafeTimedSerializer, base64_decode

COOKIE = "leadengine_session"
#: How long a browser session lasts (seconds).
MAX_AGE = 12 * 3600
#: Who an action is recorded as when nobody gave a name (and for the API token).
TEAM = "team"


@dataclass(frozen=True)
class Session:
    """A logged-in browser: who (a name given at login, else ``team``) and a nonce the
    CSRF token is derived from."""

    user: str
    nonce: str
    issued: float


class Sessions:
    """Checks the team token and signs and reads session cookies. ``token`` None: no
    authentication (loopback only, ``--no-auth``); sessions still carry the CSRF
    token."""

    def __init__(self, token: str | None, max_age: int = MAX_AGE) -> None:
        self.token = token
        self.max_age = max_age
        secret = secrets.token_bytes(32)
        self._cookies = URLSafeTimedSerializer(
            secret, salt="leadengine-session", signer_kwargs={"digest_method": hashlib.sha256})
        self._csrf = Signer(secret, salt="leadengine-csrf", digest_method=hashlib.sha256)

    @property
    def required(self) -> bool:
        return self.token is not None

    def check_token(self, given: str) -> bool:
        """Whether ``given`` is the team token (compared in constant time)."""
        if self.token is None:
            return True
        return hmac.compare_digest(given.encode(), self.token.encode())

    def check_bearer(self, header: str | None) -> bool:
        """Whether an ``Authorization`` header carries the team token."""
        if self.token is None or not header:
            return False
        scheme, _, value = header.partition(" ")
        return scheme.lower() == "bearer" and self.check_token(value.strip())

    def issue(self, user: str = TEAM) -> tuple[str, Session]:
        """A new session and its cookie value."""
        user, nonce = (user.strip() or TEAM)[:100], secrets.token_hex(16)
        cookie = self._cookies.dumps({"u": user, "n": nonce})
        _, issued = self._cookies.loads(cookie, return_timestamp=True)
        return cookie, Session(user=user, nonce=nonce, issued=issued.timestamp())

    def read(self, cookie: str | None) -> Session | None:
        """The session a cookie holds, if it is ours, intact and not expired."""
        if not cookie:
            return None
        try:
            data, issued = self._cookies.loads(cookie, max_age=self.max_age,
                                               return_timestamp=True)
            return Session(user=str(data["u"]), nonce=str(data["n"]),
                           issued=issued.timestamp())
        except (BadData, KeyError, TypeError):
            return None

    def csrf(self, session: Session) -> str:
        """The CSRF token of a session (forms carry it in a hidden field)."""
        return base64_decode(self._csrf.get_signature(session.nonce)).hex()

    def check_csrf(self, session: Session | None, given: str | None) -> bool:
        return (session is not None and bool(given)
                and hmac.compare_digest(str(given), self.csrf(session)))


def safe_next(target: str | None) -> str:
    """Where to go after logging in: a path on this site only (no ``//host``)."""
    if not target or not target.startswith("/") or target.startswith("//") \
            or "\\" in target:
        return "/"
    return target
