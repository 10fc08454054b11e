"""Verdict parsing: strict first, then tolerant, never a guess.

The judge is asked for `{"reasoning": str, "better": "A" | "B" | "tie"}` where A is the response shown first.
Accepted besides the strict form (case and whitespace tolerant):
- that object inside prose or inside a ```json fence;
- the decision under `better`, `winner`, `preferred` or `preferred_profile`, valued A/B/tie, 1/2 (also
  "Response A", "Assistant 2", "draw", "equal");
- reasoning under `reasoning` (or `explanation`, `rationale`); for an object inside prose, the prose before it.
If no object carries a recognisable decision, or objects disagree, the reply is `invalid`.
The reasoning is always valid Unicode: a lone surrogate its JSON spells (`\\ud83d`, half an emoji) becomes U+FFFD.

On the graded scale (`[judge_prompt] scale = "graded"`, arena-hard's) the judge is asked for `better` in
`A>>B | A>B | A=B | B>A | B>>A`, A again the response shown first: `parse_graded_verdict` gives the winner as above
and a strength (2 for `>>`, a strong, clear-cut preference; 1 for `>`; None for a tie). Tolerated besides: the
grade in brackets (`[[A>>B]]`), with spaces or in lower case, written the other way round (`B<<A`, `B<A`, `B=A`),
with `≫`/`≪`; a plain `A`/`B`/`tie` (a clear preference or a tie); and, when no JSON object carries a decision,
arena-hard's own form in prose (`My final verdict is: [[A>B]]`, every bracketed grade of the reply agreeing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from elotui.judges.base import Status, Winner
from elotui.judges.wire_text import readable
from elotui.vocab import Strength

BINARY_ANSWERS = ("A", "B", "tie")
GRADED_ANSWERS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")  # arena-hard's scale, A shown first
Scale = Literal["binary", "graded"]


def answers(scale: str) -> tuple[str, ...]:
    """The values `better` takes on a scale."""
    return GRADED_ANSWERS if scale == "graded" else BINARY_ANSWERS


def verdict_schema(scale: str = "binary") -> dict[str, Any]:
    """The JSON schema of the verdict object on a scale (structured output of OpenAI, Anthropic, Ollama)."""
    return {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "better": {"type": "string", "enum": list(answers(scale))},
        },
        "required": ["reasoning", "better"],
        "additionalProperties": False,
    }


VERDICT_SCHEMA: dict[str, Any] = verdict_schema("binary")
GRADED_VERDICT_SCHEMA: dict[str, Any] = verdict_schema("graded")

DECISION_KEYS = ("better", "winner", "preferred", "preferred_profile")
REASONING_KEYS = ("reasoning", "explanation", "rationale")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript)?[ \t]*\n?(.*?)```", re.DOTALL)
_LABEL = re.compile(r"^(?:response|assistant|answer|output|profile|model)?[\s_\-]*([ab12])$")
_TIES = frozenset({"tie", "draw", "equal", "a tie"})

Decision = Literal["A", "B", "tie"]
_WINNER: dict[Decision, Winner] = {"A": "first", "B": "second", "tie": "tie"}
# a grade as (winner, strength): A is the response shown first, as for the binary decisions
_GRADE: dict[str, tuple[Winner, Strength | None]] = {
    "A>>B": ("first", 2),
    "A>B": ("first", 1),
    "A=B": ("tie", None),
    "B>A": ("second", 1),
    "B>>A": ("second", 2),
}
_PLAIN_GRADE: dict[Decision, str] = {"A": "A>B", "B": "B>A", "tie": "A=B"}
_GRADE_FORM = re.compile(r"^([AB])(>>|>|==|=|<<|<)([AB])$")
_BRACKETED = re.compile(r"\[\[\s*([AaBb]\s*(?:>>|>|==|=|<<|<|≫|≪)\s*[AaBb])\s*\]\]")
_GRADE_CHARS = str.maketrans({"≫": ">>", "≪": "<<", "＞": ">", "＜": "<", "＝": "="})
_STRIP_AROUND = " \t\n\r.!\"'`[](){}*"

Label = Callable[[Any], str | None]


def parse_verdict(text: str | None) -> tuple[Status, Winner | None, str | None]:
    """(status, winner, reasoning): status "ok" with winner first/second/tie, or "invalid" with Nones."""
    status, decision, reasoning = _parse(text, _label)
    if decision is None:
        return status, None, None
    return status, _WINNER[decision], reasoning  # type: ignore[index]


def parse_graded_verdict(text: str | None) -> tuple[Status, Winner | None, Strength | None, str | None]:
    """(status, winner, strength, reasoning) on the graded scale: strength 2 for `>>`, 1 for `>`, None for a tie;
    status "invalid" with Nones when no grade can be read (as `parse_verdict`)."""
    status, grade, reasoning = _parse(text, _grade)
    if grade is None and not _decides(text):
        status, grade, reasoning = _bracketed(text)
    if grade is None:
        return "invalid", None, None, None
    winner, strength = _GRADE[grade]
    return status, winner, strength, reasoning


def parse_on_scale(text: str | None, scale: str) -> tuple[Status, Winner | None, Strength | None, str | None]:
    """`parse_graded_verdict` on the graded scale, else `parse_verdict` (strength None)."""
    if scale == "graded":
        return parse_graded_verdict(text)
    status, winner, reasoning = parse_verdict(text)
    return status, winner, None, reasoning


def _parse(text: str | None, label: Label) -> tuple[Status, str | None, str | None]:
    """(status, decision, reasoning) with the decision as `label` reads it, or ("invalid", None, None)."""
    if text is None or not text.strip():
        return "invalid", None, None
    stripped = text.strip()
    # Strict: the whole reply is the requested object.
    try:
        obj = json.loads(stripped)
    except (ValueError, RecursionError):  # not JSON, or nested past what json reads
        obj = None
    if isinstance(obj, dict):
        decision = _decision(obj, label)
        if decision is not None:
            return "ok", decision, _reasoning(obj)
        return "invalid", None, None
    # Tolerant: every JSON object in fences or prose.
    found: list[tuple[str, str | None]] = []
    for prefix, candidate in _objects(stripped):
        decision = _decision(candidate, label)
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
    return "ok", decision, reasoning


def _decides(text: str | None) -> bool:
    """Whether the reply is a JSON object, or some JSON object in it carries a decision key (readable or not)."""
    if text is None or "{" not in text:
        return False
    try:
        whole = json.loads(text.strip())
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        return True
    objects = [obj for _, obj in _objects(text.strip())]
    return any(str(k).strip().lower() in DECISION_KEYS for obj in objects for k in obj)


def _bracketed(text: str | None) -> tuple[Status, str | None, str | None]:
    """arena-hard's verdict in prose (`[[A>B]]`): the grade every bracketed label of the reply gives, with the
    prose before the last one as the reasoning; ("invalid", None, None) if there is none or they disagree. Only
    for a reply whose JSON objects carry no decision (a JSON object that does is never overruled)."""
    if text is None or "[[" not in text:
        return "invalid", None, None
    matches = list(_BRACKETED.finditer(text))
    grades = {_grade(m.group(1)) for m in matches}
    if len(grades) != 1 or None in grades:
        return "invalid", None, None
    before = text[: matches[-1].start()].strip()
    return "ok", grades.pop(), readable(before) if before else None


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


def _decision(obj: dict[str, Any], label: Label) -> str | None:
    lowered = {str(k).strip().lower(): v for k, v in obj.items()}
    values = [lowered[k] for k in DECISION_KEYS if k in lowered]
    decisions = {label(v) for v in values}
    if len(decisions) != 1:
        return None
    return decisions.pop()


def _grade(value: Any) -> str | None:
    """A graded answer as one of GRADED_ANSWERS (a plain A/B/tie as a clear preference or a tie), or None."""
    plain = _label(value)
    if plain is not None:
        return _PLAIN_GRADE[plain]
    if not isinstance(value, str) or len(value) > 40:
        return None
    text = "".join(value.translate(_GRADE_CHARS).strip(_STRIP_AROUND).split()).upper()
    m = _GRADE_FORM.match(text)
    if m is None or m.group(1) == m.group(3):
        return None
    left, op, right = m.groups()
    if op in ("=", "=="):
        return "A=B"
    winner = left if op.startswith(">") else right
    return f"{winner}{'>>' if len(op) == 2 else '>'}{'B' if winner == 'A' else 'A'}"


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
