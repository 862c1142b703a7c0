"""Benchmark: text extraction + signals of one page (``site_from_page``).

Run from the repository root::

    python -m bench.bench_extract [--runs 30] [--quick] [--profile] [--skip-huge]

It times :func:`leadengine.website.site.site_from_page` (lxml parse, trafilatura
main-text extraction on the markup without scripts/styles, signals and facts
over the DOM) on :class:`~leadengine.website.fetch.Page` objects built in memory:
no network and no file reading in the timed loop. Pages:

* ``typical-300k``: a deterministic ~300 KB WordPress/Elementor-like business
  homepage where, as on real sites, most bytes are markup, inline CSS/JS and an
  SVG sprite, with ~2,500 words of visible copy, a pricing table, a contact
  form, a footer with contacts and a JSON-LD LocalBusiness;
* ``typical-300k-nold``: the same page without its JSON-LD (so the street
  address must be found in the text), report only;
* ``text-heavy-300k``: ~300 KB where most bytes are visible text (a long article
  and a 600-row price table), report only;
* ``link-heavy-100k``: ``typical-300k`` with a directory of 100,000 links before its
  footer (~3.8 MB, under the 5 MB byte cap): a hostile or generated page. Report only:
  its CPU time per read (``time.process_time``) against the page budget
  (:data:`leadengine.website.site.PAGE_CPU_SECONDS`); links past the first 5,000 are not read,
  so its footer's social links are not seen;
* every fixture homepage ``tests/fixtures/sites/*/index.html`` (the 2 MB
  ``huge-page`` reported separately).

Each page: p50/p95/mean over ``--runs`` runs after 2 warm-ups (a page slower
than 1 s per call keeps its first warm-up as a sample and stops after
``--budget`` seconds once it has ``--min-runs`` samples). ``typical-300k`` is
also broken down into lxml parse, extraction (markup preparation and
trafilatura) and signals. Pages over the target are profiled with cProfile
(all synthetic pages with ``--profile``). Numbers go to
``bench/results/extract.json``.

Target (exit code): ``typical-300k`` p50 under 50 ms.
"""

from __future__ import annotations

import cProfile
import gc
import os
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.harness import (
    REPO,
    RESULTS_DIR,
    git_state,
    host_speed,
    make_parser,
    ms_stats,
    print_head,
    python_on,
    run_info,
    short_path,
    time_calls,
    verdict,
    write_results,
)
from bench.pages import (
    LINK_HEAVY_LINKS,
    count_words,
    link_heavy_page,
    make_page,
    text_heavy_page,
    typical_page,
)
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.website import extract as extract_mod
from leadengine.website.extract import (
    extract,
    parse_html,
    prune_for_extraction,
    text_nodes,
    visible_text,
)
from leadengine.website.fetch import Page, decode_html
from leadengine.website.signals import detect_signals
from leadengine.website.site import PAGE_CPU_SECONDS, assemble_site, read_page, site_from_page

FIXTURES = REPO / "tests" / "fixtures" / "sites"
RESULTS = RESULTS_DIR / "extract.json"
TARGET_MS = 50.0
#: A call slower than this needs no second warm-up; its first warm-up is kept as a sample.
SLOW_S = 1.0
HUGE = "huge-page"

# ----------------------------------------------------------------------------- timing

@dataclass
class PageResult:
    name: str
    kind: str
    bytes: int
    chars: int
    timing: dict[str, float] | None
    runs: int
    warmups: int
    text_chars: int = 0
    text_words: int = 0
    visible_words: int = 0
    signals: list[str] = field(default_factory=list)
    error: str = ""
    samples_ms: list[float] = field(default_factory=list)


