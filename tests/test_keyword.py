"""method="keyword" is the seed's algorithm exactly: scores, order, fallback, limit."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.seed_rag import SeedRAG
from leadengine import KnowledgeBase, RAGSystem
from tests.conftest import write_kb


def kb_of(tmp_path: Path, files: dict[str, str]) -> KnowledgeBase:
    return KnowledgeBase.from_dir(write_kb(tmp_path / "kb", files))


def scored(kb: KnowledgeBase, query: str, limit: int = 3) -> list[tuple[str, float]]:
    return [(h.path, h.score) for h in kb.retrieve(query, limit=limit, method="keyword")]


def test_seed_example_medical_clinic_bangkok(tmp_path: Path) -> None:
    # The seed: the document contains "medical", "bangkok", "clinic" -> base score 3,
    # and each of the three words is longer than 4 characters -> +0.5 each.
    kb = kb_of(tmp_path, {"clinic.md": "Medical clinic owners in Bangkok need owned websites."})
    assert scored(kb, "medical clinic bangkok") == [("clinic.md", 4.5)]


def test_seed_example_restaurant_automation_system(tmp_path: Path) -> None:
    # The seed: "automation", "restaurant", "system" are all found -> boost +1.5.
    kb = kb_of(tmp_path, {"ops.md": "A restaurant booking system with automation saves hours."})
    assert scored(kb, "restaurant automation system") == [("ops.md", 4.5)]


def test_punctuation_counts_for_the_boost_but_not_the_intersection(tmp_path: Path) -> None:
    # "bangkok," is a different whitespace token from "bangkok", but "bangkok" is still a
    # substring of the document, so it earns the long-word boost only.
    kb = kb_of(tmp_path, {"a.md": "Clinics in Bangkok, Yangon and Mandalay."})
    assert scored(kb, "bangkok clinic") == [("a.md", 1.0)]


def test_short_words_match_but_earn_no_boost(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "the spa and the gym"})
    assert scored(kb, "spa gym the") == [("a.md", 3.0)]


def test_substring_boost_inside_longer_words(tmp_path: Path) -> None:
    # "clinic" is inside "clinics" (boost 0.5) but is not the same token (no +1).
    kb = kb_of(tmp_path, {"a.md": "We serve clinics."})
    assert scored(kb, "clinic") == [("a.md", 0.5)]


def test_case_is_ignored(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "DENTAL Clinic"})
    assert scored(kb, "dental CLINIC") == [("a.md", 3.0)]


def test_ranked_by_score_and_ties_keep_path_order(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {
        "b_second.md": "restaurant",
        "a_first.md": "restaurant",
        "c_best.md": "restaurant automation",
        "d_none.md": "nothing relevant here",
    })
    assert scored(kb, "restaurant automation") == [
        ("c_best.md", 3.0), ("a_first.md", 1.5), ("b_second.md", 1.5)]
    assert scored(kb, "restaurant automation", limit=2) == [("c_best.md", 3.0),
                                                            ("a_first.md", 1.5)]
    assert scored(kb, "restaurant automation", limit=0) == []


def test_limit_above_matches_returns_only_scoring_documents(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "restaurant", "b.md": "hotel"})
    assert scored(kb, "restaurant", limit=10) == [("a.md", 1.5)]


def test_fallback_high_value_term_when_nothing_scores(tmp_path: Path) -> None:
    # "clinic-bangkok" is one whitespace token found in no document, so nothing scores;
    # the fallback then gives 1 to documents sharing a high-value term with the query.
    kb = kb_of(tmp_path, {
        "geo.md": "Our markets: Bangkok, Yangon.",
        "other.md": "Pricing and packages.",
        "geo2.md": "bangkok",
    })
    assert scored(kb, "clinic-bangkok") == [("geo.md", 1.0), ("geo2.md", 1.0)]


def test_fallback_does_not_apply_when_something_scores(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"geo.md": "Bangkok", "pricing.md": "pricing"})
    assert scored(kb, "clinic-bangkok pricing") == [("pricing.md", 1.5)]


def test_no_match_and_empty_query_return_nothing(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "restaurant"})
    assert scored(kb, "zzz qqq") == []
    assert scored(kb, "") == []
    assert scored(kb, "   \n\t") == []


def test_hits_are_whole_documents_with_path_and_no_heading(tmp_path: Path) -> None:
    text = "# Title\n\n## Part\nmedical clinic"
    kb = kb_of(tmp_path, {"sub/dir.md": text})
    [hit] = kb.retrieve("clinic", method="keyword")
    assert (hit.path, hit.heading, hit.text) == ("sub/dir.md", None, text)


def test_seed_shape_rag_system_returns_contents(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "medical clinic", "b.md": "clinic"})
    rag = RAGSystem(root)
    assert rag.retrieve("medical clinic", limit=3) == ["medical clinic", "clinic"]
    assert rag.retrieve("medical clinic", limit=1) == ["medical clinic"]
    assert [d["content"] for d in rag.corpus] == ["medical clinic", "clinic"]


def test_negative_limit_is_rejected(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "x"})
    with pytest.raises(ValueError, match="limit"):
        kb.retrieve("x", limit=-1)


VOCAB = ("bangkok bangkok, yangon mandalay clinic clinics dental medical restaurant hotel "
         "marketing digital education analytics facebook booking website the and of to a "
         "spa gym automation system systems pricing growth platform dependency กรุงเทพ "
         "ရန်ကုန် café cafés BANGKOK Clinic web-design e-commerce").split()


@pytest.mark.parametrize("seed", range(20))
def test_identical_to_the_seed_code_on_random_corpora(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    files = {f"doc{i:02d}.md": " ".join(rng.choices(VOCAB, k=rng.randint(0, 40)))
             for i in range(rng.randint(1, 12))}
    kb = kb_of(tmp_path, files)
    seed_rag = SeedRAG([{"content": d.content} for d in kb.documents])
    for _ in range(25):
        query = " ".join(rng.choices([*VOCAB, "clinic-bangkok", "xmarketingx"],
                                     k=rng.randint(0, 12)))
        limit = rng.randint(0, 5)
        ours = [(h.score, h.text) for h in kb.retrieve(query, limit=limit)]
        assert ours == seed_rag.retrieve(query, limit=limit), query


def test_identical_to_the_seed_code_on_the_shipped_knowledge(kb: KnowledgeBase) -> None:
    seed_rag = SeedRAG([{"content": d.content} for d in kb.documents])
    page = (Path(__file__).parent / "fixtures" / "sites" / "bangkok-dental-fb-only" /
            "index.html").read_text(encoding="utf-8")
    for query in ["medical clinic bangkok", "restaurant automation system", "yangon",
                  "facebook-only", page]:
        ours = [(h.score, h.text) for h in kb.retrieve(query, limit=3)]
        assert ours == seed_rag.retrieve(query, limit=3)
        assert ours, query
