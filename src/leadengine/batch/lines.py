"""A lead list's physical lines: the file (or stdin) opened without blocking on a pipe,
its encoding found from a BOM or named with the fix, workbooks and NUL bytes refused with
their line, over-long lines cut without reading them whole.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import re
import sys
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple, cast

from leadengine.errors import (
    ConfigError,
)

#: Seconds between two writes of a run's skip counters while the input is read.
#: What the summary shows of a failure reason.
#: The location an error message starts with (a URL or a file path, then ": ").
#: Seconds between two heartbeats of a run (the store takes a run silent for two
#: minutes as dead, see ``leadengine.store.STALE_AFTER``).
#: The longest line or CSV field read (characters); the csv module's default, 128 KiB,
#: would stop a whole file at one long notes cell.
FIELD_LIMIT = 10 * 2**20

#: Reads standard input instead of a file.
STDIN = "-"


#: Files that are not text, by their first bytes.
_BINARY_FORMATS = ((b"PK\x03\x04", "an Excel workbook (.xlsx) or another zip file"),
                   (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls)"),
                   (b"%PDF", "a PDF"))


#: A CR not followed by LF (a line end in old Mac files).
_BARE_CR = re.compile(r"(?<=\r)(?!\n)")


def _codec(encoding: str) -> str:
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise ConfigError(f"unknown encoding {encoding!r} (e.g. utf-8, cp874 for Thai "
                          "Windows, cp1252 for Western Windows)") from None


@contextlib.contextmanager
def _open_input(path: Path | str) -> Iterator[IO[bytes] | IO[str]]:
    """The input as bytes (so its encoding is checked here, line by line); a standard
    input that has no bytes underneath is given as text."""
    if str(path) == STDIN:
        buffer = getattr(sys.stdin, "buffer", None)
        # stdin stays open for whoever owns it: nothing here closes it.
        yield sys.stdin if buffer is None else _buffered(buffer)
        return
    try:
        opened = Path(path).open("rb")  # noqa: SIM115 (closed below)
    except FileNotFoundError:
        raise ConfigError(f"input file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path} is a folder: give a CSV or text file of URLs "
                          "(a folder of HTML belongs on a row of its own)") from None
    with opened:
        yield opened


class _Unbuffered(io.RawIOBase):
    """A byte stream without ``peek`` (a test's stdin) as a raw one to buffer; closing
    it leaves the stream open."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._read = getattr(stream, "read1", stream.read)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _buffered(stream: IO[bytes]) -> IO[bytes]:
    return stream if hasattr(stream, "peek") else io.BufferedReader(_Unbuffered(stream))


class _Line(NamedTuple):
    """One physical line: its number (the first line is 1) and its text, with its end.
    ``too_long``: longer than :data:`FIELD_LIMIT` (its text was not kept)."""

    number: int
    text: str
    too_long: bool = False


def _physical_lines(stream: IO[bytes] | IO[str], name: str,
                    encoding: str | None) -> Generator[_Line, None, None]:
    if isinstance(stream, io.TextIOBase):
        yield from _text_lines(cast(IO[str], stream), name, "text")
        return
    stream = cast(IO[bytes], stream)
    head = _peek(stream)
    _refuse_binary(head, name)
    # A BOM says what the text is, whatever --encoding says; UTF-16 without a BOM shows
    # as a NUL byte next to every ASCII character.
    codec = _bom_codec(head) or encoding or _bomless_utf16(head) or "utf-8"
    if codec.startswith(("utf-16", "utf-32")):
        # Their line breaks are two or four bytes: the codec splits the lines.
        text = io.TextIOWrapper(stream, encoding=codec, newline="")
        try:
            yield from _text_lines(text, name, codec)
        finally:
            text.detach()  # the stream is closed by whoever opened it
        return
    yield from _decoded_lines(stream, name, codec, explicit=encoding is not None)


def _peek(stream: IO[bytes]) -> bytes:
    peek = getattr(stream, "peek", None)
    return bytes(peek(4096)[:4096]) if peek is not None else b""


def _refuse_binary(head: bytes, name: str) -> None:
    for magic, what in _BINARY_FORMATS:
        if head.startswith(magic):
            raise ConfigError(f"{name} line 1: this is {what}, not CSV or text: open it and "
                              "save it as \"CSV UTF-8\"")


def _bom_codec(head: bytes) -> str | None:
    # UTF-32's BOMs first: UTF-32-LE's starts with UTF-16-LE's. (A UTF-8 BOM is read as
    # the first character and dropped from the first line.)
    for bom, codec in ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                       (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
                       (codecs.BOM_UTF8, "utf-8")):
        if head.startswith(bom):
            return codec
    return None


def _bomless_utf16(head: bytes) -> str | None:
    sample = head[:1024]
    sample = sample[:len(sample) - len(sample) % 2]
    if len(sample) < 4:
        return None
    even, odd = sample[0::2], sample[1::2]
    for zeros, others, codec in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        # ASCII characters (delimiters, URLs) have a zero high byte; letters of Thai or
        # Burmese do not, so a third is enough when the text decodes as readable.
        if zeros.count(0) >= 0.3 * len(zeros) and others.count(0) <= 0.05 * len(others):
            text = sample.decode(codec, errors="replace")
            readable = sum(1 for char in text if char.isprintable() or char in "\r\n\t")
            if readable >= 0.95 * len(text):
                return codec
    return None


def _decoded_lines(stream: IO[bytes], name: str, codec: str,
                   explicit: bool) -> Iterator[_Line]:
    """Lines of an ASCII-compatible encoding: split on b"\\n" (never part of another
    character in these), then decoded one by one, so an error names its line."""
    number = 0
    while data := stream.readline(FIELD_LIMIT + 1):
        if len(data) > FIELD_LIMIT and not data.endswith(b"\n"):
            _skip_line(stream)
            number += 1
            yield _Line(number, "", too_long=True)
            continue
        try:
            text = data.decode(codec)
        except UnicodeDecodeError as exc:
            raise ConfigError(_not_decodable(name, number + 1, data[max(0, exc.start - 2000):]
                                             + stream.read(16384), codec, explicit)) from None
        if number == 0:
            text = text.removeprefix("\ufeff")
        for piece in _split_bare_cr(text):
            number += 1
            yield _checked(_Line(number, piece), name)


def _text_lines(stream: IO[str], name: str, codec: str) -> Iterator[_Line]:
    number = 0
    while True:
        try:
            text = stream.readline(FIELD_LIMIT + 1)
        except UnicodeError:
            raise ConfigError(f"{name} line {number + 1}: not valid {codec} text (is the file "
                              "cut short?): save the sheet again as \"CSV UTF-8\"") from None
        if not text:
            return
        number += 1
        if len(text) > FIELD_LIMIT and not text.endswith(("\n", "\r")):
            while (rest := stream.readline(FIELD_LIMIT)) and not rest.endswith(("\n", "\r")):
                pass
            yield _Line(number, "", too_long=True)
            continue
        if number == 1:
            text = text.removeprefix("\ufeff")
        yield _checked(_Line(number, text), name)


def _skip_line(stream: IO[bytes]) -> None:
    """Read past the rest of an over-long line without keeping it."""
    while (rest := stream.readline(FIELD_LIMIT)) and not rest.endswith(b"\n"):
        pass


def _split_bare_cr(text: str) -> list[str]:
    # A line that ends in a lone CR (old Mac files) is a line of its own, as it is for
    # the csv module when Python opens a file with newline="".
    if "\r" not in text[:-1]:
        return [text]
    return [piece for piece in _BARE_CR.split(text) if piece]


def _checked(line: _Line, name: str) -> _Line:
    if "\x00" in line.text:
        raise ConfigError(f"{name} line {line.number} contains a NUL byte: is this a "
                          "spreadsheet saved as .csv? Save it as \"CSV UTF-8\"")
    return line


def _not_decodable(name: str, line: int, sample: bytes, codec: str, explicit: bool) -> str:
    if explicit:
        return (f"{name} line {line}: not {codec} text: check --encoding, or save the sheet "
                "as \"CSV UTF-8\"")
    guess = _guess_encoding(sample)
    if guess is None:
        return f"{name} line {line}: not UTF-8 text: save the sheet as \"CSV UTF-8\""
    label, codec_name = guess
    return (f"{name} line {line}: not UTF-8 text (it looks like {label}): save the sheet "
            f"as \"CSV UTF-8\", or run again with --encoding {codec_name}")


def _guess_encoding(sample: bytes) -> tuple[str, str] | None:
    """What a sheet that is not UTF-8 was most likely saved as, of the two this engine's
    users meet: Thai Windows (cp874), where a Thai word is a run of high bytes, and
    Western Windows (cp1252), where an accented letter sits alone between ASCII ones.
    (charset-normalizer takes short Thai cp874 text for Korean.)"""
    high = [i for i, byte in enumerate(sample) if byte >= 0x80]
    if not high:
        return None
    runs = sum(1 for i in high if (i > 0 and sample[i - 1] >= 0x80)
               or (i + 1 < len(sample) and sample[i + 1] >= 0x80))
    candidates = ([("Thai Windows text", "cp874"), ("Western Windows text", "cp1252")]
                  if runs >= 0.6 * len(high) else [("Western Windows text", "cp1252")])
    for label, codec in candidates:
        try:
            sample.decode(codec)
        except UnicodeDecodeError:
            continue
        return label, codec
    return None
