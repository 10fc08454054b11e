"""Reply bodies decoded within a bound: a compressed reply never costs more memory than `max_reply_bytes`.

The body is read as it came off the wire (httpx's raw stream: no decoder of its own runs) and every
`Content-Encoding` layer is undone here, last applied first, by a decompressor asked for at most CHUNK bytes at a
time (`zlib.decompressobj().decompress(data, max_length)`; brotli's `output_buffer_limit`; zstd's `max_length`).
Each piece is counted before it is kept or passed to the next layer: the bytes off the wire, every layer's output
and the decoded body each stop the read the moment they pass the cap. So a 1.8 KB `gzip, gzip` bomb that
decompresses to 2 GB is refused after at most `max_reply_bytes` of output, holding one chunk per layer besides
the body. A connection reads one reply at a time: a judge holds at most `max_concurrency` bodies.

Decoded: gzip (x-gzip), deflate (zlib-wrapped or raw, as httpx reads it), identity; br when the `brotli` package
(1.2 or later, whose decoder takes an output limit) is installed; zstd when `compression.zstd` (Python 3.14) or
`backports.zstd` is, with the window capped at 8 MiB (the limit HTTP's zstd content coding sets). Requests
advertise only these (`accept_encoding`); a reply in another encoding is refused with a clear error.
"""

from __future__ import annotations

import functools
import importlib
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

import httpx

CHUNK = 64 * 1024  # the most one decompressor call returns (brotli may overshoot it by half)
MAX_LAYERS = 4  # more stacked encodings than this is no honest server
ZSTD_WINDOW_LOG_MAX = 23  # 8 MiB: the largest window a zstd Content-Encoding may use


@dataclass
class Reply:
    """A reply as read: its status, its headers as sent (httpx decodes each value leniently when asked for it),
    its body decoded within max_reply_bytes."""

    status_code: int
    headers: httpx.Headers
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8-sig", "replace")


class ReplyTooLarge(Exception):
    """The reply passed max_reply_bytes: on the wire, after a decoding layer, or decoded."""


class UndecodableReply(Exception):
    """The reply's Content-Encoding is not one elotui decodes, or its data is corrupt."""


class _Layer(Protocol):
    def feed(self, data: bytes) -> Iterator[bytes]:
        """The output for `data`, in pieces of about CHUNK bytes (`data` empty at the end: what is pending)."""
        ...


