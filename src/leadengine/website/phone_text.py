"""Phone numbers written in a page's text: what the phone pattern finds (but a number a
label right before it makes a bank account, a tax id or an order number), what follows a
phone label, and nodes that are nothing but a number; and the placeholders a template
left ("08x-xxx-xxxx", "(000) 000-0000"). Read from the DOM's visible text nodes, one per
line. The numbers are put in E.164 later, for the whole site (:mod:`leadengine.website.site`).
"""

from __future__ import annotations

import re

from leadengine.website.phones import NOT_A_PHONE, PLACEHOLDER_TEXT, is_placeholder
from leadengine.website.signal_rules import (
    MAX_CONTACTS,
    PHONE,
    PHONE_AFTER_LABEL,
    PHONE_LABEL,
)


def phones_in_text(page_text: str, nodes: list[str]) -> list[str]:
    """Phone numbers written in the text, but those right after words that make them a
    bank account, a tax id or an order number (on their line, or on the line before when
    the number is a text node of its own: "<b>Account no:</b> 012-3-45678-9"), and the
    text nodes that are nothing but a number of 9 to 15 digits (a footer's "7477217141"
    after a phone icon: written without 0 or +, the pattern above misses it)."""
    found = []
    for match in PHONE.finditer(page_text):
        line_start = page_text.rfind("\n", 0, match.start()) + 1
        context = page_text[line_start: match.start()]
        if not context.strip() and line_start:  # the number is its own node: its label
            context = page_text[page_text.rfind("\n", 0, line_start - 1) + 1: line_start]
        if not _labelled_not_a_phone(context):
            found.append(match.group().strip())
        if len(found) >= MAX_CONTACTS:
            return found
    found += _labelled_phones(page_text.lower())
    for i, node in enumerate(nodes):
        if (9 <= len(node) <= 22 and node[0] in _BARE_START and _BARE_PHONE.fullmatch(node)
                and not (i and _labelled_not_a_phone(nodes[i - 1]))):
            found.append(node.strip())
    return found


def _labelled_not_a_phone(before: str) -> bool:
    """Whether the text right before a number labels it as something else ("Account no:
    ", "เลขที่บัญชี ", "Tax ID: "): the label must end within a few characters of the
    number, so "Tax invoice available. Tel: 02-555-0147" is a phone."""
    tail = before[-48:]
    ends = [match.end() for match in NOT_A_PHONE.finditer(tail)]
    if not ends:
        return False
    between = tail[ends[-1]:]
    return len(between.strip(" \t:：.#-–=()")) <= 4 or _names_the_account(between)


def _names_the_account(between: str) -> bool:
    """Whether the words between an account label and a number name the bank or its
    branch ("บัญชีกสิกรไทย 063-2-41587-2", "A/C Kasikorn Bank, Siam branch 123-4-56789-0"):
    a few words, no digit, no sentence's end, no phone label ("Tax invoice available.
    Tel: 02-555-0147" is a phone)."""
    return (len(between.strip()) <= 32 and not any(c.isdigit() for c in between)
            and not re.search(r"[.!?。।](\s|$)", between.rstrip())
            and PHONE_LABEL.search(between.lower()) is None)


def _labelled_phones(lowered: str) -> list[str]:
    """Numbers right after a phone label ("Tel: 1588-3412", "โทร 0812345678")."""
    found = []
    for label in PHONE_LABEL.finditer(lowered):
        if label.start() and lowered[label.start() - 1].isalpha() and label.group().isascii():
            continue  # inside a word: "hotel", "recall"
        number = PHONE_AFTER_LABEL.match(lowered, label.end())
        if number is not None:
            found.append(number.group(1).strip())
            if len(found) >= MAX_CONTACTS:
                break
    return found


_BARE_START = frozenset("0123456789+( ")
_BARE_PHONE = re.compile(r"\s*\+?\(?\d[\d ()-]{7,18}\d\s*")


def placeholders_in_text(nodes: list[str]) -> list[str]:
    """The template phones written in the text ("08x-xxx-xxxx", "(000) 000-0000"). They
    hold an x, or runs of zeros or of consecutive digits: only the short nodes that may
    hold one are searched (a price table has thousands of numbers)."""
    maybe = "\n".join(n for n in nodes if len(n) < 120 and (
        "x" in n or "X" in n or "000" in n or "123" in n or "987" in n))
    return [m.group().strip() for m in PLACEHOLDER_TEXT.finditer(maybe)
            if is_placeholder(m.group())][:MAX_CONTACTS]
