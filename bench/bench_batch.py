"""Benchmark: ``leadengine batch`` throughput on every core (issue 16).

Run from the repository root::

    python -m bench.bench_batch [--urls 1000] [--concurrency 64] [--scaling] [--quick]
                                [--repeats 3] [--servers process|threads] [--profile auto]

One page (``--page``: ``tests/fixtures/sites/bangkok-dental-fb-only``, 3.5 KB; ``typical``
for ``bench/pages.py``'s 300 KB page) is served under ``--urls`` distinct addresses
(``/lead/?id=N``; no robots.txt) and ``python -m leadengine batch`` runs in a subprocess
with ``--concurrency`` = ``--per-host``, ``--max-pages 0``, ``--method keyword``,
``--no-cache`` and the default ``--workers`` (one shard process per core):

* ``llm``: ``--provider custom`` against a fake OpenAI endpoint answering every chat
  completion after ``--delay`` seconds (300 ms);
* ``heuristic``: the offline evaluator;
* ``llm-warm`` (a reference, left out with ``--no-warm``): ``llm``'s batch through the
  Python API in a process that has just run a first batch (:mod:`bench.warm_batch`):
  its wall and CPU are the batch's own, without Python's start-up;
* with ``--scaling``: ``heuristic`` on ``--scaling-urls`` (2,000) other URLs with
  ``--workers 1`` and ``--workers 2``; then, as ``apart``, two independent
  ``--workers 1`` batches at once on half of those URLs each (concurrency halved, as a
  shard's): what two processes of this workload do here, sharing nothing.

Each is run ``--repeats`` times (3; 1 with ``--quick``), interleaved, on fresh URLs each
time, and each target reads the middle run (the 1- and 2-worker runs as pairs: the pair
whose ratio is the median), every run's figure printed beside it: this 2-core machine's
speed swings by a third from minute to minute, and a single run's ratio with it.

The servers (``--servers process``, the default) are :mod:`bench.fast_server`, one
asyncio process with canned answers that uses about 30 us of CPU a request, so the
batch has the cores to itself ("the fake servers idle"); ``--servers threads`` uses the
test fakes in this process instead (thread per connection, a tenth of the machine).

Measured for each run: wall time; the CPU of the batch's whole process tree (from
``os.wait4``, this process a child subreaper: see :func:`run_child`);
the machine's busy CPU (``/proc/stat``: the batch, the servers, the kernel); the
largest peak RSS of any one process; and the database, which must hold exactly one
evaluation per URL and no errors (and one LLM request per URL).

Targets (exit code):

* LLM mode wall <= 1.3 x max(LLM bound, CPU bound): the LLM bound is
  ``urls x delay / concurrency`` (1,000 x 0.3 s / 64 = 4.69 s), the CPU bound the batch
  tree's CPU / cores: the 300 ms wait is hidden and the CPU spread over every core;
* with ``--scaling``: 2 workers >= 1.7 x the URLs/s of 1 worker, while the batch runs
  (the seconds of its summary line, the shards' start included; the whole command's
  ratio, Python's start-up and imports included, is reported beside it, and so are
  two references: this machine's ceiling, measured just after (how much more work two CPU-bound
  Python processes do than one in the same time, 2.0 on two free cores), and this
  workload's reference (the ``apart`` pair's URLs/s over the 1-worker run's: two
  page-reading processes slow each other down more than two spinning loops do; not a
  strict bound, since forked shards share the data their parent loaded);
* peak RSS <= 300 MB in every process.

``--profile auto`` (default) profiles a single-process LLM run of ``--profile-urls``
URLs with cProfile when a target fails and summarises its CPU by component. Numbers go
to ``bench/results/batch.json``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pstats
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import (
    REPO,
    RESULTS_DIR,
    compile_package,
    cpu_busy_s,
    descendants,
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
TARGET_RATIO = 1.3
TARGET_SCALING = 1.7
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
        "lxml", "trafilatura", "justext", "courlan", "htmldate", "leadengine/website/extract",
        "leadengine/website/signals", "leadengine/website/facts", "leadengine/website/injection",
        "leadengine/website/site", "leadengine/website/crawl", "leadengine/website/profile")),
    ("fetch (httpx/httpcore, website/fetch, robots)", ("httpx", "httpcore", "h11",
                                                       "leadengine/website/fetch",
                                                       "leadengine/website/robots",
                                                       "leadengine/website/guard",
                                                       "urllib/robotparser")),
    ("openai SDK", ("openai",)),
    ("pydantic", ("pydantic", "typing_inspection")),
    ("retrieval / knowledge", ("leadengine/retrieval", "leadengine/knowledge",
                               "leadengine/knowledge/rag", "numpy")),
    ("heuristic judge (keyword regexes)", ("leadengine/judgement/evaluators/heuristic",
                                           "leadengine/knowledge/rules")),
    ("evaluators / prompt / ratelimit", ("leadengine/judgement/evaluators",
                                         "leadengine/judgement/prompt",
                                         "leadengine/judgement/evaluation",
                                         "leadengine/judgement/ratelimit")),
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
    #: CPU seconds of the command and of every process it started (its shards, a fork
    #: server and its shards): counted by the kernel as each was waited for (see
    #: :func:`run_child`), not sampled.
    user_s: float
    sys_s: float
    #: The largest peak RSS of one process of the tree (MB).
    peak_rss_any_mb: float
    stderr: str
    #: Processes of the tree seen while it ran (sampled every quarter second).
    processes: int = 1
    #: What it printed, when asked for (``run_child(..., stdout=True)``).
    stdout: str = ""

    @property
    def tree_cpu_s(self) -> float:
        """CPU seconds of the batch and every process it started."""
        return self.user_s + self.sys_s


def run_child(command: list[str], env: dict[str, str], log: Path,
              timeout: float, stdout: bool = False) -> ChildRun:
    """Run ``command`` and count the CPU of its whole process tree exactly: this process
    is a child subreaper (Linux), so a descendant that outlives its parent (a fork
    server, whose shards it waited for) becomes this process's child and is waited for
    here too, and ``os.wait4`` gives each one's CPU with that of the children it waited
    for. (Sampling ``/proc`` every 20 ms, as this did before, cost about 3 ms of CPU a
    sample, an eighth of a core taken from the batch it measured.) The tree is sampled
    every quarter second only to count its processes."""
    become_subreaper()
    seen: set[int] = set()
    out_path = log.with_suffix(".stdout")
    with log.open("wb") as err, (out_path.open("wb") if stdout
                                 else contextlib.nullcontext(subprocess.DEVNULL)) as out:
        t0 = time.perf_counter()
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=out, stderr=err)
        deadline = t0 + timeout
        next_sample = t0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                process.kill()
                pid, status, usage = os.wait4(process.pid, 0)
                break
            if time.perf_counter() >= next_sample:
                seen.update(descendants(process.pid))
                next_sample = time.perf_counter() + 0.25
            time.sleep(0.005)
        wall = time.perf_counter() - t0
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    user, system, peak = usage.ru_utime, usage.ru_stime, usage.ru_maxrss
    for orphan in wait_for_orphans(seen):
        user, system = user + orphan.ru_utime, system + orphan.ru_stime
        peak = max(peak, orphan.ru_maxrss)
    return ChildRun(returncode=process.returncode, wall_s=wall, user_s=user, sys_s=system,
                    peak_rss_any_mb=peak / 1024,
                    stderr=log.read_text(encoding="utf-8", errors="replace"),
                    processes=1 + len(seen),
                    stdout=out_path.read_text(encoding="utf-8", errors="replace")
                    if stdout else "")


def become_subreaper() -> None:
    """Make this process the reaper of its orphaned descendants (Linux ``prctl``)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_child_subreaper = 36
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_child_subreaper, 1, 0, 0, 0)


