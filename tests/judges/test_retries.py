"""Each retry path, against the loopback server: what is retried, what is not, and what the reply says."""

from __future__ import annotations

import email.utils

import pytest

from elotui.judges.limits import parse_retry_after
from tests.judges.conftest import WALL_NOW, Waits, request
from tests.servers.fake_llm import Drop, FakeLLMServer, RawBody, Slow, Status, Text, Verdict, rate_limited


async def test_429_with_retry_after_seconds_is_waited_for(make_judge, fake_llm: FakeLLMServer) -> None:
    waits = Waits()
    judge, notices = make_judge(waits=waits)
    fake_llm.script(rate_limited(7), Verdict("A"))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.attempts, reply.http_429s) == ("ok", "first", 2, 1)
    assert len(waits) == 1 and 7.0 <= waits[0] <= 7.05  # the server's 7 s (+ at most 50 ms of jitter)
    assert [(n.attempt, n.status_code) for n in notices] == [(1, 429)]
    assert notices[0].wait_s == waits[0] and "HTTP 429" in notices[0].reason
    assert len(notices) == 1  # the one retry, reported to the observer (the runner counts it)
    await judge.aclose()


async def test_429_with_retry_after_http_date_is_waited_for(make_judge, fake_llm: FakeLLMServer) -> None:
    waits = Waits()
    judge, notices = make_judge(waits=waits)
    when = email.utils.formatdate(WALL_NOW + 30, usegmt=True)  # 30 s after the judge's (injected) now
    fake_llm.script(rate_limited(when), Verdict("B"))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.http_429s) == ("ok", "second", 1)
    assert len(waits) == 1 and 30.0 <= waits[0] <= 30.05
    assert notices[0].wait_s == waits[0]
    await judge.aclose()


def test_parse_retry_after() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("1.5") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    now = 1_700_000_000.0
    assert parse_retry_after(email.utils.formatdate(now + 30, usegmt=True), now=now) == pytest.approx(
        30, abs=1
    )
    assert parse_retry_after(email.utils.formatdate(now - 30, usegmt=True), now=now) == 0.0


@pytest.mark.parametrize("code", [408, 500, 502, 503, 504])
async def test_retryable_status_then_success(make_judge, fake_llm: FakeLLMServer, code: int) -> None:
    judge, notices = make_judge()
    fake_llm.script(Status(code, '{"error": {"message": "busy"}}'), Verdict("tie"))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.attempts, reply.http_429s) == ("ok", "tie", 2, 0)
    assert len(fake_llm.requests) == 2
    assert notices[0].status_code == code and f"HTTP {code}" in notices[0].reason
    await judge.aclose()


async def test_read_timeout_is_retried(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, notices = make_judge(timeout_s=0.3)
    fake_llm.script(Slow(1.5), Verdict("A"))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.attempts) == ("ok", "first", 2)
    assert "read timeout" in notices[0].reason and notices[0].status_code is None
    await judge.aclose()


async def test_dropped_connection_is_retried(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, notices = make_judge()
    fake_llm.script(Drop(), Drop(), Verdict("B"))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.attempts) == ("ok", "second", 3)
    assert all("connection dropped" in n.reason for n in notices) and len(notices) == 2
    await judge.aclose()


async def test_connect_refused_is_retried_then_reported(fake_key: str) -> None:
    from pathlib import Path

    from elotui.judges import RetryPolicy, build_judge
    from elotui.tournament.model import JudgeConfig

    server = FakeLLMServer().start()
    url = server.base_url("openai")
    server.stop()  # nothing listens on that port any more
    config = JudgeConfig(
        id="j",
        provider="openai",
        model="m",
        base_url=url,
        api_key_env="ELOTUI_FAKE_KEY",
        max_retries=2,
        timeout_s=2,
    )
    notices = []
    judge = build_judge(
        config,
        judge_id="j",
        base_dir=Path("."),
        observer=notices.append,
        retry_policy=RetryPolicy(base_s=0.01),
    )
    reply = await judge.judge(request())
    assert reply.status == "error" and reply.attempts == 3
    assert "cannot connect" in (reply.error or "") and "gave up after 3 attempt(s)" in (reply.error or "")
    assert len(notices) == 2
    await judge.aclose()


