"""Whether a business name is the site's own: as written (give or take case, spaces and
punctuation), by its distinctive words, or as a transliteration of a name the site
writes in another script (Thai, Burmese, Japanese...)."""

from __future__ import annotations

import difflib
import re
import unicodedata

from leadengine.facts.site_facts import SiteFacts

#: Words of a name that identify nothing ("Ltd", "Clinic" are on every such site).
_GENERIC = frozenset("""the and of co company ltd limited inc llc plc pte pvt sdn bhd corp
corporation group official website site home page welcome thailand myanmar""".split())
_TOKEN = re.compile(r"[^\W_]+")


def script_of(text: str) -> str:
    """The script most of ``text``'s letters are in (its Unicode name's first word)."""
    counts: dict[str, int] = {}
    for char in text:
        if char.isalpha():
            script = unicodedata.name(char, "UNKNOWN").split()[0]
            counts[script] = counts.get(script, 0) + 1
    return max(counts, key=counts.__getitem__) if counts else "LATIN"


def name_on_site(name: str, facts: SiteFacts) -> str:
    """Where the site shows ``name`` (""): as written, give or take case, spaces and
    punctuation; by its distinctive words; or as a transliteration of a name the site
    writes in another script."""
    key = folded(name)
    if not key:
        return ""
    sources = (facts.identity.name, *facts.name_sources)
    if key == folded(facts.identity.name):
        return "the site's own name"
    for source in sources:
        if key in folded(source):
            return f"in the site's metadata ({source[:80]!r})"
    text = folded(facts.text)
    if key in text:
        return "in the site's text"
    # Its own words (not "Co., Ltd." nor "Clinic", which an answer may add) all on the
    # site: "Smile Bright Dental Clinic Co., Ltd." for "Smile Bright Dental".
    words = [w for w in _words(name) if w not in _GENERIC and len(w) > 1]
    own = [w for w in words if w not in _TRANSLATED]
    haystack = text + "|" + "|".join(folded(s) for s in sources)
    if own and all(w in haystack for w in own):
        return "its distinctive words are on the site"
    if script_of(name) != "LATIN" and script_of(name) not in _scripts(facts):
        return ""  # a name in a script the site never writes
    for source in sources:
        for part in _PARTS.split(source):
            if _transliterated(name, part.strip()):
                return f"a transliteration of {part.strip()[:80]!r}"
    return ""


#: Where a title or name source divides into parts ("Name | tagline - city").
_PARTS = re.compile(r"\s[|\-–—:·•]\s|\s\|\s|[|｜]")
#: Words an answer translates rather than transliterates ("ဆေးခန်း" -> "Clinic"): left
#: out of the comparison of sounds.
_TRANSLATED = frozenset("""clinic dental hospital medical center centre restaurant cafe
coffee bar kitchen hotel resort guesthouse guest house hostel spa salon beauty school
academy shop store company co ltd limited group the and thai myanmar burmese""".split())


def _scripts(facts: SiteFacts) -> set[str]:
    """The scripts the site writes in (its text and name sources)."""
    sample = facts.text[:5000] + " ".join(facts.name_sources)
    return {unicodedata.name(c, "UNKNOWN").split()[0] for c in sample if c.isalpha()}


def folded(text: str) -> str:
    """Lower case, compatibility-folded, without anything but letters and digits."""
    return "".join(_TOKEN.findall(unicodedata.normalize("NFKC", text).casefold()))


def _words(text: str) -> list[str]:
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def _transliterated(name: str, source: str) -> bool:
    """Whether ``name`` and ``source`` sound alike once both are in Latin letters: their
    consonant skeletons (the romanisations of Thai, Burmese or Japanese differ most in
    vowels) match at least 60 %, the words an answer translates ("Clinic") left out.
    Only between different scripts."""
    if not source or script_of(name) == script_of(source):
        return False
    sounded = " ".join(w for w in name.split() if w.lower().strip(".,&") not in _TRANSLATED)
    other = _skeleton(source)
    for claim in dict.fromkeys((name, sounded)):
        mine = _skeleton(claim)
        if min(len(mine), len(other)) >= 4 and \
                difflib.SequenceMatcher(None, mine, other).ratio() >= 0.6:
            return True
    return False


_DIGRAPHS = (("kh", "k"), ("ph", "p"), ("th", "t"), ("ch", "c"), ("sh", "s"), ("ck", "k"),
             ("q", "k"), ("c", "k"), ("v", "w"), ("z", "s"), ("x", "s"), ("l", "r"))


#: Burmese spellings whose usual romanisation a letter-by-letter one misses (ရွှေ "shwe",
#: မြ "my", ကျ "ky", ရ "y"...).
_BURMESE = ((re.compile("ရ(ွ?)ှ"), "sh\\1"), (re.compile("လှ"), "hl"), (re.compile("[မ]ြ"), "my"),
            (re.compile("[ကပ][ျြ]"), "ky"), (re.compile("ချ"), "ch"), (re.compile("ရ"), "y"),
            (re.compile("[သ]"), "th"), (re.compile("[ဆစ]"), "s"), (re.compile("[ညဉ]"), "ny"),
            (re.compile("င"), "ng"))


def _skeleton(text: str) -> str:
    from anyascii import anyascii

    for pattern, latin_form in _BURMESE:
        text = pattern.sub(latin_form, text)
    latin = anyascii(text).lower()
    for old, new in _DIGRAPHS:
        latin = latin.replace(old, new)
    latin = re.sub(r"[^a-z]|[aeiouyhw]", "", latin)
    return re.sub(r"(.)\1+", r"\1", latin)
