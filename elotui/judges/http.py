"""Shared async HTTP machinery for the network judges: one client per endpoint, limits, retries, keys.

- One `httpx.AsyncClient` per endpoint (keep-alive; timeouts from `timeout_s`), created on first use.
- `max_concurrency` is a semaphore; `requests_per_minute` (and optional `tokens_per_minute`) are token buckets.
  The semaphore is taken first and the rate token second, so a request leaves the moment it is allowed to:
  requests never bunch up behind the semaphore and burst past the rate.
- Retries: 429 (honouring `Retry-After` in seconds or as an HTTP date), 408, 5xx, timeouts and dropped
  connections, with exponential backoff and equal jitter (elotui.judges.limits), up to `max_retries`; the concurrency slot is
  released while waiting. Other 4xx are final; 401/403 name the key's variable (never its value).
- A `Retry-After` longer than the judge's `max_retry_after_s` (default 120 s) is not waited for: the judge stops
  sending, and the call and those behind it are given back for the next run (`unreachable` says why, once).
- Bodies are read raw and decoded here within `max_reply_bytes` (elotui.judges.decoding); headers are read as sent,
  whatever their bytes. A 2xx whose body is the provider's error object is that error (retried like its status).
- The API key is read from the environment at call time only, and redacted from every text that leaves here, as
  are the credentials a base_url carries (elotui.judges.secrets).
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
from elotui.judges.base import RetryNotice, RetryObserver
from elotui.judges.decoding import BoundedBody, Reply, ReplyTooLarge, UndecodableReply, accept_encoding
from elotui.judges.error_body import error_in_body, short_error
from elotui.judges.lasting import lasting_error
from elotui.judges.limits import RetryPolicy, TokenBucket, parse_retry_after
from elotui.judges.secrets import REDACTED, Redactor, redact_url
from elotui.judges.transport import ShardedTransport
from elotui.judges.wire_text import may_hold_surrogates, storable_data
from elotui.tournament.model import EndpointConfig
from elotui.tournament.sections import price_factor

__all__ = ["REDACTED", "GaveUp", "HttpEndpoint", "HttpResult", "redact_url"]

if importlib.util.find_spec("sniffio") is None:
    # httpcore asks `import sniffio` on every pool operation; when sniffio is not installed each failed import
    # walks sys.path (~0.1 ms, ~15 times a request). A None entry makes the same ImportError immediate.
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]

DEAD_AFTER = 8  # attempts in a row that reached no server, with no reply ever: the endpoint is unreachable


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
        given_back: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.attempts = attempts
        self.http_429s = http_429s
        self.status_code = status_code
        self.body = body
        self.lasting = (
            None
            if status_code is None or body is None
            else lasting_error(status_code, body, short_error(body))
        )
        self.given_back = given_back  # not answered and not failed: the call is left for the next run


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
        self._redactor = Redactor(self.base_url, self.api_key)
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
        """The text without the API key and without the credentials of the base_url (its password, the Basic
        credential made of it, a token as user name, secret query values: elotui.judges.secrets)."""
        return self._redactor(text)

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

    async def _read_capped(self, url: str, payload: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Send, then read the raw body and decode it here, never past max_reply_bytes at any stage."""
        client = self.client()
        request = client.build_request(
            "POST", url, content=json.dumps(payload).encode("utf-8"), headers=headers
        )
        response = await client.send(request, stream=True)
        self._replied = True
        try:
            encodings = response.headers.get_list("content-encoding", split_commas=True)
            body = BoundedBody(encodings, self.config.max_reply_bytes)
            async for chunk in response.aiter_raw():
                body.feed(chunk)
            content = body.body()
        except (ReplyTooLarge, UndecodableReply) as exc:
            raise GaveUp(f"judge {self.judge_id}: {exc}", attempts=1, http_429s=0) from None
        finally:
            await response.aclose()
        return Reply(response.status_code, response.headers, content)

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
        url = _join(self.base_url, path)
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
                    given_back=True,
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
            if (
                wait_hint is not None and wait_hint > self.config.max_retry_after_s
            ):  # (whatever attempts are left)
                raise self._given_back(wait_hint, attempts, http_429s)
            if attempts >= max_attempts:
                raise GaveUp(
                    f"judge {self.judge_id}: gave up after {attempts} attempt(s): {last_reason}",
                    attempts=attempts,
                    http_429s=http_429s,
                    status_code=status_code,
                )
            if wait_hint is not None:
                wait = wait_hint + 0.05 * self._rng.random()
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

    def _given_back(self, wait_s: float, attempts: int, http_429s: int) -> GaveUp:
        """The server asked to wait longer than the judge's patience: nothing more is sent to it in this run, and
        the call is given back (unrecorded: the next run sends it)."""
        patience = self.config.max_retry_after_s
        self.unreachable = (
            f"the server asked to wait {wait_s:,.0f} s (Retry-After), longer than max_retry_after_s = "
            f"{patience:g} s"
        )
        return GaveUp(
            f"judge {self.judge_id}: not answered: {self.unreachable}",
            attempts=attempts,
            http_429s=http_429s,
            given_back=True,
        )

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
    ) -> Reply:
        headers = {
            "content-type": "application/json",
            "accept": "application/json",
            "accept-encoding": accept_encoding(),
        }
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

    def _accept(self, response: Reply, attempts: int, http_429s: int, latency_ms: float) -> HttpResult:
        code = response.status_code
        text = response.text
        body = self.redact(text)
        if not 200 <= code < 300:
            raise self._refusal(code, f"HTTP {code}", body, response.headers, (attempts, http_429s))
        try:
            data = json.loads(text)
            if may_hold_surrogates(text):  # half an emoji: kept as its escape, so the reply can be stored
                data = storable_data(data)
        except (ValueError, RecursionError):  # not JSON; a 5,000-digit number; nested 10^5 deep
            raise GaveUp(
                f"judge {self.judge_id}: the provider sent a body that is not JSON: {short_error(body)!r}",
                attempts=attempts,
                http_429s=http_429s,
                status_code=code,
                body=body,
            ) from None
        embedded = error_in_body(data)
        if embedded is not None:  # paid for, but not an answer: the provider's error, retried like its status
            label = f"HTTP {code} carrying an error" + (f" ({embedded})" if embedded != 500 else "")
            raise self._refusal(embedded, label, body, response.headers, (attempts, http_429s))
        return HttpResult(data=data, body=body, attempts=attempts, http_429s=http_429s, latency_ms=latency_ms)

    def _refusal(
        self, code: int, label: str, body: str, headers: httpx.Headers, counts: tuple[int, int]
    ) -> Exception:
        """What an error reply means: `_Retry` for a retryable status (with its `Retry-After`), else `GaveUp`;
        401/403 name the key's variable. `code` is the HTTP status, or the one an error body says."""
        detail = short_error(body)
        if code in RETRYABLE_STATUS or 500 <= code < 600:
            retry_after = parse_retry_after(headers.get("retry-after"), now=self.policy.wall_clock())
            return _Retry(
                label + (f": {detail}" if detail else ""), status_code=code, retry_after=retry_after
            )
        message = f"judge {self.judge_id}: {label}"
        if code in (401, 403):
            env = self.key_env
            if env and self.api_key() is not None:
                message = f"judge {self.judge_id} rejected the key from ${env} ({label})"
            elif env:
                message = f"judge {self.judge_id}: {label}, and ${env} is not set"
            else:
                message = f"judge {self.judge_id}: {label}: the server wants a key (set `api_key_env`)"
        attempts, http_429s = counts
        return GaveUp(
            message + (f": {detail}" if detail else ""),
            attempts=attempts,
            http_429s=http_429s,
            status_code=code,
            body=body,
        )


def _join(base_url: str, path: str) -> str:
    """base_url + path, the path before the base_url's query (`https://h/v1?api-version=1` + `/chat/completions`)."""
    base, sep, query = base_url.partition("?")
    return base.rstrip("/") + path + sep + query


def cost_of(config: EndpointConfig, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """Cost from the per-million prices; None when no price is set."""
    pin, pout = config.price_per_million_input, config.price_per_million_output
    if pin is None and pout is None:
        return None
    return vocab.cost_of(input_tokens or 0, output_tokens or 0, pin, pout) * price_factor(config)


def estimate_tokens(config: EndpointConfig, system: str, user: str) -> int:
    """A conservative token estimate for the tokens-per-minute bucket: ~4 characters a token + max_tokens."""
    return vocab.tokens_in_text(len(system) + len(user)) + 1 + config.max_tokens
