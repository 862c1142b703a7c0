"""Times as the team reads them: ``2026-12-07 14:05`` in the team's time zone (the
``time_zone`` setting, an IANA name; Asia/Bangkok by default: Yangon is half an hour
behind, and says so only when the setting says Asia/Yangon). One format everywhere:
the CLI's tables, the exports and the workspace's pages."""

from __future__ import annotations

import datetime
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: The zone times are shown in when nothing else is set.
DEFAULT_ZONE = "Asia/Bangkok"


@lru_cache(maxsize=16)
def zone(name: str) -> ZoneInfo:
    """The time zone called ``name``; ValueError naming it when there is none (the
    ``tzdata`` package ships the database where the system has none)."""
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"is not a time zone (an IANA name such as {DEFAULT_ZONE} or "
                         "Asia/Yangon)") from None


def when(at: float | None, name: str = DEFAULT_ZONE, seconds: bool = False) -> str:
    """``at`` (seconds since the epoch) as ``YYYY-MM-DD HH:MM`` in zone ``name``; empty
    for None."""
    if at is None:
        return ""
    moment = datetime.datetime.fromtimestamp(float(at), zone(name))
    return moment.strftime("%Y-%m-%d %H:%M:%S" if seconds else "%Y-%m-%d %H:%M")
