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

import argparse
import gc
import html
import json
import multiprocessing as mp
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.seed_rag import SeedRAG
from leadengine.knowledge import KnowledgeBase
from leadengine.retrieval.keyword import KeywordRetriever

REPO = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results" / "keyword.json"
TARGET_RATIO = 50.0

# --------------------------------------------------------------------------- vocabulary


def _words(text: str) -> list[str]:
    return text.split()


_FUNCTION = _words(
    "the and of to a in for with our we you your is are on at by from this that it as be or "
    "can will more all has have not new best also its their they which when how what who "
    "about into than only over most other some such no up out if so do may per each any"
)

_BUSINESS = _words(
    "business company service services customer customers client clients growth revenue "
    "sales marketing digital strategy website online booking appointment appointments system "
    "automation platform facebook instagram tiktok viber messenger analytics tracking "
    "conversion funnel lead leads campaign advertising brand content social media team staff "
    "management operations manual process payment payments delivery order orders menu price "
    "prices package foundation consultation education school training course courses student "
    "students university medical clinic hospital dental dentist teeth whitening orthodontics "
    "implant implants patient patients doctor health healthcare pharmacy beauty spa salon "
    "restaurant cafe coffee food kitchen chef hotel travel tour construction engineering "
    "property estate logistics export import retail shop store ecommerce cart checkout "
    "gateway software development developer agency agencies consulting finance bank "
    "insurance legal visibility measurement operational asset ownership maturity signals "
    "framework qualification criteria industry exclusion geography target market markets "
    "bottleneck dependency risk attention positioning competitive infrastructure weakness "
    "gap gaps angle outreach evaluation evidence score fit proposal pricing retention "
    "loyalty referral reviews google maps search seo landing page form forms email "
    "newsletter crm spreadsheet excel inventory warehouse supplier suppliers franchise "
    "branch branches owner founder manager employees headcount budget investment roi"
)

_GEOGRAPHY = _words(
    "yangon mandalay bangkok naypyidaw bago taunggyi myanmar thailand chiang mai phuket "
    "pattaya sukhumvit silom asoke thonglor sathorn ladprao hlaing sanchaung bahan kamayut "
    "asia southeast asean regional local nationwide"
)

_THAI = _words("กรุงเทพ คลินิก ทันตกรรม ร้านอาหาร การตลาด โรงเรียน บริการ ติดต่อ จองคิว โปรโมชั่น "
               "สุขภาพ ฟันขาว")
_BURMESE = _words("ရန်ကုန် မန္တလေး ဆေးခန်း စားသောက်ဆိုင် ပညာရေး ဝန်ဆောင်မှု ဆက်သွယ်ရန် ဈေးကွက်")

_SYLLABLES = _words(
    "ka ra ma na ta sa la pa ba da ga ha ya wa zo ri mi ni ki li tu su nu lu mo no po ro "
    "lo sun gold star lotus bright smile royal city green golden pearl silver jade"
)

_WEB = _words(
    "home about contact us menu login signup faq gallery testimonials blog news careers "
    "privacy policy terms copyright rights reserved follow call now book today free "
    "quote open hours monday friday saturday sunday closed located near road soi street "
    "floor building tel phone line whatsapp map directions welcome friendly professional "
    "experienced affordable quality trusted certified award years since established"
)

_PUNCT = (",", ".", ":", ";", "!", "?", ")", "'s", "-based")
_SHORT_QUERIES = (
    "medical clinic bangkok",
    "restaurant automation system",
    "dental clinic Sukhumvit Bangkok whitening",
    "digital marketing agency yangon",
    "education school mandalay enrollment",
    "facebook-only business with manual booking",
    "construction company Yangon",
    "coffee shop chiang mai",
    "Platform Dependency Risk",
    "revenue visibility gap analytics tracking",
    "ร้านอาหาร กรุงเทพ",
    "ဆေးခန်း ရန်ကုန်",
)
#: Queries exercising edges: no terms at all, fallback only (no word or long-word match).
_EDGE_QUERIES = (
    "",
    "   \n\t ",
    "qqq zzz xx",
    "#visitbangkok2024 qqq",
    "xx-mandalay-xx zz",
    "MEDICALGRADE!!! zzqv",
    "a an to",
)


def _tail_words(rng: random.Random, count: int, prefix: str = "") -> list[str]:
    words: set[str] = set()
    while len(words) < count:
        n = rng.choice((2, 2, 3, 3, 4))
        words.add(prefix + "".join(rng.choice(_SYLLABLES) for _ in range(n)))
    return sorted(words)


