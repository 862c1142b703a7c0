"""The leads board at scale: every sort, filter and search in SQL over ``lead_board``
(the same order as Python's), the filters' dropdowns, the export of the board's leads
as CSV and XLSX (the columns of ``leadengine export``), and migration 8 filling the
board's rows for evaluations stored before it (SQLite, and PostgreSQL when
TEST_POSTGRES_URL is set)."""

from __future__ import annotations

import csv
import io
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from leadengine.app import create_app
from leadengine.output.export import lead_table, neutralise
from leadengine.store import Store, database_url
from leadengine.store.board import lead_board_table
from leadengine.store.schema import evaluations_table, migrations_table
from leadengine.store.workspace import (
    BANDS,
    SORTS,
    BoardQuery,
    band,
    board,
    facets,
    update,
)
from tests.conftest import postgres_database

TOKEN = "s3cret-team-token-0123456789"

#: (name, type, category, city, address, service, angle, owner, score, run): the city is
#: the location's (None: the address is the city shown); category None: no key at all
#: (rows stored before evaluations had one), a str: stored bare.
LEADS: list[tuple[Any, ...]] = [
    ("alpha", "Cafe", {"value": "food_beverage"}, "Bangkok", "1 Silom Road", "Booking site",
     "Revenue Visibility Gap", "ann", 90, 1),
    ("Alpha", "cafe", {"value": "food_beverage"}, "bangkok", "2 Silom Road", "Booking site",
     "Operational Bottleneck", "Ann", 90, 1),
    ("ALPHA", "Dental Clinic", {"value": "healthcare"}, "Chiang Mai", "", "Foundation",
     "Platform Dependency Risk", "bob", 45, 2),
    ("Éclair", "Bakery", "food_beverage", "Phuket", "", "Analytics", None, "", 70, 1),
    ("éclair", "bakery", None, None, "9 Beach Road, Phuket", "Analytics",
     "Underutilized Attention", "eve", 70, 2),
    ("Straße", "Law Firm", {"value": "professional_services"}, "Yangon", "", "Local SEO",
     "Competitive Positioning Gap", "chai", 10, 1),
    ("STRASSE", "law firm", {"value": ""}, None, "", "Local SEO",
     "Competitive Positioning Gap", "chai", 66, 2),
    ("ร้านกาแฟ", "คาเฟ่", {"value": "food_beverage"}, "กรุงเทพมหานคร", "", "จองออนไลน์",
     "Revenue Visibility Gap", "dao", 67, 1),
    ("100% Organic", "Shop", {"value": "retail"}, "Bangkok", "", "E-commerce_store",
     "Revenue Visibility Gap", "ann", 33, 2),
    ("", "Spa", {"value": "beauty_wellness"}, "", "", "", None, "zed", 34, 1),
    ("Bravo_Co", "Spa", {"value": "beauty_wellness"}, "Hat Yai", "", "Booking site",
     "Operational Bottleneck", "bob", 0, 2),
    ("zulu", "Hotel", {"value": "hospitality"}, "Pattaya", "", "Booking site",
     "Platform Dependency Risk", "", 100, 1),
]
#: Lead index -> status set in the workspace (the rest are new).
STATUS = {0: "contacted", 3: "won", 6: "new", 8: "replied", 11: "contacted"}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh results database: a SQLite file, and (when TEST_POSTGRES_URL points at a
    server, as in .ci/run) a new PostgreSQL database (as tests/test_batch.py does), with
    an English collation where the server can."""
    if request.param == "sqlite":
        yield str(tmp_path / "board.db")
        return
    # A language's collation, as most servers have, not C: the board must order text as
    # Python does whatever the database's default (PostgreSQL < 15 or a server without
    # ICU gets its default).
    with postgres_database("TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu "
                           "ICU_LOCALE 'en-US'") as url:
        yield url


def evaluation(lead: tuple[Any, ...], index: int) -> dict[str, Any]:
    name, kind, category, city, address, service, angle, _, score, _ = lead
    data: dict[str, Any] = {
        "business_name": name, "business_type": kind, "fit_score": score,
        "primary_service": service, "provider": "heuristic", "model": "rules-v1",
        "reasoning": "Fits.", "outreach_angle": f"Hello {name}.", "angle": angle,
        "url": f"https://www.lead{index}.example/home",
        "signals": {"contact_form": True, "evidence": {"address": address}},
        "location": {"city": city, "address": address},
    }
    if category is not None:
        data["category"] = category
    return data


def expected(lead: tuple[Any, ...], index: int, evaluation_id: int) -> dict[str, Any]:
    """The board row of ``LEADS[index]``, worked out here from the lead itself."""
    name, kind, category, city, address, service, angle, owner, score, run = lead
    shown_category = (category.get("value") if isinstance(category, dict) else category) or ""
    return {"id": evaluation_id, "url": f"https://www.lead{index}.example/home",
            "run_id": run, "fit_score": score,
            "band": band(score), "business_name": name, "business_type": kind,
            "category": shown_category, "city": city if city else address,
            "primary_service": service, "angle": angle or "", "owner": owner,
            "status": STATUS.get(index, "new")}


def fill(db: str) -> list[dict[str, Any]]:
    """Store :data:`LEADS` over two runs and set their statuses; their expected rows."""
    store = Store(db)
    runs = [store.start_run("a.csv", "kb", "heuristic", "rules-v1"),
            store.start_run("b.csv", "kb", "heuristic", "rules-v1")]
    assert runs == [1, 2]
    for index, lead in enumerate(LEADS):
        passthrough = {"name": lead[0]} | ({"owner": lead[7]} if lead[7] else {})
        store.save_evaluation(lead[9], index, f"https://lead{index}.example/", "kb",
                              evaluation(lead, index), passthrough)
    for index, status in STATUS.items():
        update(store.engine, f"https://lead{index}.example/", "test", status=status)
    ids = [row["id"] for row in _all(store.engine, BoardQuery(sort="id"))]
    store.engine.dispose()
    return [expected(lead, index, ids[index]) for index, lead in enumerate(LEADS)]


def _all(engine: sa.engine.Engine, query: BoardQuery) -> list[dict[str, Any]]:
    """Every row of the board ``query``, read page by page (5 a page, so OFFSET counts)."""
    query = replace(query, per_page=5)
    total, rows = board(engine, query)
    found = list(rows)
    for page in range(2, -(-total // 5) + 1):
        found += board(engine, replace(query, page=page))[1]
    assert len(found) == total
    return found


def python_key(column: str) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """The board's order of ``column`` in Python: text ignoring case, then the spelling
    by code point; numbers as numbers; ties by id."""
    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        value = row[column]
        if column in ("id", "fit_score", "run_id", "url", "status"):
            return (value, row["id"])
        return (value.casefold(), value, row["id"])
    return key


@pytest.fixture
def store_rows(db: str) -> tuple[str, list[dict[str, Any]]]:
    return db, fill(db)


@pytest.mark.parametrize("direction", ["", "-"])
def test_every_sort_matches_a_python_sort(store_rows: tuple[str, list[dict[str, Any]]],
                                          direction: str) -> None:
    db, rows = store_rows
    engine = Store(db, create=False).engine
    for column in SORTS:
        got = _all(engine, BoardQuery(sort=direction + column))
        want = sorted(rows, key=python_key(column), reverse=direction == "-")
        assert [r["id"] for r in got] == [r["id"] for r in want], column
    # The rows carry what the board shows (the URL the evaluation gives, the city from the
    # location or else the address, a category absent or bare or the taxonomy's value).
    shown = {r["id"]: r for r in _all(engine, BoardQuery())}
    for row in rows:
        assert {k: shown[row["id"]][k] for k in row} == row
    engine.dispose()


def test_unknown_sort_is_best_fit_first(store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    db, rows = store_rows
    engine = Store(db, create=False).engine
    got = [r["id"] for r in _all(engine, BoardQuery(sort="-data"))]
    assert got == [r["id"] for r in sorted(rows, key=python_key("fit_score"), reverse=True)]
    engine.dispose()


FILTERS: list[tuple[dict[str, Any], Callable[[dict[str, Any]], bool]]] = [
    ({"band": "high"}, lambda r: r["fit_score"] >= BANDS["high"]),
    ({"band": "medium"}, lambda r: BANDS["medium"] <= r["fit_score"] < BANDS["high"]),
    ({"band": "low"}, lambda r: r["fit_score"] < BANDS["medium"]),
    ({"status": "new"}, lambda r: r["status"] == "new"),
    ({"status": "contacted"}, lambda r: r["status"] == "contacted"),
    ({"run_id": 2}, lambda r: r["run_id"] == 2),
    ({"category": "FOOD_beverage"}, lambda r: r["category"] == "food_beverage"),
    ({"city": "BANGKOK"}, lambda r: r["city"].casefold() == "bangkok"),
    ({"city": "9 Beach Road, Phuket"}, lambda r: r["city"] == "9 Beach Road, Phuket"),
    ({"angle": "competitive positioning gap"},
     lambda r: r["angle"] == "Competitive Positioning Gap"),
    ({"owner": "ann"}, lambda r: r["owner"].casefold() == "ann"),
    ({"owner": "nobody"}, lambda r: False),
    ({"band": "high", "city": "Bangkok", "status": "new"},
     lambda r: r["fit_score"] >= BANDS["high"] and r["city"].casefold() == "bangkok"
     and r["status"] == "new"),
]


def test_each_filter_matches_a_python_filter(store_rows: tuple[str, list[dict[str, Any]]]
                                             ) -> None:
    db, rows = store_rows
    engine = Store(db, create=False).engine
    for params, keep in FILTERS:
        got = {r["id"] for r in _all(engine, BoardQuery(**params))}
        want = {r["id"] for r in rows if keep(r)}
        assert got == want, params
        assert want or params == {"owner": "nobody"}, params  # the filter is not vacuous
    engine.dispose()


SEARCHES = ["ALPHA", "éCLAIR", "strasse", "กาแฟ", "100%", "%", "_co", "o_c", "lead3.example",
            "platform", "ANN", "healthcare", "  bangkok  ", "silom"]


def test_search_is_a_case_insensitive_substring(store_rows: tuple[str, list[dict[str, Any]]]
                                                ) -> None:
    """``q`` finds a substring of the name, type, service, city, owner, URL or angle,
    ignoring case (``%`` and ``_`` are plain characters), never the category."""
    db, rows = store_rows
    engine = Store(db, create=False).engine
    fields = ("business_name", "business_type", "primary_service", "city", "owner", "url",
              "angle")
    for needle in SEARCHES:
        folded = needle.strip().casefold()
        want = {r["id"] for r in rows if any(folded in r[f].casefold() for f in fields)}
        got = {r["id"] for r in _all(engine, BoardQuery(q=needle))}
        assert got == want, needle
    assert len(_all(engine, BoardQuery(q="%"))) == 1  # "100% Organic" only
    assert _all(engine, BoardQuery(q="healthcare")) == []  # a category is not searched
    engine.dispose()


def test_board_reads_only_its_own_table(store_rows: tuple[str, list[dict[str, Any]]]
                                        ) -> None:
    """The board never reads the evaluations (their JSON): only their number and newest
    id, to see whether rows were stored or deleted behind its back."""
    db, _ = store_rows
    engine = Store(db, create=False).engine
    statements: list[str] = []
    sa.event.listen(engine, "before_cursor_execute",
                    lambda *args: statements.append(args[2]))
    for query in (BoardQuery(), BoardQuery(sort="city", q="a", city="bangkok"),
                  BoardQuery(sort="-status", status="new", page=2)):
        board(engine, query)
    facets(engine)
    assert statements
    touching = [s for s in statements if "evaluations" in s]
    assert len(touching) == 3 and all("max(evaluations.id)" in s for s in touching)
    engine.dispose()


def test_facets_are_the_values_present(store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    db, _ = store_rows
    engine = Store(db, create=False).engine
    found = facets(engine)
    assert found["category"] == ["beauty_wellness", "food_beverage", "healthcare",
                                 "hospitality", "professional_services", "retail"]
    # One spelling per value ignoring case: the commonest ("ann" twice, "Ann" once).
    assert found["owner"] == ["ann", "bob", "chai", "dao", "eve", "zed"]
    assert "Bangkok" in found["city"] and "bangkok" not in found["city"]
    assert "9 Beach Road, Phuket" in found["city"] and "" not in found["city"]
    assert found["angle"][0] == "Competitive Positioning Gap"
    assert facets(engine, limit=1)["category"] == ["food_beverage"]  # the most frequent
    engine.dispose()


# -- the API and the page ----------------------------------------------------------------


@pytest.fixture
def api(store_rows: tuple[str, list[dict[str, Any]]]) -> TestClient:
    return TestClient(create_app(None, store_rows[0], TOKEN), follow_redirects=False,
                      headers={"Authorization": f"Bearer {TOKEN}"})


def test_api_takes_the_new_filters_and_forgives(api: TestClient) -> None:
    body = api.get("/api/leads?city=bangkok&sort=-category").json()
    assert body["total"] == 3 and {r["city"] for r in body["rows"]} == {"Bangkok", "bangkok"}
    assert [r["category"] for r in body["rows"]] == ["retail", "food_beverage",
                                                     "food_beverage"]
    assert api.get("/api/leads?owner=ANN&angle=Revenue Visibility Gap").json()["total"] == 2
    junk = api.get("/api/leads?sort=;drop&band=huge&status=x&run=-1&page=0&city=&owner=%20")
    assert junk.status_code == 200 and junk.json()["total"] == len(LEADS)


def test_board_page_has_filters_sorting_selection_and_paging(tmp_path: Path) -> None:
    db = str(tmp_path / "many.db")
    fill(db)
    store = Store(db)
    for index in range(60):
        store.save_evaluation(2, 100 + index, f"https://more{index}.example/", "kb",
                              evaluation(LEADS[index % len(LEADS)], 100 + index),
                              {"owner": "zed"})
    store.engine.dispose()
    client = TestClient(create_app(None, db, TOKEN), follow_redirects=False)
    client.post("/login", data={"token": TOKEN, "name": "ann", "next": "/"})
    page = client.get("/?city=bangkok&sort=city&owner=Zed").text
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert csrf
    for name in ("band", "status", "run", "category", "city", "angle", "owner"):
        assert f'<select name="{name}"' in page
    assert '<option value="Bangkok" selected>Bangkok</option>' in page
    assert '<option value="zed" selected>zed</option>' in page
    assert '<option value="Hat Yai" >Hat Yai</option>' in page
    # Categories as people name them; the filter still sends the taxonomy's value.
    assert '<option value="beauty_wellness" >Beauty &amp; wellness</option>' in page
    whole = client.get("/?sort=category").text
    shown = set(re.findall(r"<td>(Beauty &amp; wellness|Food &amp; drink|Healthcare|"
                           r"[a-z]+_[a-z_]+)</td>", whole))
    assert shown and not {s for s in shown if "_" in s}, shown
    assert 'href="/?sort=-city&amp;city=bangkok&amp;owner=Zed&amp;page=1"' in page
    assert 'href="/?sort=category&amp;city=bangkok&amp;owner=Zed&amp;page=1"' in page
    form = page[page.index('<form class="selection"'):page.index("</form>", page.index(
        '<form class="selection"'))]
    assert 'method="post" action="/export"' in form
    assert f'<input type="hidden" name="csrf" value="{csrf.group(1)}">' in form
    assert '<input type="hidden" name="city" value="bangkok">' in form
    assert 'name="format" value="csv">Export CSV' in form
    assert 'name="format" value="xlsx">Export XLSX' in form
    assert ('formaction="/batches/reevaluate" formmethod="post">Re-evaluate selection'
            in form)
    assert form.count('type="checkbox" name="ids"') == 15  # Bangkok and zed: 5 x 3
    assert 'href="/api/export?format=xlsx&amp;sort=city&amp;city=bangkok&amp;owner=Zed"' \
        in form
    # The form's export: the ticked leads (CSRF checked, the token never in a URL).
    ids = re.findall(r'name="ids" value="(\d+)"', form)[:2]
    fields = {"csrf": csrf.group(1), "city": "bangkok", "owner": "Zed", "sort": "city",
              "format": "csv", "ids": ids}
    exported = client.post("/export", data=fields)
    assert exported.status_code == 200 and "attachment" in exported.headers[
        "content-disposition"]
    assert len(exported.content.decode("utf-8-sig").strip().splitlines()) == 3
    assert client.post("/export", data={**fields, "csrf": "0"}).status_code == 403
    everything = client.post("/export", data={**fields, "ids": [], "format": "xlsx"})
    assert everything.headers["content-type"].startswith(
        "application/vnd.openxmlformats")
    big = client.get("/?page=2").text
    assert "Page 2 of 2" in big and 'rel="prev"' in big and 'rel="first"' in big
    assert client.get("/?page=abc&band=nope&run=x").status_code == 200


# -- export ------------------------------------------------------------------------------


def cli_table(db: str, rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of ``leadengine export`` (its code and layout) for ``rows``, in
    their order."""
    from leadengine.store import with_standing

    store = Store(db, create=False)
    records = {r["url"]: r for r in with_standing(store.engine, store.evaluations(leads=True))}
    store.engine.dispose()
    table = lead_table(records[row["url"]] for row in rows)
    return table.header, table.rows


