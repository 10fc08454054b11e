"""Rendering judge prompts (Braun and Forell 2026, pairwise framework and prompt template; Diagnosing Bias and Instability in LLM Evaluation, perturbations).

A judge call is one system message and one user message. The default templates live in package data
(`elotui/run/templates/`); a tournament may replace the system and the user template with
`[comparison] system_template` / `user_template` (text or `{ file = "..." }`).

Placeholders (written `{{name}}`; substitution is one pass, so text inserted for a placeholder is never
scanned again — a response containing "{{response_b}}" stays literal):

| placeholder      | value                                                                          |
|------------------|--------------------------------------------------------------------------------|
| `{{criterion}}`  | `[tournament] criterion`                                                       |
| `{{prompt}}`     | the prompt text (its paraphrase under the `paraphrase` condition)              |
| `{{response_a}}` | the response shown first (perturbed under `lexical`)                           |
| `{{response_b}}` | the response shown second                                                      |
| `{{boundary}}`   | the prompt's boundary token, to build delimiters `<<<NAME {{boundary}}>>>`     |
| `{{example}}`    | the worked few-shot example block, or "" (prepended if the template omits it)  |
| `{{injection}}`  | the anti-position-bias note under `injected`, else "" (appended if omitted)    |

The user template must contain `{{prompt}}`, `{{response_a}}` and `{{response_b}}`; the system template may
use `{{criterion}}` and `{{boundary}}`. An unknown placeholder is an error.

Untrusted text (prompt, responses, examples) cannot forge a delimiter: the boundary token is a 16-hex-digit
digest of the prompt id and text, and any occurrence of it inside untrusted text is replaced by
`[boundary]` before rendering, so the only markers carrying the token are the template's own.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from importlib import resources

from elotui.config import Tournament
from elotui.errors import UserError
from elotui.run.fewshot import Example, ExampleIndex, load_examples

PLACEHOLDERS = ("criterion", "prompt", "response_a", "response_b", "boundary", "example", "injection")
REQUIRED_IN_USER = ("prompt", "response_a", "response_b")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")


def package_template(name: str) -> str:
    return resources.files("elotui.run").joinpath("templates", name).read_text(encoding="utf-8")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace every `{{name}}` in one pass; a name not in `values` is a ValueError."""

    def sub(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in values:
            raise ValueError(name)
        return values[name]

    return _PLACEHOLDER.sub(sub, template)


Compiled = tuple[tuple[bool, str], ...]  # (is a placeholder, literal text or placeholder name), in order


def compile_template(template: str) -> Compiled:
    """A template as literal pieces and placeholder names, parsed once (`fill_parts` then needs no regex)."""
    out: list[tuple[bool, str]] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        if m.start() > pos:
            out.append((False, template[pos : m.start()]))
        out.append((True, m.group(1)))
        pos = m.end()
    if pos < len(template):
        out.append((False, template[pos:]))
    return tuple(out)


def fill_parts(compiled: Compiled, values: dict[str, str]) -> tuple[str, ...]:
    """The pieces of `fill(template, values)`: joined, they are exactly its result."""
    return tuple([values[text] if is_name else text for is_name, text in compiled])


def partial_fill(compiled: Compiled, values: dict[str, str]) -> Compiled:
    """The template with the placeholders named in `values` filled in (adjacent literals merged); the others
    stay placeholders. `fill_parts(partial_fill(c, v), w)` joins to the same text as `fill_parts(c, v | w)`."""
    out: list[tuple[bool, str]] = []
    for is_name, text in compiled:
        if is_name and text in values:
            is_name, text = False, values[text]
        if not is_name and out and not out[-1][0]:
            out[-1] = (False, out[-1][1] + text)
        elif is_name or text:
            out.append((is_name, text))
    return tuple(out)


PREFILL_CACHE = 4096  # prompts' prefilled templates kept (then the cache starts again)
PER_CALL = ("response_a", "response_b", "example")  # what differs between the calls of one prompt


def placeholders(template: str) -> set[str]:
    return {m.group(1) for m in _PLACEHOLDER.finditer(template)}


def boundary_token(prompt_id: str, prompt_text: str) -> str:
    return hashlib.sha256(f"elotui-boundary\x00{prompt_id}\x00{prompt_text}".encode()).hexdigest()[:16]


def neutralise(text: str, boundary: str) -> str:
    """Untrusted text with every occurrence of the boundary token removed."""
    while boundary in text:
        text = text.replace(boundary, "[boundary]")
    return text


class MessageParts:
    """The system and user messages of a call as the pieces they are made of, joined on demand."""

    __slots__ = ()  # subclasses have slots: 10^6 planned calls without an attribute dict each

    system_parts: tuple[str, ...]
    user_parts: tuple[str, ...]

    @property
    def system(self) -> str:
        return "".join(self.system_parts)

    @property
    def user(self) -> str:
        return "".join(self.user_parts)

    @property
    def chars(self) -> int:
        """len(system) + len(user), without joining them."""
        return sum(map(len, self.system_parts)) + sum(map(len, self.user_parts))


@dataclass(frozen=True)
class RenderedPrompt(MessageParts):
    """A judge prompt as the pieces it is made of (template text, prompt, responses...): `system` and `user`
    join them on demand, so a plan of a million calls keys them without holding a million messages."""

    system_parts: tuple[str, ...]
    user_parts: tuple[str, ...]
    first_text: str  # the response shown as A, as inserted (after perturbation and neutralising)
    second_text: str
    example: Example | None = None


# RenderedPrompt's fields in order: system parts, user parts, first text, second text, example
RenderedFields = tuple[tuple[str, ...], tuple[str, ...], str, str, Example | None]


class PromptBuilder:
    """Renders judge prompts for one tournament (templates checked once, examples indexed once)."""

    def __init__(self, tournament: Tournament, *, examples: list[Example] | None = None) -> None:
        self.criterion = tournament.spec.tournament.criterion
        self.system_template = tournament.system_template or package_template("system.txt")
        self.user_template = tournament.user_template or package_template("user.txt")
        self.example_template = package_template("example.txt")
        self.injection = package_template("injection.txt").rstrip("\n")
        self.paraphrase_system = package_template("paraphrase_system.txt").rstrip("\n")
        self.paraphrase_user = package_template("paraphrase_user.txt").rstrip("\n")
        self._check(tournament)
        self._system = compile_template(self.system_template)
        self._user = compile_template(self.user_template)
        self._user_with = {  # the user template with {{example}} prepended / {{injection}} appended if it lacks them
            (ex, inj): compile_template(self._user_variant(ex, inj))
            for ex in (False, True)
            for inj in (False, True)
        }
        self._boundaries: dict[tuple[str, str], str] = {}
        self._prefilled: dict[tuple[str, str, bool, bool], tuple[tuple[str, ...], Compiled]] = {}
        if examples is None and tournament.spec.comparison.examples_file:
            examples = load_examples(tournament.resolve(tournament.spec.comparison.examples_file))
        self.index = ExampleIndex(examples) if examples else None

    def _check(self, t: Tournament) -> None:
        problems: list[str] = []
        for key, template in (
            ("system_template", self.system_template),
            ("user_template", self.user_template),
        ):
            unknown = sorted(placeholders(template) - set(PLACEHOLDERS))
            if unknown:
                problems.append(
                    f"comparison.{key}: unknown placeholder(s) {', '.join('{{' + u + '}}' for u in unknown)} "
                    f"(known: {', '.join('{{' + p + '}}' for p in PLACEHOLDERS)})"
                )
        missing = [p for p in REQUIRED_IN_USER if p not in placeholders(self.user_template)]
        if missing:
            problems.append(
                f"comparison.user_template: must contain {', '.join('{{' + m + '}}' for m in missing)}"
            )
        if problems:
            raise UserError(f"{t.path}: bad prompt template(s)", details=problems)

    def _user_variant(self, example: bool, injection: bool) -> str:
        template = self.user_template
        used = placeholders(template)
        if example and "example" not in used:
            template = "{{example}}" + template
        if injection and "injection" not in used:
            template = template.rstrip("\n") + "{{injection}}\n"
        return template

    def boundary(self, prompt_id: str, prompt_text: str) -> str:
        """The prompt's boundary token (computed once per prompt)."""
        key = (prompt_id, prompt_text)
        found = self._boundaries.get(key)
        if found is None:
            found = self._boundaries[key] = boundary_token(prompt_id, prompt_text)
        return found

    def templates(self) -> dict[str, str]:
        """Every template in use (for the run manifest)."""
        return {
            "system": self.system_template,
            "user": self.user_template,
            "example": self.example_template,
            "injection": self.injection,
            "paraphrase_system": self.paraphrase_system,
            "paraphrase_user": self.paraphrase_user,
        }

    def example_for(self, prompt_text: str, response_a: str, response_b: str) -> Example | None:
        if self.index is None:
            return None
        return self.index.most_similar(prompt_text, response_a, response_b)[0]

    def render(
        self,
        *,
        prompt_id: str,
        prompt_text: str,
        first_text: str,
        second_text: str,
        condition: str = "clean",
        example: Example | None = None,
        boundary_text: str | None = None,
    ) -> RenderedPrompt:
        """The judge prompt for one presentation. `prompt_text` is what the judge sees (the paraphrase under
        `paraphrase`); `boundary_text` (default: `prompt_text`) is the original prompt text the token derives
        from, so every condition of a prompt shares one token."""
        return RenderedPrompt(
            *self.render_parts(
                prompt_id, prompt_text, first_text, second_text, condition, example, boundary_text
            )
        )

    def render_parts(
        self,
        prompt_id: str,
        prompt_text: str,
        first_text: str,
        second_text: str,
        condition: str,
        example: Example | None,
        boundary_text: str | None,
    ) -> RenderedFields:
        """`render`'s fields as a tuple (planning a million calls makes no RenderedPrompt each: ~1 us apiece)."""
        boundary = self.boundary(prompt_id, boundary_text if boundary_text is not None else prompt_text)
        safe_a = neutralise(first_text, boundary)
        safe_b = neutralise(second_text, boundary)
        example_block = self._example_block(example, boundary) if example is not None else ""
        system_parts, user_template = self._prefill(
            boundary, prompt_text, condition == "injected", bool(example_block)
        )
        values = {"response_a": safe_a, "response_b": safe_b, "example": example_block}
        return system_parts, fill_parts(user_template, values), safe_a, safe_b, example

    def _prefill(
        self, boundary: str, prompt_text: str, injected: bool, with_example: bool
    ) -> tuple[tuple[str, ...], Compiled]:
        """The system message and the user template with everything but the per-call values filled in: the
        same for every pair of a prompt, so computed once per prompt (and condition)."""
        key = (boundary, prompt_text, injected, with_example)
        found = self._prefilled.get(key)
        if found is None:
            if len(self._prefilled) >= PREFILL_CACHE:
                self._prefilled.clear()
            values = {
                "criterion": self.criterion,
                "prompt": neutralise(prompt_text, boundary),
                "boundary": boundary,
                "injection": self.injection if injected else "",
            }
            system = fill_parts(self._system, {**values, "example": "", "response_a": "", "response_b": ""})
            user = partial_fill(self._user_with[(with_example, injected)], values)
            found = self._prefilled[key] = (("".join(system),), user)
        return found

    def _example_block(self, example: Example, boundary: str) -> str:
        answer = json.dumps({"reasoning": example.reasoning, "better": example.better}, ensure_ascii=False)
        return fill(
            self.example_template,
            {
                "prompt": neutralise(example.prompt, boundary),
                "response_a": neutralise(example.response_a, boundary),
                "response_b": neutralise(example.response_b, boundary),
                "answer": neutralise(answer, boundary),
                "boundary": boundary,
            },
        )

    def paraphrase_request(self, prompt_id: str, prompt_text: str) -> tuple[str, str]:
        """(system, user) asking the paraphraser for a meaning-preserving rewrite of one prompt."""
        boundary = boundary_token(prompt_id, prompt_text)
        user = fill(self.paraphrase_user, {"prompt": neutralise(prompt_text, boundary), "boundary": boundary})
        return self.paraphrase_system, user
