"""A batch's input: a list of leads read as a stream of rows.

A text file of URLs (one per line, ``#`` comments allowed) or a CSV with a ``url``
(or ``website``) column, separated by commas, semicolons or tabs; every other CSV
column passes through to the output. ``-`` reads standard input, and a pipe works as
well as a file. Nothing is lost without a word: a line that cannot be read (an
unbalanced quote, a NUL byte, an over-long cell) becomes a row with an ``error``, and
a file that is not text in a known encoding is refused with its line and the fix.
"""

from __future__ import annotations

import codecs
import collections
import contextlib
import csv
import io
import itertools
import os
import re
import stat
import sys
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple, cast

from leadengine.errors import (
    ConfigError,
)

URL_COLUMNS = ("url", "website", "site", "homepage")
#: Separators a CSV may use, in order of preference when the header has as many of each.
DELIMITERS = (",", ";", "\t")
#: Reads standard input instead of a file.
STDIN = "-"
#: Seconds between two writes of a run's skip counters while the input is read.
#: What the summary shows of a failure reason.
#: The location an error message starts with (a URL or a file path, then ": ").
#: Seconds between two heartbeats of a run (the store takes a run silent for two
#: minutes as dead, see ``leadengine.store.STALE_AFTER``).
#: The longest line or CSV field read (characters); the csv module's default, 128 KiB,
#: would stop a whole file at one long notes cell.
FIELD_LIMIT = 10 * 2**20
#: A URL cell longer than this is a bad row (browsers and CRMs stop near 2,000).
MAX_URL_CHARS = 2000
#: Lines one quoted CSV cell may span (an address or a note typed with line breaks);
#: a quote open for longer is taken as one that never closes.
MAX_RECORD_LINES = 100
#: What a bad row keeps of its line, as the row's name among the failures.
_RAW_CHARS = 200
#: Files that are not text, by their first bytes.
_BINARY_FORMATS = ((b"PK\x03\x04", "an Excel workbook (.xlsx) or another zip file"),
                   (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls)"),
                   (b"%PDF", "a PDF"))
#: A CR not followed by LF (a line end in old Mac files).
_BARE_CR = re.compile(r"(?<=\r)(?!\n)")
#: A cell that reads as a web address (to tell a swallowed row from a cell's text).
_URL_LIKE = re.compile(r"(?:https?://\S+|(?:localhost|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,})"
                       r"(?::\d{1,5})?(?:[/?#]\S*)?)$", re.I)


@dataclass(frozen=True)
class Row:
    """One input row."""

    index: int
    raw: str
    passthrough: dict[str, str]
    #: The input line the row starts on (the first line of the file is 1).
    line: int = 0
    #: Why the row cannot be read (it is then recorded as a failure, not evaluated).
    error: str | None = None


def read_rows(path: Path | str, encoding: str | None = None) -> Iterator[Row]:
    """The input's rows, one at a time (a file of any length is never held in memory).
    ``-`` is standard input; pipes and process substitution are read once, in order.

    The text is UTF-8 (with or without a BOM), or UTF-16 with a BOM; ``encoding`` names
    another (``cp874`` for a sheet Excel saved on Thai Windows). Text that is not in the
    encoding, a NUL byte or a workbook saved under a .csv name is a :class:`ConfigError`
    naming the file and the line: never guessed, so names never turn into mojibake.
    A line that cannot be a row (an unbalanced quote, an over-long URL cell) is a row
    with an ``error``, recorded as a failure; the lines after it are read as usual."""
    name = input_name(path)
    if encoding is not None:
        encoding = _codec(encoding)
    with _open_input(path) as stream, \
            contextlib.closing(_physical_lines(stream, name, encoding)) as lines:
        yield from _parse_rows(lines, name)


def input_is_seekable(path: Path | str) -> bool:
    """Whether the input can be read twice (a regular file; not stdin, not a pipe)."""
    if str(path) == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # reading it says what is wrong, with the usual message


def input_name(path: Path | str) -> str:
    """How messages name the input (``<stdin>`` for ``-``)."""
    return "<stdin>" if str(path) == STDIN else str(path)


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


