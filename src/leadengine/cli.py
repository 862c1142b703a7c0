"""The ``leadengine`` command: a thin layer over the library.

It parses options into :class:`~leadengine.config.Settings`, calls the
library, prints JSON, and turns every :class:`LeadEngineError` into one line
on stderr and a non-zero exit code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from leadengine import __version__
from leadengine.cli_batch import _run_with_progress_bar, batch, export, runs_command, show
from leadengine.cli_common import (
    _knowledge,
    _run,
    _settings,
    fetch_options,
    guarded,
    knowledge_option,
    llm_options,
    method_option,
)
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.evaluators import make_evaluator
from leadengine.knowledge import KnowledgeBase
from leadengine.pipeline import evaluate_site
from leadengine.retrieval import METHODS
from leadengine.web.site import load_site

__all__ = ["_run_with_progress_bar", "cli", "main", "seed_main"]

@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="leadengine")
def cli() -> None:
    """Qualify sales leads from their websites, with a knowledge base (RAG)."""


@cli.command()
@click.argument("targets", nargs=-1, required=True, metavar="URL|FILE...")
@llm_options
@knowledge_option
@method_option
@click.option("--no-rag", is_flag=True, help="Evaluate without advisory context.")
@click.option("--limit", "rag_limit", type=click.IntRange(min=0), default=None,
              help="Maximum knowledge passages in the context (default 3).")
@fetch_options
@guarded
def evaluate(targets: tuple[str, ...], provider: str | None, model: str | None,
             temperature: float | None, base_url: str | None, no_cache: bool,
             knowledge_dir: Path | None, method: str | None,
             no_rag: bool, rag_limit: int | None, allow_private: bool | None,
             ignore_robots: bool | None, max_pages: int | None) -> None:
    """Evaluate websites (URLs or saved HTML files) and print the evaluation JSON."""
    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method, rag_limit=rag_limit, use_rag=not no_rag,
                         use_cache=False if no_cache else None, allow_private=allow_private,
                         respect_robots=False if ignore_robots else None,
                         max_pages=max_pages)
    kb = _knowledge(settings)
    evaluator = make_evaluator(settings, kb)
    if settings.provider is None and evaluator.name == "heuristic":
        click.echo("notice: no LLM configured (set GROQ_API_KEY or --provider); using the "
                   "offline heuristic evaluator", err=True)
    results, failed = _run(_evaluate_all(targets, settings, kb, evaluator))
    if len(targets) == 1 and results:
        click.echo(results[0])
    elif results:
        click.echo("[\n" + ",\n".join(results) + "\n]")
    if failed:
        sys.exit(1)


async def _evaluate_all(targets: tuple[str, ...], settings: Settings, kb: KnowledgeBase,
                        evaluator: Any) -> tuple[list[str], int]:
    results: list[str] = []
    failed = 0
    for target in targets:
        try:
            site = await load_site(target, settings)
            evaluation = await evaluate_site(site, kb, settings, evaluator)
        except LeadEngineError as exc:
            if len(targets) == 1:
                raise
            click.echo(f"error: {exc}", err=True)
            failed += 1
            continue
        results.append(evaluation.to_json())
    return results, failed


@cli.command()
@guarded
def schema() -> None:
    """Print the JSON Schema of the evaluation output."""
    from leadengine.evaluation import Evaluation

    click.echo(json.dumps(Evaluation.model_json_schema(), indent=2))


@cli.command()
@click.argument("target", metavar="URL|FILE")
@llm_options
@knowledge_option
@method_option
@click.option("--json", "as_json", is_flag=True, help="Print both evaluations as JSON.")
@fetch_options
@guarded
def compare(target: str, provider: str | None, model: str | None,
            temperature: float | None, base_url: str | None, no_cache: bool,
            knowledge_dir: Path | None, method: str | None, as_json: bool,
            allow_private: bool | None, ignore_robots: bool | None,
            max_pages: int | None) -> None:
    """Evaluate one site with and without advisory context (RAG), side by side."""
    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method, use_cache=False if no_cache else None,
                         allow_private=allow_private,
                         respect_robots=False if ignore_robots else None, max_pages=max_pages)
    kb = _knowledge(settings)
    evaluator = make_evaluator(settings, kb)

    async def both() -> tuple[Any, Any]:
        site = await load_site(target, settings)
        with_rag = await evaluate_site(site, kb, settings.with_options(use_rag=True), evaluator)
        without = await evaluate_site(site, kb, settings.with_options(use_rag=False),
                                      evaluator)
        return with_rag, without

    with_rag, without = _run(both())
    if as_json:
        click.echo(json.dumps({"with_rag": with_rag.model_dump(mode="json"),
                               "without_rag": without.model_dump(mode="json")},
                              ensure_ascii=False, indent=2))
        return
    click.echo(compare_table(with_rag, without))


def compare_table(with_rag: Any, without: Any) -> str:
    """The seed's RAG vs no-RAG comparison as a two-column text table."""
    import textwrap

    rows = [("fit_score", "fit_score"), ("primary_service", "primary_service"),
            ("angle", "angle"), ("business_type", "business_type"),
            ("reasoning", "reasoning"), ("outreach_angle", "outreach_angle"),
            ("sources", "sources")]
    width = 44
    lines = [f"{'':<16} {'with RAG':<{width}} {'without RAG':<{width}}",
             f"{'':<16} {'-' * width} {'-' * width}"]
    for label, name in rows:
        left, right = getattr(with_rag, name), getattr(without, name)
        if name == "sources":
            left = ", ".join(f"{s.path}" + (f" > {s.heading.rsplit(' > ', 1)[-1]}"
                                             if s.heading else "") for s in left) or "-"
            right = ", ".join(s.path for s in right) or "-"
        a = textwrap.wrap(str(left if left is not None else "-"), width) or [""]
        b = textwrap.wrap(str(right if right is not None else "-"), width) or [""]
        for i in range(max(len(a), len(b))):
            lines.append(f"{label if i == 0 else '':<16} {a[i] if i < len(a) else '':<{width}} "
                         f"{b[i] if i < len(b) else ''}")
    lines.append(f"{'provider':<16} {with_rag.provider + ' / ' + with_rag.model:<{width}} "
                 f"{without.provider + ' / ' + without.model}")
    return "\n".join(lines)


