"""A batch's input: a list of leads read as a stream of rows.

A text file of URLs (one per line, ``#`` comments allowed) or a CSV with a ``url``
(or ``website``) column, separated by commas, semicolons or tabs; every other CSV
column passes through to the output. ``-`` reads standard input, and a pipe works as
well as a file. Nothing is lost without a word: a line that cannot be read (an
unbalanced quote, a NUL byte, an over-long cell) becomes a row with an ``error``, and
a file that is not text in a known encoding is refused with its line and the fix.
"""

from __future__ import annotations

import collections
import contextlib
import csv
import itertools
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from leadengine.batch.lines import FIELD_LIMIT as FIELD_LIMIT
from leadengine.batch.lines import STDIN as STDIN
from leadengine.batch.lines import _codec, _Line, _open_input, _physical_lines
from leadengine.errors import (
    ConfigError,
)

URL_COLUMNS = ("url", "website", "site", "homepage")
#: Separators a CSV may use, in order of preference when the header has as many of each.
DELIMITERS = (",", ";", "\t")
#: A URL cell longer than this is a bad row (browsers and CRMs stop near 2,000).
MAX_URL_CHARS = 2000
#: Lines one quoted CSV cell may span (an address or a note typed with line breaks);
#: a quote open for longer is taken as one that never closes.
MAX_RECORD_LINES = 100
#: What a bad row keeps of its line, as the row's name among the failures.
_RAW_CHARS = 200
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
