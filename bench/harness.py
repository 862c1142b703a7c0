"""Shared benchmark machinery: timing, statistics, host and code state, tables, results.

Used by every ``bench/bench_*.py`` script; the synthetic inputs are in
:mod:`bench.pages`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS_DIR = Path(__file__).resolve().parent / "results"

# ------------------------------------------------------------------------------ running


def make_parser(doc: str | None) -> argparse.ArgumentParser:
    """An argument parser described by the first paragraph of a script's docstring."""
    return argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)


def python_on() -> str:
    """``python 3.11.7 on x86_64``: the start of every script's first line."""
    return f"python {platform.python_version()} on {platform.machine()}"


def compile_package() -> None:
    """Byte-compile the ``leadengine`` package the subprocesses run, as ``pip install``
    does for an installed package. An editable install writes its ``.pyc`` files on
    first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as in some shells and
    CI): then every command the bench starts compiled the package's hundred modules
    again, 0.15 s of start-up that no installed copy has."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("leadengine")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


def run_info(args: argparse.Namespace) -> dict[str, Any]:
    """The keys every results file starts with: arguments (paths as text), Python, platform."""
    def text(value: Any) -> Any:
        if isinstance(value, list):
            return [text(item) for item in value]
        return str(value) if isinstance(value, Path) else value

    return {"args": {k: text(v) for k, v in vars(args).items()},
            "python": sys.version, "platform": platform.platform()}


def write_results(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as indented UTF-8 JSON to ``path`` and say so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def print_head(head: str, indent: str = "") -> None:
    """A table's column header and a rule as wide as it."""
    print(indent + head)
    print(indent + "-" * len(head))


def short_path(filename: str,
               markers: Sequence[str] = ("site-packages/", "/src/", "/lib/python")) -> str:
    """A profiled function's file, from the first of ``markers`` on."""
    for marker in markers:
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


# --------------------------------------------------------------------------- host state


def host_speed(rounds: int = 7) -> float:
    """Median ms of a fixed pure-Python loop: the host's speed at this moment. On this
    2-core VM it is about 35 ms at full speed and about 65 ms when the host throttles
    us, and every timing here moves with it."""
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        total = 0
        for i in range(1_000_000):
            total += i
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e3


