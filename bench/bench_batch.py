"""Benchmark: ``leadengine batch`` throughput against local fake servers (issue 6).

Run from the repository root::

    python -m bench.bench_batch [--urls 1000] [--concurrency 64] [--quick] [--profile auto]

One run:

* a :class:`~tests.fakes.site_server.SiteServer` serves one realistic small page
  (``tests/fixtures/sites/bangkok-dental-fb-only``) under ``--urls`` distinct
  addresses (``/lead/?id=N``; no robots.txt, so every site's robots check is a 404);
* a :class:`~tests.fakes.openai_server.FakeOpenAI` answers every chat completion with
  a valid evaluation after ``--delay`` seconds (300 ms);
* ``python -m leadengine batch`` runs in a subprocess (``--provider custom``, then
  ``--provider heuristic``) with ``--concurrency`` = ``--per-host``, ``--max-pages 0``,
  ``--method keyword``, ``--no-cache``; its wall time, CPU time and peak RSS (the
  child's own ``ru_maxrss`` from ``os.wait4``) are measured, and the database is checked
  to hold exactly one evaluation per URL and no errors;
* with ``--profile auto`` (default) a failed target triggers a profiled LLM run
  (``python -m cProfile`` in the child, ``--profile-urls`` URLs) whose CPU time is
  summarised by component;
* prints a table and writes the numbers to ``bench/results/batch.json``.

Target: LLM mode wall time <= 1.4 x the concurrency bound (urls x delay / concurrency:
1,000 x 0.3 s / 64 = 4.69 s, so <= 6.56 s) and peak RSS < 300 MB. The heuristic-only
throughput is reported alongside.
"""

from __future__ import annotations

import os
import pstats
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import (
    REPO,
    RESULTS_DIR,
    cpu_busy_s,
    make_parser,
    print_head,
    python_on,
    run_info,
    short_path,
    verdict,
    write_results,
)
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.site_server import SiteServer

RESULTS = RESULTS_DIR / "batch.json"
PAGE = REPO / "tests" / "fixtures" / "sites" / "bangkok-dental-fb-only" / "index.html"
TARGET_RATIO = 1.4
TARGET_RSS_MB = 300.0

ANSWER = {
    "business_name": "Smile Bright Dental",
    "business_type": "Dental Healthcare Provider",
    "primary_service": "Foundation Package",
    "fit_score": 88,
    "reasoning": "Bangkok-based clinic (target geography) with a Facebook-only presence "
                 "and manual booking through Messenger.",
    "outreach_angle": "Platform dependency risk - current growth relies on rented Facebook "
                      "reach; an owned booking page would keep the patients they attract.",
    "angle": "Platform Dependency Risk",
}

#: Where CPU time goes in a profile: (component, substrings of the code's file path).
COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("store (sqlalchemy/sqlite3)", ("sqlalchemy", "sqlite3", "leadengine/store")),
    ("html parse/extract (lxml, trafilatura, web/)", (
        "lxml", "trafilatura", "justext", "courlan", "htmldate", "leadengine/web/extract",
        "leadengine/web/signals", "leadengine/web/facts", "leadengine/web/injection",
        "leadengine/web/site", "leadengine/web/crawl", "leadengine/web/profile")),
    ("fetch (httpx/httpcore, web/fetch, robots)", ("httpx", "httpcore", "h11",
                                                   "leadengine/web/fetch",
                                                   "leadengine/web/robots",
                                                   "leadengine/web/guard", "urllib/robotparser")),
    ("openai SDK", ("openai",)),
    ("pydantic", ("pydantic", "typing_inspection")),
    ("retrieval / knowledge", ("leadengine/retrieval", "leadengine/knowledge",
                               "leadengine/rag", "numpy")),
    ("heuristic judge (keyword regexes)", ("leadengine/evaluators/heuristic",
                                           "leadengine/rules")),
    ("evaluators / prompt / ratelimit", ("leadengine/evaluators", "leadengine/prompt",
                                         "leadengine/evaluation", "leadengine/ratelimit")),
    ("batch loop", ("leadengine/batch",)),
    ("asyncio / selectors / ssl", ("asyncio", "selectors", "ssl.py", "anyio", "sniffio")),
    ("json", ("json/",)),
    ("import / startup", ("<frozen importlib", "importlib", "site-packages/click")),
)
#: Components too generic to blame: their time goes to the heaviest caller chain.
GENERIC = "generic"


