"""Many URLs: read the input as a stream, evaluate concurrently, commit each result.

Input is a text file of URLs (one per line, ``#`` comments allowed) or a CSV with a
``url`` (or ``website``) column, separated by commas, semicolons or tabs; every other
CSV column passes through to the output. ``-`` reads standard input, and a pipe works
as well as a file. A row may also name a saved HTML file or a folder (its index.html).
Rows are normalised and de-duplicated; a row without a valid URL is recorded as an
error, never dropped, and so is a line that cannot be read (an unbalanced quote does
not fold the rows after it into one: see :func:`read_rows`). Rows already done under
the same knowledge-base version, provider and model are skipped, so re-running an
interrupted batch resumes it; failed rows are retried with ``retry_failed``. Each run
keeps its own counters in the store.

Several batches may run on one database at once: each URL is claimed in the store
before it is fetched, so no URL is evaluated (or paid for) twice; a URL another live
run has claimed is left to it ("being evaluated by run N"). A run beats every few
seconds, so one whose process was killed is seen as interrupted and its URLs come back.
"""

from __future__ import annotations

import asyncio
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
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple, cast
from urllib.parse import unquote, urlsplit

import httpx

from leadengine.config import Settings
from leadengine.errors import (
    ConfigError,
    FetchError,
    LeadEngineError,
    QuotaExhausted,
    StoreError,
)
from leadengine.evaluators import make_evaluator
from leadengine.knowledge import KnowledgeBase
from leadengine.pipeline import evaluate_site
from leadengine.redact import safe_message
from leadengine.store import CLAIM_LEASE, Store
from leadengine.web.fetch import make_client, normalise_target
from leadengine.web.robots import RobotsPolicy
from leadengine.web.site import load_site

URL_COLUMNS = ("url", "website", "site", "homepage")
#: Separators a CSV may use, in order of preference when the header has as many of each.
DELIMITERS = (",", ";", "\t")
#: Reads standard input instead of a file.
STDIN = "-"
#: Seconds between two writes of a run's skip counters while the input is read.
_SKIPS_EVERY = 2.0
#: What the summary shows of a failure reason.
_REASON_CHARS = 100
#: The location an error message starts with (a URL or a file path, then ": ").
_LOCATION = re.compile(r"^(?:[a-z][\w+.-]*://\S*|[/~.]\S*): ", re.I)
#: Seconds between two heartbeats of a run (the store takes a run silent for two
#: minutes as dead, see ``leadengine.store.STALE_AFTER``).
HEARTBEAT_EVERY = 5.0
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


@dataclass
class Summary:
    """What a batch did."""

    run_id: int = 0
    total: int = 0
    done: int = 0
    failed: int = 0
    #: Rows skipped because they are stored as evaluated.
    skipped_done: int = 0
    #: Rows skipped because they are stored as failed (``retry_failed`` retries them).
    skipped_failed: int = 0
    duplicates: int = 0
    #: Rows left to another live run that had claimed them, and those runs.
    elsewhere: int = 0
    elsewhere_runs: set[int] = field(default_factory=set)
    tokens: int = 0
    cost_usd: float = 0.0
    #: Pages taken from stored snapshots instead of fetched (``max_age``).
    reused_pages: int = 0
    #: Failures of this run by reason (the message without its URL).
    reasons: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)

    @property
    def skipped(self) -> int:
        """Rows not attempted because a result is stored."""
        return self.skipped_done + self.skipped_failed

    @property
    def handled(self) -> int:
        """Rows finished one way or another."""
        return self.done + self.failed + self.skipped + self.duplicates + self.elsewhere

    def skips(self) -> dict[str, int]:
        """The skip counters, as the store keeps them."""
        return {"skipped_done": self.skipped_done, "skipped_failed": self.skipped_failed,
                "duplicates": self.duplicates, "elsewhere": self.elsewhere}

    def fail(self, reason: str) -> None:
        self.failed += 1
        self.reasons[safe_message(reason)] += 1

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        retry = (f"{self.skipped_failed} previously failed (use --retry-failed), "
                 if self.skipped_failed else "")
        others = ""
        if self.elsewhere:
            ids = sorted(self.elsewhere_runs)
            named = (f"run {ids[0]}" if len(ids) == 1
                     else "runs " + ", ".join(str(i) for i in ids))
            others = f"{self.elsewhere} being evaluated by {named}, "
        return (f"run {self.run_id}: {self.done} evaluated, {self.failed} failed, "
                f"{self.skipped_done} already done, {retry}{self.duplicates} duplicates, "
                f"{others}{self.reused_pages} pages from snapshots; "
                f"{elapsed:.1f}s, {self.tokens} tokens, ${self.cost_usd:.4f}")

    def failure_lines(self, top: int = 5) -> list[str]:
        """The most common failure reasons with their counts, most common first."""
        if not self.reasons:
            return []
        lines = [f"{count:>6}  {_shorten(reason)}"
                 for reason, count in self.reasons.most_common(top)]
        others = self.failed - sum(count for _, count in self.reasons.most_common(top))
        if others:
            lines.append(f"{others:>6}  (other reasons)")
        return ["failures by reason:", *lines]


