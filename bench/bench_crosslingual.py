"""Benchmark: retrieval quality across languages, development and held-out side by side.

Run from the repository root::

    python -m bench.bench_crosslingual [--method hybrid] [--skip-heldout]

Three measurements with :func:`leadengine.retrieval.metrics.score_methods` (nDCG@3,
Recall@3, MRR@10 and p50 latency per query kind):

* ``dev``: the shipped ``knowledge/`` with ``bench/data/qrels.jsonl`` (the project's
  development set, tuned on);
* ``dev-english``: the same knowledge files with every Thai and Burmese word removed
  from their text, with the same judgements: a development stand-in for an English
  knowledge base meeting Thai and Burmese websites (tuned on);
* ``heldout``: ``bench/data/heldout-kb`` with ``bench/data/heldout-qrels.jsonl``, written
  by a separate author without looking at retrieval results (``bench/data/HELDOUT.md``):
  reported, never tuned on.

Targets (exit code) on ``heldout``, engine default method (``hybrid``): nDCG@3 >= 0.80
overall, every query kind >= 0.65 and not below ``keyword``; p50 latency of the
website-length queries (``excerpt``, ``thai``, ``burmese``) under 100 ms. Numbers go to
``bench/results/crosslingual.json``.
"""

from __future__ import annotations

import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench.harness import REPO, RESULTS_DIR, make_parser, print_head, run_info, write_results
from leadengine.retrieval.knowledge_base import KnowledgeBase
from leadengine.retrieval.metrics import Judged, format_table, load_qrels, score_methods

DATA = REPO / "bench" / "data"
RESULTS = RESULTS_DIR / "crosslingual.json"
METHODS = ["keyword", "bm25", "semantic", "hybrid"]
_NATIVE = re.compile("[\u0e00-\u0e7f\u1000-\u109f]+")
#: Query kinds that are whole website excerpts (the latency target's queries).
LONG_KINDS = ("excerpt", "thai", "burmese")


def english_only(source: Path, target: Path) -> Path:
    """A copy of the knowledge files of ``source`` with Thai and Burmese words removed
    from their markdown (the front matter, rules only, is kept)."""
    for path in sorted(source.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        front, body = "", text
        if text.startswith("---"):
            end = text.index("\n---", 3) + 4
            front, body = text[:end], text[end:]
        (target / path.name).write_text(front + _NATIVE.sub("", body), encoding="utf-8")
    return target


def measure(name: str, kb: KnowledgeBase, judged: list[Judged], methods: list[str]
            ) -> dict[str, Any]:
    reports = score_methods(kb, judged, methods)
    print(f"\n== {name}: {len(judged)} queries, {len(kb.documents)} files")
    print(format_table(judged, reports))
    kinds = sorted({j.kind for j in judged})
    table: dict[str, Any] = {}
    for report in reports:
        rows = {kind: report.summary([j.qid for j in judged if j.kind == kind])
                for kind in kinds}
        rows["overall"] = report.summary([j.qid for j in judged])
        long = [report.latency_ms[j.qid] for j in judged if j.kind in LONG_KINDS]
        rows["long_p50_ms"] = {"p50_ms": statistics.median(long) if long else 0.0}
        table[report.method] = rows
    return table


def verdicts(table: dict[str, Any], method: str) -> list[tuple[str, bool]]:
    rows, keyword = table[method], table.get("keyword", {})
    kinds = [k for k in rows if k not in ("overall", "long_p50_ms")]
    checks = [(f"{method} overall nDCG@3 {rows['overall']['ndcg@3']:.3f} >= 0.80",
               rows["overall"]["ndcg@3"] >= 0.80)]
    for kind in kinds:
        value = rows[kind]["ndcg@3"]
        floor = keyword.get(kind, {}).get("ndcg@3", 0.0)
        checks.append((f"{method} {kind} nDCG@3 {value:.3f} >= 0.65 and >= keyword "
                       f"{floor:.3f}", value >= 0.65 and value >= floor - 1e-9))
    p50 = rows["long_p50_ms"]["p50_ms"]
    checks.append((f"{method} website-length query p50 {p50:.1f} ms < 100 ms", p50 < 100))
    return checks


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--method", action="append", choices=METHODS,
                        help="methods to measure (repeatable; default: all)")
    parser.add_argument("--skip-heldout", action="store_true")
    args = parser.parse_args(argv)
    methods = args.method or METHODS
    print_head("Retrieval across languages: development and held-out knowledge bases")
    results: dict[str, Any] = {"run": run_info(args)}
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        dev = load_qrels(DATA / "qrels.jsonl")
        results["dev"] = measure("dev (shipped knowledge)", KnowledgeBase.from_dir(
            REPO / "knowledge", cache_dir=cache), dev, methods)
        folder = Path(tmp) / "english"
        folder.mkdir()
        results["dev-english"] = measure(
            "dev-english (shipped knowledge without Thai/Burmese words)",
            KnowledgeBase.from_dir(english_only(REPO / "knowledge", folder), cache_dir=cache),
            dev, methods)
        failed = False
        if not args.skip_heldout and (DATA / "heldout-kb").is_dir():
            held = load_qrels(DATA / "heldout-qrels.jsonl")
            results["heldout"] = measure("heldout (never tuned on)", KnowledgeBase.from_dir(
                DATA / "heldout-kb", cache_dir=cache), held, methods)
            if "hybrid" in methods:
                print()
                for text, ok in verdicts(results["heldout"], "hybrid"):
                    print(("PASS " if ok else "FAIL ") + text)
                    failed |= not ok
    write_results(RESULTS, results)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
