"""Verdict parsing: strict first, then tolerant, never a guess.

The judge is asked for `{"reasoning": str, "better": "A" | "B" | "tie"}` where A is the response shown first.
Accepted besides the strict form (case and whitespace tolerant):
- that object inside prose or inside a ```json fence;
- the decision under `better`, `winner`, `preferred` or `preferred_profile`, valued A/B/tie, 1/2 (also
  "Response A", "Assistant 2", "draw", "equal");
- reasoning under `reasoning` (or `explanation`, `rationale`); for an object inside prose, the prose before it.
If no object carries a recognisable decision, or objects disagree, the reply is `invalid`.
The reasoning is always valid Unicode: a lone surrogate its JSON spells (`\\ud83d`, half an emoji) becomes U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from elotui.judges.base import Status, Winner
from elotui.judges.wire_text import readable

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string"},
        "better": {"type": "string", "enum": ["A", "B", "tie"]},
    },
    "required": ["reasoning", "better"],
    "additionalProperties": False,
}

DECISION_KEYS = ("better", "winner", "preferred", "preferred_profile")
REASONING_KEYS = ("reasoning", "explanation", "rationale")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)
_LABEL = re.compile(r"^(?:response|assistant|answer|output|profile|model)?[\s_\-]*([ab12])$")
_TIES = frozenset({"tie", "draw", "equal", "a tie"})

Decision = Literal["A", "B", "tie"]
_WINNER: dict[Decision, Winner] = {"A": "first", "B": "second", "tie": "tie"}


def parse_verdict(text: str | None) -> tuple[Status, Winner | None, str | None]:
    """(status, winner, reasoning): status "ok" with winner first/second/tie, or "invalid" with Nones."""
    if text is None or not text.strip():
        return "invalid", None, None
    stripped = text.strip()
    # Strict: the whole reply is the requested object.
    try:
        obj = json.loads(stripped)
    except (ValueError, RecursionError):  # not JSON, or nested past what json reads
        obj = None
    if isinstance(obj, dict):
        decision = _decision(obj)
        if decision is not None:
            return "ok", _WINNER[decision], _reasoning(obj)
        return "invalid", None, None
    # Tolerant: every JSON object in fences or prose.
    found: list[tuple[Decision, str | None]] = []
    for prefix, candidate in _objects(stripped):
        decision = _decision(candidate)
        if decision is None:
            continue
        reasoning = _reasoning(candidate)
        if reasoning is None and prefix.strip():
            reasoning = readable(prefix.strip())
        found.append((decision, reasoning))
    decisions = {d for d, _ in found}
    if len(decisions) != 1:
        return "invalid", None, None
    decision, reasoning = found[0]
    return "ok", _WINNER[decision], reasoning


def _objects(text: str) -> list[tuple[str, dict[str, Any]]]:
    """JSON objects found in the text, each with the prose before it (fenced blocks first)."""
    out: list[tuple[str, dict[str, Any]]] = []
    for match in _FENCE.finditer(text):
        try:
            obj = json.loads(match.group(1).strip())
        except (ValueError, RecursionError):  # not JSON, or nested past what json reads
            continue
        if isinstance(obj, dict):
            out.append((text[: match.start()], obj))
    if out:
        return out
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except RecursionError:  # nested past what json reads: so is every "{" inside (10^5 tries, minutes)
            break
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict):
            out.append((text[:i], obj))
        i = text.find("{", end)
    return out


def _decision(obj: dict[str, Any]) -> Decision | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    values = [lowered[k] for k in DECISION_KEYS if k in lowered]
    decisions = {_label(v) for v in values}
    if len(decisions) != 1:
        return None
    return decisions.pop()


def _label(value: Any) -> Decision | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        value = str(int(value)) if float(value).is_integer() else str(value)
    if not isinstance(value, str):
        return None
    text = " ".join(value.strip().lower().strip(".!\"'").split())
    if text in _TIES:
        return "tie"
    m = _LABEL.match(text)
    if m is None:
        return None
    return "A" if m.group(1) in ("a", "1") else "B"


def _reasoning(obj: dict[str, Any]) -> str | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    for key in REASONING_KEYS:
        value = lowered.get(key)
        if isinstance(value, str):
            return readable(value)
    return None
