"""How a question is read, as a team writes it: plainly (:func:`plain_ask`: a brief's
wrapping taken off, abbreviations written out), its words (:func:`what_is_asked`: a
phrase read as another word, "turns up without booking" is a walk-in, "a place to leave
a car" parking: ``asked_as:`` in ``data/answer_words.yaml``; two kinds of one thing one
question), the words that only ask (:data:`ASKING`) or say which kind
(:func:`kinds_said`), a phrase led by a word of its group read as that word ("QR code",
"loyalty card"), and the two-word phrases that show where a question's head noun is
("credit or debit card")."""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from functools import cache, lru_cache

from leadengine.judgement.days import SHORT_DAYS, full_day
from leadengine.judgement.sentences import (
    LATIN_WORD,
    answer_groups,
    answer_words,
    one_word_stems,
    stem,
    vocabulary,
)
from leadengine.retrieval.glossary import shipped_groups
from leadengine.retrieval.tokenize import STOP_WORDS

#: Words of a question that say nothing about what is asked.
ASKING = frozenset({
    "do", "does", "did", "they", "them", "their", "you", "your", "is", "are", "was",
    "have", "has", "any", "can", "could", "will", "would", "offer", "offers", "provide",
    "provides", "accept", "accepts", "take", "takes", "sell", "sells", "get", "there",
    "what", "which", "how", "many", "much", "when", "where", "who", "a", "an", "the",
    "it", "its", "business", "company", "shop", "store", "place", "service", "services",
    "customers", "customer", "clients", "client", "people", "guests", "visitors",
    "account", "available", "option", "options", "run", "runs", "hold", "holds",
    "without", "just", "also", "still", "ever", "really", "me", "my", "i", "we", "us",
    "only", "able", "somewhere", "anywhere", "someone", "anyone", "something",
    "anything", "person", "other", "else", "ok", "okay", "possible", "like", "accepted",
    "fine", "product", "products", "goods", "item", "items", "stuff", "thing", "things",
    "via", "no", "buy", "buys", "purchase", "chance", "anybody", "somebody", "one",
    "well", "enough", "let", "lets", "actually", "premises", "hey", "hi", "currently",
    "already", "presently", "nowadays", "now", "establishment", "establishments", "employ",
    "employs", "maintain", "maintains", "means", "upon", "whether", "provided", "offered",
    "may", "might", "directly", "beforehand", "sold", "selling", "operates", "operate",
    "door", "doors", "please", "pls", "plz", "kindly", "thanks", "thank", "thx", "sales"})


@lru_cache(maxsize=4096)
def plain_ask(ask: str) -> str:
    """A question as a team may write it, said plainly: its abbreviations written out
    (``abbreviations:`` of the answer words: "Cust. parking (car/moto)?" asks about
    customers' parking for cars and motorbikes), and a brief's wrapping taken off ("Could
    you find out whether they deliver?", "We need to know if they deliver - do they?"
    ask "they deliver"; "Some of our reps only speak English, so could you check
    whether..." gives its reason first)."""
    pattern, full = _abbreviations()
    text = pattern.sub(lambda m: full[m.group().lower()], ask)
    text = _TAG.sub("", _ANSWER_FORM.sub("", text))
    sentences = _SENTENCE.split(text.strip())
    if len(sentences) > 1 and sentences[-1].rstrip().endswith("?") \
            and not any(s.rstrip().endswith("?") for s in sentences[:-1]):
        text = sentences[-1]  # "Our rep only speaks English. Is there anyone ...?"
    text = _REASON.sub("", text, count=1)
    text = _REASON_AFTER.sub("", text, count=1)
    text = _CHECKLIST.sub("", text, count=1)
    text = _SHORT_DAY.sub(lambda m: m.group(1) + full_day(m.group(2)), text)
    alone = _DAY_ALONE.fullmatch(text)
    if alone:  # a header that is a weekday alone: "Sun?"
        text = f"Open {full_day(alone.group(1))}?"
    wrapped = _WRAPPING.search(text)
    return text[wrapped.end():].lstrip() if wrapped else text


#: Where a sentence before the question ends ("Our rep only speaks English. Is ...?"; not
#: "e.g. KBZPay").
_SENTENCE = re.compile(r"(?<=[a-z]{2}[.!])\s+(?=[A-Z])")
#: How a sheet's header wants its answer written: "Sun open y/n?", "Cards (yes/no)".
_ANSWER_FORM = re.compile(r"\s*[(\[]?(?<![\w/])(?:y\s*/\s*n|yes\s*/\s*no|y or n|yes or no)"
                          r"(?![\w/])[)\]]?(?=\s*[?.:]*\s*$)", re.I)
