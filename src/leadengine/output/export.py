"""Stored evaluations out: a flat, CRM-ready CSV (input columns first), an Excel
workbook, JSON Lines, or JSON.

Spreadsheet cells are neutralised against formula injection (a website's text must
never run as a formula on a salesperson's machine): in CSV, a text cell that starts,
after any leading spaces, with ``=``, ``+``, ``-`` or ``@``, or starts with a tab or a
carriage return, gets a leading ``'``. XLSX needs no guard: every text cell is stored as
a string cell (``t="s"``, an ``=`` at its start included), which Excel shows and never
evaluates, so names, notes and ``+66 2 123 4567`` keep their exact text there.
"""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

from leadengine.knowledge.signal_names import EXPORTED, category_label

if TYPE_CHECKING:
    from openpyxl.worksheet._write_only import WriteOnlyWorksheet

#: The evaluation columns of the CSV, after the input's own columns.
CSV_FIELDS = ("url", "business_name", "business_type", "category", "city", "region", "country",
              "address", "lead_status", "last_note", "last_contact", "primary_service",
              "fit_score",
              "angle", "reasoning", "outreach_angle", "excluded_services", "provider", "model",
              "rag", "warnings", "tokens_prompt", "tokens_completion", "cost_usd")
#: The ``signal_<name>`` columns, in order: the registry's exported signals (a CRM import
#: maps columns by name, so a change here is a decision the tests pin).
SIGNALS = EXPORTED
LAYERS = ("Visibility", "Website", "Measurement", "Operational", "Asset Ownership")
#: Columns added by ``include_failed``, right after ``url``.
STATUS_FIELDS = ("status", "error")
#: Columns written as numbers in XLSX (so a spreadsheet sorts and sums them).
NUMERIC = frozenset({"fit_score", "tokens_prompt", "tokens_completion", "cost_usd",
                     *(f"maturity_{layer.lower().replace(' ', '_')}" for layer in LAYERS)})
#: Export formats; xlsx is binary and needs a file.
FORMATS = ("csv", "crm-csv", "xlsx", "jsonl", "json")

#: A spreadsheet runs a cell starting with one of these as a formula (OWASP CSV injection).
_FORMULA_STARTS = ("=", "+", "-", "@")
#: Excel's limit on one cell's text.
_XLSX_CELL_CHARS = 32_767
#: XLSX column widths (in characters) and how many rows are measured for them.
_WIDTH_MIN, _WIDTH_MAX, _WIDTH_SAMPLE = 8, 60, 500
_LINK_SCHEMES = ("http://", "https://", "file://")


def flatten(record: dict[str, Any]) -> dict[str, str]:
    """One stored evaluation as one flat row: lists joined with "; ", signals as
    ``signal_<name>`` yes/no, maturity layers as ``maturity_<layer>`` scores."""
    row = {name: record.get(name) for name in CSV_FIELDS}
    # Where and what the business is: the columns a team split across cities sorts by.
    category = record.get("category")
    value = category.get("value") if isinstance(category, dict) else category
    row["category"] = category_label(str(value)) if value else None
    found = record.get("location")
    location: dict[str, Any] = found if isinstance(found, dict) else {}
    for name, key in (("city", "city"), ("region", "region"), ("country", "country"),
                      ("address", "address")):
        row[name] = location.get(key)
    # Where the team has the lead (the workspace's status and notes), when it was read.
    standing = record.get("standing") or {}
    row["lead_status"] = standing.get("status")
    row["last_note"] = standing.get("last_note")
    row["last_contact"] = standing.get("last_contact")  # in the team's time zone
    row["excluded_services"] = "; ".join(record.get("excluded_services") or [])
    row["warnings"] = "; ".join(record.get("warnings") or [])
    tokens = record.get("tokens") or {}
    row["tokens_prompt"], row["tokens_completion"] = tokens.get("prompt"), tokens.get(
        "completion")
    signals = record.get("signals") or {}
    for name in SIGNALS:
        row[f"signal_{name}"] = "yes" if signals.get(name) else "no"
    # Phones arrive in E.164 from extraction; one number found on several pages once.
    row["phones"] = "; ".join(dict.fromkeys(signals.get("phones") or []))
    row["emails"] = "; ".join(dict.fromkeys(signals.get("emails") or []))
    layers = record.get("digital_maturity") or {}
    for layer in LAYERS:
        value = (layers.get(layer) or {}).get("score")
        row[f"maturity_{layer.lower().replace(' ', '_')}"] = value
    confidence = record.get("confidence") or {}
    row["confidence"] = confidence.get("level")
    row["confidence_reasons"] = "; ".join(confidence.get("reasons") or [])
    # The message to send, last: what a salesperson copies into LINE or an e-mail.
    message = record.get("outreach_message") or {}
    email = message.get("email") or {}
    row["message_language"] = message.get("language")
    row["message_chat"] = message.get("chat")
    row["message_email_subject"] = email.get("subject")
    row["message_email_body"] = email.get("body")
    return {k: "" if v is None else str(v) for k, v in row.items()}


