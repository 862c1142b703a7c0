"""The chat-backend seam: the OpenAI-compatible and the Anthropic backends pass the same
evaluator tests, each against a fake server speaking its own wire format on 127.0.0.1;
then what is Anthropic's own (headers, system field, errors, models list), and the
provider registry."""

from __future__ import annotations

import ast
import asyncio
import json
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine import ConfigError, Evaluation, KnowledgeBase, LLMError, Settings
from leadengine.cli.models import models
from leadengine.config.providers import PROVIDERS
from leadengine.config.redact import KEY_VARIABLES, redact
from leadengine.judgement.evaluation import STRICT_ANSWER_SCHEMA
from leadengine.judgement.evaluators.anthropic import API_VERSION, JSON_ONLY
from leadengine.judgement.evaluators.backends import BACKENDS
from leadengine.judgement.prompt import system_prompt
from leadengine.pipeline import evaluate_url
from tests.conftest import REPO, SITES
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.openai_server import FakeOpenAI, Reply

GOOD = {"business_name": "Smile Bright Dental", "business_type": "Dental Healthcare Provider",
        "primary_service": "Foundation Package", "fit_score": 88,
        "reasoning": "Bangkok-based clinic with a Facebook-only presence.",
        "outreach_angle": "Platform dependency risk."}
SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")
KEY = "sk-ant-api03-" + "k" * 40


@dataclass
class Wire:
    """One backend under test: its provider, fake server, key variable and model."""

    provider: str
    fake: FakeOpenAI
    key_env: str
    model: str
    #: The request field that carries the room, and the stop reason of a cut answer.
    room_field: str
    cut_reason: str

    def settings(self, **extra: Any) -> Settings:
        for name, value in {"use_cache": False, "llm_retries": 0, "llm_tpm": 0,
                            "retrieval_method": "keyword", "model": self.model}.items():
            extra.setdefault(name, value)
        return Settings(provider=self.provider, base_url=self.fake.base_url,
                        env={self.key_env: KEY}, **extra)

    def run(self, kb: KnowledgeBase, **extra: Any) -> Evaluation:
        return asyncio.run(evaluate_url(SITE, self.settings(**extra), kb))

    def bodies(self) -> list[dict[str, Any]]:
        return [r["json"] for r in self.fake.chat_requests]


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Iterator[Wire]:
    if request.param == "openai":
        with FakeOpenAI() as fake:
            yield Wire("groq", fake, "GROQ_API_KEY", "llama-test", "max_completion_tokens",
                       "finish_reason=length")
    else:
        with FakeAnthropic() as fake:
            yield Wire("anthropic", fake, "ANTHROPIC_API_KEY", "claude-sonnet-5-5",
                       "max_tokens", "stop_reason=max_tokens")


# --- the same behaviour on both wires ----------------------------------------------------

def test_a_valid_answer_is_the_evaluation(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.json(GOOD, prompt_tokens=1000, completion_tokens=500))
    evaluation = wire.run(kb)
    assert evaluation.model_dump(include=set(GOOD)) == GOOD
    assert (evaluation.provider, evaluation.model) == (wire.provider, wire.model)
    assert (evaluation.tokens["prompt"], evaluation.tokens["completion"]) == (1000, 500)
    [body] = wire.bodies()
    assert body["model"] == wire.model and body[wire.room_field] == 2048
    if wire.provider == "anthropic":  # the catalogue's price: $2 in, $10 out
        assert evaluation.cost_usd == pytest.approx((1000 * 2.0 + 500 * 10.0) / 1e6)


def test_invalid_json_gets_one_repair_round(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.content('{"business_name": "Smile'), Reply.json(GOOD))
    assert wire.run(kb).fit_score == 88
    first, second = wire.bodies()
    assert second["messages"][:-2] == first["messages"]
    assert second["messages"][-2] == {"role": "assistant",
                                      "content": '{"business_name": "Smile'}
    assert second["messages"][-1]["role"] == "user"
    assert second["messages"][-1]["content"].startswith(
        "Your previous answer was not a valid evaluation: not valid JSON")


def test_429_with_retry_after_then_success(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.error(429, "slow down", headers={"retry-after": "1"}),
                    Reply.json(GOOD))
    started = time.monotonic()
    assert wire.run(kb, llm_retries=1).fit_score == 88
    assert time.monotonic() - started >= 0.9  # the server's retry-after was honoured
    assert len(wire.fake.chat_requests) == 2