#: A brief's request around the question: "(could you) find out / check / tell us /
#: (we need to) know whether | if | what time...".
_WRAPPING = re.compile(
    r"\b(?:find out|check|tell (?:us|me)|let (?:us|me) know|confirm|verify|see|ask|"
    r"look into|figure out|know|learn|establish)\s+(?:(?:for us|please)\s+)?"
    r"(?:whether|if\b|(?=(?:what|when|how|which|where|who|at what)\b))", re.I)
#: A brief's reason before its question: "For the card-terminal campaign, ...", "So that
#: nobody rings them after hours, what time...", "We pitch a QR add-on, so can their
#: customers...", "Our campaign needs this: is there...", "Before I plan the route, ...",
#: "Buyers up there don't carry cash - can you pay ...?".
_REASON = re.compile(
    r"^(?:(?:[^?]*?(?:,\s*so|:)|(?:\S+\s+){3,}?[^?]*?\s[-–—])\s+"
    r"(?=(?:do|does|did|is|are|can|could|would|will|what|when|"
    r"where|how|which|who|have|has)\b)|(?:for (?:the|our|this|a|an)|to|so that|in order to|"
    r"since|because|as|(?:before|ahead of|prior to) (?:i|we|our|my)\b)\b[^,?]*,\s*)", re.I)
#: A reason after the question: "What time do they close, so nobody rings them after
#: hours?" (not "..., so do they deliver?": that is the question).
_REASON_AFTER = re.compile(
    r",\s*(?:so that|so|because|since|as we|as our|in order to)\s+(?!(?:do|does|did|is|are|can|"
    r"could|would|will|what|when|where|how|which|who|have|has)\b)[^?]*(?=\?|$)", re.I)
#: The short weekdays, longest first, as one alternation.
_SHORT_DAY_NAMES = "|".join(sorted(SHORT_DAYS, key=len, reverse=True))
#: A weekday written short beside an opening word ("Open Sun?", "Sat/Sun hours?").
_SHORT_DAY = re.compile(
    r"(?i)(\b(?:open|opens|opening|closed|closes|trading|trade|works?|hours)\s+(?:on\s+)?|"
    r"(?<![\w])(?=\w+\.?\s*(?:/|&|and|-|–)?\s*(?:(?:sat|sun)\.?\s+)?"
    r"(?:open|opening|hours|closed|trading)\b))("
    + _SHORT_DAY_NAMES + r")\.?(?![\w])")
#: A question that is a short weekday alone ("Sun?").
_DAY_ALONE = re.compile(r"(?i)\s*(" + _SHORT_DAY_NAMES
                        + r")\.?\s*\??\s*")
#: A checklist item's verb: "Confirm: accepts cards", "Check for customer parking",
#: "Verify Sunday opening" ask what follows.
_CHECKLIST = re.compile(r"^\s*(?:please\s+)?(?:confirm|check(?![\s-]*(?:in|out)\b)|verify|ensure|"
                        r"note|record|flag)\b\s*(?:[:–-]\s*)?(?:(?:for|that|if)\s+)?", re.I)
#: A tag after the question: "- do they?", ", can they?", "- could you find that out?".
_TAG = re.compile(r"\s*[-–—,;]\s*(?:(?:do|does|can|will|is|are|would)(?: not|n't)? "
                  r"(?:they|it|there|we)|could you (?:(?!whether|if\b)[^?])*)\s*\?\s*$", re.I)


@cache
def _abbreviations() -> tuple[re.Pattern[str], Mapping[str, str]]:
    """``abbreviations:`` of the answer words: one pattern (whole words, any case) and
    what each (in lower case) stands for."""
    found = {str(short).lower(): str(full)
             for short, full in (answer_words().get("abbreviations") or {}).items()}
    words = sorted(found, key=len, reverse=True)
    return (re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, words)) + r")(?![\w/])",
                       re.I) if words else re.compile(r"(?!)")), found


@lru_cache(maxsize=4096)
def what_is_asked(ask: str) -> str:
    """A question's words as they are read: lower case, without what explains it ("(in
    total)"), the examples of a kind ("a Visa/Mastercard or other bank card": cards),
    its ``asked_as:`` phrases as their word ("someone who turns up" is a walk-in), and
    without what it says is not needed ("without an appointment": a page naming
    appointments does not answer it) or not asked ("instead of collecting it")."""
    core = _EXAMPLES.sub(" ", re.sub(r"\([^)]*\)", " ", _DASHED.sub(" ", ask.lower())))
    core = _NOW.sub(" ", core)  # "hiring right now?", "sell online in any form?"
    core = _SUCH_AS.sub(", ", core)  # each example an alternative
    core = _WHERE_ASKED.sub(" ", core)  # "English-speaking staff on site?": there
    core = _SHARED_HEAD.sub(r"\1 or \3 \2", core)  # "bank card or credit card"
    for pattern, word in asked_as():
        core = pattern.sub(f" {word} ", core)
    return _KINDS_JOINED.sub(_kinds_joined, _WITHOUT.sub(" ", core))


