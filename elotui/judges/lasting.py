"""Which final errors of a provider will not go away — by retrying or with another prompt: a mistyped model, a
wrong key, a request body the server refuses. The run's circuit breaker (elotui.run.breaker) stops an endpoint
whose calls keep failing with one of them."""

from __future__ import annotations

import json

RETRYABLE = frozenset({408, 429})  # never lasting (5xx are not in LASTING_STATUS either)
# a bad model, key or request body: every call fails alike
LASTING_STATUS = frozenset({400, 401, 403, 404, 422})
LASTING_CODES = frozenset(  # the providers' own error codes that mean the same, whatever the HTTP status
    {
        "model_not_found",
        "invalid_api_key",
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "PERMISSION_DENIED",
        "UNAUTHENTICATED",
    }
)
PER_CALL_HINTS = (  # refusals of one request (its length, its content), not of the endpoint: no breaker
    "context length",
    "context_length",
    "too long",
    "too many tokens",
    "maximum context",
    "content_filter",
    "content filter",
    "content_policy",
    "safety",
)


def _error_codes(body: str) -> set[str]:
    """The provider's error kind and code in an error body (OpenAI `error.type`/`error.code`, Anthropic
    `error.type`, Google `error.status`), if any."""
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):  # not JSON, or nested past what json reads
        return set()
    err = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(err, dict):
        return set()
    return {v for k in ("type", "code", "status") if isinstance(v := err.get(k), str)}


def lasting_error(status_code: int, body: str, detail: str) -> str | None:
    """ "HTTP <status>: <the server's message>" when a final error will not go away, by retrying or with another
    prompt (a bad model, key or request body: LASTING_STATUS or LASTING_CODES), else None. A refusal of this one
    request (too long, filtered) is not lasting. `detail`: the body's message on one line."""
    codes = _error_codes(body)
    if status_code in RETRYABLE or (status_code not in LASTING_STATUS and not codes & LASTING_CODES):
        return None
    if any(hint in f"{detail} {' '.join(codes)}".lower() for hint in PER_CALL_HINTS):
        return None
    return f"HTTP {status_code}" + (f": {detail}" if detail else "")
