"""Text folded for matching addresses and place names: Latin letters lose their accents
and case, native digits (Thai, Burmese, Bengali, Devanagari, Arabic, full-width) become
ASCII, dashes and odd spaces become plain ones. Folding maps one character to one, so
positions in the folded text are positions in the original."""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_DIGIT_BLOCKS = (0x0E50, 0x1040, 0x1090, 0x09E6, 0x0966, 0x0660, 0x06F0, 0x17E0, 0x0ED0,
                 0x0AE6, 0x0A66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66)
_SPECIAL = {"ß": "s", "đ": "d", "Đ": "D", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "a",
            "Æ": "A", "œ": "o", "Œ": "O", "þ": "t", "Þ": "T", "ð": "d", "Ð": "D", "ı": "i",
            "İ": "I", "ħ": "h", "Ħ": "H", "ŋ": "n", "Ŋ": "N", "ĸ": "k"}


@cache
def _fold_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for start, end in ((0xC0, 0x250), (0x1E00, 0x1F00)):
        for code in range(start, end):
            char = chr(code)
            base = "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())
            if len(base) == 1 and base.isalpha():
                table[code] = base
    table.update({ord(k): v for k, v in _SPECIAL.items()})
    for block in _DIGIT_BLOCKS:
        for digit in range(10):
            table[block + digit] = str(digit)
    for code in range(0xFF01, 0xFF5F):  # full-width ASCII (Japanese addresses)
        table[code] = chr(code - 0xFEE0)
    for code in (0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212, 0xFE58, 0xFE63):
        table[code] = "-"
    for code in (0xA0, 0x3000, 0x200B, 0xFEFF, 0x202F, 0x205F, *range(0x2000, 0x200B)):
        table[code] = " "
    table.update({0x2018: "'", 0x2019: "'", 0x02BC: "'", 0x3001: ",", 0xFF64: ",",
                  0x060C: ",", 0x3002: "."})
    return table


def fold(text: str) -> str:
    """``text`` with accents, case, native digits and odd dashes/spaces folded away,
    one character for one."""
    folded = text.translate(_fold_table()).lower()
    return folded if len(folded) == len(text) else text.translate(_fold_table())


#: A word of folded Latin text.
WORD = re.compile(r"[a-z0-9]+")


def latin_key(name: str) -> str:
    """The match key of a Latin-script name ("Pimpri-Chinchwad" -> "pimpri chinchwad"),
    or "" when the name holds letters of another script."""
    folded = fold(name)
    if any(c.isalpha() and not c.isascii() for c in folded):
        return ""
    return " ".join(WORD.findall(folded))


def script_key(name: str) -> str:
    """The match key of a name in another script: folded, spaces collapsed, without
    edge punctuation ("กทม." -> "กทม")."""
    return " ".join(fold(name).split()).strip(" .,;:-()")
