"""Judges: one module per provider behind the `Judge` protocol (see base.py), built by `build_judge`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from elotui.judges.base import Judge, RetryObserver
from elotui.judges.limits import RetryPolicy
from elotui.judges.parse import Scale
from elotui.tournament.model import EndpointConfig

if TYPE_CHECKING:  # httpx only for the live judges (imported where built): `export` and `diagnose` need none
    import httpx


def build_judge(
    config: EndpointConfig,
    *,
    judge_id: str,
    base_dir: Path,
    observer: RetryObserver | None = None,
    retry_policy: RetryPolicy | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    scale: Scale = "binary",
) -> Judge:
    """The judge for an endpoint. `scale`: the verdict scale it is asked for (`[judge_prompt] scale`: what a
    live judge's structured output allows and how its reply is read, how a simulated judge answers; a replay
    judge answers from its log). `retry_policy` (backoff timing) and `transport` are for tests."""
    provider = config.provider
    if provider == "replay":
        from elotui.judges.replay import ReplayJudge

        return ReplayJudge(config, judge_id=judge_id, base_dir=base_dir)
    if provider == "simulated":
        from elotui.judges.simulated import SimulatedJudge

        return SimulatedJudge(config, judge_id=judge_id, scale=scale)
    live: type
    if provider == "openai":
        from elotui.judges.openai import OpenAIJudge as live
    elif provider == "openai-compatible":
        from elotui.judges.openai import OpenAICompatibleJudge as live
    elif provider == "anthropic":
        from elotui.judges.anthropic import AnthropicJudge as live
    elif provider == "gemini":
        from elotui.judges.gemini import GeminiJudge as live
    elif provider == "ollama":
        from elotui.judges.ollama import OllamaJudge as live
    else:
        raise ValueError(f"unknown provider {provider!r}")
    judge: Judge = live(
        config,
        judge_id=judge_id,
        observer=observer,
        retry_policy=retry_policy,
        transport=transport,
        scale=scale,
    )
    return judge


__all__ = ["RetryPolicy", "build_judge"]