def test_export_csv_has_the_cli_columns_with_filters(
        api: TestClient, store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    db, rows = store_rows
    response = api.get("/api/export?format=csv&city=Bangkok&sort=business_name")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    assert re.fullmatch(r'attachment; filename="leads-[0-9-]+\.csv"',
                        response.headers["content-disposition"])
    assert response.content.startswith(b"\xef\xbb\xbf")  # a BOM, as `leadengine export -o`
    table = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    want = sorted((r for r in rows if r["city"].casefold() == "bangkok"),
                  key=python_key("business_name"))
    header, cli_rows = cli_table(db, want)
    assert table[0] == header and header[:2] == ["name", "owner"]
    assert "signal_contact_form" in header
    assert table[1:] == [[neutralise(cell) for cell in line] for line in cli_rows]
    assert [line[header.index("business_name")] for line in table[1:]] == [
        "100% Organic", "Alpha", "alpha"]  # case ties: by code point


def test_export_xlsx_of_a_selection_round_trips(
        api: TestClient, store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    db, rows = store_rows
    chosen = [rows[2]["id"], rows[7]["id"], rows[11]["id"]]
    response = api.get(f"/api/export?format=xlsx&ids={chosen[0]},{chosen[1]}"
                       f"&ids={chosen[2]}&sort=-fit_score")
    assert response.status_code == 200
    assert "spreadsheetml" in response.headers["content-type"]
    assert response.headers["content-disposition"].endswith('.xlsx"')
    book = openpyxl.load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == ["Leads", "Failures"]
    sheet = [["" if v is None else str(v) for v in r] for r in book["Leads"].iter_rows(
        values_only=True)]
    order = sorted((r for r in rows if r["id"] in chosen), key=python_key("fit_score"),
                   reverse=True)
    header, cli_rows = cli_table(db, order)
    assert sheet[0] == header and sheet[1:] == cli_rows
    assert [line[header.index("fit_score")] for line in sheet[1:]] == ["100", "67", "45"]
    # The selection and the filters together: only what both keep.
    both = api.get(f"/api/export?format=csv&ids={chosen[0]},{chosen[2]}&band=high")
    lines = list(csv.reader(io.StringIO(both.content.decode("utf-8-sig"))))
    assert [line[lines[0].index("business_name")] for line in lines[1:]] == ["zulu"]


def test_the_board_exports_a_crm_csv(api: TestClient,
                                     store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    from leadengine.output.export import CRM_COLUMNS

    response = api.get("/api/export?format=crm-csv&city=Bangkok&sort=business_name")
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "text/csv")
    assert re.fullmatch(r'attachment; filename="leads-crm-[0-9-]+\.csv"',
                        response.headers["content-disposition"])
    assert not response.content.startswith(b"\xef\xbb\xbf")  # a CRM import needs no BOM
    lines = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))
    assert lines[0] == list(CRM_COLUMNS)
    assert [line[0] for line in lines[1:]] == ["100% Organic", "Alpha", "alpha"]
    assert [line[CRM_COLUMNS.index("Lead owner")] for line in lines[1:]] == [
        r["owner"] for r in sorted((r for r in store_rows[1]
                                    if r["city"].casefold() == "bangkok"),
                                   key=python_key("business_name"))]


