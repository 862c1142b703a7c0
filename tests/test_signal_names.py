"""The signal-name registry: it agrees with detection on every fixture site, the docs'
table is its own, the export keeps its columns, and a knowledge base whose conditions
name an unknown signal or industry fails to load with a message that says where."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from leadengine import KnowledgeBase, Settings
from leadengine.errors import KnowledgeError
from leadengine.knowledge.signal_names import DETECTED, NAMES, SIGNALS, markdown_table
from leadengine.output.export import flatten
from leadengine.output.report import KEY_SIGNALS
from leadengine.website.load import load_site
from tests.conftest import REPO, SITES, write_kb

FIXTURE_PAGES = sorted(SITES.glob("*/index.html"))


@pytest.fixture(scope="module")
def detected_flags() -> dict[str, set[str]]:
    """Fixture site -> the flag names detection set on it (held or not), crawling its
    subpages from the files as a real run would."""
    return {page.parent.name: set(asyncio.run(load_site(str(page), Settings())).signals.flags)
            for page in FIXTURE_PAGES}


def test_there_are_fixture_sites_to_detect_on() -> None:
    assert len(FIXTURE_PAGES) >= 20


def test_every_flag_detection_sets_is_registered(detected_flags: dict[str, set[str]]) -> None:
    unregistered = {site: sorted(flags - NAMES) for site, flags in detected_flags.items()
                    if flags - NAMES}
    assert unregistered == {}, "add these to leadengine/knowledge/signal_names.py"


def test_every_registered_name_is_detected_or_derived(detected_flags: dict[str, set[str]]
                                                      ) -> None:
    produced = set().union(*detected_flags.values())
    # A name detection never sets would be accepted in conditions yet never hold.
    assert sorted(DETECTED - produced) == []
    # Derived names come from the facts, never from a page.
    derived = {s.name for s in SIGNALS if s.kind == "derived"}
    assert derived == {"in_target", "out_of_market", "excluded"}
    assert not derived & produced


def test_registry_entries_are_unique_and_complete() -> None:
    assert len(NAMES) == len(SIGNALS)
    for signal in SIGNALS:
        assert re.fullmatch(r"[a-z][a-z_]*", signal.name), signal.name
        assert signal.label and signal.meaning.endswith((".", ")")), signal.name
    columns = [s.column for s in SIGNALS if s.column is not None]
    assert sorted(columns) == list(range(1, len(columns) + 1))


def test_the_docs_table_is_the_registry() -> None:
    docs = (REPO / "docs" / "knowledge-base.md").read_text(encoding="utf-8")
    assert markdown_table() in docs, ("regenerate the table in docs/knowledge-base.md with "
                                      "`python -m leadengine.knowledge.signal_names`")


def test_export_columns_are_unchanged() -> None:
    signal_columns = [c for c in flatten({}) if c.startswith("signal_")]
    assert signal_columns == [
        "signal_google_analytics", "signal_google_tag_manager", "signal_meta_pixel",
        "signal_tiktok_pixel", "signal_hotjar", "signal_contact_form",
        "signal_online_booking", "signal_ecommerce", "signal_facebook_link",
        "signal_facebook_only", "signal_messaging_link", "signal_phone", "signal_email",
        "signal_address"]


def test_report_labels_are_the_registrys() -> None:
    assert dict(KEY_SIGNALS)["ecommerce"] == "Online shop"
    assert dict(KEY_SIGNALS)["https"] == "HTTPS"


def test_the_shipped_knowledge_loads() -> None:
    kb = KnowledgeBase.from_dir(REPO / "knowledge")
    assert kb.rules.angles and kb.rules.services and kb.rules.maturity_layers


# --- conditions checked at load ------------------------------------------------------

INDUSTRIES = ("  industries:\n    - name: Marketing Agency\n      business_type: Agency\n"
              "      points: 0\n      keywords: [agency]\n")


def kb_with(tmp_path: Path, rules: str, other: str = INDUSTRIES) -> Path:
    """A knowledge base of two files: ``rules.md`` with ``rules`` as its front matter,
    and ``a.md`` (loaded first) with ``other``'s (the industries, by default)."""
    return write_kb(tmp_path / "kb", {
        "a.md": f"---\nleadengine:\n{other}---\n# Industries\nAgencies.\n",
        "rules.md": f"---\nleadengine:\n{rules}---\n# Rules\nText.\n",
    })


def load_error(root: Path) -> str:
    with pytest.raises(KnowledgeError) as caught:
        KnowledgeBase.from_dir(root)
    return str(caught.value)


ANGLE = ("  angles:\n    - name: Platform Dependency Risk\n      when: {when}\n"
         "      framing: Rented platform.\n")