def test_401_is_one_line_naming_the_key_variable(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.error(401, "invalid x-api-key"))
    with pytest.raises(ConfigError) as raised:
        wire.run(kb)
    assert str(raised.value) == (f"{wire.provider} rejected the API key (HTTP 401): set a "
                                 f"valid {wire.key_env}")


def test_a_timeout_is_one_line(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.hang(5))
    with pytest.raises(LLMError) as raised:
        wire.run(kb, llm_timeout=0.5)
    assert str(raised.value) == f"{wire.provider} did not answer within 0.5s"


def test_a_cut_answer_is_asked_again_with_twice_the_room(wire: Wire,
                                                         kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.cut(completion_tokens=2048), Reply.json(GOOD, completion_tokens=900))
    evaluation = wire.run(kb)
    first, second = wire.bodies()
    assert (first[wire.room_field], second[wire.room_field]) == (2048, 4096)
    assert second["messages"] == first["messages"]  # the same question, not a repair
    assert (evaluation.fit_score, evaluation.tokens["completion"]) == (88, 2948)

    wire.fake.queue(Reply.cut(), Reply.cut())
    with pytest.raises(LLMError) as raised:
        wire.run(kb)
    # Claude Sonnet 5.5 thinks before it answers: lowering the effort is a way out too.
    lower = " or lower LEADENGINE_REASONING_EFFORT" if wire.provider == "anthropic" else ""
    assert str(raised.value) == (
        f"{wire.provider} model {wire.model!r} ran out of room ({wire.cut_reason}, "
        f"{wire.room_field}=4096): raise LEADENGINE_MAX_COMPLETION_TOKENS{lower}")


def test_a_missing_model_says_choose_another(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.error(404, "model: no-such-model"))
    with pytest.raises(ConfigError) as raised:
        wire.run(kb, model="no-such-model", fallback=False)
    code = " not_found_error" if wire.provider == "anthropic" else ""
    assert str(raised.value) == (
        f"{wire.provider} has no model 'no-such-model' (HTTP 404{code}; it may have been "
        "retired) (fallback is off): choose another with --model or LEADENGINE_MODEL; list "
        f"them with: leadengine models --provider {wire.provider} --base-url "
        f"{wire.fake.base_url}")


def test_a_missing_model_gives_way_to_the_served_default(wire: Wire,
                                                          kb: KnowledgeBase) -> None:
    """With fallback on, a model the endpoint does not serve is replaced by the
    provider's default when the endpoint serves it, and the evaluation says so."""
    default = Settings(provider=wire.provider).resolve_provider().default_model
    wire.fake.models = ["some-other-model", default]
    wire.fake.retired["no-such-model"] = Reply.error(404, "model: no-such-model")
    wire.fake.queue(Reply.json(GOOD))
    evaluation = wire.run(kb, model="no-such-model")
    assert [b["model"] for b in wire.bodies()] == ["no-such-model", default]
    assert evaluation.model == default
    code = " not_found_error" if wire.provider == "anthropic" else ""
    assert evaluation.warnings[0] == (
        f"{wire.provider} model 'no-such-model' is not served (HTTP 404{code}): switched to "
        f"{default!r}")


def test_an_echoed_key_is_masked(wire: Wire, kb: KnowledgeBase) -> None:
    wire.fake.queue(Reply.error(400, f"bad request from key {KEY}"))
    with pytest.raises(LLMError) as raised:
        wire.run(kb)
    assert KEY not in str(raised.value) and "[redacted]" in str(raised.value)


# --- Anthropic's own wire format ---------------------------------------------------------

@pytest.fixture
def claude() -> Iterator[Wire]:
    with FakeAnthropic() as fake:
        yield Wire("anthropic", fake, "ANTHROPIC_API_KEY", "claude-sonnet-5-5",
                   "max_tokens", "stop_reason=max_tokens")


