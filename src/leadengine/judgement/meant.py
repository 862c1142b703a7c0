"""Whether a word of a sentence means what a question asks by it, where the word alone
cannot say: an app whose name is an English word (LINE), a compound (a walk-in), a word
that is part of a place's name (Lumpini Park), a word that needs another beside it (a
QR code is a payment's only where paying is said). The words are in
``data/answer_words.yaml`` (``names:``, ``compounds:``, ``places:``, ``context:``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

from leadengine.judgement.sentences import (
    answer_words,
    stem,
    stems_of,
    translated,
    vocabulary,
)


def meant(key: str, text: str) -> bool:
    """Whether ``key``, found in ``text`` (one sentence), means what the question asks:
    an app's name is written as a name in English, or said in Thai or Burmese (ไลน์); a
    compound is written as one; a word of ``context:`` has one of its words beside it; a
    word that is part of a place's name ("Lumpini Park") is no parking."""
    rules = _rules()
    written = rules.names.get(key)
    if written is not None:
        if written.search(text) is not None:
            return True
        return key in translated(_LATIN_RUN.sub(" ", text))  # ไลน์, not the English word
    compound = rules.compounds.get(key)
    if compound is not None and compound.search(text) is None \
            and key not in translated(text):  # "we walk beside them"; "drop-ins" is one
        return False
    needs = vocabulary().context.get(key)
    if needs is not None:
        stems, words = needs
        # (its own words, not what its group brings: "transfer" brings "bank")
        if stems.isdisjoint(stems_of(text)) \
                and not any(word in text.casefold() for word in words):
            return False
    if any(key.startswith(word) for word in rules.incoming) and rules.incoming_from is not None \
            and rules.incoming_from.search(text) and not _FROM_TO.search(text):
        return False  # "delivered fresh from the brewery"
    place = rules.places.get(key)
    if place is not None and place.search(text):
        rest = place.sub(" ", text)
        return key in stems_of(rest) | translated(rest)
    return True


@dataclass(frozen=True)
class _Rules:
    """``names:``, ``compounds:`` and ``places:`` as patterns, by question stem."""

    names: Mapping[str, re.Pattern[str]]
    compounds: Mapping[str, re.Pattern[str]]
    places: Mapping[str, re.Pattern[str]]
    incoming: frozenset[str]
    #: One of ``incoming:``'s words, done or a noun ("delivered", "deliveries"), then
    #: "from" a place or a maker in its clause; not from the business itself ("from our
    #: warehouse"), not a time or a price.
    incoming_from: re.Pattern[str] | None


@cache
def _rules() -> _Rules:
    data = answer_words()
    return _Rules(
        {key: _name(key, spec or {}) for key, spec in (data.get("names") or {}).items()},
        {key: _compound(str(written)) for key, written in (data.get("compounds") or {}).items()},
        {key: _place(key, words or ()) for key, words in (data.get("places") or {}).items()},
        frozenset(stem(str(word)) for word in data.get("incoming") or ()),
        _incoming(data.get("incoming") or ()))


def _name(key: str, spec: Mapping[str, Iterable[str]]) -> re.Pattern[str]:
    """``LINE``; ``Line`` + a name word after or before it; ``line`` + an any-case word."""
    named = re.escape(key.capitalize())
    forms = [rf"\b{re.escape(key.upper())}\b"]
    after = _one_of(spec.get("name_after") or ())
    if after:
        forms.append(rf"\b{named}\s*{after}")
    before = _one_of(spec.get("before") or ())
    if before:
        forms.append(rf"\b{before}\s+{named}\b")
    loose = _one_of(spec.get("any_case_after") or ())
    if loose:
        forms.append(rf"(?i:\b{re.escape(key)}\s*{loose})")
    return re.compile("|".join(forms))


