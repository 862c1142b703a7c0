"""The site profile: everything the engine learned about a business from its website,
as one JSON-ready mapping (``leadengine profile URL --json``)."""

from __future__ import annotations

from typing import Any

from leadengine.website.site import Site

#: Boolean signals every profile has (the issue's contract), in this order.
PROFILE_SIGNALS = (
    "google_analytics", "google_tag_manager", "meta_pixel", "tiktok_pixel", "hotjar",
    "clarity", "contact_form", "online_booking", "ecommerce", "facebook_link", "facebook_only",
    "messaging_link", "social_link", "phone", "email", "address", "own_domain_email",
    "free_webmail", "https", "mobile_viewport", "has_website", "analytics", "chat_widget",
    "online_payment", "call_to_action", "lead_capture_form", "platform_dependent",
)


def build_profile(site: Site) -> dict[str, Any]:
    """The profile of a loaded site."""
    signals = site.signals
    business = dict(signals.business)
    name, source, _ = site.business_name()
    business["name"], business["name_source"] = name, source
    business["category"] = site.category.as_dict()
    return {
        "url": site.page.url,
        "final_url": site.page.final_url,
        "language": site.language,
        "languages": list(site.languages),
        "business": business,
        "contacts": {"phones": list(signals.phones), "emails": list(signals.emails),
                     "address": signals.address, "social": dict(signals.social),
                     "placeholder_phones": list(signals.placeholder_phones),
                     "placeholder_emails": list(signals.placeholder_emails)},
        "services": [dict(s) for s in signals.services],
        "location": site.location.as_dict(),
        "signals": {name: signals[name] for name in PROFILE_SIGNALS},
        "unknown": list(signals.unknown),
        "evidence": dict(signals.evidence),
        "page_count": len(site.page_info),
        "pages": [dict(p) for p in site.page_info],
        "failed_pages": list(site.failed_pages),
        "forms": list(signals.forms),
        "scripts": list(signals.scripts),
        "iframes": list(signals.iframes),
    }


def profile_summary(profile: dict[str, Any]) -> str:
    """A short human-readable summary of a profile."""
    on = [name for name, value in profile["signals"].items() if value]
    off = [name for name, value in profile["signals"].items() if not value
           and name not in profile["unknown"]]
    category = profile["business"].get("category") or {}
    where = profile.get("location") or {}
    place = ", ".join(dict.fromkeys(str(where[k]["value"] if k != "country" else where[k]["name"])
                                    for k in ("city", "region", "country") if where.get(k)))
    languages = profile.get("languages") or [profile["language"]]
    lines = [
        f"{profile['business'].get('name') or profile['url']}  ({', '.join(languages)})",
        f"  category: {category.get('value', '-')} ({category.get('confidence', 0):.2f})",
        f"  place:    {place or '-'}",
        f"  pages:    {', '.join(p['url'] for p in profile['pages'])}",
        f"  phones:   {', '.join(profile['contacts']['phones']) or '-'}",
        f"  emails:   {', '.join(profile['contacts']['emails']) or '-'}",
        f"  address:  {profile['contacts']['address'] or '-'}",
        f"  social:   {', '.join(profile['contacts']['social']) or '-'}",
        f"  services: {', '.join(s['name'] for s in profile.get('services', [])) or '-'}",
        f"  present:  {', '.join(on) or '-'}",
        f"  absent:   {', '.join(off) or '-'}",
    ]
    placeholders = (profile["contacts"].get("placeholder_phones", [])
                    + profile["contacts"].get("placeholder_emails", []))
    if placeholders:
        lines.append(f"  template leftovers (not contacts): {', '.join(placeholders[:5])}")
    if profile["unknown"]:
        lines.append(f"  unknown:  {', '.join(profile['unknown'])} (may load inside Tag Manager)")
    for failure in profile["failed_pages"]:
        lines.append(f"  not read: {failure}")
    return "\n".join(lines)
