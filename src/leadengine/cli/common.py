"""What every ``leadengine`` command shares: the error guard and the common options."""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from leadengine.config import PROVIDERS, Settings, debug_enabled, safe_message
from leadengine.errors import LeadEngineError
from leadengine.retrieval import METHODS

if TYPE_CHECKING:
    from leadengine.judgement import Evaluator
    from leadengine.retrieval import KnowledgeBase
    from leadengine.store import Store

T = TypeVar("T")


def _fail(message: str, code: int = 1) -> None:
    click.echo(f"error: {safe_message(message)}", err=True)
    sys.exit(code)


def warn_error(message: str) -> None:
    """An error line for one item of many (the command goes on)."""
    click.echo(f"error: {safe_message(message)}", err=True)


def guarded(func: Callable[..., T]) -> Callable[..., T]:
    """Run a command body so errors become one line on stderr, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> T:
        _announced.clear()
        try:
            return func(*args, **kwargs)
        except LeadEngineError as exc:
            _fail(str(exc))
        except KeyboardInterrupt:
            _fail("interrupted", 130)
        except ImportError as exc:
            # Commands import what they use when they run, so an install that lacks a
            # dependency fails here: name it, and the fix, in one line.
            missing = exc.name or str(exc).splitlines()[0]
            _fail(f"a package the engine needs is missing ({missing}): reinstall with "
                  "`pip install .` (or `pip install leadengine`)", 2)
        except (BrokenPipeError, click.exceptions.Exit, SystemExit):
            raise
        except Exception as exc:
            if debug_enabled():
                raise
            _fail(f"unexpected {type(exc).__name__}: {exc} (set LEADENGINE_DEBUG=1 for "
                  "details)", 2)
        raise AssertionError("unreachable")

    return wrapper


def start_up() -> None:
    """A command's start: no cycle collection while it imports the pipeline and loads
    its data (see :func:`work_begins`; each full collection walked every object loaded
    so far: three of them, 130 ms, in a batch's start)."""
    gc.disable()


def work_begins() -> None:
    """What the command loaded is kept out of the collector's walks (it lives as long as
    the command) and collection is back on for the work. Only after :func:`start_up`:
    in a process that did not start as a command (tests, the workspace's jobs) nothing
    is frozen."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


def _run(coro: Coroutine[Any, Any, T]) -> T:
    import asyncio  # ~30 ms: only the commands that fetch or evaluate need it

    work_begins()
    return asyncio.run(coro)


def _settings(**options: Any) -> Settings:
    """The command's settings: ``Settings.load()`` (files, environment, every value
    checked) with the command's options over them."""
    settings = Settings.load().with_options(**options)
    chosen = "segmenter" in settings.origins
    if chosen or "leadengine.retrieval.tokenize" in sys.modules:
        # leadengine.toml and .env are unseen by the tokeniser (it reads the environment
        # itself), so it is told; imported only then, as it costs ~40 ms.
        from leadengine.retrieval import use_segmenter

        use_segmenter(settings.segmenter if chosen else None)
    for note in settings.relaxations():
        # Once per command, however many times the settings are read.
        if note not in _announced:
            _announced.add(note)
            click.echo(note, err=True)
    return settings


#: Notices already shown by this process.
_announced: set[str] = set()


def _knowledge(settings: Settings, questions: Sequence[str] = ()) -> KnowledgeBase:
    """The knowledge base of the settings, asking ``questions`` too."""
    from leadengine.knowledge import with_questions
    from leadengine.retrieval import KnowledgeBase

    return with_questions(KnowledgeBase.from_settings(settings), questions)


#: Said once per command when no LLM is configured and the offline evaluator is used.
OFFLINE_NOTICE = ("notice: no LLM configured (set GROQ_API_KEY or --provider); using the "
                  "offline heuristic evaluator")