def wait_for_orphans(seen: set[int], timeout: float = 10.0) -> list[Any]:
    """The rusage of each process of ``seen`` that outlived the batch and became this
    process's child, once it has ended (killed after ``timeout`` seconds)."""
    usages = []
    deadline = time.perf_counter() + timeout
    waiting = set(seen)
    while waiting:
        for pid in list(waiting):
            try:
                done, _, usage = os.wait4(pid, os.WNOHANG)
            except ChildProcessError:  # not ours: it ended before the batch did
                waiting.discard(pid)
                continue
            if done:
                usages.append(usage)
                waiting.discard(pid)
        if waiting and time.perf_counter() > deadline:
            for pid in waiting:
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
            deadline = time.perf_counter() + timeout
        time.sleep(0.005)
    return usages


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
    workers: int | None
    wall_s: float
    batch_s: float | None
    #: urls x delay / concurrency (LLM mode).
    llm_bound_s: float | None
    #: CPU seconds of the batch's process tree and of the whole machine (the servers and
    #: the kernel included) during the run.
    tree_cpu_s: float
    machine_cpu_s: float | None
    server_cpu_s: float | None
    processes: int
    peak_rss_mb: float
    evaluations: int
    distinct_urls: int
    errors: int
    llm_requests: int
    returncode: int
    stderr_tail: str = ""
    checks: dict[str, bool] = field(default_factory=dict)

    @property
    def cpu_bound_s(self) -> float:
        """The batch tree's CPU spread over every core."""
        return self.tree_cpu_s / (os.cpu_count() or 1)

    @property
    def bound_s(self) -> float:
        return max(self.llm_bound_s or 0.0, self.cpu_bound_s)

    @property
    def ratio(self) -> float:
        return self.wall_s / self.bound_s

    @property
    def urls_per_s(self) -> float:
        return self.urls / self.wall_s


