"""A paid reply is kept, a reply that is no answer is a failure retried next run, and a server that asks for a
long wait gets its calls back at once: half an emoji (a lone surrogate), a non-ASCII header, an error object in
an HTTP 200, a `Retry-After` beyond the judge's patience. Real runs against the loopback fake provider; request
counts and the store are checked, never the clock."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from elotui.run.events import JudgeStopped
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.store.runs import latest_run
from elotui.tournament.model import load_tournament
from tests.judges.conftest import Waits, request
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer, RawBody, Status, Text, rate_limited

VERDICT_ESCAPED = '{"reasoning": "cut emoji \\ud83d", "better": "A"}'  # the model's JSON spells half an emoji


def openai_body(content: Any, **message: Any) -> str:
    """An OpenAI chat completion body with this content, as JSON text (ensure_ascii: a lone surrogate is written
    as the escape `\\ud83d`, as a server that cut an emoji in two sends it)."""
    reply = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content, **message}}]}
    return json.dumps(reply)


def tournament(tmp_path: Path, server: FakeLLMServer, contestants: int = 2, **fields: Any) -> Path:
    judge = server.judge_config("openai-compatible", id="j1", **{"max_retries": 1, **fields})
    names = [f"c{i}" for i in range(contestants)]
    return write_tournament(tmp_path / "t.toml", contestants=names, prompts={"p1": "Q?"}, judges=[judge])


def run_cli(tmp_path: Path, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "elotui.cli",
            "run",
            str(path),
            "--headless",
            "--store",
            str(tmp_path / "s.sqlite"),
        ],
        env={**os.environ, "ELOTUI_HOME": str(tmp_path / "home")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- half an emoji ---------------------------------------------------------------------------------------------


def test_half_an_emoji_is_stored_and_never_paid_for_twice(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    path = tournament(tmp_path, fake_llm, max_concurrency=1)
    fake_llm.script(
        Text(VERDICT_ESCAPED),  # the surrogate is inside the verdict's JSON: in the reasoning
        RawBody(openai_body('{"reasoning": "cut \ud83d", "better": "B"}'), content_type="application/json"),
    )  # ... and on the wire, in the reply's text itself
    first = run_cli(tmp_path, path)
    assert first.returncode == 0, first.stderr[-2000:]
    assert len(fake_llm.requests) == 2
    again = run_cli(tmp_path, path)
    assert again.returncode == 0 and len(fake_llm.requests) == 2  # the rerun sent nothing
    store = Store(tmp_path / "s.sqlite")
    calls = sorted(store.calls(), key=lambda c: "emoji" not in (c.raw_reply or ""))
    store.close()
    assert [(c.status, c.winner) for c in calls] == [("ok", "first"), ("ok", "second")]
    escaped, on_the_wire = calls
    assert escaped.raw_reply == VERDICT_ESCAPED and escaped.reasoning == "cut emoji \ufffd"
    assert on_the_wire.raw_reply == '{"reasoning": "cut \\ud83d", "better": "B"}'  # the text as it came
    assert on_the_wire.reasoning == "cut \ufffd"


async def test_every_text_from_a_reply_is_valid_unicode(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("openai-compatible", max_retries=0)
    half = "\ud83d"
    fake_llm.script(
        Status(400, json.dumps({"error": {"message": f"bad request {half}"}})),  # an error message
        RawBody(
            openai_body(None, refusal=f"I will not {half}"), content_type="application/json"
        ),  # a refusal
        RawBody(openai_body(f"a completion {half}\ud83d\ude00"), content_type="application/json"),  # a text
        RawBody(b'{"choices": [{"message": {"content": "caf\xe9 \xff"}}]}', content_type="application/json"),
    )
    failed = await judge.judge(request("k1"))
    refused = await judge.judge(request("k2"))
    completed = await judge.complete("system", "user")
    latin1 = await judge.complete("system", "user")
    assert failed.status == "error" and "bad request \ufffd" in (failed.error or "")
    assert refused.status == "invalid" and "I will not \\ud83d" in (refused.error or "")
    assert completed.text == "a completion \\ud83d\U0001f600"  # the pair is one emoji; the half stays escaped
    assert latin1.status == "ok" and latin1.text == "caf\ufffd \ufffd"  # bytes that are not UTF-8: replaced
    for text in (failed.error, refused.error, refused.raw_reply, completed.text, latin1.text):
        (text or "").encode("utf-8")  # each one storable
    await judge.aclose()


# --- headers --------------------------------------------------------------------------------------------------


async def test_a_non_ascii_header_does_not_turn_a_paid_reply_into_an_error(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    path = tournament(tmp_path, fake_llm, max_concurrency=1)
    good = openai_body('{"reasoning": "fine", "better": "A"}')
    fake_llm.script(
        RawBody(good, content_type="application/json", headers={"X-Note": "café"}),  # latin-1 on the wire
        RawBody(
            good, content_type="application/json", headers={"X-Note": "cafÃ©"}
        ),  # UTF-8 bytes on the wire
    )
    store = Store(tmp_path / "s.sqlite")
    result = await Runner(load_tournament(path), store).run()
    assert result.failed == [] and len(fake_llm.requests) == 2
    assert [c.status for c in store.calls()] == ["ok", "ok"]  # each stored once
    await Runner(load_tournament(path), store).run()
    assert len(fake_llm.requests) == 2 and len(store.calls()) == 2
    store.close()


# --- an error object in a 200 ---------------------------------------------------------------------------------


async def test_an_error_body_in_a_200_is_retried_then_failed_with_its_message(
    make_judge, fake_llm: FakeLLMServer
) -> None:
    waits = Waits()
    judge, notices = make_judge("openai", waits=waits, max_retries=2)
    quota = RawBody('{"error": {"message": "quota exceeded"}}', content_type="application/json")
    fake_llm.script(quota, quota, quota)
    reply = await judge.judge(request())
    assert reply.status == "error" and reply.attempts == 3 and len(fake_llm.requests) == 3
    assert "HTTP 200 carrying an error: quota exceeded" in (reply.error or "")
    assert [n.reason for n in notices] == ["HTTP 200 carrying an error: quota exceeded"] * 2
    await judge.aclose()


async def test_an_error_body_says_which_status_it_is(make_judge, fake_llm: FakeLLMServer) -> None:
    judge, _ = make_judge("gemini", waits=Waits(), max_retries=3)
    fake_llm.script(
        RawBody(
            json.dumps({"error": {"code": 400, "message": "bad field", "status": "INVALID_ARGUMENT"}}),
            content_type="application/json",
        ),  # a request error: final at once
        RawBody(json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})),
    )  # Anthropic's shape, no code: retried, then the default reply
    final = await judge.judge(request("k1"))
    assert final.status == "error" and final.attempts == 1
    assert "HTTP 200 carrying an error (400): INVALID_ARGUMENT: bad field" in (final.error or "")
    retried = await judge.judge(request("k2"))
    assert retried.status == "ok" and retried.attempts == 2
    assert len(fake_llm.requests) == 3
    await judge.aclose()


async def test_an_error_body_is_recorded_failed_and_sent_again_next_run(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    path = tournament(tmp_path, fake_llm, max_concurrency=1, max_retries=0)
    fake_llm.script(RawBody('{"error": {"message": "quota exceeded"}}', content_type="application/json"))
    store = Store(tmp_path / "s.sqlite")
    result = await Runner(load_tournament(path), store).run()
    assert len(result.failed) == 1 and "quota exceeded" in result.failed[0]
    assert sorted(c.status for c in store.calls()) == ["error", "ok"]  # failed, not invalid
    again = await Runner(load_tournament(path), store).run()
    assert again.failed == [] and len(fake_llm.requests) == 3  # the failed call, and only it, was sent again
    assert sorted(c.status for c in store.calls()) == ["ok", "ok"]
    store.close()


# --- Retry-After beyond patience ------------------------------------------------------------------------------


async def test_a_retry_after_beyond_patience_gives_the_calls_back_at_once(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    path = tournament(tmp_path, fake_llm, contestants=3, max_concurrency=1, max_retries=4)
    fake_llm.script(rate_limited("1e9"))
    store = Store(tmp_path / "s.sqlite")
    result = await Runner(load_tournament(path), store).run()
    assert len(fake_llm.requests) == 1  # the 429 was not retried, and nothing else was sent
    assert result.state == "finished" and result.done == 0 and result.total == 6
    reason = "the server asked to wait 1,000,000,000 s (Retry-After), longer than max_retry_after_s = 120 s"
    # one line (the judge stopped for this run), the call that got the 429 counted among those not sent
    assert result.failed == [] and result.stopped_judges == [JudgeStopped("j1", reason, 6)]
    assert store.calls() == []  # nothing recorded: no failure to report, no verdict
    run = latest_run(store)
    assert run is not None and run["state"] == "finished"
    again = await Runner(load_tournament(path), store).run()
    assert again.failed == [] and len(fake_llm.requests) == 7 and len(store.calls()) == 6
    store.close()


async def test_patience_is_the_judges_max_retry_after_s(make_judge, fake_llm: FakeLLMServer) -> None:
    waits = Waits()
    judge, _ = make_judge("openai", waits=waits, max_retry_after_s=30)
    fake_llm.script(rate_limited(30))
    waited = await judge.judge(request("k1"))  # 30 s: waited for (the recorded wait, plus jitter)
    assert waited.status == "ok" and len(waits) == 1 and 30 <= waits[0] < 30.1
    fake_llm.script(rate_limited(31))
    given_back = await judge.judge(request("k2"))
    assert given_back.status == "error" and given_back.given_back and len(waits) == 1
    assert "asked to wait 31 s (Retry-After), longer than max_retry_after_s = 30 s" in (
        given_back.error or ""
    )
    assert len(fake_llm.requests) == 3
    await judge.aclose()


async def test_calls_in_flight_come_back_too_with_one_line(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    path = tournament(tmp_path, fake_llm, contestants=4, max_concurrency=4)
    fake_llm.latency_s = 0.05  # the first four are in flight together
    fake_llm.script(*[rate_limited(10_000)] * 4)
    store = Store(tmp_path / "s.sqlite")
    result = await Runner(load_tournament(path), store).run()
    assert len(fake_llm.requests) <= 4 and store.calls() == []
    assert result.failed == [] and [(s.judge, s.left) for s in result.stopped_judges] == [("j1", 12)]
    store.close()


async def test_a_long_retry_after_gives_the_call_back_even_on_its_last_attempt(
    make_judge, fake_llm: FakeLLMServer
) -> None:
    judge, _ = make_judge("openai", waits=Waits(), max_retries=0)
    fake_llm.script(rate_limited(3600))
    reply = await judge.judge(request())
    assert (
        reply.status == "error" and reply.given_back and reply.attempts == 1
    )  # left for the next run, not failed
    assert judge.unreachable is not None and "asked to wait 3,600 s" in judge.unreachable
    await judge.aclose()


# --- JSON that json.loads cannot read ------------------------------------------------------------------------


async def test_json_nested_past_the_parsers_depth_is_invalid_after_one_try(
    make_judge, fake_llm: FakeLLMServer, monkeypatch
) -> None:
    deep = '{"a":' * 100_000  # a model's text nested 10^5 deep: each "{" inside it would be tried again
    tries: list[int] = []

    class Counting(json.JSONDecoder):  # the decoder the tolerant parse makes (json.loads keeps its own)
        def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
            tries.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(json, "JSONDecoder", Counting)
    judge, _ = make_judge("openai-compatible", max_retries=0, max_reply_bytes=4 * 1024 * 1024)
    fake_llm.script(
        Text("Verdict: " + json.dumps({"better": "B"}) + " " + deep),
        RawBody("[" * 100_000, content_type="application/json"),  # the body itself
        RawBody(
            '{"choices": [], "n": ' + "1" * 5000 + "}", content_type="application/json"
        ),  # past 4,300 digits
    )
    reply = await judge.judge(request("k1"))
    assert (reply.status, reply.winner) == ("ok", "second") and len(tries) <= 3
    for key in ("k2", "k3"):
        failed = await judge.judge(request(key))
        assert failed.status == "error" and "the provider sent a body that is not JSON" in (
            failed.error or ""
        )
    await judge.aclose()
