"""Keys that never leak, configuration nobody asked for announced, error lines that a
hostile input cannot rewrite, and knowledge bases too empty or too large."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from leadengine import ConfigError, KnowledgeBase, KnowledgeError, Settings
from leadengine.cli import cli
from leadengine.config import PROVIDERS
from leadengine.config.redact import MASK, one_line, redact, safe_message
from tests.conftest import SITES, write_kb
from tests.fakes.openai_server import FakeOpenAI, Reply

KEY = "gsk_" + "A1b2C3d4E5f6G7h8J9k0L1m2N3p4"
SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")


def test_keys_headers_and_credentials_are_masked() -> None:
    text = (f"echo: Authorization: Bearer {KEY}; x-api-key={KEY}; "
            "sk-proj-abcdefghijklmnopqrstuvwx0123 at https://bob:hunter2@api.example/v1"
            "?api_key=s3cret&q=1")
    masked = redact(text)
    for secret in (KEY, "sk-proj-abcdefghijklmnopqrstuvwx0123", "hunter2", "bob:", "s3cret"):
        assert secret not in masked
    assert "https://[redacted]@api.example/v1?api_key=[redacted]&q=1" in masked
    # A configured key is masked whatever its shape.
    assert redact("the key is plainkey123", ["plainkey123"]) == f"the key is {MASK}"
    assert safe_message("x plainkey123", {"GROQ_API_KEY": "plainkey123"}) == f"x {MASK}"


def test_control_characters_are_shown_not_obeyed() -> None:
    assert one_line("a\r\nb\x1b[31mred\u202eevil\tc") == \
        "a\\r\\nb\\x1b[31mred\\u202eevil\\tc"
    # Burmese and Thai text, and joiners inside words, are left alone.
    assert one_line("ရန်ကုန် กรุงเทพ e\u200dmoji") == "ရန်ကုန် กรุงเทพ e\u200dmoji"


@given(st.text())
def test_a_safe_message_is_one_line_without_controls(text: str) -> None:
    shown = safe_message(text, {})
    assert "\n" not in shown and "\r" not in shown and "\x1b" not in shown
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in shown)


def test_an_error_line_cannot_rewrite_the_terminal() -> None:
    result = CliRunner().invoke(cli, ["evaluate", "missing\x1b[2J\rpage.html"])
    assert result.exit_code == 1
    last = result.stderr.splitlines()[-1]
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
    assert last == "error: missing\\x1b[2J\\rpage.html: file not found"


def test_an_endpoint_that_echoes_the_key_does_not_show_it(fake_llm: FakeOpenAI) -> None:
    fake_llm.queue(Reply.error(400, f"bad request; you sent Authorization: Bearer {KEY}"))
    result = CliRunner(env={"GROQ_API_KEY": KEY}).invoke(cli, [
        "evaluate", SITE, "--provider", "groq", "--base-url", fake_llm.base_url,
        "--model", "m", "--no-cache", "--method", "keyword"])
    assert result.exit_code == 1
    assert KEY not in result.output and KEY[4:] not in result.output
    assert result.stderr.endswith(f"you sent Authorization: {MASK}\n")


def test_a_folders_config_that_relaxes_security_is_announced(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    (tmp_path / "leadengine.toml").write_text("allow_private = true\nrespect_robots = false\n",
                                              encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["evaluate", SITE, "--method", "keyword"])
    assert result.exit_code == 0, result.output
    toml = str(tmp_path / "leadengine.toml")
    assert f"notice: {toml} sets allow_private = true: private and local addresses can " \
           "be fetched (SSRF guard off)" in result.stderr
    assert f"notice: {toml} sets respect_robots = false" in result.stderr
    # The user's own option decides it: nothing to announce.
    chosen = CliRunner().invoke(cli, ["evaluate", SITE, "--method", "keyword",
                                      "--allow-private"])
    assert "allow_private" not in chosen.stderr


def test_a_key_goes_only_to_its_own_endpoint(tmp_path: Path, fake_llm: FakeOpenAI,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "leadengine.toml").write_text(
        f'provider = "groq"\nbase_url = "{fake_llm.base_url}"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    refused = CliRunner(env={"GROQ_API_KEY": KEY}).invoke(
        cli, ["evaluate", SITE, "--method", "keyword", "--no-cache"])
    assert refused.exit_code == 1
    assert refused.stderr.splitlines()[-1] == (
        f"error: {tmp_path / 'leadengine.toml'} points groq at {fake_llm.base_url}, but "
        "GROQ_API_KEY is only sent to groq's own endpoint: name the endpoint yourself "
        "(--base-url) or put its key in LEADENGINE_API_KEY with --provider custom")
    assert fake_llm.chat_requests == []
    # Named by the user together with the key: sent.
    settings = Settings.load(env={"GROQ_API_KEY": KEY}, directory=tmp_path).with_options(
        base_url=fake_llm.base_url)
    assert settings.api_key(PROVIDERS["groq"]) == KEY
    # Endpoint and key in the same .env: the user put them together.
    (tmp_path / "leadengine.toml").unlink()
    (tmp_path / ".env").write_text(f"LEADENGINE_PROVIDER=groq\nGROQ_API_KEY={KEY}\n"
                                   f"LEADENGINE_BASE_URL={fake_llm.base_url}\n",
                                   encoding="utf-8")
    together = Settings.load(env={}, directory=tmp_path)
    assert together.api_key(together.resolve_provider()) == KEY
    # The endpoint from .env, the key from the user's environment: refused.
    (tmp_path / ".env").write_text(f"LEADENGINE_BASE_URL={fake_llm.base_url}\n",
                                   encoding="utf-8")
    split = Settings.load(env={"GROQ_API_KEY": KEY, "LEADENGINE_PROVIDER": "groq"},
                          directory=tmp_path)
    with pytest.raises(ConfigError, match="only sent to groq's own endpoint"):
        split.api_key(split.resolve_provider())


def test_a_knowledge_base_without_text_is_one_clear_error(tmp_path: Path) -> None:
    empty = write_kb(tmp_path / "empty", {"a.md": "", "b.md": "\n\n"})
    front = write_kb(tmp_path / "front", {"rules.md": "---\nleadengine:\n  rubric: "
                                                      "{base: 10}\n---\n"})
    for root, count in ((empty, 2), (front, 1)):
        with pytest.raises(KnowledgeError, match=f"has no text: its {count} .md file"):
            KnowledgeBase.from_dir(root)
        result = CliRunner().invoke(cli, ["kb", "search", "clinic", "--knowledge", str(root)])
        assert result.exit_code == 1 and result.stderr.startswith("error: knowledge directory")


def test_a_knowledge_base_past_the_semantic_cap_stays_bounded(tmp_path: Path) -> None:
    """Past the cap, hybrid ranks with bm25 alone (saying so) instead of embedding for
    most of an hour, and semantic asks for the cap to be raised."""
    files = {f"doc{i}.md": f"# Clinic {i}\nDental clinic number {i} in Bangkok.\n"
             for i in range(5)}
    root = write_kb(tmp_path / "kb", files)
    big = KnowledgeBase.from_dir(root, embedder="hash", cache_dir=tmp_path / "c",
                                 semantic_max_passages=3)
    hits = big.retrieve("dental clinic", limit=3, method="hybrid")
    assert len(hits) == 3
    assert big.retriever("hybrid").rankings("dental clinic")[1] == {}  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="more than the semantic index's cap of 3"):
        big.retrieve("dental clinic", method="semantic")
    small = KnowledgeBase.from_dir(root, embedder="hash", cache_dir=tmp_path / "c")
    assert small.retriever("hybrid").semantic is not None  # type: ignore[attr-defined]
    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    status = logging.getLogger("leadengine.status")
    status.addHandler(handler)
    status.setLevel(logging.INFO)
    try:
        KnowledgeBase.from_dir(root, embedder="hash", cache_dir=tmp_path / "c",
                               semantic_max_passages=3).retrieve("clinic", method="hybrid")
    finally:
        status.removeHandler(handler)
    assert said == ["the knowledge base has 5 passages, more than the semantic index's cap "
                    "of 3: hybrid ranks with bm25 alone (raise "
                    "LEADENGINE_SEMANTIC_MAX_PASSAGES to embed them, once)"]


@given(st.binary(max_size=400) | st.text(max_size=400).map(lambda t: t.encode("utf-8")))
def test_front_matter_parser_never_raises_outside_the_error_tree(raw: bytes) -> None:
    """Any bytes as a knowledge file give a document or a KnowledgeError naming the file,
    never a YAML, pydantic or Unicode exception."""
    from leadengine.knowledge.base import parse_document

    try:
        document = parse_document("f.md", raw)
    except KnowledgeError as exc:
        assert str(exc).startswith("f.md")
    else:
        assert document.path == "f.md"


@given(st.dictionaries(st.sampled_from(["rubric", "geography", "industries", "angles",
                                        "services", "bogus"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.text(),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                                    max_leaves=8), max_size=3))
def test_any_front_matter_rules_load_or_name_the_problem(rules: dict[str, object]) -> None:
    import json
    import tempfile

    text = "---\nleadengine: " + json.dumps(rules) + "\n---\n# Body\nDental clinics.\n"
    with tempfile.TemporaryDirectory() as folder:
        root = write_kb(Path(folder), {"r.md": text})
        try:
            KnowledgeBase.from_dir(root)
        except KnowledgeError as exc:
            assert "r.md" in str(exc)
