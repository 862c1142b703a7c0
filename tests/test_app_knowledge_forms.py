"""The knowledge base's forms for salespeople: target cities, rubric weights, angles and
templates, each checked by the loader (its message on the form, nothing saved) and
previewed on the stored leads, 10,000 of them in under 3 seconds."""

from __future__ import annotations

import functools
import html
import json
import re
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.config import Settings
from leadengine.judgement import Lead, rescore
from leadengine.knowledge import Knowledge, replace_section, section_value
from leadengine.pipeline import evaluate
from leadengine.store import Outcome, RunKey, Store
from tests.conftest import KNOWLEDGE, REPO
from tests.test_app import TOKEN

#: (city, in a target market, scale, site kind, stored fit score) of the stored leads.
LEADS = [("Bangkok", True, "", "business", 72),        # high, in a target city
         ("Yangon", True, "", "business", 45),         # medium
         ("Chiang Mai", False, "", "business", 35),    # out of market, at its cap
         ("", None, "", "business", 50),               # location not stated
         ("Mandalay", True, "small", "business", 65),  # a small outlet, at its cap
         ("Singapore", False, "", "directory", 20)]     # a directory


@functools.cache
def real() -> dict[str, Any]:
    """A real evaluation of the example site (about 8 KB of JSON): what a stored lead
    weighs when the preview reads it."""
    found = evaluate(str(REPO / "examples" / "smile-bright-dental" / "index.html"),
                     Settings(provider="heuristic", use_cache=False))
    data: dict[str, Any] = json.loads(found.to_json())
    return data


def evaluation(n: int, city: str, target: bool | None, scale: str, kind: str,
               score: int) -> dict[str, Any]:
    return {**real(), "business_name": f"Lead {n}", "fit_score": score,
            "location": {"city": city or None, "in_target_geography": target},
            "scale": {"value": scale or "unknown"}, "site_kind": {"value": kind}}


def stored(path: Path, count: int = 1) -> Path:
    """A store holding :data:`LEADS` ``count`` times over."""
    store = Store(path)
    run = store.start_run("leads.csv", "kb", "heuristic", "rules-v1")
    key = RunKey(run, "kb", "heuristic", "rules-v1")
    outcomes = [Outcome(n, f"https://lead{n}.example/", {},
                        evaluation(n, *LEADS[n % len(LEADS)]))
                for n in range(count * len(LEADS))]
    for start in range(0, len(outcomes), 2000):
        store.record_outcomes(key, outcomes[start:start + 2000])
    store.finish_run(run)
    store.engine.dispose()
    return path


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "knowledge"
    shutil.copytree(KNOWLEDGE, root)
    return root


def client_for(db: Path, kb: Path) -> TestClient:
    client = TestClient(create_app(Settings(knowledge_dir=kb), db, TOKEN),
                        follow_redirects=False)
    client.post("/login", data={"token": TOKEN, "name": "Thandar"})
    return client


def form_fields(page: str) -> dict[str, str]:
    """The form's fields as the browser would send them (ticked boxes only)."""
    fields = {}
    for tag in re.findall(r"<(?:input|textarea|select)[^>]*>(?:[^<]*</textarea>)?", page):
        name = re.search(r'name="([^"]+)"', tag)
        if name is None or 'type="submit"' in tag:
            continue
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                fields[name.group(1)] = re.search(r'value="([^"]*)"', tag).group(1)
            continue
        if tag.startswith("<textarea"):
            fields[name.group(1)] = re.sub(r"<[^>]*>", "", tag.split(">", 1)[1])
        elif tag.startswith("<select"):
            continue
        else:
            value = re.search(r'value="([^"]*)"', tag)
            fields[name.group(1)] = value.group(1) if value else ""
    for select, chosen in re.findall(
            r'<select name="([^"]+)">(?:(?!</select>).)*?<option value="([^"]+)" selected',
            page, re.S):
        fields[select] = chosen
    return {k: v.replace("&#39;", "'").replace("&amp;", "&").replace("&#34;", '"')
            .replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
            for k, v in fields.items()}


def summary(page: str) -> str:
    found = re.search(r'id="preview-summary">(.*?)</p>', page, re.S)
    assert found, page[:2000]
    return re.sub(r"<[^>]+>", "", found.group(1))


