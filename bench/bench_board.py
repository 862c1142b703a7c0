"""Benchmark: the workspace's leads board at 10,000 leads (sorts, filters, search, paging).

Run from the repository root::

    python -m bench.bench_board [--leads 10000] [--runs 30] [--quick] [--db URL]

One run:

* a results store in a temporary folder (or ``--db``, an empty database such as a
  throwaway PostgreSQL one) gets ``--leads`` evaluations with varied names, types,
  categories, cities, scores, angles and owners, each a realistic 3-6 KB of JSON (the
  shape :class:`~leadengine.judgement.evaluation.Evaluation` stores), in one transaction, and a
  status for one lead in five; the board's rows are then filled by
  :func:`~leadengine.store.board.index_leads` (what migration 8 does on an upgraded
  database), timed;
* each query is requested ``--runs`` times (after warm-ups) through FastAPI's
  ``TestClient`` with the team token, so a sample is the whole server side of a request
  (routing, auth middleware, SQL, JSON or the HTML template), without a network: the JSON
  API sorted by ``-fit_score``, ``business_name`` and ``city``, filtered by
  ``band=high&city=Bangkok``, searched with ``q``, and page 50; then the board's HTML
  page (its query plus the filters' dropdown values and the runs);
* the same queries' :func:`~leadengine.store.workspace.board` calls alone (the SQL
  part), and one "export all matching" CSV, are reported alongside;
* prints a table and writes the numbers to ``bench/results/board.json``.

Targets: every JSON query p50 < 50 ms; the HTML page p50 < 300 ms.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.harness import (
    RESULTS_DIR,
    host_speed,
    make_parser,
    print_head,
    python_on,
    run_info,
    time_calls,
    timed,
    verdict,
    write_results,
)

RESULTS = RESULTS_DIR / "board.json"
TOKEN = "bench-board-token-0123456789abcdef"
TARGET_JSON_MS = 50.0
TARGET_PAGE_MS = 300.0

#: (label, path) of the timed requests; the last one is the HTML page.
QUERIES: tuple[tuple[str, str], ...] = (
    ("sort -fit_score", "/api/leads?sort=-fit_score"),
    ("sort business_name", "/api/leads?sort=business_name"),
    ("sort city", "/api/leads?sort=city"),
    ("band=high&city=Bangkok", "/api/leads?band=high&city=Bangkok"),
    ("q=dental", "/api/leads?q=dental"),
    ("q=sukhumvit sort -name", "/api/leads?q=sukhumvit&sort=-business_name"),
    ("page 50", "/api/leads?sort=-fit_score&page=50"),
    ("page 50 sort owner", "/api/leads?sort=owner&page=50"),
    ("HTML board page", "/?sort=-fit_score"),
)

NAMES = ("Smile", "Bright", "Golden", "Lotus", "Siam", "Royal", "Green", "Happy", "Blue",
         "River", "Orchid", "Elephant", "Mango", "Jasmine", "Ruby", "Silk", "Sunny",
         "Bamboo", "Coral", "Pearl")
KINDS = (("Dental Clinic", "healthcare", "dental"), ("Cafe", "food_beverage", "cafe"),
         ("Law Firm", "professional_services", "law"), ("Spa", "beauty_wellness", "spa"),
         ("Hotel", "hospitality", "hotel"), ("Restaurant", "food_beverage", "kitchen"),
         ("Language School", "education", "school"), ("Car Repair", "automotive", "garage"),
         ("Yoga Studio", "beauty_wellness", "yoga"), ("Pet Clinic", "healthcare", "vet"))
CITIES = ("Bangkok", "Bangkok", "Bangkok", "Chiang Mai", "Phuket", "Pattaya", "Khon Kaen",
          "Hat Yai", "Yangon", "Mandalay", "Udon Thani", "")
STREETS = ("Sukhumvit Road", "Silom Road", "Rama IV Road", "Nimman Road", "Beach Road",
           "Charoen Krung Road")
SERVICES = ("Booking Website", "Foundation Package", "Analytics Setup", "LINE Booking Bot",
            "E-commerce Store", "Local SEO")
ANGLES = ("Revenue Visibility Gap", "Conversion Infrastructure Weakness",
          "Operational Bottleneck", "Platform Dependency Risk", "Underutilized Attention",
          "Competitive Positioning Gap")
OWNERS = ("ann", "bob", "chai", "dao", "eve", "")
SIGNALS = ("google_analytics", "google_tag_manager", "meta_pixel", "tiktok_pixel", "hotjar",
           "clarity", "contact_form", "online_booking", "ecommerce", "facebook_link",
           "facebook_only", "messaging_link", "social_link", "phone", "email", "address",
           "own_domain_email", "free_webmail", "https", "mobile_viewport", "analytics",
           "chat_widget", "online_payment", "call_to_action", "lead_capture_form")
LAYERS = ("Visibility", "Website", "Measurement", "Operational", "Asset Ownership")
WORDS = ("booking", "patients", "Facebook", "messages", "reach", "website", "owned",
         "calendar", "reviews", "search", "customers", "weekend", "walk-in", "LINE",
         "phone", "menu", "prices", "photos", "staff", "growth")


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def make_lead(rng: random.Random, index: int) -> tuple[str, dict[str, Any], dict[str, str]]:
    """(url, evaluation, passthrough) of one synthetic lead (3-6 KB of JSON)."""
    kind, category, slug = rng.choice(KINDS)
    name = f"{rng.choice(NAMES)} {rng.choice(NAMES)} {kind} {index}"
    where = rng.choice(CITIES)
    url = f"https://{slug}-{index}.example.co.th/"
    street = f"{rng.randint(1, 999)} {rng.choice(STREETS)}"
    evaluation = {
        "business_name": name, "business_type": kind, "fit_score": rng.randint(0, 100),
        "primary_service": rng.choice(SERVICES),
        "reasoning": " ".join(sentence(rng, 14) for _ in range(rng.randint(4, 16))),
        "outreach_angle": " ".join(sentence(rng, 12) for _ in range(3)),
        "url": url, "provider": "heuristic", "model": "rules-v1", "rag": True,
        "angle": rng.choice(ANGLES), "excluded_services": [],
        "digital_maturity": {layer: {"score": rng.randint(0, 100),
                                     "evidence": [sentence(rng, 6) for _ in range(2)],
                                     "gaps": [sentence(rng, 6)]} for layer in LAYERS},
        "sources": [{"path": "services.md", "heading": rng.choice(SERVICES),
                     "score": round(rng.random(), 3)} for _ in range(3)],
        "signals": {**{s: rng.random() < 0.4 for s in SIGNALS},
                    "phones": [f"+66 2 {rng.randint(100, 999)} {rng.randint(1000, 9999)}"],
                    "emails": [f"info@{slug}-{index}.example.co.th"],
                    "evidence": {"address": f"{street}, {where or 'Thailand'}",
                                 "contact_form": f"{url}contact"}},
        "warnings": [sentence(rng, 8)] if rng.random() < 0.3 else [],
        "tokens": {}, "cost_usd": 0.0, "cached": False,
        "location": {"address": street, "city": where or None, "region": None,
                     "postal_code": None, "country": "Thailand", "country_code": "TH",
                     "in_target_geography": True, "evidence": [street]},
        "category": {"value": category, "confidence": round(rng.random(), 2),
                     "evidence": [slug]},
    }
    return url, evaluation, {"name": name, "owner": rng.choice(OWNERS),
                             "source": "bench"}


def fill(db: str, leads: int, seed: int) -> tuple[float, float, int]:
    """Store ``leads`` evaluations in one transaction and index them; (seconds to
    store, seconds to fill the board's rows, mean JSON bytes)."""
    from leadengine.store import Store
    from leadengine.store.board import index_leads, lead_status_table
    from leadengine.store.schema import evaluations_table

    rng = random.Random(seed)
    store = Store(db)
    run = store.start_run("bench.csv", "kb", "heuristic", "rules-v1")
    rows, statuses, size = [], [], 0
    for index in range(leads):
        url, evaluation, passthrough = make_lead(rng, index)
        data = json.dumps(evaluation, ensure_ascii=False)
        size += len(data)
        rows.append({"run_id": run, "row_index": index, "url": url, "kb_version": "kb",
                     "provider": "heuristic", "model": "rules-v1",
                     "passthrough": json.dumps(passthrough), "created_at": time.time(),
                     "fit_score": evaluation["fit_score"], "data": data})
        if rng.random() < 0.2:
            statuses.append({"url": url, "status": rng.choice(("contacted", "replied", "won")),
                             "updated_at": time.time(), "updated_by": "bench"})
    start = time.perf_counter()
    with store.engine.begin() as conn:
        conn.execute(evaluations_table.insert(), rows)
        if statuses:
            conn.execute(lead_status_table.insert(), statuses)
    stored = time.perf_counter() - start
    with store.engine.begin() as conn:
        _, indexed = timed(lambda: index_leads(conn))
    store.finish_run(run)
    store.engine.dispose()
    return stored, indexed, size // max(1, leads)


@dataclass
class Row:
    label: str
    path: str
    total: int | None
    p50_ms: float
    p95_ms: float
    sql_p50_ms: float | None
    target_ms: float

    @property
    def ok(self) -> bool:
        return self.p50_ms < self.target_ms


def measure(db: str, runs: int) -> tuple[list[Row], dict[str, Any]]:
    """Time every query of :data:`QUERIES` through the app, and its board() call."""
    from fastapi.testclient import TestClient

    from leadengine.app import create_app
    from leadengine.app.leads import board_query
    from leadengine.store.workspace import board

    app = create_app(None, db, TOKEN)
    client = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})
    engine = app.state.workspace.store.engine
    found: list[Row] = []
    for label, path in QUERIES:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        total = response.json()["total"] if path.startswith("/api/") else None

        def request(path: str = path) -> None:
            client.get(path)

        timing = time_calls(request, runs=runs, warmups=3, budget_s=60, min_runs=runs)
        params = dict(p.split("=", 1) for p in path.partition("?")[2].split("&") if p)
        query = board_query(**params)
        sql = time_calls(lambda query=query: board(engine, query), runs=runs, warmups=2,
                         budget_s=60, min_runs=runs)
        target = TARGET_JSON_MS if path.startswith("/api/") else TARGET_PAGE_MS
        found.append(Row(label, path, total, timing.stats["p50_ms"], timing.stats["p95_ms"],
                         sql.stats["p50_ms"], target))
    export, export_s = timed(lambda: client.get("/api/export?format=csv&sort=-fit_score"))
    assert export.status_code == 200
    extra = {"export_csv_all_s": export_s, "export_csv_bytes": len(export.content)}
    client.close()
    return found, extra


