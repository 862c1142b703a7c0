"""The workspace's sessions: signed session cookies and the CSRF tokens derived from them
(who a token belongs to: :mod:`leadengine.app.access`).

The API takes ``Authorization: Bearer <token>``. A browser logs in once at ``/login``
with a person's token and gets a session cookie (HttpOnly, SameSite=Strict) signed and
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
    """A logged-in browser: who (a person's name; with the old team token, a name given
    at login, else ``team``), their token's key (empty for the team token: a session
    of a revoked person stops working), whether they are an admin, and a nonce the CSRF
    token is derived from."""

    user: str
    nonce: str
    issued: float
    key: str = ""
    admin: bool = True


class Sessions:
    """Checks the team token and signs and reads session cookies. ``token`` None: no
    team token; ``required`` False: no authentication at all (loopback only,
    ``--no-auth``), sessions still carry the CSRF token."""

    def __init__(self, token: str | None, max_age: int = MAX_AGE,
                 required: bool | None = None) -> None:
        self.token = token
        self._required = token is not None if required is None else required
        self.max_age = max_age
        secret = secrets.token_bytes(32)
        self._cookies = URLSafeTimedSerializer(
            secret, salt="leadengine-session", signer_kwargs={"digest_method": hashlib.sha256})
        self._csrf = Signer(secret, salt="leadengine-csrf", digest_method=hashlib.sha256)

    @property
    def required(self) -> bool:
        return self._required

    def check_token(self, given: str) -> bool:
        """Whether ``given`` is the team token (compared in constant time)."""
        if self.token is None:
            return False
        return hmac.compare_digest(given.encode(), self.token.encode())

    def issue(self, user: str = TEAM, key: str = "", admin: bool = True
              ) -> tuple[str, Session]:
        """A new session and its cookie value."""
        user, nonce = (user.strip() or TEAM)[:100], secrets.token_hex(16)
        cookie = self._cookies.dumps({"u": user, "n": nonce, "k": key, "a": admin})
        _, issued = self._cookies.loads(cookie, return_timestamp=True)
        return cookie, Session(user=user, nonce=nonce, issued=issued.timestamp(), key=key,
                               admin=admin)

    def read(self, cookie: str | None) -> Session | None:
        """The session a cookie holds, if it is ours, intact and not expired."""
        if not cookie:
            return None
        try:
            data, issued = self._cookies.loads(cookie, max_age=self.max_age,
                                               return_timestamp=True)
            return Session(user=str(data["u"]), nonce=str(data["n"]),
                           issued=issued.timestamp(), key=str(data.get("k", "")),
                           admin=bool(data.get("a", True)))
        except (BadData, KeyError, TypeError, AttributeError):
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
