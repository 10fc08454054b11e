"""The HTTP transport of the network judges: httpx's standard transport split into small connection pools."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable

import httpx

SHARD_SIZE = 4


class ShardedTransport(httpx.AsyncBaseTransport):
    """httpx's standard transport, split into small connection pools.

    httpcore's pool re-scans every connection (and each connection every other) whenever a request starts or
    ends, so its bookkeeping grows with the square of the pool size: at 64 connections it costs several ms of
    CPU per request. Shards of at most `shard_size` connections keep that cost flat; each request goes to the
    least busy shard and holds its place there until its response is closed.
    """

    def __init__(
        self, max_connections: int, *, shard_size: int = SHARD_SIZE, keepalive_expiry: float = 30.0
    ) -> None:
        count = max(1, math.ceil(max_connections / shard_size))
        per_shard = math.ceil(max_connections / count)
        limits = httpx.Limits(
            max_connections=per_shard, max_keepalive_connections=per_shard, keepalive_expiry=keepalive_expiry
        )
        ssl_context = (
            httpx.create_ssl_context()
        )  # one certificate store for every shard (loading it costs ~20 ms)
        self._shards = [httpx.AsyncHTTPTransport(limits=limits, verify=ssl_context) for _ in range(count)]
        self._busy = [0] * count

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        index = min(range(len(self._shards)), key=self._busy.__getitem__)
        self._busy[index] += 1
        try:
            response = await self._shards[index].handle_async_request(request)
        except BaseException:
            self._busy[index] -= 1
            raise

        def release() -> None:
            self._busy[index] -= 1

        assert isinstance(response.stream, httpx.AsyncByteStream)
        return httpx.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_ReleasingStream(response.stream, release),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        for shard in self._shards:
            await shard.aclose()


class _ReleasingStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, release: Callable[[], None]) -> None:
        self._stream = stream
        self._release: Callable[[], None] | None = release

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            if self._release is not None:
                self._release()
                self._release = None
