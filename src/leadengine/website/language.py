"""The language of a page's visible text, as an ISO 639-1 code (th, my, en, ja, ko...).

Most scripts belong to one language a sales team would name: Thai, Burmese, Korean,
Bengali, Greek... so the script with the most letters decides (Han with kana is
Japanese; Han alone Chinese). Latin text is told apart by its commonest words (English,
Vietnamese by its letters, Indonesian/Malay, French, German, Spanish, Portuguese,
Italian, Dutch, Tagalog, Turkish). A script shared by several languages (Arabic,
Cyrillic, Devanagari, Latin) takes the page's ``lang`` attribute when that names one of
them; otherwise the attribute is only a hint, used when the page has no text at all,
since templates ship with ``lang="en"`` whatever they are filled with.
"""

from __future__ import annotations

import re
from collections import Counter

#: Characters of text examined (a page's first 5,000 say what it is written in).
MAX_CHARS = 5_000
#: The language of a page with no letters and no ``lang`` attribute.
UNDETERMINED = "und"

#: (first code point, last code point, language) of the scripts with one main language.
_SCRIPTS = (
    (0x0E00, 0x0E7F, "th"), (0x1000, 0x109F, "my"), (0xAA60, 0xAA7F, "my"),
    (0xA9E0, 0xA9FF, "my"), (0xAC00, 0xD7AF, "ko"), (0x1100, 0x11FF, "ko"),
    (0x3130, 0x318F, "ko"), (0x3040, 0x30FF, "kana"), (0x4E00, 0x9FFF, "han"),
    (0x3400, 0x4DBF, "han"), (0x0600, 0x06FF, "arabic"), (0x0750, 0x077F, "arabic"),
    (0xFB50, 0xFDFF, "arabic"), (0xFE70, 0xFEFF, "arabic"), (0x0590, 0x05FF, "he"),
    (0x0980, 0x09FF, "bn"), (0x0900, 0x097F, "devanagari"), (0x0A00, 0x0A7F, "pa"),
    (0x0A80, 0x0AFF, "gu"), (0x0B00, 0x0B7F, "or"), (0x0B80, 0x0BFF, "ta"),
    (0x0C00, 0x0C7F, "te"), (0x0C80, 0x0CFF, "kn"), (0x0D00, 0x0D7F, "ml"),
    (0x0D80, 0x0DFF, "si"), (0x0E80, 0x0EFF, "lo"), (0x1780, 0x17FF, "km"),
    (0x10A0, 0x10FF, "ka"), (0x0530, 0x058F, "hy"), (0x1200, 0x137F, "am"),
    (0x0370, 0x03FF, "el"), (0x0400, 0x04FF, "cyrillic"),
)
#: Scripts shared by several languages: the ``lang`` attribute may pick one of them.
_SHARED = {"arabic": ("ar", {"ar", "fa", "ur", "ps", "ku", "sd", "ug"}),
           "cyrillic": ("ru", {"ru", "uk", "bg", "sr", "mk", "be", "kk", "ky", "mn", "tg"}),
           "devanagari": ("hi", {"hi", "mr", "ne", "sa"}),
           "han": ("zh", {"zh", "ja"})}
#: Scripts whose one character is about a syllable: weighed like two Latin letters.
_DENSE = {"ko", "kana", "han"}
#: A script takes the page when it has this share of its letters (weighed).
_SHARE = 0.4

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
#: One character class per script (a C scan each, not a Python loop per character).
_SCRIPT_PATTERNS = {
    script: re.compile("[" + "".join(f"\\u{first:04x}-\\u{last:04x}"
                                     for first, last, name in _SCRIPTS if name == script) + "]+")
    for script in dict.fromkeys(name for _, _, name in _SCRIPTS)}
