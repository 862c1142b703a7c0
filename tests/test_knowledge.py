"""Loading the knowledge base: files, sections, front matter rules, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from leadengine import KnowledgeBase, KnowledgeError
from leadengine.knowledge.base import default_knowledge_dir
from tests.conftest import KNOWLEDGE, write_kb


def test_loads_every_md_file_recursively_sorted_by_path(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"b.md": "B", "A.md": "A", "sub/c.md": "C", "notes.txt": "x",
                               ".hidden/d.md": "D"})
    kb = KnowledgeBase.from_dir(root)
    assert [d.path for d in kb.documents] == ["A.md", "b.md", "sub/c.md"]
    assert [d.content for d in kb.documents] == ["A", "B", "C"]


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"a.md": b"\xef\xbb\xbf# Title\r\nBody text\r\n"})
    [doc] = KnowledgeBase.from_dir(root).documents
    assert doc.content == "# Title\nBody text"


def test_front_matter_is_rules_not_content(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {
        "a.md": "---\nleadengine:\n  geography:\n    - name: Yangon\n      country: Myanmar\n"
                "      aliases: [yangon, ရန်ကုန်]\n---\n# Criteria\nYangon first.\n",
        "b.md": "---\nleadengine:\n  rubric:\n    base: 20\n---\nText\n",
    })
    kb = KnowledgeBase.from_dir(root)
    assert kb.documents[0].content == "# Criteria\nYangon first."
    assert [p.name for p in kb.rules.geography] == ["Yangon"]
    assert kb.rules.geography[0].aliases == ["yangon", "ရန်ကုန်"]
    assert kb.rules.rubric.base == 20
    assert kb.rules.rubric.in_target_geography == 25  # untouched default


def test_sections_keep_heading_paths_and_ignore_code_fences(tmp_path: Path) -> None:
    text = ("Intro line\n# Strategy Framework\nAbout.\n## Platform Dependency Risk\nRented.\n"
            "```\n# not a heading\n```\n## Revenue Visibility Gap\nNo analytics.\n# Other\n")
    root = write_kb(tmp_path, {"s.md": text})
    sections = KnowledgeBase.from_dir(root).sections
    assert [(s.heading, s.level) for s in sections] == [
        (None, 0),
        ("Strategy Framework", 1),
        ("Strategy Framework > Platform Dependency Risk", 2),
        ("Strategy Framework > Revenue Visibility Gap", 2),
        ("Other", 1),
    ]
    assert sections[2].text == "## Platform Dependency Risk\nRented.\n```\n# not a heading\n```"


def test_missing_directory(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match=r"knowledge directory not found: .*nope"):
        KnowledgeBase.from_dir(tmp_path / "nope")


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError, match=r"has no \.md files"):
        KnowledgeBase.from_dir(tmp_path)


def test_a_file_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("x")
    with pytest.raises(KnowledgeError, match="not a directory"):
        KnowledgeBase.from_dir(tmp_path / "x.md")


def test_invalid_utf8_names_the_file(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"good.md": "ok", "bad.md": "caf\xe9".encode("latin-1")})
    with pytest.raises(KnowledgeError, match=r"bad\.md: not valid UTF-8"):
        KnowledgeBase.from_dir(root)


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"bad.md": "---\nleadengine: [unclosed\n---\nText"})
    with pytest.raises(KnowledgeError, match=r"bad\.md:.*invalid YAML front matter"):
        KnowledgeBase.from_dir(root)


def test_invalid_rules_name_the_field(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"bad.md": "---\nleadengine:\n  rubric:\n    base: lots\n---\n"})
    with pytest.raises(KnowledgeError, match=r"bad\.md: front matter leadengine\.rubric\.base"):
        KnowledgeBase.from_dir(root)


def test_version_changes_when_a_file_changes(tmp_path: Path) -> None:
    root = write_kb(tmp_path, {"a.md": "one"})
    before = KnowledgeBase.from_dir(root).version
    assert KnowledgeBase.from_dir(root).version == before
    (root / "a.md").write_text("two")
    assert KnowledgeBase.from_dir(root).version != before


def test_default_dir_prefers_local_knowledge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                             ) -> None:
    write_kb(tmp_path / "knowledge", {"mine.md": "local rules"})
    monkeypatch.chdir(tmp_path)
    assert default_knowledge_dir() == Path("knowledge")
    assert [d.path for d in KnowledgeBase.default().documents] == ["mine.md"]


def test_default_dir_falls_back_to_the_bundled_knowledge(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    kb = KnowledgeBase.default()
    assert [d.path for d in kb.documents] == ["Lead_q_criteria.md", "strategy_efficiency.md"]


def test_shipped_knowledge_has_what_the_seed_describes(kb: KnowledgeBase) -> None:
    criteria, strategy = (d.content for d in kb.documents)
    assert "Geography: Yangon, Mandalay, Bangkok" in criteria
    assert ("Digital Marketing Agencies: Do NOT sell 'Marketing Services' or 'Marketing "
            "Packages'. Focus on 'Technology Services'.") in criteria
    for layer in ("Visibility", "Website", "Measurement", "Operational", "Asset Ownership"):
        assert layer in criteria
    for angle in ("Revenue Visibility Gap", "Conversion Infrastructure Weakness",
                  "Operational Bottleneck", "Platform Dependency Risk",
                  "Underutilized Attention", "Competitive Positioning Gap"):
        assert angle in strategy
    assert {a.name for a in kb.rules.angles} == {
        "Revenue Visibility Gap", "Conversion Infrastructure Weakness", "Operational Bottleneck",
        "Platform Dependency Risk", "Underutilized Attention", "Competitive Positioning Gap"}
    targets = {p.name: p.aliases for p in kb.rules.geography if p.target}
    assert set(targets) == {"Yangon", "Mandalay", "Bangkok"}
    assert "ရန်ကုန်" in targets["Yangon"] and "กรุงเทพ" in targets["Bangkok"]
    services = {s.name for s in kb.rules.services}
    assert {"Foundation Package", "Custom Digital Solutions", "Technology Services"} <= services
    for exclusion in kb.rules.exclusions:
        assert exclusion.recommend in services
        assert set(exclusion.never_sell) <= services
    assert KNOWLEDGE.is_dir()
