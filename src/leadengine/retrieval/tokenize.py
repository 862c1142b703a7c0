"""The tokeniser for ``bm25`` (and the query side of the explain output).

* Latin-script text: lowercased words, English stop words dropped, Snowball
  stemmed ("clinics" and "clinic" meet; "booking" and "book" meet).
* Thai, Burmese and other scripts written without spaces between words:
  character bigrams by default, which need no dictionary and match a word such
  as "กรุงเทพ" inside a longer run of text; ICU's dictionary word break with
  ``LEADENGINE_SEGMENTER=icu`` and PyICU installed. Bigrams are the default
  because they measured better on the development set (bench/data/qrels.jsonl,
  bm25 nDCG@3: Thai 0.911 vs 0.681 with ICU, Burmese 0.884 vs 0.385): the
  knowledge base's Thai/Burmese terms are matched inside compounds that ICU
  segments differently.

Every token is at least one character; nothing is dropped for being short
(a one-letter Latin token is a stop word or a digit, and digits are kept).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import Stemmer
from bm25s.stopwords import STOPWORDS_EN_PLUS

from leadengine.config import env_setting

#: Bumped whenever tokenisation changes, so persisted indexes are rebuilt.
TOKENIZER_VERSION = "3"

_LATIN = r"[0-9a-z\u00c0-\u024f]+(?:['’][a-z]+)?"
_THAI = r"[\u0e00-\u0e7f]+"
_MYANMAR = r"[\u1000-\u109f\uaa60-\uaa7f\ua9e0-\ua9ff]+"
#: Other scripts without word spaces: Lao, Khmer, CJK, Hiragana/Katakana.
_UNSPACED = r"[\u0e80-\u0eff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+"
_TOKEN = re.compile(f"(?P<latin>{_LATIN})|(?P<seg>{_THAI}|{_MYANMAR}|{_UNSPACED})")

#: English stop words, except those that carry meaning in lead qualification
#: ("Facebook only", "no analytics", "owned website").
STOP_WORDS = (frozenset(STOPWORDS_EN_PLUS) - {"no", "not", "only", "own", "nor"}) | {
    "us", "also", "etc", "e", "g", "www", "http", "https", "com"}
_stemmer = Stemmer.Stemmer("english")


def _load_icu() -> Any:
    try:
        import icu
    except ImportError:
        return None
    # Another distribution can own the name "icu"; only PyICU has the word breaker.
    return icu if hasattr(icu, "BreakIterator") else None


_icu = _load_icu()


#: The segmenter a loaded Settings chose (``use_segmenter``); None = the environment's.
_chosen: str | None = None


def use_segmenter(name: str | None) -> None:
    """Segment with ``name`` (``Settings.segmenter``) from now on; None = back to reading
    ``LEADENGINE_SEGMENTER``. The CLI calls this when leadengine.toml or .env chose one:
    threading Settings through every ``tokenize`` call would reach into each method."""
    global _chosen
    _chosen = name


def segmenter_name() -> str:
    """``"icu"`` when the segmenter chosen (``Settings.segmenter``, else the
    ``LEADENGINE_SEGMENTER`` variable, a library caller's fallback) is ``icu`` and PyICU
    is installed, else ``"bigram"``."""
    choice = _chosen or env_setting("segmenter") or "bigram"
    if choice.strip().lower() == "icu" and _icu is not None:
        return "icu"
    return "bigram"


def tokenize(text: str) -> list[str]:
    """Tokens of ``text`` in order (repeats kept). One ``findall`` (a Latin word or a
    run of another script per pair; neither is ever empty) instead of a match object
    per word: a site's 12,000-character query is tokenized for every site."""
    tokens: list[str] = []
    for word, run in _TOKEN.findall(text.lower()):
        if word:
            if word not in STOP_WORDS:
                tokens.append(_stem(word))
        else:
            tokens.extend(segment(run))
    return tokens


def words(text: str) -> list[tuple[str, list[str]]]:
    """The words of ``text`` as a person sees them (a Latin word, or a whole run of
    Thai/Burmese/CJK), each with the tokens :func:`tokenize` makes of it; stop words
    are left out. Explanations report matches per word, not per character bigram."""
    out: list[tuple[str, list[str]]] = []
    for match in _TOKEN.finditer(text.lower()):
        word = match.group("latin")
        if word is not None:
            if word not in STOP_WORDS:
                out.append((word, [_stem(word)]))
        else:
            out.append((match.group("seg"), segment(match.group("seg"))))
    return out


def segment(run: str) -> list[str]:
    """Split a run of Thai/Burmese/CJK text into word-like tokens."""
    if segmenter_name() == "icu":
        return _icu_words(run)
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer.stemWord(word))


def _icu_words(run: str) -> list[str]:
    breaker = _icu.BreakIterator.createWordInstance(_icu.Locale.getRoot())
    breaker.setText(run)
    words = []
    start = breaker.first()
    for end in breaker:
        piece = run[start:end].strip()
        if piece:
            words.append(piece)
        start = end
    return words
