"""`kb eval` metrics on a hand-checked toy set, `kb search --explain`, and the embeddings
endpoint implementation against the fake OpenAI server."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from leadengine import ConfigError, KnowledgeBase
from leadengine.cli import cli
from leadengine.retrieval.embed import OpenAIEmbedder
from leadengine.retrieval.metrics import (
    load_qrels,
    mrr_at,
    ndcg_at,
    ranked_files,
    recall_at,
    score_methods,
)
from tests.conftest import write_kb
from tests.fakes.openai_server import FakeOpenAI


def test_ndcg_recall_mrr_by_hand() -> None:
    relevant = {"a.md": 2, "b.md": 1}
    # Ideal order: a (gain 3), b (gain 1): IDCG = 3 + 1/log2(3).
    idcg = 3 + 1 / math.log2(3)
    assert ndcg_at(["a.md", "b.md"], relevant) == pytest.approx(1.0)
    assert ndcg_at(["b.md", "a.md"], relevant) == pytest.approx((1 + 3 / math.log2(3)) / idcg)
    assert ndcg_at(["c.md", "d.md", "e.md", "a.md"], relevant) == 0.0  # a is at rank 4
    assert recall_at(["c.md", "b.md"], relevant) == 0.5
    assert recall_at([], relevant) == 0.0
    assert mrr_at(["c.md", "d.md", "b.md"], relevant) == pytest.approx(1 / 3)
    assert mrr_at(["c.md"], relevant) == 0.0
    assert ranked_files(["a.md", "b.md", "a.md", "c.md"]) == ["a.md", "b.md", "c.md"]


def test_kb_eval_prints_each_kind_and_overall(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"clinics.md": "Dental clinics in Bangkok. " * 20,
                                      "hotels.md": "Boutique hotels and guesthouses. " * 20})
    qrels = tmp_path / "qrels.jsonl"
    qrels.write_text("\n".join(json.dumps(q) for q in [
        {"qid": "1", "query": "dental clinics", "relevant": {"clinics.md": 2}, "kind": "short"},
        {"qid": "2", "query": "guesthouses", "relevant": {"hotels.md": 2}, "kind": "short"},
        {"qid": "3", "query": "lodging", "relevant": {"hotels.md": 2}, "kind": "synonym"},
    ]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["kb", "eval", str(qrels), "--knowledge", str(root),
                                      "--method", "keyword", "--method", "bm25", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # "lodging" shares no word with anything: both methods miss it.
    assert report["bm25"]["short"]["ndcg@3"] == 1.0
    assert report["bm25"]["synonym"]["ndcg@3"] == 0.0
    assert report["bm25"]["overall"]["ndcg@3"] == pytest.approx(2 / 3)
    assert report["keyword"]["overall"]["mrr@10"] == pytest.approx(2 / 3)
    table = CliRunner().invoke(cli, ["kb", "eval", str(qrels), "--knowledge", str(root),
                                     "--method", "bm25"]).stdout
    assert table.splitlines()[0].split()[:3] == ["kind", "n", "bm25"]
    assert [line.split()[0] for line in table.splitlines()[2:]] == ["short", "synonym",
                                                                    "overall"]


def test_bad_qrels_lines_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "1", "query": "x", "relevant": {"a.md": 2}}\n{"qid": 2}\n')
    with pytest.raises(ConfigError, match=r"bad\.jsonl:2: not a judgement line"):
        load_qrels(bad)
    with pytest.raises(ConfigError, match="judgements file not found"):
        load_qrels(tmp_path / "none.jsonl")


def test_hybrid_beats_the_seed_on_the_shipped_dev_set(kb: KnowledgeBase) -> None:
    """The issue's targets, with the real embedding model: hybrid nDCG@3 at least 0.30
    above keyword overall, no kind worse, synonym/Thai/Burmese each at least 0.6."""
    judged = load_qrels(Path(__file__).parents[1] / "bench" / "data" / "qrels.jsonl")
    assert len(judged) >= 60
    kinds = {j.kind for j in judged}
    assert kinds >= {"excerpt", "short", "synonym", "thai", "burmese", "mixed"}
    keyword, hybrid = score_methods(kb, judged, ["keyword", "hybrid"])
    overall = [j.qid for j in judged]
    assert hybrid.summary(overall)["ndcg@3"] >= keyword.summary(overall)["ndcg@3"] + 0.30
    for kind in kinds:
        qids = [j.qid for j in judged if j.kind == kind]
        assert hybrid.summary(qids)["ndcg@3"] >= keyword.summary(qids)["ndcg@3"], kind
    for kind in ("synonym", "thai", "burmese"):
        qids = [j.qid for j in judged if j.kind == kind]
        assert hybrid.summary(qids)["ndcg@3"] >= 0.6, kind


def test_kb_search_explain_shows_matched_terms(tmp_path: Path) -> None:
    root = write_kb(tmp_path / "kb", {"a.md": "# Angles\n## Platform Dependency Risk\n"
                                              + "Facebook only pages are rented. " * 10})
    result = CliRunner().invoke(cli, ["kb", "search", "facebook only", "--method", "bm25",
                                      "--explain", "--knowledge", str(root)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. a.md > Angles > Platform Dependency Risk   (score ")
    # Words as the query wrote them ("only", not the stem "onli"), for a person.
    assert re.fullmatch(r"   why: bm25 matched (facebook|only) \d\.\d\d, (facebook|only) "
                        r"\d\.\d\d", lines[2]), lines[2]
    machine = CliRunner().invoke(cli, ["kb", "search", "facebook only", "--method", "bm25",
                                       "--explain", "--json", "--knowledge", str(root)])
    why = json.loads(machine.stdout)[0]["explain"]
    assert why["method"] == "bm25" and set(why["terms"]) == {"facebook", "onli"}
    assert set(why["words"]) == {"facebook", "only"}
    keyword = CliRunner().invoke(cli, ["kb", "search", "facebook only", "--method", "keyword",
                                       "--explain", "--json", "--knowledge", str(root)])
    [hit] = json.loads(keyword.stdout)
    assert hit["explain"] == {"method": "keyword", "matched": ["facebook", "only"],
                              "boosted": ["facebook"], "score": 2.5}


def test_openai_compatible_embeddings_endpoint(fake_llm: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(base_url=fake_llm.base_url, model="nomic-embed-text")
    vectors = embedder.embed_passages(["dental clinic", "hotel"])
    assert vectors.shape == (2, 8)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert np.allclose(embedder.embed_query("dental clinic"), vectors[0])
    request = fake_llm.requests[-1]
    assert request["path"] == "/v1/embeddings" and request["json"]["model"] == "nomic-embed-text"


def test_cross_lingual_and_synonym_retrieval_on_an_alternative_knowledge_base() -> None:
    """bench/data/dev-kb: a second knowledge base, written apart from knowledge/, the one
    retrieval is tuned on besides the shipped one. BM25 with the glossary (no embedding
    model: fast) finds the answering file in the top 3 for most Thai, Burmese and
    synonym questions; the seed's keyword method finds almost none of the Thai and
    Burmese. (Hybrid, measured in bench: 0.915 overall, every kind >= 0.86.)"""
    bench = Path(__file__).parents[1] / "bench" / "data"
    alternative = KnowledgeBase.from_dir(bench / "dev-kb")
    judged = load_qrels(bench / "dev-qrels.jsonl")
    assert len(judged) >= 80
    keyword, bm25 = score_methods(alternative, judged, ["keyword", "bm25"])
    for kind, bar in (("thai", 0.65), ("burmese", 0.80), ("synonym", 0.65)):
        qids = [j.qid for j in judged if j.kind == kind]
        assert bm25.summary(qids)["ndcg@3"] >= bar, kind
        assert bm25.summary(qids)["ndcg@3"] >= keyword.summary(qids)["ndcg@3"] + 0.25, kind
    assert bm25.summary([j.qid for j in judged])["ndcg@3"] >= 0.80
