"""The command line: JSON out, one clear line and a non-zero exit on bad input, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from tests.conftest import REPO, SITES, write_kb
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.fakes.site_server import SiteServer

SIX = {"business_name", "business_type", "primary_service", "fit_score", "reasoning",
       "outreach_angle"}


def run_main(*args: str, env: dict[str, str] | None = None,
             cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``python main.py ARGS`` in a real process, as a user would run it."""
    full_env = {k: v for k, v in os.environ.items()
                if k == "LEADENGINE_CACHE_DIR" or (not k.startswith("LEADENGINE_")
                and k not in ("GROQ_API_KEY", "OPENAI_API_KEY"))}
    full_env["LEADENGINE_USE_CACHE"] = "0"
    full_env.update(env or {})
    return subprocess.run([sys.executable, str(REPO / "main.py"), *args], capture_output=True,
                          text=True, env=full_env, cwd=cwd, timeout=60)


def assert_one_line_error(result: subprocess.CompletedProcess[str], pattern: str) -> None:
    assert result.returncode != 0
    assert result.stdout == ""
    lines = [line for line in result.stderr.strip().splitlines()
             if not line.startswith("notice: ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert pattern in lines[0], lines[0]
    assert "Traceback" not in result.stderr


def test_main_py_evaluates_the_bundled_example_offline() -> None:
    result = run_main("examples/smile-bright-dental/index.html")
    assert result.returncode == 0, result.stderr
    evaluation = json.loads(result.stdout)
    assert set(evaluation) >= SIX
    assert evaluation["provider"] == "heuristic"
    assert evaluation["business_name"] == "Smile Bright Dental"
    assert result.stderr.strip() == ("notice: no LLM configured (set GROQ_API_KEY or "
                                     "--provider); using the offline heuristic evaluator")


def test_a_command_leaves_what_it_made_out_of_the_exit_s_collections(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's collections at exit walk every object still alive (0.3 s of each
    command's end): the entry points freeze them first, however the command ends."""
    import gc

    from leadengine import cli as cli_module

    for entry, argv in ((cli_module.main, ["leadengine", "--version"]),
                        (cli_module.seed_main, ["main.py", "--help"])):
        gc.unfreeze()
        monkeypatch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit) as done:
            entry()
        assert done.value.code == 0
        assert gc.get_freeze_count() > 0
        assert gc.isenabled()
    gc.unfreeze()


def test_a_command_starts_up_without_collections_and_works_with_them() -> None:
    """A command's start-up (imports, data) runs without cycle collections, each of which
    walked everything loaded so far (three in a batch's start, 130 ms); what it loaded
    is frozen and collection is back on when the work begins. A process that did not
    start as a command (a test, the workspace's jobs) is left as it is."""
    import gc

    from leadengine.cli.common import start_up, work_begins

    gc.unfreeze()
    try:
        work_begins()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        start_up()
        assert not gc.isenabled()
        loaded = [[] for _ in range(1000)]
        work_begins()
        assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)
    finally:
        gc.enable()
        gc.unfreeze()


def test_main_py_evaluates_a_url(sites: SiteServer) -> None:
    result = run_main(sites.url("yangon-school/"), "--provider", "heuristic",
                      "--allow-private")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["url"] == sites.url("yangon-school/")
    assert result.stderr == ""


def test_main_py_with_an_llm(fake_llm: FakeOpenAI) -> None:
    answer = {"business_name": "Smile Bright Dental", "business_type": "Dental Clinic",
              "primary_service": "Foundation Package", "fit_score": 88,
              "reasoning": "Bangkok clinic.", "outreach_angle": "Platform dependency."}
    fake_llm.queue(Reply.json(answer))
    result = run_main("examples/smile-bright-dental/index.html", "--provider", "groq",
                      "--model", "m1",
                      env={"GROQ_API_KEY": "k", "LEADENGINE_BASE_URL": fake_llm.base_url})
    assert result.returncode == 0, result.stderr
    evaluation = json.loads(result.stdout)
    assert {k: evaluation[k] for k in SIX} == answer
    assert (evaluation["provider"], evaluation["model"]) == ("groq", "m1")


@pytest.mark.parametrize("args,pattern", [
    (["not a url"], "not a valid URL or existing file"),
    (["http://"], "not a valid URL"),
    (["ftp://example.com/"], "unsupported URL scheme 'ftp'"),
    (["x.html", "--knowledge", "no-such-dir"], "knowledge directory not found: no-such-dir"),
    (["x.html", "--provider", "groq"], "needs an API key: set GROQ_API_KEY"),
])
def test_bad_input_is_one_line(args: list[str], pattern: str) -> None:
    assert_one_line_error(run_main(*args), pattern)


def test_http_errors_and_wrong_content_are_one_line(sites: SiteServer) -> None:
    sites.route("/cli-report.pdf", body=b"%PDF-1.4", content_type="application/pdf")
    assert_one_line_error(run_main(sites.url("nope.html"), "--allow-private"),
                          "HTTP 404 Not Found")
    assert_one_line_error(run_main(sites.url("cli-report.pdf"), "--allow-private"),
                          "is application/pdf")
    assert_one_line_error(run_main(sites.url("yangon-school/")),
                          "a private or local address; refused (use --allow-private")


def test_empty_knowledge_dir(tmp_path: Path) -> None:
    empty = tmp_path / "kb"
    empty.mkdir()
    assert_one_line_error(run_main(str(SITES / "near-empty"), "--knowledge", str(empty)),
                          "has no .md files")


def test_invalid_api_key_and_garbage_answers(fake_llm: FakeOpenAI) -> None:
    env = {"GROQ_API_KEY": "wrong", "LEADENGINE_BASE_URL": fake_llm.base_url,
           "LEADENGINE_LLM_RETRIES": "0"}
    fake_llm.queue(Reply.error(401, "Invalid API Key"))
    assert_one_line_error(run_main("examples/smile-bright-dental", "--provider", "groq",
                                   env=env),
                          "groq rejected the API key (HTTP 401): set a valid GROQ_API_KEY")
    fake_llm.queue(Reply.content("I think it's a nice clinic!"), Reply.content("<html>"))
    assert_one_line_error(run_main("examples/smile-bright-dental", "--provider", "groq",
                                   env=env),
                          "did not return a valid evaluation after one repair attempt")


def test_unreachable_host_is_one_line() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert_one_line_error(run_main(f"http://127.0.0.1:{port}/", "--allow-private"),
                          "connection refused")


def test_several_targets_print_an_array_and_report_failures() -> None:
    runner = CliRunner()
    result = runner.invoke(cli, ["evaluate", "--provider", "heuristic",
                                 str(SITES / "yangon-school"), "missing.html",
                                 str(SITES / "bangkok-hotel")])
    assert result.exit_code == 1
    evaluations = json.loads(result.stdout)
    assert [e["business_name"] for e in evaluations] == [
        json.loads((SITES / s / "expected.json").read_text())["business_name"]
        for s in ("yangon-school", "bangkok-hotel")]
    assert "error: missing.html: file not found" in result.stderr


def test_no_rag_and_limit_options() -> None:
    runner = CliRunner()
    target = str(SITES / "yangon-school")
    result = runner.invoke(cli, ["evaluate", "--provider", "heuristic", "--no-rag", target])
    assert json.loads(result.stdout)["rag"] is False
    assert json.loads(result.stdout)["sources"] == []
    result = runner.invoke(cli, ["evaluate", "--provider", "heuristic", "--limit", "1", target])
    assert len(json.loads(result.stdout)["sources"]) == 1


def test_kb_search_shows_scores(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"clinic.md": "Medical clinic owners in Bangkok.",
                                      "food.md": "restaurant"})
    runner = CliRunner()
    result = runner.invoke(cli, ["kb", "search", "medical clinic bangkok", "--method",
                                 "keyword", "--knowledge", str(root)])
    assert result.exit_code == 0
    # "bangkok." keeps its full stop: no intersection, only the long-word boost.
    assert result.stdout.splitlines()[:2] == ["1. clinic.md   (score 3.5)",
                                              "   Medical clinic owners in Bangkok."]
    result = runner.invoke(cli, ["kb", "search", "medical clinic bangkok", "--json",
                                 "--method", "keyword", "--knowledge", str(root)])
    assert json.loads(result.stdout) == [{"path": "clinic.md", "heading": None, "score": 3.5,
                                          "text": "Medical clinic owners in Bangkok."}]
    result = runner.invoke(cli, ["kb", "search", "zzz", "--method", "keyword", "--knowledge",
                                 str(root)])
    assert result.stdout == "no relevant passages\n"


