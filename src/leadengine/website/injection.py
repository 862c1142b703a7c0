"""Prompt-injection defence: text on a website that addresses an AI or tries to set the
evaluation is found, reported, and removed before any evaluator or retriever reads it.

The evaluator also receives the website content fenced as untrusted data (see
:func:`leadengine.judgement.prompt.fence`) and is told never to follow instructions in it;
removing the instructions as well means a model that would have obeyed never sees them.

Detection runs on a *folded* copy of each sentence (:func:`normalise`: NFKC, invisible
characters dropped, Cyrillic/Greek look-alikes of Latin letters folded, case folded),
so ``ig\\u200bnore``, ``ІGNОRЕ`` (Cyrillic) and ``ｉｇｎｏｒｅ`` (full-width) read as
``ignore``. The folded copy is only ever matched against: what is kept, sent on to a
model or shown as a name is the original text, because zero-width joiners and
non-joiners are part of correct spelling in Burmese, Thai and other scripts.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, repeat

from leadengine.website.injection_rules import BURMESE as BURMESE
from leadengine.website.injection_rules import ENGLISH as ENGLISH
from leadengine.website.injection_rules import SCRIPTS as SCRIPTS
from leadengine.website.injection_rules import THAI as THAI
from leadengine.website.injection_rules import RawRules as RawRules
from leadengine.website.injection_rules import Rules as Rules

# --------------------------------------------------------------------------- folding

#: Invisible characters dropped before detection: zero-width space/non-joiner/joiner,
#: word joiner, BOM, the bidi embeddings, overrides, isolates and marks, and a few other
#: invisibles used to split words (soft hyphen, combining grapheme joiner, invisible
#: operators, Mongolian vowel separator, variation selectors).
INVISIBLE = ("\u200b\u200c\u200d\u2060\ufeff"
             "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f"
             "\u00ad\u034f\u2061\u2062\u2063\u2064\u180e"
             + "".join(map(chr, range(0xFE00, 0xFE10))))

#: Letters of other scripts that look like Latin ones, folded to the Latin letter they
#: imitate (NFKC already folds full-width and mathematical letters, not these). Upper
#: case is listed apart because Greek Η looks like H but its lower case η like n.
CONFUSABLES = {
    # Cyrillic, lower and upper case
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "н": "h", "і": "i",
    "ј": "j", "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s",
    "т": "t", "ѵ": "v", "ԝ": "w", "х": "x", "у": "y", "ү": "y",
    "А": "a", "В": "b", "С": "c", "Ԁ": "d", "Е": "e", "Һ": "h", "Н": "h", "І": "i",
    "Ј": "j", "К": "k", "Ӏ": "l", "М": "m", "О": "o", "Р": "p", "Ԛ": "q", "Ѕ": "s",
    "Т": "t", "Ѵ": "v", "Ԝ": "w", "Х": "x", "У": "y", "Ү": "y",
    # Greek
    "α": "a", "ϲ": "c", "ε": "e", "ι": "i", "ϳ": "j", "κ": "k", "η": "n", "ν": "v",
    "ο": "o", "ρ": "p", "υ": "u", "χ": "x",
    "Α": "a", "Β": "b", "Ϲ": "c", "Ε": "e", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m",
    "Ν": "n", "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x", "Ζ": "z",
    # Latin letters that pass for plainer ones
    "ɡ": "g", "ɑ": "a", "ı": "i", "ȷ": "j", "ʟ": "l",
    # angle brackets and slashes that pass for a tag's
    "‹": "<", "›": ">", "〈": "<", "〉": ">", "⟨": "<", "⟩": ">", "˂": "<", "˃": ">",
    "ᐸ": "<", "ᐳ": ">", "∕": "/", "⁄": "/", "⧸": "/",
}
#: Thai and Burmese digits read as ASCII ones, so "๑๐๐" and "၁၀၀" are 100.
DIGITS = {chr(base + n): str(n) for base in (0x0E50, 0x1040) for n in range(10)}

_FOLD = str.maketrans({**dict.fromkeys(INVISIBLE), **CONFUSABLES, **DIGITS})
#: Any character the table changes (a regex search is far cheaper than translate()).
_FOLDABLE = re.compile("[" + re.escape("".join(chr(c) for c in _FOLD)) + "]")


def normalise(text: str) -> str:
    """``text`` folded for detection: compatibility-decomposed (NFKD), invisible
    characters dropped, look-alikes and Thai/Burmese digits folded, case folded, then
    composed again (NFKC). Idempotent. Never sent anywhere."""
    # Decomposed first, so a look-alike is folded whatever accent it carries (Greek ϋ
    # is υ + diaeresis): folding the composed form would miss it, and folding again
    # would then find it, and the fold would not be idempotent.
    text = unicodedata.normalize("NFKD", text)
    if _FOLDABLE.search(text):
        text = text.translate(_FOLD)
    text = unicodedata.normalize("NFKD", text.casefold())
    # Case folding can make a listed letter (Ϲ -> ϲ, ΰ -> υ + marks).
    if _FOLDABLE.search(text):
        text = text.translate(_FOLD)
    return unicodedata.normalize("NFKC", text)


# --------------------------------------------------------------------------- patterns
# The rules below are data: one list per language, each rule a pattern and its
# anchors. Patterns meet folded text (lower case, ASCII digits); ``\s+`` stands for any
# run of spaces. Every text a pattern matches holds one of its anchors, and a pattern is
# only tried on a sentence that holds one: most sentences of a page hold none and cost
# a few substring checks (see _sentence_spans). No pattern nests quantifiers: Python's
# regex engine backtracks, and a nested ``(a+)+`` would let a crafted page take minutes;
# every gap is bounded (``.{0,40}``), so a sentence costs at most its length x 40.


def _fold_pattern(pattern: str) -> str:
    # Thai and Burmese patterns are folded like the text they meet (NFKC turns Thai ำ
    # into ํา); the ASCII of the English ones and of regex syntax is left as it is.
    return unicodedata.normalize("NFKC", pattern)


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    # Compiled on first use (importing the module stays cheap), without re.I: the text
    # it meets is case-folded already.
    return re.compile(_fold_pattern(pattern), re.M)


def __getattr__(name: str) -> re.Pattern[str]:
    # PATTERNS, built only when asked for (the rules are tried one by one).
    if name == "PATTERNS":
        return _all_patterns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _all_patterns() -> re.Pattern[str]:
    """All the patterns as one, case-insensitive: ``PATTERNS.search(sentence)`` on a
    folded sentence is what :func:`is_injection` answers (it tries them one by one)."""
    return re.compile("|".join(f"(?:{_fold_pattern(pattern)})" for _, rules in SCRIPTS
                               for _, pattern in rules), re.I | re.M)


#: A sentence ends at . ! ? (also full-width), the Burmese full stop ။ or a line break.
_MARKS = ".!?။。！？．"
_SENTENCE = re.compile(rf"[^{_MARKS}\n]*(?:[{_MARKS}]+|\n|$)")


@dataclass(frozen=True)
class _Plan:
    """The rules for text in a given set of scripts, and how to find their anchors."""

    rules: Rules
    anchors: tuple[str, ...]
    #: Searched for in a whole text: each occurrence may be where an anchor is.
    words: tuple[str, ...]
    #: Each root's finder (the root where no Latin letter or digit precedes it) and the
    #: anchors that start with it.
    roots: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    #: The patterns of the rules each anchor belongs to: a sentence is tried only on the
    #: rules whose anchors it holds, found by one pass over the anchors.
    by_anchor: dict[str, tuple[re.Pattern[str], ...]]


#: Anchors found only where no Latin letter or digit precedes them: "thai", "email",
#: "wai" and "robot" are no AI talk, and no rule matches "ai" or "bot" right after one
#: (the Thai and Burmese rules that could say so with a lookbehind). Found with a
#: regex whose literal comes first, which is as fast as a substring search.
_ROOTS = ("ai", "bot")


@cache
def _plan(scripts: tuple[bool, ...]) -> _Plan:
    rules = tuple((tuple(normalise(word) for word in words), _compiled(pattern))
                  for (_, group), used in zip(SCRIPTS, scripts, strict=True) if used
                  for words, pattern in group)
    anchors = tuple(dict.fromkeys(word for words, _ in rules for word in words))
    # An anchor holding another is found through it: the fewest substring searches.
    plain = [word for word in anchors if not word.startswith(_ROOTS)]
    plain = [word for word in plain if not any(o != word and o in word for o in plain)]
    roots = tuple((re.compile(f"{re.escape(root)}(?<![a-z0-9]{re.escape(root)})"),
                   tuple(word for word in anchors if word.startswith(root)))
                  for root in _ROOTS)
    by_anchor = {word: tuple(dict.fromkeys(pattern for words, pattern in rules
                                           if word in words)) for word in anchors}
    return _Plan(rules, anchors, tuple(plain), roots, by_anchor)


def compile_rules() -> None:
    """Compile every rule's pattern now, as a page's first search would (a batch does
    it before it forks its shards, which then start with them compiled)."""
    for _, group in SCRIPTS:
        for _, pattern in group:
            _compiled(pattern)


def _plan_for(folded: str) -> _Plan:
    return _plan(tuple(script is None or script.search(folded) is not None
                       for script, _ in SCRIPTS))


def _anchor_positions(folded: str, plan: _Plan) -> Iterator[int]:
    """Where in ``folded`` an anchor may be: one substring search per word, one regex
    scan per root (a literal first, so it is a fast search too)."""
    for word in plan.words:
        yield from _occurrences(folded, word)
    for finder, anchors in plan.roots:
        for match in finder.finditer(folded):
            if folded.startswith(anchors, match.start()):
                yield match.start()


def _matches(folded: str, plan: _Plan | None = None) -> bool:
    """Whether a folded sentence matches :data:`PATTERNS`. Only the rules whose anchor
    it holds are tried: the same answer, since every match holds one of its rule's.
    ``plan``: the rules of the text the sentence is part of (a sentence holds no anchor
    of a script the text does not have), else the sentence's own."""
    plan = plan or _plan_for(folded)
    tried: set[re.Pattern[str]] = set()
    for word in [word for word in plan.anchors if word in folded]:
        for pattern in plan.by_anchor[word]:
            if pattern not in tried:
                if pattern.search(folded):
                    return True
                tried.add(pattern)
    return False