# ------------------------------------------------------------------------------ child runs

@dataclass
class ChildRun:
    """One ``leadengine batch`` subprocess."""

    returncode: int
    wall_s: float
    user_s: float
    sys_s: float
    maxrss_kb: int
    stderr: str


def run_child(command: list[str], env: dict[str, str], log: Path,
              timeout: float) -> ChildRun:
    """Run ``command``; its own rusage comes from ``os.wait4`` (not the children total)."""
    with log.open("wb") as err:
        t0 = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL,
                                   stderr=err)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.005)
        wall = time.perf_counter() - t0
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    return ChildRun(returncode=process.returncode, wall_s=wall, user_s=usage.ru_utime,
                    sys_s=usage.ru_stime, maxrss_kb=usage.ru_maxrss,
                    stderr=log.read_text(encoding="utf-8", errors="replace"))


def batch_command(input_path: Path, db: Path, concurrency: int, provider: str,
                  base_url: str | None, profile_to: Path | None = None,
                  workers: int | None = None) -> list[str]:
    head = [sys.executable]
    if profile_to is not None:
        head += ["-m", "cProfile", "-o", str(profile_to)]
    command = [*head, "-m", "leadengine", "batch", str(input_path), "--db", str(db),
               "--concurrency", str(concurrency), "--per-host", str(concurrency),
               "--provider", provider, "--allow-private", "--max-pages", "0",
               "--no-cache", "--method", "keyword"]
    if base_url is not None:
        command += ["--base-url", base_url]
    if workers is not None:
        command += ["--workers", str(workers)]
    return command


