"""Cache keys: what makes two model calls "the same call".

A call's key is the SHA-256 of the canonical JSON (sorted keys, no whitespace, UTF-8) of
`{"identity": judge.identity(), "system": ..., "user": ..., "sample": n, "kind": ..., "context": ...}`:
the judge's identity (provider, model, temperature, max_tokens, replay log hash, simulation parameters —
never an API key), the full rendered system and user messages, the sample index and the call kind
("verdict", "generation", "paraphrase").

`context` is empty for live judges (their answer depends only on what they are sent). Replay and simulated
judges answer by *who* is compared, not by the text, so for them the presentation (prompt id, first, second,
condition) is part of the key as well: two contestants with identical response texts then stay two calls.

A key whose call has status ok/invalid in the store is never sent again; an `error` call is retried.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

KINDS = ("verdict", "generation", "paraphrase")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def call_key(
    identity: Mapping[str, Any],
    system: str,
    user: str,
    *,
    sample: int = 0,
    kind: str = "verdict",
    context: Mapping[str, Any] | None = None,
) -> str:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    payload = {
        "identity": dict(identity),
        "system": system,
        "user": user,
        "sample": int(sample),
        "kind": kind,
        "context": dict(context) if context else {},
    }
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def text_key(kind: str, *parts: object) -> str:
    """The key of a derived or base text in the store's `texts` table (e.g. a perturbed response)."""
    return "text:" + hashlib.sha256(canonical_json([kind, *parts]).encode("utf-8")).hexdigest()