def _suspicious(text: str) -> bool:
    """Whether ``text`` holds an anchor once folded (and so needs the patterns)."""
    folded = text.lower() if text.isascii() else normalise(text)
    return any(word in folded for word in _plan_for(folded).anchors)


def is_injection(sentence: str) -> bool:
    """Whether one sentence (or a name, a title) addresses an AI."""
    folded = sentence.lower() if sentence.isascii() else normalise(sentence)
    return bool(folded.strip()) and _matches(folded)


# --------------------------------------------------------------------------- finding

def _aligned_fold(text: str) -> str | None:
    """:func:`normalise` of ``text`` when it folds each character to exactly one (then a
    position in one is the same position in the other, and a slice of one is the other's
    slice folded), else None.

    Pure ASCII only changes case. Other text qualifies when no decomposition or
    composition touches it (it is both NFKD and NFKC), it holds nothing the fold table
    changes, and each step keeps one character for one, which is checked step by step
    (case folding never deletes a character, the table never adds one)."""
    if text.isascii():
        return text.lower()
    if (_FOLDABLE.search(text) or not unicodedata.is_normalized("NFKD", text)
            or not unicodedata.is_normalized("NFKC", text)):
        return None
    folded = text.casefold()
    if len(folded) != len(text) or not unicodedata.is_normalized("NFKD", folded):
        return None
    if _FOLDABLE.search(folded):
        folded = folded.translate(_FOLD)
    if len(folded) != len(text) or not unicodedata.is_normalized("NFKC", folded):
        return None
    return folded


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every sentence that matches a pattern, in order. Only the
    sentences holding an anchor are folded and tried; they are found from where the
    anchors occur (a few substring searches over the whole text, in C), not by walking
    every sentence."""
    folded = _aligned_fold(text)
    if folded is None:
        return [m.span() for m in _hot_sentences(text) if is_injection(m.group(0))]
    plan = _plan_for(folded)
    starts = _sentence_starts(text, _anchor_positions(folded, plan))
    sentences = (m for m in map(_SENTENCE.match, repeat(text), starts) if m)
    return [m.span() for m in sentences
            if folded[m.start():m.end()].strip() and _matches(folded[m.start():m.end()], plan)]


def _hot_sentences(text: str) -> Iterator[re.Match[str]]:
    """The sentences of the lines of ``text`` whose folded form holds an anchor.

    Folding may change lengths (ligatures expand, invisibles vanish, Thai ำ becomes two
    characters), so positions in the folded text are not positions in ``text``; but it
    never adds or removes a line break, so the n-th folded line is the n-th line
    folded. Lines are the unit: the anchors' folded positions give line numbers, and
    only those lines are walked."""
    folded = normalise(text)
    occurrences = list(_anchor_positions(folded, _plan_for(folded)))
    if not occurrences:
        return
    lines, folded_lines = text.split("\n"), folded.split("\n")
    if len(lines) != len(folded_lines):  # cannot happen; never trade safety for speed
        yield from _SENTENCE.finditer(text)
        return
    folded_starts = list(accumulate((len(line) + 1 for line in folded_lines), initial=0))
    hot = sorted({bisect_right(folded_starts, at) - 1 for at in occurrences})
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    for line in hot:
        # Up to and including the line's break, as a walk over the whole text does.
        yield from _SENTENCE.finditer(text, starts[line], starts[line + 1])


def _occurrences(text: str, word: str) -> Iterator[int]:
    at = text.find(word)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def _sentence_starts(text: str, positions: Iterable[int]) -> list[int]:
    """Where the sentences holding the ``positions`` begin (as :data:`_SENTENCE` splits:
    after the last end-of-sentence mark or line break before), in order. Going through
    the positions in order, each search back stops at the previous start, so the whole
    text is searched at most once per mark. No anchor starts with a mark."""
    starts: list[int] = []
    low = 0
    for at in sorted(set(positions)):
        start = 1 + max(text.rfind(mark, low, at) for mark in _MARKS + "\n")
        low = start if start > 0 else low
        if not starts or starts[-1] != low:
            starts.append(low)
    return starts


def find_injections(text: str) -> list[str]:
    """The sentences of ``text`` that look like instructions to an AI."""
    return [" ".join(text[a:b].split()) for a, b in _sentence_spans(text)]


def strip_injections(text: str) -> tuple[str, list[str]]:
    """``text`` without its injection sentences, and the sentences removed."""
    spans = _sentence_spans(text)
    if not spans:
        return text, []
    found = [" ".join(text[a:b].split()) for a, b in spans]
    pieces, last = [], 0
    for a, b in spans:
        pieces.append(text[last:a])
        pieces.append("\n" if text[b - 1 : b] == "\n" else " ")
        last = b
    pieces.append(text[last:])
    return "".join(pieces), found


# --------------------------------------------------------------------------- fence tags

#: A tag of the fence that holds website content in the prompt, or a look-alike once
#: folded: ``</WEBSITE_CONTENT>``, ``</website_content >``, ``＜／website_content＞``,
#: ``<website-content id="...">``, with invisible characters anywhere inside.
FENCE_TAG = re.compile(r"(?:<\s*(?:/\s*)?|/\s*)website[\s_-]*content\b[^<>\n]{0,80}>?")
#: What a tag look-alike inside the content is replaced by: no "<" or "/", so neither
#: it nor what surrounds it can form a tag again.
TAG_REPLACEMENT = "[tag removed]"


def escape_fence_tags(text: str) -> tuple[str, list[str]]:
    """``text`` with every fence-tag look-alike replaced by :data:`TAG_REPLACEMENT`,
    and the tags found (as written). Lines are folded as a whole to find one; only a
    line that has one is folded character by character to locate it."""
    folded = text.lower() if text.isascii() else normalise(text)
    if not FENCE_TAG.search(folded):
        return text, []
    found: list[str] = []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if FENCE_TAG.search(normalise(line)):
            lines[n] = _escape_line(line, found)
    return "\n".join(lines), found


def _escape_line(line: str, found: list[str]) -> str:
    # Each folded character remembers which character of ``line`` it came from.
    pieces = [normalise(char) for char in line]
    folded = "".join(pieces)
    owner = [at for at, piece in enumerate(pieces) for _ in piece]
    out, last = [], 0
    for match in FENCE_TAG.finditer(folded):
        if match.end() == match.start():
            continue
        start, end = owner[match.start()], owner[match.end() - 1] + 1
        if start < last:
            continue
        found.append(line[start:end])
        out += [line[last:start], TAG_REPLACEMENT]
        last = end
    out.append(line[last:])
    return "".join(out)