def neutralise(value: str) -> str:
    """``value`` safe in a CSV cell: a leading ``'`` when a spreadsheet would run it."""
    if value.startswith(("\t", "\r")) or value.lstrip().startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def neutralise_xlsx(value: str) -> str:
    """``value`` for an XLSX string cell, as it is: only the control characters XML
    cannot hold are dropped, and the text is cut at Excel's limit (the cell is written
    as a string cell, never a formula: :func:`_text_cell`)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    cleaned: str = ILLEGAL_CHARACTERS_RE.sub("", value)
    return cleaned[:_XLSX_CELL_CHARS]


@dataclass(frozen=True)
class Table:
    """Rows of text under one header (what a CSV file or a sheet holds)."""

    header: list[str]
    rows: list[list[str]]
    #: How many of ``rows`` are evaluations (the rest are failures).
    evaluated: int


def answers_of(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A stored evaluation's answers to the questions (none for an older one)."""
    found = record.get("answers")
    return {str(k): v for k, v in found.items() if isinstance(v, dict)} \
        if isinstance(found, dict) else {}


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def export_items(records: Iterable[dict[str, Any]],
                 failures: Iterable[dict[str, Any]] | None = None,
                 interleave: bool = False) -> Iterator[dict[str, Any]]:
    """What an export holds: the records as given; with ``failures`` every item also
    says its ``status`` (evaluated or failed) and the failures follow in input order
    (run, then row), or with ``interleave`` everything is in input order."""
    if failures is None:
        yield from records
        return
    failed = sorted(({**f, "status": "failed"} for f in failures), key=_input_position)
    if interleave:
        yield from sorted(itertools.chain(({**r, "status": "evaluated"} for r in records),
                                          failed), key=_input_position)
        return
    yield from ({**r, "status": "evaluated"} for r in records)
    yield from failed


def _input_position(item: dict[str, Any]) -> tuple[int, int]:
    return int(item.get("run_id") or 0), int(item.get("row_index") or 0)


def lead_table(items: Iterable[dict[str, Any]], with_status: bool = False) -> Table:
    """Export items (see :func:`export_items`) as one table: the input's columns in
    first-seen order, then ``url``, then (``with_status``) ``status`` and ``error``,
    then the evaluation's columns."""
    items = list(items)
    inputs: dict[str, None] = {}
    asked: dict[str, None] = {}
    for item in items:
        inputs.update(dict.fromkeys(item.get("input") or {}))
        asked.update(dict.fromkeys(answers_of(item)))
    # The questions' answers, a column each (their evidence in the JSON exports).
    flat_columns = [*flatten({}), *(f"answer_{key}" for key in asked)]
    status = list(STATUS_FIELDS) if with_status else []
    # An input column may share a name with an evaluation column: each keeps its value.
    own = [flat_columns[0], *status, *flat_columns[1:]]
    rows: list[list[str]] = []
    evaluated = 0
    for item in items:
        if item.get("status") == "failed":
            values = {"url": item.get("url", ""), "error": item.get("error", "")}
        else:
            values = flatten(item)
            values.update((f"answer_{key}", _text(answer.get("value")))
                          for key, answer in answers_of(item).items())
            evaluated += 1
        values["status"] = item.get("status", "evaluated")
        given = item.get("input") or {}
        rows.append([*(given.get(k, "") for k in inputs), *(values.get(c, "") for c in own)])
    return Table(header=[*inputs, *own], rows=rows, evaluated=evaluated)


def write_csv(records: Iterable[dict[str, Any]], out: TextIO,
              failures: Iterable[dict[str, Any]] | None = None,
              interleave: bool = False) -> int:
    """Write records (and ``failures``, with ``status`` and ``error`` columns) as CSV;
    the input's columns come first. Returns the number of evaluations written."""
    table = lead_table(export_items(records, failures, interleave), failures is not None)
    writer = csv.writer(out)
    writer.writerow([neutralise(c) for c in table.header])
    for row in table.rows:
        writer.writerow([neutralise(c) for c in row])
    return table.evaluated


def write_jsonl(records: Iterable[dict[str, Any]], out: TextIO,
                failures: Iterable[dict[str, Any]] | None = None,
                interleave: bool = False) -> int:
    count = 0
    for item in export_items(records, failures, interleave):
        out.write(json.dumps(item, ensure_ascii=False) + "\n")
        count += item.get("status") != "failed"
    return count


def write_json(records: Iterable[dict[str, Any]], out: TextIO,
               failures: Iterable[dict[str, Any]] | None = None,
               interleave: bool = False) -> int:
    items = list(export_items(records, failures, interleave))
    json.dump(items, out, ensure_ascii=False, indent=2)
    out.write("\n")
    return sum(item.get("status") != "failed" for item in items)


#: The columns of the CRM CSV, named as CRM imports (HubSpot, Zoho, Pipedrive) map them.
CRM_COLUMNS = ("Company name", "Website", "Phone", "Email", "Street address", "City",
               "State/Region", "Country", "Industry", "Lead status", "Lead owner",
               "Fit score", "Service to pitch", "Outreach angle", "Description",
               "First message", "Last note")
#: Control characters (all but the line feed a multi-line cell keeps) become spaces.
_CONTROL = str.maketrans({c: " " for c in map(chr, [*range(0, 10), *range(11, 32), 127])})


