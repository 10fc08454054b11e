"""The tournament file (TOML): a pydantic model, loading with file/line/key errors, and resolved texts.

The key names here are a user-facing contract. Unknown keys are errors, each named with the closest valid key.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_serializer,
    field_validator,
    model_validator,
)

from elotui.errors import UserError
from elotui.runtime.heap import collector_off
from elotui.tournament.checks import cross_checks, missing_files
from elotui.tournament.data_cache import merged as merged_data_files
from elotui.tournament.data_files import DataReport
from elotui.tournament.errors import format_validation_errors, locate, toml_syntax_error
from elotui.tournament.prompt_columns import PromptColumns, PromptSequence, ResponseTable
from elotui.tournament.sections import (
    BaselinePairs,
    BatchOptions,
    DataConfig,
    FileRef,
    JudgePromptConfig,
    RankingConfig,
    Reference,
    ReferenceConfig,
    SimulationConfig,
    TextOrFile,
    TournamentMeta,
    _Strict,
)
from elotui.tournament.slug import slug_of
from elotui.tournament.user_files import read_regular_file
from elotui.vocab import THRESHOLDS, Threshold, parse_threshold

__all__ = ["THRESHOLDS", "Threshold", "Tournament", "TournamentFile", "load_tournament", "parse_threshold"]

Provider = Literal["openai", "openai-compatible", "anthropic", "gemini", "ollama", "replay", "simulated"]
Condition = Literal["clean", "lexical", "injected", "paraphrase"]
NETWORK_PROVIDERS = frozenset({"openai", "openai-compatible", "anthropic", "gemini", "ollama"})
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}


class EndpointConfig(_Strict):
    """How to reach a model. Shared by judges, contestant generators and the paraphraser."""

    provider: Provider
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = Field(default=0.0, ge=0, le=2)
    max_tokens: int = Field(default=1024, ge=1, le=1_000_000)
    max_concurrency: int = Field(default=4, ge=1, le=1024)
    requests_per_minute: float | None = Field(default=None, gt=0, le=1_000_000)
    tokens_per_minute: float | None = Field(default=None, gt=0, le=1_000_000_000)
    timeout_s: float = Field(default=60.0, gt=0, le=3600)
    max_retries: int = Field(default=4, ge=0, le=20)
    stop_after_errors: int = Field(
        default=3, ge=1, le=1_000_000
    )  # the same lasting error this often in a row
    json_mode: bool = True
    price_per_million_input: float | None = Field(default=None, ge=0, le=10_000_000)
    price_per_million_output: float | None = Field(default=None, ge=0, le=10_000_000)
    path: str | None = None
    delay_ms: float = Field(default=0.0, ge=0, le=600_000)
    simulation: SimulationConfig | None = None
    system: str | None = None
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    effort: Literal["low", "medium", "high"] | None = None
    cache_prompt: bool = True
    max_reply_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, le=1024 * 1024 * 1024)
    # the longest Retry-After a judge waits for; past it, its calls are left for the next run at once
    max_retry_after_s: float = Field(default=120.0, ge=0, le=86_400)

    @field_validator("temperature")
    @classmethod
    def _temperature_accepted(cls, value: float, info: ValidationInfo) -> float:
        """Only checked when the file sets it (defaults are not validated): the provider must take it."""
        if info.data.get("provider") == "anthropic":
            raise ValueError(
                "the Anthropic Messages API takes no `temperature` (not among its parameters since anthropic "
                "SDK 2.x); remove the key (its models sample at their own default)"
            )
        return value

    @field_validator("seed", "effort")
    @classmethod
    def _option_accepted(cls, value: Any, info: ValidationInfo) -> Any:
        provider = info.data.get("provider")
        supported = {
            "seed": ("openai", "openai-compatible", "gemini", "ollama"),
            "effort": ("openai", "anthropic"),
        }[str(info.field_name)]
        if value is not None and provider not in supported:
            raise ValueError(
                f"provider '{provider}' takes no `{info.field_name}` (supported by: {', '.join(supported)})"
            )
        return value

    @property
    def sends_temperature(self) -> bool:
        """Whether requests carry `temperature` (every HTTP provider but Anthropic, whose API dropped it)."""
        return self.provider != "anthropic"

    @property
    def key_env(self) -> str | None:
        """The environment variable that holds this endpoint's key (`api_key_env`, or the provider's default)."""
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.provider)

    @model_validator(mode="after")
    def _provider_needs(self) -> EndpointConfig:
        if self.provider in NETWORK_PROVIDERS and not self.model:
            raise ValueError(f"provider '{self.provider}' needs `model`")
        if self.provider == "openai-compatible" and not self.base_url:
            raise ValueError("provider 'openai-compatible' needs `base_url`")
        if self.provider == "replay" and not self.path:
            raise ValueError("provider 'replay' needs `path` (a verdict log, .jsonl or .jsonl.gz)")
        if self.provider == "simulated" and self.simulation is None:
            raise ValueError("provider 'simulated' needs a `[judges.simulation]` table with `qualities`")
        return self


class JudgeConfig(EndpointConfig, BatchOptions):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    id: str = Field(min_length=1)
    label: str | None = None
    self_contestant: str | None = Field(
        default=None, alias="self"
    )  # the contestant this judge is (self-preference)

    @property
    def replay_name(self) -> str:
        """For `replay`: the `judge` value to take from the log."""
        return self.model or self.id


class ContestantConfig(_Strict):
    id: str = Field(min_length=1)
    label: str | None = None
    generator: EndpointConfig | None = None
    responses: str | None = (
        None  # a data file of this contestant's responses (see elotui.tournament.data_files)
    )


class PromptConfig(_Strict):
    id: str = Field(min_length=1)
    text: TextOrFile
    responses: dict[str, TextOrFile] = Field(default_factory=dict)
    reference_ranking: list[str] | None = None
    category: str | None = None
    reference: Reference | None = None  # the correct answer (a list: one per turn of a conversation)
    earlier_turns: list[str] = Field(default_factory=list)  # a conversation's user turns before `text`
    earlier_answers: dict[str, list[str]] = Field(default_factory=dict)  # contestant → its answers to them
    turn: int | None = Field(default=None, ge=1, le=100)  # the turn of a question judged at several turns


def _clean_only() -> list[Condition]:
    return ["clean"]


class ComparisonConfig(_Strict):
    # "recorded": exactly the presentations the replay judges' logs hold (an imported, sparse design)
    pairs: Literal["all", "recorded"] | BaselinePairs = "all"
    # both_orders = false: each presentation's seat order, seeded by perturbation_seed ("random"), or as declared
    single_order: Literal["random", "declared"] = "random"
    # adaptive: buy the calls that settle the ranking (elotui.plan.adaptive), up to max_calls verdict calls
    plan: Literal["all", "adaptive"] = "all"
    settle_confidence: float = Field(default=0.95, ge=0.5, le=0.999)
    max_calls: int | None = Field(default=None, ge=1, le=100_000_000)
    screen: str | None = (
        None  # plan "all": this judge answers first, the panel only where needed (run.screening)
    )
    both_orders: bool = True
    samples: int = Field(default=1, ge=1, le=100)
    conditions: list[Condition] = Field(default_factory=_clean_only, min_length=1)
    examples_file: str | None = None
    paraphraser: EndpointConfig | None = None
    perturbation_seed: int = Field(default=0, ge=0, le=2**63 - 1)
    max_cost: float | None = Field(default=None, ge=0, le=1_000_000)
    system_template: TextOrFile | None = None
    user_template: TextOrFile | None = None
    reference_guided: Literal["categories", "all", "none"] = "categories"
    reference_categories: list[str] = Field(default_factory=lambda: ["math", "reasoning", "coding"])

    @field_validator("conditions")
    @classmethod
    def _unique_conditions(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise ValueError("conditions must not repeat")
        return value

    @model_validator(mode="after")
    def _paraphrase_needs_model(self) -> ComparisonConfig:
        if "paraphrase" in self.conditions and self.paraphraser is None:
            raise ValueError("condition 'paraphrase' needs a `[comparison.paraphraser]` model")
        return self


class TournamentFile(_Strict):
    tournament: TournamentMeta
    contestants: list[ContestantConfig] = Field(min_length=2)
    # a list, or the prompts of a file of plain rows held column-wise (PromptSequence: each built when asked for)
    prompts: list[PromptConfig] = Field(min_length=1)
    judges: list[JudgeConfig] = Field(min_length=1)
    comparison: ComparisonConfig = Field(default_factory=ComparisonConfig)
    ranking: RankingConfig = Field(default_factory=RankingConfig)
    judge_prompt: JudgePromptConfig = Field(default_factory=JudgePromptConfig)
    reference: ReferenceConfig | None = None
    data: DataConfig | None = None

    @field_serializer("prompts", mode="wrap")
    def _prompts_listed(self, prompts: Any, handler: SerializerFunctionWrapHandler) -> Any:
        """Dumped as a list, whichever sequence holds them."""
        return handler(prompts if isinstance(prompts, list) else list(prompts))

    @model_validator(mode="after")
    def _anchor_declared(self) -> TournamentFile:
        anchor = self.ranking.anchor
        declared = [c.id for c in self.contestants]
        if anchor is not None and anchor.contestant not in declared:
            close = difflib.get_close_matches(anchor.contestant, declared, n=1, cutoff=0.6)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ValueError(
                f"ranking.anchor.contestant: contestant '{anchor.contestant}' is not declared in [[contestants]]"
                + hint
            )
        return self

    @model_validator(mode="after")
    def _recorded_needs_replay(self) -> TournamentFile:
        if self.comparison.pairs == "recorded":
            if any(j.provider != "replay" for j in self.judges):
                raise ValueError('comparison.pairs = "recorded" needs every judge to be a `replay` judge')
            if self.comparison.plan != "all":
                raise ValueError('comparison.pairs = "recorded" judges what is recorded: plan must be "all"')
        return self


@dataclass
class Tournament:
    """A validated tournament with every file reference resolved to text. The prompts of a file of plain rows are
    held column-wise (elotui.tournament.prompt_columns): `spec.prompts` builds each PromptConfig when asked for it,
    `responses` reads the rows, `prompt_texts` is made when first asked for."""

    spec: TournamentFile
    path: Path
    content_hash: str
    responses: Mapping[tuple[str, str], str] = field(default_factory=dict)
    system_template: str | None = None
    user_template: str | None = None
    data: DataReport | None = None  # what `[data]` files gave (None: everything is inline)
    _prompt_texts: dict[str, str] | None = field(default=None, repr=False, compare=False)

    @property
    def _columns(self) -> PromptColumns | None:
        prompts = self.spec.prompts
        return prompts.columns if isinstance(prompts, PromptSequence) else None

    @property
    def prompt_texts(self) -> dict[str, str]:
        """prompt id → its text (a `{ file = ... }` text read)."""
        if self._prompt_texts is None:
            columns = self._columns
            self._prompt_texts = columns.prompt_texts() if columns is not None else {}
        return self._prompt_texts

    @property
    def name(self) -> str:
        return self.spec.tournament.name

    @property
    def slug(self) -> str:
        """The name as a file-name stem (`slug_of`)."""
        return slug_of(self.name)

    @property
    def base_dir(self) -> Path:
        return self.path.parent

    @property
    def contestant_ids(self) -> list[str]:
        return [c.id for c in self.spec.contestants]

    @property
    def prompt_ids(self) -> list[str]:
        columns = self._columns
        return list(columns.ids) if columns is not None else [p.id for p in self.spec.prompts]

    @property
    def judge_ids(self) -> list[str]:
        return [j.id for j in self.spec.judges]

    def selves(self) -> dict[str, tuple[str, str]]:
        """judge id -> (the contestant it is, how that was found): `[[judges]] self`, else a contestant whose id is
        the judge's id or model, or whose generator uses the judge's provider and model."""
        out: dict[str, tuple[str, str]] = {}
        ids = set(self.contestant_ids)
        for j in self.spec.judges:
            if j.self_contestant is not None:
                out[j.id] = (j.self_contestant, "self")
            elif j.id in ids:
                out[j.id] = (j.id, "same id")
            elif j.model in ids:
                out[j.id] = (str(j.model), "same model")
            else:
                for c in self.spec.contestants:
                    g = c.generator
                    if g is not None and (g.provider, g.model) == (j.provider, j.model):
                        out[j.id] = (c.id, "generator model")
                        break
        return out

    @property
    def categories(self) -> dict[str, str]:
        """prompt id → category, for the prompts that have one."""
        columns = self._columns
        if columns is not None:
            return columns.categories_by_id()
        return {p.id: p.category for p in self.spec.prompts if p.category is not None}

    @property
    def prompt_turns(self) -> dict[str, int | None]:
        """prompt id → its turn (`[data] turn = [1, 2]`, an MT-bench import's `turn`; None: the prompt gives none)."""
        columns = self._columns
        return columns.turns_by_id() if columns is not None else {p.id: p.turn for p in self.spec.prompts}

    def prompts_with_context(self) -> list[PromptConfig]:
        """The prompts that carry more than an id, a text, a category, responses and a turn — a reference answer, a
        reference ranking or earlier turns — in order. Those held column-wise carry none of these (a plain row
        gives none), so none of them is built here."""
        if self._columns is not None:
            return []
        return [
            p for p in self.spec.prompts if p.reference is not None or p.reference_ranking or p.earlier_turns
        ]

    @property
    def baseline(self) -> str | None:
        """The baseline contestant of a `pairs = { baseline = ... }` design (None: every pair is judged)."""
        pairs = self.spec.comparison.pairs
        return pairs.baseline if isinstance(pairs, BaselinePairs) else None

    def resolve(self, relative: str) -> Path:
        """A path from the file, relative to the tournament file's folder."""
        p = Path(relative).expanduser()
        return p if p.is_absolute() else (self.base_dir / p)

    def judge(self, judge_id: str) -> JudgeConfig:
        for j in self.spec.judges:
            if j.id == judge_id:
                return j
        raise KeyError(judge_id)

    def _endpoints(self) -> list[tuple[str, EndpointConfig]]:
        out: list[tuple[str, EndpointConfig]] = [(f"judge '{j.id}'", j) for j in self.spec.judges]
        out += [(f"contestant '{c.id}' generator", c.generator) for c in self.spec.contestants if c.generator]
        if self.spec.comparison.paraphraser is not None:
            out.append(("paraphraser", self.spec.comparison.paraphraser))
        return out

    def missing_api_keys(self) -> list[tuple[str, str]]:
        """(who, variable) for every `api_key_env` that is not set in the environment."""
        return [
            (who, ep.key_env)
            for who, ep in self._endpoints()
            if ep.key_env and not os.environ.get(ep.key_env)
        ]

    def plain_http_keys(self) -> list[str]:
        """Warnings for endpoints that would send a key over plain http:// to a host that is not this machine."""
        out = []
        for who, ep in self._endpoints():
            url = ep.base_url or ""
            host = re.sub(r"^http://(?:[^@/]*@)?", "", url).split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
            loopback = host in ("localhost", "::1") or host.startswith("127.")
            if ep.key_env and url.startswith("http://") and not loopback:
                out.append(
                    f"{who}: its API key (${ep.key_env}) would travel unencrypted over http:// to {host}"
                )
        return out

    def require_api_keys(self) -> None:
        missing = self.missing_api_keys()
        if missing:
            raise UserError(
                f"{self.path}: API key variable(s) not set",
                details=[f"{who}: environment variable {var} is not set" for who, var in missing],
            )


def load_tournament(path: str | Path) -> Tournament:
    """Read, validate and resolve a tournament file. Raises UserError naming file, line and key. The cyclic
    garbage collector is held off meanwhile (elotui.runtime.heap): the prompts and responses are millions of
    objects without cycles at 10^6 prompts, and its passes over them took 14 of 23 s of loading such a file."""
    with collector_off():
        return _load_tournament(Path(path))


def _load_tournament(path: Path) -> Tournament:
    raw_bytes = read_regular_file(path)
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(toml_syntax_error(path, text, exc)) from None
    except RecursionError:
        raise UserError(f"{path}:1: tables or arrays nested too deeply to be a tournament file") from None
    report = merged_data_files(data, path.parent)
    spec: TournamentFile | None = None
    schema: list[str] = []
    columns = data.get("prompts")
    columns = columns if isinstance(columns, PromptColumns) else None
    # held column-wise, the prompts passed every check a PromptConfig makes as they were read: one stands for all
    checked = data if columns is None else {**data, "prompts": [columns.prompt(0)]}
    try:
        spec = TournamentFile.model_validate(checked)
    except ValidationError as exc:
        schema = format_validation_errors(exc, text, checked, TournamentFile, path)
    if spec is not None and columns is not None:
        spec = spec.model_copy(update={"prompts": PromptSequence(columns, PromptConfig.model_validate)})
    keyed = cross_checks(data, coverage=report is None) + missing_files(data, path.parent)
    if report is not None:
        keyed += report.toml_problems
    problems = _in_line_order(
        schema + [f"{path}:{locate(text, k.split(': ', 1)[0]) or 1}: {k}" for k in keyed]
    )
    if report is not None:
        problems += report.file_problems
    if problems or spec is None:
        raise UserError(f"{path}: {len(problems)} problem(s) in the tournament file", details=problems)
    tournament = Tournament(
        spec=spec, path=path.resolve(), content_hash=hashlib.sha256(raw_bytes).hexdigest(), data=report
    )
    _resolve_texts(tournament, text)
    return tournament


def _in_line_order(lines: list[str]) -> list[str]:
    """`FILE:LINE: ...` lines sorted by line (stable), without repeats."""

    def line_of(item: str) -> int:
        m = re.match(r".*?:(\d+): ", item)
        return int(m.group(1)) if m else 0

    return sorted(dict.fromkeys(lines), key=line_of)


def _read_ref(t: Tournament, ref: FileRef, key: str, problems: list[str]) -> str:
    target = t.resolve(ref.file)
    if not target.exists():
        problems.append(f"{key}.file: {target} does not exist")
        return ""
    try:
        return read_regular_file(target).decode("utf-8")
    except UserError as exc:
        problems.append(f"{key}.file: {exc}")
    except UnicodeDecodeError as exc:
        problems.append(f"{key}.file: cannot read {target}: {exc}")
    return ""


def _text(t: Tournament, value: TextOrFile, key: str, problems: list[str]) -> str:
    return value if isinstance(value, str) else _read_ref(t, value, key, problems)


def _resolve_texts(t: Tournament, source: str) -> None:
    """The prompts' texts and responses, a `{ file = ... }` one read (a plain text taken as it is, without a call
    or a key path made for it: 3 * 10^6 of them at 10^6 prompts)."""
    problems: list[str] = []
    columns = t._columns
    if columns is not None:  # plain rows: every text and response is a string
        t.responses = ResponseTable(columns)
    prompt_texts: dict[str, str] = {}
    responses: dict[tuple[str, str], str] = {}
    for i, prompt in enumerate(t.spec.prompts if columns is None else ()):
        pid, text = prompt.id, prompt.text
        prompt_texts[pid] = text if type(text) is str else _text(t, text, f"prompts[{i}].text", problems)
        for cid, value in prompt.responses.items():
            responses[(pid, cid)] = (
                value if type(value) is str else _text(t, value, f"prompts[{i}].responses.{cid}", problems)
            )
    if columns is None:
        t._prompt_texts, t.responses = prompt_texts, responses
    comparison = t.spec.comparison
    if comparison.system_template is not None:
        t.system_template = _text(t, comparison.system_template, "comparison.system_template", problems)
    if comparison.user_template is not None:
        t.user_template = _text(t, comparison.user_template, "comparison.user_template", problems)
    if problems:
        details = [f"{t.path}:{locate(source, p.split(': ', 1)[0]) or 1}: {p}" for p in problems]
        raise UserError(f"{t.path}: {len(problems)} problem(s) in the tournament file", details=details)
