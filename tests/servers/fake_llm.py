"""A fake LLM provider on 127.0.0.1 speaking the OpenAI, Anthropic, Gemini and Ollama wire formats.

A real HTTP/1.1 server (asyncio streams, keep-alive, any number of concurrent requests) running its own event
loop in a background thread, so sync tests, async tests and the TUI's tests can all use it. It records every
request (arrival time, headers, body, connection) and counts in-flight requests. Behaviour per request:
the next scripted action (FIFO), else `verdict_fn(request)`, else `prefer_longer`. See README.md here.

Run standalone (used by the benchmark): `python -m tests.servers.fake_llm --latency-ms 50` prints the port.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Self

Wire = Literal["openai", "anthropic", "gemini", "ollama"]
Shape = Literal["better", "winner", "preferred", "preferred_profile", "prose", "fence", "upper"]

# --- actions -----------------------------------------------------------------------------------------------


GRADES = ("A>>B", "A>B", "A=B", "B>A", "B>>A")  # the graded scale (`[judge_prompt] scale = "graded"`)
STRONG_RATIO = 2.0  # graded default verdicts: a response this many times longer is strongly preferred (`>>`)


@dataclass(frozen=True)
class Verdict:
    """A well-formed verdict reply. `better` is "A", "B" or "tie", or on the graded scale one of GRADES;
    `shape` picks one accepted form:
    better (the requested object), winner, preferred (1/2), preferred_profile, prose (object inside prose),
    fence (a ```json block), upper (keys and values in odd case and spacing)."""

    better: str = "A"
    reasoning: str = "Fake reasoning: compared both responses."
    shape: Shape = "better"
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Text:
    """A reply whose text is exactly `text` (an invalid verdict, or a plain completion)."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class Status:
    """An HTTP status with an optional body and headers (e.g. 429 with Retry-After, 500, 503, 401)."""

    code: int
    body: str = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ApiError:
    """An error status with the body each provider really sends (`error_body`): OpenAI's
    `{"error": {"message", "type", "param", "code"}}`, Anthropic's `{"type": "error", "error": {"type", "message"}}`,
    Google's `{"error": {"code", "message", "status"}}`, Ollama's `{"error": "..."}`."""

    code: int
    message: str = "fake error"
    headers: dict[str, str] = field(default_factory=dict)


ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
GOOGLE_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_denied",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
}


def error_body(wire: Wire | None, code: int, message: str) -> dict[str, Any]:
    if wire == "anthropic":
        kind = ANTHROPIC_ERROR_TYPES.get(code, "api_error" if code >= 500 else "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}
    if wire == "gemini":
        return {"error": {"code": code, "message": message, "status": GOOGLE_STATUSES.get(code, "UNKNOWN")}}
    if wire == "ollama":
        return {"error": message}
    return {
        "error": {
            "message": message,
            "type": OPENAI_ERROR_TYPES.get(code, "server_error"),
            "param": None,
            "code": None,
        }
    }


def rate_limited(retry_after: str | float | None = None) -> ApiError:
    """429 Too Many Requests in the provider's own error shape, with `Retry-After` in seconds (a number) or an
    HTTP date (a string)."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return ApiError(429, "rate limited (fake)", headers)


@dataclass(frozen=True)
class Slow:
    """Wait `seconds` (on top of the server latency) before answering with `then` (default: the default reply)."""

    seconds: float
    then: Action | None = None


@dataclass(frozen=True)
class Drop:
    """Read the request, then close the connection without answering."""


@dataclass(frozen=True)
class Echo:
    """Answer 200 with a text that echoes the request's headers and body (for key-leak tests)."""

    code: int = 200


@dataclass(frozen=True)
class RawBody:
    """Answer `code` with this exact body (e.g. a body that is not JSON; bytes, e.g. a gzip bomb, with headers)."""

    body: str | bytes
    code: int = 200
    content_type: str = "text/plain"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Trickle:
    """Answer 200 with headers at once, then the body `chunk` bytes (default one) every `every_s` seconds (a hostile
    slow server; with `headers`, e.g. a compressed body). With `together`, the body starts once that many requests
    are in flight (at most 10 s later), so that as many replies are being read at once."""

    body: bytes = b'{"choices": []}'
    every_s: float = 1.0
    chunk: int = 1
    headers: dict[str, str] = field(default_factory=dict)
    together: int = 0


Action = Verdict | Text | Status | ApiError | Slow | Drop | Echo | RawBody | Trickle
VerdictFn = Callable[["Request"], "Action | str | None"]

# --- what the server saw ----------------------------------------------------------------------------------


@dataclass
class Request:
    wire: Wire | None
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    body: bytes
    arrived: float  # time.monotonic() when the request was complete
    connection: int  # which TCP connection carried it (1, 2, ...)
    finished: float | None = None

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def model(self) -> str | None:
        if self.wire == "gemini":
            m = re.search(r"/models/([^/:]+):generateContent", self.path)
            return m.group(1) if m else None
        body = self.json
        return body.get("model") if isinstance(body, dict) else None

    @property
    def system(self) -> str:
        return _system_of(self.wire, self.json)

    @property
    def user(self) -> str:
        return _user_of(self.wire, self.json)

    @property
    def wants_verdict(self) -> bool:
        """True when the request asked for structured output (JSON schema / JSON mode / tool)."""
        body = self.json
        if not isinstance(body, dict):
            return False
        if self.wire == "openai":
            return "response_format" in body
        if self.wire == "anthropic":
            return "format" in (body.get("output_config") or {}) or "tools" in body
        if self.wire == "gemini":
            return "responseSchema" in (body.get("generationConfig") or {})
        return "format" in body

    @property
    def wants_graded(self) -> bool:
        """True when the request asks for a graded verdict (its prompt or schema names the grade `A>>B`)."""
        return b"A>>B" in self.body

    @property
    def responses(self) -> tuple[str, str] | None:
        return extract_responses(self.user)


def _system_of(wire: Wire | None, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if wire in ("openai", "ollama"):
        return "".join(m.get("content", "") for m in body.get("messages", []) if m.get("role") == "system")
    if wire == "anthropic":
        system = body.get("system", "")
        return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)
    if wire == "gemini":
        return "".join(p.get("text", "") for p in (body.get("systemInstruction") or {}).get("parts", []))
    return ""


def _user_of(wire: Wire | None, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if wire in ("openai", "ollama", "anthropic"):
        msgs = [m for m in body.get("messages", []) if m.get("role") == "user"]
        if not msgs:
            return ""
        content = msgs[-1].get("content", "")
        return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    if wire == "gemini":
        contents = body.get("contents") or []
        return "".join(p.get("text", "") for p in (contents[-1].get("parts", []) if contents else []))
    return ""


_DELIMITED = re.compile(
    r"<<<RESPONSE A (?P<ta>\S+)>>>\n(?P<a>.*?)\n<<<END RESPONSE A (?P=ta)>>>.*?"
    r"<<<RESPONSE B (?P<tb>\S+)>>>\n(?P<b>.*?)\n<<<END RESPONSE B (?P=tb)>>>",
    re.DOTALL,
)
_HEADED = re.compile(
    r"(?:^|\n)\W*(?:Response|Assistant) (?:A|1)\W*\n(?P<a>.*?)\n\W*(?:Response|Assistant) (?:B|2)\W*\n(?P<b>.*?)"
    r"(?:\n\W*(?:End|\[End)|\Z)",
    re.DOTALL | re.IGNORECASE,
)


def extract_responses(user: str) -> tuple[str, str] | None:
    """The two responses shown to the judge, from elotui's delimiters `<<<RESPONSE A token>>> ...`
    (a worked example's `<<<EXAMPLE RESPONSE A ...>>>` is skipped), else from "Response A / Response B" headings."""
    m = _DELIMITED.search(user)
    if m:
        return m.group("a"), m.group("b")
    m = _HEADED.search(user)
    if m:
        return m.group("a").strip(), m.group("b").strip()
    return None


# --- verdict functions ------------------------------------------------------------------------------------


def prefer_longer(request: Request) -> Action:
    """The default: prefer the longer response (tie when equal); a plain completion when no responses are shown."""
    pair = request.responses
    if pair is None:
        if request.wants_verdict:
            return Verdict("A", "Fake: no responses found in the prompt; answering A.")
        return Text(f"Fake completion of a {len(request.user)}-character request.")
    a, b = pair
    better = "A" if len(a) > len(b) else "B" if len(b) > len(a) else "tie"
    if request.wants_graded:
        strong = max(len(a), len(b)) >= STRONG_RATIO * max(min(len(a), len(b)), 1)
        better = graded(better, strong)
    return Verdict(better, f"Fake: response A has {len(a)} characters, response B {len(b)}.")


def graded(better: str, strong: bool) -> str:
    """A binary decision ("A", "B", "tie") on the graded scale: `>>` when strong."""
    if better == "tie":
        return "A=B"
    sign = ">>" if strong else ">"
    return f"A{sign}B" if better == "A" else f"B{sign}A"


def by_quality(qualities: dict[str, float], strong_gap: float, tie_gap: float = 0.0) -> VerdictFn:
    """A judge that knows each contestant's latent quality: the contestant is the one whose id a response shown
    contains (`answer of <id>`). The better one wins; a gap of at least `strong_gap` is a strong preference (`>>`)
    when the request asks for the graded scale, a gap below `tie_gap` a tie."""

    def who(text: str) -> str:
        found = [c for c in qualities if f"answer of {c}" in text]
        assert len(found) == 1, text
        return found[0]

    def fn(request: Request) -> Action:
        pair = request.responses
        if pair is None:
            return prefer_longer(request)
        a, b = (who(text) for text in pair)
        gap = qualities[a] - qualities[b]
        better = "tie" if abs(gap) < tie_gap or gap == 0 else "A" if gap > 0 else "B"
        if request.wants_graded:
            better = graded(better, abs(gap) >= strong_gap)
        return Verdict(better, f"Fake: {a} (A) has quality {qualities[a]:g}, {b} (B) {qualities[b]:g}.")

    return fn


def prefer_shorter(request: Request) -> Action:
    pair = request.responses
    if pair is None:
        return prefer_longer(request)
    a, b = pair
    better = "A" if len(a) < len(b) else "B" if len(b) < len(a) else "tie"
    return Verdict(better, f"Fake: response A has {len(a)} characters, response B {len(b)}.")


def by_responses(choose: Callable[[str, str], str]) -> VerdictFn:
    """A verdict function from `choose(response_a, response_b) -> "A" | "B" | "tie"`."""

    def fn(request: Request) -> Action:
        pair = request.responses
        if pair is None:
            return prefer_longer(request)
        return Verdict(choose(*pair), "Fake: scripted by the responses shown.")

    return fn


def scripted_map(table: dict[tuple[str, str], str], default: str | Action = "tie") -> VerdictFn:
    """Verdicts looked up by (substring of response A, substring of response B) → "A" | "B" | "tie" | Action.
    The first entry whose two substrings occur in the shown responses wins; else `default`."""

    def fn(request: Request) -> Action | str:
        pair = request.responses
        if pair is not None:
            a, b = pair
            for (sa, sb), answer in table.items():
                if sa in a and sb in b:
                    return answer
        return default

    return fn


# --- encoding replies per wire format ---------------------------------------------------------------------


def verdict_text(v: Verdict) -> str:
    if v.better in GRADES:
        word: str = v.better
        number: int | str = v.better  # (a graded answer has no number form)
    else:
        word = {"A": "A", "B": "B", "tie": "tie"}[v.better]
        number = {"A": 1, "B": 2, "tie": "tie"}[v.better]
    if v.shape == "better":
        return json.dumps({"reasoning": v.reasoning, "better": word})
    if v.shape == "winner":
        return json.dumps({"reasoning": v.reasoning, "winner": word})
    if v.shape == "preferred":
        return json.dumps({"reasoning": v.reasoning, "preferred": number})
    if v.shape == "preferred_profile":
        return json.dumps({"reasoning": v.reasoning, "preferred_profile": number})
    if v.shape == "prose":
        return f"{v.reasoning}\n\nMy verdict: {json.dumps({'better': word})} — final."
    if v.shape == "fence":
        return f"Let me think.\n\n```json\n{json.dumps({'reasoning': v.reasoning, 'better': word}, indent=2)}\n```\n"
    if v.shape == "upper":
        return json.dumps({" Reasoning ": v.reasoning, "BETTER": f"  {word.lower()} "})
    raise ValueError(v.shape)


def encode_reply(
    wire: Wire,
    request: Request,
    text: str,
    tokens_in: int | None,
    tokens_out: int | None,
    tool_input: dict[str, Any] | None = None,
) -> dict[str, Any]:
    tin = tokens_in if tokens_in is not None else (len(request.system) + len(request.user)) // 4 + 1
    tout = tokens_out if tokens_out is not None else len(text) // 4 + 1
    model = request.model or "fake-model"
    if wire == "openai":
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": tin, "completion_tokens": tout, "total_tokens": tin + tout},
        }
    if wire == "anthropic":
        if tool_input is not None:
            tools = (request.json or {}).get("tools") or [{}]
            content: list[dict[str, Any]] = [
                {
                    "type": "tool_use",
                    "id": "toolu_fake",
                    "name": tools[0].get("name", "tool"),
                    "input": tool_input,
                }
            ]
        else:
            content = [{"type": "text", "text": text}]
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "tool_use" if tool_input is not None else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tin, "output_tokens": tout},
        }
    if wire == "gemini":
        return {
            "candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}],
            "usageMetadata": {
                "promptTokenCount": tin,
                "candidatesTokenCount": tout,
                "totalTokenCount": tin + tout,
            },
        }
    return {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": text},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": tin,
        "eval_count": tout,
    }


def wire_of(path: str) -> Wire | None:
    path = path.split("?", 1)[0]
    if path.endswith("/chat/completions"):
        return "openai"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith(":generateContent"):
        return "gemini"
    if path.endswith("/api/chat"):
        return "ollama"
    return None


_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    529: "Overloaded",
}

# --- the server -------------------------------------------------------------------------------------------


class FakeLLMServer:
    """See the module docstring and README.md. Thread-safe to script and read from the test thread."""

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        verdict_fn: VerdictFn | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.latency_s = latency_s
        self.verdict_fn = verdict_fn
        self.host = host
        self.port = port
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.connections = 0
        self._script: collections.deque[Action] = collections.deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.base_events.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._conn_ids = itertools.count(1)

    # --- lifecycle -----------------------------------------------------------------------------------------

    def start(self) -> Self:
        ready = threading.Event()
        errors: list[OSError] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            try:
                self._server = loop.run_until_complete(
                    asyncio.start_server(self._handle, self.host, self.port, backlog=1024)
                )
                self.port = self._server.sockets[0].getsockname()[1]
            except OSError as exc:  # start-up failure is reported to start()
                errors.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm-server", daemon=True)
        self._thread.start()
        ready.wait(10)
        if errors:
            raise errors[0]
        return self

    def stop(self) -> None:
        loop = self._loop
        if loop is None or self._thread is None:
            return

        async def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(10)
        self._loop = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- scripting and reading -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def base_url(self, provider: str) -> str:
        """The `base_url` a judge of this provider uses to reach this server."""
        suffix = {
            "openai": "/v1",
            "openai-compatible": "/v1",
            "anthropic": "",
            "gemini": "/v1beta",
            "ollama": "",
        }
        return self.url + suffix[provider]

    def judge_config(self, provider: str = "openai", **fields: Any) -> dict[str, Any]:
        """Keyword arguments for `JudgeConfig` / `EndpointConfig` pointing at this server."""
        out: dict[str, Any] = {
            "provider": provider,
            "model": "fake-model",
            "base_url": self.base_url(provider),
        }
        if provider in ("openai", "anthropic", "gemini"):
            out["api_key_env"] = "ELOTUI_FAKE_KEY"
        out.update(fields)
        return out

    def script(self, *actions: Action) -> None:
        """Queue actions for the next requests, in arrival order."""
        with self._lock:
            self._script.extend(actions)

    def clear_script(self) -> None:
        """Drop the actions not yet used (the requests seen are kept)."""
        with self._lock:
            self._script.clear()

    def clear(self) -> None:
        with self._lock:
            self._script.clear()
            self.requests.clear()
            self.max_in_flight = 0

    @property
    def pending_script(self) -> int:
        return len(self._script)

    def arrivals(self) -> list[float]:
        return sorted(r.arrived for r in self.requests)

    # --- HTTP ----------------------------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        conn = next(self._conn_ids)
        with self._lock:
            self.connections += 1
        try:
            while True:
                request = await self._read_request(reader, conn)
                if request is None:
                    break
                keep = await self._serve(request, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(OSError, RuntimeError):
                writer.close()
            self._tasks.discard(task)

    async def _read_request(self, reader: asyncio.StreamReader, conn: int) -> Request | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        body = await reader.readexactly(length) if length else b""
        return Request(
            wire=wire_of(target),
            method=method,
            path=target,
            headers=headers,
            body=body,
            arrived=time.monotonic(),
            connection=conn,
        )

    def _next_action(self, request: Request) -> Action:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return self._default(request)

    def _default(self, request: Request) -> Action:
        fn = self.verdict_fn or prefer_longer
        answer = fn(request)
        if answer is None:
            return prefer_longer(request)
        if isinstance(answer, str):
            return Verdict(answer, "Fake: scripted verdict.")
        return answer

    async def _serve(self, request: Request, writer: asyncio.StreamWriter) -> bool:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            action = self._next_action(request)
            if self.latency_s > 0:
                await asyncio.sleep(self.latency_s)
            while isinstance(action, Slow):
                await asyncio.sleep(action.seconds)
                action = action.then if action.then is not None else self._default(request)
            if isinstance(action, Drop):
                writer.transport.abort()
                return False
            if isinstance(action, Trickle):
                extra = "".join(f"{k}: {v}\r\n" for k, v in action.headers.items())
                writer.write(
                    f"HTTP/1.1 200 OK\r\nContent-Length: {len(action.body)}\r\n"
                    f"Content-Type: application/json\r\n{extra}\r\n".encode("latin-1")
                )
                for _ in range(2000):
                    if self.in_flight >= action.together:
                        break
                    await asyncio.sleep(0.005)
                for at in range(0, len(action.body), action.chunk):
                    await writer.drain()
                    await asyncio.sleep(action.every_s)
                    writer.write(action.body[at : at + action.chunk])
                await writer.drain()
                return False
            code, body, headers = self._render(action, request)
            keep = request.headers.get("connection", "").lower() != "close"
            head = [
                f"HTTP/1.1 {code} {_REASONS.get(code, 'Status')}",
                f"Content-Length: {len(body)}",
                f"Connection: {'keep-alive' if keep else 'close'}",
            ]
            head += [f"{k}: {v}" for k, v in headers.items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            return keep
        finally:
            with self._lock:
                self.in_flight -= 1
                request.finished = time.monotonic()

    def _render(self, action: Action, request: Request) -> tuple[int, bytes, dict[str, str]]:
        json_type = {"Content-Type": "application/json"}
        if isinstance(action, Status):
            headers = {"Content-Type": "application/json", **action.headers}
            return action.code, action.body.encode(), headers
        if isinstance(action, RawBody):
            body = action.body.encode() if isinstance(action.body, str) else action.body
            return action.code, body, {"Content-Type": action.content_type, **action.headers}
        wire = request.wire
        if isinstance(action, ApiError):
            body = json.dumps(error_body(wire, action.code, action.message)).encode()
            return action.code, body, {**json_type, **action.headers}
        if wire is None:
            return 404, json.dumps({"error": {"message": f"no route {request.path}"}}).encode(), json_type
        if isinstance(action, Echo):
            echoed = json.dumps(
                {
                    "path": request.path,
                    "headers": request.headers,
                    "body": request.body.decode("utf-8", "replace"),
                }
            )
            if action.code != 200:
                return action.code, json.dumps(error_body(wire, action.code, echoed)).encode(), json_type
            return 200, json.dumps(encode_reply(wire, request, echoed, None, None)).encode(), json_type
        if isinstance(action, Verdict):
            text = verdict_text(action)
            tool_input = None
            if wire == "anthropic" and "tools" in (request.json or {}) and action.shape == "better":
                tool_input = {"reasoning": action.reasoning, "better": action.better}
            reply = encode_reply(wire, request, text, action.input_tokens, action.output_tokens, tool_input)
            return 200, json.dumps(reply).encode(), json_type
        assert isinstance(action, Text)
        reply = encode_reply(wire, request, action.text, action.input_tokens, action.output_tokens)
        return 200, json.dumps(reply).encode(), json_type


def main() -> None:
    parser = argparse.ArgumentParser(description="Run the fake LLM provider until stdin closes.")
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeLLMServer(latency_s=args.latency_ms / 1000.0, port=args.port).start()
    print(server.port, flush=True)
    try:
        import sys

        sys.stdin.read()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
