"""The runner over an in-process fake judge: cache-first, new pairs only, pause, budget, failures, prerequisites,
cancellation, events, manifest."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from elotui.run.events import Event, Progress, RunFinished, RunStarted, RunStateChanged, VerdictRecorded
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import Tournament, load_tournament
from tests.run.fakes import FakeWorld, write_tournament


def judge(jid: str = "j1", **extra: object) -> dict[str, object]:
    return {
        "id": jid,
        "provider": "openai-compatible",
        "model": f"model-{jid}",
        "base_url": "http://127.0.0.1:9",
        **extra,
    }


def make(tmp_path: Path, contestants: list[str], **kw: object) -> Tournament:
    return load_tournament(write_tournament(tmp_path / "t.toml", contestants=contestants, **kw))  # type: ignore[arg-type]


async def run(
    t: Tournament, store: Store, world: FakeWorld, events: list[Event] | None = None, **kw: object
) -> RunFinished:
    runner = Runner(
        t, store, judge_factory=world.factory, on_event=events.append if events is not None else None, **kw
    )  # type: ignore[arg-type]
    return await runner.run()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "store.sqlite")
    yield s  # type: ignore[misc]
    s.close()


async def test_a_run_answers_every_planned_call_and_records_it(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"], judges=[judge("j1"), judge("j2")])
    world = FakeWorld({"a": 3, "b": 2, "c": 1})
    events: list[Event] = []
    result = await run(t, store, world, events)
    assert result.state == "finished" and result.done == result.total == 2 * 3 * 2 * 2 and result.failed == []
    assert len(world.sent) == 24 and world.closed == 2
    rows = store.plan_verdicts()
    assert len(rows) == 24 and {r[6] for r in rows} == {"ok"}
    assert [r.seq for r in store.plan()] == list(range(24))
    for prompt, first, second, _judge, _cond, _sample, _status, winner in rows:
        assert winner == ("first" if "abc".index(first) < "abc".index(second) else "second"), (
            prompt,
            first,
            second,
        )
    # events: started first, finished last, one VerdictRecorded per call
    assert isinstance(events[0], RunStarted) and events[0].total == 24 and events[0].cached == 0
    assert isinstance(events[-1], RunFinished)
    assert sum(isinstance(e, VerdictRecorded) for e in events) == 24
    progress = [e for e in events if isinstance(e, Progress)]
    assert progress and progress[-1].done == 24 and progress[-1].in_flight == 0
    # the manifest says how the run was produced
    (record,) = store.runs()
    m = record.manifest
    assert record.state == "finished"
    assert m["tournament"]["content_hash"] == t.content_hash and m["elotui_version"]
    assert set(m["endpoints"]) == {"j1", "j2"} and m["endpoints"]["j1"]["identity"]["model"] == "model-j1"
    assert "<<<RESPONSE A {{boundary}}>>>" in m["templates"]["user"]


async def test_second_run_sends_nothing(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"])
    await run(t, store, FakeWorld({"a": 1}))
    again = FakeWorld({"a": 1})
    events: list[Event] = []
    result = await run(t, store, again, events)
    assert again.sent == []
    assert result.state == "finished" and result.done == 12
    assert isinstance(events[0], RunStarted) and events[0].cached == 12


async def test_adding_a_contestant_sends_only_the_new_pairs(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"])
    await run(t, store, FakeWorld())
    t2 = make(tmp_path, ["a", "b", "c", "d"])
    world = FakeWorld()
    result = await run(t2, store, world)
    sent = [(r.presentation.first, r.presentation.second) for _, r in world.sent]  # type: ignore[union-attr]
    assert len(sent) == 2 * 3 * 2  # 2 prompts x 3 new pairs x 2 orders
    assert all("d" in pair for pair in sent)
    assert result.done == len(store.plan_verdicts()) == 2 * 6 * 2


async def test_invalid_replies_are_kept_and_errors_retried(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"])
    world = FakeWorld()
    world.fail = {("p1", "a", "b")}
    world.invalid = {("p2", "b", "c")}
    events: list[Event] = []
    result = await run(t, store, world, events)
    assert result.state == "finished"
    assert len(result.failed) == 1 and "p1 a vs b" in result.failed[0] and "HTTP 503" in result.failed[0]
    statuses = {(r[0], r[1], r[2]): r[6] for r in store.plan_verdicts()}
    assert statuses[("p1", "a", "b")] == "error" and statuses[("p2", "b", "c")] == "invalid"
    retry = FakeWorld()
    await run(t, store, retry)
    assert [(r.presentation.prompt, r.presentation.first) for _, r in retry.sent] == [("p1", "a")]  # type: ignore[union-attr]
    assert {r[6] for r in store.plan_verdicts()} == {"ok", "invalid"}


async def test_pause_stops_new_calls_and_resume_finishes(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c", "d"], judges=[judge(max_concurrency=2)])
    world = FakeWorld()
    world.gate = asyncio.Event()
    events: list[Event] = []
    runner = Runner(t, store, judge_factory=world.factory, on_event=events.append)
    task = asyncio.create_task(runner.run())
    while world.in_flight < 2:
        await asyncio.sleep(0.001)
    runner.pause()
    assert runner.paused and runner.state == "paused"
    world.gate.set()  # the two calls in flight finish...
    while world.in_flight:
        await asyncio.sleep(0.001)
    for _ in range(50):
        await asyncio.sleep(0)
    assert len(world.sent) == 2  # ...and nothing new was started
    assert len([r for r in store.plan_verdicts() if r[6] == "ok"]) == 2
    runner.resume()
    result = await task
    assert result.state == "finished" and len(world.sent) == 2 * 6 * 2
    states = [e.state for e in events if isinstance(e, RunStateChanged)]
    assert states == ["running", "paused", "running", "finished"]


async def test_budget_stops_scheduling_and_resumes_with_a_higher_budget(tmp_path: Path, store: Store) -> None:
    # every call is estimated at exactly $1 (1 output token at $1M per million) and costs $1
    priced = judge(max_tokens=1, price_per_million_output=1_000_000.0, max_concurrency=4)
    t = make(tmp_path, ["a", "b", "c"], judges=[priced])
    world = FakeWorld(cost_per_call=1.0)
    result = await run(t, store, world, max_cost=3.5)
    assert result.state == "budget" and len(world.sent) == 3 and result.cost == pytest.approx(3.0)
    assert store.runs()[-1].state == "budget"
    # same budget: nothing more fits
    same = FakeWorld(cost_per_call=1.0)
    assert (await run(t, store, same, max_cost=3.5)).state == "budget" and same.sent == []
    # a higher budget continues where it stopped
    more = FakeWorld(cost_per_call=1.0)
    result = await run(t, store, more, max_cost=5.0)
    assert len(more.sent) == 2 and result.state == "budget"
    rest = FakeWorld(cost_per_call=1.0)
    result = await run(t, store, rest)  # no budget: finish
    assert len(rest.sent) == 12 - 5 and result.state == "finished"
    sent_keys = [r.key for w in (world, more, rest) for _, r in w.sent]
    assert len(sent_keys) == len(set(sent_keys)) == 12  # nothing was ever sent twice


async def test_tournament_max_cost_applies_without_the_argument(tmp_path: Path, store: Store) -> None:
    priced = judge(max_tokens=1, price_per_million_output=1_000_000.0, max_concurrency=1)
    t = make(tmp_path, ["a", "b"], judges=[priced], comparison={"max_cost": 1.0})
    world = FakeWorld(cost_per_call=1.0)
    result = await run(t, store, world)
    assert result.state == "budget" and len(world.sent) == 1


async def test_cancellation_leaves_the_store_consistent(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"], judges=[judge(max_concurrency=1)])
    world = FakeWorld()
    world.gate = asyncio.Event()
    world.gate.set()
    runner = Runner(t, store, judge_factory=world.factory)
    task = asyncio.create_task(runner.run())
    while len(world.sent) < 5:
        await asyncio.sleep(0)
    world.gate.clear()  # the 6th call hangs; cancel the run (what Ctrl-C does)
    while world.in_flight == 0:
        await asyncio.sleep(0.001)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert store.runs()[-1].state == "stopped" and world.closed == 1
    done = [r for r in store.plan_verdicts() if r[6] == "ok"]
    assert 4 <= len(done) <= 5 and all(r[6] in ("ok", "missing") for r in store.plan_verdicts())
    again = FakeWorld()
    await run(t, store, again)
    assert len(again.sent) == 12 - len(done)


async def test_stop_ends_the_run_after_the_calls_in_flight(tmp_path: Path, store: Store) -> None:
    t = make(tmp_path, ["a", "b", "c"], judges=[judge(max_concurrency=2)])
    world = FakeWorld()
    world.gate = asyncio.Event()
    runner = Runner(t, store, judge_factory=world.factory)
    task = asyncio.create_task(runner.run())
    while world.in_flight < 2:
        await asyncio.sleep(0.001)
    runner.stop()
    world.gate.set()
    result = await task
    assert result.state == "stopped" and len(world.sent) == 2 and result.done == 2
    assert store.runs()[-1].state == "stopped"


async def test_tasks_stay_bounded_on_a_large_plan(tmp_path: Path, store: Store) -> None:
    prompts = {f"p{i}": f"question {i}" for i in range(20)}
    t = make(
        tmp_path,
        [f"c{i}" for i in range(8)],
        prompts=prompts,
        judges=[judge("j1", max_concurrency=3), judge("j2", max_concurrency=2)],
    )
    world = FakeWorld()
    result = await run(t, store, world)
    assert result.done == 20 * 28 * 2 * 2 == len(world.sent)
    assert world.max_in_flight <= 5
    assert world.max_tasks <= 5 + 3  # the workers, the ticker, the test's own task


async def test_generation_paraphrase_and_lexical_variants(tmp_path: Path, store: Store) -> None:
    gen = {
        "id": "g",
        "generator": {
            "provider": "openai-compatible",
            "model": "small",
            "base_url": "http://x",
            "system": "Answer briefly.",
        },
    }
    para = {"provider": "openai-compatible", "model": "para", "base_url": "http://x"}
    t = make(
        tmp_path,
        ["a", "b"],
        extra_contestants=[gen],
        comparison={
            "conditions": ["clean", "lexical", "paraphrase"],
            "paraphraser": para,
            "perturbation_seed": 5,
        },
    )
    world = FakeWorld()
    result = await run(t, store, world)
    assert result.state == "finished" and result.failed == []
    assert result.total == 2 * 3 * 2 * 3 + 2 + 2 == result.done
    kinds = sorted(jid for jid, _, _ in world.completions)
    assert kinds == ["gen:g", "gen:g", "paraphraser", "paraphraser"]
    assert ("gen:g", "Answer briefly.", "What is AI?") in world.completions
    texts = {(x.kind, x.prompt, x.contestant): x for x in store.texts()}
    generated = texts[("generation", "p1", "g")].text
    assert generated == "generated by gen:g for: What is AI?"
    para_text = texts[("paraphrase", "p1", None)]
    assert (
        para_text.text == "PARAPHRASED[What is AI?]"
        and para_text.base_key == texts[("prompt", "p1", None)].key
    )
    variant = texts[("perturbed", "p1", "a")]
    assert variant.base_key == texts[("response", "p1", "a")].key and variant.condition == "lexical"
    assert variant.text != texts[("response", "p1", "a")].text
    shown = {
        (r.presentation.prompt, r.presentation.first, r.presentation.condition): r for _, r in world.sent
    }  # type: ignore[union-attr]
    assert shown[("p1", "a", "lexical")].first_text == variant.text
    assert generated in shown[("p1", "g", "clean")].user
    assert "PARAPHRASED[What is AI?]" in shown[("p1", "a", "paraphrase")].user
    assert "PARAPHRASED" not in shown[("p1", "a", "clean")].user
    # everything cached: a second run calls nobody
    again = FakeWorld()
    await run(t, store, again)
    assert again.sent == [] and again.completions == []


async def test_a_failed_generation_blocks_its_comparisons(tmp_path: Path, store: Store) -> None:
    gen = {
        "id": "g",
        "generator": {"provider": "openai-compatible", "model": "small", "base_url": "http://x"},
    }
    t = make(tmp_path, ["a", "b"], extra_contestants=[gen])
    world = FakeWorld()
    world.fail_judges = {"gen:g"}
    result = await run(t, store, world)
    assert len(world.sent) == 2 * 2  # only a vs b, both prompts, both orders
    rows = store.plan_verdicts()
    assert {r[6] for r in rows if "g" in (r[1], r[2])} == {"error"}
    assert {r[6] for r in rows if "g" not in (r[1], r[2])} == {"ok"}
    assert any("generate the response of g" in f for f in result.failed)
    assert any("not judged" in f for f in result.failed)
    fixed = FakeWorld()
    result = await run(t, store, fixed)
    assert len(fixed.completions) == 2 and len(fixed.sent) == 2 * 2 * 2  # prompts x pairs with g x orders
    assert {r[6] for r in store.plan_verdicts()} == {"ok"} and result.failed == []


async def test_same_plan_under_live_keys_dedups_identical_texts(tmp_path: Path, store: Store) -> None:
    path = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"])
    text = path.read_text().replace("b answers p1: What is AI? It's 1.", "a answers p1: What is AI? It's 0.")
    path.write_text(text)
    t = load_tournament(path)
    assert t.responses[("p1", "a")] == t.responses[("p1", "b")]
    world = FakeWorld()
    result = await run(t, store, world)
    # on p1, a-vs-c and b-vs-c show the same texts to a live judge (one call answers both rows, in each
    # order), and a-vs-b is the same call in both orders
    assert len(world.sent) == 12 - 3 and result.done == 12
    assert {r[6] for r in store.plan_verdicts()} == {"ok"}
    json.dumps(store.runs()[0].manifest)


async def test_each_comparison_gets_its_most_similar_example(tmp_path: Path, store: Store) -> None:
    examples = tmp_path / "examples.jsonl"
    examples.write_text(
        json.dumps(
            {
                "prompt": "Which prime numbers are below ten?",
                "response_a": "2, 3, 5, 7",
                "response_b": "1 and 9",
                "better": "A",
                "reasoning": "1 and 9 are not prime.",
            }
        )
        + "\n"
        + json.dumps(
            {
                "prompt": "What does AI mean?",
                "response_a": "Artificial intelligence",
                "response_b": "Apple Inc.",
                "better": "A",
                "reasoning": "AI is artificial intelligence.",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    t = make(tmp_path, ["a", "b"], comparison={"examples_file": "examples.jsonl"})
    world = FakeWorld()
    await run(t, store, world)
    for _, request in world.sent:
        assert request.presentation is not None
        expected = "1 and 9 are not prime." if request.presentation.prompt == "p2" else "AI is artificial"
        assert expected in request.user
        assert request.user.index("worked example") < request.user.index("Now the comparison to judge.")
    assert store.runs()[0].manifest["examples_file_sha256"]


async def test_a_run_leaves_nothing_frozen_so_cycles_made_meanwhile_are_collected(
    tmp_path: Path, store: Store
) -> None:
    """A run freezes the heap while it plans (elotui.runtime.heap), foreign objects included; a reference cycle that
    was alive then and dies later (a dismissed screen, say) must still be collected once the run is over."""
    import gc
    import weakref

    class Holder:
        me: object = None

    cycle = Holder()
    cycle.me = cycle
    gone = weakref.ref(cycle)
    frozen: list[int] = []
    world = FakeWorld({"a": 1})
    runner = Runner(
        make(tmp_path, ["a", "b", "c"]),
        store,
        judge_factory=world.factory,
        on_event=lambda _event: frozen.append(gc.get_freeze_count()),
    )
    result = await runner.run()
    assert result.state == "finished"
    assert max(frozen) > 0  # the run did freeze the heap (the cycle with it) while it ran
    assert gc.get_freeze_count() == 0
    del cycle
    gc.collect()
    assert gone() is None


async def test_a_finished_run_lets_its_planned_comparisons_go(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The TUI keeps its runner after the run (for its controls). The runner must not keep the plan's comparisons
    then: at 10^6 of them, thawed at the run's end, every full collection walked them (~200 ms, a key press now and
    then that took that long to show). A second run of the same runner lays the plan out again. (Comparisons are
    named tuples, which the collector may stop tracking: what holds one is counted by its references.)"""
    import sys

    from elotui.run import runner as runner_module

    built: list[object] = []  # the first comparison of each plan laid out
    lay_out = runner_module.build_plan

    def spied(t: Any) -> Any:
        plan = lay_out(t)
        built.append(plan.comparisons[0])
        return plan

    control = [object()]
    alone = sys.getrefcount(control[0])  # an object its list alone holds, counted the same way

    monkeypatch.setattr(runner_module, "build_plan", spied)
    world = FakeWorld({"a": 1})
    runner = Runner(make(tmp_path, ["a", "b", "c"]), store, judge_factory=world.factory)
    planned = runner.total
    assert (
        len(runner.plan.comparisons) == planned > 0
    )  # made and frozen (elotui.runtime.heap); a run thaws them
    held = sys.getrefcount(built[0])  # (counted outside an assert, which pytest rewrites with temporaries)
    assert held == alone + 1  # and the plan
    result = await runner.run()
    assert result.state == "finished" and result.total == planned
    held = sys.getrefcount(built[0])
    assert held == alone and runner.total == planned
    again = await runner.run()
    assert again.state == "finished" and again.total == planned and again.done == planned
    held = sys.getrefcount(built[-1])
    assert len(built) == 2 and held == alone
