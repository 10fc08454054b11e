"""Helpers for the judge tests: build a judge aimed at the fake server with fast backoff."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from elotui.config import JudgeConfig
from elotui.judges import RetryPolicy, build_judge
from elotui.judges.base import Judge, JudgeRequest, Presentation, RetryNotice
from tests.servers.fake_llm import FakeLLMServer

FAST = RetryPolicy(base_s=0.01, cap_s=0.05)

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
        provider: str = "openai", server: FakeLLMServer | None = None, **fields: Any
    ) -> tuple[Judge, list[RetryNotice]]:
        srv = server or fake_llm
        notices: list[RetryNotice] = []
        fields.setdefault("timeout_s", 2.0)
        config = JudgeConfig(id="j1", **srv.judge_config(provider, **fields))
        judge = build_judge(
            config, judge_id="j1", base_dir=Path("."), observer=notices.append, retry_policy=FAST
        )
        made.append(judge)
        return judge, notices

    return make
