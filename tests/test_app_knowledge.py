"""The knowledge base in the workspace: the list of files and sections, a file rendered
with its HTML escaped, edits through the form and the API checked the way the engine
loads the knowledge (refused with the loader's message, the file unchanged), the version
that changes with a save, and paths that cannot leave the knowledge directory."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.app.knowledge_files import MAX_TEXT, Refused, locate, save
from leadengine.config import Settings
from leadengine.errors import KnowledgeError
from leadengine.pipeline import evaluate, load_knowledge
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.store import Store
from tests.conftest import KNOWLEDGE, REPO
from tests.test_app import TOKEN, XSS

NOTES = ("# Team notes\n\nSome advice for the team.\n\n" + XSS + "\n\n"
         "[a link](javascript:alert(2))\n\n## Calling\n\nCall before noon.\n")
SECRET = "TOP-SECRET-OUTSIDE"
STRATEGY = "strategy_efficiency.md"


def empty_store(path: Path) -> Path:
    """A results store with no runs: the knowledge pages do not read it."""
    Store(path).engine.dispose()
    return path


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """A copy of the shipped knowledge base, plus a notes file in a folder."""
    root = tmp_path / "kb"
    shutil.copytree(KNOWLEDGE, root)
    (root / "team").mkdir()
    (root / "team" / "notes.md").write_text(NOTES, encoding="utf-8")
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A markdown file next to the knowledge directory, not in it."""
    path = tmp_path / "outside.md"
    path.write_text(f"# Outside\n\n{SECRET}\n", encoding="utf-8")
    return path


@pytest.fixture
def client(tmp_path: Path, kb: Path) -> TestClient:
    app = create_app(Settings(knowledge_dir=kb), empty_store(tmp_path / "r.db"), TOKEN)
    return TestClient(app, follow_redirects=False)


@pytest.fixture
def api(client: TestClient) -> TestClient:
    client.headers["Authorization"] = f"Bearer {TOKEN}"
    return client


def login(client: TestClient) -> str:
    """Log in through the form; returns the CSRF token of the knowledge page."""
    response = client.post("/login", data={"token": TOKEN, "name": "ann",
                                            "next": "/knowledge"})
    assert response.status_code == 303 and response.headers["location"] == "/knowledge"
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', client.get("/knowledge").text)
    assert match
    return match.group(1)


def loader_message(kb: Path, rel: str, text: str, tmp_path: Path) -> str:
    """What the engine says when it loads ``kb`` with ``text`` at ``rel``."""
    copy = tmp_path / "expected"
    shutil.copytree(kb, copy)
    (copy / rel).write_text(text, encoding="utf-8")
    with pytest.raises(KnowledgeError) as caught:
        KnowledgeBase.from_dir(copy)
    return str(caught.value)


def test_the_list_shows_files_sections_rules_and_version(api: TestClient, kb: Path) -> None:
    body = api.get("/api/knowledge").json()
    assert body["version"] == KnowledgeBase.from_dir(kb).version and body["error"] is None
    files = {f["path"]: f for f in body["files"]}
    assert set(files) == {"Lead_q_criteria.md", STRATEGY, "team/notes.md"}
    headings = [s["heading"] for s in files[STRATEGY]["sections"]]
    assert "Strategy Framework: Conversation Angles > Platform Dependency Risk" in headings
    assert files["team/notes.md"]["sections"] == [
        {"heading": "Team notes", "level": 1},
        {"heading": "Team notes > Calling", "level": 2}]
    assert "geography" in files["Lead_q_criteria.md"]["rules"]
    assert files[STRATEGY]["rules"] == ["angles", "outreach"] and files[STRATEGY]["editable"]
    page = api.get("/knowledge")
    assert page.status_code == 200
    assert 'href="/knowledge/team/notes.md"' in page.text
    assert "Platform Dependency Risk" in page.text and body["version"] in page.text


def test_a_file_renders_with_its_html_escaped(api: TestClient) -> None:
    page = api.get("/knowledge/team/notes.md")
    assert page.status_code == 200
    assert "<h1>Team notes</h1>" in page.text and "<h2>Calling</h2>" in page.text
    assert XSS not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "javascript:" not in page.text.replace("[a link](javascript:alert(2))", "")
    assert 'href="javascript' not in page.text
    assert "<script>" not in page.text.replace('<script src="/static/app.js" defer>', "")
    rules = api.get(f"/knowledge/{STRATEGY}").text
    assert "Rules in the front matter" in rules and "angles (6)" in rules
    assert 'href="/knowledge/strategy_efficiency.md/edit"' in rules