def _parse_rows(lines: Iterator[_Line], name: str) -> Iterator[Row]:
    # Only the first line is looked at ahead: a pipe cannot seek back to the start.
    first = next(lines, _Line(1, ""))
    if first.too_long:
        raise ConfigError(f"{name} line 1 is longer than {FIELD_LIMIT // 2**20} MB: not a "
                          "CSV or a list of URLs")
    delimiter = sniff_delimiter(first.text)
    try:
        fieldnames = next(csv.reader([first.text], delimiter=delimiter), [])
    except csv.Error as exc:
        raise ConfigError(f"{name} line 1: the header cannot be read as CSV ({exc})") from None
    header = [c.strip().lower() for c in fieldnames]
    column = next((c for c in URL_COLUMNS if c in header), None)
    if column is None and Path(name).suffix.lower() in (".csv", ".tsv"):
        raise ConfigError(f"{name}: no url column (expected one of: "
                          f"{', '.join(URL_COLUMNS)})")
    if column is None:
        yield from _text_rows(itertools.chain([first], lines), name)
        return
    yield from _CsvRows(lines, name, delimiter, fieldnames, header.index(column))


def _text_rows(lines: Iterable[_Line], name: str) -> Iterator[Row]:
    for line in lines:
        text = line.text.strip()
        if line.too_long:
            yield _bad_row(line.number, line.number, name, "",
                           f"is longer than {FIELD_LIMIT // 2**20} MB: not a web address")
        elif len(text) > MAX_URL_CHARS:
            yield _bad_row(line.number, line.number, name, text, _too_long_url(text))
        elif text and not text.startswith("#"):
            yield Row(index=line.number, raw=text, passthrough={}, line=line.number)


def _bad_row(index: int, line: int, name: str, text: str, problem: str) -> Row:
    """A row that cannot be read: recorded as a failure under (the start of) its text."""
    raw = _clip(" ".join(text.split()), _RAW_CHARS) if text.strip() else f"(line {line})"
    return Row(index=index, raw=raw, passthrough={}, line=line,
               error=f"{name} line {line}: {problem}")


def _too_long_url(cell: str) -> str:
    return (f"the url cell is {len(cell):,} characters long; a web address has at most "
            f"{MAX_URL_CHARS:,} (is a column shifted?)")


class _Runaway(Exception):
    """A quoted field went on for more lines or characters than a cell can hold."""


class _LongLine(Exception):
    """A line longer than :data:`FIELD_LIMIT`."""


class _Replay:
    """Physical lines for csv.reader, one at a time; the lines of the record being read
    are kept, so that a record found bad can be given back and read again line by line
    (a pipe cannot seek back)."""

    def __init__(self, lines: Iterator[_Line]) -> None:
        self._lines = lines
        self._again: collections.deque[_Line] = collections.deque()
        #: The lines of the current record.
        self.taken: list[_Line] = []
        #: The input ended inside the current record (a quoted field never closed).
        self.ended = False
        self._chars = 0

    def __iter__(self) -> _Replay:
        return self

    def __next__(self) -> str:
        line = self._again.popleft() if self._again else next(self._lines, None)
        if line is None:
            self.ended = bool(self.taken)
            raise StopIteration
        self.taken.append(line)
        self._chars += len(line.text)
        if line.too_long:
            raise _LongLine if len(self.taken) == 1 else _Runaway
        if len(self.taken) > MAX_RECORD_LINES or self._chars > FIELD_LIMIT:
            raise _Runaway
        return line.text

    def next_record(self) -> None:
        self.taken, self.ended, self._chars = [], False, 0

    def give_back(self, lines: list[_Line]) -> None:
        self._again.extendleft(reversed(lines))


