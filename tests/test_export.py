"""Exports that open cleanly in a spreadsheet or a CRM: best leads first, an Excel
workbook with a frozen header, filters, links and a failures sheet, a BOM so Excel
reads Thai and Burmese, and no cell a spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from leadengine.output.export import neutralise, neutralise_xlsx
from leadengine.store import Store
from tests.conftest import REPO

FORMULA = '=HYPERLINK("http://x","y")'


def evaluation(name: str, score: int, phones: list[str] | None = None) -> dict[str, Any]:
    return {"business_name": name, "fit_score": score, "provider": "heuristic",
            "model": "rules-v1", "reasoning": "Good fit. " * 3,
            "signals": {"phones": phones or [], "contact_form": True},
            "digital_maturity": {"Website": {"score": 2}}}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A store with three evaluations (scores 20, 90, 50 in input order) and a failure."""
    path = tmp_path / "r.db"
    store = Store(path)
    run = store.start_run("leads.csv", "kb", "heuristic", "rules-v1")
    rows = [("Low", 20, "ร้านกาแฟ", []),
            (FORMULA, 90, "@SUM(1+1)", ["+6621234567", "+6621234567", "+95912345678"]),
            ("Mid", 50, "မြန်မာ", [])]
    for index, (name, score, note, phones) in enumerate(rows, 1):
        url = f"https://lead{index}.example/"
        if index == 3:
            store.save_error(run, 3, "https://gone.example/", "kb", "heuristic", "rules-v1",
                             "https://gone.example/: HTTP 404 Not Found",
                             {"name": "Gone", "note": "-1"})
            index = 4
        store.save_evaluation(run, index, url, "kb", evaluation(name, score, phones),
                              {"name": name, "note": note})
    store.finish_run(run)
    return path


def export(db: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["export", "--db", str(db), *args])
    assert result.exit_code == 0, result.stderr
    return result


def test_csv_is_best_first_unless_input_order(db: Path) -> None:
    table = list(csv.DictReader(io.StringIO(export(db).stdout)))
    assert [r["fit_score"] for r in table] == ["90", "50", "20"]
    in_order = list(csv.DictReader(io.StringIO(export(db, "--order", "input").stdout)))
    assert [r["fit_score"] for r in in_order] == ["20", "90", "50"]
    failed = list(csv.DictReader(io.StringIO(
        export(db, "--order", "input", "--include-failed").stdout)))
    assert [(r["name"], r["status"]) for r in failed] == [
        ("Low", "evaluated"), (f"'{FORMULA}", "evaluated"), ("Gone", "failed"),
        ("Mid", "evaluated")]
    assert failed[2]["error"] == "https://gone.example/: HTTP 404 Not Found"


def test_csv_cells_cannot_run_as_formulas(db: Path) -> None:
    best = next(csv.DictReader(io.StringIO(export(db).stdout)))
    assert best["business_name"] == f"'{FORMULA}"
    assert best["note"] == "'@SUM(1+1)"
    assert best["phones"] == "'+6621234567; +95912345678"  # de-duplicated
    for value in ("=1+1", "+1", "-1", "@x", "\tx", "\rx", "  =1", " @x"):
        assert neutralise(value) == "'" + value
    for value in ("1", "a=b", "Smile", "", "'=x"):
        assert neutralise(value) == value
    assert neutralise_xlsx("+66 2 123 4567") == "+66 2 123 4567"
    assert neutralise_xlsx(" =1") == " =1" and neutralise_xlsx("a\x0bb") == "ab"


