"""Provider batch APIs (docs/batch.md): the same request bodies a judge sends synchronously, submitted as one
batch, polled, and read back as one `JudgeReply` per request's `custom_id` (the call's key).

- OpenAI (and `openai-compatible` servers with the same endpoints): the requests as a JSONL file
  (`POST /files`, purpose `batch`), `POST /batches` (endpoint `/v1/chat/completions`, window `24h`), polled with
  `GET /batches/{id}`; the replies in `output_file_id` and `error_file_id` (`GET /files/{id}/content`).
- Gemini: `models/{model}:batchGenerateContent` with the requests inlined, the operation polled until its state
  ends, the responses read from its inlined output.
- Anthropic: `POST /v1/messages/batches` (`requests = [{custom_id, params}]`), polled with
  `GET /v1/messages/batches/{id}` until `processing_status = "ended"`, the replies read from its `results_url`
  (JSONL: `succeeded`, `errored`, `canceled`, `expired`).

A request the results do not answer is a failed call (the caller's part); nothing here raises for a reply's
content, only `BatchFailed` for a batch call the provider refused or a connection that failed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx

from elotui.judges.base import JudgeReply
from elotui.judges.http import cost_of
from elotui.judges.live import LiveJudge, ReplyShapeError, object_or_empty
from elotui.judges.parse import parse_on_scale

Requests = list[tuple[str, dict[str, Any]]]  # (custom_id, the synchronous request body)


class BatchFailed(Exception):
    """A batch call (submit, poll, read, cancel) failed: the provider refused it, or no reply came. `lasting`: a
    refusal that asking again will not change (an HTTP 4xx other than 408 and 429: a batch the provider does not
    know, a key it does not take)."""

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.lasting = status_code is not None and 400 <= status_code < 500 and status_code not in (408, 429)


@dataclass(frozen=True)
class BatchState:
    """What the provider says of a batch: its status word, whether it ended (results final), whether it ended
    without any results (failed or expired as a whole), and its request counts so far."""

    status: str
    ended: bool
    whole_failure: bool
    done: int
    failed: int
    raw: dict[str, Any]


def verdict_reply(judge: LiveJudge, body: Any) -> JudgeReply:
    """The reply a synchronous call with this response body gives (the same parsing and invalid handling)."""
    try:
        text, tokens_in, tokens_out = judge.read_reply(body)
    except ReplyShapeError as exc:
        return JudgeReply(status="invalid", raw_reply=json.dumps(body), error=judge.http.redact(str(exc)))
    text = judge.http.redact(text)
    status, winner, strength, reasoning = parse_on_scale(text, judge.scale)
    return JudgeReply(
        status=status,
        winner=winner,
        reasoning=reasoning,
        strength=strength,
        raw_reply=text,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        cost=cost_of(judge.config, tokens_in, tokens_out),
    )


def failed_reply(judge: LiveJudge, why: str) -> JudgeReply:
    return JudgeReply(status="error", error=judge.http.redact(why))


def jsonl(text: str) -> Iterator[dict[str, Any]]:
    for line in text.splitlines():
        if line.strip():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                yield item


class BatchAPI:
    """One judge's batch endpoints; `judge` shapes the bodies, holds the key and the HTTP client."""

    max_requests: ClassVar[int] = 50_000

    def __init__(self, judge: LiveJudge) -> None:
        self.judge = judge

    def _headers(self) -> dict[str, str]:
        key = self.judge.http.api_key()
        return self.judge.auth_headers(key) if key else {}

    async def _request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        url = path if path.startswith("http") else self.judge.base_url + path
        try:
            response = await self.judge.http.client().request(method, url, headers=self._headers(), **kwargs)
        except httpx.HTTPError as exc:
            raise BatchFailed(
                self.judge.http.redact(f"{method} {path}: {type(exc).__name__}: {exc}")
            ) from None
        if response.status_code >= 400:
            text = response.text[:500]
            message = self.judge.http.redact(f"{method} {path}: HTTP {response.status_code}: {text}")
            raise BatchFailed(message, status_code=response.status_code)
        return response

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = await self._request(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise BatchFailed(f"{method} {path}: the reply is not a JSON object")
        return data

    def body(self, system: str, user: str) -> dict[str, Any]:
        return self.judge.payload(system, user, verdict=True)

    async def submit(self, requests: Requests) -> str:
        raise NotImplementedError

    async def poll(self, batch_id: str) -> BatchState:
        raise NotImplementedError

    async def results(self, state: BatchState, keys: tuple[str, ...]) -> dict[str, JudgeReply]:
        """The replies by custom id (`keys`: the batch's custom ids in the order they were submitted)."""
        raise NotImplementedError

    async def cancel(self, batch_id: str) -> None:
        raise NotImplementedError


class OpenAIBatches(BatchAPI):
    """`openai.types.Batch`; input lines `{custom_id, method, url, body}`; output lines `{custom_id, response:
    {status_code, body}, error}`."""

    ENDED: ClassVar[frozenset[str]] = frozenset({"completed", "failed", "expired", "cancelled"})

    async def submit(self, requests: Requests) -> str:
        lines = [
            json.dumps({"custom_id": cid, "method": "POST", "url": "/v1/chat/completions", "body": body})
            for cid, body in requests
        ]
        content = ("\n".join(lines) + "\n").encode("utf-8")
        uploaded = await self._json(
            "POST", "/files", data={"purpose": "batch"}, files={"file": ("elotui.jsonl", content)}
        )
        create = {"input_file_id": uploaded.get("id"), "endpoint": "/v1/chat/completions"}
        create["completion_window"] = "24h"
        made = await self._json("POST", "/batches", json=create)
        if not isinstance(made.get("id"), str):
            raise BatchFailed("POST /batches: no batch id in the reply")
        return str(made["id"])

    async def poll(self, batch_id: str) -> BatchState:
        data = await self._json("GET", f"/batches/{batch_id}")
        status = str(data.get("status"))
        counts = data.get("request_counts") or {}
        ended = status in self.ENDED
        no_output = not data.get("output_file_id") and not data.get("error_file_id")
        return BatchState(
            status,
            ended,
            ended and no_output,
            int(counts.get("completed") or 0),
            int(counts.get("failed") or 0),
            data,
        )

    async def results(self, state: BatchState, keys: tuple[str, ...]) -> dict[str, JudgeReply]:
        replies: dict[str, JudgeReply] = {}
        for field in ("output_file_id", "error_file_id"):
            file_id = state.raw.get(field)
            if isinstance(file_id, str) and file_id:
                text = (await self._request("GET", f"/files/{file_id}/content")).text
                for line in jsonl(text):
                    if isinstance(cid := line.get("custom_id"), str):
                        replies[cid] = self._line_reply(line)
        return replies

    def _line_reply(self, line: dict[str, Any]) -> JudgeReply:
        response = object_or_empty(line.get("response"))
        error = line.get("error")
        if response and response.get("status_code") == 200 and not error:
            return verdict_reply(self.judge, response.get("body"))
        if isinstance(error, dict):
            return failed_reply(self.judge, f"batch: {error.get('code')}: {error.get('message')}")
        body = json.dumps(response.get("body"))[:500] if response else "no response"
        return failed_reply(self.judge, f"batch: HTTP {response.get('status_code')}: {body}")

    async def cancel(self, batch_id: str) -> None:
        await self._json("POST", f"/batches/{batch_id}/cancel")


class AnthropicBatches(BatchAPI):
    """`anthropic.types.messages.MessageBatch`; results lines `MessageBatchIndividualResponse`."""

    max_requests: ClassVar[int] = 100_000

    def _path(self) -> str:
        return "/messages/batches" if self.judge.base_url.endswith("/v1") else "/v1/messages/batches"

    async def submit(self, requests: Requests) -> str:
        body = {"requests": [{"custom_id": cid, "params": params} for cid, params in requests]}
        made = await self._json("POST", self._path(), json=body)
        if not isinstance(made.get("id"), str):
            raise BatchFailed("POST /v1/messages/batches: no batch id in the reply")
        return str(made["id"])

    async def poll(self, batch_id: str) -> BatchState:
        data = await self._json("GET", f"{self._path()}/{batch_id}")
        status = str(data.get("processing_status"))
        counts = data.get("request_counts") or {}
        failed = sum(int(counts.get(k) or 0) for k in ("errored", "canceled", "expired"))
        ended = status == "ended"
        return BatchState(
            status,
            ended,
            ended and not data.get("results_url"),
            int(counts.get("succeeded") or 0),
            failed,
            data,
        )

    async def results(self, state: BatchState, keys: tuple[str, ...]) -> dict[str, JudgeReply]:
        if not state.raw.get("results_url"):
            return {}
        # the documented results path on the judge's own host (the key is never sent to a host the reply names)
        text = (await self._request("GET", f"{self._path()}/{state.raw.get('id')}/results")).text
        replies: dict[str, JudgeReply] = {}
        for line in jsonl(text):
            result = object_or_empty(line.get("result"))
            if not isinstance(cid := line.get("custom_id"), str):
                continue
            kind = result.get("type")
            if kind == "succeeded":
                replies[cid] = verdict_reply(self.judge, result.get("message"))
            else:
                detail = object_or_empty(object_or_empty(result.get("error")).get("error")).get("message")
                replies[cid] = failed_reply(self.judge, f"batch: {kind}" + (f": {detail}" if detail else ""))
        return replies

    async def cancel(self, batch_id: str) -> None:
        await self._json("POST", f"{self._path()}/{batch_id}/cancel")


class GeminiBatches(BatchAPI):
    """Gemini batch mode: `models/{model}:batchGenerateContent` with inlined requests (`{request, metadata: {key}}`),
    the returned operation (`batches/{id}`) polled until its `metadata.state` ends; the responses inlined in its
    output, in the order of the requests (a response's `metadata.key`, when given, names its request)."""

    max_requests: ClassVar[int] = 10_000  # inlined requests stay under the API's request size limit
    ENDED: ClassVar[frozenset[str]] = frozenset(
        {"BATCH_STATE_SUCCEEDED", "BATCH_STATE_FAILED", "BATCH_STATE_CANCELLED", "BATCH_STATE_EXPIRED"}
    )

    async def submit(self, requests: Requests) -> str:
        inlined = [{"request": body, "metadata": {"key": cid}} for cid, body in requests]
        batch = {"displayName": "elotui", "inputConfig": {"requests": {"requests": inlined}}}
        path = self.judge.path().replace(":generateContent", ":batchGenerateContent")
        made = await self._json("POST", path, json={"batch": batch})
        if not isinstance(made.get("name"), str):
            raise BatchFailed(f"POST {path}: no operation name in the reply")
        return str(made["name"])

    async def poll(self, batch_id: str) -> BatchState:
        data = await self._json("GET", f"/{batch_id}")
        meta = object_or_empty(data.get("metadata"))
        status = str(meta.get("state"))
        stats = object_or_empty(meta.get("batchStats"))
        done, failed = (int(stats.get(k) or 0) for k in ("successfulRequestCount", "failedRequestCount"))
        ended = status in self.ENDED
        return BatchState(status, ended, ended and not self._responses(data), done, failed, data)

    @staticmethod
    def _responses(data: dict[str, Any]) -> list[Any]:
        for where in (object_or_empty(data.get("metadata")).get("output"), data.get("response")):
            found = object_or_empty(object_or_empty(where).get("inlinedResponses")).get("inlinedResponses")
            if isinstance(found, list):
                return found
        return []

    async def results(self, state: BatchState, keys: tuple[str, ...]) -> dict[str, JudgeReply]:
        replies: dict[str, JudgeReply] = {}
        for n, item in enumerate(self._responses(state.raw)):
            item = object_or_empty(item)
            key = object_or_empty(item.get("metadata")).get("key")
            cid = key if isinstance(key, str) else keys[n] if n < len(keys) else None
            if cid is None:
                continue
            if "response" in item:
                replies[cid] = verdict_reply(self.judge, item["response"])
            else:
                error = object_or_empty(item.get("error"))
                replies[cid] = failed_reply(self.judge, f"batch: {error.get('code')}: {error.get('message')}")
        return replies

    async def cancel(self, batch_id: str) -> None:
        await self._request("POST", f"/{batch_id}:cancel")


def batch_api(judge: LiveJudge) -> BatchAPI:
    """The batch endpoints of the judge's provider."""
    provider = judge.config.provider
    if provider in ("openai", "openai-compatible"):
        return OpenAIBatches(judge)
    if provider == "anthropic":
        return AnthropicBatches(judge)
    if provider == "gemini":
        return GeminiBatches(judge)
    raise ValueError(f"no batch API for provider {provider!r}")
