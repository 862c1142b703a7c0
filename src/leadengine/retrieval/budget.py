"""The token budget that caps the advisory context.

The seed spends ~500-1,000 tokens of context; passages are added best first
while they fit. The estimate (UTF-8 bytes / 4) is close to BPE tokenisers for
English and errs high for Thai and Burmese text, so the budget is not overrun.
"""

from __future__ import annotations

from leadengine.retrieval.hits import Hit


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text``."""
    return (len(text.encode("utf-8")) + 3) // 4


def within_budget(hits: list[Hit], budget: int | None) -> list[Hit]:
    """The best hits whose texts fit in ``budget`` tokens together (None = no cap).
    A hit that does not fit is skipped and smaller ones after it may still fit; the
    best hit is always kept so the context is never empty because of one long passage."""
    if budget is None:
        return hits
    kept: list[Hit] = []
    used = 0
    for hit in hits:
        cost = estimate_tokens(hit.text)
        if kept and used + cost > budget:
            continue
        kept.append(hit)
        used += cost
    return kept


def estimate_tokens_high(text: str) -> int:
    """A count of ``text``'s tokens that errs high for every script: ASCII at four
    characters a token, every other character a token of its own. Thai and Burmese
    run close to one token a character in the tokenisers providers use, where
    :func:`estimate_tokens` (three bytes a character, four bytes a token) counts 0.75:
    a request held under a provider's tokens-per-minute limit by this count is not
    refused as too large."""
    other = len(text) - len(text.encode("ascii", "ignore"))
    return (len(text) - other + 3) // 4 + other
