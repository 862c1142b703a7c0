"""How well ``discover`` reads directories: the hand-labelled directory set
(``tests/fixtures/directories``: 10 directory sites and a bad-input one, 131 + 7
businesses, written by another hand, split into dev and held-out before any code ran on
them: ``split.json``).

    python -m bench.eval_discover                 # both splits
    python -m bench.eval_discover --split dev --misses
    python -m bench.eval_discover --set b         # the second set (directories_b)

A business is found when a row's detail page is its detail page (or its name is its
name); its website is right when the domains match (empty for empty), its phone when
the digits match (the last 8, so +66 2 123 4567 and 02-123-4567 meet). A row that is
no labelled business is chrome (an ad, a nav link).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from leadengine.batch.discover import discover
from leadengine.config import Settings
from tests.fakes.site_server import SiteServer

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
SETS = {"a": FIXTURES / "directories", "b": FIXTURES / "directories_b",
        "c": FIXTURES / "directories_c"}
_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙၀၁၂၃၄၅၆၇၈၉", "01234567890123456789")


def _domain(url: str) -> str:
    return (urlsplit(url if "//" in url else "https://" + url).hostname or "").lower(
    ).removeprefix("www.")


def _digits(phone: str) -> str:
    """A phone's national digits: without +66 / +95 or the trunk 0 (so +95 1 384 512 and
    01 384 512 meet, and +66 2 123 4567 and 02-123-4567)."""
    digits = re.sub(r"\D", "", phone.translate(_DIGITS))
    if phone.strip().startswith("+") and digits[:2] in ("66", "95"):
        digits = digits[2:]
    return digits.lstrip("0")


def score_site(slug: str, gold: dict[str, Any], base: str) -> dict[str, Any]:
    settings = Settings(allow_private=True, respect_robots=False, host_delay=0.0)
    start = f"{base}/{slug}/{gold.get('start', 'index.html')}"
    result = asyncio.run(discover(start, settings, pages=10))
    rows = {urlsplit(f.detail).path.split(f"/{slug}/", 1)[-1]: f for f in result.found}
    counts = {"listed": 0, "found": 0, "website": 0, "phone": 0, "chrome": 0}
    misses = []
    labelled = set()
    for business in gold["businesses"]:
        counts["listed"] += 1
        detail = business["detail"]
        labelled.add(detail)
        row = rows.get(detail) or next((f for f in result.found
                                        if f.name.strip() == business["name"].strip()), None)
        if row is None:
            misses.append(f"{slug}: not found {business['name']!r} ({detail})")
            continue
        counts["found"] += 1
        want = business.get("website_domain") or _domain(business.get("website") or "")
        if _domain(row.website) == want or (not want and not row.website):
            counts["website"] += 1
        else:
            misses.append(f"{slug}: {business['name']!r} website {row.website!r}, "
                          f"expected {business.get('website')!r}")
        phone = business.get("phone") or ""
        if (_digits(row.phone) == _digits(phone)) if phone else not row.phone:
            counts["phone"] += 1
        else:
            misses.append(f"{slug}: {business['name']!r} phone {row.phone!r}, "
                          f"expected {phone!r}")
    for path, row in rows.items():
        if path not in labelled and row.name not in {b["name"] for b in gold["businesses"]}:
            counts["chrome"] += 1
            misses.append(f"{slug}: chrome row {row.name!r} ({path})")
    return {"counts": counts, "misses": misses, "stopped": result.stopped}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "heldout"], default=None)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--set", choices=sorted(SETS), default="a",
                        help="which labelled set (a: directories, b: directories_b, "
                             "c: directories_c)")
    args = parser.parse_args()
    here = SETS[args.set]
    gold = json.loads((here / "gold.json").read_text(encoding="utf-8"))
    split = json.loads((here / "split.json").read_text(encoding="utf-8"))
    with SiteServer(here) as server:
        base = server.url("").rstrip("/")
        for part in ([args.split] if args.split else ["dev", "heldout"]):
            total = {"listed": 0, "found": 0, "website": 0, "phone": 0, "chrome": 0}
            print(f"== {part}")
            for slug in split[part]:
                if slug not in gold:
                    continue
                result = score_site(slug, gold[slug], base)
                for key, value in result["counts"].items():
                    total[key] += value
                c = result["counts"]
                print(f"  {slug:<24} found {c['found']}/{c['listed']}  website "
                      f"{c['website']}  phone {c['phone']}  chrome {c['chrome']}")
                if args.misses:
                    for line in result["misses"]:
                        print("     ", line)
            n = max(1, total["listed"])
            print(f"  total: found {total['found']}/{total['listed']} "
                  f"({total['found'] / n:.3f}), website {total['website'] / n:.3f}, "
                  f"phone {total['phone'] / n:.3f}, chrome rows {total['chrome']}")


if __name__ == "__main__":
    main()
