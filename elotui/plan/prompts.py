"""Rendering judge prompts (Braun and Forell 2026, pairwise framework and prompt template; Diagnosing Bias and Instability in LLM Evaluation, perturbations).

A judge call is one system message and one user message. The default templates live in package data
(`elotui/plan/templates/`); a tournament may replace the system and the user template with
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
| `{{reference}}`  | the reference answer block of a reference-guided prompt, else "" (prepended if |
|                  | omitted; see elotui.plan.context_blocks)                                         |

On the graded scale (`[judge_prompt] scale = "graded"`) the default system and user templates are the `*_graded.txt`
ones, which ask for `better` in `A>>B | A>B | A=B | B>A | B>>A` and say what `>>` means; a worked example's answer
is shown on that scale too (`A` as `A>B`, `B` as `B>A`, `tie` as `A=B`; an examples file may give grades, shown
as `A`, `B` or `tie` on the binary scale). A tournament's own templates are used as
they are on either scale.

A conversation (see elotui.plan.context_blocks) is judged with `system_conversation.txt` and
`user_conversation.txt` (or the tournament's own templates), and `{{response_a}}` / `{{response_b}}` are then
each contestant's whole conversation, turn by turn.

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

from elotui.errors import UserError
from elotui.plan.context_blocks import PromptContext, prompt_contexts, reference_sections, transcript
from elotui.plan.fewshot import Example, ExampleIndex, load_examples
from elotui.tournament.model import Tournament

PLACEHOLDERS = (
    "criterion",
    "prompt",
    "response_a",
    "response_b",
    "boundary",
    "example",
    "injection",
    "reference",
)
REQUIRED_IN_USER = ("prompt", "response_a", "response_b")
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")


def package_template(name: str) -> str:
    return resources.files("elotui.plan").joinpath("templates", name).read_text(encoding="utf-8")


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


# a worked example's answer on the scale asked: a plain one graded as a slight preference, a grade made plain
_GRADED_EXAMPLE = {"A": "A>B", "B": "B>A", "tie": "A=B"}
_BINARY_EXAMPLE = {"A>>B": "A", "A>B": "A", "A=B": "tie", "B>A": "B", "B>>A": "B"}
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
        self.scale = tournament.spec.judge_prompt.scale
        graded = "_graded" if self.scale == "graded" else ""
        self.system_template = tournament.system_template or package_template(f"system{graded}.txt")
        self.user_template = tournament.user_template or package_template(f"user{graded}.txt")
        self.example_template = package_template("example.txt")
        self.injection = package_template("injection.txt").rstrip("\n")
        self.paraphrase_system = package_template("paraphrase_system.txt").rstrip("\n")
        self.paraphrase_user = package_template("paraphrase_user.txt").rstrip("\n")
        self.reference_template = package_template("reference.txt")
        self.conversation_system = tournament.system_template or package_template(
            f"system_conversation{graded}.txt"
        )
        self.conversation_user = tournament.user_template or package_template(
            f"user_conversation{graded}.txt"
        )
        self.contexts: dict[str, PromptContext] = prompt_contexts(tournament)
        self._check(tournament)
        self._system = {
            False: compile_template(self.system_template),
            True: compile_template(self.conversation_system),
        }
        self._user = compile_template(self.user_template)
        # the user template with {{reference}} and {{example}} prepended / {{injection}} appended if it lacks them
        self._user_with = {
            (conv, ex, inj): compile_template(self._user_variant(conv, ex, inj))
            for conv in (False, True)
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

    def _user_variant(self, conversation: bool, example: bool, injection: bool) -> str:
        template = self.conversation_user if conversation else self.user_template
        used = placeholders(template)
        if "reference" not in used:
            template = "{{reference}}" + template
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
            "reference": self.reference_template,
            "system_conversation": self.conversation_system,
            "user_conversation": self.conversation_user,
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
        first_id: str | None = None,
        second_id: str | None = None,
    ) -> RenderedPrompt:
        """The judge prompt for one presentation. `prompt_text` is what the judge sees (the paraphrase under
        `paraphrase`); `boundary_text` (default: `prompt_text`) is the original prompt text the token derives
        from, so every condition of a prompt shares one token. `first_id` / `second_id`: the contestants shown,
        whose earlier answers a conversation shows."""
        return RenderedPrompt(
            *self.render_parts(
                prompt_id,
                prompt_text,
                first_text,
                second_text,
                condition,
                example,
                boundary_text,
                first_id,
                second_id,
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
        first_id: str | None = None,
        second_id: str | None = None,
    ) -> RenderedFields:
        """`render`'s fields as a tuple (planning a million calls makes no RenderedPrompt each: ~1 us apiece)."""
        boundary = self.boundary(prompt_id, boundary_text if boundary_text is not None else prompt_text)
        safe_a = neutralise(first_text, boundary)
        safe_b = neutralise(second_text, boundary)
        example_block = self._example_block(example, boundary) if example is not None else ""
        system_parts, user_template = self._prefill(
            prompt_id, boundary, prompt_text, condition == "injected", bool(example_block)
        )
        shown_a, shown_b = safe_a, safe_b
        context = self.contexts.get(prompt_id) if self.contexts else None
        if context is not None and context.conversation:
            shown_a = self._transcript(context, prompt_text, first_id, safe_a, "A", boundary)
            shown_b = self._transcript(context, prompt_text, second_id, safe_b, "B", boundary)
        values = {"response_a": shown_a, "response_b": shown_b, "example": example_block}
        return system_parts, fill_parts(user_template, values), safe_a, safe_b, example

    @staticmethod
    def _transcript(
        context: PromptContext,
        prompt_text: str,
        contestant: str | None,
        answer: str,
        slot: str,
        boundary: str,
    ) -> str:
        """One contestant's whole conversation; its last answer is `answer` (already neutralised)."""
        turns = [*context.earlier_turns, prompt_text]
        earlier = list(context.earlier_answers.get(contestant or "", ()))
        earlier = (earlier + [""] * len(turns))[: len(turns) - 1]
        safe_turns = [neutralise(t, boundary) for t in turns]
        return transcript(safe_turns, [neutralise(a, boundary) for a in earlier] + [answer], slot, boundary)

    def _prefill(
        self, prompt_id: str, boundary: str, prompt_text: str, injected: bool, with_example: bool
    ) -> tuple[tuple[str, ...], Compiled]:
        """The system message and the user template with everything but the per-call values filled in: the
        same for every pair of a prompt, so computed once per prompt (and condition)."""
        key = (boundary, prompt_text, injected, with_example)  # the boundary token names the prompt
        found = self._prefilled.get(key)
        if found is None:
            context = self.contexts.get(prompt_id)
            if len(self._prefilled) >= PREFILL_CACHE:
                self._prefilled.clear()
            values = {
                "criterion": self.criterion,
                "prompt": neutralise(prompt_text, boundary),
                "boundary": boundary,
                "injection": self.injection if injected else "",
                "reference": self._reference_block(context, boundary) if context else "",
            }
            conversation = context is not None and context.conversation
            blank = {"example": "", "response_a": "", "response_b": ""}
            system = fill_parts(self._system[conversation], {**values, **blank})
            user = partial_fill(self._user_with[(conversation, with_example, injected)], values)
            found = self._prefilled[key] = (("".join(system),), user)
        return found

    def _reference_block(self, context: PromptContext, boundary: str) -> str:
        """The reference answer between its markers, after the sentence that says it is correct ("" if none)."""
        if not context.reference:
            return ""
        safe = [neutralise(text, boundary) for text in context.reference]
        return fill(self.reference_template, {"sections": reference_sections(context, safe, boundary)})

    def _example_block(self, example: Example, boundary: str) -> str:
        answers = _GRADED_EXAMPLE if self.scale == "graded" else _BINARY_EXAMPLE
        better = answers.get(example.better, example.better)
        answer = json.dumps({"reasoning": example.reasoning, "better": better}, ensure_ascii=False)
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
