"""Readable output: the lead report on a terminal, the markdown brief, the notices, the
examples in every --help, and a start-up that imports only what a command uses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from leadengine.cli.examples import EXAMPLES
from leadengine.judgement.bands import band_name
from leadengine.output.report import markdown_report, render_report, text_report
from tests.conftest import REPO, SITES

REPORTS = REPO / "tests" / "fixtures" / "reports"
STORED = json.loads((REPORTS / "smile-bright-dental.json").read_text(encoding="utf-8"))


def test_markdown_brief_matches_the_snapshot() -> None:
    want = (REPORTS / "smile-bright-dental.md").read_text(encoding="utf-8")
    assert markdown_report(STORED) == want


def test_text_report_reads_like_a_brief_not_json() -> None:
    text = text_report(STORED)
    lines = text.splitlines()
    assert lines[0] == "Smile Bright Dental  (Healthcare Provider)"
    assert "Fit score    86/100 (High)" in lines
    assert "Pitch        Foundation Package" in lines
    assert "Angle        Platform Dependency Risk" in lines
    assert any(line.startswith("Location     Smile Bright Dental · 2nd floor") for line in lines)
    assert "  + Facebook page: https://www.facebook.com/SmileBrightDentalBKK" in lines
    assert "  - no analytics" in lines
    assert "  Phone      +6625550147" in lines
    assert "  strategy_efficiency.md > Strategy Framework: Conversation Angles > Platform " \
           "Dependency Risk" in lines
    assert not any(char in text for char in "{}")
    assert max(len(line) for line in lines[:lines.index("Knowledge used")]) <= 88


def test_bands_come_from_the_rubric() -> None:
    assert [band_name(s) for s in (86, 70, 69, 40, 39, 0)] == [
        "High", "High", "Medium", "Medium", "Low", "Low"]
    assert band_name(60, {"hot": 60, "cold": 0}) == "Hot"


def test_website_text_cannot_inject_markdown() -> None:
    hostile = {**STORED, "business_name": "Evil | [click](http://x.example) <img src=x>",
               "reasoning": "**bold** `code`"}
    brief = markdown_report(hostile)
    assert brief.splitlines()[0] == (
        r"# Evil \| \[click\](http://x.example) \<img src=x>")
    assert r"**Why:** \*\*bold\*\* \`code\`" in brief
    # A stored row from an older version, with fields missing, still renders.
    assert render_report({"business_name": "Old", "fit_score": 10}, "text").startswith("Old")


def test_evaluate_prints_a_report_or_json_as_asked(tmp_path: Path) -> None:
    site = str(SITES / "bangkok-dental-fb-only" / "index.html")
    runner = CliRunner()
    text = runner.invoke(cli, ["evaluate", site, "--format", "text"])
    assert text.exit_code == 0, text.output
    assert "Fit score" in text.stdout and "Outreach" in text.stdout
    assert "{" not in text.stdout
    assert text.stderr.count("notice: no LLM configured") == 1
    markdown = runner.invoke(cli, ["evaluate", site, "--format", "markdown"])
    assert markdown.stdout.startswith("# ") and "| Fit score | Pitch | Angle |" in markdown.stdout
    # Not a terminal (CliRunner, a pipe): JSON, as scripts expect.
    piped = runner.invoke(cli, ["evaluate", site])
    assert json.loads(piped.stdout)["fit_score"] == json.loads(
        runner.invoke(cli, ["evaluate", site, "--format", "json"]).stdout)["fit_score"]


def test_main_py_prints_json_and_its_help_names_main_py() -> None:
    run = [sys.executable, str(REPO / "main.py")]
    helped = subprocess.run([*run, "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0
    assert helped.stdout.startswith("Usage: main.py [OPTIONS] URL|FILE...")
    assert "evaluate" not in helped.stdout.splitlines()[0]


def test_compare_with_the_offline_evaluator_says_what_can_differ() -> None:
    site = str(SITES / "bangkok-dental-fb-only" / "index.html")
    result = CliRunner().invoke(cli, ["compare", site])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("notice: no LLM configured") == 1
    assert "can differ only through the advisory context" in result.stderr


def _commands(group: click.Group, path: str = "") -> list[tuple[str, click.Command]]:
    found: list[tuple[str, click.Command]] = []
    for name, command in group.commands.items():
        sub = f"{path} {name}".strip()
        found.append((sub, command))
        if isinstance(command, click.Group):
            found += _commands(command, sub)
    return found


@pytest.mark.parametrize("path", [p for p, _ in _commands(cli)])
def test_every_help_has_examples(path: str) -> None:
    result = CliRunner().invoke(cli, [*path.split(), "--help"])
    assert result.exit_code == 0
    assert "Examples:\n    leadengine " in result.stdout, path
    assert path in EXAMPLES


def test_help_and_kb_search_start_without_the_heavy_libraries() -> None:
    """``--help`` imports only click and the command modules (measured ~60 ms, was 560 ms);
    ``kb search --method keyword`` never loads the page reader or the HTTP client."""
    probe = ("import sys\n"
             "from leadengine.cli import cli\n"
             "try:\n    cli(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
             "heavy = ['trafilatura', 'numpy', 'httpx', 'pydantic', 'sqlalchemy', 'lxml']\n"
             "print('LOADED:', *(m for m in heavy if m in sys.modules))")
    helped = subprocess.run([sys.executable, "-c", probe, "--help"], capture_output=True,
                            text=True, timeout=60, cwd=REPO)
    assert helped.stdout.splitlines()[-1] == "LOADED:", helped.stdout[-300:]
    searched = subprocess.run([sys.executable, "-c", probe, "kb", "search", "dental clinic",
                               "--method", "keyword"],
                              capture_output=True, text=True, timeout=60, cwd=REPO)
    loaded = searched.stdout.splitlines()[-1].split()
    assert loaded[0] == "LOADED:", searched.stdout[-300:]
    assert "trafilatura" not in loaded and "httpx" not in loaded and "lxml" not in loaded


def test_first_semantic_index_build_says_so(tmp_path: Path) -> None:
    """A first run that embeds the knowledge base shows a status line, not a silent pause."""
    from leadengine.cli.commands import _show_status

    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    (kb_dir / "a.md").write_text("# Clinics\nDental clinics in Bangkok.\n", encoding="utf-8")
    _show_status()
    env_cache = tmp_path / "cache"
    code = ("import os, sys\n"
            f"os.environ['LEADENGINE_CACHE_DIR'] = {str(env_cache)!r}\n"
            "from leadengine.cli import main\n"
            "sys.argv = ['leadengine', 'kb', 'search', 'clinic', '--method', 'semantic',\n"
            f"            '--knowledge', {str(kb_dir)!r}]\n"
            "main()\n")
    env = {"PATH": "/usr/bin:/bin", "LEADENGINE_EMBEDDER": "hash", "HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, cwd=REPO, env=env)
    assert first.returncode == 0, first.stderr
    assert "status: building the semantic index: embedding 1 knowledge passage(s)" in first.stderr
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, cwd=REPO, env=env)
    assert "building the semantic index" not in again.stderr


def test_a_missing_dependency_is_one_line_naming_it(tmp_path: Path) -> None:
    """An install that lacks a package (lxml_html_clean under an old pip, say) fails with
    one line that names it and the fix, never a traceback."""
    (tmp_path / "trafilatura.py").write_text(
        'raise ImportError("lxml.html.clean module is now a separate project '
        'lxml_html_clean.\\nInstall lxml[html-clean] or lxml_html_clean directly.")\n',
        encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path), "HOME": str(tmp_path)}
    result = subprocess.run([sys.executable, str(REPO / "main.py"),
                             str(REPO / "examples" / "smile-bright-dental" / "index.html")],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    [line] = [x for x in result.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith("error: a package the engine needs is missing (lxml.html.clean "
                           "module is now a separate project lxml_html_clean.)")
    assert "pip install ." in line


def test_batch_says_once_that_it_evaluates_offline(tmp_path: Path) -> None:
    leads = tmp_path / "leads.txt"
    leads.write_text(f"{SITES / 'bangkok-dental-fb-only'}\n{SITES / 'bangkok-hotel'}\n",
                     encoding="utf-8")
    result = CliRunner(env={"LEADENGINE_RETRIEVAL": "keyword"}).invoke(
        cli, ["batch", str(leads), "--db", str(tmp_path / "r.db")])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("notice: no LLM configured") == 1
    assert "2 evaluated, 0 failed" in result.stderr
    explicit = CliRunner().invoke(cli, ["batch", str(leads), "--db", str(tmp_path / "r.db"),
                                        "--provider", "heuristic"])
    assert "notice: no LLM configured" not in explicit.stderr


@pytest.mark.parametrize(("site", "city", "target"), [
    ("bangkok-clinic-mature", "Bangkok", True), ("yangon-clinic-burmese", "Yangon", True),
    ("london-bakery", "London", False)])
def test_the_evaluation_says_where_the_business_is(site: str, city: str | None,
                                                   target: bool) -> None:
    result = CliRunner().invoke(cli, ["evaluate", str(SITES / site / "index.html"),
                                      "--format", "json", "--method", "keyword"])
    where = json.loads(result.stdout)["location"]
    assert where["city"] == city and where["in_target_geography"] is target
    assert where["evidence"]
    if city:
        report = text_report(json.loads(result.stdout))
        [line] = [x for x in report.splitlines() if x.startswith("Location")]
        assert city in line