class Servers:
    """The site and LLM fakes of a run: :mod:`bench.fast_server` in its own process, or
    the test fakes in this one (``threads``)."""

    def __init__(self, kind: str, page: str, delay: float, tmp: Path) -> None:
        self.kind, self.page, self.delay, self.tmp = kind, page, delay, tmp
        self.stack = contextlib.ExitStack()

    def __enter__(self) -> Servers:
        root = self.tmp / "site"
        root.mkdir(exist_ok=True)
        (root / "index.html").write_text(self.page, encoding="utf-8")
        if self.kind == "process":
            from bench.fast_server import FastServer

            answer = self.tmp / "answer.json"
            answer.write_text(json.dumps(ANSWER), encoding="utf-8")
            self.fast = self.stack.enter_context(FastServer(root / "index.html", answer,
                                                            self.delay))
            self.site_base = self.llm_base = self.fast.base_url
        else:
            self.sites = self.stack.enter_context(SiteServer(root))
            self.sites.route("/lead/", body=self.page)
            self.fake = self.stack.enter_context(FakeOpenAI())
            self.fake.default = Reply.json(ANSWER, delay=self.delay)
            self.site_base, self.llm_base = self.sites.base_url, self.fake.base_url.rstrip(
                "/").removesuffix("/v1")
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()

    def url(self, path: str) -> str:
        return f"{self.site_base}/{path}"

    @property
    def llm_url(self) -> str:
        return f"{self.llm_base}/v1"

    def chats(self) -> int:
        return self.fast.stats()["chats"] if self.kind == "process" \
            else len(self.fake.chat_requests)

    def cpu_s(self) -> float | None:
        """CPU the servers have used (None: they run in this process, see the total)."""
        return self.fast.cpu_s if self.kind == "process" else None


def run_mode(mode: str, urls: list[str], tmp: Path, concurrency: int, delay: float,
             servers: Servers, timeout: float, host_delay: float,
             workers: int | None = None) -> ModeResult:
    run = next(_RUNS)  # a new input, database and log each run (two may run at once)
    input_path = tmp / f"urls-{len(urls)}-{run}.txt"
    input_path.write_text("\n".join(urls) + "\n", encoding="utf-8")
    db = tmp / f"{mode}-workers-{workers}-{run}.db"
    llm = mode == "llm"
    command = batch_command(input_path, db, concurrency, "custom" if llm else "heuristic",
                            servers.llm_url if llm else None, workers=workers)
    chats_before, server_before = servers.chats(), servers.cpu_s()
    busy_before = cpu_busy_s()
    child = run_child(command, child_env(tmp, host_delay), tmp / f"{mode}-{run}.stderr",
                      timeout)
    busy_after, server_after = cpu_busy_s(), servers.cpu_s()
    counts = stored_counts(db)
    summaries = _SUMMARY.findall(child.stderr)
    result = ModeResult(
        mode=mode, urls=len(urls), concurrency=concurrency, workers=workers,
        wall_s=child.wall_s, batch_s=float(summaries[-1][2]) if summaries else None,
        llm_bound_s=len(urls) * delay / concurrency if llm else None,
        tree_cpu_s=child.tree_cpu_s,
        machine_cpu_s=None if busy_before is None or busy_after is None
        else busy_after - busy_before,
        server_cpu_s=None if server_before is None or server_after is None
        else server_after - server_before,
        processes=child.processes, peak_rss_mb=child.peak_rss_any_mb,
        evaluations=counts["evaluations"], distinct_urls=counts["distinct_urls"],
        errors=counts["errors"], llm_requests=servers.chats() - chats_before,
        returncode=child.returncode,
        stderr_tail="\n".join(child.stderr.strip().splitlines()[-5:]))
    result.checks["exit 0"] = child.returncode == 0
    result.checks[f"the run evaluated {len(urls)}, none failed"] = bool(summaries) and (
        summaries[-1][:2] == (str(len(urls)), "0"))
    check_stored(result, llm)
    return result