SERVICES = ("  services:\n    - name: Foundation Package\n      summary: Site.\n"
            "      when: [facebook_only]\n    - name: Growth Package\n      summary: Ads.\n"
            "      when: {when}\n")


def test_a_misspelt_signal_names_file_rule_and_closest_name(tmp_path: Path) -> None:
    root = kb_with(tmp_path, ANGLE.format(when="[facebok_only]"))
    assert load_error(root) == ("rules.md: angles[\"Platform Dependency Risk\"].when: unknown "
                                "signal 'facebok_only' (did you mean 'facebook_only'?)")


def test_a_misspelt_negated_signal_fails_the_same_way(tmp_path: Path) -> None:
    root = kb_with(tmp_path, SERVICES.format(when='[has_website, "not:analytcs"]'))
    assert load_error(root) == ("rules.md: services[\"Growth Package\"].when: unknown signal "
                                "'analytcs' (did you mean 'analytics'?)")


def test_a_maturity_layer_evidence_is_checked(tmp_path: Path) -> None:
    layer = ("  maturity_layers:\n    - name: Website\n      evidence: [has_website, htps]\n"
             "      gap_points: 8\n")
    assert load_error(kb_with(tmp_path, layer)) == (
        "rules.md: maturity_layers[\"Website\"].evidence: unknown signal 'htps' "
        "(did you mean 'https'?)")


def test_a_name_far_from_any_points_at_the_docs(tmp_path: Path) -> None:
    root = kb_with(tmp_path, ANGLE.format(when="[zzzz]"))
    assert load_error(root).endswith(
        "unknown signal 'zzzz' (see 'Conditions' in docs/knowledge-base.md)")


def test_an_unknown_industry_names_the_closest_one(tmp_path: Path) -> None:
    root = kb_with(tmp_path, SERVICES.format(when='["not:industry:Marketing Agncy"]'))
    assert load_error(root) == ("rules.md: services[\"Growth Package\"].when: unknown "
                                "industry 'Marketing Agncy' (did you mean 'Marketing Agency'?)")


def test_an_industry_with_no_industries_defined(tmp_path: Path) -> None:
    root = kb_with(tmp_path, ANGLE.format(when='["industry:Medical"]'),
                   other="  rubric:\n    base: 10\n")
    assert load_error(root).endswith("unknown industry 'Medical' (the knowledge base "
                                     "defines no industries)")


def test_every_valid_condition_form_loads(tmp_path: Path) -> None:
    """Signals, their negation, derived names and an industry another file (loaded
    first or last) defines."""
    when = ('[facebook_only, "not:analytics", in_target, "not:out_of_market", "not:excluded",'
            ' "industry:Marketing Agency", "not:industry:Marketing Agency"]')
    kb = KnowledgeBase.from_dir(kb_with(tmp_path, SERVICES.format(when=when)))
    assert kb.rules.services[1].when[-1] == "not:industry:Marketing Agency"
    later = write_kb(tmp_path / "later", {
        "a.md": f"---\nleadengine:\n{ANGLE.format(when='[industry:Marketing Agency]')}---\nA\n",
        "z.md": f"---\nleadengine:\n{INDUSTRIES}---\nZ\n"})
    assert KnowledgeBase.from_dir(later).rules.angles[0].when == ["industry:Marketing Agency"]


def test_a_bad_condition_in_the_shipped_file_names_it(tmp_path: Path) -> None:
    shipped = (REPO / "knowledge" / "strategy_efficiency.md").read_text(encoding="utf-8")
    criteria = (REPO / "knowledge" / "Lead_q_criteria.md").read_text(encoding="utf-8")
    broken = shipped.replace('when: ["facebook_only"]', 'when: ["facebok_only"]', 1)
    assert broken != shipped
    root = write_kb(tmp_path / "kb", {"Lead_q_criteria.md": criteria,
                                      "strategy_efficiency.md": broken})
    assert load_error(root) == (
        "strategy_efficiency.md: angles[\"Platform Dependency Risk\"].when: unknown signal "
        "'facebok_only' (did you mean 'facebook_only'?)")


def test_a_misspelt_category_names_the_closest_one(tmp_path: Path) -> None:
    root = kb_with(tmp_path, SERVICES.format(when='["category:construction|logistic"]'))
    assert load_error(root) == ("rules.md: services[\"Growth Package\"].when: unknown "
                                "category 'logistic' (did you mean 'logistics'?)")


def test_category_conditions_hold_for_the_sites_category() -> None:
    from leadengine.facts.conditions import holds
    values = {"category:construction": True, "analytics": False}
    assert holds("category:construction", values)
    assert holds("category:logistics|construction", values)
    assert not holds("category:logistics|trading", values)
    assert holds("not:category:logistics|trading", values)
    assert not holds("not:category:manufacturing|construction", values)
