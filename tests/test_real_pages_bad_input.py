"""Bad input for the facts of real pages: a script nobody reads, a JavaScript shell, a
page of 5,000 phone-like numbers and a broken service catalogue each give a profile or a
one-line error, never a crash or a minute of CPU."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from leadengine.cli import cli
from leadengine.website import services
from leadengine.website.fetch import Page
from leadengine.website.profile import build_profile
from leadengine.website.signal_rules import MAX_CONTACTS
from leadengine.website.site import site_from_page


def profile_of(html: str, url: str = "https://unknown.test/") -> tuple[dict[str, Any], float]:
    page = Page(url=url, final_url=url, status=200, content_type="text/html", html=html,
                encoding="utf-8", truncated=False, fetched_at=0.0)
    start = time.process_time()
    profile = build_profile(site_from_page(page))
    return profile, time.process_time() - start


def test_a_page_in_a_script_nobody_reads() -> None:
    tifinagh = "ⵜⴰⵎⴰⵣⵉⵖⵜ ⴰⵙⵏⵓⵏ ⵏ ⵓⴼⵓⵙ " * 400
    private = "\ue000\ue001\ue002 " * 400
    profile, cpu = profile_of(f"<html><head><title>{tifinagh[:30]}</title></head><body>"
                              f"<p>{tifinagh}</p><p>{private}</p><p>+212 5 22 45 67 89</p>"
                              "</body></html>")
    assert profile["language"] == "und"
    assert profile["business"]["category"]["value"] == "other"
    assert profile["contacts"]["phones"] == ["+212522456789"]
    assert profile["location"]["country"]["value"] == "MA"
    assert cpu < 2


def test_a_javascript_shell_is_other_with_low_confidence_not_a_guess() -> None:
    profile, cpu = profile_of('<!doctype html><html lang="en"><head><title>Vite + React + TS'
                              '</title><script type="module" src="/assets/index-4f2a.js">'
                              '</script></head><body><div id="root"></div></body></html>')
    category = profile["business"]["category"]
    assert category["value"] == "other" and category["confidence"] <= 0.2
    assert "JavaScript shell" in category["evidence"]
    assert profile["location"] == {"street_address": None, "city": None, "region": None,
                                   "postal_code": None, "country": None}
    assert not any(profile["signals"][name] for name in ("phone", "email", "address"))
    assert cpu < 2


def test_five_thousand_phone_like_numbers_are_capped_and_quick() -> None:
    rows = "".join(f"<tr><td>Dealer {i}</td><td>02-{100 + i % 900:03d}-{i:04d}</td>"
                   f"<td>Order no. 0{i:09d}</td></tr>" for i in range(5000))
    profile, cpu = profile_of(f"<html><head><title>Dealers</title></head><body><table>{rows}"
                              "</table></body></html>", url="https://dealers.co.th/")
    assert 0 < len(profile["contacts"]["phones"]) <= MAX_CONTACTS
    assert all(p.startswith("+662") for p in profile["contacts"]["phones"])
    assert cpu < 2


@pytest.fixture
def broken_catalogue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    path = tmp_path / "services.yaml"
    path.write_text("services:\n  - {name: Calendly, kind: booking, patterns: ['calendly(']}\n",
                    encoding="utf-8")
    monkeypatch.setattr(services, "CATALOGUE", path)
    services._default_catalogue.cache_clear()
    yield path
    services._default_catalogue.cache_clear()


def test_a_broken_catalogue_is_a_one_line_error_naming_the_entry(broken_catalogue: Path,
                                                                  tmp_path: Path) -> None:
    page = tmp_path / "index.html"
    page.write_text("<html><body><p>Hello</p></body></html>", encoding="utf-8")
    result = CliRunner().invoke(cli, ["profile", str(page), "--json"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {broken_catalogue}: service 'Calendly': pattern 'calendly(' is not a valid "
        "regular expression (missing ), unterminated subpattern at position 8)\n")
