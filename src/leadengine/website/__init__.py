"""Reading a website: fetching its pages politely and safely, extracting their text, and
reading its signals, contacts, location, category and kind.

* :mod:`~leadengine.website.load`: :func:`load_site`, a site's homepage and useful
  subpages within one byte budget; :mod:`~leadengine.website.readers` reads them;
* :mod:`~leadengine.website.site`: :class:`Site`, what the rest of the engine reads;
* :mod:`~leadengine.website.fetch`, :mod:`~leadengine.website.guard`,
  :mod:`~leadengine.website.robots`, :mod:`~leadengine.website.urls`: the network;
* :mod:`~leadengine.website.extract`, :mod:`~leadengine.website.signals`,
  :mod:`~leadengine.website.facts` and the readers beside them (phones, naming,
  language, category, services, site kind, injection, location): what a page says.

It imports no fact, judgement, store or app module: those read a :class:`Site`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from leadengine.exports import lazy_exports

if TYPE_CHECKING:
    from leadengine.website.category import Category
    from leadengine.website.fetch import Page, make_client
    from leadengine.website.guard import BlockedAddress, GuardedTransport
    from leadengine.website.load import load_site
    from leadengine.website.profile import build_profile, profile_summary
    from leadengine.website.robots import RobotsPolicy
    from leadengine.website.site import PageRead, Site, read_page, site_from_page
    from leadengine.website.site_kind import SiteKind
    from leadengine.website.urls import lead_target, normalise_url

#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "Page": "leadengine.website.fetch",
    "make_client": "leadengine.website.fetch",
    "BlockedAddress": "leadengine.website.guard",
    "GuardedTransport": "leadengine.website.guard",
    "load_site": "leadengine.website.load",
    "PageRead": "leadengine.website.site",
    "Site": "leadengine.website.site",
    "read_page": "leadengine.website.site",
    "site_from_page": "leadengine.website.site",
    "RobotsPolicy": "leadengine.website.robots",
    "lead_target": "leadengine.website.urls",
    "normalise_url": "leadengine.website.urls",
    "build_profile": "leadengine.website.profile",
    "profile_summary": "leadengine.website.profile",
    "Category": "leadengine.website.category",
    "SiteKind": "leadengine.website.site_kind",
}

__all__ = [
    "BlockedAddress", "Category", "GuardedTransport", "Page", "PageRead", "RobotsPolicy",
    "Site", "SiteKind", "build_profile", "lead_target", "load_site", "make_client",
    "normalise_url", "profile_summary", "read_page", "site_from_page",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
