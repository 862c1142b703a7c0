"""The workspace's API against its own OpenAPI schema (``/openapi.json``), with
schemathesis: generated requests (authenticated with the team token) get no 5xx and
no answer that breaks the schema (status codes, content types, bodies). The server is
started with the SSRF guard on and a 1-second fetch timeout, so a generated web
address is refused or fails fast.

Three of schemathesis's checks are left out, as they test what a schema cannot say:
``positive_data_acceptance`` (a schema-valid request may still be refused: a URL that
is no web site, a lead that does not exist, a knowledge file that would not load; each
such refusal is a documented 400 or 404), ``unsupported_method`` and
``allow_header_conformance`` (Starlette's 405 names the methods of the first route
matching a path, not of all of them). A body over the size limit is refused with 413
before it is read, which counts as rejecting invalid data."""

from __future__ import annotations

from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis.config import SchemathesisConfig  # noqa: E402

from leadengine.app import create_app  # noqa: E402
from leadengine.config import Settings  # noqa: E402
from tests.conftest import KNOWLEDGE  # noqa: E402
from tests.test_app import TOKEN, fill  # noqa: E402

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def _app() -> object:
    """The workspace over a filled store and a copy of the knowledge base (the API's
    PUT writes knowledge files)."""
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="leadengine-schema-"))
    db = fill(folder / "r.db", count=30)
    shutil.copytree(KNOWLEDGE, folder / "knowledge")
    config = Settings(knowledge_dir=folder / "knowledge", timeout=1.0,
                      retrieval_method="keyword",
                      use_cache=False, respect_robots=False)
    return create_app(config, db, TOKEN)


APP = _app()
CONFIG = SchemathesisConfig.from_dict({"checks": {
    "positive_data_acceptance": {"enabled": False},
    "unsupported_method": {"enabled": False},
    "allow_header_conformance": {"enabled": False},
    "negative_data_rejection": {"expected-statuses": [
        400, 401, 403, 404, 405, 406, 409, 411, 413, 415, 422, 428, 429]}}})
schema = schemathesis.openapi.from_asgi("/openapi.json", APP, headers=AUTH, config=CONFIG)


def test_the_schema_needs_the_token() -> None:
    from fastapi.testclient import TestClient

    client = TestClient(APP)  # type: ignore[arg-type]
    assert client.get("/openapi.json").status_code == 401
    described = client.get("/openapi.json", headers=AUTH).json()["paths"]
    for path in ("/api/leads", "/api/leads/{lead_id}", "/api/evaluate", "/api/batches",
                 "/api/batches/{job_id}", "/api/batches/{job_id}/events"):
        assert path in described, path


@schema.include(path_regex="^/api/").parametrize()
@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_api_answers_within_its_schema(case: schemathesis.Case) -> None:
    if case.path.endswith("/events"):
        pytest.skip("an event stream stays open until its batch ends")
    case.call_and_validate(headers=AUTH)