def _one_of(words: Iterable[str]) -> str:
    """One of ``words``, each a whole word where it ends with a letter or digit (a
    space in one stands for any spacing: ": @" is "Line: @shop" and "Line:@shop")."""
    parts = sorted((str(w) for w in words), key=len, reverse=True)
    return "(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s*")
                            + (r"\b" if w[-1:].isalnum() else "")
                            for w in parts) + ")" if parts else ""


def _incoming(words: Iterable[str]) -> re.Pattern[str] | None:
    """"deliver", "ship" -> "delivered ... from", "shipped from", "deliveries from",
    "shipments from" (see ``_Rules``)."""
    done = "|".join(re.escape(str(w)) + r"\w*(?:ed|ies|ments?)" for w in words)
    if not done:
        return None
    return re.compile(rf"\b(?:{done})\b(?:[^\w.;:!?]+\w+){{0,4}}?[^\w.;:!?]+from\s+"
                      r"(?!our\b(?!\s+(?:\w+['’]s\b|neighbo|supplier|partner|friend))|us\b|"
                      r"the (?:shop|store|farm)\b|[\d฿$]|[๐-๙၀-၉])" + _INCOMING_MY, re.I)


#: Burmese: sent "from" somewhere (ကနေ, ဆီက) or "to the shop" (ဆိုင်ကို), within a few
#: words before ပို့ (send) or မှာ (order), with no customer's home or "up to" after it
#: ("ခေါက်ဆွဲကို သီပေါကနေ နေ့တိုင်း ကားနဲ့ ပို့ပေးတာ": the noodles come from Hsipaw); not
#: from a bus terminal or a post office (ကားဂိတ်ကနေ ပို့: how orders go out).
_INCOMING_MY = (r"|(?:(?<!ဂိတ်)(?<!စာတိုက်)ကနေ|ဆီက|ဆီကနေ|ဆိုင်ကို)\s*(?:" + r"(?:(?!" + "အိမ်|အထိ|အရောက်"
                + r")[^\s။])+\s+){0,4}?[^\s။]*(?:ပို့|မှာယူ|မှာပြီး)"
                r"(?![^။]*(?:အိမ်|အထိ|(?<!ဆိုင်)အရောက်))")


def _compound(written: str) -> re.Pattern[str]:
    """"walk-in" -> walk-in, walk in, walkin, walk-ins (any case)."""
    first, _, rest = written.partition("-")
    return re.compile(rf"\b{re.escape(first)}[\s-]?{re.escape(rest)}s?\b", re.I)


def _place(key: str, qualifiers: Iterable[str]) -> re.Pattern[str]:
    """Capitalised words before "Park"; a qualifier before "park" (any case); a park
    at a named place or a public one's ("car park at Bali Hai Pier", "park at Central",
    "the airport car park"): somewhere else's."""
    named = re.escape(key.capitalize())
    forms = [rf"\b(?:[A-Z][\w'-]+\s+)+{named}\b",
             # (not "no parking at Loft Eight": theirs; not an address, "in Soi 5")
             rf"(?<![Nn]o )(?i:\b(?:car\s+|bike\s+)?{re.escape(key)}\w*)\s+(?:at|in|near)\s+"
             r"(?:the\s+)?(?!(?:Soi|Road|Rd|Street|St|Lane|Moo|Building|Block|Floor|Level|No)\b)"
             r"[A-Z][\w'-]+",
             rf"(?i:\b(?:airport|market|viewpoint|pier|station|hospital|temple|mall|stadium|"
             rf"beach|hill)\s+(?:car\s+|bike\s+)?{re.escape(key)}\w*)"]
    words = _one_of(qualifiers)
    if words:
        forms.append(rf"(?i:\b{words}\s+{re.escape(key)}\b)")
    return re.compile("|".join(forms))


#: What goes out: a range "from Bangkok to Chiang Mai", the customer's order.
_FROM_TO = re.compile(r"\bfrom\s+\w+(?:\s+\w+)?\s+(?:to|-|–)\s|\byour\b|\border", re.I)
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9@._-]*")
