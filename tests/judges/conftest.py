"""Helpers for the judge tests: build a judge aimed at the fake server with fast backoff."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elotui.judges import RetryPolicy, build_judge
from elotui.judges.base import Judge, JudgeRequest, Presentation, RetryNotice
from elotui.tournament.model import JudgeConfig
from tests.servers.fake_llm import FakeLLMServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05)
WALL_NOW = 1_700_000_000.0  # the judges' "now" for Retry-After dates (an injected clock)


class Waits(list[float]):
    """The retry waits a judge asked for, recorded instead of slept (an injected clock: no test waits on the wall
    clock for a backoff or a Retry-After)."""

    async def sleep(self, seconds: float) -> None:
        self.append(seconds)
        await asyncio.sleep(0)

    def policy(self) -> RetryPolicy:
        return dataclasses.replace(FAST, sleep=self.sleep, wall_clock=lambda: WALL_NOW)


USER = (
    "Compare.\n\n<<<RESPONSE A tok>>>\nshort answer\n<<<END RESPONSE A tok>>>\n\n"
    "<<<RESPONSE B tok>>>\na much longer answer with detail\n<<<END RESPONSE B tok>>>\n"
    'Answer with {"reasoning": "...", "better": "A" | "B" | "tie"}.'
)


def request(key: str = "k1", user: str = USER) -> JudgeRequest:
    return JudgeRequest(
        key=key,
        system="You are a fair judge.",
        user=user,
        presentation=Presentation(prompt="q1", first="x", second="y"),
    )


@pytest.fixture
def make_judge(fake_llm: FakeLLMServer, fake_key: str) -> Callable[..., tuple[Judge, list[RetryNotice]]]:
    made: list[Judge] = []

    def make(
        provider: str = "openai",
        server: FakeLLMServer | None = None,
        waits: Waits | None = None,
        **fields: Any,
    ) -> tuple[Judge, list[RetryNotice]]:
        srv = server or fake_llm
        notices: list[RetryNotice] = []
        fields.setdefault("timeout_s", 2.0)
        config = JudgeConfig(id="j1", **srv.judge_config(provider, **fields))
        judge = build_judge(
            config,
            judge_id="j1",
            base_dir=Path("."),
            observer=notices.append,
            retry_policy=waits.policy() if waits is not None else FAST,
        )
        made.append(judge)
        return judge, notices

    return make