def test_kb_list(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "# A\none two"})
    result = CliRunner().invoke(cli, ["kb", "list", "--knowledge", str(root)])
    assert "- a.md: 4 words, 1 sections" in result.stdout


def test_unknown_method_is_rejected_by_the_parser() -> None:
    result = CliRunner().invoke(cli, ["kb", "search", "x", "--method", "magic"])
    assert result.exit_code == 2 and "Invalid value for '--method'" in result.output


def test_console_script_module_entry_point() -> None:
    result = subprocess.run([sys.executable, "-m", "leadengine", "--version"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("leadengine, version ")


def test_a_ray_batch_on_sqlite_is_refused_before_anything_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--engine ray`` with a SQLite file: one line, before "running on Ray" and before
    the database file exists."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "urls.txt").write_text("https://example.com/\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["batch", "urls.txt", "--engine", "ray",
                                      "--provider", "heuristic"])
    assert result.exit_code == 1
    assert result.stderr == ("error: --engine ray needs a PostgreSQL database (--db "
                             "postgresql://...): the cluster's workers all write to it, and "
                             "SQLite is a file on one machine\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["urls.txt"]



def test_runs_are_listed_in_aligned_columns_with_their_host(tmp_path: Path) -> None:
    from leadengine.store import Store

    db = str(tmp_path / "r.db")
    store = Store(db)
    for provider, model, name in (("heuristic", "rules-v1", "first.csv"),
                                  ("groq", "llama-3.3-70b-versatile", "second.csv")):
        store.finish_run(store.start_run(name, "kb", provider, model))
    store.engine.dispose()
    lines = CliRunner().invoke(cli, ["runs", "--db", db]).stdout.splitlines()
    assert lines[0].split()[-3:] == ["host", "evaluator", "input"]
    starts = {line.index(name) for line, name in zip(lines[1:], ("first.csv", "second.csv"),
                                                     strict=True)}
    assert len(starts) == 1 and lines[0].index("input") in starts
