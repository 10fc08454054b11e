"""What a run is set up with: the judges of every endpoint, built by a factory, and the run's manifest (what
produced it: never an API key)."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from typing import Any

from elotui import __version__
from elotui.judges.base import Judge, ReadsLog, RetryObserver
from elotui.judges.replay_index import LogKey
from elotui.plan.calls import endpoints
from elotui.plan.presentations import Plan
from elotui.plan.prompts import PromptBuilder
from elotui.runtime.checkpoints import to_thread
from elotui.runtime.heap import long_lived
from elotui.tournament.model import EndpointConfig, Tournament
from elotui.tournament.user_files import read_regular_file

JudgeFactory = Callable[[EndpointConfig, str, RetryObserver | None], Judge]


def default_judge_factory(tournament: Tournament, *, no_delay: bool = False) -> JudgeFactory:
    """Builds judges with `elotui.judges.build_judge`; `no_delay` sets replay/simulated `delay_ms` to 0."""

    def factory(config: EndpointConfig, judge_id: str, observer: RetryObserver | None) -> Judge:
        from elotui.judges import build_judge

        if no_delay and config.provider in ("replay", "simulated") and config.delay_ms:
            config = config.model_copy(update={"delay_ms": 0.0})
        return build_judge(
            config,
            judge_id=judge_id,
            base_dir=tournament.base_dir,
            observer=observer,
            scale=tournament.spec.judge_prompt.scale,
        )

    return factory


async def ready_judges(judges: Iterable[Judge], stop: threading.Event | None = None) -> None:
    """Each judge that reads something before its first call reads it now (a replay judge its log: UserError naming
    the file and line if it is malformed), in a thread: a 10^6-verdict log takes ~4 s to read, and the event loop
    (the TUI) runs on meanwhile. What it reads is long-lived (elotui.runtime.heap). The reading ends early (Stopped) once
    `stop` is set or the caller is cancelled (elotui.runtime.checkpoints)."""
    await to_thread(ready_now, list(judges), stop=stop)


def ready_now(judges: Iterable[Judge]) -> None:
    """`ready_judges` in the calling thread: the runner's planning thread, while the plan's end is written behind
    (elotui.run.prepare). A judge that has read its log does not read it again."""
    for judge in judges:
        if isinstance(judge, ReadsLog):
            _long_lived(judge.prepare)


def logs_read(judges: Iterable[Judge]) -> list[LogKey]:
    """The logs these judges read before their first call (a replay judge's: `ReplayJudge.log`)."""
    return [judge.log() for judge in judges if isinstance(judge, ReadsLog)]


def _long_lived(make: Callable[[], object]) -> None:
    with long_lived():
        make()


def build_judges(
    tournament: Tournament,
    factory: JudgeFactory,
    observer_for: Callable[[str], RetryObserver | None] | None = None,
) -> dict[str, Judge]:
    out: dict[str, Judge] = {}
    for jid, config in endpoints(tournament).items():
        out[jid] = factory(config, jid, observer_for(jid) if observer_for else None)
    return out


def manifest(
    tournament: Tournament,
    judges: dict[str, Judge],
    builder: PromptBuilder,
    plan: Plan,
    max_cost: float | None,
) -> dict[str, Any]:
    """What produced a run: never an API key (identities and settings hold variable names only)."""
    comparison = tournament.spec.comparison
    examples_hash = None
    if comparison.examples_file:
        examples_hash = hashlib.sha256(
            read_regular_file(tournament.resolve(comparison.examples_file))
        ).hexdigest()
    return {
        "elotui_version": __version__,
        "tournament": {
            "name": tournament.name,
            "path": str(tournament.path),
            "content_hash": tournament.content_hash,
        },
        "endpoints": {
            jid: {
                "kind": j.kind,
                "identity": _no_userinfo(j.identity()),
                "settings": _no_userinfo(j.config.model_dump(mode="json")),
            }
            for jid, j in judges.items()
        },
        "comparison": comparison.model_dump(mode="json", exclude={"system_template", "user_template"}),
        "examples_file_sha256": examples_hash,
        "templates": builder.templates(),
        "plan": {
            "verdict_calls": plan.total,
            "generations": len(plan.generations),
            "paraphrases": len(plan.paraphrases),
        },
        "max_cost": max_cost,
    }


def _no_userinfo(settings: dict[str, Any]) -> dict[str, Any]:
    """A `user:password@` in a base_url never reaches the store's manifest."""
    from elotui.judges.secrets import redact_url

    out = dict(settings)
    for key, value in out.items():
        if key == "base_url" and isinstance(value, str):
            out[key] = redact_url(value)
        elif isinstance(value, dict):
            out[key] = _no_userinfo(value)
    return out
