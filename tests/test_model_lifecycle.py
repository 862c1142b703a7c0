"""Providers as they are today, and work that outlives the next model retirement: the
model catalogue (its data, a user's catalogue over it, bad files), switching from a
retired model or one out of its day's quota, requests held under the tokens-per-minute
limit, and ``leadengine models --check``. Real HTTP against fake servers on 127.0.0.1
that answer as each provider's documentation says (tests/fakes)."""

from __future__ import annotations

import asyncio
import datetime
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine import (
    ConfigError,
    Evaluation,
    KnowledgeBase,
    ModelUnavailable,
    QuotaExhausted,
    Settings,
)
from leadengine.cli import cli
from leadengine.config.catalogue import STATUSES, Capabilities
from leadengine.config.catalogue_file import BUNDLED, load
from leadengine.config.providers import PROVIDERS
from leadengine.judgement.evaluation import STRICT_ANSWER_SCHEMA
from leadengine.judgement.evaluators import make_evaluator
from leadengine.judgement.evaluators.llm import LLMEvaluator
from leadengine.judgement.ratelimit import RateLimiter
from leadengine.pipeline import evaluate_url
from tests.conftest import SITES
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import (
    FakeOpenAI,
    Reply,
    count_tokens,
    groq_decommissioned,
    groq_not_found,
    groq_rate_limited,
)

GOOD = {"business_name": "Smile Bright Dental", "business_type": "Dental Healthcare Provider",
        "primary_service": "Foundation Package", "fit_score": 80,
        "reasoning": "Bangkok clinic with a Facebook-only presence.",
        "outreach_angle": "Platform dependency risk.", "angle": "Platform Dependency Risk"}
SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")
TODAY = datetime.date.today()


def groq(fake: FakeOpenAI, **extra: Any) -> Settings:
    extra.setdefault("use_cache", False)
    extra.setdefault("llm_retries", 0)
    extra.setdefault("retrieval_method", "keyword")
    return Settings(provider="groq", base_url=fake.base_url, env={"GROQ_API_KEY": "k"},
                    **extra)


def evaluate(settings: Settings, kb: KnowledgeBase, site: str = SITE) -> Evaluation:
    return asyncio.run(evaluate_url(site, settings, kb))


# --- the catalogue ----------------------------------------------------------------------

def test_no_default_is_deprecated_or_retired_and_every_default_has_a_price() -> None:
    catalogue = load()
    for provider in PROVIDERS.values():
        model = provider.default_model or catalogue.default(provider.name)
        assert model, provider.name
        if provider.name in ("custom", "heuristic"):
            continue  # an endpoint's own default; the rules need no model
        entry = catalogue.entry(provider.name, model)
        assert entry is not None, (provider.name, model)
        assert entry.status_on(catalogue.checked) in ("active", "preview"), (provider, entry)
        assert entry.price is not None, (provider.name, model)
    assert catalogue.default("anthropic") == "claude-sonnet-5-5"
    assert catalogue.default("groq") == "openai/gpt-oss-120b"
    openai = catalogue.entry("openai", catalogue.default("openai") or "")
    assert openai is not None and openai.status == "active" and openai.retires is None


def test_every_entry_names_its_page_and_when_it_was_read() -> None:
    catalogue = load()
    entries = {id(e): e for e in catalogue.models.values()}.values()
    assert len(entries) >= 30
    for entry in entries:
        assert entry.source.startswith("https://"), entry
        assert entry.checked <= catalogue.checked, entry
        assert entry.status in STATUSES
        if entry.retires is not None and entry.deprecated is not None:
            assert entry.deprecated < entry.retires, entry
        if entry.replacement:  # a replacement the catalogue knows is not itself retired
            after = catalogue.replacement(entry.provider, entry.id, catalogue.checked)
            follower = catalogue.entry(entry.provider, after or "")
            assert follower is None or follower.status_on(catalogue.checked) != "retired"
    for family in catalogue.families:
        assert family.source.startswith("https://") and family.checked <= catalogue.checked


def test_the_facts_the_issue_names() -> None:
    """The lifecycle and prices read from the providers' pages on 2026-12-07."""
    catalogue = load()
    sonnet45 = catalogue.entry("anthropic", "claude-sonnet-4-5-20250929")
    assert sonnet45 is not None and sonnet45.retires == datetime.date(2026, 11, 30)
    assert sonnet45.replacement == "claude-sonnet-5-5"
    sonnet55 = catalogue.entry("anthropic", "claude-sonnet-5-5")
    assert sonnet55 is not None and sonnet55.price == (2.0, 10.0)
    assert sonnet55.capabilities == Capabilities(
        schema="output_config", sampling=False, prefill=False,
        reasoning="output_config.effort", efforts=("low", "medium", "high", "xhigh", "max"))
    mini = catalogue.entry("openai", "gpt-4o-mini")
    assert mini is not None and mini.retires == datetime.date(2027, 1, 14)
    for name in ("gpt-5", "gpt-5-mini", "gpt-5-nano"):
        entry = catalogue.entry("openai", name)
        assert entry is not None and entry.retires == datetime.date(2026, 12, 11)
    for name in ("o1", "o3-mini", "o4-mini"):
        entry = catalogue.entry("openai", name)
        assert entry is not None and entry.status_on(TODAY) == "retired"
    qwen = catalogue.entry("groq", "qwen/qwen3.8-27b")
    assert qwen is not None and qwen.price == (0.80, 4.00) and qwen.status == "preview"
    assert (qwen.rpm, qwen.tpm, qwen.rpd, qwen.tpd) == (30, 8_000, 1_000, 200_000)
    assert qwen.capabilities.schema == "response_format"


