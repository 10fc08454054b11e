"""What a run would do, without calling anyone: the `--dry-run` figures and the `--show-prompt` prompt.

Estimates: input tokens = characters of the rendered system + user message / 4; output tokens =
min(max_tokens, 512) per call; cost at the endpoint's `price_per_million_*` (None without prices). A response
that a generator has not produced yet is estimated as max_tokens × 4 characters; a missing paraphrase as the
prompt itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from elotui.judges.base import Judge
from elotui.plan.calls import (
    Call,
    Texts,
    endpoints,
    estimated_cost,
    estimated_output_tokens,
    prerequisite_calls,
    render_comparison,
)
from elotui.plan.presentations import Plan, build_plan
from elotui.plan.prompts import PromptBuilder, RenderedPrompt
from elotui.plan.verdict_calls import verdict_calls
from elotui.store import Store
from elotui.tournament.model import Tournament


@dataclass
class EndpointEstimate:
    endpoint: str
    kind: str  # "verdict" | "generation" | "paraphrase"
    calls: int = 0  # planned calls (plan rows for judges)
    cached: int = 0  # of which already answered
    input_tokens: int = 0  # estimated, for the calls still to send
    output_tokens: int = 0
    cost: float | None = None  # estimated, for the calls still to send (None: no prices configured)

    @property
    def to_send(self) -> int:
        return self.calls - self.cached


@dataclass
class DryRun:
    plan: Plan
    rows: list[EndpointEstimate] = field(default_factory=list)

    @property
    def total_calls(self) -> int:
        return sum(r.calls for r in self.rows)

    @property
    def cached(self) -> int:
        return sum(r.cached for r in self.rows)


def _add(est: EndpointEstimate, judge: Judge, call: Call, rows: int, cached: bool) -> None:
    est.calls += rows
    cfg = judge.config
    priced = cfg.price_per_million_input is not None or cfg.price_per_million_output is not None
    if priced and est.cost is None:
        est.cost = 0.0
    if cached:
        est.cached += rows
        return
    inp, out = call.estimated_input_tokens(), estimated_output_tokens(cfg)
    est.input_tokens += inp
    est.output_tokens += out
    if priced:
        est.cost = (est.cost or 0.0) + estimated_cost(cfg, inp, out)


def dry_run(
    tournament: Tournament, store: Store, judges: dict[str, Judge], builder: PromptBuilder | None = None
) -> DryRun:
    builder = builder or PromptBuilder(tournament)
    plan = build_plan(tournament)
    prereqs = prerequisite_calls(tournament, plan, builder, judges)
    texts = Texts.load(tournament, store, prereqs, placeholders=True)
    verdicts = verdict_calls(plan, builder, texts, judges)
    answered = store.cached_keys([c.key for c in prereqs] + [c.key for c in verdicts.calls])
    result = DryRun(plan)
    by_endpoint: dict[str, EndpointEstimate] = {}
    for jid in tournament.judge_ids:
        by_endpoint[jid] = EndpointEstimate(jid, "verdict")
    for jid in endpoints(tournament):
        if jid not in by_endpoint:
            kind = "paraphrase" if jid == "paraphraser" else "generation"
            by_endpoint[jid] = EndpointEstimate(jid, kind)
    for call in prereqs:
        _add(by_endpoint[call.judge], judges[call.judge], call, 1, call.key in answered)
    for call in verdicts.calls:
        _add(by_endpoint[call.judge], judges[call.judge], call, call.rows, call.key in answered)
    result.rows = [e for e in by_endpoint.values() if e.calls or e.kind == "verdict"]
    return result


def first_prompt(
    tournament: Tournament, store: Store, builder: PromptBuilder | None = None, prompt_id: str | None = None
) -> RenderedPrompt:
    """The fully rendered judge prompt of the first planned comparison (of `prompt_id`, if given), with
    placeholders for texts a generator or the paraphraser has not produced yet."""
    builder = builder or PromptBuilder(tournament)
    plan = build_plan(tournament)
    texts = Texts(tournament, placeholders=True, labels=True)
    for record in store.texts("generation"):
        if record.prompt and record.contestant:
            texts.generated[(record.prompt, record.contestant)] = record.text
    for record in store.texts("paraphrase"):
        if record.prompt:
            texts.paraphrased[record.prompt] = record.text
    wanted = [c for c in plan.comparisons if prompt_id is None or c.prompt == prompt_id]
    ready = [c for c in wanted if texts.produced(c.prompt, c.first) and texts.produced(c.prompt, c.second)]
    rendered = render_comparison(builder, texts, (ready or wanted)[0])
    assert rendered is not None  # placeholders make every text available
    return rendered
