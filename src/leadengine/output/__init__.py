"""What a rep reads: :mod:`~leadengine.output.report` (the text report and the markdown
lead brief of one evaluation) and :mod:`~leadengine.output.export` (a batch's results as
CSV, XLSX, JSONL or JSON, spreadsheet formulas neutralised)."""

from leadengine.output.export import (
    WRITERS,
    flatten,
    lead_table,
    neutralise,
    neutralise_xlsx,
    write_csv,
    write_xlsx,
)
from leadengine.output.report import (
    DEFAULT_BANDS,
    FORMATS,
    KEY_SIGNALS,
    band_name,
    city,
    markdown_report,
    render_report,
    text_report,
)

__all__ = [
    "DEFAULT_BANDS", "FORMATS", "KEY_SIGNALS", "WRITERS", "band_name", "city", "flatten",
    "lead_table", "markdown_report", "neutralise", "neutralise_xlsx", "render_report",
    "text_report", "write_csv", "write_xlsx",
]
