"""The knowledge base's commands: ``kb search``, ``kb eval`` and ``kb list``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from leadengine.cli.common import _knowledge, _settings, guarded, knowledge_option, method_option
from leadengine.retrieval import METHODS


@click.group()
def kb() -> None:
    """Inspect and query the knowledge base."""


@kb.command("search")
@click.argument("query")
@click.option("--limit", type=click.IntRange(min=0), default=3, show_default=True,
              help="Maximum hits.")
@knowledge_option
@method_option
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Token budget for the hits' text (default: none).")
@click.option("--explain", is_flag=True, help="Show why each hit scored.")
@click.option("--json", "as_json", is_flag=True, help="Print hits as JSON.")
@guarded
def kb_search(query: str, limit: int, knowledge_dir: Path | None, method: str | None,
              budget: int | None, explain: bool, as_json: bool) -> None:
    """Show what retrieval returns for QUERY, with scores."""
    settings = _settings(knowledge_dir=knowledge_dir, retrieval_method=method)
    knowledge = _knowledge(settings)
    method = settings.retrieval_method
    hits = knowledge.retrieve(query, limit=limit, method=method, budget=budget)
    why = [knowledge.retriever(method).explain(query, h) for h in hits] if explain else []
    if as_json:
        rows: list[dict[str, Any]] = [
            {"path": h.path, "heading": h.heading, "score": h.score, "text": h.text}
            for h in hits]
        for row, reason in zip(rows, why, strict=False):
            row["explain"] = reason
        click.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo("no relevant passages")
        return
    for rank, hit in enumerate(hits, 1):
        click.echo(f"{rank}. {hit.path}" + (f" > {hit.heading}" if hit.heading else "")
                   + f"   (score {_round(hit.score)})")
        click.echo("   " + snippet(hit.text, hit.heading))
        if explain:
            click.echo("   why: " + explain_line(why[rank - 1]))


def _round(score: float) -> str:
    """Three significant digits: BM25 scores are ~1-10, fused ones ~0.016."""
    return f"{score:.3g}"


def snippet(text: str, heading: str | None, limit: int = 160) -> str:
    """The passage's first words as prose: the heading line and markdown marks dropped."""
    import re

    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    prose = re.sub(r"[*_`>|]+|^\s*[-+]\s+", " ", "\n".join(lines), flags=re.M)
    prose = " ".join(prose.split())
    return prose if len(prose) <= limit else prose[:limit].rsplit(" ", 1)[0] + "..."


def explain_line(why: dict[str, Any]) -> str:
    """One method's explanation in words, for a person (``--json`` keeps the numbers)."""
    method = why.get("method")
    if method == "keyword":
        return (f"keyword: words in the file: {', '.join(why['matched']) or 'none'}; "
                f"found inside longer words: {', '.join(why['boosted']) or 'none'} "
                f"(score {why['score']:g})")
    if method == "semantic":
        return f"semantic: similarity {why['cosine']:.3f} (floor {why['floor']:.2f})"
    words = _words(why.get("words") or {})
    if method == "bm25":
        return f"bm25 matched {words}"
    ranks = [f"bm25 rank {why['bm25_rank']}" if why.get("bm25_rank") else "no bm25 match",
             f"semantic rank {why['semantic_rank']}" if why.get("semantic_rank")
             else "below the semantic floor"]
    cosine = f" (similarity {why['cosine']:.3f})" if why.get("cosine") is not None else ""
    matched = f"; matched {words}" if why.get("words") else ""
    return f"hybrid: {ranks[0]}, {ranks[1]}{cosine}{matched}"


def _words(words: dict[str, dict[str, Any]]) -> str:
    """``clinic 0.77, คลินิกทันตกรรม 5.9 (11 of 13 pieces)``."""
    parts = []
    for word, info in words.items():
        part = f"{word} {info['score']:.2f}"
        if info["pieces"] > 1:
            part += f" ({info['matched']} of {info['pieces']} pieces)"
        parts.append(part)
    return ", ".join(parts) or "no words"


@kb.command("eval")
@click.argument("qrels", type=click.Path(path_type=Path))
@knowledge_option
@click.option("--method", "methods", multiple=True, type=click.Choice(list(METHODS)),
              help="Method to measure (repeatable; default: all).")
@click.option("--json", "as_json", is_flag=True, help="Print the numbers as JSON.")
@guarded
def kb_eval(qrels: Path, knowledge_dir: Path | None, methods: tuple[str, ...],
            as_json: bool) -> None:
    """Measure retrieval on judged queries: nDCG@3, Recall@3, MRR@10, latency."""
    from leadengine.retrieval import format_table, load_qrels, score_methods

    judged = load_qrels(qrels)
    knowledge = _knowledge(_settings(knowledge_dir=knowledge_dir))
    reports = score_methods(knowledge, judged, list(methods or METHODS))
    if as_json:
        kinds = sorted({j.kind for j in judged})
        click.echo(json.dumps({r.method: {
            **{k: r.summary([j.qid for j in judged if j.kind == k]) for k in kinds},
            "overall": r.summary([j.qid for j in judged])} for r in reports}, indent=2))
        return
    click.echo(format_table(judged, reports))


@kb.command("list")
@knowledge_option
@guarded
def kb_list(knowledge_dir: Path | None) -> None:
    """List the knowledge files, their sections and the rules they define."""
    knowledge = _knowledge(_settings(knowledge_dir=knowledge_dir))
    click.echo(f"{knowledge.root}  (version {knowledge.version})")
    for doc in knowledge.documents:
        rules = f"  rules: {', '.join(doc.rules_data)}" if doc.rules_data else ""
        click.echo(f"- {doc.path}: {len(doc.content.split())} words, "
                   f"{len(doc.sections)} sections{rules}")