def git_state() -> dict[str, Any]:
    """HEAD and the uncommitted files under src/ (the code measured may be work in progress)."""
    def run(*cmd: str) -> str:
        try:
            return subprocess.run(["git", *cmd], cwd=REPO, capture_output=True, text=True,
                                  timeout=10, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            return ""
    dirty = [line[3:] for line in run("status", "--porcelain", "--", "src").splitlines()]
    return {"head": run("rev-parse", "--short", "HEAD").strip(), "src_uncommitted": dirty}


def cpu_busy_s() -> float | None:
    """Busy CPU seconds of the whole machine since boot (Linux ``/proc/stat``), or None."""
    try:
        ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def descendants(root: int) -> dict[int, tuple[float, float]]:
    """``{pid: (CPU seconds, peak RSS MB)}`` of every live descendant of ``root`` (Linux
    ``/proc``; an empty dict elsewhere)."""
    children: dict[int, list[int]] = {}
    try:
        entries = [e for e in os.listdir("/proc") if e.isdigit()]
    except OSError:
        return {}
    stats: dict[int, list[str]] = {}
    for entry in entries:
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        stats[int(entry)] = fields
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: dict[int, tuple[float, float]] = {}
    todo = list(children.get(root, []))
    tick = os.sysconf("SC_CLK_TCK")
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        fields = stats[pid]
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            peak = next((int(line.split()[1]) for line in status.splitlines()
                         if line.startswith("VmHWM:")), 0) / 1024
        except OSError:
            peak = 0.0
        found[pid] = ((int(fields[11]) + int(fields[12])) / tick, peak)
    return found


@dataclass
class Contention:
    """CPU time other processes used while a phase ran (they skew the latencies)."""

    wall_s: float = 0.0
    others_cpu_s: float | None = None

    @property
    def others_cores(self) -> float | None:
        return self.others_cpu_s / self.wall_s if self.others_cpu_s is not None else None


def measure_contention(fn: Callable[[], Any]) -> tuple[Any, Contention]:
    """``fn()``, and how many CPUs' worth of work other processes did meanwhile."""
    busy0, own0, wall0 = cpu_busy_s(), time.process_time(), time.perf_counter()
    value = fn()
    busy1, own1, wall1 = cpu_busy_s(), time.process_time(), time.perf_counter()
    others = (None if busy0 is None or busy1 is None
              else max(0.0, (busy1 - busy0) - (own1 - own0)))
    return value, Contention(wall1 - wall0, others)


# ------------------------------------------------------------------------------- timing


def ms_stats(samples_s: Sequence[float],
             keys: Sequence[str] = ("p50", "p95", "mean", "min")) -> dict[str, float]:
    """``{"p50_ms": ..., ...}`` of samples in seconds (NaN without samples). ``keys`` from
    p50, p95 (inclusive interpolation, as numpy's default percentile), mean, min, max."""
    ms = sorted(s * 1e3 for s in samples_s)
    if not ms:
        return {f"{k}_ms": float("nan") for k in keys}
    values = {
        "p50": lambda: statistics.median(ms),
        "p95": lambda: (statistics.quantiles(ms, n=20, method="inclusive")[18]
                        if len(ms) >= 2 else ms[0]),
        "mean": lambda: statistics.fmean(ms),
        "min": lambda: ms[0],
        "max": lambda: ms[-1],
    }
    return {f"{k}_ms": values[k]() for k in keys}


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``fn()`` and the seconds it took."""
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


@dataclass
class Timing:
    runs: int
    warmups: int
    stats: dict[str, float]
    samples_ms: list[float] = field(default_factory=list)


def time_calls(fn: Callable[[], object], runs: int, warmups: int, budget_s: float,
               min_runs: int, slow_s: float = 1.0) -> Timing:
    """Time ``fn()`` ``runs`` times after ``warmups`` calls.

    A call slower than ``slow_s`` ends the warm-up and counts as a sample (first-call
    effects are noise at that scale); sampling stops after ``budget_s`` seconds once
    ``min_runs`` samples are in.
    """
    clock = time.perf_counter
    samples: list[float] = []
    done_warmups = 0
    gc.collect()
    for _ in range(warmups):
        t0 = clock()
        fn()
        dt = clock() - t0
        done_warmups += 1
        if dt > slow_s:
            samples.append(dt)
            break
    start = clock()
    while len(samples) < runs:
        if len(samples) >= min_runs and clock() - start > budget_s:
            break
        t0 = clock()
        fn()
        samples.append(clock() - t0)
    return Timing(len(samples), done_warmups, ms_stats(samples),
                  [round(s * 1e3, 3) for s in samples])


def time_each(fn: Callable[[str], object], queries: Sequence[str], rounds: int) -> list[float]:
    """Per-query latency: the median over ``rounds`` passes (round-robin over the queries)."""
    per_query: list[list[float]] = [[] for _ in queries]
    clock = time.perf_counter
    for _ in range(rounds):
        for i, q in enumerate(queries):
            t0 = clock()
            fn(q)
            per_query[i].append(clock() - t0)
    return [statistics.median(ts) for ts in per_query]


def spread_pick(kinds: Sequence[str], k: int) -> list[int]:
    """About ``k`` indices, spread evenly within each kind (keeps the mix of kinds)."""
    n = len(kinds)
    if k >= n:
        return list(range(n))
    picked: list[int] = []
    for kind in sorted(set(kinds)):
        idx = [i for i, kd in enumerate(kinds) if kd == kind]
        share = max(1, round(k * len(idx) / n))
        step = len(idx) / share
        picked += [idx[int(j * step)] for j in range(min(share, len(idx)))]
    return sorted(picked)
