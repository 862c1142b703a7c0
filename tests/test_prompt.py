"""The prompt is exactly the seed's, character for character."""

from __future__ import annotations

from leadengine import SYSTEM_PROMPT, build_messages, build_user_content


def test_without_rag_context() -> None:
    assert build_user_content("Smile Bright Dental, Sukhumvit") == (
        "Analyze this website content and provide the evaluation in JSON:\n\n"
        "Smile Bright Dental, Sukhumvit")


def test_empty_context_is_the_same_as_none() -> None:
    assert build_user_content("site", []) == build_user_content("site", None)


def test_with_rag_context() -> None:
    user = build_user_content("Website text", ["Lead criteria", "Strategy framework"])
    assert user == (
        "Additional Advisory Context (RAG):\n"
        "Lead criteria\n"
        "\n"
        "Strategy framework\n"
        "\n"
        "---\n"
        "\n"
        "Analyze this website content and provide the evaluation in JSON:\n"
        "\n"
        "Website text")


def test_single_passage() -> None:
    assert build_user_content("c", ["p"]) == (
        "Additional Advisory Context (RAG):\np\n\n---\n\n"
        "Analyze this website content and provide the evaluation in JSON:\n\nc")


def test_messages_are_system_then_user() -> None:
    messages = build_messages("c", ["p"])
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == SYSTEM_PROMPT
    assert messages[1]["content"] == build_user_content("c", ["p"])


def test_system_prompt_defines_role_and_all_six_fields() -> None:
    assert "lead qualification analyst" in SYSTEM_PROMPT
    for name in ("business_name", "business_type", "primary_service", "fit_score",
                 "reasoning", "outreach_angle"):
        assert f'"{name}"' in SYSTEM_PROMPT
    assert "integer 0-100" in SYSTEM_PROMPT
    assert "single JSON object" in SYSTEM_PROMPT
