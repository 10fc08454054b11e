"""The judge contract: one async Protocol that every provider implements.

A judge never raises for a provider fault: it returns a `JudgeReply` whose status says what happened
(`ok`, `invalid` = answered but unparseable, `error` = failed for good after retries), with the raw reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from elotui.tournament.model import EndpointConfig
from elotui.vocab import Status, Strength, Winner

__all__ = [
    "Completion",
    "Judge",
    "JudgeKind",
    "JudgeReply",
    "JudgeRequest",
    "MayGiveUp",
    "Presentation",
    "ReadsLog",
    "RetryNotice",
    "RetryObserver",
    "Status",
    "Winner",
]
JudgeKind = Literal["live", "replay", "simulated"]


class Presentation(NamedTuple):
    """What is being compared: `first` is shown as Response A, `second` as Response B. (Immutable records made
    once per planned call, 10^6 in a large run: a NamedTuple is built in a third of a frozen dataclass's time.)"""

    prompt: str
    first: str
    second: str
    condition: str = "clean"
    sample: int = 0


class JudgeRequest(NamedTuple):
    """One call as a judge receives it (immutable; made once per call sent)."""

    key: str  # the cache key of this call (elotui.plan.keys)
    system: str  # the rendered system message
    user: str  # the rendered user message (few-shot example, prompt, both responses, answer format)
    presentation: Presentation | None = None  # None for plain completions (generation, paraphrase)
    first_text: str = ""  # the response shown first, as rendered (for simulated length bias)
    second_text: str = ""


@dataclass(kw_only=True)
class CallMetrics:
    """What one provider call cost and how it went on the wire (shared by `JudgeReply` and `Completion`)."""

    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost: float | None = None
    attempts: int = 1
    http_429s: int = 0
    # A failure that retrying or another prompt will not cure (a wrong model, key or request body: "HTTP 400:
    # <the server's message>"; elotui.judges.http.lasting_error), else None: the run's circuit breaker counts them.
    lasting_error: str | None = None
    given_back: bool = False  # not answered, not failed: the judge stopped sending (why: its `unreachable`)


@dataclass
class JudgeReply(CallMetrics):
    status: Status
    winner: Winner | None = None
    reasoning: str | None = None
    raw_reply: str | None = None
    error: str | None = None
    strength: Strength | None = (
        None  # a graded verdict's: 2 strong (`>>`), 1 clear (`>`); None for a tie or binary
    )


@dataclass
class Completion(CallMetrics):
    """A plain text completion (contestant generation, paraphrase)."""

    status: Status
    text: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class RetryNotice:
    """Sent to the observer before each retry (the TUI's judges panel counts them)."""

    judge: str
    attempt: int
    reason: str  # e.g. "HTTP 429", "HTTP 503", "read timeout", "connection dropped"
    wait_s: float
    status_code: int | None = None


class RetryObserver(Protocol):
    def __call__(self, notice: RetryNotice) -> None: ...


@runtime_checkable
class Judge(Protocol):
    id: str
    config: EndpointConfig
    kind: JudgeKind

    def identity(self) -> dict[str, object]:
        """Everything besides the rendered prompt that determines the answer, for the cache key:
        provider, model, temperature, max_tokens, (replay) log path and content hash, (simulated) parameters.
        Never an API key."""
        ...

    async def judge(self, request: JudgeRequest) -> JudgeReply: ...

    async def complete(self, system: str, user: str) -> Completion: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class ReadsLog(Protocol):
    """An optional capability: a judge that answers from a verdict log (the replay judge), which a run reads
    before the first call and can start reading early."""

    def log(self) -> tuple[Path, str]:
        """The log's path and the SHA-256 of its content."""
        ...

    def prepare(self) -> None:
        """Read the log now (a UserError naming the file and line if it is malformed)."""
        ...


@runtime_checkable
class MayGiveUp(Protocol):
    """An optional capability: a judge whose endpoint can be given up on (the live judges), saying why."""

    @property
    def unreachable(self) -> str | None:
        """Why no call is sent any more, or None while calls are sent."""
        ...


def answers_free(judge: Judge) -> bool:
    """A replay or simulated judge without a delay: its answers cost nothing and need no concurrency."""
    return judge.kind != "live" and not judge.config.delay_ms


def concurrency(judge: Judge) -> int:
    """How many calls a run sends the judge at once: one for free answers, else its `max_concurrency`."""
    return 1 if answers_free(judge) else judge.config.max_concurrency
