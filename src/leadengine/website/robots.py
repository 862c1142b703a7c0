"""robots.txt, as RFC 9309 reads it, for the engine's user agent.

One robots.txt per origin per policy: a site's crawl uses one policy, and a batch
shares one across all its rows, so concurrent rows on one origin wait for the same
single fetch. The policy remembers the last :data:`MAX_ORIGINS` origins. A 4xx
answer means no rules (allowed); a 5xx or a network failure means "assume complete
disallow", so the page is refused with a message that says why and how to override
(``--ignore-robots``).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

import httpx

from leadengine.config import Settings
from leadengine.errors import FetchError
from leadengine.website.fetch import (
    ReadProblem,
    http_error,
    network_reason,
    open_response,
    read_body,
)
from leadengine.website.guard import BlockedAddress

#: Largest robots.txt read, after decompression (RFC 9309 asks crawlers to read at
#: least 500 KiB); the rest of a longer file is ignored.
MAX_ROBOTS_BYTES = 512_000
#: Origins whose rules a policy keeps (least recently used dropped first).
MAX_ORIGINS = 10_000


class RobotsPolicy:
    """Answers "may the engine fetch this URL?" for a crawl or a whole batch."""

    def __init__(self, client: httpx.AsyncClient | None, settings: Settings) -> None:
        #: Reads robots.txt, unless a check brings the client of its own site (a batch's
        #: sites each have their own: see :meth:`check`).
        self.client = client
        self.settings = settings
        self.user_agent = settings.user_agent
        #: Per origin: its rules, or why they could not be read (one task per origin,
        #: so concurrent checks share one fetch).
        self._rules: OrderedDict[str, asyncio.Task[RobotFileParser | str]] = OrderedDict()

    async def check(self, url: str, client: httpx.AsyncClient | None = None) -> None:
        """Return if ``url`` may be fetched; raise FetchError saying why if not. An
        origin's rules are read once, with ``client`` (the site's own, whose connection
        then fetches its pages), else the policy's."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return
        origin = f"{parts.scheme}://{parts.netloc}"
        task = self._rules.get(origin)
        if task is None:
            reader = client or self.client
            if reader is None:
                raise ValueError("RobotsPolicy.check needs a client: the policy has none")
            task = self._rules[origin] = asyncio.ensure_future(
                self._load_in_time(origin, reader))
            if len(self._rules) > MAX_ORIGINS:
                self._rules.popitem(last=False)
        else:
            self._rules.move_to_end(origin)
        try:
            rules = await asyncio.shield(task)
        except (BlockedAddress, httpx.ConnectError) as exc:
            # The site itself is unreachable: say so, as fetching the page would. Not
            # remembered: the next row on this origin tries again.
            self._rules.pop(origin, None)
            raise http_error(url, exc, self.settings) from None
        except httpx.TimeoutException as exc:
            self._rules.pop(origin, None)
            raise FetchError(url, f"robots.txt: {network_reason(exc, self.settings)}"
                             ) from None
        except Exception:
            self._rules.pop(origin, None)
            raise
        if isinstance(rules, str):
            raise FetchError(url, f"robots.txt could not be read ({rules}), so crawling is "
                                  "treated as disallowed (use --ignore-robots to override)")
        if not rules.can_fetch(self.user_agent, url):
            raise FetchError(url, "disallowed by the site's robots.txt (use --ignore-robots "
                                  "to override)")

    async def _load_in_time(self, origin: str, client: httpx.AsyncClient
                            ) -> RobotFileParser | str:
        try:
            async with asyncio.timeout(self.settings.page_deadline):
                return await self._load(origin, client)
        except TimeoutError:
            return f"not finished within {self.settings.page_deadline:g}s"

    async def _load(self, origin: str, client: httpx.AsyncClient) -> RobotFileParser | str:
        parser = RobotFileParser()
        try:
            # The page's own reader: redirects without reading their bodies, and a cap
            # that holds through every layer of compression.
            async with open_response(client, f"{origin}/robots.txt",
                                     self.settings.max_redirects) as response:
                if 400 <= response.status_code < 500:
                    parser.parse([])
                    return parser
                if response.status_code >= 500:
                    return f"HTTP {response.status_code}"
                body, _ = await read_body(response, MAX_ROBOTS_BYTES)
        except (httpx.ConnectError, httpx.TimeoutException):
            raise
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return network_reason(exc, self.settings)
        except ReadProblem as exc:
            return str(exc)
        parser.parse(body.decode("utf-8", "replace").splitlines())
        return parser