@dataclass
class Vocabulary:
    """Zipf-weighted word list plus helpers to decorate words the way real text does."""

    words: list[str]
    cum_weights: list[float]

    @classmethod
    def build(cls, rng: random.Random, extra: Sequence[str] = ()) -> Vocabulary:
        content = _BUSINESS + _GEOGRAPHY + _THAI + _BURMESE + list(extra)
        rng.shuffle(content)
        ordered = _FUNCTION + content
        cum: list[float] = []
        total = 0.0
        for rank, _ in enumerate(ordered):
            total += 1.0 / (rank + 2) ** 0.95
            cum.append(total)
        return cls(ordered, cum)

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum_weights, k=k)


def _decorate(rng: random.Random, word: str) -> str:
    r = rng.random()
    if r < 0.07:
        word = word + rng.choice(_PUNCT)
    elif r < 0.09:
        word = "(" + word + ")"
    elif r < 0.10:
        word = '"' + word + '"'
    if rng.random() < 0.06 or (word[:1] in "ymbcpst" and rng.random() < 0.08):
        word = word[:1].upper() + word[1:]
    return word


def _sentence(rng: random.Random, vocab: Vocabulary, lo: int, hi: int) -> str:
    words = [_decorate(rng, w) for w in vocab.sample(rng, rng.randint(lo, hi))]
    words[0] = words[0][:1].upper() + words[0][1:]
    r = rng.random()
    if r < 0.05:
        words.insert(rng.randrange(len(words)), f"+66 {rng.randint(2, 9)} {rng.randint(100, 999)}"
                     f" {rng.randint(1000, 9999)}")
    elif r < 0.09:
        words.insert(rng.randrange(len(words)), f"https://www.{words[-1].strip('.,')}.com/book")
    elif r < 0.12:
        words.insert(rng.randrange(len(words)), f"฿{rng.randint(1, 99)},{rng.randint(100, 999)}")
    return " ".join(words) + rng.choice((".", ".", ".", "!", ":"))


def synthetic_document(rng: random.Random, vocab: Vocabulary, words: int) -> str:
    """One markdown file of about ``words`` words, with headings, paragraphs and lists."""
    title = " ".join(w.capitalize() for w in vocab.sample(rng, rng.randint(2, 5)))
    parts = [f"# {title}", ""]
    count = 0
    while count < words:
        heading = " ".join(w.capitalize() for w in vocab.sample(rng, rng.randint(1, 4)))
        parts += [f"{rng.choice(('##', '##', '###'))} {heading}", ""]
        count += 3
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.3:
                for _ in range(rng.randint(2, 6)):
                    item = _sentence(rng, vocab, 3, 10)
                    parts.append(f"{rng.choice(('-', '*', '1.'))} {item}")
                    count += len(item.split()) + 1
            else:
                para = " ".join(_sentence(rng, vocab, 8, 25) for _ in range(rng.randint(2, 6)))
                parts.append(para)
                count += len(para.split())
            parts.append("")
    return "\n".join(parts) + "\n"


def write_synthetic_kb(root: Path, files: int, seed: int) -> Path:
    """Write ``files`` markdown files (300-1,500 words each) under ``root``."""
    rng = random.Random(seed)
    vocab = Vocabulary.build(rng, _tail_words(rng, 3000))
    for i in range(files):
        sub = root / f"area{i % 7}" if i % 3 == 0 else root
        sub.mkdir(parents=True, exist_ok=True)
        text = synthetic_document(rng, vocab, rng.randint(300, 1500))
        (sub / f"doc_{i:05d}.md").write_text(text, encoding="utf-8")
    return root


# ----------------------------------------------------------------------------- queries

def fixture_pages() -> list[str]:
    """Text of the example pages (tags stripped by a regex; fine for a benchmark)."""
    pages = []
    for page in sorted((REPO / "examples").glob("*/*.html")):
        raw = page.read_text(encoding="utf-8")
        raw = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
        pages.append(re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw))).strip())
    return pages


def website_query(rng: random.Random, vocab: Vocabulary, words: int) -> str:
    """A website-like page text of about ``words`` words."""
    name = " ".join(w.capitalize() for w in rng.sample(_SYLLABLES, 2))
    nav = " ".join(w.capitalize() for w in rng.sample(_WEB, 6))
    parts = [f"{name} | {nav}"]
    count = len(parts[0].split())
    while count < words:
        s = _sentence(rng, vocab, 5, 20)
        parts.append(s)
        count += len(s.split())
    parts.append(f"© {rng.randint(2015, 2025)} {name}. All rights reserved. Follow us on Facebook")
    return " ".join(parts)


