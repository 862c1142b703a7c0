"""A question matched against a site's sentences, across languages: its key words
(stemmed; the asking words left out, who-and-how words weighing little), each with the
phrases that answer "no" about it and those in which it means something else; the
sentence that holds most of them wins (see :mod:`leadengine.judgement.questions`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache

from leadengine.judgement.meant import meant
from leadengine.judgement.phrases import ASKING, kinds_said, pairs, tails, what_is_asked
from leadengine.judgement.polarity import NEGATION, NO_NEED
from leadengine.judgement.sentences import (
    LATIN_WORD,
    NO_BOOKING,
    Line,
    answer_groups,
    one_word_stems,
    stem,
    stems_of,
    translated,
    vocabulary,
)
from leadengine.judgement.values import time_of, year_in
from leadengine.judgement.wordforms import forms, meets, one_letter_from, phrases_pattern, says
from leadengine.knowledge.rules import Question
from leadengine.retrieval.tokenize import STOP_WORDS


@dataclass(frozen=True)
class Wanted:
    """What a question looks for: its key stems, each with its weight, synonyms and the
    phrases that answer "no" about it."""

    keys: tuple[tuple[str, float, frozenset[str], tuple[str, ...]], ...]
    #: Keys asked in their other sense ("card" of "gift card"): no kind of theirs.
    other: frozenset[str] = frozenset()

    @property
    def total(self) -> float:
        return sum(key[1] for key in self.keys)

    @cached_property
    def tests(self) -> tuple[tuple[str, frozenset[str], re.Pattern[str] | None,
                                   re.Pattern[str] | None], ...]:
        """Per key, made once: (the key, every stem that :func:`meets` it or one of its
        synonyms, a pattern of its opposite phrases, one of the phrases in which its
        word means something else but those the question says)."""
        asked = {k for k, _, _, _ in self.keys}
        return tuple(
            (key, frozenset(f for word in (key, *synonyms) for f in forms(word)),
             phrases_pattern(opposites),
             phrases_pattern(tuple(p for word in (key, *synonyms)
                                   for p in _by_stem(vocabulary().unrelated, word)
                                   # "an English menu?" says it; "delivered to us"
                                   # (the word alone) is not said by asking about it
                                   if not 1 < len(_phrase_stems(p)) <= len(
                                       _phrase_stems(p) & asked))))
            for key, _, synonyms, opposites in self.keys)



#: Payment cards by their brand.
_CARD_BRANDS = frozenset({"visa", "mastercard", "master", "jcb", "amex", "unionpay", "mpu"})
#: Arriving, in a condition: "If a customer walks in / turns up / comes by, ...".
_ARRIVING = frozenset({"walk", "come", "turn", "show", "drop", "arriv", "visit", "pop"})
#: What a condition says is lacking: "short of cash", "has no cash", "without a car".
_LACKING = re.compile(r"\b(?:short of|out of|no|without|lacks?|don't have|doesn't have|"
                      r"do not have|does not have|don't carry|doesn't carry|forgot)\b")
#: A question that starts with its condition.
CONDITION = re.compile(r"\s*(?:if|when|once|after|before|suppose)\b", re.I)


def _spelled(word: str) -> str:
    """A question word of no known concept, one letter away from one known one, as that
    one ("wholsale", "englsh": a team's typing); any other word as it is."""
    known = _known()
    if len(word) < 5 or word.isdigit() or any(meets(word, k) for k in known):
        return word
    return one_letter_from(word, known) or word


def _condition_said(core: str) -> set[str]:
    """The stems of a leading condition that say who or when, not what: its words of no
    known concept and of arriving ("If a foreign client gets in touch / walks in, can
    someone speak English?"), and what it says is lacking ("If the customer is short of
    cash, can they pay by QR?")."""
    if not CONDITION.match(core) or "," not in core:
        return set()
    condition = core.split(",", 1)[0]
    said = {stem(w) for w in LATIN_WORD.findall(condition)
            if _weight(stem(w), set()) == NOVEL or stem(w) in _ARRIVING}
    lacking = _LACKING.search(condition)
    if lacking:
        said |= {stem(w) for w in LATIN_WORD.findall(condition[lacking.end():])}
    return said


def _ends(asked: list[str], place: int) -> bool:
    """Whether no word of what is asked follows ``place`` ("debit card?", not "QR code
    payments": there the head noun is further on)."""
    return all(w in ASKING or w in STOP_WORDS for w in asked[place:])


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


_SLASHED = re.compile(r"(?<![\w/])[a-z][a-z-]*(?:/[a-z][a-z-]*)+(?![\w/])")
_LISTED = re.compile(r"[a-z-]+(?:,\s*[a-z-]+)+,?\s+or\s+[a-z-]+")


def wanted(question: Question) -> Wanted:
    """The question's key stems: its words (not the asking ones) and its hints' (a
    Thai or Burmese hint brings the English words it means), each with the phrases
    that answer "no" about it. Made once per wording (every site of a run asks it)."""
    return _wanted(question.ask, tuple(question.hints))


@lru_cache(maxsize=4096)
def _wanted(ask: str, hints: tuple[str, ...]) -> Wanted:
    core = what_is_asked(ask)
    asked = LATIN_WORD.findall(core)
    either, modifiers = _either(asked, core)
    modifiers |= kinds_said(asked)  # "credit cards", "bank transfer": which kind
    alternatives = {s for found in either.values() for s in found}
    led = tails([stem(w) for w in asked], ASKING)  # "QR code": a page's QR is the key
    words = [w for place, w in enumerate(asked)
             if w not in STOP_WORDS and w not in ASKING and place not in led]
    words += [w for hint in hints for w in LATIN_WORD.findall(hint.lower())]
    stems = [s for s in dict.fromkeys(_spelled(stem(w)) for w in words)
             if s not in STOP_WORDS and s not in alternatives]
    # A card's brand is asked of cards: "Visa or Mastercard?" is answered by "no cards".
    for brand in _CARD_BRANDS.intersection(stems):
        either.setdefault(brand, set()).add("card")
    # Words of one concept are one key ("speak ... talk to them"): the later ones meet it.
    for later in list(stems):
        first = next((k for k in stems if k != later and _same_concept(k, later)), None)
        if first is not None and stems.index(first) < stems.index(later):
            stems.remove(later)
            either.setdefault(first, set()).add(later)
    for hint in hints:
        stems += [s for s in translated(hint) if s not in stems]
    opposites = vocabulary().opposites
    modifiers |= _condition_said(core)
    # A word asked in its other sense ("gift card", "member card") has no "no" of its
    # kind: a page's "cash only" says nothing about gift cards; nor has a modifier ("If a
    # customer walks in, ...": "appointment only" is no "no" about English).
    payments = vocabulary().kinds.get("payment", (frozenset(), frozenset()))[0]
    other = frozenset(key for key in stems if key in payments and _other_sense(key, core))
    return Wanted(tuple((key, _weight(key, modifiers), frozenset(either.get(key, ())),
                         () if key in other or key in modifiers else _by_stem(opposites, key))
                        for key in stems), other)


def _other_sense(key: str, core: str) -> bool:
    """Whether the question says ``key``'s word in a phrase of ``unrelated:`` (two words
    or more: "gift card" for "card")."""
    return any(" " in phrase and re.search(rf"(?<![\w]){re.escape(phrase)}s?(?![\w])", core)
               for phrase in _by_stem(vocabulary().unrelated, key))


def _by_stem(phrases: Mapping[str, tuple[str, ...]], key: str) -> tuple[str, ...]:
    """The phrases listed for ``key`` or a form of it ("delivery" for "deliver")."""
    return phrases.get(key) or next(
        (found for word, found in phrases.items() if meets(word, key)), ())


def _weight(key: str, modifiers: set[str]) -> float:
    """How much a key weighs: a who-or-how word or a modifier :data:`SOFT`; a word of
    no concept the answer words know ("Is it *easy* to park?", "Can a *foreigner*
    communicate in English?") :data:`NOVEL`, so that the words of what is asked carry
    the question."""
    if key in _SOFT or key in modifiers:
        return SOFT
    return 1.0 if any(meets(key, known) for known in _known()) else NOVEL


def _same_concept(one: str, other: str) -> bool:
    """Whether two stems are one-word synonyms in one of the answer words' concept
    groups ("speak", "talk"; not "english" and "speak" of "english speaking")."""
    return any(one in words and other in words for words in one_word_stems())


@cache
def _known() -> frozenset[str]:
    """The English stems of the vocabulary's concept groups (answer words, glossary),
    and the one-word names the answer words list for a group (``also:``: "KBZPay" is a
    mobile wallet, so "KBZPay or Wave Pay?" asks of something known)."""
    return frozenset(s for means in vocabulary().means for s in means) | frozenset(
        stem(term) for group in answer_groups() for term in group.terms
        if LATIN_WORD.fullmatch(term))


def _either(asked: list[str], core: str) -> tuple[dict[str, set[str]], set[str]]:
    """The question's alternatives (a key's stem -> the stems that meet it too) and
    its modifiers (weighing :data:`SOFT`): "credit or debit cards" is one key, cards,
    of any kind (a plural, or phrases of the vocabulary, "credit card" and "debit card",
    name the head noun; "PromptPay or bank transfer" are two); "rooms, seats or beds" one
    key met by any of them."""
    either: dict[str, set[str]] = {}
    modifiers: set[str] = set()
    for place, (before, middle, after) in enumerate(zip(asked, asked[1:], asked[2:],
                                                        strict=False)):
        if middle != "or" or before in ASKING or after in ASKING or after in STOP_WORDS \
                or stem(before) in _SOFT or stem(after) in _SOFT:
            continue
        head = asked[place + 3] if place + 3 < len(asked) else ""
        if head and place > 0 and asked[place - 1] == after:  # "gift vouchers or gift cards"
            either.setdefault(stem(before), set()).add(stem(head))
            continue
        if head and head not in ASKING and head not in STOP_WORDS \
                and (_plural(head) or ((stem(after), stem(head)) in pairs()
                                       and (stem(before), stem(head)) in pairs()
                                       and _ends(asked, place + 4))):
            if _plural(before):  # "vouchers or gift cards": the compound is its own key
                continue
            modifiers.add(stem(before))  # "credit or debit cards": what kind, said or not
        either.setdefault(stem(before), set()).add(stem(after))
    for slashed in _SLASHED.finditer(core):  # "LINE/Facebook", "transfer/QR": either
        items = [stem(w) for w in slashed.group().split("/")]
        if not set(items) & (ASKING | STOP_WORDS):
            either.setdefault(items[0], set()).update(items[1:])
    for listed in _LISTED.finditer(core):
        items = [w for w in re.split(r",\s*|\s+or\s+", listed.group()) if w]
        if len(items) >= 3 and not set(items) & ASKING:
            either.setdefault(stem(items[0]), set()).update(stem(w) for w in items[1:])
    return either, modifiers


#: Stems of words that say who or how more than what is asked ("Do the staff speak
#: English?" is answered by "We work in English"): they weigh :data:`SOFT` of a word.
_SOFT = frozenset({"staff", "employe", "team", "worker", "peopl",
                   "person", "come", "go", "get", "make", "use", "give", "need", "want",
                   "allow", "permit", "welcom", "look", "find", "seek", "pay", "page",
                   "contact", "reach", "messag", "job", "work", "visit", "payment", "own",
                   "deal", "crew",
                   # a kind of thing, not the thing ("any kind of loyalty scheme")
                   "kind", "sort", "type", "scheme", "programm", "program", "system",
                   "option", "facil", "arrang", "method", "setup", "app", "bring"})
SOFT = 0.25
#: What a question word of no known concept weighs.
NOVEL = 0.5


def matched(want: Wanted, stems: frozenset[str], text: str = "") -> list[str]:
    """The keys a line (its stems and text) holds, or holds the opposite of; "year"
    is held by a year written in it, "time" by a time of day."""
    folded = text.casefold()
    held = []
    for (key, _, synonyms, _), (_, met, opposite, unrelated) in zip(want.keys, want.tests,
                                                                    strict=True):
        if not met.isdisjoint(stems):
            # the word found, or its alternative ("mobile or QR payments": a QR code's)
            if (unrelated is None or unrelated.search(folded) is None) \
                    and (key in want.other  # a gift card needs no paying beside it
                         or any(meant(word, text) for word in (key, *synonyms)
                                if not forms(word).isdisjoint(stems))):
                held.append(key)
            elif opposite is not None and opposite.search(folded) is not None \
                    and (unrelated is None or unrelated.search(folded) is None):
                held.append(key)  # "leave your dog at home": the word, not as meant, but no
        elif (opposite is not None and opposite.search(folded) is not None) \
                or (key == "year" and year_in(text) is not None) \
                or (key in ("time", "open") and time_of(text) is not None):
            held.append(key)
    return held


@cache
def _phrase_stems(phrase: str) -> frozenset[str]:
    """A phrase's own English stems (a Thai or Burmese one's: the words it means)."""
    own = stems_of(phrase) if phrase.isascii() else translated(phrase)
    return frozenset(own) or frozenset({phrase})


def opposed(want: Wanted, text: str, whole: bool = False) -> bool:
    """Whether ``text`` holds a phrase that answers "no" about one of the keys (with
    ``whole``: about the whole question, as "cash only" does about cards). An "only"
    phrase names what is taken: it is no "no" about a key the text names too ("cash or
    bank transfer only", "only cash or PromptPay QR", "ငွေသားနဲ့ KPay ပဲ")."""
    folded = NO_NEED.sub(" ", text.casefold())
    wholes = vocabulary().whole
    asked = frozenset(f for (_, weight, _, _), (_, met, _, _) in zip(want.keys, want.tests,
                                                                      strict=True)
                      if weight == 1.0 for f in met)  # any key's words (not "payment")
    for key, _, _, phrases in want.keys:
        if not phrases or (whole and key not in wholes):
            continue
        said = [p for p in phrases if says(p, folded)]
        if not said:
            continue
        # ("for staff only", "only for our tablets" say who, not what is taken)
        if all(_ONLY.search(p) and " for " not in f" {p} " for p in said):
            rest = folded
            for phrase in said:
                rest = rest.replace(phrase, " ")
            if not asked.isdisjoint(stems_of(rest) | translated(rest)):
                continue  # "cash and transfer only" is no "no" about transfer or QR
        return True
    return False


#: The words that make a phrase name all that is taken ("cash only", เงินสดเท่านั้น).
_ONLY = re.compile(r"(?<![a-z])only(?![a-z])|เท่านั้น|เฉพาะ|รับแต่|ပဲ|သာ|မျိုးတည်း")


#: A site menu's links, as whole lines.
_NAVIGATION = frozenset({"home", "home page", "homepage", "หน้าแรก", "ပင်မစာမျက်နှာ"})


def best_line(want: Wanted, lines: Iterable[Line]) -> tuple[Line, float] | None:
    """The line that holds most of what the question wants (two thirds of its words
    or more), with the share held; None when no line does."""
    if not want.keys:
        return None
    best: tuple[float, int, Line] | None = None
    for line in lines:
        if line.text.strip().casefold() in _NAVIGATION:  # a menu's "Home" is no home visit
            continue
        held = set(matched(want, line.stems, line.text))
        if not held:
            continue
        # "Cash only" answers "do they take credit cards?" whole.
        share = 1.0 if opposed(want, line.text, whole=True) else (
            sum(key[1] for key in want.keys if key[0] in held) / want.total)
        if share < 0.66:
            continue
        rank = (share, -len(line.text), line)
        if best is None or rank[:2] > best[:2]:
            best = rank
    return (best[2], best[0]) if best is not None else None


def negates(want: Wanted, clause: str) -> bool:
    """Whether ``clause`` says no about what is asked. An English negation after what is
    asked answers it only when it is about its being there or being taken ("Cards are
    not accepted", "Parking: none", "not yet"), not about another verb ("Points never
    expire", "Delivery is no problem", "anything that doesn't fit is altered free")."""
    plain = NO_NEED.sub(" ", clause)
    if not WALK_IN.isdisjoint(key for key, *_ in want.keys):
        plain = NO_BOOKING.sub(" ", plain)  # "No reservations - just walk in"
    for hit in _TOO.finditer(plain):  # "the soi is too narrow to park"
        if matched(want, frozenset(stems_of(plain[hit.end():])), plain[hit.end():]):
            return True
    for hit in NEGATION.finditer(plain):
        before, after = plain[:hit.start()], plain[hit.end():]
        if not hit.group().isascii() or hit.group().lower() in _CANNOT or not matched(
                want, frozenset(stems_of(before)), before):
            return True
        following = [stem(w) for w in LATIN_WORD.findall(after.lower())
                     if w not in STOP_WORDS or w in _BEING][:_AFTER]
        if not following or any(
                w in _BEING or w in _SOFT - {"work", "job"}
                or any(meets(key, w) for key, *_ in want.keys)
                or any(meets(w, stem(asked)) for asked in ASKING) for w in following):
            return True
    return False


#: The keys of a walk-in question: a "no booking" says yes about them.
WALK_IN = frozenset({"walk", "drop"})
#: "too ... to": what follows cannot be done.
_TOO = re.compile(r"(?<![\w])too \w+ to(?![\w])", re.I)
#: A negation that says what may not be done ("pets can't ride in the cars"), or that
#: it is done no more ("delivery was discontinued").
_CANNOT = frozenset({"cannot", "can't", "cant", "discontinued", "cancelled", "canceled",
                     "stopped", "suspended"})
#: How many words after an English negation say what it is about.
_AFTER = 3
#: Words that say something is (not) there or (not) taken.
_BEING = frozenset(stem(w) for w in (
    "available", "accepted", "allowed", "possible", "admitted", "included", "supported",
    "served", "sold", "done", "given", "there", "here", "yet", "anymore", "currently",
    "longer", "ok", "okay", "welcome", "permitted", "offered", "provided", "open",
    "any", "have", "use", "used", "do", "does", "can", "be"))
