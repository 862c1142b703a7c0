"""What :mod:`leadengine.website.location` reads and returns: one page's clues
(:class:`PageClues`) and a site's location (:class:`SiteLocation`), each part a
:class:`Part` with the evidence it was read from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leadengine.website.location.places import country_name

#: Text nodes read at each end of a page: contact details live at the top and bottom.
EDGE_NODES = 3000
#: ``<address>`` elements and JSON-LD addresses read per page and per site.
MAX_ADDRESSES = 20


def edges(nodes: list[str]) -> list[str]:
    """The first and last :data:`EDGE_NODES` of a page's text nodes."""
    return nodes if len(nodes) <= 2 * EDGE_NODES else nodes[:EDGE_NODES] + nodes[-EDGE_NODES:]


def quote(text: str, limit: int = 120) -> str:
    """``text`` to quote in an evidence string: its double quotes made single, cut at
    ``limit`` characters."""
    text = text.replace('"', "'")
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class Part:
    """One part of a location and where it was read."""

    value: str
    evidence: str


@dataclass(frozen=True)
class PageClues:
    """What one page says about where the business is."""

    url: str
    #: Visible text nodes in document order (the first and last :data:`EDGE_NODES`).
    nodes: tuple[str, ...]
    #: Texts of ``<address>`` elements, line breaks kept as ", ".
    address_texts: tuple[str, ...] = ()
    #: JSON-LD PostalAddress objects, string values; a plain string address as
    #: ``{"streetAddress": text}``.
    postal_addresses: tuple[dict[str, str], ...] = ()
    #: Links and embeds pointing to Google, Kakao, Naver, Apple maps or OpenStreetMap.
    map_links: tuple[str, ...] = ()
    #: Place metadata of the page's head, (name, content): ``geo.placename``,
    #: ``geo.position``, ``ICBM``, ``geo.region``, ``og:locality``, ``og:country-name``,
    #: ``business:contact_data:locality``...
    geo_meta: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class SiteLocation:
    """Where a site's business is; each part None when the site does not say."""

    street_address: Part | None = None
    city: Part | None = None
    #: Province, state, prefecture, region or division.
    region: Part | None = None
    postal_code: Part | None = None
    #: ISO 3166-1 alpha-2 code.
    country: Part | None = None

    def as_dict(self) -> dict[str, Any]:
        """Each part as ``{"value", "evidence"}`` (the country also with its name)."""
        data: dict[str, Any] = {}
        for name in ("street_address", "city", "region", "postal_code"):
            part = getattr(self, name)
            data[name] = None if part is None else {"value": part.value,
                                                    "evidence": part.evidence}
        country = self.country
        data["country"] = None if country is None else {
            "value": country.value, "name": country_name(country.value),
            "evidence": country.evidence}
        return data
