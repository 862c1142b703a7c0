"""Response bodies decoded under the byte cap: every ``Content-Encoding`` layer (gzip,
deflate, br, zstd) is undone in :data:`DECODE_STEP` steps, so a compression bomb never
expands in one call, and reading stops at the cap.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Generator, Iterator
from typing import Any, Protocol

import httpx

#: Decompressed output per decompressor call: the most a single step can add to memory.
DECODE_STEP = 64 * 1024


#: Stacked Content-Encodings accepted ("gzip, gzip" is legal but rare; more is an attack).
MAX_ENCODINGS = 2


class ReadProblem(Exception):
    """Why a response could not be read, in words; the caller adds the URL."""


async def read_body(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The decoded body, at most ``max_bytes`` of it, and whether it was cut.

    httpx's decoders decompress a whole network read at once (a 2 kB read of a stacked
    gzip bomb is gigabytes), so the raw bytes are decoded here, layer by layer, in
    steps of :data:`DECODE_STEP`, and reading stops at the cap.
    """
    decoder = BodyDecoder(response.headers.get_list("content-encoding", split_commas=True))
    body = bytearray()
    # Compressed data is never much larger than what it decodes to: a stream that keeps
    # sending bytes that decode to nothing is cut too.
    raw_budget = 2 * max_bytes + DECODE_STEP
    async for raw in response.aiter_raw():
        raw_budget -= len(raw)
        if _take(body, decoder.feed(raw), max_bytes) or raw_budget < 0:
            return bytes(body), True
    return bytes(body), False


def _take(body: bytearray, pieces: Iterator[bytes], limit: int) -> bool:
    """Append ``pieces`` to ``body`` up to ``limit``; True once a byte beyond it arrives
    (the rest of ``pieces`` is then never decompressed)."""
    for piece in pieces:
        room = limit - len(body)
        if len(piece) > room:
            body += piece[:room]
            return True
        body += piece
    return False


def _load_brotli() -> Any:
    # Brotli >= 1.2 (or brotlicffi with the same API) can cap the output of one call;
    # an older one cannot, so it is not used at all.
    for name in ("brotli", "brotlicffi"):
        try:
            module = importlib.import_module(name)
            module.Decompressor().process(b"", output_buffer_limit=1)
        except Exception:  # an import or API failure of an optional package
            continue
        return module
    return None


def _load_zstd() -> Any:
    # Python 3.14's compression.zstd, or its backport: decompress() takes max_length.
    for name in ("compression.zstd", "backports.zstd"):
        try:
            module = importlib.import_module(name)
            module.ZstdDecompressor(options={module.DecompressionParameter.window_log_max: 23})
        except Exception:  # an import or API failure of an optional package
            continue
        return module
    return None


_brotli = _load_brotli()


_zstd = _load_zstd()


def supported_encodings() -> list[str]:
    """The Content-Encodings :func:`read_body` decodes, for the Accept-Encoding header."""
    return ["gzip", "deflate"] + ["br"] * (_brotli is not None) + ["zstd"] * (_zstd is not None)


class _Layer(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decoded output for ``data``, in pieces of about DECODE_STEP bytes at most."""
        ...


class _Inflate:
    """gzip (all members) or deflate (zlib-wrapped or raw), DECODE_STEP bytes per call."""

    def __init__(self, gzip: bool) -> None:
        self.gzip = gzip
        self.obj: zlib._Decompress | None = None
        #: Bytes held until the stream's first two bytes tell its format.
        self.head = b""
        self.members = 0
        self.ended = False

    def feed(self, data: bytes) -> Iterator[bytes]:
        while not self.ended:
            if self.obj is None:
                self.head += data
                if len(self.head) < 2:
                    return
                data, self.head = self.head, b""
                self.obj = self._start(data)
                if self.obj is None:
                    self.ended = True  # bytes after the last gzip member: ignored
                    return
            data = yield from self._inflate(self.obj, data)
            if self.obj is not None or not data:
                return

    def _start(self, head: bytes) -> zlib._Decompress | None:
        if self.gzip:
            if self.members and not head.startswith(b"\x1f\x8b"):
                return None
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        zlib_wrapped = head[0] & 0x0F == 8 and ((head[0] << 8) | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)

    def _inflate(self, obj: zlib._Decompress, data: bytes) -> Generator[bytes, None, bytes]:
        # Returns what follows the end of the stream, if it ended.
        while True:
            out = obj.decompress(data, DECODE_STEP)
            data = obj.unconsumed_tail
            if out:
                yield out
            if obj.eof:
                self.obj = None
                self.members += 1
                self.ended = not self.gzip
                return obj.unused_data
            if not data and len(out) < DECODE_STEP:
                return b""


class _Brotli:
    def __init__(self) -> None:
        self.obj = _brotli.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self.obj.is_finished():
            return
        out = self.obj.process(data, output_buffer_limit=DECODE_STEP)
        while out:
            yield out
            if self.obj.is_finished():
                return
            out = self.obj.process(b"", output_buffer_limit=DECODE_STEP)


class _Zstd:
    def __init__(self) -> None:
        self.obj = self._new()

    @staticmethod
    def _new() -> Any:
        # An 8 MiB window (RFC 9659's limit for HTTP): a frame asking for more would
        # make the decoder allocate up to 2 GiB before writing a byte.
        return _zstd.ZstdDecompressor(options={_zstd.DecompressionParameter.window_log_max: 23})

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self.obj.eof:
                data = self.obj.unused_data + data
                if not data:
                    return
                self.obj = self._new()
            out = self.obj.decompress(data, max_length=DECODE_STEP)
            data = b""
            if out:
                yield out
            if not self.obj.eof and (self.obj.needs_input or not out):
                return


def _decode_errors() -> tuple[type[Exception], ...]:
    errors: list[type[Exception]] = [zlib.error, EOFError]
    if _brotli is not None:
        errors.append(_brotli.error)
    if _zstd is not None:
        errors.append(_zstd.ZstdError)
    return tuple(errors)


_DECODE_ERRORS = _decode_errors()


class BodyDecoder:
    """Undoes a response's Content-Encodings, last applied first, one capped step at a
    time: every layer hands the next at most DECODE_STEP bytes per call, so however
    deep or dense the layers, only what the reader asks for is ever decompressed."""

    def __init__(self, encodings: list[str]) -> None:
        names = [name.strip().lower() for name in encodings]
        names = [name for name in names if name and name != "identity"]
        if len(names) > MAX_ENCODINGS:
            raise ReadProblem(f"too many content encodings ({len(names)}: "
                              f"{', '.join(names)[:60]}); at most {MAX_ENCODINGS} are accepted")
        self.names = names
        self.layers = [self._layer(name) for name in reversed(names)]

    @staticmethod
    def _layer(name: str) -> _Layer:
        if name in ("gzip", "x-gzip"):
            return _Inflate(gzip=True)
        if name == "deflate":
            return _Inflate(gzip=False)
        if name == "br" and _brotli is not None:
            return _Brotli()
        if name == "zstd" and _zstd is not None:
            return _Zstd()
        raise ReadProblem(f"the response is compressed with {name[:40]!r}, which cannot be "
                          "decoded")

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded bytes ``data`` gives, lazily, in pieces of at most DECODE_STEP."""
        try:
            yield from self._push(0, data)
        except _DECODE_ERRORS:
            raise ReadProblem(f"the server sent corrupt {', '.join(self.names)} data"
                              ) from None

    def _push(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self.layers):
            if data:
                yield data
            return
        for piece in self.layers[index].feed(data):
            yield from self._push(index + 1, piece)