def test_capabilities_by_entry_then_family() -> None:
    catalogue = load()
    # An entry that says nothing of capabilities takes its family's.
    assert catalogue.capabilities("openai", "o3-mini").reasoning == "reasoning_effort"
    assert catalogue.capabilities("openai", "gpt-6.9-nova").sampling is False
    assert catalogue.capabilities("ollama", "gpt-oss:20b").reasoning == "reasoning_effort"
    assert catalogue.capabilities("ollama", "qwen3-coder:30b").reasoning is None
    assert catalogue.capabilities("groq", "gpt-4o-mini").schema is None  # OpenAI's own only
    assert catalogue.capabilities("anthropic", "claude-mythos-5-2").sampling is False
    assert catalogue.capabilities("custom", "anything") == Capabilities()
    # The effort sent: the user's when the model takes it, else its nearest.
    assert Capabilities(reasoning="x", efforts=("none", "default")).effort("low") == "default"
    assert Capabilities(reasoning="x", efforts=("medium", "high")).effort("low") == "medium"
    assert Capabilities().effort("low") is None


def test_a_users_catalogue_is_read_over_the_bundled_one(tmp_path: Path) -> None:
    own = tmp_path / "models.toml"
    own.write_text(
        '[defaults]\ngroq = "openai/gpt-oss-20b"\n\n'
        '[[model]]\nprovider = "groq"\nid = "openai/gpt-oss-20b"\nprice = [0.05, 0.2]\n'
        'tpm = 250000\nsource = "https://console.groq.com/docs/models"\nchecked = 2027-01-02\n'
        '\n[[model]]\nprovider = "groq"\nid = "moonshotai/kimi-k3"\nstatus = "active"\n'
        'price = [1, 3]\nschema = "response_format"\n'
        'source = "https://console.groq.com/docs/models"\nchecked = "2027-01-02"\n\n'
        "[[family]]\nmatch = '^kimi'\nreasoning = \"reasoning_effort\"\n"
        'source = "https://example.org/kimi"\nchecked = 2027-01-02\n', encoding="utf-8")
    (tmp_path / "leadengine.toml").write_text('catalogue = "models.toml"\n', encoding="utf-8")
    settings = Settings.load(env={"GROQ_API_KEY": "k"}, directory=tmp_path)
    assert settings.catalogue == own
    catalogue = settings.model_catalogue()
    assert catalogue.files == (str(BUNDLED), str(own))
    assert settings.with_options(provider="groq").resolve_provider().default_model == \
        "openai/gpt-oss-20b"
    small = catalogue.entry("groq", "openai/gpt-oss-20b")
    assert small is not None
    # The fields it sets are replaced; the others stay the bundled entry's.
    assert (small.price, small.tpm, small.rpm, small.status) == ((0.05, 0.2), 250_000, 30,
                                                                 "active")
    assert small.capabilities.schema == "response_format"
    assert small.checked == datetime.date(2027, 1, 2)
    assert settings.price_of("groq", "moonshotai/kimi-k3") == (1.0, 3.0)
    assert catalogue.capabilities("custom", "kimi-dev").reasoning == "reasoning_effort"
    assert load().entry("groq", "moonshotai/kimi-k3") is None  # the bundled one untouched


@pytest.mark.parametrize(("text", "message"), [
    ('[[model]]\nprovider = "groq"\nid = "x"\nstatus = "active"\nchecked = 2026-12-01\n',
     r"^{file}: model 1 \(groq/x\): missing field 'source'$"),
    ('[[model]]\nprovider = "groq"\nid = "x"\nstatus = "active"\nsource = "https://a"\n'
     'checked = "2026-13-01"\n',
     r"^{file}: model 1 \(groq/x\): checked = '2026-13-01' is not a date \(YYYY-MM-DD\)$"),
    ('[[model]]\nprovider = "groq"\nid = "x"\nsource = "https://a"\nchecked = 2026-12-01\n',
     r"^{file}: model 1 \(groq/x\): missing field 'status' \(one of: active, preview, "
     r"legacy, deprecated, retired\)$"),
    ('[[model]]\nprovider = "groq"\nid = "x"\nstatus = "gone"\nsource = "https://a"\n'
     'checked = 2026-12-01\n',
     r"^{file}: model 1 \(groq/x\): status = 'gone' is not one of: active, preview, legacy, "
     r"deprecated, retired$"),
    ('[[model]]\nprovider = "groq"\nid = "x"\nstatus = "active"\nsource = "https://a"\n'
     'checked = 2026-12-01\nprise = [1, 2]\n',
     r"^{file}: model 1 \(groq/x\): unknown field 'prise' \(known: provider, id, "),
    ('[[model]]\nprovider = "groq"\nid = "x"\nstatus = "active"\nsource = "https://a"\n'
     'checked = 2026-12-01\nprice = [1]\n',
     r"^{file}: model 1 \(groq/x\): price = \[1\] is not \[input, output\] USD per million "
     r"tokens, e.g. \[0.15, 0.60\]$"),
    ("[[family]]\nmatch = '(unclosed'\nsource = \"https://a\"\nchecked = 2026-12-01\n",
     r"^{file}: family 1 \(\(unclosed\): match = '\(unclosed' is not a regular expression "),
    ("retires = 2026-12-01\n",
     r"^{file}: unknown table or key 'retires' \(a catalogue has checked, \[defaults\], "
     r"\[\[model\]\] and \[\[family\]\]\)$"),
    ("[[model]\nid = 1\n", r"^{file}: not a valid TOML model catalogue \("),
])
def test_a_bad_catalogue_is_one_line_naming_the_file_and_the_entry(
        tmp_path: Path, text: str, message: str) -> None:
    own = tmp_path / "models.toml"
    own.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message.format(file=re.escape(str(own)))):
        Settings(catalogue=own)
    # ... from leadengine.toml and the command line alike, as one line, no traceback.
    (tmp_path / "leadengine.toml").write_text('catalogue = "models.toml"\n',
                                              encoding="utf-8")
    with pytest.raises(ConfigError, match=message.format(file=re.escape(str(own)))):
        Settings.load(env={}, directory=tmp_path)
    result = CliRunner().invoke(cli, ["evaluate", SITE], env={
        "LEADENGINE_CATALOGUE": str(own)})
    assert result.exit_code == 1 and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"error: {own}: ")