def test_csv_has_a_bom_in_files_and_on_request(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "leads.csv"
    written = export(db, "-o", str(out))
    assert written.stderr == f"3 evaluations written to {out}\n"
    data = out.read_bytes()
    assert data.startswith(b"\xef\xbb\xbfname,note,url,") and "ร้านกาแฟ".encode() in data
    export(db, "-o", str(out), "--no-bom")
    assert out.read_bytes().startswith(b"name,note,url,")
    assert not export(db).stdout_bytes.startswith(b"\xef\xbb\xbf")  # a pipe: no BOM
    assert export(db, "--bom").stdout_bytes.startswith(b"\xef\xbb\xbfname,")


def test_xlsx_opens_as_a_sorted_filtered_linked_workbook(db: Path, tmp_path: Path) -> None:
    from openpyxl import load_workbook

    out = tmp_path / "leads.xlsx"
    written = export(db, "-o", str(out))  # the format follows the extension
    assert written.stderr == f"3 evaluations and 1 failure written to {out}\n"
    book = load_workbook(out)
    assert book.sheetnames == ["Leads", "Failures"]
    leads = book["Leads"]
    header = [c.value for c in leads[1]]
    assert header[:3] == ["name", "note", "url"]
    column = {name: index for index, name in enumerate(header)}
    rows = list(leads.iter_rows(min_row=2))
    assert [r[column["fit_score"]].value for r in rows] == [90, 50, 20]
    assert leads.freeze_panes == "A2"
    assert leads.auto_filter.ref == f"A1:{rows[0][-1].column_letter}4"
    link = rows[0][column["url"]]
    assert link.value == "https://lead2.example/"
    assert link.hyperlink is not None and link.hyperlink.target == "https://lead2.example/"
    widths = [d.width for d in leads.column_dimensions.values()]
    assert widths and all(8 <= w <= 60 for w in widths)

    best = rows[0]
    # XLSX needs no guard: the text as it is, in a string cell (never a formula).
    assert best[column["business_name"]].value == FORMULA
    assert best[column["note"]].value == "@SUM(1+1)"
    assert best[column["phones"]].value == "+6621234567; +95912345678"
    assert {best[column[c]].data_type for c in ("business_name", "note", "phones")} == {"s"}
    assert not any(c.data_type == "f" for row in rows for c in row)

    failures = book["Failures"]
    assert [[c.value for c in row] for row in failures.iter_rows()] == [
        ["url", "error", "run", "name", "note"],
        ["https://gone.example/", "https://gone.example/: HTTP 404 Not Found", "1", "Gone",
         "-1"]]
    assert failures.freeze_panes == "A2"

    with_failed = tmp_path / "all.xlsx"
    export(db, "--format", "xlsx", "--include-failed", "-o", str(with_failed))
    sheet = load_workbook(with_failed)["Leads"]
    statuses = [c.value for c in next(sheet.iter_cols(min_col=4, max_col=4))]
    assert statuses == ["status", "evaluated", "evaluated", "evaluated", "failed"]


def test_xlsx_goes_to_a_file_or_a_pipe_never_a_terminal(db: Path) -> None:
    piped = export(db, "--format", "xlsx")
    assert piped.stdout_bytes.startswith(b"PK")  # a zip: the workbook
    primary, secondary = os.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "leadengine", "export", "--db", str(db), "--format",
             "xlsx"], cwd=REPO, stdout=secondary, stderr=subprocess.PIPE, text=True,
            timeout=30)
    finally:
        os.close(primary)
        os.close(secondary)
    assert result.returncode == 1
    assert result.stderr == ("error: xlsx is a binary file, not for the terminal: write it "
                             "to a file with -o leads.xlsx\n")


def test_json_exports_keep_the_stored_order_and_can_include_failures(db: Path) -> None:
    import json

    lines = [json.loads(line) for line in export(db, "--format", "jsonl").stdout.splitlines()]
    assert [r["fit_score"] for r in lines] == [20, 90, 50]
    assert lines == list(Store(db).evaluations())
    items = json.loads(export(db, "--format", "json", "--include-failed").stdout)
    assert [i["status"] for i in items] == ["evaluated"] * 3 + ["failed"]
    assert items[-1]["error"].endswith("HTTP 404 Not Found")


def test_a_page_named_like_a_formula_exports_inert(tmp_path: Path) -> None:
    """End to end: a website whose name is a spreadsheet formula is evaluated, stored and
    exported; neither the CSV nor the workbook can run it."""
    from openpyxl import load_workbook

    page = tmp_path / "site" / "index.html"
    page.parent.mkdir()
    page.write_text(
        '<html lang="en"><head><title>=HYPERLINK("http://x","y")</title>'
        '<script type="application/ld+json">{"@type": "MedicalClinic", '
        '"name": "=HYPERLINK(\\"http://x\\",\\"y\\")", "telephone": "+66 2 555 0147"}'
        "</script></head><body><h1>Dental clinic in Bangkok</h1><p>Teeth whitening and "
        "check-ups on Sukhumvit Road, Bangkok. Call +66 2 555 0147.</p></body></html>",
        encoding="utf-8")
    leads = tmp_path / "leads.csv"
    leads.write_text(f"url\n{page.parent}\n", encoding="utf-8")
    db = tmp_path / "r.db"
    ran = CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword"}).invoke(
        cli, ["batch", str(leads), "--db", str(db), "--provider", "heuristic"])
    assert ran.exit_code == 0, ran.output
    [stored] = list(Store(db).evaluations())
    assert stored["business_name"] == FORMULA
    row = next(csv.DictReader(io.StringIO(export(db).stdout)))
    assert row["business_name"] == f"'{FORMULA}" and row["phones"] == "'+6625550147"
    book = tmp_path / "leads.xlsx"
    export(db, "-o", str(book))
    sheet = load_workbook(book)["Leads"]
    header = [c.value for c in sheet[1]]
    cell = sheet.cell(row=2, column=header.index("business_name") + 1)
    assert cell.data_type == "s" and cell.value == FORMULA


