"""Target strings to URLs: what a salesperson types (a bare domain, host:port/path, a
full-width host, an octal or hex IPv4, ``http:\\host``) read the way a browser reads it,
and redirect ``Location`` values resolved the same way.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from functools import lru_cache
from pathlib import Path
from urllib.parse import SplitResult, unquote, urljoin, urlsplit, urlunsplit

import httpx

from leadengine.errors import FetchError
from leadengine.website.decode import ReadProblem
from leadengine.website.network_errors import short_reason

#: Saved pages; a target ending like this is a file name, never a bare domain.
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_FILE_SUFFIXES = (*HTML_SUFFIXES, ".txt", ".csv", ".md", ".pdf", ".json")

_HOST = (r"(?P<host>localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]"
         r"|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})")


#: ``host:port[/path]``: the explicit port makes it an address, whatever the path ends with.
_BARE_HOST_PORT = re.compile(_HOST + r":\d{1,5}(?:[/?#]\S*)?", re.I)


#: ``host[/path]`` without a scheme (a file name like ``menu.html`` is ruled out first).
_BARE_HOST = re.compile(_HOST + r"(?:[/?#]\S*)?", re.I)


#: ``http:`` or ``https:`` and whatever slashes follow (browsers read ``\\`` as ``/``).
_HTTP_PREFIX = re.compile(r"(?i)^(https?):[/\\]*")


_SCHEME = re.compile(r"(?i)^([a-z][a-z0-9+.\-]*):")


#: One part of an IPv4 address as ``inet_aton`` and browsers read it: hex, octal, decimal.
_IPV4_PART = re.compile(r"(?i)0x[0-9a-f]*|[0-9]+")


def normalise_target(target: str) -> str:
    """A URL for ``target``: http(s) URLs as given, files and folders as file://, a bare
    ``example.com[:port][/path]`` as https, ``localhost`` or an IP address as http.

    The host of an http(s) URL is put in the form it is connected to: full-width or
    other compatibility characters NFKC-normalised, and an IPv4 address written in
    octal, hex or as one number (``0177.0.0.1``, ``0x7f.1``, ``2130706433``) in dotted
    decimal, so the SSRF guard and the messages see the address the OS would use. Any
    input gives a URL httpx accepts or a FetchError, never another exception.
    """
    # Spaces and control characters around a URL are dropped, as browsers and urlsplit do.
    target = target.strip(_SPACE)
    if not target:
        raise FetchError(target, "empty URL")
    if _HTTP_PREFIX.match(target):
        # A function of the string alone (no file system): kept, since a batch asks it
        # four times per URL and reading it through httpx costs about 0.1 ms.
        return _normalise_http(target)
    return _normalise(target)


#: What is stripped around a target: spaces and control characters.
_SPACE = "".join(map(chr, range(33)))


@lru_cache(maxsize=4096)
def _normalise_http(target: str) -> str:
    return _normalise(target)


def _normalise(target: str) -> str:
    try:
        url = _target_url(target)
        if urlsplit(url).scheme in ("http", "https"):
            url = _canonical_http(target, url)
    except (ValueError, OSError) as exc:
        # urlsplit refuses a broken [IPv6] host or a netloc that NFKC turns into "/" or
        # "@"; the OS refuses a path with a NUL or one that is too long.
        raise FetchError(target, f"not a valid URL or file name ({short_reason(exc)})") from None
    return url


def _target_url(target: str) -> str:
    prefix = _HTTP_PREFIX.match(target)
    if prefix and target[prefix.end():prefix.end() + 1] not in ("", "?", "#"):
        # "http:\\host\path", "https:/host": browsers read every form as scheme://host.
        front, rest = _split_query(target[prefix.end():])
        target = f"{prefix.group(1)}://{front.replace(chr(92), '/')}{rest}"
    parts = urlsplit(target)
    if parts.scheme in ("http", "https"):
        if not parts.hostname or " " in target:
            raise FetchError(target, "not a valid URL (expected e.g. https://example.com)")
        return target
    if parts.scheme == "file":
        path = unquote(parts.path)
        if not path.startswith("/"):
            raise FetchError(target, "not a valid file URL (expected e.g. "
                                     "file:///home/me/page.html)")
        return Path(path).as_uri()
    if Path(target).exists():
        return Path(target).resolve().as_uri()
    # Checked before the file-name rule and the scheme rule: urlsplit reads the host of
    # "example.com:8080/x" as a scheme, and "localhost:8080/menu.html" is no file name.
    bare = _BARE_HOST_PORT.fullmatch(target)
    if bare:
        return _bare_url(target, bare.group("host"))
    if not parts.scheme and (target.lower().endswith(_FILE_SUFFIXES)
                             or target.startswith((".", "/", "~"))):
        raise FetchError(target, "file not found")
    bare = _BARE_HOST.fullmatch(target)
    if not parts.scheme and bare:
        return _bare_url(target, bare.group("host"))
    if parts.scheme and parts.scheme not in ("http", "https", "file") and len(parts.scheme) > 1:
        raise FetchError(target, f"unsupported URL scheme {parts.scheme!r} (use http or https)")
    raise FetchError(target, "not a valid URL or existing file (expected e.g. "
                             "https://example.com or page.html)")


def _bare_url(target: str, host: str) -> str:
    # A local development server rarely has a certificate; every public site has one.
    local = host.lower() == "localhost" or host[0].isdigit() or host.startswith("[")
    return f"{'http' if local else 'https'}://{target}"


def _split_query(url: str) -> tuple[str, str]:
    cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))
    return url[:cut], url[cut:]


def _canonical_http(target: str, url: str) -> str:
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 -- urlsplit checks the range only when asked
    except ValueError:
        raise FetchError(target, "not a valid URL (the port is not a number from 0 to "
                                 "65535)") from None
    host = parts.hostname or ""
    canonical = host
    if not host.isascii():
        canonical = unicodedata.normalize("NFKC", host).lower()
        if any(char in canonical for char in "/\\?#@:[]% "):
            raise FetchError(target, "not a valid host name")
    canonical = _ipv4_number(canonical) or canonical
    if canonical != host:
        url = urlunsplit(parts._replace(netloc=_with_host(parts, canonical)))
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise FetchError(target, f"not a valid URL ({short_reason(exc)})") from None
    if not parsed.host:
        raise FetchError(target, "not a valid URL (expected e.g. https://example.com)")
    return url


def _with_host(parts: SplitResult, host: str) -> str:
    userinfo, at, hostport = parts.netloc.rpartition("@")
    port = ""
    if hostport.startswith("["):
        port = hostport[hostport.find("]") + 1:]
    elif ":" in hostport:
        port = ":" + hostport.rsplit(":", 1)[1]
    return f"{userinfo}{at}{host}{port}"


def _ipv4_number(host: str) -> str | None:
    """``host`` as a dotted-decimal IPv4 address if the OS resolver would read it as one
    (WHATWG's IPv4 parser: 1-4 parts, each decimal, 0x-hex or 0-octal), else None."""
    labels = host.split(".")
    if len(labels) > 1 and labels[-1] == "":
        labels.pop()
    if not 1 <= len(labels) <= 4 or not all(_IPV4_PART.fullmatch(part) for part in labels):
        return None
    numbers = [_ipv4_part(part) for part in labels]
    if any(n is None for n in numbers):
        return None
    *front, last = [n for n in numbers if n is not None]
    if any(n > 255 for n in front) or last >= 256 ** (4 - len(front)):
        return None
    value = last + sum(n << (8 * (3 - i)) for i, n in enumerate(front))
    return str(ipaddress.IPv4Address(value))


def _ipv4_part(part: str) -> int | None:
    if part[:2].lower() == "0x":
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        return int(part, 8) if set(part) <= set("01234567") else None
    return int(part)


def redirect_url(base: str, location: str) -> str:
    """The http(s) URL a redirect's ``Location`` leads to from ``base``, read the way
    browsers read it (``\\`` as ``/``, ``http:\\\\host`` as ``http://host``); a ReadProblem
    for anything else."""
    location = re.sub(r"[\t\n\r]", "", location).strip(" \x00\x0b\x0c")
    front, rest = _split_query(location)
    location = front.replace("\\", "/") + rest
    scheme = _SCHEME.match(location)
    if scheme:
        name, after = scheme.group(1).lower(), location[scheme.end():]
        if name not in ("http", "https"):
            raise ReadProblem(f"redirects to an unsupported address ({name}: URL)")
        if name == urlsplit(base).scheme and not after.startswith("/"):
            location = after  # "http:page" on an http page is a relative link
        else:
            location = f"{name}://{after.lstrip('/')}"
    try:
        url = urljoin(base, location)
        if " " in urlsplit(url).netloc:
            raise ValueError("a space in the host name")
        # Servers do send "/our menu.html"; browsers send it as %20.
        return normalise_target(url.replace(" ", "%20"))
    except (FetchError, ValueError) as exc:
        raise ReadProblem(f"redirects to an invalid address ({short_reason(exc)})") from None


#: The last part of an address that is a page about the business, not the business: an
#: "About us" or "Contact" page given as a lead is its site's lead.
_SITE_PAGE = re.compile(
    r"^(?:about|about[-_ ]?us|aboutus|about[-_]company|who[-_ ]we[-_ ]are|our[-_ ]story|"
    r"contact|contacts|contact[-_ ]?us|contactus|contact[-_]info|get[-_]in[-_]touch|"
    r"เกี่ยวกับเรา|ติดต่อเรา|ติดต่อ|ကျွန်ုပ်တို့အကြောင်း|ဆက်သွယ်ရန်|お問い合わせ|会社概要|"
    r"lien-he|gioi-thieu|hubungi-kami|tentang-kami)"
    r"(?:\.(?:html?|php|aspx?|jsp))?$", re.I)
_INDEX = re.compile(r"^(?:index|default|home)\.(?:html?|php|aspx?)$", re.I)


def lead_path(path: str) -> str:
    """The path of the lead a page's ``path`` belongs to: an "About us" or "Contact"
    page's folder ("/about-us/" -> "/", "/th/contact.html" -> "/th/",
    "/cafe/about" -> "/cafe/" on a platform that hosts many sites); any other path as
    it is."""
    parts = path.split("/")
    while parts and (not parts[-1] or _INDEX.match(parts[-1])):
        parts.pop()  # a trailing "/" or "index.html"
    if len(parts) < 2 or not _SITE_PAGE.match(unquote(parts[-1])):
        return path
    return "/".join(parts[:-1]) + "/"


def lead_target(target: str) -> str:
    """``target`` as the lead it belongs to: an http(s) "About us" or "Contact" page as
    its site's (see :func:`lead_path`, the query dropped with it), a saved one as the
    ``index.html`` beside it or above it when there is one; anything else as given."""
    url = normalise_target(target)
    if url.startswith("file:"):
        file = Path(unquote(urlsplit(url).path))
        for folder in (file.parent, file.parent.parent):
            page = file.name if folder == file.parent else file.parent.name
            home = folder / "index.html"
            if file.is_file() and _SITE_PAGE.match(page) and home.is_file() and home != file:
                return home.as_uri()
        return url
    parts = urlsplit(url)
    path = lead_path(parts.path or "/")
    if path == (parts.path or "/"):
        return url
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def normalise_url(raw: str) -> str:
    """The canonical form used for de-duplication, storage and ``show``: http(s) with
    the host in lower case and at least a "/" path, or file:// for a local file (a
    folder stands for its index.html); an "About us" or "Contact" page as its site's
    lead (:func:`lead_target`). Accepts what ``evaluate`` accepts."""
    url = lead_target(raw) if raw.strip() else ""
    if url.startswith("file:"):
        return _file_key(url)
    if not url.lower().startswith(("http://", "https://")):
        raise FetchError(raw or "(empty)", "not a web address (expected http(s) URL or "
                                           "domain)")
    parts = urlsplit(url)
    path = parts.path or "/"
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    try:
        port = parts.port
    except ValueError:
        raise FetchError(raw, "not a valid URL (the port is not a number from 0 to "
                              "65535)") from None
    netloc = host + (f":{port}" if port else "")
    return (f"{parts.scheme.lower()}://{netloc}{path}"
            + (f"?{parts.query}" if parts.query else ""))


def _file_key(url: str) -> str:
    path = Path(unquote(urlsplit(url).path)).resolve()
    if path.is_dir() and (path / "index.html").is_file():
        path = path / "index.html"
    return path.as_uri()
