"""The ``leadengine`` command: a thin layer over the library.

It parses options into :class:`~leadengine.config.Settings`, calls the
library, prints JSON, and turns every :class:`LeadEngineError` into one line
on stderr and a non-zero exit code.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from leadengine import __version__
from leadengine.cli.batch import _run_with_progress_bar, batch
from leadengine.cli.common import (
    _evaluator,
    _knowledge,
    _run,
    _settings,
    fetch_options,
    guarded,
    knowledge_option,
    llm_options,
    method_option,
    outreach_option,
    question_option,
    start_up,
    warn_error,
)
from leadengine.cli.discover import discover
from leadengine.cli.examples import add_examples
from leadengine.cli.knowledge import kb
from leadengine.cli.models import models
from leadengine.cli.results import export, runs_command, show
from leadengine.cli.serve import serve
from leadengine.cli.users import users
from leadengine.config import Settings
from leadengine.errors import LeadEngineError
from leadengine.output import FORMATS

if TYPE_CHECKING:
    from leadengine.judgement import Evaluation, Evaluator
    from leadengine.retrieval import KnowledgeBase

__all__ = ["_run_with_progress_bar", "cli", "main", "seed_main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="leadengine")
def cli() -> None:
    """Qualify sales leads from their websites, with a knowledge base (RAG)."""


def output_format(fmt: str | None) -> str:
    """The format asked for, else a readable report on a terminal and JSON in a pipe."""
    if fmt is not None:
        return fmt
    return "text" if sys.stdout.isatty() else "json"


format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default=None,
    help="text: a readable report; markdown: a one-page lead brief; json: the evaluation "
         "JSON. Default: text on a terminal, json when piped.")


@cli.command()
@click.argument("targets", nargs=-1, required=True, metavar="URL|FILE...")
@format_option
@llm_options
@knowledge_option
@method_option
@click.option("--no-rag", is_flag=True, help="Evaluate without advisory context.")
@click.option("--limit", "rag_limit", type=click.IntRange(min=0), default=None,
              help="Maximum knowledge passages in the context (default 3).")
@question_option
@outreach_option
@fetch_options
@guarded
def evaluate(targets: tuple[str, ...], fmt: str | None, provider: str | None,
             model: str | None, temperature: float | None, base_url: str | None,
             no_cache: bool, no_fallback: bool, knowledge_dir: Path | None, method: str | None,
             no_rag: bool, rag_limit: int | None, questions: tuple[str, ...],
             outreach_language: str | None,
             outreach_writer: str | None, allow_private: bool | None, ignore_robots: bool | None,
             max_pages: int | None, render: str | None) -> None:
    """Evaluate websites (URLs, saved HTML files or folders) and print the evaluation."""
    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         outreach_language=outreach_language, outreach_writer=outreach_writer,
                         retrieval_method=method, rag_limit=rag_limit, use_rag=not no_rag,
                         use_cache=False if no_cache else None,
                         fallback=False if no_fallback else None,
                         allow_private=allow_private,
                         respect_robots=False if ignore_robots else None,
                         max_pages=max_pages, render=render)
    fmt = output_format(fmt)
    kb = _knowledge(settings, questions)
    evaluator = _evaluator(settings, kb)
    results, failed = _run(_evaluate_all(targets, settings, kb, evaluator))
    click.echo(_present(results, fmt, kb.rules.rubric.bands))
    if failed:
        sys.exit(1)


def _present(results: list[Evaluation], fmt: str, bands: dict[str, int]) -> str:
    """Evaluations as one JSON value (an object, or an array for several) or as reports
    separated by a rule."""
    from leadengine.output import render_report

    if not results:
        return ""
    if fmt == "json":
        if len(results) == 1:
            return results[0].to_json()
        return "[\n" + ",\n".join(r.to_json() for r in results) + "\n]"
    rule = "\n\n---\n\n" if fmt == "markdown" else "\n\n" + "=" * 88 + "\n\n"
    return rule.join(render_report(r.model_dump(mode="json"), fmt, bands) for r in results)


async def _evaluate_all(targets: tuple[str, ...], settings: Settings, kb: KnowledgeBase,
                        evaluator: Evaluator) -> tuple[list[Evaluation], int]:
    from leadengine.pipeline import evaluate_site
    from leadengine.website import lead_target, load_site

    results: list[Evaluation] = []
    failed = 0
    for target in targets:
        try:
            site = await load_site(lead_target(target), settings)
            evaluation = await evaluate_site(site, kb, settings, evaluator)
        except LeadEngineError as exc:
            if len(targets) == 1:
                raise
            warn_error(str(exc))
            failed += 1
            continue
        results.append(evaluation)
    return results, failed


@cli.command()
@guarded
def schema() -> None:
    """Print the JSON Schema of the evaluation output."""
    from leadengine.judgement import Evaluation

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
            temperature: float | None, base_url: str | None, no_cache: bool, no_fallback: bool,
            knowledge_dir: Path | None, method: str | None, as_json: bool,
            allow_private: bool | None, ignore_robots: bool | None,
            max_pages: int | None, render: str | None) -> None:
    """Evaluate one site with and without advisory context (RAG), side by side."""
    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method, use_cache=False if no_cache else None,
                         fallback=False if no_fallback else None,
                         allow_private=allow_private,
                         respect_robots=False if ignore_robots else None,
                         max_pages=max_pages, render=render)
    from leadengine.pipeline import evaluate_site
    from leadengine.website import load_site

    kb = _knowledge(settings)
    evaluator = _evaluator(settings, kb)
    if evaluator.name == "heuristic":
        click.echo("notice: the offline evaluator judges from the site's signals and the "
                   "knowledge base's rules; with it the two columns can differ only through "
                   "the advisory context (the sources), not the judgement", err=True)

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
        # A URL or a path is never cut in two: a word longer than the column has a line
        # of its own, and the other column goes on under it.
        a = textwrap.wrap(str(left if left is not None else "-"), width,
                          break_long_words=False, break_on_hyphens=False) or [""]
        b = textwrap.wrap(str(right if right is not None else "-"), width,
                          break_long_words=False, break_on_hyphens=False) or [""]
        for i in range(max(len(a), len(b))):
            first = label if i == 0 else ""
            one, two = a[i] if i < len(a) else "", b[i] if i < len(b) else ""
            if len(one) > width and two:
                lines += [f"{first:<16} {one}", f"{'':<16} {'':<{width}} {two}"]
            else:
                lines.append(f"{first:<16} {one:<{width}} {two}".rstrip())
    lines.append(f"{'provider':<16} {with_rag.provider + ' / ' + with_rag.model:<{width}} "
                 f"{without.provider + ' / ' + without.model}")
    return "\n".join(lines)


@cli.command()
@click.argument("target", metavar="URL|FILE")
@click.option("--json", "as_json", is_flag=True, help="Print the full profile as JSON.")
@fetch_options
@guarded
def profile(target: str, as_json: bool, allow_private: bool | None,
            ignore_robots: bool | None, max_pages: int | None, render: str | None) -> None:
    """Crawl a website and show what it reveals: contacts, signals with evidence, pages."""
    from leadengine.website import build_profile, load_site, profile_summary

    settings = _settings(allow_private=allow_private, max_pages=max_pages, render=render,
                         respect_robots=False if ignore_robots else None)
    data = build_profile(_run(load_site(target, settings)))
    click.echo(json.dumps(data, ensure_ascii=False, indent=2) if as_json
               else profile_summary(data))


@cli.command("eval-judge")
@click.argument("labels", type=click.Path(path_type=Path, dir_okay=False))
@llm_options
@knowledge_option
@method_option
@click.option("--json", "as_json", is_flag=True,
              help="Print the scores and each miss as JSON.")
@fetch_options
@guarded
def eval_judge(labels: Path, provider: str | None, model: str | None,
               temperature: float | None, base_url: str | None, no_cache: bool, no_fallback: bool,
               knowledge_dir: Path | None, method: str | None, as_json: bool,
               allow_private: bool | None, ignore_robots: bool | None,
               max_pages: int | None, render: str | None) -> None:
    """Measure an evaluator against labelled sites (LABELS: JSON Lines, one site per line
    with its expected band, angle, never_pitch, category and in_target_geography; see
    examples/judge-labels.jsonl): the accuracy of each, and every miss."""
    import json

    from leadengine.judgement import read_labels, score
    from leadengine.pipeline import evaluate_labels

    settings = _settings(provider=provider, model=model, temperature=temperature,
                         base_url=base_url, knowledge_dir=knowledge_dir,
                         retrieval_method=method, use_cache=False if no_cache else None,
                         fallback=False if no_fallback else None,
                         allow_private=allow_private,
                         respect_robots=False if ignore_robots else None,
                         max_pages=max_pages, render=render)
    found = read_labels(labels)
    kb = _knowledge(settings)
    evaluator = _evaluator(settings, kb)  # a missing key fails here, before any fetch
    scores = score(found, _run(evaluate_labels(found, settings)),
                   dict(kb.rules.rubric.bands))
    if as_json:
        click.echo(json.dumps({"provider": evaluator.name, "model": evaluator.model,
                               "sites": len(found), **scores.as_dict()},
                              ensure_ascii=False, indent=2))
        return
    click.echo(f"{evaluator.name} ({evaluator.model}) on {len(found)} labelled sites")
    click.echo(scores.table())
    for line in scores.misses + [f"failed: {f}" for f in scores.failed]:
        click.echo(f"  {line}")


for command in (kb, batch, discover, export, runs_command, show, models, serve, users):
    cli.add_command(command)
add_examples(cli)


def main() -> None:
    """Console-script entry point."""
    start_up()
    _show_status()
    try:
        cli()
    finally:
        _before_exit()


def _before_exit() -> None:
    """What the command made is left to the process's end, not collected at it: Python's
    final collections walk every object still alive (the pipeline's modules, the
    place-name gazetteer, a batch's rows), about 0.3 s of each command's exit; frozen,
    they are skipped. Collection is on again (off for the start-up: see
    :func:`~leadengine.cli.common.start_up`), for whatever runs after the command."""
    import gc

    gc.freeze()
    gc.enable()


def _show_status() -> None:
    """Slow one-off work (building the semantic index) reports on stderr, so a first run
    does not look hung."""
    import logging

    status = logging.getLogger("leadengine.status")
    if not status.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("status: %(message)s"))
        status.addHandler(handler)
        status.setLevel(logging.INFO)
        status.propagate = False


def seed_main(argv: list[str] | None = None) -> None:
    """``python main.py URL``: the seed's entry point, ``leadengine evaluate`` printing
    the evaluation JSON (``--format text`` for a readable report)."""
    start_up()
    _show_status()
    args = sys.argv[1:] if argv is None else argv
    try:
        evaluate.main(args, prog_name="main.py", default_map={"fmt": "json"},
                      help_option_names=["-h", "--help"])
    finally:
        _before_exit()