#: Two kinds of one thing, each said with it: "bank card or credit card".
_SHARED_HEAD = re.compile(r"\b([a-z]+) ([a-z]+) or ([a-z]+) \2\b")
#: Two words joined by "or" before a third ("a bank or credit card").
_KINDS_JOINED = re.compile(r"\b([a-z]+) or ([a-z]+) ([a-z]+)\b")


def _kinds_joined(found: re.Match[str]) -> str:
    """"bank or credit card" -> "credit card": two kinds of one thing, either said or
    not (each a word the thing needs beside it on a page, ``context:``), are one
    question about the thing, not one about banks and one about credit cards."""
    context = vocabulary().context
    first, second, head = (stem(w) for w in found.groups())
    needs = context.get(head, (frozenset(),))[0]
    if first in needs and second in needs and first not in context and second not in context \
            and first not in _named_alone():  # "PromptPay or bank transfer" are two
        return f"{found.group(2)} {found.group(3)}"
    return found.group()


@cache
def _named_alone() -> frozenset[str]:
    """The stems of the answer words' one-word English entries: a thing named by itself
    ("PromptPay", "cash"), not a kind said before its head noun ("bank", "credit")."""
    return frozenset().union(*one_word_stems())


#: Examples before the kind they are of: "Visa/Mastercard or other", "A, B or any other".
#: Examples after a dash, closed by "anything" or "etc." ("Will they get an order out to a
#: customer's home - own rider, a courier, anything?"): they explain, as in brackets.
_DASHED = re.compile(r"(?<=\w)\s+[-–—]\s+[^?]*?,?\s*(?:or\s+)?(?:anything(?: else)?(?: like "
                     r"that)?|whatever|etc\.?|and so on|or similar)\s*(?=\??\s*$)")
_EXAMPLES = re.compile(r"[\w-]+(?:\s*(?:/|,)\s*[\w-]+)*\s+or (?:any )?other\s+")
#: Where a question's thing is, said at its end ("staff on site?", "Wi-Fi in store?"):
#: the business's place, no thing asked.
_WHERE_ASKED = re.compile(r"\b(?:(?:on[- ]site|on the premises|in[- ]store|in the (?:shop|store)|"
                          r"at the (?:shop|store|place|counter|till|desk|front desk|cashier|"
                          r"checkout|register|reception))\s*(?=[?.!]|$)|(?:on[- ]site|on the "
                          r"premises)\s+(?=who|that|to)\b|(?:onto|into|inside) the "
                          r"(?:premises|shop|store)\b)")
#: "Now" or "in any form", said in a question: every question asks about now, and in
#: any form.
_NOW = re.compile(r"\b(?:right now|at the moment|at present|these days|nowadays|"
                  r"in any (?:form|way|shape|kind))\b")
#: Where examples of a kind begin ("a phone wallet such as PromptPay or KBZPay"): each
#: example answers the question as the kind does.
_SUCH_AS = re.compile(r",?\s*(?<![a-z])(?:such as|e\.g\.|eg\.|for example|for instance|"
                      r"(?<!would )(?<!'d )(?<!’d )like(?!\s+(?:to|that|this|it)\b))\s")
#: What a question says is not needed ("without booking", "no need to book"), or is
#: not what it asks ("instead of collecting it").
_WITHOUT = re.compile(r"(?<![a-z])(?:without|no need (?:to|for)|with no|instead of|"
                      r"rather than|apart from|besides|other than)(?![a-z])"
                      # up to what the sentence goes on with: "without cash | settle the
                      # bill by bank transfer"
                      r"(?:(?!\s+(?:settle|pay|paying|by|with|through|via|using|can|could)\b)"
                      r"[^,;?])*")


