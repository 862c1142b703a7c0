"""Fetching and extraction against real HTTP servers on 127.0.0.1 (and files)."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest

from leadengine import ContentError, FetchError, Settings
from leadengine.web.extract import extract
from leadengine.web.fetch import Page, decode_html, fetch_page, make_client, normalise_target
from leadengine.web.site import load_site
from tests.conftest import SITES
from tests.fakes.site_server import SiteServer


def fetch(target: str, **settings: object) -> Page:
    """Fetch with the SSRF guard off: the fixture sites live on 127.0.0.1."""
    settings.setdefault("allow_private", True)
    return asyncio.run(fetch_page(target, Settings(**settings)))  # type: ignore[arg-type]


def test_fetches_a_page_and_extracts_title_and_text(sites: SiteServer) -> None:
    page = fetch(sites.url("bangkok-dental-fb-only/"))
    assert page.status == 200 and page.content_type == "text/html"
    assert page.final_url == sites.url("bangkok-dental-fb-only/")
    extracted = extract(page)
    assert "Smile Bright Dental" in extracted.title
    assert "Sukhumvit" in extracted.text


def test_local_file_and_file_url_and_directory() -> None:
    index = SITES / "bangkok-dental-fb-only" / "index.html"
    for target in (str(index), index.as_uri(), str(index.parent)):
        page = fetch(target)
        assert "Smile Bright Dental" in page.html
        assert page.url.startswith("file://")


def test_missing_file_is_not_a_url() -> None:
    for target in ("no/such/page.html", "missing.html", "./site"):
        with pytest.raises(FetchError, match=f"^{target}: file not found$"):
            fetch(target)


@pytest.mark.parametrize("target,message", [
    ("", "empty URL"),
    ("http://", "not a valid URL"),
    ("https://exa mple.com/", "not a valid URL"),
    ("ftp://example.com/x", "unsupported URL scheme 'ftp'"),
    ("just some words", "not a valid URL"),
])
def test_malformed_urls(target: str, message: str) -> None:
    with pytest.raises(FetchError, match=message):
        normalise_target(target)


def test_bare_domain_becomes_https() -> None:
    assert normalise_target("example.com/about") == "https://example.com/about"


def test_http_errors(sites: SiteServer) -> None:
    with pytest.raises(FetchError, match=r"/missing\.html: HTTP 404 Not Found$"):
        fetch(sites.url("missing.html"))
    sites.route("/boom", status=503, body="<h1>down</h1>")
    with pytest.raises(FetchError, match="HTTP 503"):
        fetch(sites.url("boom"))


def test_pdf_and_image_are_not_html(sites: SiteServer) -> None:
    sites.route("/brochure.pdf", body=b"%PDF-1.7 ...", content_type="application/pdf")
    sites.route("/logo.png", body=b"\x89PNG...", content_type="image/png")
    with pytest.raises(ContentError, match="is application/pdf, not an HTML page"):
        fetch(sites.url("brochure.pdf"))
    with pytest.raises(ContentError, match="is image/png, not an HTML page"):
        fetch(sites.url("logo.png"))


def test_empty_page(sites: SiteServer) -> None:
    sites.route("/empty", body=b"")
    with pytest.raises(ContentError, match="the page is empty"):
        fetch(sites.url("empty"))
    sites.route("/blank", body=b"<html><body>   </body></html>")
    page = fetch(sites.url("blank"))
    with pytest.raises(ContentError, match="no text to evaluate"):
        extract(page)


def test_redirects_are_followed_up_to_the_cap(sites: SiteServer) -> None:
    sites.route("/old", redirect="/bangkok-dental-fb-only/")
    assert fetch(sites.url("old")).final_url == sites.url("bangkok-dental-fb-only/")
    sites.route("/loop-a", redirect="/loop-b")
    sites.route("/loop-b", redirect="/loop-a")
    with pytest.raises(FetchError, match=r"too many redirects \(more than 3\)"):
        fetch(sites.url("loop-a"), max_redirects=3)


def test_timeout(sites: SiteServer) -> None:
    sites.route("/slow", body="<p>late</p>", delay=2.0)
    with pytest.raises(FetchError, match=r"timed out after 0\.3s"):
        fetch(sites.url("slow"), timeout=0.3)


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(FetchError, match="cannot connect: connection refused"):
        fetch(f"http://127.0.0.1:{port}/")


def test_dns_failure_is_reported_in_words() -> None:
    def no_such_host(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    async def run() -> Page:
        settings = Settings(allow_private=True)
        async with make_client(settings, transport=httpx.MockTransport(no_such_host)) as c:
            return await fetch_page("https://no-such-host.example/", settings, client=c)

    with pytest.raises(FetchError, match=r"cannot connect: host name not found \(DNS\)"):
        asyncio.run(run())


def test_byte_cap_truncates_instead_of_reading_everything(sites: SiteServer) -> None:
    sites.route("/big", body="<html><body>" + "<p>row of text</p>" * 100_000 + "</body></html>")
    page = fetch(sites.url("big"), max_bytes=50_000)
    assert page.truncated and len(page.html) == 50_000


def test_gzip_bomb_is_capped_after_decompression(sites: SiteServer) -> None:
    sites.route("/bomb", gzip_bomb=200_000_000)
    page = fetch(sites.url("bomb"), max_bytes=1_000_000)
    assert page.truncated and len(page.html) == 1_000_000


def test_wrong_charset_declaration_still_decodes() -> None:
    thai = "<html><head><meta charset='utf-8'></head><body>ร้านนวดแผนไทย</body></html>"
    text, encoding = decode_html(thai.encode("cp874"), "text/html; charset=utf-8")
    assert "ร้านนวดแผนไทย" in text
    assert encoding != "utf-8"


def test_header_charset_is_used_when_the_bytes_are_not_utf8() -> None:
    text, encoding = decode_html("<p>café</p>".encode("latin-1"), "text/html; charset=latin-1")
    assert (text, encoding) == ("<p>café</p>", "latin-1")


def test_site_content_carries_text_and_detected_signals(sites: SiteServer) -> None:
    site = asyncio.run(load_site(sites.url("bangkok-dental-fb-only/"),
                                 Settings(allow_private=True)))
    assert site.content.startswith(f"Website: {sites.url('bangkok-dental-fb-only/')}\nTitle: ")
    assert "Detected signals:" in site.content
    assert "no tracking scripts detected" in site.content
    assert site.signals["facebook_only"] and not site.signals["contact_form"]


def test_long_content_is_cut_at_the_configured_size(sites: SiteServer) -> None:
    site = asyncio.run(load_site(str(SITES / "bangkok-clinic-mature"),
                                 Settings(max_content_chars=300)))
    body = site.content.split("\n\n", 1)[1].split("\n\nDetected signals:")[0]
    assert len(body) <= 306 and body.endswith("[...]")


def test_examples_page_is_in_the_repo() -> None:
    assert (Path(__file__).parents[1] / "examples" / "smile-bright-dental" / "index.html"
            ).is_file()