def failure_reason(error: str, where: str = "") -> str:
    """The reason of a failure message, without the URL or file it names, so that the
    same failure on many sites groups together ("HTTP 404 Not Found")."""
    if where and error.startswith(f"{where}: "):
        reason = error[len(where) + 2:]
    else:
        reason = _LOCATION.sub("", error, count=1)
    return reason.strip() or error


def _shorten(text: str, limit: int = _REASON_CHARS) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def read_rows(path: Path | str, encoding: str | None = None) -> Iterator[Row]:
    """The input's rows, one at a time (a file of any length is never held in memory).
    ``-`` is standard input; pipes and process substitution are read once, in order.

    The text is UTF-8 (with or without a BOM), or UTF-16 with a BOM; ``encoding`` names
    another (``cp874`` for a sheet Excel saved on Thai Windows). Text that is not in the
    encoding, a NUL byte or a workbook saved under a .csv name is a :class:`ConfigError`
    naming the file and the line: never guessed, so names never turn into mojibake.
    A line that cannot be a row (an unbalanced quote, an over-long URL cell) is a row
    with an ``error``, recorded as a failure; the lines after it are read as usual."""
    name = _input_name(path)
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


def _input_name(path: Path | str) -> str:
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
    raw = _shorten(" ".join(text.split()), _RAW_CHARS) if text.strip() else f"(line {line})"
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


def normalise_url(raw: str) -> str:
    """The canonical form used for de-duplication, storage and ``show``: http(s) with
    the host in lower case and at least a "/" path, or file:// for a local file (a
    folder stands for its index.html). Accepts what ``evaluate`` accepts."""
    url = normalise_target(raw) if raw.strip() else ""
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