@cache
def asked_as() -> tuple[tuple[re.Pattern[str], str], ...]:
    """``asked_as:`` of the answer words: a phrase -> the word it is read as, in the
    file's order of words, each word's longer phrases first. A phrase's words match in
    any form ("turns up", "sending"; ``send|sent`` for irregular ones); ``{name}`` is any
    entry of ``slots:`` ``name``, or several joined by "or", "and", "/" or commas, each
    after up to two determiners ("a car or motorbike", "customers' cars"); ``{words}``
    up to six words of any kind."""
    data = answer_words()
    slots = {str(name): [str(e) for e in entries or ()]
             for name, entries in (data.get("slots") or {}).items()}
    found: list[tuple[re.Pattern[str], str]] = []
    for word, phrases in (data.get("asked_as") or {}).items():
        for phrase in sorted((str(p) for p in phrases or ()), key=len, reverse=True):
            found.append((re.compile(_pattern(phrase, slots)), str(word)))
    return tuple(found)


#: Up to two words before a slot's entry that only say whose or which one.
_DETERMINERS = (r"(?:(?:a|an|the|my|your|their|our|his|her|its|one|some|any|prior|advance|"
                r"previous|customers?|"
                r"clients?|[a-z]+['’]s|[a-z]+s['’])\s+){0,2}")
#: ``{words}``: up to six words.
_GAP = r"(?:\S+\s+){0,6}?"


def _pattern(phrase: str, slots: Mapping[str, list[str]]) -> str:
    """The regular expression of one ``asked_as:`` phrase (see :func:`asked_as`)."""
    tokens = phrase.split()
    out = r"(?<![\w-])"
    for place, token in enumerate(tokens):
        if token == "{words}":
            out += _GAP
            continue
        if token.startswith("{") and token.endswith("}"):
            entries = sorted(slots[token[1:-1]], key=len, reverse=True)
            one = "(?:" + "|".join(r"\s+".join(map(re.escape, e.split())) for e in entries) \
                + r")(?:s|es)?"
            out += (_DETERMINERS + one + r"(?:\s*(?:,|/|\bor\b|\band\b)\s*"
                    + _DETERMINERS + one + ")*")
        else:
            out += "(?:" + "|".join(re.escape(w) + r"\w*" for w in token.split("|")) + ")"
        if place + 1 < len(tokens):
            out += r"\s+"
    return out + r"(?![\w-])"


def kinds_said(asked: list[str]) -> set[str]:
    """The question's words that say which kind of payment after them is asked, being
    words that payment needs beside it on a page (``context:``): "credit" of "credit
    cards", "bank" of "bank transfer". Said or not, the page answers about the kind.
    ("book online" is no kind of online: only a payment's kinds, ``kinds: payment``.)"""
    context = vocabulary().context
    payments = vocabulary().kinds.get("payment", (frozenset(), frozenset()))[0]
    return {stem(word) for word, head in itertools.pairwise(asked)
            if stem(head) in payments
            and stem(word) in context.get(stem(head), (frozenset(),))[0]
            and stem(word) not in context}  # "transfer / QR": each a thing asked


def tails(stems: list[str], asking: frozenset[str]) -> set[int]:
    """Where the later words of a phrase of the vocabulary stand, when the phrase's first
    word alone is a word of its group and the others are not ("QR code", "loyalty card",
    "halal food"): the first word carries the phrase, so a "card" asked as part of a
    loyalty card is no question about cards."""
    found: set[int] = set()
    for place, first in enumerate(stems):
        if first in STOP_WORDS or first in asking:
            continue
        for rest in _phrases().get(first, ()):
            if tuple(stems[place + 1:place + 1 + len(rest)]) == rest:
                found.update(range(place + 1, place + 1 + len(rest)))
    return found


@cache
def _phrases() -> Mapping[str, tuple[tuple[str, ...], ...]]:
    """First stem -> the rest of the vocabulary's phrases led by it (see :func:`tails`)."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for ones, stems in _english():
        if len(stems) > 1 and stems[0] in ones and ones.isdisjoint(stems[1:]):
            found.setdefault(stems[0], []).append(stems[1:])
    return {first: tuple(rests) for first, rests in found.items()}


@cache
def pairs() -> frozenset[tuple[str, str]]:
    """The two-word English phrases of the vocabulary, as stems ("debit card")."""
    return frozenset((stems[0], stems[1]) for _, stems in _english() if len(stems) == 2)


@cache
def _english() -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    """Every English entry of the vocabulary's groups (answer words, glossary) as stems,
    with the stems of its group's one-word entries."""
    found: list[tuple[frozenset[str], tuple[str, ...]]] = []
    for group in (*answer_groups(), *shipped_groups()):
        ones = frozenset(stem(e) for e in group.en if LATIN_WORD.fullmatch(e))
        found += [(ones, tuple(stem(w) for w in LATIN_WORD.findall(entry.lower())))
                  for entry in group.en]
    return tuple(found)