def bench_page(name: str, kind: str, page: Page, settings: Settings, runs: int, warmups: int,
               budget_s: float, min_runs: int) -> PageResult:
    raw = len(page.html.encode("utf-8"))
    try:
        site = site_from_page(page, settings)
    except LeadEngineError as exc:
        return PageResult(name, kind, raw, len(page.html), None, 0, 0, error=str(exc))
    words = count_words(visible_text(parse_html(page.html)))
    timing = time_calls(lambda: site_from_page(page, settings), runs, warmups, budget_s,
                        min_runs, SLOW_S)
    flags = sorted(k for k, v in site.signals.flags.items() if v and not k.startswith("_"))
    return PageResult(name, kind, raw, len(page.html), timing.stats, timing.runs,
                      timing.warmups, text_chars=len(site.extracted.text),
                      text_words=count_words(site.extracted.text), visible_words=words,
                      signals=flags, samples_ms=timing.samples_ms)


def breakdown(page: Page, settings: Settings, runs: int, warmups: int, budget_s: float,
              min_runs: int) -> dict[str, dict[str, float]]:
    """p50 etc. of each stage of ``site_from_page``, each called on its own.

    ``site_from_page`` = parse, then the DOM reads (text nodes, ``detect_signals``),
    then ``extract`` (which prunes the parsed tree in place for trafilatura, so it is
    timed on a fresh parse and the parse subtracted), then ``assemble_site`` (merge,
    injection scan, language). The stages are timed round-robin (one call of each per
    round, the whole call included), so a change in machine load hits all of them alike.
    """
    tree = parse_html(page.html)
    nodes = text_nodes(tree)
    read = read_page(page)
    stages: dict[str, Callable[[], object]] = {
        "site_from_page (whole call)": lambda: site_from_page(page, settings),
        "lxml parse (parse_html)": lambda: parse_html(page.html),
        "DOM: text nodes (text_nodes, scripts in)": lambda: text_nodes(tree),
        "DOM: signals (detect_signals)": lambda: detect_signals(tree, page.final_url, nodes),
        "parse + prune (prune_for_extraction)": lambda: prune_for_extraction(
            parse_html(page.html)),
        "parse + extract (title, meta, trafilatura)": lambda: extract(
            page, parse_html(page.html), nodes),
        "assemble_site (merge, injections, lang.)": lambda: assemble_site([read], settings, []),
    }

    clock = time.perf_counter
    samples: dict[str, list[float]] = {label: [] for label in stages}
    gc.collect()
    for _ in range(warmups):
        for fn in stages.values():
            fn()
    start = clock()
    rounds = 0
    while rounds < runs and not (rounds >= min_runs and clock() - start > budget_s):
        for label, fn in stages.items():
            t0 = clock()
            fn()
            samples[label].append(clock() - t0)
        rounds += 1
    return {label: {**ms_stats(ts), "runs": len(ts)} for label, ts in samples.items()}


def cpu_per_read(page: Page, settings: Settings, calls: int) -> dict[str, Any]:
    """CPU seconds (``time.process_time``) of ``calls`` calls of ``site_from_page`` (one
    if a call takes more than :data:`SLOW_S`), and the error if reading failed."""
    samples: list[float] = []
    error = ""
    for _ in range(calls):
        start = time.process_time()
        try:
            site_from_page(page, settings)
        except LeadEngineError as exc:
            error = str(exc)
        samples.append(time.process_time() - start)
        if samples[-1] > SLOW_S or error:
            break
    return {"calls": len(samples), "p50_s": statistics.median(samples),
            "max_s": max(samples), "error": error}