def test_edit_round_trip_through_the_form(client: TestClient, kb: Path) -> None:
    csrf = login(client)
    form = client.get("/knowledge/team/notes.md/edit")
    assert form.status_code == 200
    assert f'name="csrf" value="{csrf}"' in form.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in form.text and XSS not in form.text
    base = re.search(r'name="base" value="([0-9a-f]{64})"', form.text)
    assert base
    new = "# Team notes\r\n\r\n## Visiting\r\n\r\nVisit on Tuesdays.\r\n"
    refused = client.post("/knowledge/team/notes.md", data={"text": new, "csrf": "0" * 64})
    assert refused.status_code == 403 and (kb / "team/notes.md").read_text() == NOTES
    saved = client.post("/knowledge/team/notes.md",
                        data={"text": new, "csrf": csrf, "base": base.group(1)})
    assert saved.status_code == 303
    assert saved.headers["location"] == "/knowledge/team/notes.md"
    assert (kb / "team/notes.md").read_bytes() == new.replace("\r\n", "\n").encode()
    assert "<h2>Visiting</h2>" in client.get("/knowledge/team/notes.md").text
    stale = client.post("/knowledge/team/notes.md",
                        data={"text": "# Other\n", "csrf": csrf, "base": base.group(1)})
    assert stale.status_code == 409 and "changed since it was opened" in stale.text
    assert "Visiting" in (kb / "team/notes.md").read_text()
    assert client.post("/knowledge/team/new.md", data={"text": "# New\n", "csrf": csrf}
                       ).status_code == 404  # the form edits; only the API creates
    assert not (kb / "team/new.md").exists()


def test_edit_round_trip_through_the_api(api: TestClient, kb: Path) -> None:
    before = api.get("/api/knowledge").json()["version"]
    file = api.get(f"/api/knowledge/{STRATEGY}").json()
    assert file["text"] == (kb / STRATEGY).read_text(encoding="utf-8")
    text = file["text"] + "\n## Zanzibar Follow-up\n\nAsk about the zanzibarflower menu.\n"
    saved = api.put(f"/api/knowledge/{STRATEGY}", json={"text": text, "base": file["sha256"]})
    assert saved.status_code == 200, saved.text
    assert saved.json()["created"] is False and saved.json()["version"] != before
    assert api.get(f"/api/knowledge/{STRATEGY}").json()["text"] == text
    after = api.get("/api/knowledge").json()
    assert after["version"] == saved.json()["version"] == KnowledgeBase.from_dir(kb).version
    # What the next evaluation loads (the engine reads the files each time): new content.
    hits = KnowledgeBase.from_dir(kb).retrieve("zanzibarflower", method="bm25")
    assert hits and hits[0].path == STRATEGY and "zanzibarflower" in hits[0].text
    created = api.put("/api/knowledge/team/follow-up_2.md", json={"text": "# Follow-up\n"})
    assert created.status_code == 201 and created.json()["created"] is True
    assert (kb / "team/follow-up_2.md").read_text() == "# Follow-up\n"
    listed = [f["path"] for f in api.get("/api/knowledge").json()["files"]]
    assert "team/follow-up_2.md" in listed
    assert not list(kb.rglob(".*.tmp"))  # no temporary file left behind
    stale = api.put(f"/api/knowledge/{STRATEGY}", json={"text": "# x\n",
                                                       "base": file["sha256"]})
    assert stale.status_code == 409 and api.get(f"/api/knowledge/{STRATEGY}"
                                                ).json()["text"] == text


def test_the_next_evaluation_uses_what_was_saved(api: TestClient, kb: Path) -> None:
    """The engine loads the knowledge for each evaluation (a workspace batch too), so a
    saved rule is applied at once and the version a run records is the new one."""
    settings = Settings(knowledge_dir=kb, provider="heuristic", retrieval_method="keyword")
    site = str(REPO / "tests" / "fixtures" / "sites" / "bangkok-hotel" / "index.html")
    assert not evaluate(site, settings).outreach_angle.startswith("ZEBRA")
    text = api.get(f"/api/knowledge/{STRATEGY}").json()["text"]
    saved = api.put(f"/api/knowledge/{STRATEGY}",
                    json={"text": text.replace('framing: "', 'framing: "ZEBRA ')}).json()
    assert evaluate(site, settings).outreach_angle.startswith("ZEBRA ")
    assert load_knowledge(settings).version == saved["version"]