def build_queries(count: int, seed: int) -> tuple[list[str], list[str]]:
    """``count`` queries and their kinds: edge, short, fixture, then generated short/long."""
    rng = random.Random(seed + 1)
    web_vocab = Vocabulary.build(rng, _WEB * 2 + _tail_words(rng, 800, prefix="q"))
    short_vocab = Vocabulary.build(rng)
    queries: list[tuple[str, str]] = [("edge", q) for q in _EDGE_QUERIES]
    queries += [("short", q) for q in _SHORT_QUERIES]
    queries += [("fixture", q) for q in fixture_pages()]
    i = 0
    while len(queries) < count:
        if i % 2 == 0:
            content = [w for w in short_vocab.sample(rng, 12) if w not in _FUNCTION]
            q = " ".join(_decorate(rng, w) for w in content[: rng.randint(2, 6)])
            queries.append(("short", q))
        else:
            queries.append(("long", website_query(rng, web_vocab, rng.randint(100, 800))))
        i += 1
    queries = queries[:count]
    return [q for _, q in queries], [k for k, _ in queries]


# ----------------------------------------------------------------------------- timing

def _stats(samples_s: Sequence[float]) -> dict[str, float]:
    return {"p50_ms": statistics.median(samples_s) * 1e3,
            "mean_ms": statistics.fmean(samples_s) * 1e3}


def _time_each(fn: Callable[[str], object], queries: Sequence[str], rounds: int) -> list[float]:
    """Per-query latency: the median over ``rounds`` passes (round-robin over the queries)."""
    per_query: list[list[float]] = [[] for _ in queries]
    clock = time.perf_counter
    for _ in range(rounds):
        for i, q in enumerate(queries):
            t0 = clock()
            fn(q)
            per_query[i].append(clock() - t0)
    return [statistics.median(ts) for ts in per_query]


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


def _pick(kinds: Sequence[str], k: int) -> list[int]:
    """About ``k`` query indices, spread evenly within each kind (keeps the query mix)."""
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
    timed = _pick(kinds, seed_queries)
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
    ours_times = _time_each(ours_pairs, queries, our_rounds)
    seed_t = [statistics.median(seed_times[i]) for i in timed]
    ours_t = [ours_times[i] for i in timed]
    ours_s, seed_s = _stats(ours_t), _stats(seed_t)

    by_kind: dict[str, dict[str, float]] = {}
    for kind in sorted(set(kinds)):
        idx = [i for i in timed if kinds[i] == kind]
        if idx:
            o = _stats([ours_times[i] for i in idx])
            s = _stats([statistics.median(seed_times[i]) for i in idx])
            by_kind[kind] = {"n": len(idx), "ours_p50_ms": o["p50_ms"],
                             "seed_p50_ms": s["p50_ms"],
                             "ratio_p50": s["p50_ms"] / o["p50_ms"]}

    paths = {d.content: d.path for d in kb.documents}
    result = CorpusResult(
        name=name, documents=len(kb.documents),
        words=sum(len(d.content.split()) for d in kb.documents), queries=len(queries),
        seed_timed_queries=len(timed), kb_load_s=kb_load_s, our_build_s=min(builds),
        seed_load_s=seed_load_s, mismatches=len(mismatches),
        ours_all=_stats(ours_times), ours=ours_s, seed=seed_s,
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
    print(head)
    print("-" * len(head))
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
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
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
        root = write_synthetic_kb(Path(tmp), args.files, args.seed)
        gen_s = time.perf_counter() - t0
        seed_q = args.seed_queries if args.seed_queries is not None else 64
        res, mism = bench_corpus(f"synthetic {args.files}",
                                 lambda: KnowledgeBase.from_dir(root), queries, kinds,
                                 seed_queries=seed_q, our_rounds=5, seed_rounds=1,
                                 jobs=args.jobs)
    results.append(res)
    all_mismatches[res.name] = mism

    mix = ", ".join(f"{k}={kinds.count(k)}" for k in sorted(set(kinds)))
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"queries: {len(queries)} ({mix}), synthetic corpus generated in {gen_s:.1f}s")
    print_table(results)

    big = results[-1]
    passed = big.mismatches == 0 and min(big.ratio_p50, big.ratio_mean) >= TARGET_RATIO
    print(f"target: on the {big.documents}-file KB ours <= 1/{TARGET_RATIO:.0f} of the seed "
          f"(p50 {big.ratio_p50:.1f}x, mean {big.ratio_mean:.1f}x, identical outputs: "
          f"{big.mismatches == 0}) -> {'PASS' if passed else 'FAIL'}")
    for name, mism in all_mismatches.items():
        for m in mism[:5]:
            print(f"MISMATCH [{name}] query #{m.index} ({m.kind}): {m.query[:120]!r}")
            print(f"  seed: {[(s, c[:50]) for s, c in m.seed]}")
            print(f"  ours: {[(s, c[:50]) for s, c in m.ours]}")
    total_s = time.perf_counter() - t_start
    print(f"total {total_s:.1f}s")

    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({
        "args": vars(args), "python": sys.version, "platform": platform.platform(),
        "target_ratio": TARGET_RATIO, "target_pass": passed, "total_s": total_s,
        "synthetic_generate_s": gen_s,
        "corpora": [asdict(r) for r in results],
    }, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")
    return 0 if passed and not any(all_mismatches.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
