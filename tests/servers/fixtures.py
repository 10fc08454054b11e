"""Pytest fixtures for the loopback provider server (registered as a plugin in tests/conftest.py).

- `fake_llm`: a started `FakeLLMServer` (no latency, default verdict = prefer the longer response).
- `fake_llm_factory`: `fake_llm_factory(latency_s=..., verdict_fn=...)` starts more servers; all stop at teardown.
- `fake_key`: sets $ELOTUI_FAKE_KEY (the variable `FakeLLMServer.judge_config` names) and returns its value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.servers.fake_llm import FakeLLMServer

FAKE_KEY = "sk-fake-3f9c2a7e1b5d4c8a9e0f6b2d7a1c5e8f"


@pytest.fixture
def fake_llm_factory() -> Iterator[Callable[..., FakeLLMServer]]:
    started: list[FakeLLMServer] = []

    def make(**kwargs: Any) -> FakeLLMServer:
        server = FakeLLMServer(**kwargs).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def fake_llm(fake_llm_factory: Callable[..., FakeLLMServer]) -> FakeLLMServer:
    return fake_llm_factory()


@pytest.fixture
def fake_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ELOTUI_FAKE_KEY", FAKE_KEY)
    return FAKE_KEY
