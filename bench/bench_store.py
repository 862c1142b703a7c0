"""Benchmark: CPU of the batch's store writes per row, one by one and in groups (issue 16).

Run from the repository root::

    python -m bench.bench_store [--rows 400] [--db postgresql://...]

On a fresh SQLite file (or the ``--db`` given), with a real evaluation of the
``bangkok-dental-fb-only`` fixture (about 5 KB of JSON) and its page as the snapshot:

* ``claim``: claiming the rows one transaction each, then :data:`CLAIM_CHUNK` at a time
  (:meth:`Store.claim_urls`, as a batch does);
* ``record``: storing each row's evaluation and releasing its claim, one transaction
  each (:meth:`Store.record_evaluation`), then in groups of 8 and
  :data:`~leadengine.store.results.FLUSH_SIZE` (:meth:`Store.record_outcomes`);
* ``pages``: three page snapshots per row, with the row's group.

CPU per row is this process's (``time.process_time``; SQLite runs in it). The groups'
rows must read back as the single ones do. Numbers go to ``bench/results/store.json``.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.harness import REPO, RESULTS_DIR, make_parser, python_on, run_info, write_results
from leadengine import KnowledgeBase, Settings
from leadengine.batch import CLAIM_CHUNK
from leadengine.pipeline import evaluate_site
from leadengine.store import Outcome, Store
from leadengine.store.results import FLUSH_SIZE
from leadengine.website.fetch import Page
from leadengine.website.site import site_from_page

RESULTS = RESULTS_DIR / "store.json"
PAGE = REPO / "tests" / "fixtures" / "sites" / "bangkok-dental-fb-only" / "index.html"


def sample() -> tuple[dict[str, Any], Page]:
    """A real evaluation (heuristic, keyword retrieval) and the page it was made from."""
    settings = Settings(provider="heuristic", retrieval_method="keyword")
    kb = KnowledgeBase.from_settings(settings)
    page = Page(url="https://dental.example/", final_url="https://dental.example/",
                status=200, content_type="text/html", html=PAGE.read_text(encoding="utf-8"),
                encoding="utf-8", truncated=False, fetched_at=time.time())
    evaluation = asyncio.run(evaluate_site(site_from_page(page, settings), kb, settings))
    return evaluation.model_dump(mode="json"), page


def per_row_ms(fn: Any, rows: int) -> float:
    start = time.process_time()
    fn()
    return round(1000 * (time.process_time() - start) / rows, 3)


def run(db: str, rows: int) -> dict[str, float]:
    evaluation, page = sample()
    store = Store(db)
    results: dict[str, float] = {}
    for label, group in (("one by one", 1), ("groups of 8", 8), (f"groups of {FLUSH_SIZE}",
                                                                 FLUSH_SIZE)):
        key = store.open_run(f"bench {label}", f"kb-{label}", "heuristic", "rules")
        urls = [f"https://lead{i}.example/?{label}" for i in range(rows)]
        pages = [[Page(**{**page.__dict__, "url": f"{u}{n}"}) for n in range(3)]
                 for u in urls]
        chunk = 1 if group == 1 else CLAIM_CHUNK

        def claim(urls: list[str] = urls, key: Any = key, chunk: int = chunk) -> None:
            for i in range(0, rows, chunk):
                store.claim_urls(key, urls[i:i + chunk])

        def record(urls: list[str] = urls, key: Any = key, group: int = group,
                   pages: list[list[Page]] = pages) -> None:
            for i in range(0, rows, group):
                part = range(i, min(rows, i + group))
                store.record_outcomes(key, [Outcome(n, urls[n], {}, evaluation) for n in part],
                                      [p for n in part for p in pages[n]])

        results[f"claim, {label if group == 1 else f'{chunk} at a time'}"] = per_row_ms(
            claim, rows)
        results[f"record + 3 snapshots, {label}"] = per_row_ms(record, rows)
        stored = list(store.evaluations(run_id=key.run_id))
        assert len(stored) == rows and all(r["fit_score"] == evaluation["fit_score"]
                                           for r in stored), label
    return results


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--rows", type=int, default=400)
    parser.add_argument("--db", default=None, help="a database URL (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "store.db")
        results = run(db, args.rows)
    print(f"{python_on()}; {args.rows} rows; {'SQLite file' if args.db is None else 'given db'}")
    for label, ms in results.items():
        print(f"  {label:<36} {ms:7.3f} ms CPU per row")
    write_results(RESULTS, {**run_info(args), "ms_per_row": results})


if __name__ == "__main__":
    main()
