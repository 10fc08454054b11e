"""Benchmark: 2,000 judge calls against a loopback server with 50 ms latency at max_concurrency = 64.

Run: `python -m tests.benchmarks.bench_judges [--calls N] [--latency-ms L] [--concurrency C]`

The fake provider runs in a subprocess (so its CPU time is not the client's). Prints the wall time against
the ideal (calls × latency ÷ concurrency; target ≤ 1.3×), the client's CPU time per call, and the same figures
for a plain reference client (a bare httpx.AsyncClient behind a semaphore, no retries, limits or parsing)
measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import httpx

from elotui.judges import build_judge
from elotui.judges.base import JudgeRequest, Presentation
from elotui.tournament.model import JudgeConfig

ROOT = Path(__file__).resolve().parents[2]


def user_text(i: int) -> str:
    a = "Answer A " * (20 + i % 7)
    b = "Answer B " * (20 + i % 5)
    return (
        f"Compare the two responses to prompt {i}.\n\n<<<RESPONSE A t>>>\n{a}\n<<<END RESPONSE A t>>>\n\n"
        f"<<<RESPONSE B t>>>\n{b}\n<<<END RESPONSE B t>>>\n"
        'Answer with the JSON object {"reasoning": "...", "better": "A" | "B" | "tie"}.'
    )


async def run_judges(base_url: str, calls: int, concurrency: int) -> tuple[float, float, int]:
    config = JudgeConfig(
        id="bench",
        provider="openai-compatible",
        model="fake",
        base_url=base_url,
        max_concurrency=concurrency,
        timeout_s=30,
    )
    judge = build_judge(config, judge_id="bench", base_dir=ROOT)
    requests = [
        JudgeRequest(
            key=f"k{i}",
            system="You are a fair judge.",
            user=user_text(i),
            presentation=Presentation(f"q{i}", "x", "y"),
        )
        for i in range(calls)
    ]
    await judge.judge(requests[0])  # warm-up: client construction and the first connection
    wall0, cpu0 = time.perf_counter(), time.process_time()
    replies = await asyncio.gather(*(judge.judge(r) for r in requests))
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    await judge.aclose()
    return wall, cpu, sum(1 for r in replies if r.status == "ok")


async def run_reference(base_url: str, calls: int, concurrency: int) -> tuple[float, float, int]:
    semaphore = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:

        async def one(i: int) -> bool:
            payload = {
                "model": "fake",
                "messages": [
                    {"role": "system", "content": "You are a fair judge."},
                    {"role": "user", "content": user_text(i)},
                ],
            }
            async with semaphore:
                response = await client.post(base_url + "/chat/completions", json=payload)
            return (
                response.status_code == 200
                and "better" in response.json()["choices"][0]["message"]["content"]
            )

        await one(0)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        results = await asyncio.gather(*(one(i) for i in range(calls)))
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return wall, cpu, sum(results)


def claim_overhead(calls: int) -> tuple[float, float]:
    """The store work the runner adds per call since elotui 0.2 (claim the key in a write transaction, and drop
    the claim with the recorded answer) against recording alone: (ms per call with claims, ms per call without)."""
    import tempfile

    from elotui.records import CallRecord
    from elotui.store import Store
    from elotui.store.claims import claim
    from elotui.store.runs import begin_run

    timings = []
    for claiming in (True, False):
        with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "s.sqlite") as store:
            run_id = begin_run(store, {"bench": True})
            started = time.perf_counter()
            for i in range(calls):
                if claiming:
                    claim(store, f"k{i}", run_id)
                store.record_call(
                    CallRecord(key=f"k{i}", kind="verdict", status="ok", winner="first", run_id=run_id)
                )
            timings.append((time.perf_counter() - started) / calls * 1000)
    return timings[0], timings[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.servers.fake_llm", "--latency-ms", str(args.latency_ms)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base_url = f"http://127.0.0.1:{port}/v1"
        ideal = args.calls * args.latency_ms / 1000.0 / args.concurrency
        print(
            f"{args.calls} calls, {args.latency_ms:g} ms server latency, max_concurrency {args.concurrency}"
        )
        print(f"ideal wall time (calls x latency / concurrency): {ideal:.3f} s")
        results = {}
        for name, fn in (("elotui judge", run_judges), ("plain httpx reference", run_reference)):
            wall, cpu, ok = asyncio.run(fn(base_url, args.calls, args.concurrency))
            results[name] = (wall, cpu)
            print(
                f"{name:>22}: wall {wall:.3f} s = {wall / ideal:.2f}x ideal; client CPU {cpu:.3f} s = "
                f"{cpu / args.calls * 1000:.3f} ms/call; {ok}/{args.calls} ok"
            )
        (jw, jc), (rw, rc) = results["elotui judge"], results["plain httpx reference"]
        print(f"elotui / reference: wall {jw / rw:.2f}x, CPU per call {jc / rc:.2f}x")
        with_claims, without = claim_overhead(args.calls)
        print(
            f"store work per call: claim + record {with_claims:.3f} ms, record alone {without:.3f} ms: the claim "
            f"costs {with_claims - without:.3f} ms per call ({(with_claims - without) / args.latency_ms:.1%} of the "
            f"server latency; {(with_claims - without) * args.calls / 1000 / args.concurrency * 1000:.1f} ms of "
            f"wall time over the run at this concurrency)"
        )
        print(
            json.dumps(
                {
                    "ideal_s": round(ideal, 4),
                    "wall_s": round(jw, 4),
                    "ratio_to_ideal": round(jw / ideal, 3),
                    "cpu_ms_per_call": round(jc / args.calls * 1000, 4),
                    "reference_wall_s": round(rw, 4),
                    "reference_cpu_ms_per_call": round(rc / args.calls * 1000, 4),
                }
            )
        )
    finally:
        if server.stdin is not None:
            server.stdin.close()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(
            f"fake server CPU over both runs (its own process): {usage.ru_utime + usage.ru_stime:.3f} s; "
            f"machine load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores"
        )


if __name__ == "__main__":
    main()