def test_the_messages_request(claude: Wire, kb: KnowledgeBase) -> None:
    """Claude Sonnet 5.5: the answer schema in output_config.format, the effort in
    output_config.effort, no sampling parameter, no prefill."""
    claude.fake.queue(Reply.json(GOOD))
    claude.run(kb)
    [request] = claude.fake.chat_requests
    assert (request["method"], request["path"]) == ("POST", "/v1/messages")
    headers = request["headers"]
    assert (headers["x-api-key"], headers["anthropic-version"]) == (KEY, API_VERSION)
    assert "authorization" not in headers and "anthropic-beta" not in headers
    body = request["json"]
    assert set(body) == {"model", "max_tokens", "system", "messages", "output_config"}
    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": STRICT_ANSWER_SCHEMA}, "effort": "low"}
    assert not {"temperature", "top_p", "top_k", "output_format"} & set(body)
    assert body["system"] == system_prompt(kb.rubric_text())  # the schema says it all
    assert [m["role"] for m in body["messages"]] == ["user"]


def test_an_older_claude_takes_a_temperature_and_an_instruction(claude: Wire,
                                                                 kb: KnowledgeBase) -> None:
    """A model the catalogue gives no strict schema (or JSON mode asked for) gets the
    JSON-only instruction; one that takes sampling parameters, the temperature."""
    claude.fake.queue(Reply.json(GOOD), Reply.json(GOOD))
    claude.run(kb, model="claude-3-haiku-20240307")
    claude.run(kb, structured_output="json_object")
    older, forced = claude.bodies()
    assert older["system"].endswith(JSON_ONLY) and "output_config" not in older
    assert older["temperature"] == 0.2
    assert forced["system"].endswith(JSON_ONLY)
    assert forced["output_config"] == {"effort": "low"} and "temperature" not in forced


def test_a_model_that_refuses_the_temperature_is_asked_again_without_it(
        claude: Wire, kb: KnowledgeBase) -> None:
    """A model the catalogue does not know, whose name no family matches, that refuses
    sampling parameters: its HTTP 400 for the temperature is answered by the same request
    without it, and no later request sends one."""
    claude.fake.queue(Reply.json(GOOD), Reply.json(GOOD))
    claude.fake.strict_models.add("claude-next")
    settings = claude.settings(model="claude-next")
    from leadengine.judgement.evaluators import make_evaluator

    evaluator = make_evaluator(settings, kb)
    for _ in range(2):
        asyncio.run(evaluate_url(SITE, settings, kb, evaluator))
    bodies = claude.bodies()
    assert [("temperature" in b) for b in bodies] == [True, False, False]
    assert len(claude.fake.requests) == 3


def test_anthropic_errors_as_the_api_sends_them(claude: Wire, kb: KnowledgeBase) -> None:
    """404 not_found_error for a retired model (switched from, to the catalogue's
    replacement), 529 overloaded_error (retried)."""
    claude.fake.queue(Reply.error(529, "Overloaded"), Reply.json(GOOD))
    assert claude.run(kb, llm_retries=1).fit_score == 88
    claude.fake.retired["claude-opus-4-7"] = Reply.error(404, "model: claude-opus-4-7")
    claude.fake.queue(Reply.json(GOOD))
    evaluation = claude.run(kb, model="claude-opus-4-7")
    assert evaluation.model == "claude-sonnet-5-5"  # the served default
    assert evaluation.warnings[0] == ("anthropic model 'claude-opus-4-7' is not served "
                                      "(HTTP 404 not_found_error): switched to "
                                      "'claude-sonnet-5-5'")


def test_overloaded_529_is_retried_and_500_reported(claude: Wire, kb: KnowledgeBase) -> None:
    claude.fake.queue(Reply.error(529, "Overloaded"), Reply.json(GOOD))
    assert claude.run(kb, llm_retries=1).fit_score == 88
    claude.fake.queue(*[Reply.error(500, "Internal server error")] * 2)
    with pytest.raises(LLMError) as raised:
        claude.run(kb, llm_retries=1)
    assert str(raised.value) == "anthropic returned HTTP 500: Internal server error"
    assert len(claude.fake.chat_requests) == 4


