"""What an error reply says: the provider's own message for a one-line excerpt, and whether a 2xx body is in fact
the provider's error object (a paid call that is no answer: retried like the status it names, recorded as failed,
never as an invalid verdict)."""

from __future__ import annotations

import json
from typing import Any

from elotui.judges.wire_text import readable


def short_error(body: str, limit: int = 300) -> str:
    """A one-line excerpt of an error body: the provider's own error kind and message when the body has them
    (OpenAI `error.type`, Anthropic `error.type` such as `overloaded_error`, Google `error.status` such as
    `RESOURCE_EXHAUSTED`, Ollama's `error` string)."""
    text = body.strip()
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past what json reads
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
    text = " ".join(readable(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_in_body(data: Any) -> int | None:
    """The status a 2xx reply's body says it is when the body is the provider's error object instead of an answer
    (`{"error": {...}}`, `{"error": "..."}`, Anthropic's `{"type": "error", ...}`): the error's own HTTP-like
    `code` (Google's, some compatible servers') when it has one, else 500 (a failure on the server's side:
    retried). None for a body that is no error."""
    if not isinstance(data, dict):
        return None
    error = data.get("error")
    if not error and data.get("type") != "error":
        return None
    code = error.get("code") if isinstance(error, dict) else None
    if isinstance(code, str) and code.isdigit():
        code = int(code)
    return code if isinstance(code, int) and not isinstance(code, bool) and 400 <= code < 600 else 500