class _CsvRows:
    """The rows of a CSV, where a quote that never closes cannot fold rows together.

    A quoted cell may hold line breaks (an address typed with Alt+Enter), so a record
    can span lines. It is taken as an unbalanced quote instead when the quote runs to
    the end of the input or past :data:`MAX_RECORD_LINES`, or when a line it swallowed
    reads as a row of its own (a URL where the url column is). Then the line where it
    starts is recorded as a bad row, and reading goes on with the next line: one lead
    is reported for fixing instead of several lost without a word."""

    def __init__(self, lines: Iterator[_Line], name: str, delimiter: str,
                 fieldnames: list[str], url_index: int) -> None:
        # A notes cell may be long; the csv module's default limit (128 KiB) would stop
        # the whole file. Lines are capped at the same size before they get here.
        if csv.field_size_limit() < FIELD_LIMIT:
            csv.field_size_limit(FIELD_LIMIT)
        self.name, self.delimiter = name, delimiter
        self.fieldnames, self.url_index = fieldnames, url_index
        self.url_key = fieldnames[url_index]
        self.lines = _Replay(lines)

    def __iter__(self) -> Iterator[Row]:
        reader = csv.reader(self.lines, delimiter=self.delimiter)
        index = 0
        while True:
            self.lines.next_record()
            problem = None
            try:
                record = next(reader, None)
            except _LongLine:
                record, problem = [], (f"is longer than {FIELD_LIMIT // 2**20} MB: not a row "
                                       "of a lead list")
            except _Runaway:
                record, problem = [], self._unbalanced(runaway=True)
            except csv.Error as exc:
                record, problem = [], f"cannot be read as CSV ({exc})"
            taken = self.lines.taken
            if record is None or not taken:
                return
            if problem is None and (self.lines.ended or self._swallowed(record, taken)):
                problem = self._unbalanced(runaway=False)
            if problem is not None:
                # The record's other lines are read again, as rows of their own; the
                # reader is new, since an error may have left the old one mid-record.
                self.lines.give_back(taken[1:])
                reader = csv.reader(self.lines, delimiter=self.delimiter)
                index += 1
                yield _bad_row(index, taken[0].number, self.name,
                               "" if taken[0].too_long else taken[0].text, problem)
                continue
            if not record:
                continue  # a blank line
            index += 1
            yield self._row(index, taken[0].number, record)

    def _row(self, index: int, line: int, record: list[str]) -> Row:
        # As csv.DictReader: missing cells are empty, cells past the header dropped.
        values = dict(zip(self.fieldnames, record, strict=False))
        for key in self.fieldnames[len(record):]:
            values[key] = ""
        raw = values.pop(self.url_key).strip()
        if len(raw) > MAX_URL_CHARS:
            return _bad_row(index, line, self.name, raw, _too_long_url(raw))
        return Row(index=index, raw=raw, passthrough=values, line=line)

    def _unbalanced(self, runaway: bool) -> str:
        taken = self.lines.taken
        first, last = taken[0].number, taken[-1].number
        if runaway:
            span = f"lines {first}-{last} and on would be read as one row"
        elif self.lines.ended:
            span = (f"lines {first}-{last}, to the end of the file, would be read as one row"
                    if last > first else "it runs to the end of the file")
        else:
            span = f"lines {first}-{last} would be read as one row"
        return (f"unbalanced quote (a \" opens a field that never closes; {span}): fix the "
                "quote; the other lines are read as usual")

    def _swallowed(self, record: list[str], taken: list[_Line]) -> bool:
        """Whether a record over several lines holds rows that a stray quote swallowed.
        A real cell with line breaks, as Excel writes it, leaves one line that reads as
        a row (the one with the URL, which stays in the url column) and quotes that
        follow the rules. Two lines that read as rows, one that does while the record
        has no URL in place, or a quote followed by text (the stray quote closed by the
        next row's) all say the rows were folded."""
        if len(taken) < 2:
            return False
        rows = sum(1 for line in taken if self._reads_as_row(line.text))
        url = record[self.url_index] if self.url_index < len(record) else ""
        if rows >= 2 or (rows == 1 and not _URL_LIKE.match(url.strip())):
            return True
        try:
            collections.deque(csv.reader([line.text for line in taken],
                                         delimiter=self.delimiter, strict=True), maxlen=0)
        except csv.Error:
            return True
        return False

    def _reads_as_row(self, text: str) -> bool:
        try:
            parsed = next(csv.reader([text], delimiter=self.delimiter), [])
        except csv.Error:
            parsed = []
        # Split plainly too: a line swallowed after a stray quote may hold one itself.
        for cells in (parsed, text.split(self.delimiter)):
            if self.url_index < len(cells) and _URL_LIKE.match(cells[self.url_index].strip()):
                return True
        return False


def sniff_delimiter(header: str) -> str:
    """The separator of a CSV header line: the most frequent of :data:`DELIMITERS`
    outside quotes (a comma when there is none: a one-column file)."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in header:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