def test_export_refuses_a_bad_format_and_needs_auth(
        api: TestClient, store_rows: tuple[str, list[dict[str, Any]]]) -> None:
    assert api.get("/api/export?format=pdf").status_code == 422
    assert api.get("/api/export?ids=1&ids=x").status_code == 422
    assert api.get(f"/api/export?ids={','.join(['1'] * 10_001)}").status_code == 400
    assert api.get(f"/api/leads/{2**63}").status_code == 404
    anonymous = TestClient(create_app(None, store_rows[0], TOKEN), follow_redirects=False)
    assert anonymous.get("/api/export?format=csv").status_code == 401
    assert anonymous.get("/").status_code == 303
    anonymous.post("/login", data={"token": TOKEN, "name": "ann", "next": "/"})
    cookie = anonymous.get("/api/export?format=csv&csrf=ignored&owner=eve")
    assert cookie.status_code == 200 and cookie.content.decode("utf-8-sig").count("\n") == 2


# -- migration 8 and rows stored without a board row -------------------------------------


def _board_count(db: str) -> int:
    engine = sa.create_engine(database_url(db))
    try:
        with engine.connect() as conn:
            return int(conn.scalar(sa.select(sa.func.count()).select_from(
                lead_board_table)) or 0)
    finally:
        engine.dispose()