def stored_counts(db: Path) -> dict[str, int]:
    """:func:`db_counts` of a run's database (zeros if the run left none)."""
    return db_counts(db) if db.exists() else {"evaluations": 0, "distinct_urls": 0,
                                              "errors": 0}


def check_stored(result: ModeResult, llm: bool) -> None:
    """The checks every run's database must pass: one evaluation per URL, no errors
    (and in LLM mode one LLM request per URL)."""
    urls = result.urls
    result.checks[f"db holds {urls} evaluations, one per URL"] = (
        result.evaluations == result.distinct_urls == urls)
    result.checks["db holds 0 errors"] = result.errors == 0
    if llm:
        result.checks[f"one LLM request per URL ({urls})"] = result.llm_requests == urls


#: Numbers the runs' databases.
_RUNS = itertools.count()


def run_warm(urls: list[str], tmp: Path, concurrency: int, delay: float,
             servers: Servers, timeout: float, host_delay: float) -> ModeResult:
    """LLM mode in a warm process (:mod:`bench.warm_batch`): the same batch through the
    Python API, timed after a first batch of ``concurrency`` other URLs in the same
    process, so the wall and CPU are the batch's own, without Python's start-up."""
    run = next(_RUNS)
    warmup, input_path = tmp / f"warmup-{run}.txt", tmp / f"urls-warm-{run}.txt"
    warmup.write_text("\n".join(f"{url}&warmup" for url in urls[:concurrency]) + "\n",
                      encoding="utf-8")
    input_path.write_text("\n".join(urls) + "\n", encoding="utf-8")
    db = tmp / f"warm-{run}.db"
    command = [sys.executable, "-m", "bench.warm_batch", str(warmup), str(input_path),
               "--db", str(db), "--base-url", servers.llm_url,
               "--concurrency", str(concurrency)]
    chats_before = servers.chats()
    child = run_child(command, child_env(tmp, host_delay), tmp / f"warm-{run}.stderr",
                      timeout, stdout=True)
    chats = servers.chats() - chats_before - concurrency  # the warm-up's are not counted
    try:
        timed = json.loads(child.stdout)
    except ValueError:
        timed = {}
    counts = stored_counts(db)
    result = ModeResult(
        mode="llm-warm", urls=len(urls), concurrency=concurrency, workers=None,
        wall_s=float(timed.get("wall_s", child.wall_s)), batch_s=None,
        llm_bound_s=len(urls) * delay / concurrency,
        tree_cpu_s=float(timed.get("cpu_s", child.tree_cpu_s)), machine_cpu_s=None,
        server_cpu_s=None, processes=child.processes, peak_rss_mb=child.peak_rss_any_mb,
        evaluations=counts["evaluations"], distinct_urls=counts["distinct_urls"],
        errors=counts["errors"], llm_requests=chats, returncode=child.returncode,
        stderr_tail="\n".join(child.stderr.strip().splitlines()[-5:]))
    result.checks["exit 0"] = child.returncode == 0 and bool(timed)
    check_stored(result, llm=True)
    return result


