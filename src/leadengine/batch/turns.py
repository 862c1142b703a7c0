"""CPU-heavy steps of a batch one per turn of its event loop (:class:`Turns`), and a page
reader that takes a turn for each page (:class:`TurnReader`).

A batch's event loop runs, in each of its turns, every callback that is ready; when
many sites' pages arrive together, one turn would read them all (milliseconds each)
before the loop looked at its sockets again, and every answer waiting there, an LLM's
among them, would wait for all of them: an LLM request took 460 ms where the server
answered in 300 (issue 16's LLM-mode run). Taking turns, a step waits until the steps
before it have had one turn each, and the loop looks at its sockets between two steps:
the answers are read as they come, the CPU work is the same.

A step says how far along its site is (:data:`READ`, :data:`ASSEMBLE`, :data:`JUDGE`),
and a site further along goes first: a site is finished before another's pages are
read. In the order asked, when the first 64 sites' pages arrived together every one
was read before the first site was judged, and the LLM's first request waited a
quarter of a second for all of them (issue 16's LLM-mode run: 0.26 s from the first
page to the first request; now about one site's reading).
"""

from __future__ import annotations

import asyncio
from collections import deque

from leadengine.config import Settings
from leadengine.website.fetch import Page
from leadengine.website.readers import read_home, read_other
from leadengine.website.site import PageRead, Site, assemble_site

#: A step's stage: reading a page, assembling a site from its pages, judging a site.
READ, ASSEMBLE, JUDGE = 0, 1, 2


class Turns:
    """Grants turns one every other turn of the running loop: the latest stage first,
    and within a stage in the order asked."""

    def __init__(self) -> None:
        #: The steps waiting, a queue per stage.
        self._waiting: tuple[deque[asyncio.Future[None]], ...] = (deque(), deque(),
                                                                   deque())
        self._granting = False

    async def take(self, stage: int = READ) -> None:
        """Return at the start of a loop turn of this step's own (the steps of a later
        stage, and those of its own that asked before it, have had theirs, each in a
        turn of its own, a turn apart). Run the step without awaiting anything else."""
        loop = asyncio.get_running_loop()
        turn: asyncio.Future[None] = loop.create_future()
        self._waiting[stage].append(turn)
        if not self._granting:
            self._granting = True
            loop.call_soon(self._grant)
        await turn

    def _grant(self) -> None:
        # The step granted runs in the loop's next turn, and the next grant is made in
        # the turn after it: a turn with a step is followed by one without, in which
        # what the last poll made ready (an answer being read, the next await of a
        # request) goes on, so an answer waits for half a step per await of it instead
        # of a whole step (an LLM request of a 300 ms server: 326-346 ms -> 310-312).
        if (turn := self._next()) is not None:
            turn.set_result(None)
        if any(self._waiting):
            loop = asyncio.get_running_loop()
            loop.call_soon(loop.call_soon, self._grant)
        else:
            self._granting = False

    def _next(self) -> asyncio.Future[None] | None:
        """The next step to run: the first of the latest stage that has one waiting."""
        for waiting in reversed(self._waiting):
            while waiting:
                turn = waiting.popleft()
                if not turn.done():  # not a step cancelled while it waited
                    return turn
        return None


class TurnReader:
    """Reads pages in this thread, each page (and each site's assembly) in a turn of its
    own (see :class:`Turns`)."""

    def __init__(self, turns: Turns) -> None:
        self.turns = turns

    async def home(self, page: Page, max_pages: int, cpu_seconds: float | None
                   ) -> tuple[list[str], PageRead]:
        await self.turns.take()
        return read_home(page, max_pages, cpu_seconds)

    async def page(self, page: Page, cpu_seconds: float | None) -> PageRead:
        await self.turns.take()
        return read_other(page, cpu_seconds)

    async def site(self, parts: list[PageRead], settings: Settings, failed: list[str]
                   ) -> Site:
        await self.turns.take(ASSEMBLE)
        return assemble_site(parts, settings, failed)
