"""Benchmark of the run engine. Run as a script: `python tests/benchmarks/bench_run.py`.

A simulated tournament (20 contestants, 10 prompts, 5 judges, both orders: 19,000 judge calls, no delay) run by
`Runner` into a fresh SQLite store, against a plain reference measured in the same run: a loop that renders the
same prompts, computes the same keys, asks the same simulated judges (`answer`) and records every call with
`store.record_call`, without scheduling, events or accounting. Prints wall time, calls per second, the ratio
(runner / reference) and the peak number of asyncio tasks; then a second, fully cached run.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

import tomli_w

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from elotui.judges import build_judge
from elotui.judges.base import JudgeRequest
from elotui.plan.calls import Texts
from elotui.plan.presentations import build_plan
from elotui.plan.prompts import PromptBuilder
from elotui.plan.verdict_calls import verdict_calls
from elotui.run.runner import Runner
from elotui.store import CallRecord, Store
from elotui.tournament.model import load_tournament

N_CONTESTANTS, N_PROMPTS, N_JUDGES = 20, 10, 5


def write(path: Path) -> Path:
    contestants = [f"model-{i:02d}" for i in range(N_CONTESTANTS)]
    qualities = {c: 800.0 + 20 * i for i, c in enumerate(contestants)}
    data = {
        "tournament": {"name": "bench"},
        "contestants": [{"id": c} for c in contestants],
        "prompts": [
            {
                "id": f"q{p}",
                "text": f"Question {p}: explain topic {p} in detail.",
                "responses": {
                    c: f"{c} on topic {p}: " + "words " * (20 + 7 * i) for i, c in enumerate(contestants)
                },
            }
            for p in range(N_PROMPTS)
        ],
        "judges": [
            {
                "id": f"sim{j}",
                "provider": "simulated",
                "max_concurrency": 16,
                "simulation": {"qualities": qualities, "noise": 60.0, "seed": j},
            }
            for j in range(N_JUDGES)
        ],
    }
    path.write_text(tomli_w.dumps(data), encoding="utf-8")
    return path


def reference(t_path: Path, store_path: Path) -> float:
    t = load_tournament(t_path)
    started = time.perf_counter()
    store = Store(store_path)
    plan = build_plan(t)
    builder = PromptBuilder(t)
    judges = {j.id: build_judge(j, judge_id=j.id, base_dir=t.base_dir) for j in t.spec.judges}
    texts = Texts(t)
    calls = verdict_calls(plan, builder, texts, judges)  # type: ignore[arg-type]
    store.set_plan(calls.rows)
    for call in calls.calls:
        judge = judges[call.judge]
        reply = judge.answer(
            JudgeRequest(
                call.key,
                call.system,
                call.user,
                call.presentation,  # type: ignore[attr-defined]
                call.first_text,
                call.second_text,
            )
        )
        p = call.presentation
        assert p is not None
        store.record_call(
            CallRecord(
                key=call.key,
                kind="verdict",
                status=reply.status,
                judge=call.judge,
                prompt=p.prompt,
                first=p.first,
                second=p.second,
                condition=p.condition,
                sample=p.sample,
                winner=reply.winner,
                reasoning=reply.reasoning,
                raw_reply=reply.raw_reply,
            )
        )
    store.close()
    return time.perf_counter() - started


def runner(t_path: Path, store_path: Path) -> tuple[float, int, int]:
    t = load_tournament(t_path)
    started = time.perf_counter()
    store = Store(store_path)
    peak = 0

    def on_event(_event: object) -> None:
        nonlocal peak
        peak = max(peak, len(asyncio.all_tasks()))

    result = asyncio.run(Runner(t, store, on_event=on_event, no_delay=True).run())
    store.close()
    assert result.state == "finished", result
    return time.perf_counter() - started, result.done, peak


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        t_path = write(tmp_path / "bench.toml")
        ref_s = reference(t_path, tmp_path / "ref.sqlite")
        run_s, done, peak = runner(t_path, tmp_path / "run.sqlite")
        cached_s, _, _ = runner(t_path, tmp_path / "run.sqlite")
    print(
        f"plan: {done:,} judge calls ({N_CONTESTANTS} contestants, {N_PROMPTS} prompts, {N_JUDGES} simulated judges)"
    )
    print(
        f"reference loop (render + key + answer + record_call): {ref_s:.2f} s ({done / ref_s:,.0f} calls/s)"
    )
    print(
        f"Runner (async, events, accounting):                   {run_s:.2f} s ({done / run_s:,.0f} calls/s)"
    )
    print(f"ratio runner / reference: {run_s / ref_s:.2f}x; peak asyncio tasks: {peak}")
    print(f"second run, everything cached (sends nothing):         {cached_s:.2f} s")


if __name__ == "__main__":
    main()
