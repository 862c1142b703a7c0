"""Webhooks: the workspace posts ``lead.evaluated`` and ``lead.status_changed`` events to
the URLs of the ``webhooks`` setting, from the store's durable outbox
(:mod:`leadengine.store.outbox`).

Each body is JSON (its schema is in ``/openapi.json`` under ``webhooks``) signed with
``X-Leadengine-Signature: sha256=<hex HMAC-SHA256 of the raw body under
$LEADENGINE_WEBHOOK_SECRET>``; ``X-Leadengine-Event`` and ``X-Leadengine-Delivery`` (the
event id: the same on every retry, so a receiver can drop duplicates) come with it. A
2xx answer delivers it. Anything else (an error status, a timeout, a refused
connection) is tried again after :data:`BACKOFF` (10 s, 1 min, 5 min, 30 min, 1 h, 3 h)
and then given up, with a warning in the log and the delivery log on the Settings page.
A URL on a private address is refused by the SSRF guard unless the workspace runs with
``--allow-private``, and given up at once (trying again cannot help). Deliveries run in
a task of their own, a few at a time, each within :data:`TIMEOUT` seconds: a slow or
broken receiver never holds up a page.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
from sqlalchemy.engine import Engine

from leadengine.errors import ConfigError
from leadengine.store import Delivery, delivered, due, failed, fan_out
from leadengine.website import BlockedAddress, GuardedTransport

if TYPE_CHECKING:
    from leadengine.config import Settings

log = logging.getLogger("leadengine.webhooks")

#: Seconds before each retry; after the last, the delivery is given up.
BACKOFF: tuple[float, ...] = (10, 60, 300, 1800, 3600, 3 * 3600)
#: Seconds a receiver has to answer.
TIMEOUT = 10.0
#: Deliveries in flight at once.
AT_ONCE = 4
SIGNATURE = "X-Leadengine-Signature"


def sign(secret: str, body: bytes) -> str:
    """The ``X-Leadengine-Signature`` value of ``body``: ``sha256=<hex HMAC>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Webhooks:
    """Sends the outbox's deliveries to ``targets`` (while :meth:`run` runs)."""

    engine: Engine
    targets: Sequence[str]
    secret: str
    min_fit: int = 0
    allow_private: bool = False
    backoff: Sequence[float] = BACKOFF
    poll: float = 1.0
    timeout: float = TIMEOUT
    transport: httpx.AsyncBaseTransport | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, repr=False)

    def wake(self) -> None:
        """Look at the outbox now (a status just changed), not at the next poll; safe
        from any thread."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        """Fan out and deliver until cancelled; a database error is logged and the loop
        goes on (the outbox keeps what was not sent)."""
        self._loop = asyncio.get_running_loop()
        transport = self.transport or GuardedTransport(self.allow_private)
        async with httpx.AsyncClient(transport=transport, follow_redirects=False,
                                     timeout=self.timeout) as client:
            while True:
                try:
                    await self.step(client)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # a database hiccup: the next poll tries again
                    log.warning("webhooks: %s", exc)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.poll):
                        await self._wake.wait()
                self._wake.clear()

    async def step(self, client: httpx.AsyncClient) -> int:
        """Queue what is new, then send what is due; returns how many were sent."""
        await asyncio.to_thread(fan_out, self.engine, self.targets, self.min_fit)
        batch = await asyncio.to_thread(due, self.engine, AT_ONCE * 4)
        gate = asyncio.Semaphore(AT_ONCE)

        async def one(delivery: Delivery) -> None:
            async with gate:
                await self.send(client, delivery)

        await asyncio.gather(*(one(d) for d in batch))
        return len(batch)

    async def send(self, client: httpx.AsyncClient, delivery: Delivery) -> None:
        body = delivery.body.encode()
        headers = {"Content-Type": "application/json", SIGNATURE: sign(self.secret, body),
                   "X-Leadengine-Event": delivery.event,
                   "X-Leadengine-Delivery": delivery.event_id,
                   "User-Agent": "leadengine-webhooks"}
        status: int | None = None
        try:
            async with asyncio.timeout(self.timeout):
                async with client.stream("POST", delivery.target, content=body,
                                         headers=headers) as response:
                    status = response.status_code  # the body is never read
            error = "" if 200 <= status < 300 else f"answered HTTP {status}"
        except BlockedAddress as exc:
            return await self._give_up(delivery, str(exc))
        except TimeoutError:
            error = f"no answer within {self.timeout:g} s"
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if not error:
            assert status is not None
            await asyncio.to_thread(delivered, self.engine, delivery, status)
            return None
        tries = delivery.attempts + 1
        if tries > len(self.backoff):
            return await self._give_up(delivery, error, status)
        await asyncio.to_thread(failed, self.engine, delivery, error, status,
                                self.backoff[tries - 1])
        return None

    async def _give_up(self, delivery: Delivery, error: str, status: int | None = None
                       ) -> None:
        log.warning("webhook %s: gave up on %s after %d tries: %s", delivery.target,
                    delivery.event_id, delivery.attempts + 1, error)
        await asyncio.to_thread(failed, self.engine, delivery, error, status, None)


def webhooks_of(settings: Settings | None, engine: Engine, allow_private: bool
                ) -> Webhooks | None:
    """The workspace's webhooks, None when the ``webhooks`` setting names no URL;
    ConfigError when it does and $LEADENGINE_WEBHOOK_SECRET is not set (receivers check
    the signature with it)."""
    if settings is None or not settings.webhooks:
        return None
    secret = settings.environ().get("LEADENGINE_WEBHOOK_SECRET", "").strip()
    if len(secret) < 16:
        raise ConfigError("webhooks are set (LEADENGINE_WEBHOOKS) but "
                          "LEADENGINE_WEBHOOK_SECRET is not, or is shorter than 16 "
                          "characters: set it to the secret the receivers check the "
                          "X-Leadengine-Signature with")
    return Webhooks(engine, settings.webhooks, secret, settings.webhook_min_fit,
                    allow_private)


def shown_target(url: str) -> str:
    """A webhook URL as the delivery log shows it: its scheme, host and port only (the
    path of a Zapier or Make hook is as good as a password)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}/…"