def profile(page: Page, settings: Settings, calls: int, top: int = 15) -> dict[str, Any]:
    """cProfile of ``calls`` calls of ``site_from_page``: top functions by own and total time."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        site_from_page(page, settings)
    prof.disable()
    stats = pstats.Stats(prof)
    rows = []
    for (path, line, func), (_cc, nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        short = short_path(path, ("site-packages/", "src/", "lib/python3."))
        rows.append({"function": f"{short}:{line}({func})" if line else func,
                     "ncalls": nc / calls, "tottime_ms": tt * 1e3 / calls,
                     "cumtime_ms": ct * 1e3 / calls})
    total = sum(r["tottime_ms"] for r in rows)
    by_tot = sorted(rows, key=lambda r: -r["tottime_ms"])[:top]
    by_cum = sorted((r for r in rows if "leadengine" in r["function"]
                     or "trafilatura" in r["function"]), key=lambda r: -r["cumtime_ms"])[:top]
    return {"calls": calls, "total_ms": total, "by_tottime": by_tot, "by_cumtime": by_cum}


# ------------------------------------------------------------------------------ report

def _ms(v: float) -> str:
    return f"{v:8.1f}" if v < 10_000 else f"{v:8.0f}"


def _row(r: PageResult, note: str = "") -> str:
    if r.timing is None:
        return f"{r.name:<26}{r.bytes / 1e3:>8.1f}  error: {r.error}"
    t = r.timing
    return (f"{r.name:<26}{r.bytes / 1e3:>8.1f}{r.runs:>5}{_ms(t['p50_ms'])}{_ms(t['p95_ms'])}"
            f"{_ms(t['mean_ms'])}{r.visible_words:>8}{r.text_chars:>8}  {note}")


def print_table(results: Sequence[PageResult], notes: dict[str, str] | None = None) -> None:
    head = (f"{'page':<26}{'KB':>8}{'runs':>5}{'p50 ms':>8}{'p95 ms':>8}{'mean ms':>8}"
            f"{'vis.wds':>8}{'text ch':>8}")
    print_head(head)
    for r in results:
        print(_row(r, (notes or {}).get(r.name, "")))


def print_profile(name: str, prof: dict[str, Any]) -> None:
    print(f"cProfile {name}: {prof['calls']} call(s), {prof['total_ms']:.1f} ms/call profiled; "
          "top by own time (ms/call, calls/call):")
    for r in prof["by_tottime"]:
        print(f"  {r['tottime_ms']:9.2f} {r['ncalls']:9.0f}  {r['function']}")
    print("  top leadengine/trafilatura by cumulative time (ms/call):")
    for r in prof["by_cumtime"][:10]:
        print(f"  {r['cumtime_ms']:9.2f} {r['ncalls']:9.0f}  {r['function']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--runs", type=int, default=30, help="timed runs per page")
    parser.add_argument("--warmups", type=int, default=2, help="warm-up calls per page")
    parser.add_argument("--budget", type=float, default=60.0,
                        help="seconds per page after which sampling stops (once --min-runs "
                             "samples are in)")
    parser.add_argument("--min-runs", type=int, default=3, help="samples per page at least")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile every synthetic page (default: only pages over target)")
    parser.add_argument("--skip-huge", action="store_true",
                        help=f"skip the {HUGE} fixture (2 MB; slow)")
    parser.add_argument("--quick", action="store_true",
                        help="8 runs, 1 warm-up, 10 s budget, 1 run minimum")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.warmups, args.budget, args.min_runs = 8, 1, 10.0, 1

    settings = Settings()
    git = git_state()
    load_start = os.getloadavg()
    speed_start = host_speed()
    t_start = time.perf_counter()
    t0 = time.perf_counter()
    typical = typical_page(args.seed)
    typical_nold = typical_page(args.seed, json_ld=False)
    text_heavy = text_heavy_page(args.seed)
    link_heavy = link_heavy_page(args.seed)
    gen_s = time.perf_counter() - t0
    synthetic = {
        "typical-300k": make_page("https://siamsmile.example/", typical),
        "typical-300k-nold": make_page("https://siamsmile.example/", typical_nold),
        "text-heavy-300k": make_page("https://siamsmile.example/guide/prices/", text_heavy),
        "link-heavy-100k": make_page("https://siamsmile.example/products/", link_heavy),
    }
    timing_args = (args.runs, args.warmups, args.budget, args.min_runs)

    results: list[PageResult] = []
    for name, page in synthetic.items():
        results.append(bench_page(name, "synthetic", page, settings, *timing_args))
    by_name = {r.name: r for r in results}

    stages = breakdown(synthetic["typical-300k"], settings, *timing_args)
    link_cpu = cpu_per_read(synthetic["link-heavy-100k"], settings, 3)

    fixtures: list[PageResult] = []
    huge: PageResult | None = None
    for path in sorted(FIXTURES.glob("*/index.html")):
        name = path.parent.name
        if name == HUGE and args.skip_huge:
            continue
        markup, encoding = decode_html(path.read_bytes(), "text/html")
        page = make_page(f"https://www.{name}.example/", markup, encoding)
        res = bench_page(name, "fixture", page, settings, *timing_args)
        if name == HUGE:
            huge = res
        else:
            fixtures.append(res)

    profiles: dict[str, dict[str, Any]] = {}
    for name, page in synthetic.items():
        r = by_name[name]
        if args.profile or (r.timing is not None and r.timing["p50_ms"] >= TARGET_MS):
            calls = max(1, min(10, int(2_000 / max(r.timing["p50_ms"] if r.timing else 1, 1))))
            profiles[name] = profile(page, settings, calls)

    # -------------------------------------------------------------------- print
    print(f"{python_on()}, {os.cpu_count()} CPUs, "
          f"load avg {load_start[0]:.2f} at start; pages generated in {gen_s:.2f}s; "
          f"runs {args.runs}, warm-ups {args.warmups}")
    print(f"code: HEAD {git['head'] or '?'}, {len(git['src_uncommitted'])} uncommitted file(s) "
          f"under src/{': ' + ', '.join(git['src_uncommitted']) if git['src_uncommitted'] else ''}")
    t = by_name["typical-300k"]
    print(f"typical-300k: {t.bytes:,} bytes ({t.bytes / 1e3:.1f} KB, aim 280-320 KB"
          f"{'' if 280_000 <= t.bytes <= 320_000 else ' -- OUT OF RANGE'}), "
          f"{t.visible_words:,} visible words, extracted text {t.text_words:,} words; "
          f"signals: {', '.join(t.signals)}")
    print(f"text-heavy-300k: {by_name['text-heavy-300k'].bytes:,} bytes (trafilatura reads "
          f"the first {extract_mod.MAX_EXTRACT_CHARS:,} chars of text, "
          f"{extract_mod.MAX_EXTRACT_ELEMENTS:,} elements)"
          + "; typical-300k-nold = typical-300k without its JSON-LD (address looked for in "
          "the text)")
    print()
    print_table(results + fixtures + ([huge] if huge else []))
    ok = [f for f in fixtures if f.timing is not None]
    fx_p50 = [f.timing["p50_ms"] for f in ok if f.timing is not None]
    fx_bytes = sorted(f.bytes for f in ok)
    fixture_summary: dict[str, Any] = {}
    if fx_p50:
        slowest = max(ok, key=lambda f: f.timing["p50_ms"] if f.timing else 0.0)
        fixture_summary = {"pages": len(ok), "median_bytes": statistics.median(fx_bytes),
                           "max_bytes": fx_bytes[-1], "median_p50_ms": statistics.median(fx_p50),
                           "max_p50_ms": max(fx_p50), "slowest": slowest.name,
                           "errors": [f.name for f in fixtures if f.timing is None]}
        print(f"fixtures (excluding {HUGE}): {len(ok)} pages, size median "
              f"{fixture_summary['median_bytes'] / 1e3:.1f} KB / max {fx_bytes[-1] / 1e3:.1f} KB; "
              f"p50 median {fixture_summary['median_p50_ms']:.1f} ms, max "
              f"{fixture_summary['max_p50_ms']:.1f} ms ({slowest.name})")
    if huge is not None and huge.timing is not None:
        print(f"{HUGE}: {huge.bytes / 1e6:.2f} MB, p50 {huge.timing['p50_ms']:.0f} ms over "
              f"{huge.runs} run(s)")
    print()
    print("typical-300k breakdown (each stage called on its own, round-robin; p50 / p95 ms):")
    for label, s in stages.items():
        print(f"  {label:<40}{s['p50_ms']:8.1f}{s['p95_ms']:8.1f}  ({s['runs']:.0f} runs)")
    whole = t.timing["p50_ms"] if t.timing else float("nan")
    stage_p50 = {k.split(" (")[0]: s["p50_ms"] for k, s in stages.items()}
    parse_ms = stage_p50["lxml parse"]
    rest_ms = stage_p50["parse + extract"] - parse_ms
    print(f"  {'  extract alone (minus parse)':<40}{rest_ms:8.1f}")
    print(f"  {'  trafilatura alone (minus parse, prune)':<40}"
          f"{stage_p50['parse + extract'] - stage_p50['parse + prune']:8.1f}")
    parts = (parse_ms + stage_p50["DOM: text nodes"] + stage_p50["DOM: signals"] + rest_ms
             + stage_p50["assemble_site"])
    print(f"  {'sum of the stages':<40}{parts:8.1f}   (whole call "
          f"{stage_p50['site_from_page']:.1f} here, {whole:.1f} in the table)")
    for name, prof in profiles.items():
        print()
        print_profile(name, prof)
    print()

    passed = t.timing is not None and t.timing["p50_ms"] < TARGET_MS
    print(f"target: typical-300k ({t.bytes / 1e3:.0f} KB) p50 "
          f"{whole:.1f} ms < {TARGET_MS:.0f} ms -> {verdict(passed)}")
    report_only = {}
    for name in ("text-heavy-300k", "typical-300k-nold"):
        r = by_name[name]
        p50 = r.timing["p50_ms"] if r.timing else float("nan")
        report_only[name] = r.timing is not None and p50 < TARGET_MS
        print(f"report only (not in exit code): {name} ({r.bytes / 1e3:.0f} KB) p50 "
              f"{p50:.1f} ms < {TARGET_MS:.0f} ms -> {verdict(report_only[name])}")
    heavy = by_name["link-heavy-100k"]
    report_only["link-heavy-100k"] = not link_cpu["error"] and link_cpu[
        "max_s"] < PAGE_CPU_SECONDS
    print(f"report only (not in exit code): link-heavy-100k ({heavy.bytes / 1e6:.1f} MB, "
          f"{LINK_HEAVY_LINKS:,} links) CPU per read {link_cpu['p50_s'] * 1e3:.0f} ms "
          f"(process_time, max {link_cpu['max_s'] * 1e3:.0f} ms over {link_cpu['calls']} "
          f"call(s)) < {PAGE_CPU_SECONDS:g} s page budget -> "
          f"{verdict(report_only['link-heavy-100k'])}"
          + (f"; error: {link_cpu['error']}" if link_cpu["error"] else ""))
    total_s = time.perf_counter() - t_start
    load_end = os.getloadavg()
    speed_end = host_speed()
    print(f"total {total_s:.1f}s, load avg at end {load_end[0]:.2f}; host speed (fixed "
          f"Python loop, ~35 ms at full speed, ~65 ms throttled): {speed_start:.0f} ms at "
          f"start, {speed_end:.0f} ms at end")

    write_results(RESULTS, {
        **run_info(args),
        "git": git, "cpus": os.cpu_count(), "loadavg_start": load_start, "loadavg_end": load_end,
        "host_speed_ms": [speed_start, speed_end],
        "target_ms": TARGET_MS, "target_pass": passed, "report_only_pass": report_only,
        "total_s": total_s, "generate_s": gen_s,
        "pages": [asdict(r) for r in results],
        "typical_breakdown": stages,
        "typical_extract_alone_p50_ms": rest_ms,
        "link_heavy_cpu": link_cpu,
        "fixtures": [asdict(r) for r in fixtures],
        "fixture_summary": fixture_summary,
        "huge_page": asdict(huge) if huge else None,
        "profiles": profiles,
    })
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
