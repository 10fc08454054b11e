"""Stopping a run on purpose and by accident, against loopback servers that count requests: Ctrl-C (SIGINT) and
SIGTERM let the calls in flight finish and be stored (a rerun pays for none twice), a second Ctrl-C abandons them;
a judge whose every call fails with the same lasting error is stopped after `stop_after_errors` calls; the exit
summary; what this run paid when the shared cache answered; a budget held back by the estimates of calls in
flight waits for them instead of ending the run. No wall-clock asserts: waits are for conditions, bounded."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.store import Store
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import ApiError, FakeLLMServer, Verdict

CONTESTANTS = ["a", "b", "c", "d", "e"]
PROMPTS = {"p1": "What is AI?", "p2": "Name a prime number.", "p3": "Why is the sky blue?"}
TOTAL = len(PROMPTS) * 10 * 2  # prompts x pairs x orders, one judge


def until(condition, timeout: float = 60.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def tournament(tmp_path: Path, server: FakeLLMServer, *judges: dict[str, object]) -> Path:
    judges = judges or (server.judge_config("openai-compatible", id="j1", max_concurrency=4),)
    return write_tournament(
        tmp_path / "t.toml", contestants=CONTESTANTS, prompts=PROMPTS, judges=list(judges)
    )


def headless(path: Path, store: Path, *extra: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "elotui.cli", "run", str(path), "--headless", "--store", str(store), *extra]
    return subprocess.Popen(
        cmd, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_lets_the_calls_in_flight_finish_and_a_rerun_pays_for_none_twice(
    tmp_path: Path, fake_llm_factory, sig: signal.Signals
) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(latency_s=0.4)
    path, store = tournament(tmp_path, server), tmp_path / "s.sqlite"
    proc = headless(path, store)
    until(lambda: server.in_flight >= 3, what="calls in flight")
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "stopping: waiting for" in err and "calls in flight (Ctrl-C again to abandon)" in err
    first = len(server.requests)
    assert 3 <= first < TOTAL
    assert f"store: {store}" in err and f"`elotui run {path}" in err and "resumes" in err
    assert out == ""  # stopped: no leaderboard
    rerun = headless(path, store)
    _, err2 = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err2
    counts = Counter(r.user for r in server.requests)
    assert len(counts) == TOTAL and set(counts.values()) == {1}  # every call sent exactly once over both runs


def test_a_second_ctrl_c_abandons_the_calls_in_flight(tmp_path: Path, fake_llm_factory) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(
        latency_s=600.0
    )  # the calls in flight would never end by themselves
    path, store = tournament(tmp_path, server), tmp_path / "s.sqlite"
    proc = headless(path, store)
    until(lambda: server.in_flight >= 3, what="calls in flight")
    proc.send_signal(signal.SIGINT)
    while "stopping" not in (line := proc.stderr.readline()):  # type: ignore[union-attr]
        assert line, "the process ended without saying it stops"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)  # at once: not after the server's 600 s
    assert proc.returncode == 130, err
    assert "abandoning" in err and "the next run sends them again" in err
    with Store(store) as s:
        assert s.runs()[-1].state == "stopped" and s.plan_verdicts()  # closed, its plan kept


def _judge_gtp(request) -> object:  # type: ignore[no-untyped-def]
    if request.model == "judge-gtp":
        return ApiError(400, "The model 'judge-gtp' does not exist")
    return None


def test_a_mistyped_model_is_stopped_after_three_calls_and_tried_again_next_run(
    tmp_path: Path, fake_llm_factory, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(verdict_fn=_judge_gtp)
    good = server.judge_config("openai-compatible", id="good", model="judge-gpt", max_concurrency=4)
    typo = server.judge_config("openai-compatible", id="typo", model="judge-gtp", max_concurrency=8)
    path, store = tournament(tmp_path, server, good, typo), str(tmp_path / "s.sqlite")
    assert main(["run", str(path), "--headless", "--store", store]) == 3
    err = capsys.readouterr().err
    sent = Counter(r.model for r in server.requests)
    assert sent["judge-gtp"] == 3 and sent["judge-gpt"] == TOTAL  # the other judge finished
    said = [line for line in err.splitlines() if "HTTP 400" in line]
    assert len(said) == 1, err  # one line, not one per call
    assert said[0].startswith("judge typo: stopped after 3 calls in a row failed with HTTP 400")
    assert "The model 'judge-gtp' does not exist" in said[0] and f"{TOTAL - 3} call(s) not sent" in said[0]
    assert "judges stopped: typo" in err
    assert main(["run", str(path), "--headless", "--store", store]) == 3  # the next run tries it again
    assert Counter(r.model for r in server.requests)["judge-gtp"] == 6


def test_a_lasting_error_in_a_hostile_message_is_one_neutral_line(
    tmp_path: Path, fake_llm_factory, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    server: FakeLLMServer = fake_llm_factory(
        verdict_fn=lambda r: ApiError(401, "bad key\x1b[31m\nsecond line " + "x" * 500)
    )
    path = tournament(tmp_path, server, server.judge_config("openai", id="j1", max_concurrency=4))
    os.environ.setdefault("ELOTUI_FAKE_KEY", "sk-fake")
    assert main(["run", str(path), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 3
    err = capsys.readouterr().err
    assert len(server.requests) == 3
    line = next(x for x in err.splitlines() if x.startswith("judge j1: stopped after"))
    assert "\x1b" not in line and "second line" in line and "HTTP 401" in line
    assert len(line) < 200 + 150  # the message cut to 200 characters, the line around it


def test_retryable_errors_and_per_request_refusals_do_not_stop_a_judge(
    tmp_path: Path, fake_llm_factory
) -> None:  # type: ignore[no-untyped-def]
    from elotui.judges.lasting import lasting_error

    too_long = (
        '{"error": {"message": "maximum context length is 8192 tokens", "code": "context_length_exceeded"}}'
    )
    assert lasting_error(400, too_long, "maximum context length is 8192 tokens") is None
    assert lasting_error(429, "{}", "") is None and lasting_error(503, "{}", "") is None
    assert (
        lasting_error(404, '{"error": {"message": "no such model"}}', "no such model")
        == "HTTP 404: no such model"
    )
    bad_model = '{"error": {"message": "x", "code": "model_not_found"}}'
    assert lasting_error(409, bad_model, "x") == "HTTP 409: x"  # the provider's code says it, not the status
    server: FakeLLMServer = fake_llm_factory(verdict_fn=lambda r: ApiError(400, "prompt is too long"))
    path = tournament(tmp_path, server, server.judge_config("openai-compatible", id="j1", max_concurrency=4))
    assert main(["run", str(path), "--headless", "--store", str(tmp_path / "s.sqlite")]) == 3
    assert len(server.requests) == TOTAL  # each refusal is the request's own: every call was tried


def test_the_breaker_counts_the_same_error_in_a_row() -> None:
    from elotui.judges.base import JudgeReply
    from elotui.run.breaker import EndpointBreaker

    def fail(msg: str) -> JudgeReply:
        return JudgeReply(status="error", error=msg, lasting_error=msg)

    b = EndpointBreaker(3)
    assert b.observe(fail("HTTP 400: request 17 bad")) is None
    assert (
        b.observe(JudgeReply(status="error", error="HTTP 503")) is None
    )  # a retryable failure breaks the streak
    assert b.observe(fail("HTTP 400: request 18 bad")) is None
    assert b.observe(fail("HTTP 404: gone")) is None  # another error: a new streak
    assert b.observe(fail("HTTP 404: gone")) is None
    assert b.observe(fail("HTTP 404: gone")) == "HTTP 404: gone"
    assert b.observe(fail("HTTP 404: gone")) is None  # said once


def test_answers_from_the_shared_cache_cost_nothing_in_this_run(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judge = fake_llm.judge_config(
        "openai-compatible", id="j1", price_per_million_input=100.0, price_per_million_output=100.0
    )
    first = tournament(tmp_path, fake_llm, judge)
    assert main(["run", str(first), "--headless", "--store", str(tmp_path / "one.sqlite")]) == 0
    err = capsys.readouterr().err
    paid = len(fake_llm.requests)
    assert paid == TOTAL and "this run: cost $0.0000" not in err
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "t.toml").write_text(first.read_text())  # another file, another store: the same calls
    assert main(["run", str(copy / "t.toml"), "--headless", "--store", str(copy / "two.sqlite")]) == 0
    err = capsys.readouterr().err
    assert len(fake_llm.requests) == paid  # answered by the shared cache
    assert "this run: cost $0.0000" in err and "tournament cost $0.0000" not in err
    assert main(["runs", str(copy / "t.toml"), "--store", str(copy / "two.sqlite")]) == 0
    runs = capsys.readouterr().out
    assert "$0.0000" in runs.splitlines()[-1]  # the manifest agrees


def test_a_budget_counts_what_was_spent_and_the_calls_in_flight(
    tmp_path: Path, fake_llm_factory, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    """Every call is first estimated at min(max_tokens, 512) output tokens ($0.512) and costs 10 ($0.01): the
    budget goes on once the calls in flight have said what they cost, and stops near it, not after one call."""
    server: FakeLLMServer = fake_llm_factory(
        verdict_fn=lambda r: Verdict("A", input_tokens=0, output_tokens=10)
    )
    judge = server.judge_config(
        "openai-compatible", id="j1", max_concurrency=4, price_per_million_output=1000.0, max_tokens=1024
    )
    path, store = tournament(tmp_path, server, judge), str(tmp_path / "s.sqlite")
    assert main(["run", str(path), "--headless", "--store", store, "--max-cost", "0.55"]) == 4
    err = capsys.readouterr().err
    sent = len(server.requests)
    assert 50 <= sent <= 55 and sent < TOTAL, err  # spent $0.50-$0.55 of $0.55; before: one call ($0.01)
    assert "budget reached" in err
