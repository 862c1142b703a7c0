"""Fetching and extraction against real HTTP servers on 127.0.0.1 (and files)."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import ssl
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leadengine import ContentError, FetchError, LeadEngineError, Settings
from leadengine.website.extract import extract
from leadengine.website.fetch import (
    Page,
    ReadProblem,
    decode_html,
    fetch_page,
    http_error,
    make_client,
    normalise_target,
    redirect_url,
    sniff_binary,
)
from leadengine.website.load import load_site
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


# -- address forms, local special files, binaries named .html ------------------------------


@pytest.mark.parametrize("target,url", [
    ("http://0177.0.0.1/", "http://127.0.0.1/"),            # octal
    ("http://2130706433", "http://127.0.0.1"),               # one number
    ("http://0x7f.1:8080/x", "http://127.0.0.1:8080/x"),     # hex, short form
    ("http://127.1/", "http://127.0.0.1/"),
    ("http://user@0x7F.0.0.1:81/?q=1", "http://user@127.0.0.1:81/?q=1"),
    ("http://ｅｘａｍｐｌｅ．ｃｏｍ/menu", "http://example.com/menu"),  # full-width (NFKC)
    ("http:\\\\example.com\\about", "http://example.com/about"),
    ("https:/example.com/", "https://example.com/"),
    ("HTTP:///example.com/a\\b?x=\\y", "HTTP://example.com/a/b?x=\\y"),
    ("http://example.com/", "http://example.com/"),
    ("http://1.2.3.4.5/", "http://1.2.3.4.5/"),               # not an IPv4 form: a name
])
def test_address_forms_become_the_address_connected_to(target: str, url: str) -> None:
    assert normalise_target(target) == url


@pytest.mark.parametrize("target,message", [
    ("http://[::1/", r"not a valid URL or file name \(Invalid IPv6 URL\)"),
    ("http://ｅｘａｍｐｌｅ．ｃｏｍ／ｅｖｉｌ/", "not a valid URL or file name"),
    ("http://example.com:99999/", r"not a valid URL \(the port is not a number from 0 "),
    ("http://exa\x00mple.com/", "not a valid"),
    ("page\x00.html", "not a valid URL or file name|file not found"),
    ("x" * 5000 + ".html", "not a valid URL or file name|file not found"),
])
def test_unusable_targets_are_one_line_errors(target: str, message: str) -> None:
    with pytest.raises(FetchError, match=message) as caught:
        normalise_target(target)
    assert "\n" not in str(caught.value).replace(target, "")


#: Text made of the pieces URLs break on: slashes both ways, brackets, full-width and
#: other NFKC-mapped characters, NUL, IPv4 number forms.
_URLISH = st.lists(st.sampled_from([
    *"abcxyz019.:/\\?#@[]%-_~ \t\x00éｅ．１。ß\u200b\u0130／＠", "http://", "https://", "file:",
    "0x", "//", "::", "localhost", "127.0.0.1", "0177", "2130706433"]), max_size=20).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=60), _URLISH,
                 st.tuples(st.sampled_from(["http://", "https://", "http:\\\\", "file://", ""]),
                           _URLISH).map("".join)))
def test_any_text_is_a_url_or_a_clear_error(text: str) -> None:
    try:
        url = normalise_target(text)
    except LeadEngineError:
        return
    assert isinstance(url, str)
    if url.lower().startswith("file:"):
        return
    assert url.lower().startswith(("http://", "https://")), url
    assert httpx.URL(url).host, url


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=60), _URLISH,
                 st.tuples(st.sampled_from(["http:", "https:", "//", "/", "\\\\", "ftp:"]),
                           _URLISH).map("".join)))
def test_any_redirect_location_is_a_url_or_a_clear_error(location: str) -> None:
    try:
        url = redirect_url("http://shop.example/a/b?c=d", location)
    except ReadProblem as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert url.startswith(("http://", "https://")) and httpx.URL(url).host, url


@pytest.mark.timeout(10)
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    with pytest.raises(FetchError, match=r"page\.html: is a named pipe \(FIFO\), not a "
                                         r"regular file; not read$"):
        fetch(str(fifo))


@pytest.mark.timeout(10)
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused_without_reading_it(device: str) -> None:
    if not Path(device).exists():
        pytest.skip(f"no {device}")
    with pytest.raises(FetchError, match=f"^{device}: is a character device, not a regular "
                                         "file; not read$"):
        fetch(device)


@pytest.mark.parametrize("content,said", [
    (b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "a PDF document"),
    (b"PK\x03\x04\x14\x00\x06\x00word/document.xml", r"a ZIP archive \(or Office document\)"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "a PNG image"),
    (b"GIF89a\x01\x00", "a GIF image"),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", "a JPEG image"),
    (bytes(range(256)) * 4, "binary data"),
])
def test_a_binary_named_html_is_named_for_what_it_is(tmp_path: Path, content: bytes,
                                                      said: str) -> None:
    page = tmp_path / "index.html"
    page.write_bytes(content)
    with pytest.raises(ContentError, match=f"index\\.html: is {said}, not an HTML page$"):
        fetch(str(page))


def test_text_that_only_looks_odd_is_not_called_binary() -> None:
    assert sniff_binary("<html><body>ไทย</body></html>".encode("utf-16")) is None
    thai = "<html><body>ไทย</body></html>".encode("utf-16-le")
    assert sniff_binary(thai, "text/html; charset=UTF-16LE") is None
    assert sniff_binary(bytes(5000)) is None  # zeros: what a zero bomb decodes to
    assert sniff_binary(b"<p>\x1b$B;d\x1b(B</p>") is None  # ISO-2022-JP escapes
    assert sniff_binary(b"<html><body>" + b"\x01" * 3 + b"text" * 200) is None


def test_a_regular_file_still_reads_normally(tmp_path: Path) -> None:
    page = tmp_path / "menu.html"
    page.write_text("<html><body><p>Menu</p></body></html>", encoding="utf-8")
    assert "Menu" in fetch(str(page)).html


def _cert_error() -> ssl.SSLCertVerificationError:
    error = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate "
                                            "verify failed: certificate has expired")
    error.verify_message = "certificate has expired"
    return error


def _raised(exc: BaseException, cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as inner:
            raise exc from inner
    except BaseException as outer:
        return outer


_REQUEST = httpx.Request("GET", "https://shop.example/")


@pytest.mark.parametrize("exc,said", [
    (_raised(httpx.ReadError("", request=_REQUEST), ConnectionResetError(104, "reset")),
     "connection reset by the server"),
    (_raised(httpx.ConnectError("", request=_REQUEST), OSError(-2, "Name does not resolve")),
     r"cannot connect: host name not found \(DNS\)"),
    (_raised(httpx.ConnectError("", request=_REQUEST), socket.gaierror(-3, "Try again")),
     r"cannot connect: host name not found \(DNS\)"),
    (_raised(httpx.ConnectError("", request=_REQUEST), OSError(101, "Network is unreachable")),
     "cannot connect: network unreachable"),
    (_raised(httpx.ConnectError("x", request=_REQUEST), _cert_error()),
     r"cannot connect: the site's security certificate is not valid \(certificate has "
     r"expired\)"),
    (httpx.ConnectTimeout("", request=_REQUEST), r"timed out after 15s while connecting"),
    (httpx.ReadTimeout("", request=_REQUEST), r"timed out after 15s waiting for the server"),
    (httpx.PoolTimeout("", request=_REQUEST), "timed out after 15s waiting for a free conn"),
    (httpx.RemoteProtocolError("Server disconnected without sending a response."),
     "the server closed the connection without answering"),
    (httpx.RemoteProtocolError("peer closed connection without sending complete message body: "
                               "incomplete chunked read"),
     "the server closed the connection before the page was complete"),
    (httpx.ReadError("", request=_REQUEST), "the connection broke off"),
    (httpx.InvalidURL("Invalid port: 'x'"), r"not a valid URL \(Invalid port: 'x'\)"),
])
def test_network_errors_are_said_in_words(exc: BaseException, said: str) -> None:
    assert isinstance(exc, Exception)
    error = http_error("https://shop.example/", exc, Settings())
    assert re.fullmatch(f"https://shop\\.example/: {said}.*", str(error)), str(error)
    assert "\n" not in str(error) and "Error" not in str(error)


@pytest.mark.parametrize("broken", [
    httpx.RemoteProtocolError("Server disconnected without sending a response."),
    httpx.ReadError(""), httpx.WriteError("")])
def test_a_get_whose_connection_broke_before_any_answer_is_sent_once_more(
        broken: Exception) -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        if len(calls) == 1:
            raise broken
        page = b"<html><head><title>Shop</title></head><body><p>A shop.</p></body></html>"
        return httpx.Response(200, headers={"Content-Type": "text/html"},
                              stream=httpx.ByteStream(page))

    async def go() -> Page:
        async with make_client(Settings(), transport=httpx.MockTransport(handler)) as client:
            return await fetch_page("https://shop.example/", Settings(), client=client)

    assert "Shop" in asyncio.run(go()).html
    assert calls == ["https://shop.example/"] * 2


def test_a_connection_that_breaks_twice_is_a_failure_not_a_loop() -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        raise httpx.ReadError("", request=request)

    async def go() -> Page:
        async with make_client(Settings(), transport=httpx.MockTransport(handler)) as client:
            return await fetch_page("https://shop.example/", Settings(), client=client)

    with pytest.raises(FetchError, match="the connection broke off"):
        asyncio.run(go())
    assert len(calls) == 2