def test_a_bad_rule_name_is_refused_with_the_loaders_message(
        client: TestClient, kb: Path, tmp_path: Path) -> None:
    original = (kb / STRATEGY).read_bytes()
    bad = original.decode().replace('when: ["facebook_only"]', 'when: ["facebook_onyl"]')
    expected = loader_message(kb, STRATEGY, bad, tmp_path)
    assert expected.startswith(f"{STRATEGY}: angles[") and "facebook_onyl" in expected
    csrf = login(client)
    refused = client.put(f"/api/knowledge/{STRATEGY}", json={"text": bad},
                         headers={"X-CSRF-Token": csrf})
    assert refused.status_code == 422 and refused.json()["detail"] == expected
    assert (kb / STRATEGY).read_bytes() == original
    form = client.post(f"/knowledge/{STRATEGY}", data={"text": bad, "csrf": csrf})
    assert form.status_code == 422
    assert expected.replace('"', "&#34;").replace("'", "&#39;") in form.text
    assert "facebook_onyl" in form.text.split("<textarea", 1)[1]  # the text is kept
    assert (kb / STRATEGY).read_bytes() == original


@pytest.mark.parametrize(("text", "says"), [
    ("---\nleadengine: [unclosed\n---\n# Notes\n", "invalid YAML front matter"),
    ("---\nleadengine:\n  nonsense: 1\n---\n# Notes\n",
     "front matter leadengine.nonsense: Extra inputs are not permitted"),
    ("---\nleadengine:\n  rubric: {base: many}\n---\n# Notes\n",
     "front matter leadengine.rubric.base"),
    ("---\n- a list\n---\n# Notes\n", "front matter must be a YAML mapping"),
])
def test_broken_front_matter_is_refused(api: TestClient, kb: Path, tmp_path: Path,
                                        text: str, says: str) -> None:
    refused = api.put("/api/knowledge/team/notes.md", json={"text": text})
    assert refused.status_code == 422
    detail = refused.json()["detail"]
    assert says in detail and detail.startswith("team/notes.md:")
    assert detail == loader_message(kb, "team/notes.md", text, tmp_path).replace(
        str(tmp_path / "expected") + "/", "")
    assert "leadengine-kb-" not in detail and str(tmp_path) not in detail
    assert (kb / "team/notes.md").read_text() == NOTES


def test_an_industry_another_file_defines_still_counts(api: TestClient, kb: Path) -> None:
    """The whole knowledge base is loaded: a condition may name another file's industry,
    and a file whose removal breaks another file's conditions is refused."""
    industry = KnowledgeBase.from_dir(kb).rules.industries[0].name
    rules = (f'---\nleadengine:\n  angles:\n    - name: Ours\n'
             f'      when: ["industry:{industry}"]\n      framing: "x"\n---\n# Ours\n')
    assert api.put("/api/knowledge/team/notes.md", json={"text": rules}).status_code == 200
    emptied = api.put("/api/knowledge/Lead_q_criteria.md", json={"text": "# Criteria\n"})
    assert emptied.status_code == 422, emptied.text
    assert emptied.json()["detail"].startswith("team/notes.md: angles[")


@pytest.mark.parametrize("path", [
    "..%2Foutside.md", "%2E%2E/outside.md", "team/..%2F..%2Foutside.md",
    "..%5Coutside.md", "/OUTSIDE", "link.md", "linked/x.md", "linked/new.md",
    "notes.txt", ".hidden.md", "team/.git/x.md", "new file.md", "Lead_q_criteria.md/x.md",
    "", "team",
])
def test_paths_cannot_leave_the_knowledge_directory(
        api: TestClient, kb: Path, outside: Path, tmp_path: Path, path: str) -> None:
    (kb / "link.md").symlink_to(outside)
    (tmp_path / "outdir").mkdir()
    (tmp_path / "outdir" / "x.md").write_text(f"# X\n\n{SECRET}\n")
    (kb / "linked").symlink_to(tmp_path / "outdir", target_is_directory=True)
    path = path.replace("/OUTSIDE", str(outside))
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
              and not p.is_relative_to(tmp_path / "r.db")}
    for method, url in [("GET", f"/api/knowledge/{path}"), ("GET", f"/knowledge/{path}"),
                        ("GET", f"/knowledge/{path}/edit")]:
        response = api.request(method, url)
        assert response.status_code == 404, (method, url)
        assert SECRET not in response.text
    put = api.put(f"/api/knowledge/{path}", json={"text": f"# Owned\n\n{SECRET}2\n"})
    assert put.status_code == 404 and put.json()["detail"], put.text
    assert SECRET not in api.get("/api/knowledge").text + api.get("/knowledge").text
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()
             and not p.is_relative_to(tmp_path / "r.db")}
    assert after == before  # nothing read back, written or created anywhere


@pytest.mark.parametrize("rel", ["../outside.md", "team/../../outside.md", "./team/notes.md",
                                 "team//notes.md", "/OUTSIDE", "team/../team/notes.md"])
