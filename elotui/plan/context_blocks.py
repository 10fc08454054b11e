"""What a judge sees besides the two responses: a reference answer, and the earlier turns of a conversation.

Reference-guided judging (MT-bench's "pair-math-v1"): a prompt with a `reference` is judged with it when
`[comparison] reference_guided` says so — "categories" (default: the prompts whose category is in
`reference_categories`, or that have no category), "all", or "none". The reference goes into the user message
(`{{reference}}`) inside its own delimiters, with a sentence saying that it is the correct answer.

Multi-turn judging (MT-bench's "pair-v2-multi-turn"): a prompt with `earlier_turns` (or every prompt, with
`[data] turn = "conversation"`) shows each contestant's whole conversation turn by turn — user turn 1, its
answer 1, user turn 2, its answer 2, ... — each turn inside its own delimiters, as the value of
`{{response_a}}` / `{{response_b}}`; the criterion applies to the answers to the last user turn.

Every text here is untrusted: each is neutralised (the boundary token replaced) before it is put between
markers, so no turn, answer or reference can close its section.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from elotui.tournament.model import ComparisonConfig, PromptConfig, Tournament


@dataclass(frozen=True)
class PromptContext:
    """One prompt's reference (when it is shown) and its conversation before the judged turn."""

    reference: tuple[str, ...] = ()  # one text, or one per turn of a conversation
    conversation: bool = False
    earlier_turns: tuple[str, ...] = ()
    earlier_answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def is_guided(prompt: PromptConfig, comparison: ComparisonConfig) -> bool:
    """Whether the judge is shown this prompt's reference answer."""
    if prompt.reference is None or comparison.reference_guided == "none":
        return False
    if comparison.reference_guided == "all":
        return True
    return prompt.category is None or prompt.category in comparison.reference_categories


def prompt_contexts(tournament: Tournament) -> dict[str, PromptContext]:
    """prompt id → its context, for the prompts that have one (a shown reference, or a conversation)."""
    data = tournament.spec.data
    every_conversation = data is not None and data.turn == "conversation"
    comparison = tournament.spec.comparison
    out: dict[str, PromptContext] = {}
    # a prompt has a context only with a reference or earlier turns, unless every prompt is a conversation
    prompts = tournament.spec.prompts if every_conversation else tournament.prompts_with_context()
    for p in prompts:
        reference: tuple[str, ...] = ()
        if is_guided(p, comparison):
            reference = (p.reference,) if isinstance(p.reference, str) else tuple(p.reference or ())
        conversation = every_conversation or bool(p.earlier_turns)
        if reference or conversation:
            out[p.id] = PromptContext(
                reference,
                conversation,
                tuple(p.earlier_turns),
                {cid: tuple(answers) for cid, answers in p.earlier_answers.items()},
            )
    return out


def section(name: str, text: str, boundary: str) -> str:
    """`<<<NAME boundary>>>` text `<<<END NAME boundary>>>` (the text already neutralised)."""
    return f"<<<{name} {boundary}>>>\n{text}\n<<<END {name} {boundary}>>>"


def reference_sections(context: PromptContext, safe: list[str], boundary: str) -> str:
    """The reference's sections: one, or one per turn (`REFERENCE ANSWER TURN n`) in a conversation."""
    if len(safe) == 1:
        return section("REFERENCE ANSWER", safe[0], boundary)
    return "\n\n".join(
        section(f"REFERENCE ANSWER TURN {n}", text, boundary) for n, text in enumerate(safe, start=1)
    )


def transcript(user_turns: list[str], answers: list[str], slot: str, boundary: str) -> str:
    """One contestant's conversation, turn by turn (every text already neutralised)."""
    parts: list[str] = []
    for n, (turn, answer) in enumerate(zip(user_turns, answers, strict=True), start=1):
        parts.append(section(f"USER TURN {n}", turn, boundary))
        parts.append(section(f"ASSISTANT {slot} TURN {n}", answer, boundary))
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Exchange:
    """One turn of a conversation before the judged one: the user's message and each contestant's answer to it."""

    user: str
    answers: Mapping[str, str]


def _exchanges(prompt: PromptConfig) -> list[Exchange]:
    return [
        Exchange(turn, {c: answers[n] for c, answers in prompt.earlier_answers.items() if n < len(answers)})
        for n, turn in enumerate(prompt.earlier_turns)
    ]


def earlier_exchanges(tournament: Tournament, prompt_id: str) -> list[Exchange]:
    """A conversation's turns before the judged one, in order (the pairs pane and the report show them turn by
    turn); none for a prompt without earlier turns."""
    prompt = next((p for p in tournament.prompts_with_context() if p.id == prompt_id), None)
    return [] if prompt is None else _exchanges(prompt)


def conversations(tournament: Tournament) -> dict[str, list[Exchange]]:
    """prompt id → its earlier turns (`earlier_exchanges`), for the prompts that have some."""
    return {p.id: _exchanges(p) for p in tournament.prompts_with_context() if p.earlier_turns}


def readable_conversation(tournament: Tournament, prompt_id: str, contestant: str, final: str) -> str:
    """One contestant's conversation as a person reads it (the blind review): each user turn and its answer under
    a heading, `final` the last answer. A prompt without earlier turns gives `final` as it is."""
    earlier = earlier_exchanges(tournament, prompt_id)
    if not earlier:
        return final
    turns = [*(e.user for e in earlier), tournament.prompt_texts.get(prompt_id, "")]
    answers = [*(e.answers.get(contestant, "") for e in earlier), final]
    parts = []
    for n, (turn, answer) in enumerate(zip(turns, answers, strict=True), start=1):
        parts.append(f"── user, turn {n} ──\n{turn}\n── {contestant}, turn {n} ──\n{answer}")
    return "\n\n".join(parts)


def summary(tournament: Tournament) -> list[str]:
    """What `elotui validate` says about references and conversations (nothing when there are none)."""
    comparison = tournament.spec.comparison
    with_reference = [p for p in tournament.prompts_with_context() if p.reference is not None]
    guided = [p for p in with_reference if is_guided(p, comparison)]
    out = []
    if with_reference:
        how = (
            f"reference_guided = {comparison.reference_guided!r}"
            if comparison.reference_guided != "categories"
            else f"categories {', '.join(comparison.reference_categories) or '(none)'} and prompts without one"
        )
        out.append(
            f"reference answers: {len(with_reference)} prompt(s), {len(guided)} judged with theirs ({how})"
        )
    contexts = prompt_contexts(tournament)
    conversations = [c for c in contexts.values() if c.conversation]
    if conversations:
        longest = max(len(c.earlier_turns) + 1 for c in conversations)
        out.append(f"conversations: {len(conversations)} prompt(s), up to {longest} turn(s) each")
    return out
