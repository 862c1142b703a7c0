"""Configuration: defaults < leadengine.toml < .env < environment < command-line options."""

from __future__ import annotations

from pathlib import Path

import pytest

from leadengine import ConfigError, Settings


def test_precedence(tmp_path: Path) -> None:
    (tmp_path / "leadengine.toml").write_text(
        '[leadengine]\nrag_limit = 5\ntemperature = 0.5\nretrieval_method = "bm25"\n'
        'knowledge_dir = "kb"\n', encoding="utf-8")
    (tmp_path / ".env").write_text("LEADENGINE_RAG_LIMIT=7\nGROQ_API_KEY=from-dotenv\n",
                                   encoding="utf-8")
    settings = Settings.load(env={"LEADENGINE_TEMPERATURE": "0.9"}, directory=tmp_path)
    assert settings.rag_limit == 7              # .env beats the file
    assert settings.temperature == 0.9          # the environment beats the file
    assert settings.retrieval_method == "bm25"  # the file beats the defaults
    assert settings.knowledge_dir == tmp_path / "kb"  # relative to the file
    assert settings.environ()["GROQ_API_KEY"] == "from-dotenv"
    assert settings.resolve_provider().name == "groq"
    assert settings.with_options(rag_limit=2).rag_limit == 2  # options beat everything


def test_environment_beats_dotenv(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LEADENGINE_RAG_LIMIT=7\n", encoding="utf-8")
    assert Settings.load(env={"LEADENGINE_RAG_LIMIT": "1"}, directory=tmp_path).rag_limit == 1


def test_no_files_means_defaults(tmp_path: Path) -> None:
    assert Settings.load(env={}, directory=tmp_path).rag_limit == Settings().rag_limit


def test_bad_configuration_is_named(tmp_path: Path) -> None:
    (tmp_path / "leadengine.toml").write_text("colour = 'red'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"leadengine.toml: unknown setting 'colour'"):
        Settings.load(env={}, directory=tmp_path)
    (tmp_path / "leadengine.toml").write_text("rag_limit = [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read configuration"):
        Settings.load(env={}, directory=tmp_path)
    with pytest.raises(ConfigError, match=r"^LEADENGINE_RAG_LIMIT='many' is not a whole number$"):
        Settings.from_env({"LEADENGINE_RAG_LIMIT": "many"})
