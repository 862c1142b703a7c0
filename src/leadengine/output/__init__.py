"""What a rep reads: :mod:`~leadengine.output.report` (the text report and the markdown
lead brief of one evaluation) and :mod:`~leadengine.output.export` (a batch's results as
CSV, XLSX, JSONL or JSON, spreadsheet formulas neutralised)."""

from leadengine.output.export import (
    WRITERS,
    flatten,
    lead_table,
    neutralise,
    neutralise_xlsx,
    write_crm_csv,
    write_csv,
    write_xlsx,
)
from leadengine.output.report import (
    FORMATS,
    KEY_SIGNALS,
    answers,
    city,
    contacts,
    counted,
    found_signals,
    markdown_report,
    maturity,
    missing_signals,
    provenance,
    render_report,
    sources,
    text_report,
)

__all__ = [
    "FORMATS", "KEY_SIGNALS", "WRITERS", "answers", "city", "contacts", "counted", "flatten",
    "found_signals", "lead_table", "markdown_report", "maturity", "missing_signals",
    "neutralise", "neutralise_xlsx", "provenance", "render_report", "sources", "text_report",
    "write_crm_csv", "write_csv", "write_xlsx",
]