async def test_gives_up_after_max_retries_with_the_reason(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, notices = make_judge(max_retries=2)
    fake_llm.script(*[Status(503, '{"error": {"message": "overloaded"}}')] * 3, Verdict("A"))
    reply = await judge.judge(request())
    assert reply.status == "error" and reply.attempts == 3
    assert "gave up after 3 attempt(s)" in (reply.error or "") and "HTTP 503: overloaded" in (
        reply.error or ""
    )
    assert len(fake_llm.requests) == 3 and len(notices) == 2
    await judge.aclose()


async def test_max_retries_zero_means_one_attempt(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, notices = make_judge(max_retries=0)
    fake_llm.script(rate_limited(0), Verdict("A"))
    reply = await judge.judge(request())
    assert (reply.status, reply.attempts, reply.http_429s) == ("error", 1, 1)
    assert notices == [] and len(fake_llm.requests) == 1
    await judge.aclose()


@pytest.mark.parametrize("code", [400, 404, 422])
async def test_other_4xx_are_not_retried(make_judge, fake_llm: FakeLLMServer, code: int) -> None:
    judge, notices = make_judge()
    fake_llm.script(Status(code, '{"error": {"message": "bad model name"}}'), Verdict("A"))
    reply = await judge.judge(request())
    assert reply.status == "error" and reply.attempts == 1
    assert f"HTTP {code}: bad model name" in (reply.error or "")
    assert len(fake_llm.requests) == 1 and notices == []
    await judge.aclose()


@pytest.mark.parametrize("code", [401, 403])
async def test_rejected_key_names_the_variable_not_the_value(
    make_judge, fake_llm: FakeLLMServer, fake_key: str, code: int
) -> None:
    judge, notices = make_judge()
    fake_llm.script(Status(code, f'{{"error": {{"message": "invalid key {fake_key}"}}}}'))
    reply = await judge.judge(request())
    assert reply.status == "error" and reply.attempts == 1 and notices == []
    assert "judge j1 rejected the key from $ELOTUI_FAKE_KEY" in (reply.error or "")
    assert fake_key not in (reply.error or "")
    await judge.aclose()


async def test_missing_key_is_reported_without_calling(
    make_judge, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge, _ = make_judge()
    monkeypatch.delenv("ELOTUI_FAKE_KEY")
    reply = await judge.judge(request())
    assert reply.status == "error" and "$ELOTUI_FAKE_KEY is not set" in (reply.error or "")
    assert fake_llm.requests == []
    await judge.aclose()


async def test_invalid_reply_comes_back_invalid_with_the_raw_text(
    make_judge, fake_llm: FakeLLMServer
) -> None:
    judge, _ = make_judge()
    fake_llm.script(Text("I refuse to pick. Both are fine-ish."))
    reply = await judge.judge(request())
    assert (reply.status, reply.winner, reply.raw_reply) == (
        "invalid",
        None,
        "I refuse to pick. Both are fine-ish.",
    )
    assert reply.attempts == 1
    await judge.aclose()


async def test_non_json_body_is_an_error_not_a_crash(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge()
    fake_llm.script(RawBody("<html>gateway</html>"))
    reply = await judge.judge(request())
    assert reply.status == "error" and "not JSON" in (reply.error or "")
    await judge.aclose()


async def test_wrong_reply_shape_is_invalid_with_the_body(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge()
    fake_llm.script(RawBody('{"choices": []}', content_type="application/json"))
    reply = await judge.judge(request())
    assert (
        reply.status == "invalid"
        and reply.raw_reply == '{"choices": []}'
        and "choices" in (reply.error or "")
    )
    await judge.aclose()