def crm_row(record: dict[str, Any]) -> list[str]:
    """One stored evaluation as a CRM CSV row: clean values, one phone (E.164) and one
    e-mail, no formula guard (a CRM imports text, it runs no formulas)."""
    flat = flatten(record)
    given = record.get("input") or {}
    owner = next((str(v) for k, v in given.items() if k.strip().lower() in ("owner", "rep")
                  and v), "")
    values = [flat["business_name"], flat["url"], flat["phones"].split("; ")[0],
              flat["emails"].split("; ")[0], flat["address"], flat["city"], flat["region"],
              flat["country"], flat["category"], flat["lead_status"], owner,
              flat["fit_score"], flat["primary_service"], flat["angle"], flat["reasoning"],
              flat["message_chat"], flat["last_note"]]
    return [v.translate(_CONTROL).strip() for v in values]


def write_crm_csv(records: Iterable[dict[str, Any]], out: TextIO,
                  failures: Iterable[dict[str, Any]] | None = None,
                  interleave: bool = False) -> int:
    """Write the evaluations as a CSV to import into a CRM (:data:`CRM_COLUMNS`): plain
    values without the spreadsheet guard, so open the ``csv`` format in Excel instead.
    Failures are left out (a CRM takes leads, not errors)."""
    writer = csv.writer(out)
    writer.writerow(CRM_COLUMNS)
    count = 0
    for record in records:
        writer.writerow(crm_row(record))
        count += 1
    return count


WRITERS = {"csv": write_csv, "crm-csv": write_crm_csv, "jsonl": write_jsonl,
           "json": write_json}


def write_xlsx(records: Iterable[dict[str, Any]], out: Path | IO[bytes],
               failures: Iterable[dict[str, Any]], include_failed: bool = False,
               interleave: bool = False) -> int:
    """An Excel workbook: sheet "Leads" (the CSV's table; failed rows too with
    ``include_failed``) with a frozen header, a filter and clickable URLs, and sheet
    "Failures" (url, error, run, input columns). Returns the evaluations written."""
    # write_only streams rows to the file (10,000 leads in about two seconds) and still
    # supports frozen panes, filters, widths and hyperlinks, all set around the rows.
    from openpyxl import Workbook

    failed = sorted(failures, key=_input_position)
    leads = lead_table(export_items(records, failed if include_failed else None, interleave),
                       include_failed)
    inputs: dict[str, None] = {}
    for failure in failed:
        inputs.update(dict.fromkeys(failure.get("input") or {}))
    failure_rows = [[f.get("url", ""), f.get("error", ""), str(f.get("run_id", "")),
                     *((f.get("input") or {}).get(k, "") for k in inputs)] for f in failed]
    workbook = Workbook(write_only=True)
    _write_sheet(workbook.create_sheet("Leads"), leads.header, leads.rows)
    _write_sheet(workbook.create_sheet("Failures"), ["url", "error", "run", *inputs],
                 failure_rows)
    workbook.save(out)
    return leads.evaluated


def _write_sheet(sheet: WriteOnlyWorksheet, header: list[str], rows: list[list[str]]
                 ) -> None:
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.utils import get_column_letter

    sheet.freeze_panes = "A2"
    for index, column in enumerate(header, 1):
        sample = [column, *(row[index - 1] for row in rows[:_WIDTH_SAMPLE])]
        width = max(len(line) for text in sample for line in text.splitlines() or [""])
        sheet.column_dimensions[get_column_letter(index)].width = min(
            _WIDTH_MAX, max(_WIDTH_MIN, width + 2))
    sheet.append([_text_cell(sheet, neutralise_xlsx(c)) for c in header])
    url_at = header.index("url") if "url" in header else -1
    numeric = [column in NUMERIC for column in header]
    for row in rows:
        # An empty text is no cell at all: a smaller file, and blanks filter as blanks.
        cells: list[Any] = [None if not v else _number(sheet, v) if numeric[i] else
                            _text_cell(sheet, neutralise_xlsx(v)) for i, v in enumerate(row)]
        if url_at >= 0 and row[url_at].startswith(_LINK_SCHEMES):
            link = WriteOnlyCell(sheet, value=cells[url_at])
            link.hyperlink = row[url_at]
            link.style = "Hyperlink"
            cells[url_at] = link
        sheet.append(cells)
    last = get_column_letter(max(1, len(header)))
    sheet.auto_filter.ref = f"A1:{last}{len(rows) + 1}"


def _text_cell(sheet: WriteOnlyWorksheet, text: str) -> Any:
    """``text`` as a string cell: openpyxl would write a text starting with ``=`` as a
    formula, so that one is a cell typed as a string; any other text is one already."""
    if not text.startswith("="):
        return text
    from openpyxl.cell import WriteOnlyCell

    cell = WriteOnlyCell(sheet, value=text)
    cell.data_type = "s"
    return cell


def _number(sheet: WriteOnlyWorksheet, text: str) -> Any:
    """A numeric column's text as a number."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return _text_cell(sheet, neutralise_xlsx(text))  # not a number: as it is
