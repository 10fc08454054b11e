"""Planning the verdict calls: every plan row with the key of the call that answers it (or of the prerequisite it
waits for) and the keys of the texts it shows, and the distinct calls.

A million rows are planned in one pass, so the loop does per row only what differs between rows: a unit's
renderings are kept for its other judges and samples, the shown texts' keys are looked up once per prompt,
contestant and condition, and the judges' identities are serialised once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from elotui.judges.base import Judge
from elotui.plan.calls import Call, Texts, comparison_fields
from elotui.plan.keys import Escaper, canonical_json, key_of_parts, presentation_json
from elotui.plan.presentations import Plan
from elotui.plan.prompts import PromptBuilder, RenderedFields
from elotui.runtime.checkpoints import EVERY, checkpoint
from elotui.runtime.heap import long_lived
from elotui.store import PlanRow

ShownKeys = tuple[str | None, str | None, str | None]  # the keys of the prompt, first and second texts shown


@dataclass
class VerdictCalls:
    rows: list[PlanRow]  # the plan to store, seq = run order
    calls: list[Call]  # distinct verdict calls (by key), in order of first appearance
    blocked: dict[str, int]  # prerequisite key -> number of plan rows waiting for it


def verdict_calls(
    plan: Plan,
    builder: PromptBuilder,
    texts: Texts,
    judges: Mapping[str, Judge],
    *,
    only: set[int] | None = None,
) -> VerdictCalls:
    """Every plan row with its call key (or its missing prerequisite), and the distinct calls; `only`: just the
    rows with these seqs (a reused plan's unanswered presentations)."""
    with long_lived():
        return _verdict_calls(plan, builder, texts, judges, only)


class _ShownTextKeys:
    """`Texts.shown_prompt_key` / `shown_response_key`, each asked once per (prompt, [contestant,] condition)."""

    def __init__(self, texts: Texts) -> None:
        self.texts = texts
        self.prompts: dict[tuple[str, str], str] = {}
        self.responses: dict[tuple[str, str, str], str] = {}

    def __call__(self, prompt: str, first: str, second: str, condition: str) -> ShownKeys:
        p = self.prompts.get((prompt, condition))
        if p is None:
            p = self.prompts[(prompt, condition)] = self.texts.shown_prompt_key(prompt, condition)
        return p, self._response(prompt, first, condition), self._response(prompt, second, condition)

    def _response(self, prompt: str, contestant: str, condition: str) -> str:
        found = self.responses.get((prompt, contestant, condition))
        if found is None:
            found = self.responses[(prompt, contestant, condition)] = self.texts.shown_response_key(
                prompt, contestant, condition
            )
        return found


class _Unit:
    """The renderings of the current unit (prompt, unordered pair; a plan's units are contiguous). Within a unit
    the rendering depends on the first contestant and the condition only: it is reused across judges and
    samples."""

    def __init__(self) -> None:
        self.prompt = self.a = self.b = ""
        self.rendered: dict[tuple[str, str], tuple[RenderedFields, ShownKeys]] = {}

    def renders(
        self, prompt: str, first: str, second: str
    ) -> dict[tuple[str, str], tuple[RenderedFields, ShownKeys]]:
        """The renderings kept for the unit of this presentation (none when it starts a unit)."""
        if prompt != self.prompt or not (
            (first == self.a and second == self.b) or (first == self.b and second == self.a)
        ):
            self.prompt, self.a, self.b = prompt, first, second
            self.rendered.clear()
        return self.rendered


def verdict_identity(judge: Judge, scale: str) -> dict[str, object]:
    """The identity a verdict call is keyed by: the judge's, and on the graded scale the scale itself (a graded
    question is never answered by a binary verdict, even where a tournament's own templates read the same on both
    scales). A replay judge answers from its log whatever the scale; on the binary scale nothing is added, so
    every key made before the scale existed stays."""
    identity = judge.identity()
    if scale != "binary" and judge.kind != "replay":
        identity = {**identity, "scale": scale}
    return identity


def _verdict_calls(
    plan: Plan,
    builder: PromptBuilder,
    texts: Texts,
    judges: Mapping[str, Judge],
    only: set[int] | None = None,
) -> VerdictCalls:
    keys: list[str] = []  # per plan row: its call key (or missing prerequisite) and shown text keys
    # three columns, not a tuple per row (10^6 tuples: 64 MB more at the run's peak)
    shown_prompts: list[str | None] = []
    shown_firsts: list[str | None] = []
    shown_seconds: list[str | None] = []
    calls: dict[str, Call] = {}
    blocked: dict[str, int] = {}
    # per judge: its identity serialised, and whether it answers by who is compared (replay, simulated: the
    # presentation is part of the key)
    judged = {
        jid: (canonical_json(verdict_identity(judges[jid], builder.scale)), judges[jid].kind != "live")
        for jid in {c.judge for c in plan.comparisons}
    }
    escaper = Escaper().__getitem__  # each template piece, prompt and response escaped once for all its calls
    shown_keys = _ShownTextKeys(texts)
    may_wait = bool(texts.generation_keys or texts.paraphrase_keys)  # else no presentation waits for a text
    unit = _Unit()
    for seq, c in enumerate(plan.comparisons):
        if seq % EVERY == 0:
            checkpoint()  # a run stopped meanwhile stops planning (elotui.runtime.checkpoints)
        if only is not None and seq not in only:
            continue
        prompt, first, second, condition = c.prompt, c.first, c.second, c.condition
        renders = unit.renders(prompt, first, second)
        missing = texts.missing_key(c) if may_wait else None
        if missing is not None:
            keys.append(missing)
            shown_prompts.append(None)
            shown_firsts.append(None)
            shown_seconds.append(None)
            blocked[missing] = blocked.get(missing, 0) + 1
            continue
        cached = renders.get((first, condition))
        if cached is None:
            fields = comparison_fields(builder, texts, c)
            assert fields is not None
            cached = renders[(first, condition)] = (fields, shown_keys(prompt, first, second, condition))
        fields, shown = cached
        identity, by_presentation = judged[c.judge]
        key = key_of_parts(
            identity,
            fields[0],
            fields[1],
            sample=c.sample,
            kind="verdict",
            escaper=escaper,
            context_json=presentation_json(prompt, first, second, condition, escaper)
            if by_presentation
            else None,
        )
        keys.append(key)
        shown_prompts.append(shown[0])
        shown_firsts.append(shown[1])
        shown_seconds.append(shown[2])
        found = calls.get(key)
        if found is not None:
            found.rows += 1
        else:
            calls[key] = Call(
                key, "verdict", c.judge, fields[0], fields[1], c.presentation, fields[2], fields[3]
            )
    shown_texts = (shown_prompts, shown_firsts, shown_seconds)
    return VerdictCalls(_plan_rows(plan, only, keys, shown_texts), list(calls.values()), blocked)


def _plan_rows(
    plan: Plan,
    only: set[int] | None,
    keys: list[str],
    shown_texts: tuple[list[str | None], list[str | None], list[str | None]],
) -> list[PlanRow]:
    """The plan rows, made after the calls from the keys noted meanwhile: allocated together, they free their
    memory together once stored (made between the calls, the 10^6 rows a run drops left ~140 MB of holes that
    the replay log's index could not reuse)."""
    prompts, firsts, seconds = shown_texts
    rows: list[PlanRow] = []
    for seq, c in enumerate(plan.comparisons):
        if seq % EVERY == 0:
            checkpoint()
        if only is None or seq in only:
            i = len(rows)
            rows.append(
                PlanRow(
                    seq,
                    c.prompt,
                    c.first,
                    c.second,
                    c.judge,
                    c.condition,
                    c.sample,
                    keys[i],
                    prompts[i],
                    firsts[i],
                    seconds[i],
                )
            )
    return rows