def _evaluator(settings: Settings, kb: KnowledgeBase) -> Evaluator:
    """The evaluator for a command that evaluates; says so on stderr (once) when it is
    the offline one because nothing else was configured."""
    from leadengine.judgement import make_evaluator

    evaluator = make_evaluator(settings, kb)
    if settings.provider is None and evaluator.name == "heuristic":
        click.echo(OFFLINE_NOTICE, err=True)
    for note in evaluator.notices:
        # A configured model that retires soon, is unknown, or was replaced at once.
        if note not in _announced:
            _announced.add(note)
            click.echo(note, err=True)
    return evaluator


question_option = click.option(
    "--question", "questions", multiple=True, metavar="TEXT",
    help="A question to answer for every site, with the sentence that answers it (or "
         "unknown), on top of the knowledge base's questions; repeat for more. "
         "\"Do they deliver?\" is yes/no, \"How many branches?\" a number, others text; "
         "\"id=...\" names its column.")
knowledge_option = click.option(
    "--knowledge", "knowledge_dir", type=click.Path(path_type=Path),
    help="Knowledge directory (default: ./knowledge, else the bundled one).")
def fetch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by the commands that fetch websites."""
    for option in reversed([
        click.option("--allow-private", is_flag=True, default=None,
                     help="Allow private, loopback and link-local addresses (SSRF guard "
                          "off), e.g. for a site on the local network."),
        click.option("--ignore-robots", is_flag=True, default=None,
                     help="Fetch pages even where robots.txt disallows it."),
        click.option("--max-pages", type=click.IntRange(min=0), default=None,
                     help="Same-site pages read besides the homepage (default 4)."),
        click.option("--render", type=click.Choice(["auto", "always", "never"]),
                     default=None,
                     help="Pages built by JavaScript: render an empty homepage in headless "
                          "Chromium (auto, when installed), every homepage, or none."),
    ]):
        func = option(func)
    return func


def llm_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Options shared by the commands that evaluate: provider, model, endpoint, cache."""
    for option in reversed([
        click.option("--provider", type=click.Choice(sorted(PROVIDERS)), default=None,
                     help="Evaluator: an LLM provider, or 'heuristic' (offline). "
                          "Default: groq if GROQ_API_KEY is set, else heuristic."),
        click.option("--model", default=None, help="Model name (default: the provider's)."),
        click.option("--temperature", type=click.FloatRange(0, 2), default=None,
                     help="Sampling temperature for the LLM (default 0.2)."),
        click.option("--base-url", default=None,
                     help="Any OpenAI-compatible endpoint, e.g. http://localhost:8000/v1."),
        click.option("--no-cache", is_flag=True,
                     help="Do not answer from the response cache."),
        click.option("--no-fallback", is_flag=True,
                     help="Never switch to another model when the one in use is retired "
                          "or out of its daily quota: its requests fail (a batch stops, "
                          "its rows left to do)."),
    ]):
        func = option(func)
    return func


def outreach_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--outreach-language`` and ``--outreach-writer``."""
    command = click.option(
        "--outreach-writer", type=click.Choice(["template", "llm"]), default=None,
        help="Who writes the outreach message: the knowledge base's template filled with "
             "the lead's facts (default), or the LLM provider with the template as "
             "guidance, citing the facts it used (one more request per lead).")(command)
    return click.option(
        "--outreach-language", type=click.Choice(["en", "th", "my"]), default=None,
        help="Write the outreach message in this language (default: the site's, Thai or "
             "Burmese, else English).")(command)


method_option = click.option(
    "--method", type=click.Choice(list(METHODS)), default=None,
    help="Retrieval method: keyword (the seed's, whole files), bm25, semantic, hybrid "
         f"(default: {Settings().retrieval_method}).")


db_option = click.option(
    "--db", default=None,
    help="Results database: a file path (SQLite) or a URL such as postgresql://... "
         "(default: the db setting: $LEADENGINE_DB, .env, leadengine.toml, else "
         "./leadengine.db).")


def _store(db: str | None, create: bool = True) -> Store:
    """The results store; ``create=False`` for the commands that only read, so that a
    mistyped --db is an error instead of a new empty database."""
    from leadengine.store import Store

    return Store(db or _settings().db, create=create)