def test_migration_fills_the_board_of_rows_stored_before_it(db: str) -> None:
    rows = fill(db)
    engine = sa.create_engine(database_url(db))
    with engine.begin() as conn:  # the database as leadengine left it before migration 8
        conn.execute(sa.text("DROP TABLE lead_board"))
        conn.execute(migrations_table.delete().where(migrations_table.c.version == 8))
    engine.dispose()
    store = Store(db)
    assert _board_count(db) == len(LEADS)
    got = {r["id"]: r for r in _all(store.engine, BoardQuery())}
    for row in rows:
        assert got[row["id"]]["business_name"] == row["business_name"]
        assert got[row["id"]]["city"] == row["city"]
        assert got[row["id"]]["category"] == row["category"]
    assert [r["id"] for r in _all(store.engine, BoardQuery(sort="city"))] == [
        r["id"] for r in sorted(rows, key=python_key("city"))]
    store.engine.dispose()


def test_rows_an_older_leadengine_stores_are_indexed_on_sight(db: str) -> None:
    rows = fill(db)
    store = Store(db)
    old = rows[4]
    with store.engine.begin() as conn:  # an older leadengine replaces one, adds one
        conn.execute(evaluations_table.delete().where(evaluations_table.c.id == old["id"]))
        for index, name in ((4, "Replaced"), (50, "Added")):
            data = evaluation(("x", *LEADS[4][1:]), index) | {"business_name": name}
            conn.execute(evaluations_table.insert().values(
                run_id=1, row_index=index, url=f"https://lead{index}.example/",
                kb_version="kb", provider="heuristic", model="rules-v1", fit_score=50,
                data=json.dumps(data), passthrough="{}", created_at=time.time()))
    names = sorted(r["business_name"] for r in _all(store.engine, BoardQuery()))
    assert "Added" in names and "Replaced" in names and "éclair" not in names
    assert _board_count(db) == len(LEADS) + 1
    store.engine.dispose()