def test_raw_paths_a_browser_would_normalise_are_refused(kb: Path, outside: Path, rel: str
                                                         ) -> None:
    """What ``curl --path-as-is`` could send, which the test client tidies first."""
    with pytest.raises(Refused) as caught:
        locate(kb.resolve(), rel.replace("/OUTSIDE", str(outside)), new=True)
    assert caught.value.status == 404
    assert "not a relative path inside the knowledge directory" in str(caught.value)


def test_refusals_say_why(api: TestClient, kb: Path, outside: Path) -> None:
    (kb / "link.md").symlink_to(outside)
    cases = {"..%2Foutside.md": "not a relative path inside the knowledge directory",
             "link.md": "symbolic link", "notes.txt": "only .md files",
             ".hidden.md": "hidden", "new file.md": "letters, digits",
             "missing.md": "no knowledge file missing.md"}
    for path, says in cases.items():
        detail = api.get(f"/api/knowledge/{path}").json()["detail"]
        if path == "new file.md":
            detail = api.put(f"/api/knowledge/{path}", json={"text": "# x\n"}).json()["detail"]
        assert says in detail, (path, detail)
    listed = {f["path"]: f for f in api.get("/api/knowledge").json()["files"]}
    assert listed["link.md"]["editable"] is False  # the loader reads it; we do not edit it
    assert 'href="/knowledge/link.md"' not in api.get("/knowledge").text


def test_text_over_the_limit_is_refused(api: TestClient, kb: Path) -> None:
    accents = "é" * (MAX_TEXT // 2 + 1)  # within the characters, over the bytes
    body = json.dumps({"text": accents}, ensure_ascii=False).encode()
    refused = api.put("/api/knowledge/team/notes.md", content=body,
                      headers={"Content-Type": "application/json"})
    assert refused.status_code == 413 and str(MAX_TEXT) in refused.json()["detail"]
    long = api.put("/api/knowledge/team/notes.md", json={"text": "x" * (MAX_TEXT + 1)})
    assert long.status_code == 413 and str(MAX_TEXT) in long.json()["detail"]
    huge = api.put("/api/knowledge/team/notes.md", json={"text": accents * 2})
    assert huge.status_code == 413  # the request body limit, before any route
    assert (kb / "team/notes.md").read_text() == NOTES


def test_odd_text_and_names_are_refused_not_crashed_on(api: TestClient, kb: Path) -> None:
    with pytest.raises(Refused) as caught:  # a lone surrogate, as JSON's \\u escapes allow
        save(kb, "team/notes.md", "# A \ud800")
    assert caught.value.status == 422 and "not valid Unicode" in str(caught.value)
    for name in ("a" * 300 + ".md", "ก" * 100 + ".md", "a/" * 600 + "a.md"):
        for method in ("GET", "PUT"):
            response = api.request(method, f"/api/knowledge/{name}", json={"text": "# x\n"})
            assert response.status_code == 404 and "bytes" in response.json()["detail"]
    assert (kb / "team/notes.md").read_text() == NOTES


def test_every_knowledge_route_needs_auth_and_csrf(client: TestClient, kb: Path) -> None:
    assert client.get("/api/knowledge").status_code == 401
    assert client.put(f"/api/knowledge/{STRATEGY}", json={"text": "# x\n"}).status_code == 401
    assert client.get("/knowledge").headers["location"] == "/login?next=%2Fknowledge"
    assert client.post(f"/knowledge/{STRATEGY}", data={"text": "# x\n"}).status_code == 303
    csrf = login(client)
    no_header = client.put("/api/knowledge/team/notes.md", json={"text": "# x\n"})
    assert no_header.status_code == 403
    assert client.post("/knowledge/team/notes.md", data={"text": "# x\n"}).status_code == 403
    assert (kb / "team/notes.md").read_text() == NOTES
    assert client.put("/api/knowledge/team/notes.md", json={"text": "# x\n"},
                      headers={"X-CSRF-Token": csrf}).status_code == 200


def test_without_settings_the_cli_default_directory_is_used(
        tmp_path: Path, kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(kb, tmp_path / "cwd" / "knowledge")
    monkeypatch.chdir(tmp_path / "cwd")
    app = create_app(None, empty_store(tmp_path / "r.db"), TOKEN)
    client = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})
    assert "team/notes.md" in [f["path"] for f in client.get("/api/knowledge").json()["files"]]
    assert client.put("/api/knowledge/team/notes.md", json={"text": "# Local\n"}
                      ).status_code == 200
    assert (tmp_path / "cwd" / "knowledge" / "team" / "notes.md").read_text() == "# Local\n"
    assert (kb / "team/notes.md").read_text() == NOTES
