"""Benchmark: ``KeywordRetriever`` (method="keyword") against the seed's retrieval code.

Run from the repository root::

    python -m bench.bench_keyword [--files 1000] [--queries 200] [--quick]

For two corpora (the shipped ``knowledge/`` and a deterministic synthetic
knowledge base of ``--files`` markdown files) it

* checks that ``KeywordRetriever.retrieve(q, limit=3)`` returns exactly the
  ``(score, content)`` list of the seed's code (:mod:`bench.seed_rag`) for every
  query;
* times per-query latency of both (p50 and mean, ms) and their ratio, our
  build time and the seed's load time. The seed is slow on the big corpus, so
  there it is timed on a subset of the queries (``--seed-queries``, default 64,
  spread over the query kinds) and run on the rest in ``--jobs`` processes only
  for the equality check; ratios compare both on the same subset;
* prints a table and writes the numbers to ``bench/results/keyword.json``.

Target: on the synthetic corpus our per-query time (p50 and mean) is at most
1/50 of the seed code's.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.harness import (
    RESULTS_DIR,
    make_parser,
    ms_stats,
    print_head,
    python_on,
    run_info,
    spread_pick,
    time_each,
    verdict,
    write_results,
)
from bench.pages import build_queries, markdown_document, write_kb
from bench.seed_rag import SeedRAG
from leadengine.retrieval.keyword import KeywordRetriever
from leadengine.retrieval.knowledge_base import KnowledgeBase

RESULTS = RESULTS_DIR / "keyword.json"
STATS = ("p50", "mean")
TARGET_RATIO = 50.0

# ----------------------------------------------------------------------------- timing

@dataclass
class Mismatch:
    index: int
    kind: str
    query: str
    seed: list[tuple[float, str]]
    ours: list[tuple[float, str]]


@dataclass
class CorpusResult:
    name: str
    documents: int
    words: int
    queries: int
    seed_timed_queries: int
    kb_load_s: float
    our_build_s: float
    seed_load_s: float
    mismatches: int
    ours_all: dict[str, float]
    ours: dict[str, float]
    seed: dict[str, float]
    ratio_p50: float
    ratio_mean: float
    check_s: float
    by_kind: dict[str, dict[str, float]] = field(default_factory=dict)
    mismatch_examples: list[dict[str, Any]] = field(default_factory=list)


#: Set before forking the equality-check workers (read by :func:`_seed_worker`).
_WORK: tuple[SeedRAG, list[str]] | None = None


def _seed_worker(index: int) -> tuple[int, list[tuple[float, str]]]:
    assert _WORK is not None
    seed, queries = _WORK
    return index, seed.retrieve(queries[index], limit=3)


def seed_outputs(seed: SeedRAG, queries: list[str], indices: list[int],
                 jobs: int) -> dict[int, list[tuple[float, str]]]:
    """The seed's output for ``queries[i]``, ``i`` in ``indices``, over ``jobs`` processes."""
    global _WORK
    if jobs <= 1 or len(indices) < 2 or "fork" not in mp.get_all_start_methods():
        return {i: seed.retrieve(queries[i], limit=3) for i in indices}
    _WORK = (seed, queries)
    try:
        with mp.get_context("fork").Pool(jobs) as pool:
            return dict(pool.imap_unordered(_seed_worker, indices, chunksize=2))
    finally:
        _WORK = None


