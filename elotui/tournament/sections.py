"""The tournament file's small tables (pydantic models): file references, the simulation, `[data]`,
`[tournament]`, the baseline design and `[reference]`. The key names are a user-facing contract (see
elotui.tournament.model, which assembles them into the whole file)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from elotui.vocab import Threshold, parse_threshold


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FileRef(_Strict):
    """`{ file = "relative/path" }`: text read from a file, relative to the tournament file."""

    file: str


TextOrFile = str | FileRef


def _reference_value(value: Any) -> Any:
    """A prompt's `reference`: one text, or a list of texts (one per turn of a conversation)."""
    if isinstance(value, str) or (
        isinstance(value, list) and value and all(isinstance(v, str) for v in value)
    ):
        return value
    raise ValueError(f"must be text, or a list of texts (one per turn of a conversation); got {value!r}")


Reference = Annotated[str | list[str], BeforeValidator(_reference_value)]


class SimulationConfig(_Strict):
    """A simulated judge: latent qualities on the Elo scale, plus noise and biases (deterministic per seed).

    P(first wins) = 1 / (1 + 10^(-(q_first - q_second + position_bias + length_term) / 400)) after adding
    Gaussian noise of sd `noise` to the difference; |difference| < `tie_margin` is a tie.
    """

    qualities: dict[str, float]
    noise: float = Field(default=50.0, ge=0, le=10_000)
    position_bias: float = Field(default=0.0, ge=-10_000, le=10_000)
    length_bias: float = Field(default=0.0, ge=-10_000, le=10_000)
    tie_margin: float = Field(default=0.0, ge=0, le=10_000)
    invalid_rate: float = Field(default=0.0, ge=0, le=1)
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    # the qualities the judge perceives when its prompt shows no reference answer (None: always `qualities`)
    unguided_qualities: dict[str, float] | None = None
    # asked on the graded scale: a verdict for the side the noisy difference favours, by at least this much, is
    # strong (`>>`); None: 200 Elo points
    strong_margin: float | None = Field(default=None, ge=0, le=10_000)


class DataFields(_Strict):
    """`[data.fields]`: which field of a data row holds what (a path such as `choices[0].turns[0]`)."""

    prompt_id: str | None = None
    text: str | None = None
    category: str | None = None
    reference_ranking: str | None = None
    response: str | None = None
    contestant: str | None = None
    reference: str | None = None
    responses: str | None = None  # a prompts row's table of responses, contestant → text (none by default)
    # a prompts row's turn number, for a question judged at several turns (the turn scope): read only where named
    turn: str | None = None


class DataConfig(_Strict):
    """`[data]`: prompts and responses from JSONL / JSON / CSV files (see elotui.tournament.data_files)."""

    prompts: str | None = None
    responses: str | None = None
    missing: Literal["error", "skip-prompt"] = "error"
    allow_empty: bool = False  # an empty response is judged as it is (a note), not a coverage problem
    turn: int | Literal["conversation"] | list[int | Literal["conversation"]] = 1  # checked by _turn_value
    references: str | None = None  # reference answers (MT-bench's reference_answer/*.jsonl)
    style: str | None = None  # style counts per prompt and contestant (`elotui import arena`'s style.jsonl)
    fields: DataFields = Field(default_factory=DataFields)

    @field_validator("turn", mode="before")
    @classmethod
    def _turn_value(cls, value: Any) -> Any:
        """One message for every wrong `turn` (not one per member of the union)."""
        turns = value if isinstance(value, list) else [value]
        each = all(
            t == "conversation" or (isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= 100)
            for t in turns
        )
        if each and turns and len(set(turns)) == len(turns):
            return value
        raise ValueError(
            'must be a turn number (1 to 100), "conversation", or a list of distinct ones such as [1, 2] or '
            f'[1, "conversation"]; got {value!r}'
        )


class TournamentMeta(_Strict):
    name: str = Field(min_length=1)
    criterion: str = "overall quality: helpfulness, correctness, relevance, depth and clarity of the response"
    description: str | None = None


