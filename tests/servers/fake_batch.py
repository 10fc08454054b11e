"""A loopback fake of the OpenAI (Files + Batches) and Anthropic (Message Batches) batch APIs, on 127.0.0.1.

Each request line is answered as the synchronous fake (tests.servers.fake_llm) would answer it: `verdict_fn`,
else prefer the longer response. A batch goes `validating → in_progress → finalizing → completed` (OpenAI) or
`in_progress → ended` (Anthropic), `PENDING → RUNNING → SUCCEEDED` (Gemini), one step per poll; `hold` keeps new batches in progress until `release()`.
`outcome_fn(custom_id) -> "errored" | "expired" | "canceled" | "missing" | None` picks a request's fate; a batch
can be made to fail as a whole (`fail_whole`). `submitted` counts every custom_id ever submitted; `problems`
lists every body received or reply sent that the official SDK types reject (tests assert it stays empty).
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from tests.judges.sdk_types import problems as sdk_problems
from tests.servers.fake_llm import Request, Text, Verdict, encode_reply, prefer_longer, verdict_text

Outcome = str | None
NOW = 1_700_000_000


class FakeBatchServer:
    def __init__(
        self,
        *,
        verdict_fn: Callable[[Request], Any] | None = None,
        outcome_fn: Callable[[str], Outcome] | None = None,
        hold: bool = False,
    ) -> None:
        self.verdict_fn = verdict_fn or prefer_longer
        self.outcome_fn = outcome_fn or (lambda _cid: None)
        self.hold = hold
        self.fail_whole = False
        self.submitted: Counter[str] = Counter()
        self.batches: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}
        self.problems: list[str] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    # --- lifecycle ------------------------------------------------------------------------------------

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def release(self) -> None:
        self.hold = False

    @property
    def created(self) -> int:
        return len(self.batches)

    # --- answering ------------------------------------------------------------------------------------

    def _answer(self, wire: str, body: dict[str, Any]) -> dict[str, Any]:
        request = Request(wire, "POST", "/", {}, json.dumps(body).encode(), 0.0, 0)  # type: ignore[arg-type]
        action = self.verdict_fn(request)
        if isinstance(action, str):
            action = Verdict(action, "Fake: scripted verdict.")
        text = (
            verdict_text(action)
            if isinstance(action, Verdict)
            else action.text
            if isinstance(action, Text)
            else ""
        )
        return encode_reply(wire, request, text, None, None)  # type: ignore[arg-type]

    def _check(self, value: Any, tp: Any, what: str) -> None:
        found = sdk_problems(value, tp, what)
        if found:
            self.problems.extend(found)

    def _validate(self, model: Any, data: dict[str, Any], what: str) -> None:
        try:
            model.model_validate(data, strict=False)
        except Exception as exc:  # noqa: BLE001 - recorded for the test to assert on
            self.problems.append(f"{what}: {exc}")

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _reply(self, code: int, body: bytes, kind: str = "application/json") -> None:
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _route(self, method: str) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                with server._lock:
                    server.paths.append(f"{method} {self.path}")
                    code, body, kind = server.route(method, self.path, dict(self.headers), raw)
                self._reply(code, body, kind)

            def do_GET(self) -> None:
                self._route("GET")

            def do_POST(self) -> None:
                self._route("POST")

        return Handler

    def route(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, str]:
        if method == "POST" and path == "/v1/files":
            return self._upload(headers, raw)
        if method == "POST" and path == "/v1/batches":
            return self._openai_create(json.loads(raw))
        if m := re.fullmatch(r"/v1/batches/([^/]+)(/cancel)?", path):
            return self._openai_batch(m.group(1), cancel=bool(m.group(2)))
        if m := re.fullmatch(r"/v1/files/([^/]+)/content", path):
            data = self.files.get(m.group(1))
            return (200, data, "application/jsonl") if data is not None else (404, b"{}", "application/json")
        if method == "POST" and path == "/v1/messages/batches":
            return self._anthropic_create(json.loads(raw))
        if m := re.fullmatch(r"/v1/messages/batches/([^/]+)(/cancel|/results)?", path):
            return self._anthropic_batch(m.group(1), m.group(2) or "")
        if m := re.fullmatch(r"/v1beta/models/([^/:]+):batchGenerateContent", path):
            return self._gemini_create(m.group(1), json.loads(raw))
        if m := re.fullmatch(r"/v1beta/(batches/[^/:]+)(:cancel)?", path):
            return self._gemini_batch(m.group(1), cancel=bool(m.group(2)))
        return (
            404,
            json.dumps({"error": {"message": f"no route {method} {path}"}}).encode(),
            "application/json",
        )

    # --- OpenAI -------------------------------------------------------------------------------------------

    def _upload(self, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, str]:
        ctype = next(v for k, v in headers.items() if k.lower() == "content-type")
        message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {ctype}\r\n\r\n".encode() + raw)
        parts = {
            p.get_param("name", header="content-disposition"): p.get_payload(decode=True)
            for p in message.iter_parts()
        }
        if parts.get("purpose") != b"batch":
            self.problems.append(f"upload purpose {parts.get('purpose')!r}")
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = parts.get("file") or b""
        made = {
            "id": file_id,
            "object": "file",
            "bytes": len(self.files[file_id]),
            "created_at": NOW,
            "filename": "elotui.jsonl",
            "purpose": "batch",
            "status": "processed",
        }
        from openai.types import FileObject

        self._validate(FileObject, made, "file object")
        return 200, json.dumps(made).encode(), "application/json"

    def _openai_create(self, body: dict[str, Any]) -> tuple[int, bytes, str]:
        from openai.types.batch_create_params import BatchCreateParams
        from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

        self._check(body, BatchCreateParams, "batch create")
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines() if line.strip()]
        for line in lines:
            if set(line) != {"custom_id", "method", "url", "body"} or line["url"] != "/v1/chat/completions":
                self.problems.append(f"input line keys {sorted(line)}")
            self._check(line["body"], CompletionCreateParamsNonStreaming, "input line body")
            self.submitted[line["custom_id"]] += 1
        batch_id = f"batch_{len(self.batches) + 1}"
        self.batches[batch_id] = {
            "wire": "openai",
            "lines": lines,
            "status": "validating",
            "output": None,
            "errors": None,
        }
        return 200, json.dumps(self._openai_object(batch_id)).encode(), "application/json"

    def _openai_object(self, batch_id: str) -> dict[str, Any]:
        from openai.types import Batch

        b = self.batches[batch_id]
        total = len(b["lines"])
        done = b.get("done", 0)
        made = {
            "id": batch_id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": "file-in",
            "completion_window": "24h",
            "status": b["status"],
            "output_file_id": b["output"],
            "error_file_id": b["errors"],
            "created_at": NOW,
            "request_counts": {"total": total, "completed": done, "failed": b.get("failed", 0)},
        }
        self._validate(Batch, made, "batch object")
        return made

    def _openai_batch(self, batch_id: str, *, cancel: bool) -> tuple[int, bytes, str]:
        b = self.batches.get(batch_id)
        if b is None:
            return 404, b'{"error": {"message": "no such batch"}}', "application/json"
        if cancel:
            b["status"] = "cancelled"
        elif b["status"] == "validating":
            b["status"] = "in_progress"
        elif b["status"] == "in_progress" and not self.hold:
            b["status"] = "finalizing"
        elif b["status"] == "finalizing":
            self._finish_openai(batch_id, b)
        return 200, json.dumps(self._openai_object(batch_id)).encode(), "application/json"

    def _finish_openai(self, batch_id: str, b: dict[str, Any]) -> None:
        if self.fail_whole:
            b["status"] = "failed"
            return
        out, err = [], []
        for n, line in enumerate(b["lines"]):
            cid, fate = line["custom_id"], self.outcome_fn(line["custom_id"])
            rid = f"batch_req_{batch_id}_{n}"
            if fate == "missing":
                continue
            if fate is None:
                body = self._answer("openai", line["body"])
                out.append(
                    {
                        "id": rid,
                        "custom_id": cid,
                        "response": {"status_code": 200, "request_id": rid, "body": body},
                        "error": None,
                    }
                )
            elif fate == "expired":
                err.append(
                    {
                        "id": rid,
                        "custom_id": cid,
                        "response": None,
                        "error": {
                            "code": "batch_expired",
                            "message": "This request could not be executed before the completion window expired.",
                        },
                    }
                )
            else:
                body = {"error": {"message": "fake: server error", "type": "server_error"}}
                err.append(
                    {
                        "id": rid,
                        "custom_id": cid,
                        "response": {"status_code": 500, "request_id": rid, "body": body},
                        "error": None,
                    }
                )
        for name, rows in (("output", out), ("errors", err)):
            if rows:
                file_id = f"file-{batch_id}-{name}"
                self.files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                b[name] = file_id
        b["done"], b["failed"], b["status"] = len(out), len(err), "completed"

    # --- Anthropic ----------------------------------------------------------------------------------------

    def _anthropic_create(self, body: dict[str, Any]) -> tuple[int, bytes, str]:
        from anthropic.types.messages.batch_create_params import BatchCreateParams

        self._check(body, BatchCreateParams, "message batch create")
        for request in body["requests"]:
            self.submitted[request["custom_id"]] += 1
        batch_id = f"msgbatch_{len(self.batches) + 1}"
        self.batches[batch_id] = {"wire": "anthropic", "lines": body["requests"], "status": "in_progress"}
        return 200, json.dumps(self._anthropic_object(batch_id)).encode(), "application/json"

    def _anthropic_object(self, batch_id: str) -> dict[str, Any]:
        from anthropic.types.messages import MessageBatch

        b = self.batches[batch_id]
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        counts.update(b.get("counts") or {"processing": len(b["lines"])})
        ended = b["status"] == "ended"
        made = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": b["status"],
            "request_counts": counts,
            "created_at": "2026-01-01T00:00:00Z",
            "expires_at": "2026-01-02T00:00:00Z",
            "ended_at": "2026-01-01T01:00:00Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.url}/v1/messages/batches/{batch_id}/results"
            if ended and not b.get("failed_whole")
            else None,
        }
        self._validate(MessageBatch, made, "message batch")
        return made

    def _anthropic_batch(self, batch_id: str, tail: str) -> tuple[int, bytes, str]:
        b = self.batches.get(batch_id)
        if b is None:
            return (
                404,
                b'{"type": "error", "error": {"type": "not_found_error", "message": "no"}}',
                "application/json",
            )
        if tail == "/results":
            return 200, b.get("results", b""), "application/binary"
        if tail == "/cancel":
            b["status"] = "canceling"
        elif b["status"] == "in_progress" and not self.hold:
            self._finish_anthropic(b)
        return 200, json.dumps(self._anthropic_object(batch_id)).encode(), "application/json"

    def _finish_anthropic(self, b: dict[str, Any]) -> None:
        from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
        from anthropic.types.messages import MessageBatchIndividualResponse

        b["status"], rows, counts = "ended", [], Counter[str]()
        for request in b["lines"]:
            self._check(request["params"], MessageCreateParamsNonStreaming, "batch request params")
            cid, fate = request["custom_id"], self.outcome_fn(request["custom_id"])
            if fate == "missing":
                continue
            if fate is None:
                result: dict[str, Any] = {
                    "type": "succeeded",
                    "message": self._answer("anthropic", request["params"]),
                }
            elif fate == "errored":
                result = {
                    "type": "errored",
                    "error": {"type": "error", "error": {"type": "api_error", "message": "fake: overloaded"}},
                }
            else:
                result = {"type": "expired" if fate == "expired" else "canceled"}
            counts[result["type"]] += 1
            row = {"custom_id": cid, "result": result}
            self._validate(MessageBatchIndividualResponse, row, "results line")
            rows.append(row)
        b["counts"] = dict(counts)
        b["results"] = "".join(json.dumps(r) + "\n" for r in rows).encode()

    # --- Gemini ---------------------------------------------------------------------------------------------

    def _gemini_create(self, model: str, body: dict[str, Any]) -> tuple[int, bytes, str]:
        from google.genai import _api_client, _common, batches

        api = _api_client.BaseApiClient(api_key="unused")  # the envelope the SDK writes for inlined requests
        params = {
            "model": model,
            "src": {"inlined_requests": [{"metadata": {"key": "k"}, "contents": "x"}]},
            "config": {"display_name": "elotui"},
        }
        sdk = _common.convert_to_dict(batches._CreateBatchJobParameters_to_mldev(api, params))
        batch = body.get("batch") or {}
        if set(body) != {"batch"} or set(batch) != set(sdk["batch"]):
            self.problems.append(f"gemini batch keys {sorted(body)} {sorted(batch)}")
        items = batch["inputConfig"]["requests"]["requests"]
        for item in items:
            if set(item) != set(sdk["batch"]["inputConfig"]["requests"]["requests"][0]):
                self.problems.append(f"inlined request keys {sorted(item)}")
            self.submitted[item["metadata"]["key"]] += 1
        name = f"batches/{len(self.batches) + 1}"
        self.batches[name] = {
            "wire": "gemini",
            "lines": items,
            "status": "BATCH_STATE_PENDING",
            "model": model,
        }
        return 200, json.dumps(self._gemini_operation(name)).encode(), "application/json"

    def _gemini_operation(self, name: str) -> dict[str, Any]:
        from google.genai import batches
        from google.genai import types as gtypes

        b = self.batches[name]
        total, done, failed = len(b["lines"]), b.get("done", 0), b.get("failed", 0)
        stats = {
            "requestCount": str(total),
            "successfulRequestCount": str(done),
            "failedRequestCount": str(failed),
            "pendingRequestCount": str(total - done - failed),
        }
        meta: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": f"models/{b['model']}",
            "displayName": "elotui",
            "name": name,
            "state": b["status"],
            "createTime": "2026-01-01T00:00:00Z",
            "updateTime": "2026-01-01T00:00:00Z",
            "batchStats": stats,
        }
        op: dict[str, Any] = {"name": name, "metadata": meta}
        if "output" in b:
            meta["output"] = {"inlinedResponses": {"inlinedResponses": b["output"]}}
            op["done"] = True
        self._validate(gtypes.BatchJob, batches._BatchJob_from_mldev(op), "gemini batch job")
        return op

    def _gemini_batch(self, name: str, *, cancel: bool) -> tuple[int, bytes, str]:
        b = self.batches.get(name)
        if b is None:
            return 404, b'{"error": {"code": 404, "message": "no such batch"}}', "application/json"
        if cancel:
            b["status"] = "BATCH_STATE_CANCELLED"
            return 200, b"{}", "application/json"
        if b["status"] == "BATCH_STATE_PENDING":
            b["status"] = "BATCH_STATE_RUNNING"
        elif b["status"] == "BATCH_STATE_RUNNING" and not self.hold:
            self._finish_gemini(b)
        return 200, json.dumps(self._gemini_operation(name)).encode(), "application/json"

    def _finish_gemini(self, b: dict[str, Any]) -> None:
        out: list[dict[str, Any]] = []
        done = failed = 0
        for item in b["lines"]:
            fate = self.outcome_fn(item["metadata"]["key"])
            if fate is None:
                out.append(
                    {"response": self._answer("gemini", item["request"]), "metadata": item["metadata"]}
                )
                done += 1
            else:  # every request is answered, in order: a failed one carries its error (a google.rpc.Status)
                out.append({"error": {"code": 13, "message": f"fake: {fate}"}, "metadata": item["metadata"]})
                failed += 1
        b["output"], b["done"], b["failed"], b["status"] = out, done, failed, "BATCH_STATE_SUCCEEDED"