async def run_batch(input_path: Path | str, settings: Settings, kb: KnowledgeBase,
                    store: Store, retry_failed: bool = False, concurrency: int = 16,
                    per_host: int = 2, log_every: float = 5.0,
                    on_progress: Callable[[Summary], None] | None = None,
                    max_age: float | None = None,
                    rows: Iterable[Row] | None = None, encoding: str | None = None,
                    lease: float = CLAIM_LEASE) -> Summary:
    """Evaluate every row of ``input_path`` and store each result as it completes.
    ``on_progress`` is called after every row (a progress bar); without it a plain
    progress line goes to stderr every ``log_every`` seconds. Every fetched page is kept
    as a snapshot; with ``max_age`` (seconds) a snapshot that recent is reused. ``rows``:
    the input already read (a pipe read once to count it); ``input_path`` then only
    names the run. ``encoding``: the input's, when it is not UTF-8 (see
    :func:`read_rows`). ``lease``: how long a URL stays claimed without a heartbeat.
    Cancelling the task marks the run ``interrupted``."""
    if rows is None and input_is_seekable(input_path):
        # A file is read through once before any work, so a file that cannot be read
        # (its encoding, a NUL byte) stops here and not halfway through the batch.
        collections.deque(read_rows(input_path, encoding), maxlen=0)
    source = iter(read_rows(input_path, encoding) if rows is None else rows)
    # The first row is read before the run is recorded: a missing file or a CSV without
    # a url column is an error, not an empty 'interrupted' run in the history.
    first = list(itertools.islice(source, 1))
    snapshots = store.snapshots(max_age)
    evaluator = make_evaluator(settings, kb)
    provider, model = evaluator.name, evaluator.model
    # Runs killed without a word give their claimed URLs back now, not in minutes.
    store.settle()
    # Failures stored from now on are another live run's: not ours to retry.
    retry_since = time.time() if retry_failed else None
    summary = Summary()
    summary.run_id = store.start_run(_input_name(input_path), kb.version, provider, model)
    queue: asyncio.Queue[tuple[Row, str] | None] = asyncio.Queue(maxsize=concurrency * 2)
    hosts: dict[str, asyncio.Semaphore] = {}
    host_next: dict[str, float] = {}
    host_locks: dict[str, asyncio.Lock] = {}
    seen: set[str] = set()
    known = store.states(kb.version, provider, model)
    last_log = [time.monotonic()]
    last_skips = [time.monotonic()]

    def log_progress() -> None:
        if on_progress is not None:
            on_progress(summary)
            return
        if time.monotonic() - last_log[0] >= log_every:
            last_log[0] = time.monotonic()
            print(f"progress: {safe_message(summary.line())}", file=sys.stderr, flush=True)

    def skipped() -> None:
        # Skips have no row of their own to count them with, so they are written now
        # and then (and at the end); a killed run loses at most a few seconds of them.
        if time.monotonic() - last_skips[0] >= _SKIPS_EVERY:
            last_skips[0] = time.monotonic()
            store.count_skips(summary.run_id, summary.skips())
        log_progress()

    def failed(row: Row, url: str, message: str, where: str) -> None:
        # Messages can carry a server's reply or a URL's user:password: both the stored
        # error and the summary's reason are redacted.
        message, where = safe_message(message), safe_message(where)
        store.save_error(summary.run_id, row.index, url, kb.version, provider, model,
                         message, row.passthrough)
        summary.fail(failure_reason(message, where))

    async def produce() -> None:
        try:
            await read_input()
        finally:
            for _ in range(concurrency):
                await queue.put(None)

    async def read_input() -> None:
        for row in itertools.chain(first, source):
            summary.total += 1
            if row.error is not None:
                failed(row, row.raw or f"(line {row.line})", row.error,
                       f"{_input_name(input_path)} line {row.line}")
                log_progress()
                continue
            try:
                url = normalise_url(row.raw)
            except LeadEngineError as exc:
                failed(row, row.raw or f"(row {row.index})", str(exc),
                       exc.url if isinstance(exc, FetchError) else row.raw)
                log_progress()
                continue
            if url in seen:
                summary.duplicates += 1
                skipped()
                continue
            seen.add(url)
            if not count_stored(known.get(url)):
                await queue.put((row, url))

    def count_stored(state: str | None) -> bool:
        """Count a row whose result is stored as skipped; False: it is to do."""
        if state == "done":
            summary.skipped_done += 1
        elif state == "failed" and not retry_failed:
            summary.skipped_failed += 1
        else:
            return False
        skipped()
        return True

    def claimed(url: str) -> bool:
        """Claim ``url`` for this run; a row another run has, or has finished since the
        batch started, is counted and skipped."""
        claim = store.claim(summary.run_id, url, kb.version, provider, model,
                            retry_since=retry_since, lease=lease)
        if claim.state == "claimed":
            return True
        if claim.state == "elsewhere":
            summary.elsewhere += 1
            if claim.run_id is not None:
                summary.elsewhere_runs.add(claim.run_id)
        elif claim.state == "done":
            summary.skipped_done += 1
        else:
            summary.skipped_failed += 1
        skipped()
        return False

    async def polite(url: str) -> None:
        """Sites on one host start at least ``host_delay`` apart."""
        host = urlsplit(url).hostname or ""
        async with host_locks.setdefault(host, asyncio.Lock()):
            wait = host_next.get(host, 0.0) - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            host_next[host] = time.monotonic() + settings.host_delay

    async def work(client: httpx.AsyncClient, robots: RobotsPolicy) -> None:
        while (item := await queue.get()) is not None:
            row, url = item
            if not claimed(url):
                continue
            local = url.startswith("file:")
            # Local files have no host to be polite to: they skip the per-host gate.
            gate = (contextlib.nullcontext() if local else
                    hosts.setdefault(urlsplit(url).hostname or "", asyncio.Semaphore(per_host)))
            try:
                async with gate:
                    if not local:
                        await polite(url)
                    site = await load_site(url, settings, client, snapshots, robots)
                    evaluation = await evaluate_site(site, kb, settings, evaluator)
            except QuotaExhausted:
                raise  # every later row would fail alike: stop, this row stays to do
            except LeadEngineError as exc:
                failed(row, url, str(exc), exc.url if isinstance(exc, FetchError) else url)
            except Exception as exc:
                failed(row, url, f"unexpected {type(exc).__name__}: {exc}", url)
            else:
                data = evaluation.model_dump(mode="json")
                store.save_evaluation(summary.run_id, row.index, url, kb.version, data,
                                      row.passthrough)
                summary.done += 1
                summary.tokens += sum(v for k, v in evaluation.tokens.items()
                                      if k in ("prompt", "completion"))
                summary.cost_usd += evaluation.cost_usd or 0.0
            log_progress()

    async def heartbeat() -> None:
        # Shows the run alive (its counters with it) and renews its claims; a beat the
        # database refuses is tried again at the next one.
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY)
            with contextlib.suppress(StoreError):
                store.heartbeat(summary.run_id, summary.skips(), lease)

    beat = asyncio.create_task(heartbeat())
    try:
        async with make_client(settings) as client:
            # One robots.txt per origin for the whole batch, not one per row.
            robots = RobotsPolicy(client, settings)
            await asyncio.gather(produce(), *(work(client, robots)
                                              for _ in range(concurrency)))
    except BaseException:
        beat.cancel()
        store.finish_run(summary.run_id, "interrupted", summary.skips())
        raise
    beat.cancel()
    store.finish_run(summary.run_id, "done", summary.skips())
    summary.reused_pages = snapshots.reused
    return summary
