"""The common body of every network judge: the provider modules only say how to shape the request,
which headers carry the key, and where the text and token counts are in the reply."""

from __future__ import annotations

import json
import time
from typing import Any, ClassVar

import httpx

from elotui.judges.base import Completion, JudgeKind, JudgeReply, JudgeRequest, RetryObserver
from elotui.judges.http import GaveUp, HttpEndpoint, RetryPolicy, cost_of, estimate_tokens
from elotui.judges.parse import Scale, parse_on_scale
from elotui.tournament.model import EndpointConfig


class ReplyShapeError(Exception):
    """The provider answered (HTTP 2xx) but the body has no text where the wire format puts it."""


class LiveJudge:
    """A judge behind an HTTP API. Subclasses set `default_base_url`, `key_required` and the four hooks."""

    kind: JudgeKind = "live"
    default_base_url: ClassVar[str] = ""
    key_required: ClassVar[bool] = True

    def __init__(
        self,
        config: EndpointConfig,
        *,
        judge_id: str,
        observer: RetryObserver | None = None,
        retry_policy: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        scale: Scale = "binary",
    ) -> None:
        self.id = judge_id
        self.config = config
        self.scale: Scale = scale  # the verdict scale asked for (elotui.judges.parse): schema and parsing
        self.base_url = (config.base_url or self.default_base_url).rstrip("/")
        self.http = HttpEndpoint(
            config,
            judge_id=judge_id,
            base_url=self.base_url,
            observer=observer,
            retry_policy=retry_policy,
            transport=transport,
        )

    @property
    def unreachable(self) -> str | None:
        """Why no call is sent any more (the endpoint never answered, attempt after attempt), or None."""
        return self.http.unreachable

    # --- hooks for the provider modules ----------------------------------------------------------------

    def path(self) -> str:
        raise NotImplementedError

    def payload(self, system: str, user: str, *, verdict: bool) -> dict[str, Any]:
        raise NotImplementedError

    def auth_headers(self, key: str) -> dict[str, str]:
        raise NotImplementedError

    def read_reply(self, data: Any) -> tuple[str, int | None, int | None]:
        """(text, input_tokens, output_tokens) from a decoded reply; raises ReplyShapeError."""
        raise NotImplementedError

    # --- the Judge protocol ----------------------------------------------------------------------------

    def identity(self) -> dict[str, object]:
        c = self.config
        ident: dict[str, object] = {
            "provider": c.provider,
            "model": c.model,
            "max_tokens": c.max_tokens,
            "base_url": self.base_url,
            "json_mode": c.json_mode,
        }
        if c.sends_temperature:
            ident["temperature"] = c.temperature
        # what changes an answer is part of its cache key; what does not (prompt caching) is not. Unset options stay
        # out of the key, so the keys of calls made before these options existed are unchanged.
        for name in ("system", "seed", "effort"):
            if getattr(c, name) is not None:
                ident[name] = getattr(c, name)
        return ident

    async def _call(self, system: str, user: str, *, verdict: bool) -> tuple[str, Any, dict[str, Any]]:
        """Returns ("ok", text, meta) | ("invalid", raw body, meta) | ("error", message, meta)."""
        estimated = estimate_tokens(self.config, system, user)
        meta: dict[str, Any] = {
            "attempts": 1,
            "http_429s": 0,
            "latency_ms": None,
            "input_tokens": None,
            "output_tokens": None,
            "cost": None,
        }
        started = time.perf_counter()
        try:
            result = await self.http.post_json(
                self.path(),
                self.payload(system, user, verdict=verdict),
                auth_headers=self.auth_headers,
                key_required=self.key_required,
                estimated_tokens=estimated,
            )
        except GaveUp as failed:
            meta.update(
                attempts=failed.attempts,
                http_429s=failed.http_429s,
                latency_ms=(time.perf_counter() - started) * 1000.0,
                lasting_error=failed.lasting,
                given_back=failed.given_back,
            )
            return "error", failed.message, meta
        meta.update(attempts=result.attempts, http_429s=result.http_429s, latency_ms=result.latency_ms)
        try:
            text, tokens_in, tokens_out = self.read_reply(result.data)
        except ReplyShapeError as exc:
            meta["shape_error"] = self.http.redact(str(exc))  # (a refusal may quote the request)
            return "invalid", result.body, meta
        self.http.settle_tokens(estimated, None if tokens_in is None else tokens_in + (tokens_out or 0))
        meta.update(
            input_tokens=tokens_in, output_tokens=tokens_out, cost=cost_of(self.config, tokens_in, tokens_out)
        )
        return "ok", self.http.redact(text), meta

    async def _outcome(
        self, system: str, user: str, *, verdict: bool
    ) -> tuple[str, Any, str | None, dict[str, Any]]:
        """`_call` as (outcome, text, shape error, meta)."""
        outcome, text, meta = await self._call(system, user, verdict=verdict)
        return outcome, text, meta.pop("shape_error", None), meta

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        outcome, text, shape_error, meta = await self._outcome(request.system, request.user, verdict=True)
        if outcome == "error":
            reply = JudgeReply(status="error", error=text, **meta)
        elif outcome == "invalid":
            reply = JudgeReply(status="invalid", raw_reply=text, error=shape_error, **meta)
        else:
            status, winner, strength, reasoning = parse_on_scale(text, self.scale)
            reply = JudgeReply(
                status=status, winner=winner, reasoning=reasoning, raw_reply=text, strength=strength, **meta
            )
        return reply

    async def complete(self, system: str, user: str) -> Completion:
        outcome, text, shape_error, meta = await self._outcome(system, user, verdict=False)
        if outcome == "error":
            completion = Completion(status="error", error=text, **meta)
        elif outcome == "invalid" or not text.strip():
            completion = Completion(status="invalid", text=text, error=shape_error or "empty reply", **meta)
        else:
            completion = Completion(status="ok", text=text, **meta)
        return completion

    async def aclose(self) -> None:
        await self.http.aclose()


def chat_messages(system: str, user: str) -> list[dict[str, str]]:
    """The chat `messages` of the OpenAI and Ollama wire formats: the system message (when there is one), the user's."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": user})
    return messages


def first_text(parts: Any) -> str:
    """Join the text parts of a list of content blocks ({"type": "text", "text": ...} or {"text": ...})."""
    if not isinstance(parts, list):
        raise ReplyShapeError("no content parts in the reply")
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    if not texts:
        raise ReplyShapeError("no text in the reply")
    return "".join(texts)


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def object_or_empty(value: Any) -> dict[str, Any]:
    """`value` if it is a JSON object, else {} (for optional reply sections such as token usage)."""
    return value if isinstance(value, dict) else {}


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)
