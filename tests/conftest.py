"""Shared fixtures: a clean environment, fixture websites and a fake LLM on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from leadengine import KnowledgeBase
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.site_server import SiteServer

REPO = Path(__file__).resolve().parent.parent
SITES = REPO / "tests" / "fixtures" / "sites"
KNOWLEDGE = REPO / "knowledge"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
              ) -> None:
    """No test sees the developer's API keys, engine settings or cache."""
    for name in list(os.environ):
        if name.startswith("LEADENGINE_") or name in ("GROQ_API_KEY", "OPENAI_API_KEY",
                                                      "ANTHROPIC_API_KEY"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("LEADENGINE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))
    # Batches read pages in their own process here (a pool of reader processes per test
    # batch would cost a second each); tests/test_readers.py runs the pool.
    monkeypatch.setenv("LEADENGINE_WORKERS", "0")


@pytest.fixture(scope="session")
def sites() -> Iterator[SiteServer]:
    """The fixture websites, served over real HTTP on 127.0.0.1."""
    with SiteServer(SITES) as server:
        yield server


@pytest.fixture
def fake_llm() -> Iterator[FakeOpenAI]:
    """A fake OpenAI-compatible chat-completions server on 127.0.0.1."""
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The shipped knowledge base."""
    return KnowledgeBase.from_dir(KNOWLEDGE)


def write_kb(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create a knowledge directory with the given files; returns its path."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@contextlib.contextmanager
def postgres_database(create: str = "") -> Iterator[str]:
    """A new, empty PostgreSQL database on the TEST_POSTGRES_URL server (skipped when
    none is set), dropped afterwards; its URL. ``create``: options of CREATE DATABASE to
    try first (its plain form is used if the server refuses them)."""
    server = os.environ.get("TEST_POSTGRES_URL")
    if not server:
        pytest.skip("no PostgreSQL server (set TEST_POSTGRES_URL)")
    import sqlalchemy as sa

    from leadengine.store import database_url

    server = database_url(server)
    name = f"leadengine_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        try:
            conn.execute(sa.text(f"CREATE DATABASE {name} {create}".rstrip()))
        except sa.exc.DBAPIError:
            if not create:
                raise
            conn.execute(sa.text(f"CREATE DATABASE {name}"))
    try:
        yield sa.engine.make_url(server).set(database=name).render_as_string(
            hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()