def test_the_rubric_form_previews_saves_and_refuses_a_negative_weight(
        tmp_path: Path, kb: Path) -> None:
    client = client_for(stored(tmp_path / "r.db"), kb)
    fields = form_fields(client.get("/knowledge/forms/rubric").text)
    assert fields["in_target_geography"] == "25" and fields["band-high"] == "70"
    fields["in_target_geography"] = "40"  # +15 for each lead in a target city
    page = client.post("/knowledge/forms/rubric", data={**fields, "action": "preview"}).text
    # Bangkok 72 -> 87 (high), Yangon 45 -> 60 (medium), Mandalay 65 stays at its cap.
    assert summary(page).startswith("0 of 6 leads would change band; 2 scores would change")
    fields["band-high"] = "60"
    page = client.post("/knowledge/forms/rubric", data={**fields, "action": "preview"}).text
    assert summary(page).startswith("2 of 6 leads would change band")  # Yangon, Mandalay
    assert "Medium → High: 2" in page.replace("</li>", "").replace("<li>", "")
    before = (kb / "Lead_q_criteria.md").read_bytes()
    bad = client.post("/knowledge/forms/rubric",
                      data={**fields, "base": "-5", "action": "save"})
    assert bad.status_code == 422
    assert ("Lead_q_criteria.md: front matter leadengine.rubric.base: Input should be "
            "greater than or equal to 0") in bad.text
    assert 'id="f-base" value="-5" required aria-invalid="true"' in bad.text
    assert (kb / "Lead_q_criteria.md").read_bytes() == before  # nothing saved
    typo = client.post("/knowledge/forms/rubric", data={**fields, "size_cap": "ten"})
    assert typo.status_code == 422 and "is not a whole number" in typo.text
    saved = client.post("/knowledge/forms/rubric", data={**fields, "action": "save"})
    assert saved.status_code == 303
    rules = Knowledge.from_dir(kb).rules
    assert rules.rubric.in_target_geography == 40 and rules.rubric.bands["high"] == 60
    text = (kb / "Lead_q_criteria.md").read_text()
    assert "# Target markets." in text  # the next section's comments are kept
    with sqlite3.connect(tmp_path / "r.db") as conn:
        assert conn.execute("SELECT who, kind FROM activity").fetchall() == [
            ("Thandar", "knowledge.save")]


def test_the_cities_form_adds_a_target_city_and_refuses_a_city_without_a_name(
        tmp_path: Path, kb: Path) -> None:
    client = client_for(stored(tmp_path / "r.db"), kb)
    page = client.get("/knowledge/forms/cities").text
    fields = form_fields(page)
    chiang_mai = next(k.split("-")[0] for k, v in fields.items() if v == "Chiang Mai")
    fields[f"{chiang_mai}-target"] = "yes"  # Chiang Mai becomes a market
    preview = client.post("/knowledge/forms/cities", data={**fields, "action": "preview"})
    # The Chiang Mai lead: 35 (out of market, capped) -> 35 + 25 = 60, medium.
    assert summary(preview.text).startswith("1 of 6 leads would change band")
    assert "Low → Medium: 1" in preview.text.replace("<li>", "").replace("</li>", "")
    spare = max(int(k.split("-")[0]) for k in fields if k[0].isdigit())
    missing = {**fields, f"{spare}-country": "Thailand", f"{spare}-aliases": "hat yai",
               f"{spare}-target": "yes", "action": "save"}
    before = (kb / "Lead_q_criteria.md").read_bytes()
    refused = client.post("/knowledge/forms/cities", data=missing)
    assert refused.status_code == 422
    assert f"leadengine.geography.{spare}.name: String should have at least 1 character" \
        in refused.text
    assert 'class="kb-row invalid"' in refused.text
    assert (kb / "Lead_q_criteria.md").read_bytes() == before
    saved = client.post("/knowledge/forms/cities", data={
        **missing, f"{spare}-name": "Hat Yai"})
    assert saved.status_code == 303
    places = {p.name: p.target for p in Knowledge.from_dir(kb).rules.geography}
    assert places["Hat Yai"] is True and places["Chiang Mai"] is True
    assert places["Singapore"] is False
    text = (kb / "Lead_q_criteria.md").read_text()
    assert "# Target markets. Latin-script aliases match whole words" in text