class BaselinePairs(_Strict):
    """`pairs = { baseline = "id" }`: every contestant is judged against this one only (AlpacaEval, arena-hard)."""

    baseline: str = Field(min_length=1)


class ReferenceConfig(_Strict):
    votes: str | None = None
    ranking: list[str] | None = None
    gold: str | None = None  # gold labels: JSONL rows {prompt, a, b, better} (elotui.rating.gold)


class Anchor(_Strict):
    """`anchor = { contestant = "gpt-4", rating = 1000 }`: every rating (and interval, and bootstrap round) shifted
    by one constant so that this contestant sits at `rating`."""

    contestant: str = Field(min_length=1)
    rating: float = Field(
        ge=-1_000_000, le=1_000_000, strict=True
    )  # `rating = "1000"` is a mistake, not 1000


class JudgePromptConfig(_Strict):
    """`[judge_prompt]`: the scale a judge answers on. "binary": `A`, `B` or `tie` (the default); "graded":
    `A>>B`, `A>B`, `A=B`, `B>A`, `B>>A` (arena-hard's scale: `>>` a strong, clear-cut preference), stored as the
    winner and a strength (2 strong, 1 clear) that `[ranking] strong_weight` counts."""

    scale: Literal["binary", "graded"] = "binary"


class RankingConfig(_Strict):
    method: Literal["elo", "bt"] = "elo"
    threshold: Annotated[Threshold, Field()] = 0.5
    k_factor: float = Field(default=16.0, gt=0, le=1000)
    initial_rating: float = Field(default=1000.0, ge=-1_000_000, le=1_000_000)
    permutations: int = Field(default=100, ge=1, le=10_000)
    bootstrap: int = Field(default=200, ge=0, le=10_000)
    bootstrap_unit: Literal["prompt", "game"] = "prompt"
    seed: int = Field(default=0, ge=0, le=2**63 - 1)
    # "learned": judge-aware Bradley–Terry; position_effect: a first-slot advantage per judge (both: threshold none)
    judge_weights: Literal["equal", "learned"] = "equal"
    position_effect: bool = False
    exclude_self: bool = False  # leave out each judge's verdicts on its own contestant's comparisons
    anchor: Anchor | None = None  # None: the ratings' mean at initial_rating
    # Bradley–Terry with style covariates (elotui.rating.style_bt): who wins when style is equal
    style_control: list[Literal["length", "markdown"]] = Field(default_factory=list)
    # a strong verdict (the log's "strength": 2) counts as this many games at threshold none (arena-hard: 3)
    # (strict: `strong_weight = "3"` or `= true` is a mistake the file should be told of, not read as 3 or 1)
    strong_weight: int = Field(default=1, ge=1, le=100, strict=True)

    @field_validator("threshold", mode="before")
    @classmethod
    def _threshold(cls, value: Any) -> Threshold:
        return parse_threshold(value)

    @model_validator(mode="after")
    def _one_model(self) -> RankingConfig:
        if self.position_effect and self.judge_weights == "learned":
            raise ValueError(
                'position_effect and judge_weights = "learned" are two different models: choose one'
            )
        return self


BATCH_PROVIDERS = ("openai", "openai-compatible", "anthropic", "gemini")


class BatchOptions(_Strict):
    """A judge's use of its provider's batch API (elotui.run.batching, docs/batch.md): the same calls at a
    fraction of the price (`batch_price_factor`, 0.5 by default), answered within 24 hours."""

    batch: bool = False
    batch_max_requests: int | None = Field(default=None, ge=1, le=100_000)
    batch_price_factor: float = Field(default=0.5, ge=0, le=1)

    @model_validator(mode="after")
    def _batch_provider(self) -> BatchOptions:
        provider = getattr(self, "provider", None)
        if self.batch and provider not in BATCH_PROVIDERS:
            takes = ", ".join(BATCH_PROVIDERS)
            raise ValueError(f"provider '{provider}' has no batch API (`batch = true` takes: {takes})")
        return self


def price_factor(config: object) -> float:
    """What an endpoint is charged of its synchronous prices: a batch judge's `batch_price_factor`, else 1."""
    return config.batch_price_factor if isinstance(config, BatchOptions) and config.batch else 1.0