def test_saving_again_replaces_the_board_row(db: str) -> None:
    fill(db)
    store = Store(db)
    changed = evaluation(LEADS[0], 0) | {"business_name": "Alpha Renamed", "fit_score": 12}
    store.save_evaluation(1, 0, "https://lead0.example/", "kb", changed, {"owner": "new"})
    found = _all(store.engine, BoardQuery(q="lead0.example"))
    assert [(r["business_name"], r["fit_score"], r["owner"], r["status"]) for r in found] == [
        ("Alpha Renamed", 12, "new", "contacted")]  # the status follows the URL
    assert _board_count(db) == len(LEADS)
    store.engine.dispose()


def test_evaluations_deleted_by_hand_leave_the_board(db: str) -> None:
    rows = fill(db)
    store = Store(db)
    with store.engine.begin() as conn:
        conn.execute(evaluations_table.delete().where(evaluations_table.c.id == rows[3]["id"]))
    assert rows[3]["id"] not in {r["id"] for r in _all(store.engine, BoardQuery())}
    with store.engine.begin() as conn:
        conn.execute(evaluations_table.delete())
    # SQLite hands out id 1 again: the row the board kept for it must not be in the way.
    store.save_evaluation(1, 0, "https://again.example/", "kb", evaluation(LEADS[5], 0), {})
    assert [r["business_name"] for r in _all(store.engine, BoardQuery())] == ["Straße"]
    store.engine.dispose()


def test_a_page_past_any_number_is_an_empty_page(api: TestClient) -> None:
    found = api.get("/api/leads?page=200000000000000000")
    assert found.status_code == 200 and found.json()["rows"] == []


def test_numbers_that_are_not_ids_are_ignored(api: TestClient) -> None:
    total = api.get("/api/leads").json()["total"]
    for query in ("run=%C2%B9", "page=%C2%B9", "run=99999999999999999999"):
        found = api.get(f"/api/leads?{query}")
        assert found.status_code == 200 and found.json()["total"] == total, query
    assert api.get("/api/export?ids=10000000000000000000").status_code == 200