def child_env(tmp: Path, host_delay: float) -> dict[str, str]:
    """The parent's environment without LEADENGINE_* / provider keys, plus the bench's.

    No ``leadengine.toml`` is read (``LEADENGINE_CONFIG`` points at a missing file), LLM
    rate limits are off, and ``host_delay`` is the per-host politeness delay: all the
    bench's URLs share one host, standing in for as many different sites.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LEADENGINE_") and k not in ("GROQ_API_KEY", "OPENAI_API_KEY")}
    env.update({"LEADENGINE_LLM_RETRIES": "0", "LEADENGINE_CACHE_DIR": str(tmp / "cache"),
                "LEADENGINE_API_KEY": "x", "LEADENGINE_CONFIG": str(tmp / "no-such.toml"),
                "LEADENGINE_LLM_RPM": "0", "LEADENGINE_LLM_TPM": "0",
                "LEADENGINE_HOST_DELAY": format(host_delay, "g")})
    return env


def db_counts(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as conn:
        return {
            "evaluations": conn.execute("select count(*) from evaluations").fetchone()[0],
            "distinct_urls": conn.execute(
                "select count(distinct url) from evaluations").fetchone()[0],
            "errors": conn.execute("select count(*) from errors").fetchone()[0],
        }


#: The batch's final summary line (progress lines start with "progress: ").
_SUMMARY = re.compile(r"^run \d+: (\d+) evaluated, (\d+) failed.*?; ([\d.]+)s,", re.M)


# ----------------------------------------------------------------------------- one mode

@dataclass
class ModeResult:
    mode: str
    urls: int
    concurrency: int
    wall_s: float
    batch_s: float | None
    bound_s: float | None
    ratio: float | None
    urls_per_s: float
    batch_urls_per_s: float | None
    peak_rss_mb: float
    cpu_s: float
    cpu_pct: float
    evaluations: int
    distinct_urls: int
    errors: int
    llm_requests: int
    site_requests: int
    returncode: int
    stderr_tail: str = ""
    checks: dict[str, bool] = field(default_factory=dict)
    #: ``--workers`` (None = the default, one per core).
    workers: int | None = None
    #: Busy CPU seconds of the whole machine during the run (/proc/stat): the batch, its
    #: shard processes and the bench's fake servers.
    machine_cpu_s: float | None = None


def run_mode(mode: str, urls: list[str], tmp: Path, concurrency: int, delay: float,
             sites: SiteServer, fake: FakeOpenAI, timeout: float,
             host_delay: float, workers: int | None = None) -> ModeResult:
    input_path = tmp / "urls.txt"
    db = tmp / f"{mode}.db"
    llm = mode.startswith("llm")
    command = batch_command(input_path, db, concurrency, "custom" if llm else "heuristic",
                            fake.base_url if llm else None, workers=workers)
    chat_before, site_before = len(fake.chat_requests), len(sites.requests)
    busy_before = cpu_busy_s()
    child = run_child(command, child_env(tmp, host_delay), tmp / f"{mode}.stderr", timeout)
    busy_after = cpu_busy_s()
    counts = db_counts(db) if db.exists() else {"evaluations": 0, "distinct_urls": 0,
                                                "errors": 0}
    summaries = _SUMMARY.findall(child.stderr)
    batch_s = float(summaries[-1][2]) if summaries else None
    bound = len(urls) * delay / concurrency if llm else None
    cpu = child.user_s + child.sys_s
    result = ModeResult(
        mode=mode, urls=len(urls), concurrency=concurrency, wall_s=child.wall_s,
        batch_s=batch_s, bound_s=bound, ratio=child.wall_s / bound if bound else None,
        urls_per_s=len(urls) / child.wall_s,
        batch_urls_per_s=len(urls) / batch_s if batch_s else None,
        peak_rss_mb=child.maxrss_kb / 1024, cpu_s=cpu, cpu_pct=100 * cpu / child.wall_s,
        evaluations=counts["evaluations"], distinct_urls=counts["distinct_urls"],
        errors=counts["errors"], llm_requests=len(fake.chat_requests) - chat_before,
        site_requests=len(sites.requests) - site_before, returncode=child.returncode,
        stderr_tail="\n".join(child.stderr.strip().splitlines()[-5:]), workers=workers,
        machine_cpu_s=None if busy_before is None or busy_after is None
        else busy_after - busy_before)
    result.checks["exit 0"] = child.returncode == 0
    result.checks[f"db holds {len(urls)} evaluations, one per URL"] = (
        counts["evaluations"] == counts["distinct_urls"] == len(urls))
    result.checks["db holds 0 errors"] = counts["errors"] == 0
    if llm:
        result.checks[f"one LLM request per URL ({len(urls)})"] = \
            result.llm_requests == len(urls)
    return result


# ------------------------------------------------------------------------------ profile

def component_of(filename: str) -> str:
    path = filename.replace("\\", "/")
    for name, needles in COMPONENTS:
        if any(n in path for n in needles):
            return name
    return GENERIC  # builtins, C methods, the rest of the standard library


def summarise_profile(prof: Path, top: int) -> dict[str, Any]:
    """Own (tottime) CPU seconds by component, and the top functions by own time.

    Builtins and generic standard-library code (re, typing, copy, socket...) are charged
    to the component of their heaviest caller, followed up to a few frames.
    """
    stats = pstats.Stats(str(prof))
    raw: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    memo: dict[tuple[str, int, str], str] = {}

    def resolve(func: tuple[str, int, str], depth: int = 0) -> str:
        if func in memo:
            return memo[func]
        comp = component_of(func[0])
        if comp == GENERIC and depth < 8 and func in raw:
            callers = raw[func][4]
            heaviest = max(callers.items(), key=lambda kv: kv[1][2], default=None)
            comp = resolve(heaviest[0], depth + 1) if heaviest is not None else GENERIC
        memo[func] = comp
        return comp

    by_component: dict[str, float] = {}
    functions = []
    total = 0.0
    for func, (_cc, ncalls, tottime, cumtime, _callers) in raw.items():
        filename, line, name = func
        comp = resolve(func)
        comp = "other (standard library, unattributed)" if comp == GENERIC else comp
        by_component[comp] = by_component.get(comp, 0.0) + tottime
        total += tottime
        functions.append({"function": f"{short_path(filename)}:{line}({name})", "ncalls": ncalls,
                          "tottime_s": tottime, "cumtime_s": cumtime, "component": comp})
    functions.sort(key=lambda f: -f["tottime_s"])
    cum = sorted(functions, key=lambda f: -f["cumtime_s"])
    return {"total_s": total,
            "by_component": dict(sorted(by_component.items(), key=lambda kv: -kv[1])),
            "top_tottime": functions[:top],
            "top_cumtime": [f for f in cum if "leadengine" in f["function"]][:top]}


def run_profile(urls: list[str], tmp: Path, concurrency: int, fake: FakeOpenAI,
                timeout: float, top: int, host_delay: float) -> dict[str, Any]:
    input_path = tmp / "profile_urls.txt"
    input_path.write_text("\n".join(urls) + "\n", encoding="utf-8")
    prof = tmp / "batch.prof"
    command = batch_command(input_path, tmp / "profile.db", concurrency, "custom",
                            fake.base_url, profile_to=prof)
    child = run_child(command, child_env(tmp, host_delay), tmp / "profile.stderr", timeout)
    summary = summarise_profile(prof, top) if prof.exists() else {}
    summary.update({"urls": len(urls), "wall_s": child.wall_s,
                    "cpu_s": child.user_s + child.sys_s, "returncode": child.returncode})
    return summary


# ------------------------------------------------------------------------------ report

def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(results: Sequence[ModeResult]) -> None:
    head = (f"{'mode':<10}{'URLs':>6}{'conc':>6}{'wall s':>8}{'batch s':>9}{'bound s':>9}"
            f"{'ratio':>7}{'URLs/s':>8}{'peak RSS MB':>13}{'CPU s':>7}{'CPU%':>6}"
            f"{'CPU ms/URL':>12}{'evals':>7}{'errs':>6}")
    print_head(head)
    for r in results:
        print(f"{r.mode:<10}{r.urls:>6}{r.concurrency:>6}{r.wall_s:>8.2f}"
              f"{_fmt(r.batch_s, '.1f'):>9}{_fmt(r.bound_s, '.2f'):>9}"
              f"{_fmt(r.ratio, '.2f'):>7}{r.urls_per_s:>8.1f}{r.peak_rss_mb:>13.1f}"
              f"{r.cpu_s:>7.2f}{r.cpu_pct:>6.0f}{1e3 * r.cpu_s / r.urls:>12.1f}"
              f"{r.evaluations:>7}{r.errors:>6}")
    print("(wall = whole `leadengine batch` process incl. startup and KB load; batch = "
          "run_batch's own elapsed from its summary line; bound = URLs x delay / concurrency; "
          "ratio = wall / bound; URLs/s over wall; CPU = child user+sys, ms/URL incl. "
          "startup)")


def print_profile(prof: dict[str, Any]) -> None:
    if "by_component" not in prof:
        print(f"profile: no profile written (exit {prof.get('returncode')})")
        return
    print(f"profile ({prof['urls']} URLs under cProfile, wall {prof['wall_s']:.2f}s, "
          f"CPU {prof['cpu_s']:.2f}s; own time by component):")
    total = prof["total_s"] or 1.0
    for comp, secs in prof["by_component"].items():
        if secs >= 0.005 * total:
            print(f"  {comp:<44}{secs:>7.2f}s {100 * secs / total:>5.1f}%")
    print("  top functions by own time:")
    for f in prof["top_tottime"]:
        print(f"    {f['tottime_s']:>7.3f}s {f['ncalls']:>8}  {f['function']}")
    print("  leadengine functions by cumulative time:")
    for f in prof["top_cumtime"]:
        print(f"    {f['cumtime_s']:>7.3f}s {f['ncalls']:>8}  {f['function']}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--urls", type=int, default=1000, help="distinct URLs in the batch")
    parser.add_argument("--concurrency", type=int, default=64,
                        help="--concurrency and --per-host of the batch")
    parser.add_argument("--delay", type=float, default=0.3,
                        help="seconds the fake LLM takes per answer")
    parser.add_argument("--host-delay", type=float, default=0.0,
                        help="LEADENGINE_HOST_DELAY of the batch (default 0: the URLs share "
                             "one host but stand in for different sites; the engine's "
                             "default 0.5 s caps one host at 2 sites/s)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds before a batch subprocess is killed")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                        help="profile an LLM run with cProfile (auto: only when the target "
                             "fails)")
    parser.add_argument("--profile-urls", type=int, default=300,
                        help="URLs in the profiled run")
    parser.add_argument("--top", type=int, default=15, help="functions listed in the profile")
    parser.add_argument("--quick", action="store_true", help="200 URLs, concurrency 32")
    parser.add_argument("--page", type=Path, default=PAGE,
                        help="the page every URL serves (default: a small fixture homepage; "
                             "bench/pages.py's typical page is a heavier, realistic one: "
                             "--page typical)")
    parser.add_argument("--scaling", action="store_true",
                        help="also run the heuristic batch with --workers 1 and 2 and report "
                             "the URLs/s ratio (target >= 1.7)")
    args = parser.parse_args(argv)
    if args.quick:
        args.urls, args.concurrency = 200, 32
        args.profile_urls = min(args.profile_urls, 200)

    t_start = time.perf_counter()
    if str(args.page) == "typical":
        from bench.pages import typical_page

        page = typical_page(7)
    else:
        page = args.page.read_text(encoding="utf-8")
    results: list[ModeResult] = []
    profile: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "site"
        root.mkdir()
        (root / "index.html").write_text(page, encoding="utf-8")
        with SiteServer(root) as sites, FakeOpenAI() as fake:
            sites.route("/lead/", body=page)
            fake.default = Reply.json(ANSWER, delay=args.delay)
            urls = [sites.url(f"lead/?id={i}") for i in range(args.urls)]
            (tmp / "urls.txt").write_text("\n".join(urls) + "\n", encoding="utf-8")
            self_before = resource.getrusage(resource.RUSAGE_SELF)
            for mode in ("llm", "heuristic"):
                results.append(run_mode(mode, urls, tmp, args.concurrency, args.delay, sites,
                                        fake, args.timeout, args.host_delay))
            if args.scaling:
                for workers in (0, 1, 2):
                    results.append(run_mode(f"heur-w{workers}", urls, tmp, args.concurrency,
                                            args.delay, sites, fake, args.timeout,
                                            args.host_delay, workers=workers))
            self_after = resource.getrusage(resource.RUSAGE_SELF)
            children_rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            server_cpu = ((self_after.ru_utime - self_before.ru_utime)
                          + (self_after.ru_stime - self_before.ru_stime))

            llm = results[0]
            wall_ok = llm.ratio is not None and llm.ratio <= TARGET_RATIO
            rss_ok = llm.peak_rss_mb < TARGET_RSS_MB
            checks_ok = all(all(r.checks.values()) for r in results)
            passed = wall_ok and rss_ok and checks_ok
            if args.profile == "always" or (args.profile == "auto" and not passed):
                print(f"profiling an LLM run of {args.profile_urls} URLs ...", flush=True)
                profile = run_profile(
                    [sites.url(f"lead/?id=p{i}") for i in range(args.profile_urls)], tmp,
                    args.concurrency, fake, args.timeout, args.top, args.host_delay)

    print(f"{python_on()}, {os.cpu_count()} CPUs; page {len(page.encode()):,} bytes; "
          f"fake LLM delay {args.delay * 1e3:.0f} ms; host delay {args.host_delay:g} s; "
          f"servers (this process) used {server_cpu:.2f}s CPU")
    print_table(results)
    for r in results:
        for name, ok in r.checks.items():
            if not ok:
                print(f"CHECK FAILED [{r.mode}]: {name} (evaluations {r.evaluations}, "
                      f"distinct {r.distinct_urls}, errors {r.errors}, LLM requests "
                      f"{r.llm_requests}, exit {r.returncode})")
                print(f"  stderr: {r.stderr_tail}")
    heur = results[1]
    llm_ = results[0]
    print(f"diagnosis: the LLM batch process ran at {llm_.cpu_pct:.0f}% of one CPU "
          f"({1e3 * llm_.cpu_s / llm_.urls:.0f} ms CPU per URL, startup and teardown "
          f"{llm_.wall_s - (llm_.batch_s or 0):.1f}s); LLM/heuristic throughput "
          f"{llm_.urls_per_s / heur.urls_per_s:.2f} (1.0 = the {args.delay * 1e3:.0f} ms LLM "
          f"latency fully hidden); the bound needs <= "
          f"{1e3 * TARGET_RATIO * (llm_.bound_s or 0) / llm_.urls:.1f} ms wall per URL")
    print(f"heuristic-only: {heur.urls} URLs in {heur.wall_s:.2f}s = {heur.urls_per_s:.0f} URLs/s"
          f" ({_fmt(heur.batch_urls_per_s, '.0f')} URLs/s inside run_batch), "
          f"peak RSS {heur.peak_rss_mb:.0f} MB")
    print(f"target: LLM wall <= {TARGET_RATIO} x bound ({llm.wall_s:.2f}s <= "
          f"{TARGET_RATIO * (llm.bound_s or 0):.2f}s, ratio {_fmt(llm.ratio, '.2f')}) -> "
          f"{verdict(wall_ok)}")
    print(f"target: LLM peak RSS < {TARGET_RSS_MB:.0f} MB ({llm.peak_rss_mb:.1f} MB; "
          f"RUSAGE_CHILDREN max {children_rss_mb:.1f} MB) -> {verdict(rss_ok)}")
    print(f"checks: every URL stored once, no errors, one LLM request per URL -> "
          f"{verdict(checks_ok)}")
    scaling = {r.workers: r for r in results if r.mode.startswith("heur-w")}
    scaling_ratio = None
    if 1 in scaling and 2 in scaling:
        scaling_ratio = scaling[2].urls_per_s / scaling[1].urls_per_s
        for r in scaling.values():
            print(f"workers {r.workers}: {r.urls_per_s:.1f} URLs/s, machine CPU "
                  f"{_fmt(r.machine_cpu_s, '.2f')}s = "
                  f"{_fmt(1e3 * r.machine_cpu_s / r.urls if r.machine_cpu_s else None, '.1f')}"
                  f" ms/URL (batch, shard processes and this bench's fake servers)")
        print(f"target: 2 workers >= 1.7 x the URLs/s of 1 worker ({scaling_ratio:.2f}) -> "
              f"{verdict(scaling_ratio >= 1.7)} (fake servers in this process, on the same "
              f"{os.cpu_count()} CPUs)")
    if profile:
        print_profile(profile)
    total_s = time.perf_counter() - t_start
    print(f"total {total_s:.1f}s")

    write_results(RESULTS, {
        **run_info(args), "cpus": os.cpu_count(), "target_ratio": TARGET_RATIO,
        "target_rss_mb": TARGET_RSS_MB,
        "target_pass": passed, "wall_pass": wall_ok, "rss_pass": rss_ok,
        "checks_pass": checks_ok, "server_cpu_s": server_cpu, "total_s": total_s,
        "modes": [asdict(r) for r in results], "profile": profile,
        "workers_scaling_ratio": scaling_ratio,
    })
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
