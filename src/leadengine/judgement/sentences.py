"""A site's pages as sentences, each with what it says in English stems, across
languages: the Snowball stems of its Latin words, and the English words of the
vocabulary's groups it names in any language (the shipped glossary,
``data/glossary.yaml``, and the answer words, ``data/answer_words.yaml``: days,
parking, closing...). What :mod:`leadengine.judgement.questions` matches questions
against."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import Stemmer
import yaml

from leadengine.errors import ConfigError
from leadengine.knowledge.yaml_data import safe_load
from leadengine.retrieval.glossary import Glossary, Group, read_groups, shipped_groups
from leadengine.retrieval.tokenize import STOP_WORDS

LATIN_WORD = re.compile(r"[a-z0-9\u00c0-\u024f]+", re.I)
_stemmer = Stemmer.Stemmer("english")
#: Longest sentence kept whole (a longer one is cut at a space).
MAX_SENTENCE = 300


@dataclass(frozen=True)
class Line:
    """One sentence of a page, with what it says in English stems, and the sentence
    after it on the page (what a heading such as "Opening hours" introduces)."""

    text: str
    source: str
    stems: frozenset[str]
    after: str = ""


def stem(word: str) -> str:
    lowered = word.lower()
    if lowered in _NAMES:
        return lowered
    return str(_stemmer.stemWord(_IRREGULAR.get(lowered, lowered)))


#: Names a stemmer would make a word of ("Shopee" is no "shop").
_NAMES = frozenset({"shopee", "lazada", "tiktok", "grab", "foodpanda", "lineman"})


#: English verbs whose past forms a stemmer cannot bring back ("sent out" is sending).
_IRREGULAR = {"sent": "send", "brought": "bring", "bought": "buy", "sold": "sell",
              "paid": "pay", "spoke": "speak", "spoken": "speak", "took": "take",
              "taken": "take", "taught": "teach", "gave": "give", "given": "give",
              "came": "come", "went": "go", "made": "make", "kept": "keep",
              "held": "hold", "built": "build", "drove": "drive", "driven": "drive",
              "ate": "eat", "eaten": "eat", "chose": "choose",
              "chosen": "choose", "wrote": "write", "written": "write"}


def stems_of(text: str) -> set[str]:
    return {stem(w) for w in LATIN_WORD.findall(text.lower()) if w not in STOP_WORDS}


ANSWER_WORDS = Path(__file__).resolve().parents[1] / "data" / "answer_words.yaml"


@dataclass(frozen=True)
class Vocabulary:
    """Words in any language -> the English stems they mean (the glossary's groups and
    ``data/answer_words.yaml``'s), and the phrases that answer "no" about a word."""

    words: Glossary
    #: Per group, the English stems a line holding one of its words is read as holding.
    means: tuple[frozenset[str], ...]
    #: Question stem -> phrases (casefolded) that answer "no" about it.
    opposites: Mapping[str, tuple[str, ...]]
    #: Stem -> the stems a line holding it holds too ("daili": each weekday).
    implies: Mapping[str, frozenset[str]]
    #: Question stems whose opposite phrases answer the whole question "no" ("cash
    #: only" about cards), not just stand for the word ("closed" for "open").
    whole: frozenset[str]
    #: The groups of ``data/answer_words.yaml`` (their words imply others; the
    #: glossary's mean only themselves: its "opening hours" is not about Sundays). They
    #: come first, so a term both list is read as the answer words say.
    own: frozenset[int]
    #: Question stem -> phrases (casefolded) in which its word means something else
    #: ("supplier" deliveries are not deliveries to customers, "LINE MAN" is no LINE
    #: account, a "5-minute walk" no walk-in).
    unrelated: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Question stem -> the stems (Latin) and words (Thai, Burmese) it needs beside it.
    context: Mapping[str, tuple[frozenset[str], tuple[str, ...]]] = field(
        default_factory=dict)
    #: Kinds of things listed with "only": (members' stems, the stems it needs).
    kinds: Mapping[str, tuple[frozenset[str], frozenset[str]]] = field(default_factory=dict)


@cache
def answer_words() -> Mapping[str, Any]:
    """``data/answer_words.yaml``, read once."""
    try:
        return safe_load(ANSWER_WORDS.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"cannot read {ANSWER_WORDS.name}: {exc}") from None


@cache
def answer_groups() -> tuple[Group, ...]:
    """The concept groups of ``data/answer_words.yaml``."""
    return tuple(read_groups(answer_words().get("groups"), ANSWER_WORDS.name))


@cache
def one_word_stems() -> tuple[frozenset[str], ...]:
    """Per concept group of the answer words, the stems of its one-word English entries
    (a thing named by itself: "PromptPay", "cash", "speak", "talk")."""
    return tuple(frozenset(stem(entry) for entry in group.en if LATIN_WORD.fullmatch(entry))
                 for group in answer_groups())


@cache
def vocabulary() -> Vocabulary:
    """The shipped glossary and answer words, read once."""
    data = answer_words()
    own = list(answer_groups())
    groups = [*own, *shipped_groups()]
    # The answer words' English words are found in a line too ("drop-ins" says
    # walk-ins). The glossary's English words are not: its groups are topics for
    # retrieval ("taxi" with "car hire", "family" with "kids"), not synonyms; its Thai
    # and Burmese terms bring their English words.
    words = Glossary([Group(g.en, (*g.en, *g.terms) if number < len(own) else
                            tuple(t for t in g.terms if not t.isascii()))
                      for number, g in enumerate(groups)])
    opposites = {stem(key): tuple(str(p).casefold() for p in phrases)
                 for key, phrases in (data.get("opposites") or {}).items()}
    implies = {stem(key): frozenset(stem(w) for w in found)
               for key, found in (data.get("implies") or {}).items()}
    return Vocabulary(words, tuple(_means(g.en, number < len(own))
                                   for number, g in enumerate(groups)),
                      opposites, implies,
                      frozenset(stem(w) for w in data.get("whole_no") or ()),
                      frozenset(range(len(own))),
                      {stem(key): tuple(str(p).casefold() for p in phrases)
                       for key, phrases in (data.get("unrelated") or {}).items()},
                      {stem(key): (frozenset(stem(w) for w in words if _WORD.fullmatch(w)),
                                   tuple(w.casefold() for w in words
                                         if not _WORD.fullmatch(w)))
                       for key, words in (data.get("context") or {}).items()},
                      {name: (frozenset(stem(w) for w in kind.get("members") or ()),
                              frozenset(stem(w) for w in kind.get("with") or ()))
                       for name, kind in (data.get("kinds") or {}).items()})


#: An English word of ``context:`` (matched by its stem; anything else, "Facebook:" or
#: a Thai word, as written).
_WORD = re.compile(r"[A-Za-z0-9'’]+")


def _means(english: Sequence[str], own: bool) -> frozenset[str]:
    """The English stems a group's words mean: all of the answer words'; a glossary
    group's one-word entries where it has any, as its phrases qualify them ("facebook
    only" is in the group of "only", "facebook messenger" in Messenger's)."""
    entries = list(english)
    if not own and any(" " not in e.strip() for e in entries):
        entries = [e for e in entries if " " not in e.strip()]
    return frozenset(stem(w) for entry in entries for w in LATIN_WORD.findall(entry)
                     if w not in STOP_WORDS)


@cache
def _by_word_stem() -> Mapping[str, tuple[int, ...]]:
    """The stem of each one-word English entry of the answer words' groups -> its
    groups' numbers in :func:`vocabulary`."""
    found: dict[str, list[int]] = {}
    for number, group in enumerate(answer_groups()):
        for entry in group.en:
            if LATIN_WORD.fullmatch(entry):
                found.setdefault(stem(entry), []).append(number)
    return {key: tuple(numbers) for key, numbers in found.items()}


def translated(text: str) -> set[str]:
    """The English stems of the vocabulary's groups that ``text`` names, in any
    language."""
    found: set[str] = set()
    implied = stems_of(text)
    known = vocabulary()
    numbers = set(known.words.matches(text))
    # The answer words' one-word English entries in any form ("shipped", "rented").
    numbers.update(n for s in implied for n in _by_word_stem().get(s, ()))
    for number in numbers:
        found |= known.means[number]
        if number in known.own:
            implied |= known.means[number]
    for stem in implied:
        found |= known.implies.get(stem, frozenset())
    if NO_BOOKING.search(text):  # "no appointment needed": walk-ins welcome
        found |= known.implies.get("walk", frozenset()) | {"walk"}
    if _SENT_TO_TH.search(text):  # "ส่งโซฟาถึงบ้าน": the sofa sent to your home
        found |= {"deliv", "deliveri"}
    return found


#: Thai "sent ... to" a customer's place, with what is sent between (ส่งโซฟาถึงบ้าน,
#: รับ-ส่งผ้าถึงคอนโด; not children or customers driven home), or "no sending" (ไม่มีส่ง,
#: which ไม่มี would otherwise take).
_SENT_TO_TH = re.compile(r"ส่ง(?!เด็ก|นักเรียน|ลูกค้า|คน|ผู้)[\u0e00-\u0e7f]{0,12}ถึง"
                         r"(?:บ้าน|หน้าบ้าน|มือ|คอนโด|โรงแรม|ออฟฟิศ|"
                         r"ที่ทำงาน|ที่พัก|หอ)|ไม่มีส่ง|ไม่ได้ส่ง")


#: No need to book: walk-ins are taken. English, Thai (ไม่ต้องจอง / ไม่ต้องนัด), Burmese
#: (ချိန်းဆိုစရာ မလို, ကြိုတင်စာရင်းပေးစရာ မလို: nothing to arrange beforehand).
NO_BOOKING = re.compile(
    r"(?:no|without|not? need(?:ed)? (?:to|for|an?)?|don't need to|do not need to)\s*"
    r"(?:an?\s+|to\s+)?(?:prior\s+|advance\s+)?"
    r"(?:appointments?|bookings?|reservations?|book|reserve)(?![a-z])"
    r"(?!\s*(?:fees?|charges?|deposits?))"
    r"|(?:appointments?|bookings?|reservations?) (?:is |are )?not (?:needed|required|necessary)"
    r"|ไม่ต้อง(?:จอง|นัด|ทำนัด|โทรนัด)|ไม่จำเป็นต้อง(?:จอง|นัด)|(?:ချိန်း|ဘွတ်ကင်|ဘိုကင်|စာရင်းပေး)"
    r"[^\s။]{0,6}(?:\s[^\s။]{1,8})?\s?(?:မလို|မ[^\s။]*ဘဲ)"
    # Nothing to say or call about beforehand: ကြိုတင်ပြောစရာ မလို, ကြိုတင် ဖုန်းဆက်ဖို့ မလို.
    r"|ကြို(?:တင်)?\s?[^\s။]{0,10}(?:စရာ|ဖို့|ရန်)\s?မလို"
    # Without registering or arranging, the "not" inside: စာရင်းမပေးဘဲ, ချိန်းမဆိုဘဲ.
    r"|(?:စာရင်း|ချိန်း)မ(?:ပေး|ဆို|သွင်း|ထား)[^\s။]{0,6}ဘဲ"
    # Without telling them beforehand (ကြိုမပြောဘဲ), or if not (ကြိုမပေးထားရင်).
    r"|ကြို(?:တင်)?\s?မ(?:ပြော|ပေး|ချိန်း|ဆက်)[^\s။]{0,6}(?:ဘဲ|ရင်)", re.I)


def site_lines(passages: Sequence[tuple[str, str]]) -> list[Line]:
    """Every line of the pages read (``(url, text)``), with its stems (its own Latin
    words and the English words its Thai or Burmese terms mean)."""
    lines: list[Line] = []
    seen: set[str] = set()
    for url, text in passages:
        sentences = [s for raw in text.split("\n") for s in _sentences(" ".join(raw.split()))]
        for number, line in enumerate(sentences):
            if len(line) < 3 or line in seen:
                continue
            seen.add(line)
            # A line of no known word is kept too: "จ.-ส." says which days the next
            # line's hours are for.
            after = sentences[number + 1] if number + 1 < len(sentences) else ""
            lines.append(Line(line, url, frozenset(stems_of(line) | translated(line)), after))
    return lines


#: Where a sentence ends: ". " before a capital, a digit or a quote; "!" "?"; Burmese ။.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“'(])|(?<=[။])\s*")


def _sentences(line: str) -> list[str]:
    """A line's sentences (a long Thai run, which has no full stops, in pieces of about
    :data:`MAX_SENTENCE` characters at its spaces)."""
    parts = [p.strip() for p in _SENTENCE_END.split(line) if p and p.strip()]
    pieces: list[str] = []
    for part in parts:
        while len(part) > MAX_SENTENCE and " " in part[:MAX_SENTENCE]:
            cut = part[:MAX_SENTENCE].rsplit(" ", 1)[0]
            pieces.append(cut)
            part = part[len(cut):].strip()
        pieces.append(part)
    return pieces


