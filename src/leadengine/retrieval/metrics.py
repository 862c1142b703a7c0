"""Measure retrieval: nDCG@3, Recall@3 and MRR@10 against graded relevance judgements.

A judgements file (JSONL) has one query per line::

    {"qid": "syn-01", "query": "...", "relevant": {"Lead_q_criteria.md": 2}, "kind": "synonym"}

Relevance is judged per knowledge file, so a method's ranked passages are
read as a ranked list of files (a file counts at the rank of its first
passage). Gains are ``2**grade - 1``; ``relevant`` means grade >= 1.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean, median

from leadengine.errors import ConfigError
from leadengine.retrieval.knowledge_base import KnowledgeBase


@dataclass(frozen=True)
class Judged:
    """One query of a judgements file."""

    qid: str
    query: str
    relevant: dict[str, int]
    kind: str


@dataclass
class MethodReport:
    """Per-query metrics and latencies of one method."""

    method: str
    ndcg3: dict[str, float] = field(default_factory=dict)
    recall3: dict[str, float] = field(default_factory=dict)
    mrr10: dict[str, float] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)

    def summary(self, qids: list[str]) -> dict[str, float]:
        """Means over ``qids``, plus p50 latency."""
        if not qids:
            return {"ndcg@3": 0.0, "recall@3": 0.0, "mrr@10": 0.0, "p50_ms": 0.0}
        return {"ndcg@3": mean(self.ndcg3[q] for q in qids),
                "recall@3": mean(self.recall3[q] for q in qids),
                "mrr@10": mean(self.mrr10[q] for q in qids),
                "p50_ms": median(self.latency_ms[q] for q in qids)}


def load_qrels(path: str | Path) -> list[Judged]:
    """Read a judgements file; a malformed line is a clear error naming the line."""
    judged = []
    try:
        lines = Path(path).read_text(encoding="utf-8-sig").splitlines()
    except FileNotFoundError:
        raise ConfigError(f"judgements file not found: {path}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            item = Judged(qid=str(data["qid"]), query=str(data["query"]),
                          relevant={str(k): int(v) for k, v in data["relevant"].items()},
                          kind=str(data.get("kind", "all")))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"{path}:{number}: not a judgement line ({exc})") from None
        judged.append(item)
    if not judged:
        raise ConfigError(f"{path}: no judgements")
    return judged


def ranked_files(paths: list[str]) -> list[str]:
    """Hit paths reduced to files in first-occurrence order."""
    return list(dict.fromkeys(paths))


def ndcg_at(files: list[str], relevant: dict[str, int], k: int = 3) -> float:
    dcg = sum((2 ** relevant.get(f, 0) - 1) / math.log2(i + 2) for i, f in enumerate(files[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(files: list[str], relevant: dict[str, int], k: int = 3) -> float:
    wanted = {f for f, g in relevant.items() if g > 0}
    return len(wanted & set(files[:k])) / len(wanted) if wanted else 0.0


def mrr_at(files: list[str], relevant: dict[str, int], k: int = 10) -> float:
    for rank, f in enumerate(files[:k], 1):
        if relevant.get(f, 0) > 0:
            return 1.0 / rank
    return 0.0


def score_methods(kb: KnowledgeBase, judged: list[Judged],
                  methods: list[str]) -> list[MethodReport]:
    """Run every query through every method (10 hits each) and score the rankings."""
    reports = []
    for method in methods:
        retriever = kb.retriever(method)
        retriever.retrieve("warm up", limit=1)
        report = MethodReport(method)
        for item in judged:
            started = time.perf_counter()
            hits = retriever.retrieve(item.query, limit=10)
            report.latency_ms[item.qid] = (time.perf_counter() - started) * 1000
            files = ranked_files([h.path for h in hits])
            report.ndcg3[item.qid] = ndcg_at(files, item.relevant)
            report.recall3[item.qid] = recall_at(files, item.relevant)
            report.mrr10[item.qid] = mrr_at(files, item.relevant)
        reports.append(report)
    return reports


def format_table(judged: list[Judged], reports: list[MethodReport]) -> str:
    """A plain-text table: one row per query kind (and overall), methods side by side."""
    kinds = sorted({j.kind for j in judged})
    groups = [(kind, [j.qid for j in judged if j.kind == kind]) for kind in kinds]
    groups.append(("overall", [j.qid for j in judged]))
    header = f"{'kind':<10} {'n':>3}  " + "  ".join(
        f"{r.method + ' nDCG@3  R@3  MRR@10  p50ms':>{34}}" for r in reports)
    lines = [header, "-" * len(header)]
    for name, qids in groups:
        cells = []
        for report in reports:
            s = report.summary(qids)
            cells.append(f"{s['ndcg@3']:>{len(report.method) + 7}.3f} {s['recall@3']:>4.2f}"
                         f" {s['mrr@10']:>7.3f} {s['p50_ms']:>6.2f}")
        lines.append(f"{name:<10} {len(qids):>3}  " + "  ".join(f"{c:>34}" for c in cells))
    return "\n".join(lines)
