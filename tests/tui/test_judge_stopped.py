"""A judge stopped by the circuit breaker in the TUI: a notification names it, the other judge finishes, `q`
exits 3, and the exit summary printed after the app closes names it with the server's status and message."""

from __future__ import annotations

import asyncio
from pathlib import Path

from elotui.run.summary import exit_summary
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import ApiError, FakeLLMServer


async def wait_for(condition, timeout: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_a_stopped_judge_is_said_and_the_tui_exits_3(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(
        verdict_fn=lambda r: ApiError(404, "no model named judge-gtp") if r.model == "judge-gtp" else None
    )
    judges = [
        server.judge_config("openai-compatible", id="good", model="judge-gpt"),
        server.judge_config("openai-compatible", id="typo", model="judge-gtp", max_concurrency=8),
    ]
    path = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"], judges=judges)
    t = load_tournament(path)
    with Store(tmp_path / "s.sqlite") as store:
        app = make_app(t, store)
        notices: list[str] = []
        async with app.run_test(size=(120, 40)) as pilot:
            real = app._notice
            app._notice = lambda n: (notices.append(n.message), real(n))[1]  # type: ignore[method-assign]
            await wait_for(lambda: app.monitor.result is not None)
            await pilot.press("q")
        assert app.return_value == 3
        assert sum(r.model == "judge-gtp" for r in server.requests) == 3
        assert sum(r.model == "judge-gpt" for r in server.requests) == 12  # the other judge finished
        assert any(
            n.startswith("judge typo: stopped after 3 calls in a row failed with HTTP 404") for n in notices
        )
        lines = exit_summary(t, store, app.monitor.result, app.interrupted)
    assert lines[0].startswith("elotui: finished · 12/24 calls answered")
    assert "judges stopped: typo" in lines[1]
    assert any(
        "judge typo: stopped after 3 calls" in line and "no model named judge-gtp" in line for line in lines
    )
    assert any(
        line.startswith("  next: `elotui run ") and "resumes (12 call(s) left)" in line for line in lines
    )
