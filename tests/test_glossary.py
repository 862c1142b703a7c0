"""Cross-lingual retrieval: a Thai or Burmese query (however long) meets an English
knowledge base through the glossary (the shipped one and the team's front-matter
``aliases``); the seed's keyword method is never expanded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from leadengine import KnowledgeBase
from leadengine.errors import ConfigError, KnowledgeError
from leadengine.retrieval.glossary import GLOSSARY_FILE, Glossary, Group, glossary_for, read_groups
from tests.conftest import write_kb

CLINIC = ("# Clinics\n\nA dental clinic or medical practice that books patients by phone "
          "loses appointments; offer online booking and reminders.\n")
FOOD = ("# Restaurants\n\nA restaurant or cafe that takes table reservations by phone "
        "should get a reservation page and a delivery menu.\n")
SOCIAL = ("# Facebook-only businesses\n\nA business whose only presence is a Facebook page "
          "rents its audience; an owned website keeps customers.\n")


def test_terms_are_found_leftmost_longest_and_expand_to_english() -> None:
    glossary = Glossary([Group(("clinic",), ("คลินิก",)),
                         Group(("aesthetic", "beauty"), ("คลินิกความงาม",)),
                         Group(("dentist", "dental"), ("ทันตกรรม",)),
                         Group(("restaurant",), ("restaurants", "eatery"))])
    assert glossary.matches("คลินิกความงามและทันตกรรม") == [1, 2]  # not "clinic" too
    assert glossary.matches("คลินิก ทันตกรรม") == [0, 2]
    # Latin terms (synonyms) match whole words, plurals too; not inside a word.
    assert glossary.matches("Two eateries and an eatery") == [3]
    assert glossary.matches("Eatery!") == [3]
    assert glossary.matches("sweateryarn") == []
    assert glossary.expand("ทันตกรรม ทันตกรรม") == "ทันตกรรม ทันตกรรม\ndentist dental"
    assert glossary.expand("no term here") == "no term here"


def test_the_shipped_glossary_is_valid_data() -> None:
    data = yaml.safe_load(GLOSSARY_FILE.read_text(encoding="utf-8"))
    groups = read_groups(data["groups"], GLOSSARY_FILE.name)
    assert len(groups) >= 150
    native = [t for g in groups for t in g.terms if re.search("[\u0e00-\u109f]", t)]
    assert len(native) == len(set(native)), "a Thai or Burmese term is in two groups"
    assert all(len(t) >= 2 for t in native)
    assert all(g.en and all(w == w.lower() for w in g.en) for g in groups)
    thai = sum(bool(re.search("[\u0e00-\u0e7f]", t)) for t in native)
    burmese = sum(bool(re.search("[\u1000-\u109f]", t)) for t in native)
    assert thai >= 500 and burmese >= 300


@pytest.mark.parametrize("data, error", [
    ({"en": []}, "group 1 has no 'en' words"),
    ({"en": ["clinic"], "th": "คลินิก"}, "group 1: every key must list words"),
    ("clinic", "group 1 has no 'en' words")])
def test_broken_glossary_data_is_a_one_line_error(data: object, error: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(error)):
        read_groups([data], "glossary.yaml")


def test_a_thai_website_meets_english_advice_with_bm25_and_hybrid(tmp_path: Path) -> None:
    kb = KnowledgeBase.from_dir(write_kb(tmp_path / "kb", {
        "clinics.md": CLINIC, "restaurants.md": FOOD, "social.md": SOCIAL}),
        embedder="hash", cache_dir=tmp_path / "cache")
    # A website-length Thai page: no English word of the knowledge base in it.
    page = ("คลินิกทันตกรรมยิ้มสวย ให้บริการจัดฟัน ขูดหินปูน อุดฟัน โดยทันตแพทย์ผู้เชี่ยวชาญ "
            "เปิดทุกวัน นัดหมายได้ทางโทรศัพท์ ") * 30
    for method in ("bm25", "hybrid"):
        hits = kb.retrieve(page, limit=1, method=method)
        assert [h.path for h in hits] == ["clinics.md"], method
    burmese = "စားသောက်ဆိုင် ထမင်းဟင်း မုန့်ဟင်းခါး လက်ဖက်ရည်ဆိုင် " * 20
    assert [h.path for h in kb.retrieve(burmese, limit=1, method="bm25")] == [
        "restaurants.md"]
    # The seed's keyword method reads the query as it is.
    assert kb.retrieve(page, limit=1, method="keyword") == []


def test_the_teams_aliases_extend_the_glossary(tmp_path: Path) -> None:
    front = ("---\nleadengine:\n  aliases:\n    - en: [facebook, page]\n"
             "      terms: [fanpage, แฟนเพจ]\n---\n")
    kb = KnowledgeBase.from_dir(write_kb(tmp_path / "kb", {
        "clinics.md": CLINIC, "restaurants.md": FOOD, "social.md": front + SOCIAL}),
        embedder="hash", cache_dir=tmp_path / "cache")
    for query in ("ร้านเรามีแค่แฟนเพจ", "we only have a fanpage"):
        assert [h.path for h in kb.retrieve(query, limit=1, method="bm25")] == [
            "social.md"], query
    explained = kb.retriever("bm25").explain(
        "มีแค่แฟนเพจ", kb.retrieve("มีแค่แฟนเพจ", limit=1, method="bm25")[0])
    assert "facebook" in explained["words"]


def test_a_broken_alias_in_front_matter_names_the_file(tmp_path: Path) -> None:
    front = "---\nleadengine:\n  aliases:\n    - terms: [แฟนเพจ]\n---\n"
    with pytest.raises(KnowledgeError, match=r"social\.md"):
        KnowledgeBase.from_dir(write_kb(tmp_path / "kb", {"social.md": front + SOCIAL}))


@pytest.mark.parametrize(("query", "words"), [
    ("ลูกค้าเงียบหายหลังส่งใบเสนอราคา ควรติดตามกี่ครั้ง", {"follow up", "no reply", "proposal"}),
    ("အဆိုပြုချက် ပို့ပြီးနောက် ဖောက်သည်က ပြန်မဖြေရင်", {"proposal", "no reply"}),
    ("How often should we nudge a prospect who went quiet?", {"follow up", "no reply"}),
    ("The owner says the social media profile is all they need", {"social media"}),
    ("ลูกค้าไม่มาตามนัด", {"no-show"}),
])
def test_the_sales_process_words_meet_in_every_language(query: str, words: set[str]) -> None:
    expansion = glossary_for().expand(query).split("\n", 1)[1]
    assert all(word in expansion for word in words), expansion