def bench_corpus(name: str, load: Callable[[], KnowledgeBase], queries: list[str],
                 kinds: list[str], seed_queries: int, our_rounds: int, seed_rounds: int,
                 jobs: int = 1) -> tuple[CorpusResult, list[Mismatch]]:
    gc.collect()
    t0 = time.perf_counter()
    kb = load()
    kb_load_s = time.perf_counter() - t0

    builds = []
    retriever = None
    for _ in range(3):
        t0 = time.perf_counter()
        retriever = KeywordRetriever(kb.documents)
        builds.append(time.perf_counter() - t0)
    assert retriever is not None

    t0 = time.perf_counter()
    corpus = [{"path": d.path, "content": d.content} for d in kb.documents]
    seed = SeedRAG(corpus)
    seed_load_s = time.perf_counter() - t0

    def ours_pairs(q: str) -> list[tuple[float, str]]:
        return [(h.score, h.text) for h in retriever.retrieve(q, limit=3)]

    # The seed is timed serially on a subset of the queries (all of them unless the
    # corpus is big); its output on every query is checked against ours, the queries
    # outside the timed subset in ``jobs`` worker processes.
    timed = spread_pick(kinds, seed_queries)
    timed_set = set(timed)
    seed_times: dict[int, list[float]] = {i: [] for i in timed}
    expected: dict[int, list[tuple[float, str]]] = {}
    gc.collect()
    for round_ in range(seed_rounds):
        for i in timed:
            t0 = time.perf_counter()
            out = seed.retrieve(queries[i], limit=3)
            seed_times[i].append(time.perf_counter() - t0)
            if round_ == 0:
                expected[i] = out
    t_check = time.perf_counter()
    rest = [i for i in range(len(queries)) if i not in timed_set]
    expected.update(seed_outputs(seed, queries, rest, jobs))
    check_s = time.perf_counter() - t_check
    mismatches: list[Mismatch] = []
    for i, q in enumerate(queries):
        got = ours_pairs(q)
        if got != expected[i]:
            mismatches.append(Mismatch(i, kinds[i], q, expected[i], got))

    gc.collect()
    ours_times = time_each(ours_pairs, queries, our_rounds)
    seed_t = [statistics.median(seed_times[i]) for i in timed]
    ours_t = [ours_times[i] for i in timed]
    ours_s, seed_s = ms_stats(ours_t, STATS), ms_stats(seed_t, STATS)

    by_kind: dict[str, dict[str, float]] = {}
    for kind in sorted(set(kinds)):
        idx = [i for i in timed if kinds[i] == kind]
        if idx:
            o = ms_stats([ours_times[i] for i in idx], STATS)
            s = ms_stats([statistics.median(seed_times[i]) for i in idx], STATS)
            by_kind[kind] = {"n": len(idx), "ours_p50_ms": o["p50_ms"],
                             "seed_p50_ms": s["p50_ms"],
                             "ratio_p50": s["p50_ms"] / o["p50_ms"]}

    paths = {d.content: d.path for d in kb.documents}
    result = CorpusResult(
        name=name, documents=len(kb.documents),
        words=sum(len(d.content.split()) for d in kb.documents), queries=len(queries),
        seed_timed_queries=len(timed), kb_load_s=kb_load_s, our_build_s=min(builds),
        seed_load_s=seed_load_s, mismatches=len(mismatches),
        ours_all=ms_stats(ours_times, STATS), ours=ours_s, seed=seed_s,
        ratio_p50=seed_s["p50_ms"] / ours_s["p50_ms"],
        ratio_mean=seed_s["mean_ms"] / ours_s["mean_ms"], check_s=check_s, by_kind=by_kind,
        mismatch_examples=[
            {"index": m.index, "kind": m.kind, "query": m.query[:300],
             "seed": [(s, paths.get(c, c[:60])) for s, c in m.seed],
             "ours": [(s, paths.get(c, c[:60])) for s, c in m.ours]}
            for m in mismatches[:10]
        ],
    )
    return result, mismatches


# ------------------------------------------------------------------------------ report

