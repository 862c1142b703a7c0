"""Pages built by JavaScript (Wix, React, Vue...), rendered in headless Chromium and read
from the rendered page.

A homepage whose HTML is an empty shell (little visible text, and scripts that write the
content: a root ``div``, "Loading…", a ``noscript`` asking for JavaScript) is opened in
Debian's ``chromium`` driven by Playwright (``pip install 'leadengine[render]'`` and
``apt install chromium``); ``render`` (``--render``) is ``auto`` (shells only, when
Chromium is there; a one-line note when it is not), ``always`` or ``never``.

Bounded: the whole render (load, scripts, the DOM read back) within
:data:`RENDER_SECONDS`; a page's JavaScript heap capped; no downloads, no popups, no
service workers; the page's requests go to its own host, or to other hosts for its
scripts and styles only, each host checked by the SSRF guard first (a private address
needs ``allow_private``); a renderer that crashes or hangs fails that page alone (the
browser is started again for the next). At most :data:`AT_ONCE` pages render at once,
on their own, so pages that need no rendering never wait for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import lxml.html

from leadengine.config import Settings
from leadengine.errors import FetchError
from leadengine.website.extract import text_nodes
from leadengine.website.fetch import Page
from leadengine.website.guard import is_public, system_resolver

#: Seconds a page has to render, scripts and all.
RENDER_SECONDS = 8.0
#: Pages rendered at once.
AT_ONCE = 2
#: Fewer visible words than this, with scripts on the page: an empty shell.
SHELL_WORDS = 40
#: Where Debian and others install Chromium.
CHROMIUM = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
               "--disable-extensions", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run",
               "--mute-audio", "--js-flags=--max-old-space-size=192"]
_SHELL_HINTS = re.compile(r"loading|enable javascript|javascript (?:is )?(?:required|"
                          r"disabled)|turn on javascript|กำลังโหลด|loading\.\.\.", re.I)
_ROOT = re.compile(r"""\bid=["'](?:root|app|__next|__nuxt|svelte|main-app|SITE_CONTAINER)["']""")
_SCRIPT = re.compile(r"<script", re.I)
_NOSCRIPT = re.compile(r"<noscript[^>]*>(.*?)</noscript>", re.I | re.S)


def chromium() -> str | None:
    """The Chromium this machine has, None when none (or Playwright is missing)."""
    try:
        import playwright  # noqa: F401
    except ImportError:
        return None
    return next((path for path in CHROMIUM if shutil.which(path)), None)


def is_shell(page: Page, nodes: list[str] | None = None) -> bool:
    """Whether a page's HTML is an empty shell its scripts fill in: scripts, fewer than
    :data:`SHELL_WORDS` visible words (``nodes``: its visible text, when read already),
    and a root element for the app, a "Loading…" or a ``noscript`` asking for
    JavaScript (or next to no text at all)."""
    html = page.html
    if not html or page.final_url.startswith("file:") or _SCRIPT.search(html) is None:
        return False
    if nodes is None:
        try:
            nodes = text_nodes(lxml.html.fromstring(html))
        except (ValueError, lxml.etree.ParserError):
            return False
    text = " ".join(nodes)
    words = len(text.split())
    if words >= SHELL_WORDS:
        return False
    return words < 10 or bool(_ROOT.search(html)) or bool(_SHELL_HINTS.search(
        text + " " + " ".join(_NOSCRIPT.findall(html))))


log = logging.getLogger("leadengine.render")
_noted: list[bool] = []


def note_unrendered(page: Page, nodes: list[str]) -> None:
    """Say once per process that a page built by JavaScript was read as served, because
    no Chromium is installed to render it."""
    if not _noted and is_shell(page, nodes):
        _noted.append(True)
        log.warning("note: %s is built by JavaScript and was read as served: install "
                    "Chromium to render such pages (apt install chromium; pip install "
                    "'leadengine[render]'), or pass --render never", page.final_url)


class Renderer:
    """Renders pages in one headless Chromium, started on first use."""

    def __init__(self, settings: Settings, executable: str | None = None,
                 seconds: float = RENDER_SECONDS) -> None:
        self.settings = settings
        self.executable = executable or chromium()
        self.seconds = seconds
        self._gate = asyncio.Semaphore(AT_ONCE)
        self._playwright: Any = None
        self._browser: Any = None
        self._public: dict[str, bool] = {}
        self._stuck = False
        self.rendered = 0

    @property
    def available(self) -> bool:
        return self.executable is not None

    def wants(self, page: Page, nodes: list[str] | None = None) -> bool:
        """Whether ``page`` (its visible text ``nodes``, when read already) is to be
        rendered: the setting, Chromium at hand, and an empty shell (for ``auto``)."""
        mode = self.settings.render
        if mode == "never" or not self.available or page.final_url.startswith("file:"):
            return False
        return mode == "always" or is_shell(page, nodes)

    async def _started(self) -> Any:
        if self._browser is not None and self._browser.is_connected():
            return self._browser
        from playwright.async_api import async_playwright

        if self._playwright is None:
            self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=self.executable, args=LAUNCH_ARGS, headless=True)
        return self._browser

    async def render(self, page: Page) -> Page:
        """``page`` as its scripts leave it; FetchError (this page alone) when it does
        not render within :attr:`seconds` or the renderer fails."""
        async with self._gate:
            try:
                html = await asyncio.wait_for(self._render(page.final_url), self.seconds)
            except TimeoutError:
                if self._stuck:  # the page's context would not close: a new browser
                    await self._reset()
                raise FetchError(page.final_url, f"did not render within {self.seconds:g}s "
                                                 "(a script that never ends?)") from None
            except FetchError:
                raise
            except Exception as exc:  # the page crashed (out of memory), Chromium died...
                if self._browser is not None and not self._browser.is_connected():
                    await self._reset()
                lines = str(exc).strip().splitlines()
                why = (lines[0] if lines else type(exc).__name__)[:200]
                raise FetchError(page.final_url, f"could not be rendered ({why})") from None
        self.rendered += 1
        return replace(page, html=html)

    async def _render(self, url: str) -> str:
        browser = await self._started()
        context = await browser.new_context(accept_downloads=False, service_workers="block",
                                            user_agent=self.settings.user_agent,
                                            java_script_enabled=True)
        try:
            tab = await context.new_page()
            tab.on("popup", lambda popup: asyncio.ensure_future(popup.close()))
            await tab.route("**/*", self._router(url))
            await tab.goto(url, wait_until="load")
            with contextlib.suppress(Exception):  # a page that never goes quiet: read it
                await tab.wait_for_load_state("networkidle", timeout=1500)
            return str(await tab.content())
        finally:
            # Closing the context ends the page's renderer process, a hung one too; only
            # if that fails is the browser itself (and any other page in it) started anew.
            try:
                await asyncio.wait_for(context.close(), 3.0)
            except Exception:
                self._stuck = True

    def _router(self, url: str) -> Any:
        own = urlsplit(url).hostname or ""

        async def route(request_route: Any) -> None:
            request = request_route.request
            host = urlsplit(request.url).hostname or ""
            scheme = urlsplit(request.url).scheme
            allowed = scheme in ("http", "https") and (
                host == own or request.resource_type in ("script", "stylesheet"))
            if allowed and not await self._may_reach(host):
                allowed = False
            await (request_route.continue_() if allowed else request_route.abort())

        return route

    async def _may_reach(self, host: str) -> bool:
        """Whether the SSRF guard lets the renderer reach ``host``."""
        if self.settings.allow_private:
            return True
        if host not in self._public:
            try:
                addresses = await system_resolver(host, 443)
            except OSError:
                addresses = []
            self._public[host] = bool(addresses) and all(is_public(a) for a in addresses)
        return self._public[host]

    async def _reset(self) -> None:
        """Close a browser that hung or crashed: the next page starts a new one."""
        browser, self._browser, self._stuck = self._browser, None, False
        if browser is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(browser.close(), 3.0)

    @staticmethod
    async def close_quietly(renderer: Renderer | None) -> None:
        """Close ``renderer`` if there is one."""
        if renderer is not None:
            await renderer.close()

    async def close(self) -> None:
        await self._reset()
        if self._playwright is not None:
            with contextlib.suppress(Exception):
                await self._playwright.stop()
            self._playwright = None
