"""max_concurrency, requests_per_minute and tokens_per_minute, measured on the server side."""

from __future__ import annotations

import asyncio

from elotui.judges.limits import TokenBucket
from tests.judges.conftest import request
from tests.servers.fake_llm import FakeLLMServer


async def test_in_flight_never_exceeds_max_concurrency(make_judge, fake_llm_factory) -> None:
    server: FakeLLMServer = fake_llm_factory(latency_s=0.05)
    judge, _ = make_judge(server=server, max_concurrency=3)
    replies = await asyncio.gather(*(judge.judge(request(f"k{i}")) for i in range(20)))
    assert all(r.status == "ok" for r in replies)
    assert len(server.requests) == 20
    assert server.max_in_flight == 3  # reached, never exceeded
    assert server.connections <= 3  # keep-alive: connections are reused
    assert all(r.latency_ms is not None and r.latency_ms > 0 for r in replies)
    await judge.aclose()


async def test_concurrency_limit_holds_across_retries(make_judge, fake_llm_factory) -> None:
    from tests.servers.fake_llm import Status

    server: FakeLLMServer = fake_llm_factory(latency_s=0.02)
    server.script(*[Status(503)] * 10)
    judge, notices = make_judge(server=server, max_concurrency=2)
    replies = await asyncio.gather(*(judge.judge(request(f"k{i}")) for i in range(8)))
    assert all(r.status == "ok" for r in replies) and len(notices) == 10
    assert server.max_in_flight == 2
    await judge.aclose()


async def test_request_rate_respects_requests_per_minute(make_judge, fake_llm: FakeLLMServer) -> None:
    rpm = 400.0  # one request every 0.15 s
    judge, _ = make_judge(max_concurrency=8, requests_per_minute=rpm)
    replies = await asyncio.gather(*(judge.judge(request(f"k{i}")) for i in range(10)))
    assert all(r.status == "ok" for r in replies)
    arrivals = fake_llm.arrivals()
    interval = 60.0 / rpm
    slack = 0.05  # loopback delivery jitter; the client can only be late, never early
    for i in range(len(arrivals)):
        for j in range(i + 1, len(arrivals)):
            assert arrivals[j] - arrivals[i] >= (j - i) * interval - slack, (i, j)
    await judge.aclose()


def test_token_bucket_reservations() -> None:
    now = [0.0]
    bucket = TokenBucket(per_second=10.0, capacity=1.0, clock=lambda: now[0])
    assert bucket.reserve(1) == 0.0
    assert bucket.reserve(1) == 0.1  # queued behind the first
    assert abs(bucket.reserve(1) - 0.2) < 1e-12
    now[0] = 1.0  # the debt is paid and the bucket refills up to its capacity only
    assert bucket.reserve(1) == 0.0
    assert abs(bucket.reserve(1) - 0.1) < 1e-12


def test_token_bucket_for_tokens_allows_a_burst_up_to_capacity_then_waits() -> None:
    now = [0.0]
    bucket = TokenBucket(per_second=1000 / 60, capacity=1000, clock=lambda: now[0])
    assert bucket.reserve(600) == 0.0
    wait = bucket.reserve(600)  # 200 tokens short at 16.67 tokens/s
    assert abs(wait - 12.0) < 1e-9
    bucket.refund(200)  # the first call used 200 fewer tokens than estimated
    now[0] = 0.0
    assert bucket.reserve(0) == 0.0
    assert bucket.reserve(5000) > 0  # a call larger than the bucket waits for a full bucket, not forever


async def test_tokens_per_minute_delays_the_call_that_exceeds_the_budget(
    make_judge, fake_llm: FakeLLMServer
) -> None:
    # A call is estimated at (len(system) + len(user)) // 4 + 1 + max_tokens = (21 + 400) // 4 + 1 + 2909 = 3015
    # tokens. With 6000 tokens/minute (100/s, a bucket of 6000) the first call goes at once and the second
    # lacks 2 * 3015 - 6000 = 30 tokens: it must wait 0.3 s.
    judge, _ = make_judge(max_tokens=2909, tokens_per_minute=6000, max_concurrency=4)
    user = "x" * 400
    r1, r2 = await asyncio.gather(judge.judge(request("a", user)), judge.judge(request("b", user)))
    assert r1.attempts == r2.attempts == 1
    first, second = fake_llm.arrivals()
    assert second - first >= 0.3 - 0.03
    await judge.aclose()


async def test_sharded_pool_reuses_connections_and_holds_the_limit(make_judge, fake_llm_factory) -> None:
    # 10 connections are spread over 3 small pools (shards of at most 4); the limit and keep-alive still hold.
    server: FakeLLMServer = fake_llm_factory(latency_s=0.03)
    judge, _ = make_judge(server=server, max_concurrency=10)
    for _ in range(2):
        replies = await asyncio.gather(*(judge.judge(request(f"k{i}")) for i in range(40)))
        assert all(r.status == "ok" for r in replies)
    assert server.max_in_flight == 10
    assert server.connections <= 10 and len(server.requests) == 80
    await judge.aclose()