def print_table(rows: Sequence[Row]) -> None:
    head = f"{'query':<26} {'total':>6} {'p50 ms':>8} {'p95 ms':>8} {'SQL p50':>8} {'target':>7}"
    print_head(head)
    for r in rows:
        total = "" if r.total is None else str(r.total)
        print(f"{r.label:<26} {total:>6} {r.p50_ms:8.1f} {r.p95_ms:8.1f} "
              f"{r.sql_p50_ms or 0:8.1f} {r.target_ms:6.0f}  {verdict(r.ok)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--leads", type=int, default=10_000, help="evaluations stored")
    parser.add_argument("--runs", type=int, default=30, help="timed requests per query")
    parser.add_argument("--seed", type=int, default=7, help="random seed of the leads")
    parser.add_argument("--db", default=None,
                        help="an empty database URL to fill (default: a SQLite file in a "
                             "temporary folder)")
    parser.add_argument("--quick", action="store_true", help="2,000 leads, 10 runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.leads, args.runs = 2_000, 10

    speed = host_speed()
    with tempfile.TemporaryDirectory(prefix="bench_board_") as tmp:
        db = args.db or str(Path(tmp) / "board.db")
        stored_s, indexed_s, json_bytes = fill(db, args.leads, args.seed)
        rows, extra = measure(db, args.runs)
        db_bytes = Path(db).stat().st_size if args.db is None else None

    print(f"{python_on()}, {os.cpu_count()} CPUs; host speed {speed:.0f} ms (35 = full "
          f"speed); {args.leads:,} leads, mean JSON {json_bytes:,} bytes"
          + (f", database {db_bytes / 1e6:.0f} MB" if db_bytes else ""))
    print(f"stored in {stored_s:.1f}s; board rows filled (migration 8's backfill) in "
          f"{indexed_s:.2f}s; export of all leads as CSV {extra['export_csv_all_s']:.2f}s "
          f"({extra['export_csv_bytes'] / 1e6:.1f} MB)")
    print_table(rows)
    json_ok = all(r.ok for r in rows if r.path.startswith("/api/"))
    page_ok = all(r.ok for r in rows if not r.path.startswith("/api/"))
    worst = max(r.p50_ms for r in rows if r.path.startswith("/api/"))
    page = next(r for r in rows if not r.path.startswith("/api/"))
    print(f"target: JSON p50 < {TARGET_JSON_MS:.0f} ms (worst {worst:.1f} ms) -> "
          f"{verdict(json_ok)}")
    print(f"target: page p50 < {TARGET_PAGE_MS:.0f} ms ({page.p50_ms:.1f} ms) -> "
          f"{verdict(page_ok)}")
    write_results(RESULTS, {
        **run_info(args), "cpus": os.cpu_count(), "host_speed_ms": speed,
        "target_json_ms": TARGET_JSON_MS, "target_page_ms": TARGET_PAGE_MS,
        "target_pass": json_ok and page_ok, "json_pass": json_ok, "page_pass": page_ok,
        "json_bytes_mean": json_bytes, "database_bytes": db_bytes, "store_s": stored_s,
        "board_fill_s": indexed_s, **extra,
        "queries": [{**asdict(r), "pass": r.ok} for r in rows],
    })
    return 0 if json_ok and page_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