@cli.command()
@click.argument("target", metavar="URL|FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the full profile as JSON.")
@fetch_options
@guarded
def profile(target: str, as_json: bool, allow_private: bool | None,
            ignore_robots: bool | None, max_pages: int | None) -> None:
    """Crawl a website and show what it reveals: contacts, signals with evidence, pages."""
    from leadengine.web.profile import build_profile, profile_summary

    settings = _settings(allow_private=allow_private, max_pages=max_pages,
                         respect_robots=False if ignore_robots else None)
    data = build_profile(_run(load_site(target, settings)))
    click.echo(json.dumps(data, ensure_ascii=False, indent=2) if as_json
               else profile_summary(data))


@cli.group()
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
        where = hit.path + (f" > {hit.heading}" if hit.heading else "")
        preview = " ".join(hit.text.split())[:100]
        click.echo(f"{rank}. {hit.score:g}  {where}\n   {preview}...")
        if explain:
            click.echo("   why: " + json.dumps(why[rank - 1], ensure_ascii=False))


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
    from leadengine.retrieval.metrics import evaluate as run_eval
    from leadengine.retrieval.metrics import format_table, load_qrels

    judged = load_qrels(qrels)
    knowledge = _knowledge(_settings(knowledge_dir=knowledge_dir))
    reports = run_eval(knowledge, judged, list(methods or METHODS))
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


for command in (batch, export, runs_command, show):
    cli.add_command(command)


def main() -> None:
    """Console-script entry point."""
    cli()


def seed_main(argv: list[str] | None = None) -> None:
    """``python main.py URL``: the seed's entry point, same as ``leadengine evaluate``."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        click.echo("usage: python main.py URL|FILE... [leadengine evaluate options]\n"
                   "Evaluates websites and prints the evaluation JSON. "
                   "See: leadengine evaluate --help")
        return
    cli(["evaluate", *args])