_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f\u1e00-\u1eff]+")
_VIETNAMESE = re.compile(r"[đơưăạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I)
#: The commonest words of the Latin-script languages told apart.
_WORDS = {
    "en": "the and of to in for with our we you your is are on at from by this that "
          "it be as or an can all more",
    "id": "dan yang di untuk dengan dari ini itu kami anda ke pada adalah tidak atau "
          "juga akan bisa kita",
    "fr": "le la les et des du de un une pour est nous vous avec sur dans au aux "
          "qui que votre",
    "de": "der die das und ist nicht mit für sie wir ihr ein eine zu den von auf "
          "dem des",
    "es": "el la los las y de del en para con por que es nuestro una un su sus más",
    "pt": "o os as e do da dos das em para com por que é nosso uma um seu mais não",
    "it": "il lo la gli le e di del della per con che è nostro una un sono più non",
    "nl": "de het een en van voor met op is zijn wij u onze niet ook bij",
    "tl": "ang mga ng sa at na ay para kami ninyo namin ito",
    "tr": "ve bir bu için ile da de olarak çok daha en biz sizin",
}
_LOREM = frozenset("lorem ipsum dolor sit amet consectetur consectetuer adipiscing elit sed "
                   "eiusmod tempor incididunt labore dolore magna aliqua enim minim veniam "
                   "quis nostrud exercitation ullamco laboris nisi aliquip commodo".split())
#: The filler's words that are also common words of a language.
_LOREM_VOTES = frozenset("et in ut ad ex a do id non est".split()) | _LOREM
_WORD_LANGUAGE = {word: lang for lang, words in reversed(_WORDS.items())
                  for word in words.split()}


def detect_language(text: str, html_lang: str = "") -> str:
    """The ISO 639-1 code of the language ``text`` is mostly written in; ``html_lang`` (the
    page's ``lang`` attribute) only picks among the languages of a shared script, or
    answers for a page without letters. "und" when neither says anything."""
    text = text[:MAX_CHARS]
    declared = html_lang.strip().lower().replace("_", "-").split("-")[0]
    scripts: Counter[str] = Counter()
    other = "".join(_NON_ASCII.findall(text))
    if other:
        for script, pattern in _SCRIPT_PATTERNS.items():
            count = sum(map(len, pattern.findall(other)))
            if count:
                scripts[script] = count * (2 if script in _DENSE else 1)
    latin_words = _LATIN_WORD.findall(text)
    latin = sum(map(len, latin_words))
    total = latin + sum(scripts.values())
    if total == 0:
        return declared if re.fullmatch(r"[a-z]{2}", declared) else UNDETERMINED
    if scripts:
        if scripts["kana"] and scripts["han"]:
            scripts["kana"] += scripts.pop("han")
        script, count = scripts.most_common(1)[0]
        if count / total >= _SHARE:
            if script == "kana":
                return "ja"
            default, members = _SHARED.get(script, (script, {script}))
            return declared if declared in members else default
    return _latin_language(latin_words, declared)


def _latin_language(words: list[str], declared: str) -> str:
    """en, vi, id, fr, de... from the commonest words (and Vietnamese letters)."""
    if not words:
        return declared or "en"
    joined = " ".join(words[:3000])
    if len(_VIETNAMESE.findall(joined)) >= max(3, len(words) // 20):
        return "vi"
    lowered = [w.lower() for w in words[:3000]]
    # Lorem ipsum is a template's filler, in no language ("et", "in", "ut" are not
    # French or English votes).
    if sum(w in _LOREM for w in lowered) >= 3:
        lowered = [w for w in lowered if w not in _LOREM_VOTES]
    votes = Counter(_WORD_LANGUAGE[w] for w in lowered if w in _WORD_LANGUAGE)
    if not votes:
        # A few words that are no language's commonest ("Coming soon", a brand): the
        # attribute if it names a language, else English.
        return declared if re.fullmatch(r"[a-z]{2}", declared) else "en"
    best, count = votes.most_common(1)[0]
    if declared in votes and votes[declared] >= count * 0.8:
        return declared  # a close call: the attribute breaks it
    return best


def page_languages(languages: list[str]) -> list[str]:
    """The distinct languages of a site's pages, homepage's first, "und" left out."""
    return [lang for lang in dict.fromkeys(languages) if lang != UNDETERMINED]
