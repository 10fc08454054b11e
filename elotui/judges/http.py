"""Shared async HTTP machinery for the network judges: one client per endpoint, limits, retries, keys.

- One `httpx.AsyncClient` per endpoint (keep-alive; timeouts from `timeout_s`), created on first use.
- `max_concurrency` is a semaphore; `requests_per_minute` (and optional `tokens_per_minute`) are token buckets.
  The semaphore is taken first and the rate token second, so a request leaves the moment it is allowed to:
  requests never bunch up behind the semaphore and burst past the rate.
- Retries: 429 (honouring `Retry-After` in seconds or as an HTTP date), 408, 5xx, timeouts and dropped
  connections, with exponential backoff and equal jitter (elotui.judges.limits), up to `max_retries`; the concurrency slot is
  released while waiting. Other 4xx are final; 401/403 name the key's variable (never its value).
- The API key is read from the environment at call time only, and redacted from every text that leaves here.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from elotui import vocab
from elotui.config import EndpointConfig
from elotui.judges.base import RetryNotice, RetryObserver
from elotui.judges.lasting import lasting_error
from elotui.judges.limits import RetryPolicy, TokenBucket, parse_retry_after
from elotui.judges.transport import ShardedTransport

if importlib.util.find_spec("sniffio") is None:
    # httpcore asks `import sniffio` on every pool operation; when sniffio is not installed each failed import
    # walks sys.path (~0.1 ms, ~15 times a request). A None entry makes the same ImportError immediate.
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]

REDACTED = "[redacted]"
DEAD_AFTER = 8  # attempts in a row that reached no server, with no reply ever: the endpoint is unreachable


def redact_url(url: str) -> str:
    """The URL without its userinfo (`http://user:password@host` -> `http://host`)."""
    if "@" not in url:
        return url
    try:
        return str(httpx.URL(url).copy_with(username=None, password=None))
    except (httpx.InvalidURL, TypeError, ValueError):
        return url.split("://", 1)[0] + "://" + url.rsplit("@", 1)[-1]


RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 520, 521, 522, 523, 524, 529})


class GaveUp(Exception):
    """A call that failed for good (after retries, or at once for a final error). The message is redacted."""

    def __init__(
        self,
        message: str,
        *,
        attempts: int,
        http_429s: int,
        status_code: int | None = None,
        body: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts
        self.http_429s = http_429s
        self.status_code = status_code
        self.body = body
        self.lasting = (
            None if status_code is None or body is None else lasting_error(status_code, body, _short(body))
        )


@dataclass
class HttpResult:
    data: Any  # the decoded JSON body
    body: str  # the body text (redacted)
    attempts: int
    http_429s: int
    latency_ms: float  # of the attempt that succeeded


class _Retry(Exception):
    def __init__(self, reason: str, status_code: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status_code = status_code
        self.retry_after = retry_after


class HttpEndpoint:
    """Everything one judge needs to talk to its provider: client, limits, retries, key handling."""

    def __init__(
        self,
        config: EndpointConfig,
        *,
        judge_id: str,
        base_url: str,
        observer: RetryObserver | None = None,
        retry_policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self.judge_id = judge_id
        self.base_url = base_url.rstrip("/")
        self.observer = observer
        self.policy = retry_policy or RetryPolicy()
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self._semaphore = asyncio.Semaphore(config.max_concurrency)
        self._rpm = (
            TokenBucket(config.requests_per_minute / 60.0, 1.0) if config.requests_per_minute else None
        )
        self._tpm = (
            TokenBucket(config.tokens_per_minute / 60.0, config.tokens_per_minute)
            if config.tokens_per_minute
            else None
        )
        self._rng = random.Random()
        self._connect_failures = 0
        self._replied = False
        self.unreachable: str | None = None

    # --- keys ------------------------------------------------------------------------------------------

    @property
    def key_env(self) -> str | None:
        return self.config.key_env

    def api_key(self) -> str | None:
        """The key, read from the environment now (never stored on the object)."""
        env = self.key_env
        return (os.environ.get(env) or None) if env else None

    def redact(self, text: str) -> str:
        """The text without the API key and without the password of a `user:password@` base_url."""
        key = self.api_key()
        if key and key in text:
            text = text.replace(key, REDACTED)
        secret = httpx.URL(self.base_url).password if "@" in self.base_url else None
        if secret and secret in text:
            text = text.replace(secret, REDACTED)
        return text

    @property
    def shown_url(self) -> str:
        return redact_url(self.base_url)

    def _connection_failed(self) -> None:
        """One more attempt that reached no server. Past DEAD_AFTER in a row with no reply ever, the endpoint is
        unreachable: the calls still waiting for it are not sent (a rerun tries them)."""
        self._connect_failures += 1
        if self._connect_failures >= DEAD_AFTER and not self._replied:
            self.unreachable = (
                f"cannot reach {self.shown_url} ({self._connect_failures} attempts in a row failed)"
            )

    async def _read_capped(
        self, url: str, payload: dict[str, Any], headers: dict[str, str]
    ) -> httpx.Response:
        """Send, then read the body decompressed, at most max_reply_bytes of it."""
        client = self.client()
        request = client.build_request(
            "POST", url, content=json.dumps(payload).encode("utf-8"), headers=headers
        )
        response = await client.send(request, stream=True)
        self._replied = True
        limit = self.config.max_reply_bytes
        body = bytearray()
        try:
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > limit:
                    raise GaveUp(
                        f"judge {self.judge_id}: the reply is larger than max_reply_bytes = {limit:,} "
                        "bytes (decompressed): not read",
                        attempts=1,
                        http_429s=0,
                    )
        finally:
            await response.aclose()
        kept = [
            (k, v)
            for k, v in response.headers.multi_items()
            if k.lower() not in ("content-encoding", "content-length")
        ]
        return httpx.Response(response.status_code, headers=kept, content=bytes(body), request=request)

    # --- client ----------------------------------------------------------------------------------------

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            n = self.config.max_concurrency
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.config.timeout_s, connect=min(self.config.timeout_s, 15.0)),
                limits=httpx.Limits(max_connections=n, max_keepalive_connections=n, keepalive_expiry=30.0),
                transport=self._transport or ShardedTransport(n),
                follow_redirects=False,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # --- the call --------------------------------------------------------------------------------------

    async def post_json(
        self,
        path: str,
        payload: dict[str, Any],
        *,
        auth_headers: Callable[[str], dict[str, str]],
        key_required: bool,
        estimated_tokens: int = 0,
    ) -> HttpResult:
        """POST `payload` to base_url + path with retries. Raises GaveUp with a redacted reason."""
        key = self.api_key()
        if key is None and key_required:
            raise GaveUp(
                f"judge {self.judge_id}: environment variable ${self.key_env} is not set",
                attempts=0,
                http_429s=0,
            )
        url = self.base_url + path
        self.client()  # built before any rate token is taken, so its set-up cost never delays a request
        attempts = 0
        http_429s = 0
        last_reason = ""
        max_attempts = self.config.max_retries + 1
        while True:
            if self.unreachable is not None:
                raise GaveUp(
                    f"judge {self.judge_id}: not sent: {self.unreachable}",
                    attempts=attempts,
                    http_429s=http_429s,
                )
            attempts += 1
            wait_hint: float | None = None
            try:
                async with self._semaphore:
                    await self._rate_limit(estimated_tokens)
                    started = time.perf_counter()
                    response = await self._send(url, payload, key, auth_headers)
                    latency_ms = (time.perf_counter() - started) * 1000.0
                    return self._accept(response, attempts, http_429s, latency_ms)
            except GaveUp as failed:
                failed.attempts, failed.http_429s = attempts, http_429s
                raise
            except _Retry as retry:
                last_reason = retry.reason
                if retry.status_code == 429:
                    http_429s += 1
                wait_hint = retry.retry_after
                status_code = retry.status_code
            if attempts >= max_attempts:
                raise GaveUp(
                    f"judge {self.judge_id}: gave up after {attempts} attempt(s): {last_reason}",
                    attempts=attempts,
                    http_429s=http_429s,
                    status_code=status_code,
                )
            if wait_hint is not None:
                wait = min(wait_hint, self.policy.max_retry_after_s) + 0.05 * self._rng.random()
            else:
                wait = self.policy.backoff(attempts, self._rng)
            if self.observer is not None:
                self.observer(
                    RetryNotice(
                        judge=self.judge_id,
                        attempt=attempts,
                        reason=last_reason,
                        wait_s=wait,
                        status_code=status_code,
                    )
                )
            await self.policy.sleep(wait)

    async def _rate_limit(self, estimated_tokens: int) -> None:
        wait = 0.0
        if self._rpm is not None:
            wait = max(wait, self._rpm.reserve(1.0))
        if self._tpm is not None and estimated_tokens > 0:
            wait = max(wait, self._tpm.reserve(float(estimated_tokens)))
        if wait > 0:
            # asyncio may wake a timer up to its clock resolution early: sleep again until the reserved time has
            # really come, so that requests are never closer than the rate allows (no window holds one extra)
            due = time.monotonic() + wait
            while (left := due - time.monotonic()) > 0:
                await asyncio.sleep(left)

    def settle_tokens(self, estimated: int, actual: int | None) -> None:
        """After a reply: give back what the token estimate over-reserved."""
        if self._tpm is not None and actual is not None:
            self._tpm.refund(float(estimated - actual))

    async def _send(
        self,
        url: str,
        payload: dict[str, Any],
        key: str | None,
        auth_headers: Callable[[str], dict[str, str]],
    ) -> httpx.Response:
        headers = {"content-type": "application/json", "accept": "application/json"}
        if key is not None:
            headers.update(auth_headers(key))
        timeout = self.config.timeout_s
        try:
            async with asyncio.timeout(
                timeout
            ):  # the whole attempt: a server trickling a byte a second ends too
                response = await self._read_capped(url, payload, headers)
            self._connect_failures = 0
            return response
        except TimeoutError:
            raise _Retry(
                f"read timeout: no complete reply within timeout_s = {timeout:g}s (the whole attempt)"
            ) from None
        except httpx.ConnectTimeout:
            self._connection_failed()
            raise _Retry(f"connect timeout: no connection to {self.shown_url} within {timeout:g}s") from None
        except httpx.ReadTimeout:
            raise _Retry(f"read timeout: no reply within {timeout:g}s") from None
        except httpx.WriteTimeout:
            raise _Retry(f"write timeout: could not send the request within {timeout:g}s") from None
        except httpx.PoolTimeout:
            raise _Retry(f"pool timeout: no free connection within {timeout:g}s") from None
        except httpx.ConnectError as exc:
            self._connection_failed()
            raise _Retry(
                f"cannot connect to {self.shown_url}: {self.redact(str(exc)) or 'connection refused'}"
            ) from None
        except httpx.RemoteProtocolError:
            raise _Retry("connection dropped: the server closed it without a complete reply") from None
        except httpx.ReadError:
            raise _Retry("connection dropped while reading the reply") from None
        except httpx.WriteError:
            raise _Retry("connection dropped while sending the request") from None
        except httpx.UnsupportedProtocol:
            raise GaveUp(
                f"judge {self.judge_id}: base_url {self.shown_url} is not an http(s) URL",
                attempts=1,
                http_429s=0,
            ) from None
        except httpx.InvalidURL:
            raise GaveUp(
                f"judge {self.judge_id}: invalid URL {redact_url(url)}", attempts=1, http_429s=0
            ) from None
        except httpx.HTTPError as exc:
            raise GaveUp(
                f"judge {self.judge_id}: HTTP failure ({type(exc).__name__}): {self.redact(str(exc))}",
                attempts=1,
                http_429s=0,
            ) from None

    def _accept(
        self, response: httpx.Response, attempts: int, http_429s: int, latency_ms: float
    ) -> HttpResult:
        code = response.status_code
        body = self.redact(response.text)
        if code in RETRYABLE_STATUS or 500 <= code < 600:
            retry_after = parse_retry_after(response.headers.get("retry-after"), now=self.policy.wall_clock())
            detail = _short(body)
            reason = f"HTTP {code}" + (f": {detail}" if detail else "")
            raise _Retry(reason, status_code=code, retry_after=retry_after)
        if code in (401, 403):
            env = self.key_env
            if env and self.api_key() is not None:
                message = f"judge {self.judge_id} rejected the key from ${env} (HTTP {code})"
            elif env:
                message = f"judge {self.judge_id}: HTTP {code}, and ${env} is not set"
            else:
                message = f"judge {self.judge_id}: HTTP {code}: the server wants a key (set `api_key_env`)"
            detail = _short(body)
            raise GaveUp(
                message + (f": {detail}" if detail else ""),
                attempts=attempts,
                http_429s=http_429s,
                status_code=code,
                body=body,
            )
        if not 200 <= code < 300:
            detail = _short(body)
            raise GaveUp(
                f"judge {self.judge_id}: HTTP {code}" + (f": {detail}" if detail else ""),
                attempts=attempts,
                http_429s=http_429s,
                status_code=code,
                body=body,
            )
        try:
            data = json.loads(response.content)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise GaveUp(
                f"judge {self.judge_id}: the provider sent a body that is not JSON: {_short(body)!r}",
                attempts=attempts,
                http_429s=http_429s,
                status_code=code,
                body=body,
            ) from None
        return HttpResult(data=data, body=body, attempts=attempts, http_429s=http_429s, latency_ms=latency_ms)


def _short(body: str, limit: int = 300) -> str:
    """A one-line excerpt of an error body: the provider's own error kind and message when the body has them
    (OpenAI `error.type`, Anthropic `error.type` such as `overloaded_error`, Google `error.status` such as
    `RESOURCE_EXHAUSTED`, Ollama's `error` string)."""
    text = body.strip()
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            kind = err.get("status") or err.get("type")
            text = f"{kind}: {err['message']}" if isinstance(kind, str) and kind else err["message"]
        elif isinstance(err, str):
            text = err
        elif isinstance(obj.get("message"), str):
            text = obj["message"]
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cost_of(config: EndpointConfig, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Cost from the per-million prices; None when no price is set."""
    pin, pout = config.price_per_million_input, config.price_per_million_output
    if pin is None and pout is None:
        return None
    return vocab.cost_of(input_tokens or 0, output_tokens or 0, pin, pout)


def estimate_tokens(config: EndpointConfig, system: str, user: str) -> int:
    """A conservative token estimate for the tokens-per-minute bucket: ~4 characters a token + max_tokens."""
    return vocab.tokens_in_text(len(system) + len(user)) + 1 + config.max_tokens