def print_table(results: list[CorpusResult]) -> None:
    head = (f"{'corpus':<14}{'docs':>6}{'words':>9}{'q':>5}{'seedq':>6}{'mism':>5}"
            f"{'kb load':>9}{'build':>9}{'seed ld':>9}"
            f"{'ours p50':>10}{'ours mean':>10}{'seed p50':>10}{'seed mean':>10}"
            f"{'x p50':>8}{'x mean':>8}")
    print_head(head)
    for r in results:
        print(f"{r.name:<14}{r.documents:>6}{r.words:>9}{r.queries:>5}{r.seed_timed_queries:>6}"
              f"{r.mismatches:>5}{r.kb_load_s * 1e3:>7.1f}ms{r.our_build_s * 1e3:>7.1f}ms"
              f"{r.seed_load_s * 1e3:>7.2f}ms"
              f"{r.ours['p50_ms']:>8.3f}ms{r.ours['mean_ms']:>8.3f}ms"
              f"{r.seed['p50_ms']:>8.2f}ms{r.seed['mean_ms']:>8.2f}ms"
              f"{r.ratio_p50:>7.1f}x{r.ratio_mean:>7.1f}x")
    print("(seedq = queries the seed is timed on; ours p50/mean over the same queries; "
          "x = seed / ours; build = min of 3; mism = outputs differing from the seed's, "
          "checked on all q)")
    for r in results:
        kinds = ", ".join(f"{k} n={v['n']:.0f} {v['seed_p50_ms']:.2f}/{v['ours_p50_ms']:.3f}ms "
                          f"({v['ratio_p50']:.0f}x)" for k, v in r.by_kind.items())
        print(f"  {r.name} by kind (seed/ours p50): {kinds}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--files", type=int, default=1000, help="synthetic corpus size")
    parser.add_argument("--queries", type=int, default=200, help="number of queries")
    parser.add_argument("--seed-queries", type=int, default=None,
                        help="queries the seed is timed on for the synthetic corpus "
                             "(default: all up to 64; equality is always checked on all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes for the seed's equality-check runs outside the timed "
                             "subset (default: CPU count)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed")
    parser.add_argument("--quick", action="store_true", help="100 files, 30 queries")
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.queries = 100, 30

    queries, kinds = build_queries(args.queries, args.seed)
    results: list[CorpusResult] = []
    all_mismatches: dict[str, list[Mismatch]] = {}
    t_start = time.perf_counter()

    res, mism = bench_corpus("default KB", KnowledgeBase.default, queries, kinds,
                             seed_queries=len(queries), our_rounds=20, seed_rounds=5)
    results.append(res)
    all_mismatches[res.name] = mism

    with tempfile.TemporaryDirectory(prefix="bench_keyword_") as tmp:
        t0 = time.perf_counter()
        root = write_kb(Path(tmp), args.files, args.seed,
                        lambda rng, v: markdown_document(rng, v, rng.randint(300, 1500)))
        gen_s = time.perf_counter() - t0
        seed_q = args.seed_queries if args.seed_queries is not None else 64
        res, mism = bench_corpus(f"synthetic {args.files}",
                                 lambda: KnowledgeBase.from_dir(root), queries, kinds,
                                 seed_queries=seed_q, our_rounds=5, seed_rounds=1,
                                 jobs=args.jobs)
    results.append(res)
    all_mismatches[res.name] = mism

    mix = ", ".join(f"{k}={kinds.count(k)}" for k in sorted(set(kinds)))
    print(f"{python_on()}, queries: {len(queries)} ({mix}), synthetic corpus generated in "
          f"{gen_s:.1f}s")
    print_table(results)

    big = results[-1]
    passed = big.mismatches == 0 and min(big.ratio_p50, big.ratio_mean) >= TARGET_RATIO
    print(f"target: on the {big.documents}-file KB ours <= 1/{TARGET_RATIO:.0f} of the seed "
          f"(p50 {big.ratio_p50:.1f}x, mean {big.ratio_mean:.1f}x, identical outputs: "
          f"{big.mismatches == 0}) -> {verdict(passed)}")
    for name, mism in all_mismatches.items():
        for m in mism[:5]:
            print(f"MISMATCH [{name}] query #{m.index} ({m.kind}): {m.query[:120]!r}")
            print(f"  seed: {[(s, c[:50]) for s, c in m.seed]}")
            print(f"  ours: {[(s, c[:50]) for s, c in m.ours]}")
    total_s = time.perf_counter() - t_start
    print(f"total {total_s:.1f}s")

    write_results(RESULTS, {
        **run_info(args), "target_ratio": TARGET_RATIO, "target_pass": passed, "total_s": total_s,
        "synthetic_generate_s": gen_s,
        "corpora": [asdict(r) for r in results],
    })
    return 0 if passed and not any(all_mismatches.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
