"""Cache keys: what makes two model calls "the same call".

A call's key is the SHA-256 of the canonical JSON (sorted keys, no whitespace, UTF-8) of
`{"identity": judge.identity(), "system": ..., "user": ..., "sample": n, "kind": ..., "context": ...}`:
the judge's identity (provider, model, temperature, max_tokens, replay log hash, simulation parameters —
never an API key), the full rendered system and user messages, the sample index and the call kind
("verdict", "generation", "paraphrase").

`context` is empty for live judges (their answer depends only on what they are sent). Replay and simulated
judges answer by *who* is compared, not by the text, so for them the presentation (prompt id, first, second,
condition) is part of the key as well: two contestants with identical response texts then stay two calls.

On the graded scale (`[judge_prompt] scale = "graded"`) a verdict's identity also carries `"scale": "graded"`
(elotui.plan.verdict_calls.verdict_identity), so a binary verdict never answers a graded question.

A key whose call has status ok/invalid in the store is never sent again; an `error` call is retried.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

KINDS = ("verdict", "generation", "paraphrase")


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


_ESCAPE = json.encoder.encode_basestring  # the C escaper json.dumps(..., ensure_ascii=False) uses for str


def escape(text: str) -> str:
    """A string's body as canonical JSON writes it (no quotes). Escaping is per character, so the escape of a
    concatenation is the concatenation of the escapes: a message can be keyed from its parts."""
    return _ESCAPE(text)[1:-1]


class Escaper(dict[str, str]):
    """`escape` with memory, for keying many messages built from the same parts (template pieces, prompts,
    responses): each distinct part is escaped once. Pass `escaper.__getitem__` where speed matters: a part seen
    before is then a dict lookup in C, not a Python call. Lives as long as one planning pass."""

    def __init__(self, max_entries: int = 50_000) -> None:
        super().__init__()
        self._max = max_entries  # bounded: past it the memory starts again (plans visit prompts in turns)

    def __missing__(self, text: str) -> str:
        if len(self) >= self._max:
            self.clear()
        found = self[text] = escape(text)
        return found

    def __call__(self, text: str) -> str:
        return self[text]


def call_key(
    identity: Mapping[str, Any],
    system: str,
    user: str,
    *,
    sample: int = 0,
    kind: str = "verdict",
    context: Mapping[str, Any] | None = None,
) -> str:
    return key_of_parts(
        canonical_json(dict(identity)), (system,), (user,), sample=sample, kind=kind, context=context
    )


def key_of_parts(
    identity_json: str,
    system_parts: Iterable[str],
    user_parts: Iterable[str],
    *,
    sample: int = 0,
    kind: str = "verdict",
    context: Mapping[str, Any] | None = None,
    escaper: Any = escape,
    context_json: str | None = None,
) -> str:
    """The call key, from `canonical_json(identity)` and the messages as parts (joined, they are the system
    and user messages). The bytes hashed are exactly `canonical_json({"context", "identity", "kind", "sample",
    "system", "user"})` (keys sorted), written out here so that a message is never assembled just to be keyed.
    `context_json`: `canonical_json(context)` when the caller has it (see `presentation_json`)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    text = "".join(
        (
            '{"context":',
            context_json if context_json is not None else canonical_json(dict(context)) if context else "{}",
            ',"identity":',
            identity_json,
            ',"kind":"',
            kind,
            '","sample":',
            str(int(sample)),
            ',"system":"',
            *map(escaper, system_parts),
            '","user":"',
            *map(escaper, user_parts),
            '"}',
        )
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def presentation_json(prompt: str, first: str, second: str, condition: str, escaper: Any = escape) -> str:
    """`canonical_json({"prompt", "first", "second", "condition"})` (the key context of replay and simulated
    judges), written out: keys in sorted order, each value escaped as json.dumps does."""
    return (
        f'{{"condition":"{escaper(condition)}","first":"{escaper(first)}",'
        f'"prompt":"{escaper(prompt)}","second":"{escaper(second)}"}}'
    )


def text_key(kind: str, *parts: object) -> str:
    """The key of a derived or base text in the store's `texts` table (e.g. a perturbed response)."""
    return "text:" + hashlib.sha256(canonical_json([kind, *parts]).encode("utf-8")).hexdigest()