def test_counts_take_the_noun_s_number(db: Path, tmp_path: Path) -> None:
    """ "1 evaluation written", not "1 evaluations"; thousands grouped."""
    from leadengine.output import counted

    assert [counted(n, "evaluation") for n in (0, 1, 2, 1200)] == [
        "0 evaluations", "1 evaluation", "2 evaluations", "1,200 evaluations"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") \
        == "3 entries"
    out = tmp_path / "one.csv"
    written = export(db, "-o", str(out), "--min-score", "80")
    assert written.stderr == f"1 evaluation written to {out}\n"


def test_the_columns_a_team_sorts_by_come_right_after_the_name() -> None:
    """Category (as people name it), city, region, country and address, from the
    evaluation's facts, beside the name and type; blank when the facts have none."""
    from leadengine.output import flatten
    from leadengine.output.export import CSV_FIELDS

    assert CSV_FIELDS[:8] == ("url", "business_name", "business_type", "category", "city",
                              "region", "country", "address")
    row = flatten({"business_name": "Smile Bright", "fit_score": 80,
                   "category": {"value": "beauty_wellness", "confidence": 0.8},
                   "location": {"city": "Bangkok", "region": "Bangkok", "country": "Thailand",
                                "address": "118 Sukhumvit Soi 39, Bangkok 10110"}})
    assert [row[k] for k in ("category", "city", "region", "country", "address")] == [
        "Beauty & wellness", "Bangkok", "Bangkok", "Thailand",
        "118 Sukhumvit Soi 39, Bangkok 10110"]
    bare = flatten({"business_name": "Old row", "fit_score": 10})
    assert [bare[k] for k in ("category", "city", "region", "country", "address")] == [""] * 5


def test_every_category_has_a_label() -> None:
    from leadengine.knowledge.signal_names import CATEGORIES, CATEGORY_LABELS, category_label

    assert set(CATEGORY_LABELS) == set(CATEGORIES)
    assert category_label("software_it") == "Software & IT"
    assert category_label("new_kind") == "New kind"


def test_the_crm_csv_imports_clean_values(db: Path, tmp_path: Path) -> None:
    """``--format crm-csv``: CRM-named columns, the lead's values as they are (no ``'``
    guard: a CRM runs no formulas), one phone in E.164, failures left out; the Excel
    CSV keeps its guard."""
    from leadengine.output.export import CRM_COLUMNS

    out = tmp_path / "crm.csv"
    written = export(db, "--format", "crm-csv", "-o", str(out))
    assert written.exit_code == 0, written.stderr
    assert written.stderr == f"3 evaluations written to {out}\n"
    rows = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert rows[0] == list(CRM_COLUMNS) and len(rows) == 4
    top = dict(zip(rows[0], rows[1], strict=True))  # highest fit first
    assert top["Company name"] == FORMULA and top["Phone"] == "+6621234567"
    assert top["Fit score"] == "90" and top["Lead status"] == "new"
    assert not any(cell.startswith("'") for row in rows for cell in row)
    excel = export(db, "--format", "csv").stdout
    assert "'" + FORMULA.replace('"', '""') in excel


def test_exports_say_where_the_team_has_each_lead(db: Path, tmp_path: Path) -> None:
    """The workspace's status, last note and when the lead was last touched, in the
    CSV columns a team sorts by (and ``new`` for a lead nobody has touched)."""
    from leadengine.store import update

    store = Store(db)
    update(store.engine, "https://lead2.example/", "ann", status="contacted",
           note="Called, send the quote")
    store.engine.dispose()
    rows = list(csv.DictReader(io.StringIO(export(db, "--format", "csv").stdout)))
    by_url = {r["url"]: r for r in rows}
    touched = by_url["https://lead2.example/"]
    assert touched["lead_status"] == "contacted"
    assert touched["last_note"] == "Called, send the quote"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", touched["last_contact"])
    untouched = by_url["https://lead1.example/"]
    assert (untouched["lead_status"], untouched["last_note"], untouched["last_contact"]) \
        == ("new", "", "")