class _Zlib:
    """gzip (wbits 16 + MAX_WBITS) or deflate: zlib-wrapped first, raw deflate if the zlib header is wrong."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._raw_fallback = name == "deflate"
        self._d = zlib.decompressobj(zlib.MAX_WBITS | 16 if name != "deflate" else zlib.MAX_WBITS)
        self._seen = b""  # deflate: the input so far, until the first output (re-read as raw deflate)

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._d.eof:
            return  # bytes after the end of the stream are ignored (as httpx does)
        out = self._first(data)
        d = self._d  # (raw deflate's, if the zlib header was wrong)
        while True:
            if out:
                yield out
            if d.eof or not (d.unconsumed_tail or len(out) == CHUNK):
                return
            out = self._decompress(d.unconsumed_tail)

    def _first(self, data: bytes) -> bytes:
        if not self._raw_fallback:
            return self._decompress(data)
        self._seen += data
        try:
            out = self._d.decompress(data, CHUNK)
        except zlib.error:
            self._raw_fallback = False
            self._d = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._decompress(self._seen)
        if out:
            self._raw_fallback, self._seen = False, b""
        return out

    def _decompress(self, data: bytes) -> bytes:
        try:
            return self._d.decompress(data, CHUNK)
        except zlib.error as exc:
            raise UndecodableReply(f"the {self.name} data is corrupt ({exc})") from None


class _Brotli:
    def __init__(self, module: ModuleType) -> None:
        self._module = module
        self._d = module.Decompressor()

    def feed(self, data: bytes) -> Iterator[bytes]:
        d = self._d
        if d.is_finished():
            return
        try:
            out = d.process(data, output_buffer_limit=CHUNK)
            while True:
                if out:
                    yield out
                # a full buffer may leave output behind even when more input could be taken
                if d.is_finished() or (len(out) < CHUNK and d.can_accept_more_data()):
                    return
                out = d.process(b"", output_buffer_limit=CHUNK)
        except self._module.error as exc:
            raise UndecodableReply(f"the br data is corrupt ({exc})") from None


class _Zstd:
    def __init__(self, module: ModuleType) -> None:
        self._module = module
        window = {module.DecompressionParameter.window_log_max: ZSTD_WINDOW_LOG_MAX}
        self._d = module.ZstdDecompressor(options=window)

    def feed(self, data: bytes) -> Iterator[bytes]:
        d = self._d
        if d.eof:
            return
        try:
            out = d.decompress(data, CHUNK)
            while True:
                if out:
                    yield out
                if d.eof or d.needs_input:
                    return
                out = d.decompress(b"", CHUNK)
        except self._module.ZstdError as exc:
            raise UndecodableReply(f"the zstd data is corrupt or needs a window over 8 MiB ({exc})") from None


@functools.cache
def _optional(name: str) -> ModuleType | None:
    """brotli (only from 1.2, whose decoder takes an output limit), or a zstd module; None when not installed."""
    candidates = {"br": ("brotli",), "zstd": ("compression.zstd", "backports.zstd")}[name]
    for candidate in candidates:
        try:
            module = importlib.import_module(candidate)
        except ImportError:
            continue
        if name == "br" and not hasattr(module.Decompressor(), "can_accept_more_data"):
            return None
        return module
    return None


def _layer(name: str) -> _Layer:
    if name in ("gzip", "x-gzip", "deflate"):
        return _Zlib("gzip" if name == "x-gzip" else name)
    builders: dict[str, Callable[[Any], _Layer]] = {"br": _Brotli, "zstd": _Zstd}
    module = _optional(name) if name in builders else None
    if module is None:
        raise UndecodableReply(
            f"the reply is encoded as {name!r} (Content-Encoding), which this installation does not decode; "
            f"it asked for {accept_encoding()}"
        )
    return builders[name](module)


@functools.cache
def accept_encoding() -> str:
    """The `Accept-Encoding` of every request: the encodings decoded here."""
    return ", ".join(["gzip", "deflate"] + [n for n in ("br", "zstd") if _optional(n) is not None])


class BoundedBody:
    """A reply body decoded as its raw bytes arrive (`feed`), never past `limit` bytes at any stage (`body`)."""

    def __init__(self, content_encoding: list[str], limit: int) -> None:
        names = [n.strip().lower() for n in content_encoding]
        names = [n for n in names if n and n != "identity"]
        if len(names) > MAX_LAYERS:
            raise UndecodableReply(
                f"the reply has {len(names)} stacked Content-Encodings (at most {MAX_LAYERS})"
            )
        self.encodings = names
        self._layers = [_layer(n) for n in reversed(names)]  # the encoding applied last is undone first
        self._limit = limit
        self._counts = [0] * (len(self._layers) + 1)  # bytes into each layer (the last: into the body)
        self._body = bytearray()

    def feed(self, raw: bytes) -> None:
        self._push(0, raw)

    def body(self) -> bytes:
        """The decoded body, once every raw byte was fed (each layer's pending output drained)."""
        for index in range(len(self._layers)):
            self._push(index, b"")
        return bytes(self._body)

    def _push(self, index: int, data: bytes) -> None:
        self._count(index, len(data))
        if index == len(self._layers):
            self._body += data
            return
        for piece in self._layers[index].feed(data):
            self._push(index + 1, piece)

    def _count(self, index: int, size: int) -> None:
        self._counts[index] += size
        if self._counts[index] > self._limit:
            stage = (
                ""
                if not self._layers
                else " (decompressed)"
                if index == len(self._layers)
                else " (on the wire)"
                if index == 0
                else f" (decompressed, after the {self.encodings[-index]} layer)"
            )
            raise ReplyTooLarge(
                f"the reply is larger than max_reply_bytes = {self._limit:,} bytes{stage}: not read"
            )
