"""Groq as it is today: the gpt-oss default, strict schema only where Groq lists it,
reasoning models, answers cut at max_completion_tokens, retired models, the day limit,
``leadengine models`` and per-provider overrides in leadengine.toml. Real HTTP against
the fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine import (
    ConfigError,
    Evaluation,
    KnowledgeBase,
    LLMError,
    ModelUnavailable,
    Settings,
)
from leadengine.cli.models import models
from leadengine.config import PROVIDERS
from leadengine.judgement.evaluation import STRICT_ANSWER_SCHEMA
from leadengine.judgement.evaluators import make_evaluator
from leadengine.judgement.evaluators.llm import LLMEvaluator
from leadengine.judgement.ratelimit import DAY, RateLimiter
from leadengine.pipeline import evaluate_url
from tests.conftest import SITES
from tests.fakes.openai_server import FakeOpenAI, Reply

GOOD = {"business_name": "Smile Bright Dental", "business_type": "Dental Healthcare Provider",
        "primary_service": "Foundation Package", "fit_score": 88,
        "reasoning": "Bangkok-based clinic with a Facebook-only presence.",
        "outreach_angle": "Platform dependency risk.", "angle": "Platform Dependency Risk"}
SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")
STRICT = {"type": "json_schema",
          "json_schema": {"name": "lead_evaluation", "strict": True,
                          "schema": STRICT_ANSWER_SCHEMA}}


def settings_for(fake: FakeOpenAI, model: str | None, provider: str = "groq",
                 **extra: Any) -> Settings:
    extra.setdefault("use_cache", False)
    extra.setdefault("llm_retries", 0)
    # Groq's 8,000 tokens a minute would make a test wait; the limits have their own tests.
    extra.setdefault("llm_tpm", 0)
    return Settings(provider=provider, base_url=fake.base_url, model=model,
                    env={"GROQ_API_KEY": "k", "OPENAI_API_KEY": "k"},
                    retrieval_method="keyword", **extra)


def run(fake: FakeOpenAI, kb: KnowledgeBase, model: str | None = "openai/gpt-oss-120b",
        **extra: Any) -> Evaluation:
    return asyncio.run(evaluate_url(SITE, settings_for(fake, model, **extra), kb))


# --- defaults -----------------------------------------------------------------------------

def test_groq_defaults_are_gpt_oss_with_its_free_tier_limits() -> None:
    settings = Settings(provider="groq", env={"GROQ_API_KEY": "k"})
    groq = settings.resolve_provider()
    assert groq.default_model == "openai/gpt-oss-120b"
    assert settings.rate_limits(groq, groq.default_model) == {
        "rpm": 30, "tpm": 8_000, "rpd": 1_000, "tpd": 200_000}
    assert settings.price_of("groq", "openai/gpt-oss-120b") == (0.15, 0.60)
    assert settings.price_of("groq", "openai/gpt-oss-20b") == (0.075, 0.30)
    assert settings.price_of("groq", "llama-3.3-70b-versatile") is None  # retired on Groq
    settings = Settings.from_env({"LEADENGINE_LLM_RPD": "5", "LEADENGINE_REASONING_EFFORT":
                                  "medium", "LEADENGINE_MAX_COMPLETION_TOKENS": "999"})
    assert (settings.llm_rpd, settings.reasoning_effort, settings.max_completion_tokens) == (
        5, "medium", 999)


def test_the_default_model_is_sent_when_none_is_chosen(fake_llm: FakeOpenAI,
                                                       kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    evaluation = run(fake_llm, kb, model=None)
    assert fake_llm.chat_requests[0]["json"]["model"] == "openai/gpt-oss-120b"
    assert evaluation.model == "openai/gpt-oss-120b"


# --- the request per model family ---------------------------------------------------------

@pytest.mark.parametrize(("provider", "model", "strict", "effort", "temperature"), [
    ("groq", "openai/gpt-oss-120b", True, "low", True),
    ("groq", "openai/gpt-oss-20b", True, "low", True),
    ("groq", "qwen/qwen3.8-27b", True, "low", True),  # none/default/low/medium/high
    # A reasoning model, but Groq lists it as best-effort JSON only: no strict schema.
    ("groq", "openai/gpt-oss-safeguard-20b", False, "low", True),
    ("groq", "llama-3.3-70b-versatile", False, None, True),
    ("groq", "meta-llama/llama-4-scout-17b-16e-instruct", False, None, True),
    ("groq", "gpt-4o-mini", False, None, True),  # OpenAI's names count only at OpenAI
    ("openai", "gpt-4o-mini", True, None, True),
    ("openai", "gpt-6-luna", True, "low", False),  # GPT-5 and later refuse temperature
    ("openai", "gpt-6.3-nova", True, "low", False),  # a newer one, by its family
    ("openai", "o3-mini", True, "low", False),  # OpenAI's reasoning models refuse it
    ("ollama", "gpt-oss:20b", False, "low", True),
])
def test_request_body_per_model_family(fake_llm: FakeOpenAI, kb: KnowledgeBase,
                                       provider: str, model: str, strict: bool,
                                       effort: str | None, temperature: bool) -> None:
    fake_llm.queue(Reply.json(GOOD))
    # Fallback off: the retired ones are sent as asked (the shape of the request is all
    # this test is about).
    run(fake_llm, kb, model=model, provider=provider, fallback=False)
    body = fake_llm.chat_requests[0]["json"]
    assert body["model"] == model
    assert body["response_format"] == (STRICT if strict else {"type": "json_object"})
    assert body.get("reasoning_effort") == effort
    assert ("reasoning_effort" in body) is (effort is not None)
    assert body["max_completion_tokens"] == 2048
    assert ("temperature" in body) is temperature


def test_strict_schema_has_no_bounds_but_the_score_is_still_checked(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json({**GOOD, "fit_score": 140}), Reply.json(GOOD))
    evaluation = run(fake_llm, kb)
    schema = fake_llm.chat_requests[0]["json"]["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["fit_score"] == {"type": "integer"}
    assert "minimum" not in json.dumps(schema) and "maximum" not in json.dumps(schema)
    # pydantic still holds 0-100: the out-of-range answer got the repair round.
    assert len(fake_llm.chat_requests) == 2 and evaluation.fit_score == 88


def test_reasoning_effort_and_room_are_configurable(fake_llm: FakeOpenAI,
                                                    kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    run(fake_llm, kb, reasoning_effort="high", max_completion_tokens=5000)
    body = fake_llm.chat_requests[0]["json"]
    assert (body["reasoning_effort"], body["max_completion_tokens"]) == ("high", 5000)
    with pytest.raises(ConfigError, match=r"reasoning effort 'extreme' is not one of: low, "
                                          r"medium, high \(LEADENGINE_REASONING_EFFORT\)"):
        run(fake_llm, kb, reasoning_effort="extreme")
    with pytest.raises(ConfigError, match="max_completion_tokens must be at least 1"):
        run(fake_llm, kb, max_completion_tokens=0)


def test_reasoning_tokens_are_recorded_and_priced_as_output(fake_llm: FakeOpenAI,
                                                            kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD, prompt_tokens=2000, completion_tokens=700,
                              reasoning_tokens=450))
    evaluation = run(fake_llm, kb)
    assert evaluation.tokens["reasoning"] == 450
    assert (evaluation.tokens["prompt"], evaluation.tokens["completion"]) == (2000, 700)
    # Reasoning is part of completion_tokens: $0.15 in, $0.60 out per million.
    assert evaluation.cost_usd == pytest.approx((2000 * 0.15 + 700 * 0.60) / 1e6)
    fake_llm.queue(Reply.json(GOOD))  # a server that reports no reasoning tokens
    assert "reasoning" not in run(fake_llm, kb, model="llama-test").tokens


# --- answers cut at max_completion_tokens -------------------------------------------------

def test_a_cut_answer_is_asked_again_with_twice_the_room(fake_llm: FakeOpenAI,
                                                         kb: KnowledgeBase,
                                                         tmp_path: Path) -> None:
    fake_llm.queue(Reply.cut(completion_tokens=2048, reasoning_tokens=2040),
                   Reply.json(GOOD, completion_tokens=900, reasoning_tokens=600))
    evaluation = run(fake_llm, kb, use_cache=True, cache_dir=tmp_path)
    first, second = fake_llm.chat_requests
    assert first["json"]["max_completion_tokens"] == 2048
    assert second["json"]["max_completion_tokens"] == 4096
    # The same question again, not a repair round showing the cut text.
    assert second["json"]["messages"] == first["json"]["messages"]
    assert evaluation.fit_score == 88
    assert (evaluation.tokens["completion"], evaluation.tokens["reasoning"]) == (2948, 2640)
    # The answer is cached under the first request, so the next run pays nothing.
    again = run(fake_llm, kb, use_cache=True, cache_dir=tmp_path)
    assert len(fake_llm.chat_requests) == 2 and again.cached
    assert again.tokens["completion"] == 2948


def test_cut_twice_is_one_clear_error(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.cut(), Reply.cut())
    with pytest.raises(LLMError) as raised:
        run(fake_llm, kb)
    assert str(raised.value) == (
        "groq model 'openai/gpt-oss-120b' ran out of room (finish_reason=length, "
        "max_completion_tokens=4096): raise LEADENGINE_MAX_COMPLETION_TOKENS or lower "
        "LEADENGINE_REASONING_EFFORT")
    assert len(fake_llm.chat_requests) == 2  # no repair round on a cut answer
    fake_llm.queue(Reply.cut(), Reply.cut())
    with pytest.raises(LLMError, match=r"max_completion_tokens=200\): raise "
                                       r"LEADENGINE_MAX_COMPLETION_TOKENS$"):
        run(fake_llm, kb, model="llama-test", max_completion_tokens=100)


class RecordingLimiter(RateLimiter):
    def __init__(self) -> None:
        super().__init__()
        self.budgets: list[int] = []
        self.settled: list[tuple[int, int]] = []

    async def acquire(self, tokens: int = 0) -> None:
        self.budgets.append(tokens)

    def settle(self, budgeted: int, used: int) -> None:
        self.settled.append((budgeted, used))


def test_the_token_budget_counts_reasoning(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    budgets: dict[str, list[int]] = {}
    settled: list[tuple[int, int]] = []
    for model in ("llama-test", "openai/gpt-oss-120b"):
        fake_llm.queue(Reply.cut(prompt_tokens=1500, completion_tokens=2048),
                       Reply.json(GOOD, prompt_tokens=1500, completion_tokens=800))
        settings = settings_for(fake_llm, model)
        evaluator = make_evaluator(settings, kb)
        assert isinstance(evaluator, LLMEvaluator)
        evaluator.limiter = limiter = RecordingLimiter()
        evaluation = asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
        budgets[model] = limiter.budgets
        settled += limiter.settled
    prompt = budgets["llama-test"][0] - 400
    assert abs(prompt - evaluation.tokens["prompt_estimate"]) < 50
    # Answer only: 400; low-effort reasoning: 600 more; the retry after a cut: what the
    # cut answer wrote (2,048) plus an answer, within its doubled room.
    assert budgets["llama-test"] == [prompt + 400, prompt + 2448]
    assert budgets["openai/gpt-oss-120b"] == [prompt + 1000, prompt + 2448]
    # Each budget is corrected by what the server counted.
    assert [used for _, used in settled] == [3548, 2300, 3548, 2300]


def test_settle_corrects_the_token_bucket() -> None:
    clock = [0.0]
    limiter = RateLimiter(tpm=8000, clock=lambda: clock[0])
    asyncio.run(limiter.acquire(5000))
    assert limiter.tokens is not None
    assert limiter.tokens.wait_for(5000) == pytest.approx(15.0)  # 3,000 left
    limiter.settle(5000, 1000)  # it used only 1,000
    assert limiter.tokens.wait_for(5000) == 0.0
    limiter.settle(1000, 9000)  # another used 8,000 more than budgeted: 1,000 in debt
    assert limiter.tokens.wait_for(1000) == pytest.approx(15.0)  # 2,000 at 8,000 a minute


# --- retired and unknown models -----------------------------------------------------------

def test_404_model_not_found_names_the_model_and_the_way_out(fake_llm: FakeOpenAI,
                                                             kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(404, "The model `llama-3.3-70b-versatile` does not exist or "
                               "you do not have access to it.", code="model_not_found"))
    with pytest.raises(ModelUnavailable) as raised:
        run(fake_llm, kb, model="llama-3.3-70b-versatile", fallback=False)
    assert str(raised.value) == (
        "groq has no model 'llama-3.3-70b-versatile' (HTTP 404 model_not_found; it may have "
        "been retired) (fallback is off): choose another with --model or LEADENGINE_MODEL; "
        f"list them with: leadengine models --provider groq --base-url {fake_llm.base_url}")


def test_400_model_decommissioned(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(400, "The model `llama-3.1-8b-instant` has been decommissioned "
                               "and is no longer supported.", code="model_decommissioned"))
    with pytest.raises(ConfigError) as raised:
        run(fake_llm, kb, model="llama-3.1-8b-instant", fallback=False)
    assert str(raised.value) == (
        "groq has retired model 'llama-3.1-8b-instant' (HTTP 400 model_decommissioned) "
        "(fallback is off): choose another with --model or LEADENGINE_MODEL; list them "
        f"with: leadengine models --provider groq --base-url {fake_llm.base_url}")


def test_other_404_and_400_are_not_blamed_on_the_model(fake_llm: FakeOpenAI,
                                                      kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(404, "no route", code="not_found"),
                   Reply.error(400, "messages: too long", code="context_length_exceeded"))
    with pytest.raises(ConfigError, match=r"groq has no chat-completions endpoint at "
                                          r"http://127\.0\.0\.1:\d+/v1 \(HTTP 404: no route\)"):
        run(fake_llm, kb)
    with pytest.raises(LLMError, match=r"^groq returned HTTP 400: messages: too long$"):
        run(fake_llm, kb)


def test_retired_model_on_the_command_line_is_one_line(fake_llm: FakeOpenAI,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    from leadengine.cli import cli

    monkeypatch.chdir(tmp_path)
    fake_llm.queue(Reply.error(404, "The model `llama-3.3-70b-versatile` does not exist",
                               code="model_not_found"))
    result = CliRunner(env={"GROQ_API_KEY": "k"}).invoke(
        cli, ["evaluate", SITE, "--base-url", fake_llm.base_url, "--provider", "groq",
              "--model", "llama-3.3-70b-versatile", "--no-cache", "--method", "keyword",
              "--no-fallback"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "warning: groq model 'llama-3.3-70b-versatile' retired on 2026-08-16; replacement: "
        "openai/gpt-oss-120b (--model openai/gpt-oss-120b or LEADENGINE_MODEL)",
        "error: groq has no model 'llama-3.3-70b-versatile' (HTTP 404 model_not_found; it may "
        "have been retired) (fallback is off): choose another with --model or "
        "LEADENGINE_MODEL; list them with: "
        f"leadengine models --provider groq --base-url {fake_llm.base_url}"]


# --- requests per day ---------------------------------------------------------------------

def test_the_day_limit_stops_requests_with_a_clear_error(fake_llm: FakeOpenAI,
                                                         kb: KnowledgeBase) -> None:
    fake_llm.default = Reply.json(GOOD)
    settings = settings_for(fake_llm, None, llm_rpd=2)
    evaluator = make_evaluator(settings, kb)

    async def three() -> list[Evaluation | BaseException]:
        results: list[Evaluation | BaseException] = []
        for _ in range(3):
            try:
                results.append(await evaluate_url(SITE, settings, kb, evaluator))
            except LLMError as exc:
                results.append(exc)
        return results

    first, second, third = asyncio.run(three())
    assert isinstance(first, Evaluation) and isinstance(second, Evaluation)
    assert str(third) == ("daily request limit of 2 reached for groq model "
                          "'openai/gpt-oss-120b'; try again tomorrow, or if your plan allows "
                          "more set LEADENGINE_LLM_RPD (0 = no limit)")
    assert len(fake_llm.chat_requests) == 2  # the third was never sent


def test_the_day_limit_defaults_overrides_and_resets() -> None:
    env = {"GROQ_API_KEY": "k"}
    groq = LLMEvaluator(Settings(env=env), PROVIDERS["groq"])
    assert groq.limiter.day is not None and groq.limiter.day.limit == 1_000
    assert LLMEvaluator(Settings(env=env, llm_rpd=0), PROVIDERS["groq"]).limiter.day is None
    assert LLMEvaluator(Settings(), PROVIDERS["ollama"]).limiter.day is None

    clock = [0.0]
    limiter = RateLimiter(rpd=1, clock=lambda: clock[0], name="groq")
    asyncio.run(limiter.acquire())
    with pytest.raises(LLMError, match="daily request limit of 1 reached for groq"):
        asyncio.run(limiter.acquire())
    clock[0] = DAY  # a day after the first request the budget is whole again
    asyncio.run(limiter.acquire())


# --- leadengine models --------------------------------------------------------------------

SERVED = ["whisper-large-v3", "openai/gpt-oss-20b", "openai/gpt-oss-120b",
          "openai/gpt-oss-safeguard-20b", "meta-llama/llama-4-scout-17b-16e-instruct"]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)  # no developer's leadengine.toml or .env
    return {"GROQ_API_KEY": "test-key", "LEADENGINE_LLM_RETRIES": "0"}


def test_models_lists_what_the_endpoint_serves(fake_llm: FakeOpenAI,
                                               cli_env: dict[str, str]) -> None:
    fake_llm.models = SERVED
    result = CliRunner(env=cli_env).invoke(
        models, ["--provider", "groq", "--base-url", fake_llm.base_url, "--json"])
    assert result.exit_code == 0, result.output
    [request] = fake_llm.requests
    assert (request["method"], request["path"]) == ("GET", "/v1/models")
    assert request["headers"]["authorization"] == "Bearer test-key"
    listing = json.loads(result.stdout)
    assert (listing["provider"], listing["default"]) == ("groq", "openai/gpt-oss-120b")
    rows = {m["id"]: m for m in listing["models"]}
    assert [m["id"] for m in listing["models"]] == sorted(SERVED)
    assert rows["openai/gpt-oss-120b"] == {
        "id": "openai/gpt-oss-120b", "default": True, "status": "active", "retires": None,
        "strict_json_schema": True, "reasoning": True,
        "price": {"input": 0.15, "output": 0.6}}
    assert rows["openai/gpt-oss-20b"]["price"] == {"input": 0.075, "output": 0.3}
    assert rows["openai/gpt-oss-20b"]["default"] is False
    safeguard = rows["openai/gpt-oss-safeguard-20b"]
    assert (safeguard["strict_json_schema"], safeguard["reasoning"]) == (False, True)
    scout = rows["meta-llama/llama-4-scout-17b-16e-instruct"]
    assert (scout["strict_json_schema"], scout["reasoning"], scout["price"]) == (
        False, False, None)
    assert (scout["status"], scout["retires"]) == ("retired", "2026-07-17")
    assert rows["whisper-large-v3"]["status"] is None  # the catalogue does not know it
    assert result.stderr == ""


def test_models_table_marks_the_default(fake_llm: FakeOpenAI,
                                        cli_env: dict[str, str]) -> None:
    fake_llm.models = SERVED
    result = CliRunner(env=cli_env).invoke(models, ["--base-url", fake_llm.base_url,
                                                    "--provider", "groq"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (f"groq at {fake_llm.base_url}: 5 models "
                        "(* = default, openai/gpt-oss-120b)")
    assert lines[1].split() == ["MODEL", "STATUS", "STRICT", "JSON", "REASONING", "USD/M",
                                "IN", "USD/M", "OUT"]
    [default] = [line for line in lines if line.startswith("*")]
    assert default.split() == ["*", "openai/gpt-oss-120b", "active", "yes", "yes", "0.15",
                               "0.60"]
    [small] = [line for line in lines if "openai/gpt-oss-20b" in line]
    assert small.split() == ["openai/gpt-oss-20b", "active", "yes", "yes", "0.075", "0.30"]


def test_models_notices_a_default_that_is_not_served(fake_llm: FakeOpenAI,
                                                     cli_env: dict[str, str]) -> None:
    fake_llm.models = ["openai/gpt-oss-20b"]
    result = CliRunner(env={**cli_env, "LEADENGINE_MODEL": "llama-3.3-70b-versatile"}).invoke(
        models, ["--provider", "groq", "--base-url", fake_llm.base_url])
    assert result.exit_code == 0
    assert result.stderr == ("notice: the default model 'llama-3.3-70b-versatile' is not "
                             "served there; choose another with --model or LEADENGINE_MODEL\n")


def test_models_errors_are_one_line(fake_llm: FakeOpenAI, cli_env: dict[str, str]) -> None:
    def error(env: dict[str, str], *args: str) -> str:
        result = CliRunner(env=env).invoke(models, list(args))
        assert result.exit_code == 1
        [line] = result.stderr.splitlines()
        return line

    no_key = {k: v for k, v in cli_env.items() if k != "GROQ_API_KEY"}
    assert error(no_key, "--provider", "groq") == (
        "error: provider 'groq' needs an API key: set GROQ_API_KEY in the environment, or use "
        "--provider heuristic to evaluate offline")
    assert error(no_key) == (
        "error: the offline heuristic evaluator has no models list (its only model is "
        "rules-v1): set GROQ_API_KEY or pass --provider to list an LLM provider's models")
    fake_llm.models_error = Reply.error(401, "Invalid API Key")
    assert error(cli_env, "--provider", "groq", "--base-url", fake_llm.base_url) == (
        "error: groq rejected the API key (HTTP 401): set a valid GROQ_API_KEY")
    assert error(cli_env, "--provider", "groq", "--base-url", "http://127.0.0.1:9/v1") == (
        "error: cannot connect to groq at http://127.0.0.1:9/v1")


# --- leadengine.toml: [providers.NAME] and [prices] ---------------------------------------

def test_toml_overrides_a_providers_defaults_and_prices(fake_llm: FakeOpenAI,
                                                        kb: KnowledgeBase,
                                                        tmp_path: Path) -> None:
    (tmp_path / "leadengine.toml").write_text(
        '[leadengine]\nretrieval_method = "keyword"\nuse_cache = false\n\n'
        '[providers.groq]\nmodel = "openai/gpt-oss-20b"\ntpm = 6000\nrpd = 300\n\n'
        '[prices]\n"openai/gpt-oss-20b" = [0.2, 0.4]\n"my-model" = [1, 2]\n',
        encoding="utf-8")
    env = {"GROQ_API_KEY": "k", "LEADENGINE_BASE_URL": fake_llm.base_url}
    settings = Settings.load(env=env, directory=tmp_path).with_options(provider="groq")
    provider = settings.resolve_provider()
    assert (provider.default_model, provider.rpm, provider.tpm, provider.rpd) == (
        "openai/gpt-oss-20b", None, 6000, 300)
    assert settings.rate_limits(provider, "openai/gpt-oss-20b") == {
        "rpm": 30, "tpm": 6000, "rpd": 300, "tpd": 200_000}  # the rest the catalogue's
    assert settings.price_of("groq", "my-model") == (1.0, 2.0)
    assert settings.price_of("groq", "openai/gpt-oss-120b") == (0.15, 0.60)  # catalogue's
    evaluator = make_evaluator(settings, kb)
    assert isinstance(evaluator, LLMEvaluator)
    assert evaluator.limiter.tokens is not None and evaluator.limiter.tokens.capacity == 6000
    assert evaluator.limiter.day is not None and evaluator.limiter.day.limit == 300

    fake_llm.queue(Reply.json(GOOD, prompt_tokens=1000, completion_tokens=500))
    evaluation = asyncio.run(evaluate_url(SITE, settings, kb))
    assert fake_llm.chat_requests[0]["json"]["model"] == "openai/gpt-oss-20b"
    assert evaluation.cost_usd == pytest.approx((1000 * 0.2 + 500 * 0.4) / 1e6)

    # The environment still wins over the file's provider defaults.
    env |= {"LEADENGINE_MODEL": "openai/gpt-oss-120b", "LEADENGINE_LLM_TPM": "7000"}
    settings = Settings.load(env=env, directory=tmp_path).with_options(provider="groq")
    evaluator = make_evaluator(settings, kb)
    assert isinstance(evaluator, LLMEvaluator)
    assert evaluator.model == "openai/gpt-oss-120b"
    assert evaluator.limiter.tokens is not None and evaluator.limiter.tokens.capacity == 7000


def test_toml_without_a_leadengine_table(tmp_path: Path) -> None:
    (tmp_path / "leadengine.toml").write_text(
        'rag_limit = 2\n[providers.ollama]\nmodel = "qwen3:8b"\nrpm = 0\n', encoding="utf-8")
    settings = Settings.load(env={}, directory=tmp_path).with_options(provider="ollama")
    assert settings.rag_limit == 2
    assert settings.resolve_provider().default_model == "qwen3:8b"


@pytest.mark.parametrize(("text", "message"), [
    ('[providers.groq]\nmodle = "x"\n',
     r"leadengine.toml: providers.groq: unknown key 'modle' \(choose from: model, rpm, tpm, "
     r"rpd, tpd\)$"),
    ("[providers.gemini]\nrpm = 1\n",
     r"leadengine.toml: unknown provider \[providers.gemini\] \(choose one of: groq, openai, "
     r"ollama, custom, anthropic\)$"),
    ('[providers.groq]\ntpm = "lots"\n',
     r"leadengine.toml: providers.groq.tpm must be a whole number >= 0 \(0 = no limit\)$"),
    ('[prices]\n"openai/gpt-oss-20b" = [0.1]\n',
     r"leadengine.toml: prices.'openai/gpt-oss-20b' must be \[input, output\] USD per "
     r"million tokens, e.g. \[0.15, 0.60\]$"),
])
def test_bad_provider_and_price_tables_are_named(tmp_path: Path, text: str,
                                                 message: str) -> None:
    (tmp_path / "leadengine.toml").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        Settings.load(env={}, directory=tmp_path)