def run_apart(urls: list[str], tmp: Path, concurrency: int, delay: float,
              servers: Servers, timeout: float, host_delay: float
              ) -> tuple[ModeResult, ModeResult]:
    """Two independent ``--workers 1`` batches at once, on half of ``urls`` each: what
    two processes of this very workload do on this machine now, sharing nothing (no
    parent, no handout, no pipes). Their URLs/s over a single batch's is what a batch's
    two shards can be expected to reach here (the spinning loop of :func:`machine_ceiling`
    touches a few kilobytes; page reading walks megabytes, and two of them at once slow
    each other down on a shared memory bus and cache). Not a strict bound: forked shards
    share the data their parent loaded, and independent batches each load their own."""
    from concurrent.futures import ThreadPoolExecutor

    halves = urls[: len(urls) // 2], urls[len(urls) // 2:]
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(lambda half: run_mode(
            "heuristic", half, tmp, concurrency // 2, delay, servers, timeout, host_delay,
            1), halves)
    return first, second


def apart_of(one: ModeResult, apart: tuple[ModeResult, ModeResult]) -> float:
    """URLs/s of two independent batches at once (see :func:`run_apart`) over the
    1-worker run's, while each ran: this workload's two-process reference."""
    both = max(run.batch_s or run.wall_s for run in apart)
    return (sum(run.urls for run in apart) / both) / (one.urls / (one.batch_s or one.wall_s))


def scaling_of(pair: tuple[ModeResult, ModeResult]) -> float:
    """URLs/s of the 2-worker run of ``pair`` over the 1-worker run's, while each ran."""
    one, two = pair
    return (one.batch_s or one.wall_s) / (two.batch_s or two.wall_s)


def middle(runs: Sequence[Any], key: Callable[[Any], float]) -> Any:
    """The run whose ``key`` is the median of ``runs`` (the lower middle of an even
    number)."""
    return sorted(runs, key=key)[(len(runs) - 1) // 2]


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


def run_profile(urls: list[str], tmp: Path, concurrency: int, llm_url: str,
                timeout: float, top: int, host_delay: float) -> dict[str, Any]:
    """One LLM run of ``urls`` under cProfile, in one process (``--workers 0``)."""
    input_path = tmp / "profile_urls.txt"
    input_path.write_text("\n".join(urls) + "\n", encoding="utf-8")
    prof = tmp / "batch.prof"
    command = batch_command(input_path, tmp / "profile.db", concurrency, "custom",
                            llm_url, profile_to=prof, workers=0)
    child = run_child(command, child_env(tmp, host_delay), tmp / "profile.stderr", timeout)
    summary = summarise_profile(prof, top) if prof.exists() else {}
    summary.update({"urls": len(urls), "wall_s": child.wall_s,
                    "cpu_s": child.user_s + child.sys_s, "returncode": child.returncode})
    return summary


#: A CPU-bound piece of pure Python (regex scans and dict building, as page reading does).
_SPIN = ("import re, time\n"
         "pattern = re.compile(r'(\\w+)@(\\w+)\\.com'); text = 'a b c x@y.com ' * 200\n"
         "start = time.perf_counter()\n"
         "for i in range(4000):\n"
         "    pattern.findall(text); {j: j * 2 for j in range(200)}\n"
         "print(time.perf_counter() - start)\n")


def machine_ceiling() -> float:
    """How much more work two processes do than one in the same time on this machine,
    now: the same CPU-bound piece run alone, then twice at once (2.0 on two free cores;
    less when the cores are shared with another machine or are hyperthreads of one)."""
    def spin(count: int) -> float:
        children = [subprocess.Popen([sys.executable, "-c", _SPIN], stdout=subprocess.PIPE,
                                     text=True) for _ in range(count)]
        return max(float(child.communicate()[0]) for child in children)

    alone = min(spin(1) for _ in range(2))
    together = min(spin(2) for _ in range(2))
    return 2 * alone / together


# ------------------------------------------------------------------------------ report

def _fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(results: Sequence[ModeResult]) -> None:
    head = (f"{'mode':<10}{'workers':>8}{'URLs':>6}{'wall s':>8}{'URLs/s':>8}{'LLM bnd':>8}"
            f"{'CPU s':>7}{'CPU bnd':>8}{'ratio':>7}{'machine':>8}{'servers':>8}"
            f"{'procs':>6}{'RSS MB':>7}{'evals':>7}{'errs':>5}")
    print_head(head)
    for r in results:
        print(f"{r.mode:<10}{_fmt(r.workers, 'd') if r.workers is not None else 'auto':>8}"
              f"{r.urls:>6}{r.wall_s:>8.2f}{r.urls_per_s:>8.1f}{_fmt(r.llm_bound_s, '.2f'):>8}"
              f"{r.tree_cpu_s:>7.2f}{r.cpu_bound_s:>8.2f}{r.ratio:>7.2f}"
              f"{_fmt(r.machine_cpu_s, '.2f'):>8}{_fmt(r.server_cpu_s, '.2f'):>8}"
              f"{r.processes:>6}{r.peak_rss_mb:>7.0f}{r.evaluations:>7}{r.errors:>5}")
    print("(wall: the whole `leadengine batch` command, start-up included; LLM bnd = URLs x "
          "delay / concurrency; CPU s: the batch's process tree; CPU bnd = CPU s / "
          f"{os.cpu_count()} cores; ratio = wall / max(LLM bnd, CPU bnd); machine: busy CPU "
          "of the machine (servers, kernel and steal included); servers: the fake servers' "
          "CPU; RSS: the largest peak of one process)")


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
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds before a batch subprocess is killed")
    parser.add_argument("--servers", choices=("process", "threads"), default="process",
                        help="the fake servers: a near-idle process, or the test fakes in "
                             "this process")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto",
                        help="profile an LLM run when a target fails (auto), always or never")
    parser.add_argument("--profile-urls", type=int, default=300,
                        help="URLs in the profiled run")
    parser.add_argument("--top", type=int, default=15, help="functions listed in the profile")
    parser.add_argument("--quick", action="store_true", help="300 URLs, concurrency 32")
    parser.add_argument("--page", type=Path, default=PAGE,
                        help="the page every URL serves (or 'typical': bench/pages.py's "
                             "300 KB page)")
    parser.add_argument("--scaling", action="store_true",
                        help="also heuristic runs with --workers 1 and 2 (URLs/s ratio)")
    parser.add_argument("--scaling-urls", type=int, default=2000,
                        help="distinct URLs of the --scaling runs")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each mode (and --scaling pairs), interleaved; the "
                             "targets read the middle one")
    parser.add_argument("--no-warm", dest="warm", action="store_false",
                        help="leave out the LLM-mode runs in a warm process (the reference "
                             "without Python's start-up: bench/warm_batch.py)")
    args = parser.parse_args(argv)
    compile_package()
    if args.quick:
        args.urls, args.concurrency, args.scaling_urls = 300, 32, 300
        args.profile_urls = min(args.profile_urls, 200)
        args.repeats = 1

    t_start = time.perf_counter()
    if str(args.page) == "typical":
        from bench.pages import typical_page

        page = typical_page(7)
    else:
        page = args.page.read_text(encoding="utf-8")
    results: list[ModeResult] = []
    profile: dict[str, Any] = {}
    ceiling: float | None = None
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp_name:
        tmp = Path(tmp_name)
        self_before = resource.getrusage(resource.RUSAGE_SELF)
        with Servers(args.servers, page, args.delay, tmp) as servers:
            # Each mode --repeats times, interleaved (this machine's speed swings by a
            # third from minute to minute, and a slow spell weighs on every mode alike),
            # fresh URLs each time; the targets read the middle run.
            pairs: list[tuple[ModeResult, ModeResult]] = []
            #: Each pair's workload reference (two independent batches at once: run_apart).
            ceilings: list[float] = []
            for repeat in range(args.repeats):
                urls = [servers.url(f"lead/?id={repeat}-{i}") for i in range(args.urls)]
                for mode in ("llm", "heuristic"):
                    results.append(run_mode(mode, urls, tmp, args.concurrency, args.delay,
                                            servers, args.timeout, args.host_delay))
                if args.warm:
                    results.append(run_warm(
                        [servers.url(f"lead/?id=w{repeat}-{i}") for i in range(args.urls)],
                        tmp, args.concurrency, args.delay, servers, args.timeout,
                        args.host_delay))
                if args.scaling:
                    more = [servers.url(f"lead/?id=s{repeat}-{i}")
                            for i in range(args.scaling_urls)]
                    one, two = (run_mode("heuristic", more, tmp, args.concurrency,
                                         args.delay, servers, args.timeout,
                                         args.host_delay, workers) for workers in (1, 2))
                    results += [one, two]
                    pairs.append((one, two))
                    apart = run_apart(more, tmp, args.concurrency, args.delay, servers,
                                      args.timeout, args.host_delay)
                    for run in apart:
                        run.mode = "apart"
                    results += apart
                    ceilings.append(apart_of(one, apart))
            if args.scaling:
                ceiling = machine_ceiling()
            llm = middle([r for r in results if r.mode == "llm"], lambda r: r.ratio)
            wall_ok = llm.ratio <= TARGET_RATIO
            rss_ok = all(r.peak_rss_mb <= TARGET_RSS_MB for r in results)
            checks_ok = all(all(r.checks.values()) for r in results)
            # Throughput while the batch runs (its summary line's seconds: from the run's
            # start, the shards' start included, to its end), and over the whole command:
            # each pair's ratio, and the middle pair's.
            scaling_ratio = wall_ratio = None
            ratios = [scaling_of(pair) for pair in pairs]
            if pairs:
                one, two = middle(pairs, scaling_of)
                scaling_ratio = scaling_of((one, two))
                wall_ratio = one.wall_s / two.wall_s
            scaling_ok = scaling_ratio is None or scaling_ratio >= TARGET_SCALING
            passed = wall_ok and rss_ok and checks_ok and scaling_ok
            if args.profile == "always" or (args.profile == "auto" and not passed):
                print(f"profiling an LLM run of {args.profile_urls} URLs ...", flush=True)
                profile = run_profile(
                    [servers.url(f"lead/?id=p{i}") for i in range(args.profile_urls)], tmp,
                    args.concurrency, servers.llm_url, args.timeout, args.top,
                    args.host_delay)
        self_after = resource.getrusage(resource.RUSAGE_SELF)
    bench_cpu = ((self_after.ru_utime - self_before.ru_utime)
                 + (self_after.ru_stime - self_before.ru_stime))

    print(f"{python_on()}, {os.cpu_count()} CPUs; page {len(page.encode()):,} bytes; "
          f"fake LLM delay {args.delay * 1e3:.0f} ms; host delay {args.host_delay:g} s; "
          f"servers: {args.servers}; this process used {bench_cpu:.2f}s CPU")
    print_table(results)
    for r in results:
        for name, ok in r.checks.items():
            if not ok:
                print(f"CHECK FAILED [{r.mode}, workers {r.workers}]: {name} (evaluations "
                      f"{r.evaluations}, distinct {r.distinct_urls}, errors {r.errors}, LLM "
                      f"requests {r.llm_requests}, exit {r.returncode})")
                print(f"  stderr: {r.stderr_tail}")
    heur = middle([r for r in results if r.mode == "heuristic" and r.workers is None],
                  lambda r: r.tree_cpu_s)
    llm_ratios = [r.ratio for r in results if r.mode == "llm"]
    print(f"LLM mode: the middle of {len(llm_ratios)} runs, whose ratios were "
          f"{', '.join(f'{ratio:.2f}' for ratio in llm_ratios)}")
    print(f"LLM mode: {llm.urls} URLs in {llm.wall_s:.2f}s; LLM bound {llm.llm_bound_s:.2f}s, "
          f"CPU bound {llm.cpu_bound_s:.2f}s ({llm.tree_cpu_s:.2f}s of CPU, "
          f"{1e3 * llm.tree_cpu_s / llm.urls:.1f} ms per URL; heuristic "
          f"{1e3 * heur.tree_cpu_s / heur.urls:.1f} ms per URL)")
    print(f"target: LLM wall <= {TARGET_RATIO} x max(LLM bound, CPU bound) ({llm.wall_s:.2f}s "
          f"<= {TARGET_RATIO * llm.bound_s:.2f}s, ratio {llm.ratio:.2f}) -> {verdict(wall_ok)}")
    if llm.machine_cpu_s is not None:
        machine_bound = llm.machine_cpu_s / (os.cpu_count() or 1)
        print(f"  (with the machine's busy CPU instead, servers and kernel included: bound "
              f"{max(machine_bound, llm.llm_bound_s or 0):.2f}s, ratio "
              f"{llm.wall_s / max(machine_bound, llm.llm_bound_s or 0):.2f})")
    warm_runs = [r for r in results if r.mode == "llm-warm"]
    warm = middle(warm_runs, lambda r: r.ratio) if warm_runs else None
    if warm is not None:
        # Each command's wall over that of the warm run just after it (the same minute).
        cold = [r for r in results if r.mode == "llm"]
        extra = [c.wall_s - w.wall_s for c, w in zip(cold, warm_runs, strict=False)]
        print(f"  (reference, not the target: in a warm process, the same batch through the "
              f"Python API after a first one (bench/warm_batch.py): {warm.wall_s:.2f}s, CPU "
              f"bound {warm.cpu_bound_s:.2f}s, ratio {warm.ratio:.2f}, the middle of "
              f"{', '.join(f'{r.ratio:.2f}' for r in warm_runs)}; the command took "
              f"{middle(extra, float):+.2f}s more than the warm run beside it "
              f"(middle of {len(extra)}): Python's start-up, the imports and the data, on one "
              f"core before the shards start)")
    if scaling_ratio is not None:
        one, two = middle(pairs, scaling_of)
        print(f"workers: the middle of {len(ratios)} pairs, whose ratios were "
              f"{', '.join(f'{ratio:.2f}' for ratio in ratios)}")
        print(f"target: 2 workers >= {TARGET_SCALING} x the URLs/s of 1 worker, {one.urls} URLs "
              f"(while the run runs: {one.urls / (one.batch_s or one.wall_s):.1f} -> "
              f"{two.urls / (two.batch_s or two.wall_s):.1f} URLs/s = {scaling_ratio:.2f}; "
              f"the whole command, start-up included: {wall_ratio:.2f}; servers: "
              f"{args.servers}) -> {verdict(scaling_ok)}")
        if ceiling is not None:
            print(f"  (this machine's own ceiling just after: two CPU-bound Python processes "
                  f"do {ceiling:.2f} x the work of one in the same time)")
        workload = sorted(ceilings)[(len(ceilings) - 1) // 2]
        print(f"  (this workload's two-process reference, beside each pair: two independent "
              f"--workers 1 batches at once, on half the URLs each, do "
              f"{', '.join(f'{c:.2f}' for c in ceilings)} x the URLs/s of one batch, middle "
              f"{workload:.2f}; 2 workers did {scaling_ratio / workload:.0%} of it: forked "
              f"shards share the parent's loaded data, independent batches each load theirs)")
    print(f"target: peak RSS <= {TARGET_RSS_MB:.0f} MB in every process "
          f"({max(r.peak_rss_mb for r in results):.0f} MB) -> {verdict(rss_ok)}")
    print(f"checks: every URL stored once, no errors, one LLM request per URL -> "
          f"{verdict(checks_ok)}")
    if profile:
        print_profile(profile)
    total_s = time.perf_counter() - t_start
    print(f"total {total_s:.1f}s")

    write_results(RESULTS, {
        **run_info(args), "cpus": os.cpu_count(), "target_ratio": TARGET_RATIO,
        "target_scaling": TARGET_SCALING, "target_rss_mb": TARGET_RSS_MB,
        "target_pass": passed, "wall_pass": wall_ok, "rss_pass": rss_ok,
        "scaling_pass": scaling_ok, "checks_pass": checks_ok, "bench_cpu_s": bench_cpu,
        "total_s": total_s, "workers_scaling_ratio": scaling_ratio,
        "workers_scaling_ratios": ratios, "llm_ratios": llm_ratios,
        "workers_scaling_wall_ratio": wall_ratio, "machine_two_process_ratio": ceiling,
        "workload_two_process_ratios": ceilings,
        "llm_warm_ratio": warm.ratio if warm is not None else None,
        "llm_warm_ratios": [r.ratio for r in warm_runs],
        "modes": [{**asdict(r), "cpu_bound_s": r.cpu_bound_s, "ratio": r.ratio}
                  for r in results], "profile": profile,
    })
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
