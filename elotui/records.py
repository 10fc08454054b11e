"""The typed records that cross floors: store rows, pair details, judge statistics, the diagnose report.

Ground floor: imports only `elotui.vocab`. Store rows are NamedTuples built by a sqlite3 row factory (one tuple per
row, read by name: `row.status`, never `row[6]`); the diagnose report's TypedDicts follow `docs/diagnose.md`.
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, fields
from typing import Any, NamedTuple, NotRequired, TypedDict

from elotui.vocab import CallKind, PlanStatus, Status

# --- store rows ---------------------------------------------------------------------------------------------------


class PlanRow(NamedTuple):
    """One planned presentation, with the key of the call that answers it and the keys of the texts it shows
    (prompt text; first and second responses as shown: the perturbed variant under `lexical`). A text key is None
    while the text is not produced yet (a blocked presentation)."""

    seq: int
    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int
    key: str
    prompt_text_key: str | None = None
    first_text_key: str | None = None
    second_text_key: str | None = None


class PlanVerdict(NamedTuple):
    """The outcome of one planned presentation: what rankings read (`Store.plan_verdicts`)."""

    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int
    status: PlanStatus
    winner: str | None  # "first" | "second" | "tie", only for status "ok"


class TextRow(NamedTuple):
    """A derived text (prompt, response, perturbed variant, paraphrase, generation) by its key."""

    key: str
    kind: str
    prompt: str | None
    contestant: str | None
    condition: str | None
    base_key: str | None
    text: str
    created_at: float | None


class RunRow(NamedTuple):
    id: int
    started_at: float | None
    finished_at: float | None
    state: str
    manifest: dict[str, Any]


@dataclass(slots=True)
class CallRecord:
    """One model call as stored in `calls` (verdicts, generations and paraphrases alike)."""

    key: str
    kind: CallKind
    status: Status
    judge: str | None = None
    provider: str | None = None
    model: str | None = None
    prompt: str | None = None
    first: str | None = None
    second: str | None = None
    condition: str | None = None
    sample: int | None = None
    winner: str | None = None
    reasoning: str | None = None
    raw_reply: str | None = None
    output_text: str | None = None
    error: str | None = None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    attempts: int = 1
    http_429s: int = 0
    started_at: float | None = None
    finished_at: float | None = None
    run_id: int | None = None
    strength: int | None = None  # a graded verdict's: 2 strong (`>>`), 1 clear (`>`); None: a tie, or binary


CALL_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(CallRecord))
call_row = operator.attrgetter(*CALL_COLUMNS)  # a CallRecord as its `calls` row (a tuple), at C speed


class PairDetail(NamedTuple):
    """A planned presentation joined with its call (if any): what the pairs pane and the graph export read (10^6
    of them, a row each: a tuple is made in a fifth of a frozen dataclass's time). `status` is "missing" while
    no call is recorded."""

    seq: int
    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int
    plan_key: str
    prompt_text_key: str | None
    first_text_key: str | None
    second_text_key: str | None
    key: str | None
    kind: str | None
    status: PlanStatus
    provider: str | None
    model: str | None
    winner: str | None
    reasoning: str | None
    raw_reply: str | None
    output_text: str | None
    error: str | None
    latency_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    cost: float | None
    attempts: int | None
    http_429s: int | None
    started_at: float | None
    finished_at: float | None
    run_id: int | None
    strength: int | None = None  # an ok graded verdict's: 2 strong (`A>>B`), 1 clear (`A>B`); else None


PAIR_DETAIL_COLUMNS: tuple[str, ...] = PairDetail._fields


class JudgeStats(NamedTuple):
    """Per judge, everything recorded for the current plan (`Store.judge_stats`)."""

    done: int = 0
    ok: int = 0
    invalid: int = 0
    error: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    mean_latency_ms: float = 0.0
    retries: int = 0
    http_429s: int = 0
    planned: int = 0


@dataclass
class JudgeCounts:
    """A judge's live counts in this process: running sums (never lists), owned and updated by the runner only,
    which publishes a copy (`snapshot()`) in each Progress event."""

    in_flight: int = 0
    done: int = 0
    invalid: int = 0
    failed: int = 0
    retries: int = 0
    http_429s: int = 0
    latency_sum_ms: float = 0.0
    latency_n: int = 0
    last_errors: tuple[str, ...] = ()  # the latest five

    @property
    def mean_latency_ms(self) -> float | None:
        return self.latency_sum_ms / self.latency_n if self.latency_n else None

    def snapshot(self) -> JudgeCounts:
        return dataclasses.replace(self)

    def add_error(self, error: str) -> None:
        self.failed += 1
        self.last_errors = (*self.last_errors, error)[-5:]


# --- the diagnose report (docs/diagnose.md) -------------------------------------------------------------------------


class PositionRates(TypedDict):
    units: int
    consistent: float | None  # shares of the mirrored units
    position_bias: float | None
    inconclusive: float | None
    decisive_verdicts: int
    first_slot_share: float | None


class HumanAgreement(TypedDict):
    compared: int
    accuracy: float | None
    accuracy_decisive: float | None
    decisive_compared: int
    cohen_kappa: float | None
    fleiss_kappa: float | None


class LengthBias(TypedDict):
    decisive_verdicts: int
    longer_wins_share: float | None


class JudgeReport(TypedDict):
    counts: dict[str, int]
    position: PositionRates
    position_by_condition: dict[str, PositionRates]
    human: HumanAgreement
    length_bias: LengthBias | None


class AgreementPair(TypedDict):
    judges: list[str]
    items: int
    percent_agreement: float | None
    cohen_kappa: float | None


class Agreement(TypedDict):
    items: int
    judges: list[str]
    percent_agreement: float | None
    fleiss_kappa: float | None
    pairs: list[AgreementPair]


class TauSummary(TypedDict):
    prompts: int
    mean: float | None
    median: float | None
    min: float | None
    max: float | None


class PerPromptTau(TypedDict):
    by_prompt: dict[str, float | None]
    summary: TauSummary
    contestants: int  # the most contestants a prompt compares


class ReferenceByThreshold(TypedDict):
    contestants: int
    spearman_rho: float | None
    spearman_p: float | None
    kendall_tau: float | None
    kendall_p: float | None
    ratings: dict[str, float]


class Reference(TypedDict):
    source: str | None
    method: str
    ranking: list[str] | None
    by_threshold: dict[str, ReferenceByThreshold]


class CategoryBoard(TypedDict):
    prompts: int
    games: int
    ratings: dict[str, float]
    ranking: list[str]
    kendall_tau: float | None
    kendall_p: float | None


class PerCategory(TypedDict):
    threshold: str
    method: str
    overall: list[str]
    by_category: dict[str, CategoryBoard]


class DiagnoseReport(TypedDict):
    schema: str
    tournament: NotRequired[str]  # set by TournamentSession.diagnose_report
    # set by TournamentSession.diagnose_report: κ between the human voters of the store (rating.human.voter_agreement)
    voters: NotRequired[dict[str, Any] | None]
    contestants: list[str]
    judges_order: list[str]
    conditions: list[str]
    prompts: int
    counts: dict[str, int]
    position: PositionRates
    conditions_position: dict[str, PositionRates]
    judges: dict[str, JudgeReport]
    agreement: Agreement
    win_rates: dict[str, dict[str, float | None]]
    head_to_head: dict[str, Any]
    per_prompt_tau: PerPromptTau
    per_prompt_reference: dict[str, Any] | None
    length_bias: LengthBias | None
    human: dict[str, Any] | None
    reference: Reference
    per_category: PerCategory | None
    gold: dict[str, Any] | None  # elotui.rating.gold: the judges against [reference] gold
    self_preference: dict[str, Any] | None  # elotui.rating.judge_audit
    position_effect: dict[str, Any]  # rating.position_bt: each judge's first-slot advantage (Elo points)
    judge_weights: (
        dict[str, Any] | None
    )  # elotui.rating.judge_weights: learned weights, ratings, human agreement
    per_judge: dict[str, Any]  # each judge's own ranking and its τ against the panel's and the reference
    pairs: NotRequired[list[dict[str, Any]]]  # `elotui diagnose` only: PairSummary.as_record() per pair
    # `elotui diagnose` only: how few verdicts each adjacent order rests on (elotui.rating.drop_to_flip)
    drop_to_flip: NotRequired[list[dict[str, Any]]]
    # `elotui diagnose` with `[ranking] style_control`: each style coefficient with its interval
    # (elotui.rating.style_bt)
    style_control: NotRequired[Any]