def test_models_lists_anthropic_models(claude: Wire, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner(env={"ANTHROPIC_API_KEY": KEY}).invoke(
        models, ["--provider", "anthropic", "--base-url", claude.fake.base_url, "--json"])
    assert result.exit_code == 0, result.output
    [request] = claude.fake.requests
    assert request["path"] == "/v1/models?limit=1000"
    assert request["headers"]["x-api-key"] == KEY
    listing = json.loads(result.stdout)
    assert listing["default"] == "claude-sonnet-5-5"
    rows = {m["id"]: m for m in listing["models"]}
    assert list(rows) == ["claude-haiku-5-5", "claude-sonnet-5-5"]
    assert rows["claude-sonnet-5-5"] == {"id": "claude-sonnet-5-5", "default": True,
                                         "status": "active", "retires": None,
                                         "strict_json_schema": True, "reasoning": True,
                                         "price": {"input": 2.0, "output": 10.0}}
    claude.fake.models_error = Reply.error(401, "invalid x-api-key")
    result = CliRunner(env={"ANTHROPIC_API_KEY": KEY}).invoke(
        models, ["--provider", "anthropic", "--base-url", claude.fake.base_url])
    assert result.stderr.splitlines() == [
        "error: anthropic rejected the API key (HTTP 401): set a valid ANTHROPIC_API_KEY"]


def test_a_missing_anthropic_key_is_named(kb: KnowledgeBase) -> None:
    with pytest.raises(ConfigError, match="needs an API key: set ANTHROPIC_API_KEY"):
        asyncio.run(evaluate_url(SITE, Settings(provider="anthropic", env={}), kb))


# --- the registry ------------------------------------------------------------------------

def test_every_provider_names_a_known_backend() -> None:
    from leadengine.config import PROVIDERS as CONFIG_PROVIDERS

    assert CONFIG_PROVIDERS is PROVIDERS  # re-exported
    for provider in PROVIDERS.values():
        assert provider.backend is None or provider.backend in BACKENDS, provider.name
    anthropic = Settings(provider="anthropic").resolve_provider()
    assert (anthropic.base_url, anthropic.key_env, anthropic.default_model) == (
        "https://api.anthropic.com", "ANTHROPIC_API_KEY", "claude-sonnet-5-5")
    assert anthropic.backend == "anthropic"
    assert Settings().price_of("anthropic", "claude-sonnet-5-5") == (2.0, 10.0)


def test_anthropic_keys_are_redacted() -> None:
    assert "ANTHROPIC_API_KEY" in KEY_VARIABLES
    assert redact(f"key {KEY} refused") == "key [redacted] refused"
    assert KEY not in redact(f'{{"x-api-key": "{KEY}"}}')


def test_no_module_imports_the_openai_sdk() -> None:
    """The engine speaks HTTP itself; the SDK is a dev dependency of test_fakes.py."""
    for path in (REPO / "src" / "leadengine").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n == "openai" or n.startswith("openai.") for n in names), path
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not any(d.startswith("openai") for d in project["dependencies"])
    assert any(d.startswith("openai") for d in project["optional-dependencies"]["dev"])


def test_requests_in_flight_are_spread_over_small_connection_pools(
        fake_llm: FakeOpenAI) -> None:
    # An httpx pool's bookkeeping is quadratic in its connections (64 requests in flight on
    # one pool cost about 8 ms of CPU each): requests go to pools of POOL_SIZE at a time.
    from leadengine.judgement.evaluators.chat import POOL_SIZE
    from leadengine.judgement.evaluators.openai_compat import OpenAIChat

    in_flight = 2 * POOL_SIZE + 3
    fake_llm.queue(*[Reply.json(GOOD, delay=0.4)] * (in_flight + 3))
    chat = OpenAIChat(fake_llm.base_url, "sk-test", timeout=10, max_retries=0,
                      user_agent="test")
    url = f"{fake_llm.base_url}/chat/completions"

    async def main() -> tuple[list[Any], int, list[int], int]:
        answers = await asyncio.gather(*(chat.post_json(url, {"model": "m"})
                                         for _ in range(in_flight)))
        pools = chat._pools()
        opened, busy = len(pools.clients), list(pools.busy)
        for _ in range(3):  # one at a time: the first pool's kept connection each time
            await chat.post_json(url, {"model": "m"})
        return answers, opened, busy, len(pools.clients)

    answers, opened, busy, opened_after = asyncio.run(main())
    assert len(answers) == in_flight and all(a["choices"] for a in answers)
    assert fake_llm.max_in_flight == in_flight  # all at once, none waiting for a pool
    assert opened == 3 and busy == [0, 0, 0] and opened_after == 3
