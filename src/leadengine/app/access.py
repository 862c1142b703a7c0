"""Who a token belongs to, and how often a wrong one may be tried.

A token is a person's (``le_<key>_<secret>``, :mod:`leadengine.store.people`) or the old
shared team token ($LEADENGINE_TOKEN), which works as an admin account called ``team``
for this release and is answered with a ``Deprecation`` header on the API.

Wrong tokens are throttled per client (its address) and per account (the key a
person's token claims; any other token can only be a try at the team token): each may
fail :data:`CLIENT_FAILS` (or :data:`ACCOUNT_FAILS`) times in a row, then once a
minute; until then every try is answered 429 with ``Retry-After`` before the token
is even looked at. Every failure and every refusal is logged (``leadengine.auth``,
WARNING). The counts are this process's: a restart forgets them.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.engine import Engine

from leadengine.app.auth import TEAM, Sessions
from leadengine.store import active_person, person_with_token, token_key

log = logging.getLogger("leadengine.auth")

#: Wrong tokens a client may send in a row before it must wait (then one a minute).
CLIENT_FAILS = 5
#: Wrong tokens for one account, from any client, before it must wait.
ACCOUNT_FAILS = 10
#: Seconds after which one failure is forgiven.
FORGIVEN_EVERY = 60.0
#: Accounts and clients remembered at most (the oldest are forgotten first).
_REMEMBERED = 10_000


@dataclass(frozen=True)
class Who:
    """Whom a token or session belongs to: ``key`` empty for the team token."""

    name: str
    admin: bool
    key: str = ""

    @property
    def team(self) -> bool:
        return not self.key


class Throttle:
    """Failures counted by client and by account, one forgiven a minute."""

    def __init__(self, client_fails: int = CLIENT_FAILS, account_fails: int = ACCOUNT_FAILS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sizes = {"client": client_fails, "account": account_fails}
        self.clock = clock
        #: (kind, name) -> (failures not yet forgiven, when last counted).
        self._failures: dict[tuple[str, str], tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _count(self, kind: str, name: str) -> float:
        """Failures of ``name`` still held against it (one is forgiven a minute)."""
        count, at = self._failures.get((kind, name), (0.0, self.clock()))
        return max(0.0, count - (self.clock() - at) / FORGIVEN_EVERY)

    def _wait(self, kind: str, name: str) -> float:
        over = self._count(kind, name) - (self.sizes[kind] - 1)
        return max(0.0, over * FORGIVEN_EVERY)

    def wait(self, client: str, account: str) -> int:
        """Whole seconds ``client`` must wait before trying ``account`` again (0: now)."""
        with self._lock:
            return math.ceil(max(self._wait("client", client),
                                 self._wait("account", account)))

    def failed(self, client: str, account: str) -> None:
        with self._lock:
            for key in (("client", client), ("account", account)):
                count = self._count(*key) + 1
                self._failures.pop(key, None)
                if len(self._failures) >= _REMEMBERED:  # the least recent go first
                    self._failures.pop(next(iter(self._failures)))
                self._failures[key] = (count, self.clock())


class Access:
    """Checks tokens against the team token and the store's people."""

    def __init__(self, sessions: Sessions, engine: Engine,
                 throttle: Throttle | None = None) -> None:
        self.sessions = sessions
        self.engine = engine
        self.throttle = throttle or Throttle()

    def identify(self, token: str, name: str = "") -> Who | None:
        """Whose ``token`` is: a person, the team (``name`` is who they say they are:
        the old way of knowing who), or nobody."""
        token = token.strip()
        if self.sessions.check_token(token):
            return Who((name.strip() or TEAM)[:100], admin=True)
        person = person_with_token(self.engine, token)
        return None if person is None else Who(person.name, person.admin, person.key)

    def current(self, key: str) -> Who | None:
        """The person a session with token key ``key`` is, unless revoked since."""
        person = active_person(self.engine, key)
        return None if person is None else Who(person.name, person.admin, person.key)

    def account(self, token: str) -> str:
        """The account a try is counted against: the key a person's token claims, else
        the team token's."""
        key = token_key(token.strip())
        return f"person:{key}" if key else TEAM

    def check(self, client: str, token: str, name: str = "") -> tuple[Who | None, int]:
        """(whom ``token`` is, 0), or (None, seconds to wait) when this client or account
        has failed too often (the token is not looked at), or (None, 0) when it is wrong
        (counted and logged)."""
        account = self.account(token)
        wait = self.throttle.wait(client, account)
        if wait:
            log.warning("login refused for %s seconds: too many wrong tokens (client %s, "
                        "account %s)", wait, client, account)
            return None, wait
        who = self.identify(token, name)
        if who is None:
            self.throttle.failed(client, account)
            log.warning("wrong token from %s (account %s)", client, account)
        return who, 0
