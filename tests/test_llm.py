"""The LLM evaluator through the real openai SDK against a fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import pytest

from leadengine import ConfigError, Evaluation, KnowledgeBase, LLMError, Settings
from leadengine.facts.site_facts import site_facts
from leadengine.judgement.evaluators.llm import REPAIR_PROMPT
from leadengine.judgement.prompt import (
    SYSTEM_PROMPT,
    build_user_content,
    fence,
    fence_id,
    prompt_content,
    system_prompt,
)
from leadengine.pipeline import evaluate_url, retrieval_parts, retrieval_query
from leadengine.retrieval.budget import estimate_tokens
from leadengine.website.load import load_site
from tests.conftest import SITES
from tests.fakes.openai_server import FakeOpenAI, Reply

GOOD = {
    "business_name": "Smile Bright Dental",
    "business_type": "Dental Healthcare Provider",
    "primary_service": "Foundation Package",
    "fit_score": 88,
    "reasoning": "Bangkok-based clinic (target geography) with Facebook-only presence.",
    "outreach_angle": "Platform dependency risk - current growth relies on rented Facebook "
                      "platform.",
}
SITE = str(SITES / "bangkok-dental-fb-only" / "index.html")


def settings_for(fake: FakeOpenAI, **extra: Any) -> Settings:
    env = {"GROQ_API_KEY": "test-key"}
    extra.setdefault("retrieval_method", "keyword")
    extra.setdefault("use_cache", False)
    return Settings(provider="groq", base_url=fake.base_url, model="llama-test", env=env,
                    llm_retries=extra.pop("llm_retries", 0), **extra)


def run(fake: FakeOpenAI, kb: KnowledgeBase, **extra: Any) -> Evaluation:
    return asyncio.run(evaluate_url(SITE, settings_for(fake, **extra), kb))


def test_sends_the_exact_seed_prompt_and_returns_the_evaluation(fake_llm: FakeOpenAI,
                                                                kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD, prompt_tokens=1234, completion_tokens=87))
    evaluation = run(fake_llm, kb)

    [request] = fake_llm.chat_requests
    body = request["json"]
    site = asyncio.run(load_site(SITE))
    hits = kb.retrieve(site.content, limit=3, method="keyword")
    assert [h.path for h in hits] == ["Lead_q_criteria.md", "strategy_efficiency.md"]
    # The fenced content is the site's facts section, then its pages' text.
    content = prompt_content(site_facts(site, kb.rules))[0]
    assert body["messages"] == [
        {"role": "system", "content": system_prompt(kb.rubric_text())},
        {"role": "user", "content": build_user_content(fence(content),
                                                       [h.text for h in hits])},
    ]
    assert body["messages"][0]["content"].startswith(SYSTEM_PROMPT)
    assert "Fit-score rubric (from the knowledge base):\n## Fit-Score Rubric" in (
        body["messages"][0]["content"])
    # The fence's tags carry the content's id: only that closing tag ends the content.
    tag_id = fence_id(content)
    assert body["messages"][1]["content"].endswith(f'</website_content id="{tag_id}">')
    assert body["model"] == "llama-test"
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.2
    # Not a reasoning model: room for the answer, but no reasoning_effort.
    assert body["max_completion_tokens"] == 2048
    assert "reasoning_effort" not in body
    assert request["headers"]["authorization"] == "Bearer test-key"

    assert evaluation.model_dump(include=set(GOOD)) == GOOD
    assert (evaluation.provider, evaluation.model, evaluation.rag) == ("groq", "llama-test", True)
    assert evaluation.tokens["prompt"] == 1234 and evaluation.tokens["completion"] == 87
    assert 1500 < evaluation.tokens["prompt_estimate"] < 6000
    assert evaluation.cost_usd is None  # "llama-test" is not in the price table
    assert [s.path for s in evaluation.sources] == ["Lead_q_criteria.md",
                                                    "strategy_efficiency.md"]


def test_default_hybrid_context_is_section_passages_within_the_budget(
        fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    evaluation = run(fake_llm, kb, retrieval_method="hybrid")
    site = asyncio.run(load_site(SITE))
    parts = retrieval_parts(site)
    # The signals block and the site's words: an embedding model reads them apart.
    query = retrieval_query(site)
    assert parts[0].startswith("Detected signals:") and query.startswith(parts[0])
    assert site.text.startswith("Website: ") and "Website: " not in parts[1]
    assert parts[1].startswith("Title: ") and parts[1] in query
    hits = kb.retrieve(retrieval_query(site), limit=3, method="hybrid", budget=1000,
                       semantic_query=parts)
    user = fake_llm.chat_requests[0]["json"]["messages"][1]["content"]
    content = prompt_content(site_facts(site, kb.rules))[0]
    assert user == build_user_content(fence(content), [h.text for h in hits])
    assert sum(estimate_tokens(h.text) for h in hits) <= 1000
    assert all(s.heading for s in evaluation.sources)
    assert [(s.path, s.heading) for s in evaluation.sources] == [(h.path, h.heading)
                                                                   for h in hits]
    assert any(s.heading and "Platform Dependency Risk" in s.heading
               for s in evaluation.sources)


def test_without_rag_the_prompt_has_no_advisory_context(fake_llm: FakeOpenAI,
                                                        kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    evaluation = run(fake_llm, kb, use_rag=False)
    user = fake_llm.chat_requests[0]["json"]["messages"][1]["content"]
    assert user.startswith("Analyze this website content and provide the evaluation in JSON:")
    assert "Advisory Context" not in user
    assert evaluation.rag is False and evaluation.sources == []


def test_broken_json_then_good_is_repaired(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.content('{"business_name": "Smile'), Reply.json(GOOD))
    evaluation = run(fake_llm, kb)
    assert evaluation.fit_score == 88
    first, second = fake_llm.chat_requests
    messages = second["json"]["messages"]
    assert messages[:2] == first["json"]["messages"]
    assert messages[2] == {"role": "assistant", "content": '{"business_name": "Smile'}
    assert messages[3]["role"] == "user"
    assert messages[3]["content"].startswith("Your previous answer was not a valid evaluation: "
                                             "not valid JSON")
    assert (evaluation.tokens["prompt"], evaluation.tokens["completion"]) == (200, 100)


def test_code_fenced_json_is_accepted(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    import json

    fake_llm.queue(Reply.content("```json\n" + json.dumps(GOOD) + "\n```"))
    assert run(fake_llm, kb).business_name == "Smile Bright Dental"
    assert len(fake_llm.chat_requests) == 1


def test_out_of_range_score_is_repaired_then_fails(fake_llm: FakeOpenAI,
                                                   kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json({**GOOD, "fit_score": 150}), Reply.json({**GOOD, "fit_score": 101}))
    with pytest.raises(LLMError, match=r"did not return a valid evaluation after one repair "
                                       r"attempt: fit_score: Input should be less than or equal"):
        run(fake_llm, kb)
    repair = fake_llm.chat_requests[1]["json"]["messages"][3]["content"]
    assert repair == REPAIR_PROMPT.format(
        errors="fit_score: Input should be less than or equal to 100")


def test_missing_fields_are_named(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json({"business_name": "X"}), Reply.content("not json at all"))
    with pytest.raises(LLMError, match="not valid JSON"):
        run(fake_llm, kb)
    repair = fake_llm.chat_requests[1]["json"]["messages"][3]["content"]
    assert "business_type: Field required" in repair and "fit_score: Field required" in repair


def test_401_names_the_key_variable(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(401, "Invalid API Key", type_="invalid_request_error"))
    with pytest.raises(ConfigError, match=r"groq rejected the API key \(HTTP 401\): set a valid "
                                          r"GROQ_API_KEY"):
        run(fake_llm, kb)


def test_404_model_says_what_to_fix(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(404, "The model `llama-test` does not exist"))
    with pytest.raises(ConfigError) as raised:
        run(fake_llm, kb)
    assert str(raised.value) == (
        "groq has no model 'llama-test' (HTTP 404; it may have been retired): choose another "
        "with --model or LEADENGINE_MODEL; list them with: leadengine models --provider groq "
        f"--base-url {fake_llm.base_url}")


def test_500_is_retried_then_reported(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(*[Reply.error(500, "upstream exploded", type_="server_error")] * 3)
    with pytest.raises(LLMError, match=r"groq returned HTTP 500: upstream exploded"):
        run(fake_llm, kb, llm_retries=2)
    assert len(fake_llm.chat_requests) == 3


def test_429_with_retry_after_then_success(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(429, "slow down", headers={"retry-after": "1"}), Reply.json(GOOD))
    started = time.monotonic()
    evaluation = run(fake_llm, kb, llm_retries=1)
    assert evaluation.fit_score == 88
    assert time.monotonic() - started >= 0.9  # the server's retry-after was honoured
    assert len(fake_llm.chat_requests) == 2


def test_timeout_is_one_clear_error(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.hang(5))
    with pytest.raises(LLMError, match=r"did not answer within 0\.5s"):
        run(fake_llm, kb, llm_timeout=0.5)


def test_missing_key_is_a_config_error_before_any_fetch(kb: KnowledgeBase) -> None:
    with pytest.raises(ConfigError, match="needs an API key: set GROQ_API_KEY"):
        asyncio.run(evaluate_url("http://127.0.0.1:9/never-fetched",
                                 Settings(provider="groq", env={}), kb))


def test_groq_is_chosen_automatically_when_its_key_is_set() -> None:
    assert Settings(env={"GROQ_API_KEY": "k"}).resolve_provider().name == "groq"
    assert Settings(env={}).resolve_provider().name == "heuristic"
    assert Settings(env={}, base_url="http://127.0.0.1:1/v1").resolve_provider().name == "custom"
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        Settings(provider="gemini").resolve_provider()


def test_503_then_success_is_retried_with_back_off(fake_llm: FakeOpenAI,
                                                   kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(503, "overloaded", headers={"retry-after-ms": "200"}),
                   Reply.json(GOOD))
    started = time.monotonic()
    assert run(fake_llm, kb, llm_retries=1).fit_score == 88
    assert time.monotonic() - started >= 0.18  # retry-after-ms honoured
    assert len(fake_llm.chat_requests) == 2


def test_403_and_no_server_are_clear_errors(fake_llm: FakeOpenAI, kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.error(403, "organization has no access"))
    with pytest.raises(ConfigError, match=r"groq refused access \(HTTP 403\): organization "
                                          r"has no access"):
        run(fake_llm, kb)
    settings = settings_for(fake_llm).with_options(base_url="http://127.0.0.1:9/v1")
    with pytest.raises(LLMError, match=r"cannot connect to groq at http://127\.0\.0\.1:9/v1"):
        asyncio.run(evaluate_url(SITE, settings, kb))


def test_the_request_carries_the_key_and_the_tool_name(fake_llm: FakeOpenAI,
                                                       kb: KnowledgeBase) -> None:
    fake_llm.queue(Reply.json(GOOD))
    run(fake_llm, kb)
    headers = {k.lower(): v for k, v in fake_llm.chat_requests[0]["headers"].items()}
    assert headers["authorization"] == "Bearer test-key"
    assert headers["user-agent"].startswith("LeadIntelligenceEngine/")


def test_the_llm_evaluator_does_not_import_the_openai_sdk() -> None:
    """Importing the SDK cost 1.3 s on every command; the evaluator posts with httpx."""
    code = ("import sys, leadengine.cli, leadengine.judgement.evaluators.llm; "
            "sys.exit('openai' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