def test_the_templates_and_angles_forms_keep_the_loader_checks(tmp_path: Path,
                                                               kb: Path) -> None:
    client = client_for(stored(tmp_path / "r.db"), kb)
    fields = form_fields(client.get("/knowledge/forms/templates").text)
    assert fields["0-angle"] == "*" and fields["0-language"] == "en"
    wrong = client.post("/knowledge/forms/templates", data={
        **fields, "0-chat": "Hello {owner_name}!", "action": "save"})
    assert wrong.status_code == 422 and "unknown placeholder {owner_name}" in wrong.text
    saved = client.post("/knowledge/forms/templates", data={
        **fields, "0-chat": "Hi {business_name} team, a quick idea about {observation}.",
        "action": "save"})
    assert saved.status_code == 303
    chat = Knowledge.from_dir(kb).rules.outreach[0].chat
    assert chat == "Hi {business_name} team, a quick idea about {observation}."
    angles = form_fields(client.get("/knowledge/forms/angles").text)
    unknown = client.post("/knowledge/forms/angles", data={
        **angles, "0-when": "facebook_onli", "action": "save"})
    assert unknown.status_code == 422
    assert ("strategy_efficiency.md: angles[\"Platform Dependency Risk\"].when: unknown "
            "signal 'facebook_onli' (did you mean 'facebook_only'?)") in html.unescape(
        unknown.text)
    preview = client.post("/knowledge/forms/angles", data={**angles, "action": "preview"})
    assert summary(preview.text).startswith("0 of 6 leads would change band; 0 scores")


def test_a_preview_of_ten_thousand_stored_leads_takes_under_three_seconds(
        tmp_path: Path, kb: Path) -> None:
    client = client_for(stored(tmp_path / "r.db", count=1667), kb)  # 10,002 leads
    fields = form_fields(client.get("/knowledge/forms/rubric").text)
    started = time.perf_counter()
    page = client.post("/knowledge/forms/rubric", data={
        **fields, "in_target_geography": "40", "band-high": "60", "action": "preview"}).text
    elapsed = time.perf_counter() - started
    assert summary(page).startswith("3,334 of 10,002 leads would change band")
    print(f"preview of 10,002 leads: {elapsed:.2f} s")
    assert elapsed < 3.0, elapsed


def test_rescore_moves_scores_by_what_changed_and_caps_them_again() -> None:
    rules = Knowledge.from_dir(KNOWLEDGE).rules
    leads = [Lead.of(n, row[4], evaluation(n, *row)) for n, row in enumerate(LEADS)]
    assert rescore(leads, rules, rules).changes == 0
    data = rules.model_dump()
    data["rubric"] = {**data["rubric"], "base": 0, "out_of_market_max_fit": 10}
    data["geography"] = [p for p in data["geography"] if p["name"] != "Yangon"]
    after = type(rules).model_validate(data)
    found = {c.id: (c.before, c.after) for c in rescore(leads, rules, after).changed}
    # base -10 everywhere; Yangon off the list: -25 +5 and the not-stated cap (65);
    # Chiang Mai and Singapore: out of market, capped at 10.
    assert found == {0: (72, 62), 1: (45, 15), 2: (35, 10), 3: (50, 40), 4: (65, 55),
                     5: (20, 10)}


def test_replace_section_keeps_the_rest_of_the_file() -> None:
    text = ("---\n# a comment\nleadengine:\n  rubric:\n    base: 10  # start\n\n"
            "  # the angles\n  angles: []\nother: 1\n---\n# Body\n\ntext\n")
    new = replace_section(text, "rubric", {"base": 12})
    assert new == ("---\n# a comment\nleadengine:\n  rubric: {base: 12}\n\n"
                   "  # the angles\n  angles: []\nother: 1\n---\n# Body\n\ntext\n")
    assert section_value(new, "rubric") == {"base": 12}
    added = replace_section(new, "geography", [{"name": "Yangon", "aliases": ["ygn"]}])
    assert section_value(added, "geography") == [{"name": "Yangon", "aliases": ["ygn"]}]
    assert section_value(added, "angles") == [] and added.endswith("# Body\n\ntext\n")
    assert json.loads(json.dumps(section_value(replace_section("# only a body\n", "angles",
                                                               []), "angles"))) == []