def test_a_missing_catalogue_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.toml: cannot read the model catalogue "):
        Settings(catalogue=tmp_path / "nowhere.toml")


def test_the_start_notice_of_a_model_that_retires_soon(fake_llm: FakeOpenAI,
                                                       tmp_path: Path) -> None:
    """A model that is deprecated (or retires within 30 days) is named at the start with
    its date and replacement; one the catalogue does not know is named too; the work
    goes on with it."""
    fake_llm.queue(Reply.json(GOOD), Reply.json(GOOD))
    runner = CliRunner(env={"OPENAI_API_KEY": "k", "LEADENGINE_CACHE_DIR": str(tmp_path)})
    result = runner.invoke(cli, ["evaluate", SITE, "--provider", "openai", "--base-url",
                                 fake_llm.base_url, "--model", "gpt-4o-mini", "--format",
                                 "json"])
    assert result.exit_code == 0, result.output
    # (today when the notice was written, not when the module was imported: a run may
    # cross midnight)
    left = (datetime.date(2027, 1, 14) - datetime.date.today()).days
    if left > 0:
        assert result.stderr.splitlines() == [
            f"warning: openai model 'gpt-4o-mini' retires on 2027-01-14 (in {left} days); "
            "replacement: gpt-6-luna (--model gpt-6-luna or LEADENGINE_MODEL)"]
    assert json.loads(result.stdout)["model"] == "gpt-4o-mini"
    result = runner.invoke(cli, ["evaluate", SITE, "--provider", "openai", "--base-url",
                                 fake_llm.base_url, "--model", "gpt-7-wonder"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        "notice: openai model 'gpt-7-wonder' is not in the model catalogue: its price, "
        "limits and lifecycle are unknown (see leadengine models --check)"]


# --- a retired model does not stop work -------------------------------------------------

def test_a_model_the_catalogue_has_retired_is_replaced_before_any_request(
        kb: KnowledgeBase) -> None:
    with FakeAnthropic() as fake:
        fake.retired["claude-sonnet-4-5"] = Reply.error(404, "model: claude-sonnet-4-5")
        fake.queue(Reply.json(GOOD))
        settings = Settings(provider="anthropic", base_url=fake.base_url,
                            model="claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "k"},
                            use_cache=False, retrieval_method="keyword")
        evaluator = make_evaluator(settings, kb)
        assert evaluator.notices == [
            "warning: anthropic model 'claude-sonnet-4-5' retired on 2026-11-30 (the model "
            "catalogue): switched to 'claude-sonnet-5-5'"]
        evaluation = asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
        [body] = [r["json"] for r in fake.chat_requests]
    assert body["model"] == "claude-sonnet-5-5"  # not one request to the retired model
    assert "temperature" not in body and body["output_config"]["format"] == {
        "type": "json_schema", "schema": STRICT_ANSWER_SCHEMA}
    assert (evaluation.model, evaluation.provider) == ("claude-sonnet-5-5", "anthropic")
    assert evaluation.warnings[0] == ("anthropic model 'claude-sonnet-4-5' retired on "
                                      "2026-11-30 (the model catalogue): switched to "
                                      "'claude-sonnet-5-5'")


def test_without_fallback_the_configured_model_is_asked_and_its_refusal_is_one_line(
        kb: KnowledgeBase) -> None:
    with FakeAnthropic() as fake:
        fake.retired["claude-sonnet-4-5"] = Reply.error(404, "model: claude-sonnet-4-5")
        settings = Settings(provider="anthropic", base_url=fake.base_url,
                            model="claude-sonnet-4-5", env={"ANTHROPIC_API_KEY": "k"},
                            use_cache=False, retrieval_method="keyword", fallback=False,
                            llm_retries=0)
        with pytest.raises(ModelUnavailable) as raised:
            evaluate(settings, kb)
        assert [r["json"]["model"] for r in fake.chat_requests] == ["claude-sonnet-4-5"]
        base_url = fake.base_url
    assert str(raised.value) == (
        "anthropic has no model 'claude-sonnet-4-5' (HTTP 404 not_found_error; it may have "
        "been retired) (fallback is off): choose another with --model or LEADENGINE_MODEL; "
        f"list them with: leadengine models --provider anthropic --base-url {base_url}")


def test_openai_404_model_not_found_switches_to_the_named_replacement(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    """gpt-4o-mini shut down early: OpenAI's 404 model_not_found; the catalogue's
    replacement (gpt-6-luna) answers, asked as it takes requests (no temperature, a
    reasoning effort, the strict schema)."""
    fake_llm.retired["gpt-4o-mini"] = groq_not_found("gpt-4o-mini")
    fake_llm.queue(Reply.json(GOOD))
    settings = Settings(provider="openai", base_url=fake_llm.base_url, model="gpt-4o-mini",
                        env={"OPENAI_API_KEY": "k"}, use_cache=False,
                        retrieval_method="keyword", llm_retries=0)
    evaluation = evaluate(settings, kb)
    first, second = (r["json"] for r in fake_llm.chat_requests)
    assert (first["model"], second["model"]) == ("gpt-4o-mini", "gpt-6-luna")
    assert "temperature" in first and "temperature" not in second
    assert second["reasoning_effort"] == "low"
    assert second["response_format"]["json_schema"]["strict"] is True
    assert evaluation.model == "gpt-6-luna"
    assert evaluation.warnings[0] == ("openai model 'gpt-4o-mini' is not served (HTTP 404 "
                                      "model_not_found): switched to 'gpt-6-luna'")
    assert evaluation.cost_usd == pytest.approx((100 * 0.10 + 50 * 0.50) / 1e6)


def test_groq_decommissioned_goes_to_the_fallback_models_first(fake_llm: FakeOpenAI,
                                                                kb: KnowledgeBase) -> None:
    fake_llm.retired["qwen/qwen3.8-27b"] = groq_decommissioned("qwen/qwen3.8-27b", 400)
    fake_llm.retired["openai/gpt-oss-safeguard-20b"] = groq_not_found("x")
    fake_llm.queue(Reply.json(GOOD))
    evaluation = evaluate(groq(fake_llm, model="qwen/qwen3.8-27b", llm_tpm=0,
                               fallback_models=("openai/gpt-oss-safeguard-20b",
                                                "openai/gpt-oss-20b")), kb)
    assert [r["json"]["model"] for r in fake_llm.chat_requests] == [
        "qwen/qwen3.8-27b", "openai/gpt-oss-safeguard-20b", "openai/gpt-oss-20b"]
    assert evaluation.model == "openai/gpt-oss-20b"
    assert evaluation.warnings[0] == (
        "groq model 'qwen/qwen3.8-27b' is not served (HTTP 400 model_decommissioned): "
        "switched to 'openai/gpt-oss-safeguard-20b'; then groq model "
        "'openai/gpt-oss-safeguard-20b' is not served (HTTP 404 model_not_found): switched "
        "to 'openai/gpt-oss-20b'")


def test_a_served_model_that_takes_the_schema_is_found_on_the_models_list(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    """No fallback models, no named replacement, the default itself gone: the cheapest
    served model the catalogue has as active with a strict schema (never a speech model,
    a guard or a retired one)."""
    fake_llm.models = ["whisper-large-v3", "llama-3.3-70b-versatile",
                       "openai/gpt-oss-safeguard-20b", "openai/gpt-oss-120b",
                       "openai/gpt-oss-20b", "qwen/qwen3.8-27b"]
    fake_llm.retired["openai/gpt-oss-120b"] = groq_decommissioned("openai/gpt-oss-120b")
    fake_llm.queue(Reply.json(GOOD))
    evaluation = evaluate(groq(fake_llm, llm_tpm=0), kb)
    assert evaluation.model == "openai/gpt-oss-20b"
    assert [r["path"] for r in fake_llm.requests] == [
        "/v1/chat/completions", "/v1/models", "/v1/chat/completions"]


def test_no_model_to_switch_to_and_a_failing_models_list(fake_llm: FakeOpenAI,
                                                         kb: KnowledgeBase) -> None:
    fake_llm.retired["openai/gpt-oss-120b"] = groq_not_found("openai/gpt-oss-120b")
    fake_llm.models_error = Reply.error(500, "upstream exploded")
    settings = groq(fake_llm, llm_tpm=0)
    evaluator = make_evaluator(settings, kb)
    with pytest.raises(ModelUnavailable, match=r"^groq has no model 'openai/gpt-oss-120b' "
                                               r"\(HTTP 404 model_not_found; it may have "
                                               r"been retired\): choose another"):
        asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    assert evaluator.notices == [
        "warning: groq's models list failed (HTTP 500: upstream exploded): no served model "
        "to switch to"]


# --- a batch switches once, loses no row, and says so -----------------------------------

def batch_input(sites: Any, tmp_path: Path, rows: int) -> Path:
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(sites.url(f"bangkok-dental-fb-only/?lead={i}") + "\n"
                            for i in range(rows)), encoding="utf-8")
    return urls


def retire_after(fake: FakeOpenAI, model: str, answered: int, reply: Reply) -> None:
    """Retire ``model`` once ``answered`` of its requests have arrived."""
    seen = [0]

    def count(record: dict[str, Any]) -> None:
        body = record.get("json") or {}
        if record["path"].endswith("/chat/completions") and body.get("model") == model:
            seen[0] += 1
            if seen[0] > answered:
                fake.retired[model] = reply

    fake.on_request = count


def test_a_batch_whose_model_retires_after_row_5_stores_all_20_rows(
        sites: Any, fake_llm: FakeOpenAI, kb: KnowledgeBase, tmp_path: Path) -> None:
    from leadengine.batch import BatchOptions, run_batch
    from leadengine.store import Store

    fake_llm.models = ["openai/gpt-oss-120b", "openai/gpt-oss-20b"]
    fake_llm.default = Reply.json(GOOD)
    retire_after(fake_llm, "openai/gpt-oss-120b", 5,
                 groq_decommissioned("openai/gpt-oss-120b"))
    settings = groq(fake_llm, allow_private=True, host_delay=0.0, max_pages=0, llm_tpm=0,
                    workers=0)
    store = Store(tmp_path / "leads.db")
    summary = asyncio.run(run_batch(batch_input(sites, tmp_path, 20), settings, kb, store,
                                    BatchOptions(concurrency=4, per_host=8)))
    assert (summary.done, summary.failed) == (20, 0)
    stored = list(store.evaluations())
    assert len(stored) == 20
    answered = sorted(row["model"] for row in stored)
    assert answered == ["openai/gpt-oss-120b"] * 5 + ["openai/gpt-oss-20b"] * 15
    note = ("groq model 'openai/gpt-oss-120b' is not served (HTTP 404 model_decommissioned): "
            "switched to 'openai/gpt-oss-20b'")
    assert summary.switches == [note]
    assert summary.line().endswith(f"; {note}")
    # At most the requests in flight when it retired met the 404: no storm.
    refused = [r for r in fake_llm.chat_requests if r["json"]["model"] == "openai/gpt-oss-120b"]
    assert 6 <= len(refused) <= 5 + 4
    [run] = store.runs()
    assert run["notes"] == note
    # Keyed by the configured model: the same command again does nothing more.
    again = asyncio.run(run_batch(batch_input(sites, tmp_path, 20), settings, kb, store,
                                  BatchOptions(concurrency=4, per_host=8)))
    assert (again.done, again.skipped_done) == (0, 20)
    result = CliRunner().invoke(cli, ["runs", "--db", str(tmp_path / "leads.db")])
    assert f"      note: {note}" in result.stdout.splitlines()


def test_a_batch_without_fallback_stops_and_resumes_with_it(
        sites: Any, fake_llm: FakeOpenAI, kb: KnowledgeBase, tmp_path: Path) -> None:
    """--no-fallback: the first 404 stops the batch (the rows not reached stay to do, none
    is stored as failed); the same batch with fallback on finishes them."""
    from leadengine.batch import BatchOptions, run_batch
    from leadengine.store import Store

    fake_llm.models = ["openai/gpt-oss-120b", "openai/gpt-oss-20b"]
    fake_llm.default = Reply.json(GOOD)
    retire_after(fake_llm, "openai/gpt-oss-120b", 3, groq_not_found("openai/gpt-oss-120b"))
    settings = groq(fake_llm, allow_private=True, host_delay=0.0, max_pages=0, llm_tpm=0,
                    workers=0)
    store = Store(tmp_path / "leads.db")
    urls = batch_input(sites, tmp_path, 12)
    with pytest.raises(ModelUnavailable, match="fallback is off"):
        asyncio.run(run_batch(urls, settings.with_options(fallback=False), kb, store,
                              BatchOptions(concurrency=1, per_host=8)))
    assert len(list(store.evaluations())) == 3 and list(store.errors()) == []
    summary = asyncio.run(run_batch(urls, settings, kb, store,
                                    BatchOptions(concurrency=1, per_host=8)))
    assert (summary.done, summary.skipped_done, summary.failed) == (9, 3, 0)
    assert len(list(store.evaluations())) == 12


def test_a_batch_on_the_command_line_says_it_switched(
        sites: Any, fake_llm: FakeOpenAI, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fake_llm.models = ["openai/gpt-oss-120b", "openai/gpt-oss-20b"]
    fake_llm.default = Reply.json(GOOD)
    fake_llm.retired["openai/gpt-oss-120b"] = groq_not_found("openai/gpt-oss-120b")
    result = CliRunner(env={"GROQ_API_KEY": "k"}).invoke(cli, [
        "batch", str(batch_input(sites, tmp_path, 3)), "--base-url", fake_llm.base_url,
        "--provider", "groq", "--allow-private", "--no-cache", "--method", "keyword",
        "--max-pages", "0", "--db", str(tmp_path / "l.db"), "--workers", "0"],
        env={"LEADENGINE_LLM_TPM": "0"})
    assert result.exit_code == 0, result.output
    summary = [line for line in result.stderr.splitlines() if line.startswith("run 1:")]
    assert len(summary) == 1 and summary[0].endswith(
        "; groq model 'openai/gpt-oss-120b' is not served (HTTP 404 model_not_found): "
        "switched to 'openai/gpt-oss-20b'")


# --- quotas -----------------------------------------------------------------------------

def test_groq_429_retry_after_is_waited_out(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(groq_rate_limited("openai/gpt-oss-120b", retry_after=0.2),
                   Reply.json(GOOD))
    evaluation = evaluate(groq(fake_llm, llm_tpm=0, llm_retries=2), kb)
    assert evaluation.fit_score == 80 and len(fake_llm.chat_requests) == 2


def test_a_daily_limit_429_is_the_days_end_or_the_next_fallback_model(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    day = groq_rate_limited("openai/gpt-oss-120b", per="day", kind="requests", limit=1000,
                            used=1000, requested=1, retry_after=86.4)
    fake_llm.queue(day)
    with pytest.raises(QuotaExhausted) as raised:
        evaluate(groq(fake_llm, llm_tpm=0, llm_retries=2), kb)
    assert str(raised.value).startswith(
        "groq model 'openai/gpt-oss-120b' has used up its daily quota: Rate limit reached")
    assert len(fake_llm.chat_requests) == 1  # a day's limit is not retried
    fake_llm.queue(day, Reply.json(GOOD))
    evaluation = evaluate(groq(fake_llm, llm_tpm=0, fallback_models=("openai/gpt-oss-20b",)),
                          kb)
    assert evaluation.model == "openai/gpt-oss-20b"
    assert evaluation.warnings[0] == ("groq model 'openai/gpt-oss-120b' used up its daily "
                                      "quota: switched to 'openai/gpt-oss-20b'")


def test_the_days_tokens_are_counted(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    """Groq's free tier has a tokens-per-day limit (200,000 for gpt-oss-120b): past it a
    request is not sent, and the next fallback model (its own day) takes over."""
    fake_llm.default = Reply.json(GOOD, prompt_tokens=3000, completion_tokens=500)
    settings = groq(fake_llm, llm_tpm=0, llm_tpd=5000)
    evaluator = make_evaluator(settings, kb)
    assert isinstance(evaluator, LLMEvaluator) and evaluator.limiter.day_tokens is not None
    asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    with pytest.raises(QuotaExhausted, match=r"^daily token limit of 5,000 reached for groq "
                                             r"model 'openai/gpt-oss-120b'; try again "
                                             r"tomorrow, or .* set LEADENGINE_LLM_TPD"):
        asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    assert len(fake_llm.chat_requests) == 1
    assert make_evaluator(groq(fake_llm), kb).limiter.day_tokens.limit == 200_000  # type: ignore[attr-defined]
    fallback = settings.with_options(fallback_models=("openai/gpt-oss-20b",))
    evaluator = make_evaluator(fallback, kb)
    for _ in range(2):
        last = asyncio.run(evaluate_url(SITE, fallback, kb, evaluator))
    assert last.model == "openai/gpt-oss-20b"


def test_a_limiter_counts_tokens_per_day_and_settles_them() -> None:
    clock = [0.0]
    limiter = RateLimiter(tpd=1000, clock=lambda: clock[0], name="groq")
    asyncio.run(limiter.acquire(600))
    limiter.settle(600, 300)  # it used only 300
    asyncio.run(limiter.acquire(600))
    with pytest.raises(QuotaExhausted, match="daily token limit of 1,000 reached for groq"):
        asyncio.run(limiter.acquire(200))
    clock[0] = 86_400.0
    asyncio.run(limiter.acquire(600))


# --- requests held under the tokens-per-minute limit ------------------------------------

THAI = ("ร้านกาแฟบ้านสวนเปิดทุกวันตั้งแต่เจ็ดโมงเช้าถึงหกโมงเย็น ตั้งอยู่ใกล้สถานีรถไฟฟ้าอารีย์ กรุงเทพมหานคร "
        "เรามีเมล็ดกาแฟคั่วเองจากเชียงราย ขนมอบสดใหม่ทุกเช้า และพื้นที่นั่งทำงานพร้อมอินเทอร์เน็ตความเร็วสูง "
        "สั่งเค้กวันเกิดล่วงหน้าได้ทางไลน์หรือโทรศัพท์ รับจัดเลี้ยงนอกสถานที่สำหรับงานประชุมและงานแต่งงาน "
        "ลูกค้าประจำสะสมแต้มได้ทุกครั้งที่ซื้อเครื่องดื่ม ครบสิบแก้วรับฟรีหนึ่งแก้ว ")


def thai_site(tmp_path: Path, chars: int) -> str:
    text = (THAI * (chars // len(THAI) + 1))[:chars]
    paragraphs = "".join(f"<p>{text[i:i + 400]}</p>\n" for i in range(0, len(text), 400))
    page = tmp_path / "thai" / "index.html"
    page.parent.mkdir()
    page.write_text(f"<!doctype html><html lang='th'><head><meta charset='utf-8'><title>"
                    f"ร้านกาแฟบ้านสวน อารีย์</title></head><body><h1>ร้านกาแฟบ้านสวน</h1>\n"
                    f"{paragraphs}<p>โทร 02-123-4567</p></body></html>", encoding="utf-8")
    return str(page)


def test_a_thai_page_near_the_8k_tpm_limit_never_gets_a_413(
        fake_llm: FakeOpenAI, kb: KnowledgeBase, tmp_path: Path) -> None:
    """Groq's free tier (8,000 tokens a minute) refuses a larger request outright (413).
    A long Thai page (a token a character, where English is four) is cut to fit, and the
    evaluation says so; an English page of the same size is not cut."""
    fake_llm.tpm_limit = 8_000
    fake_llm.default = Reply.json(GOOD)
    # The catalogue's 8,000 TPM; knowledge passages within the usual 1,000-token budget.
    settings = groq(fake_llm, max_content_chars=12_000, retrieval_method="bm25")
    evaluation = evaluate(settings, kb, thai_site(tmp_path, 11_000))
    [request] = fake_llm.chat_requests
    body = request["json"]
    assert count_tokens(body["messages"]) + body["max_completion_tokens"] <= 8_000
    [cut] = [w for w in evaluation.warnings if w.startswith("the pages' text was cut")]
    assert re.fullmatch(r"the pages' text was cut from [\d,]+ to [\d,]+ characters to fit "
                        r"groq's limit of 8,000 tokens per minute for 'openai/gpt-oss-120b'",
                        cut)
    evaluation = evaluate(settings, kb)  # the English dental site: well under the limit
    assert not any("was cut" in w for w in evaluation.warnings)
    assert len(fake_llm.chat_requests) == 2


def test_a_413_teaches_the_limit_and_the_page_goes_again_cut(
        fake_llm: FakeOpenAI, kb: KnowledgeBase, tmp_path: Path) -> None:
    """A limit the settings do not know (a custom endpoint, LEADENGINE_LLM_TPM=0): the
    provider's 413 names it, and the same page goes again, cut to fit it."""
    fake_llm.tpm_limit = 6_000
    fake_llm.default = Reply.json(GOOD)
    evaluation = evaluate(groq(fake_llm, llm_tpm=0, retrieval_method="bm25"), kb,
                          thai_site(tmp_path, 11_000))
    first, second = (r["json"] for r in fake_llm.chat_requests)
    assert count_tokens(first["messages"]) + first["max_completion_tokens"] > 6_000
    assert count_tokens(second["messages"]) + second["max_completion_tokens"] <= 6_000
    # The second answer is the one used: the LLM's primary service and angle (its 80 is
    # then bounded by the facts: a single café).
    assert (evaluation.primary_service, evaluation.angle) == (
        "Foundation Package", "Platform Dependency Risk")
    assert 40 <= evaluation.fit_score <= 80
    assert any("limit of 6,000 tokens per minute" in w for w in evaluation.warnings)


# --- leadengine models --check ----------------------------------------------------------

def check(fake: FakeOpenAI | FakeAnthropic, env: dict[str, str], *args: str) -> Any:
    return CliRunner(env=env).invoke(cli, ["models", "--check", "--base-url", fake.base_url,
                                           *args])


def test_models_check_ok(fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch,
                         tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    fake_llm.models = ["openai/gpt-oss-120b", "openai/gpt-oss-20b", "whisper-large-v3"]
    result = check(fake_llm, {"GROQ_API_KEY": "k"}, "--provider", "groq")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"provider:     groq at {fake_llm.base_url}"
    assert lines[1] == "served:       3 models (the catalogue knows 2)"
    assert lines[2] == ("model:        openai/gpt-oss-120b (the model catalogue's default "
                        "for groq)")
    assert lines[3] == ("status:       active (checked 2026-12-07: "
                        "https://console.groq.com/docs/models)")
    assert "price:        $0.15 in / $0.60 out per million tokens" in lines
    assert ("limits:       30 requests/min, 8,000 tokens/min, 1,000 requests/day, 200,000 "
            "tokens/day (free tier)") in lines
    assert ("capabilities: strict JSON schema (response_format), temperature, "
            "reasoning_effort: low|medium|high") in lines
    assert lines[-1] == "OK: 'openai/gpt-oss-120b' (served, active)"


def test_models_check_says_what_to_change(fake_llm: FakeOpenAI,
                                          monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"OPENAI_API_KEY": "k"}
    fake_llm.models = ["gpt-4o-mini", "gpt-6-luna", "o3-mini"]
    result = check(fake_llm, env, "--provider", "openai", "--model", "o3-mini")
    assert result.exit_code == 1
    # Its named replacement (gpt-5.6-sol) is not served there: the served default is.
    assert result.stdout.splitlines()[-1] == (
        "CHANGE: 'o3-mini' retired on 2026-10-23: set LEADENGINE_MODEL=gpt-6-luna (or pass "
        "--model gpt-6-luna)")
    result = check(fake_llm, env, "--provider", "openai", "--model", "gpt-4o-mini")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        f"CHANGE: 'gpt-4o-mini' retires on 2027-01-14 (in "
        f"{(datetime.date(2027, 1, 14) - datetime.date.today()).days} days): set "
        "LEADENGINE_MODEL=gpt-6-luna "
        "(or pass --model gpt-6-luna)")
    result = check(fake_llm, env, "--provider", "openai", "--model", "gpt-6.1-terra")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "CHANGE: openai does not serve 'gpt-6.1-terra': set LEADENGINE_MODEL=gpt-6-luna (or "
        "pass --model gpt-6-luna)")
    result = check(fake_llm, env, "--provider", "openai")
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (
        0, "OK: 'gpt-6-luna' (served, active)")


def test_models_check_with_a_failing_models_list_still_reads_the_catalogue(
        fake_llm: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    fake_llm.models_error = Reply.error(503, "models list down")
    result = check(fake_llm, {"GROQ_API_KEY": "k"}, "--provider", "groq", "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["models_served"] is None
    assert found["models_list_error"] == "groq returned HTTP 503: models list down"
    assert (found["status"], found["ok"]) == ("active", True)
    assert found["verdict"] == ("OK: 'openai/gpt-oss-120b' (not checked against the served "
                                "list, active)")
    fake_llm.models_error = Reply.error(401, "Invalid API Key")
    result = check(fake_llm, {"GROQ_API_KEY": "k"}, "--provider", "groq")
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: groq rejected the API key (HTTP 401): set a valid GROQ_API_KEY"]


def test_models_check_of_anthropic(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    with FakeAnthropic() as fake:
        result = check(fake, {"ANTHROPIC_API_KEY": "k"}, "--provider", "anthropic")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert ("capabilities: strict JSON schema (output_config), no sampling parameters, "
            "output_config.effort: low|medium|high|xhigh|max, no prefill") in lines
    assert "price:        $2.00 in / $10.00 out per million tokens" in lines
    assert lines[-1] == "OK: 'claude-sonnet-5-5' (served, active)"


# --- the limits a server reports --------------------------------------------------------

def test_a_key_on_a_larger_plan_is_held_to_its_own_limits(fake_llm: FakeOpenAI,
                                                           kb: KnowledgeBase) -> None:
    """The catalogue's limits are Groq's free tier (30 RPM, 8,000 TPM, 1,000 RPD); a
    Developer-plan key is told its own in every answer's headers
    (x-ratelimit-limit-tokens: per minute; x-ratelimit-limit-requests: per day at Groq),
    and those are held instead; what the user set stays."""
    import dataclasses

    headers = {"x-ratelimit-limit-tokens": "250000", "x-ratelimit-limit-requests": "500000",
               "x-ratelimit-remaining-tokens": "249000"}
    fake_llm.default = dataclasses.replace(Reply.json(GOOD), headers=headers)
    settings = groq(fake_llm)
    evaluator = make_evaluator(settings, kb)
    assert isinstance(evaluator, LLMEvaluator)
    limiter = evaluator.limiter
    assert (limiter.tokens.capacity, limiter.day.limit) == (8_000, 1_000)
    asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    assert evaluator.limiter is limiter  # changed in place: what was spent counts
    assert limiter.tokens is not None and limiter.tokens.capacity == 250_000
    assert limiter.day is not None and limiter.day.limit == 500_000
    # Above the free tier: its per-minute requests and per-day tokens are not held.
    assert limiter.requests is None and limiter.day_tokens is None
    assert evaluator.request_cap() == 250_000
    # A limit the user set is theirs.
    evaluator = make_evaluator(settings.with_options(llm_tpm=20_000), kb)
    asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    assert evaluator.limiter.tokens.capacity == 20_000  # type: ignore[union-attr]
    # OpenAI's requests header counts per minute.
    openai = Settings(provider="openai", base_url=fake_llm.base_url, use_cache=False,
                      env={"OPENAI_API_KEY": "k"}, retrieval_method="keyword")
    evaluator = make_evaluator(openai, kb)
    asyncio.run(evaluate_url(SITE, openai, kb, evaluator))
    assert evaluator.limiter.requests.capacity == 500_000  # type: ignore[union-attr]


def test_a_batch_in_shards_switches_in_each_and_says_so_once(
        sites: Any, fake_llm: FakeOpenAI, kb: KnowledgeBase, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two shard processes meet the retirement on their own: every row is stored, and the
    summary and the run record name the switch once."""
    from leadengine.batch import BatchOptions, run_batch
    from leadengine.store import Store

    monkeypatch.setenv("LEADENGINE_WORKERS", "2")
    fake_llm.models = ["openai/gpt-oss-120b", "openai/gpt-oss-20b"]
    fake_llm.default = Reply.json(GOOD)
    retire_after(fake_llm, "openai/gpt-oss-120b", 6, groq_not_found("openai/gpt-oss-120b"))
    settings = groq(fake_llm, allow_private=True, host_delay=0.0, max_pages=0, llm_tpm=0,
                    llm_rpm=0, workers=2)
    store = Store(tmp_path / "leads.db")
    summary = asyncio.run(run_batch(batch_input(sites, tmp_path, 40), settings, kb, store,
                                    BatchOptions(concurrency=4, per_host=8)))
    assert (summary.done, summary.failed) == (40, 0)
    assert len(list(store.evaluations())) == 40
    note = ("groq model 'openai/gpt-oss-120b' is not served (HTTP 404 model_not_found): "
            "switched to 'openai/gpt-oss-20b'")
    assert summary.switches == [note]
    [run] = store.runs()
    assert run["notes"] == note
