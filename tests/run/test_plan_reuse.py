"""A plan is computed once and reused while the tournament has not changed (elotui.run.prepare): a re-run renders
only the unanswered presentations, sends exactly what a fresh plan would, and any edit to what the keys depend
on plans again."""

from __future__ import annotations

from pathlib import Path

import pytest

from elotui.plan import verdict_calls as planning
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.run.fakes import FakeWorld, write_tournament

JUDGES = [
    {"id": "j1", "provider": "openai-compatible", "model": "m1", "base_url": "http://127.0.0.1:9"},
    {"id": "j2", "provider": "openai-compatible", "model": "m2", "base_url": "http://127.0.0.1:9"},
]


def tournament(tmp_path: Path, prompts: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    path = write_tournament(tmp_path / "t.toml", contestants=["a", "b", "c"], prompts=prompts, judges=JUDGES)
    return load_tournament(path)


async def run(t, store: Store, world: FakeWorld, **kw):  # type: ignore[no-untyped-def]
    return await Runner(t, store, judge_factory=world.factory, **kw).run()


@pytest.fixture
def rendered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many presentations each planning pass rendered and keyed."""
    passes: list[int] = []
    real = planning._verdict_calls

    def counting(plan, builder, texts, judges, only=None):  # type: ignore[no-untyped-def]
        out = real(plan, builder, texts, judges, only)
        passes.append(len(out.rows))
        return out

    monkeypatch.setattr(planning, "_verdict_calls", counting)
    return passes


async def test_an_unchanged_tournament_is_not_planned_again(tmp_path: Path, rendered: list[int]) -> None:
    t = tournament(tmp_path)
    with Store(tmp_path / "s.sqlite") as store:
        first = await run(t, store, FakeWorld({"a": 3, "b": 2, "c": 1}))
        assert first.done == first.total == 24 and rendered == [24]
        fingerprint = store.plan_fingerprint()
        assert fingerprint is not None
        world = FakeWorld({"a": 3, "b": 2, "c": 1})
        again = await run(tournament(tmp_path), store, world)  # the file read again: same content
        assert again.done == 24 and world.sent == []
        assert rendered == [24, 0]  # nothing rendered: every presentation is answered
        assert store.plan_fingerprint() == fingerprint


async def test_a_reused_plan_sends_what_a_fresh_plan_would(tmp_path: Path, rendered: list[int]) -> None:
    t = tournament(tmp_path)
    quality = {"a": 3, "b": 2, "c": 1}
    with Store(tmp_path / "reused.sqlite") as reused, Store(tmp_path / "fresh.sqlite") as fresh:
        world = FakeWorld(quality)
        world.fail = {("p1", "a", "b"), ("p2", "c", "a")}  # these fail in the first run, and are retried
        await run(t, reused, world)
        await run(t, fresh, world)
        failed = sum(1 for r in reused.plan_verdicts() if r.status == "error")
        assert failed > 0
        fresh.set_plan([])  # forget the plan: the next run plans from scratch
        rendered.clear()
        world_reused, world_fresh = FakeWorld(quality), FakeWorld(quality)
        await run(t, reused, world_reused)
        await run(t, fresh, world_fresh)
        assert rendered == [failed, 24]  # the reused plan rendered only the failed presentations
        assert sorted(r.key for _, r in world_reused.sent) == sorted(r.key for _, r in world_fresh.sent)
        assert reused.plan_verdicts() == fresh.plan_verdicts()
        assert [tuple(r) for r in reused.plan()] == [tuple(r) for r in fresh.plan()]


TEMPLATE = "Prompt: {{prompt}}\nA: {{response_a}}\nB: {{response_b}}\nWhich is better?"


@pytest.mark.parametrize("edit", ["response", "template file", "judge setting"])
async def test_an_edit_the_keys_depend_on_plans_again(tmp_path: Path, edit: str, rendered: list[int]) -> None:
    (tmp_path / "user.txt").write_text(TEMPLATE, encoding="utf-8")
    path = write_tournament(
        tmp_path / "t.toml",
        contestants=["a", "b", "c"],
        judges=JUDGES,
        comparison={"user_template": {"file": "user.txt"}},
    )
    with Store(tmp_path / "s.sqlite") as store:
        await run(load_tournament(path), store, FakeWorld({"a": 3, "b": 2, "c": 1}))
        before = store.plan_fingerprint()
        if edit == "response":
            path.write_text(path.read_text(encoding="utf-8").replace("Name a prime", "Name an even prime"))
        elif edit == "template file":  # the tournament file itself unchanged
            (tmp_path / "user.txt").write_text(TEMPLATE + " Think first.", encoding="utf-8")
        else:
            write_tournament(
                path,
                contestants=["a", "b", "c"],
                judges=[JUDGES[0], {**JUDGES[1], "temperature": 0.7}],
                comparison={"user_template": {"file": "user.txt"}},
            )
        t = load_tournament(path)
        world = FakeWorld({"a": 3, "b": 2, "c": 1})
        await run(t, store, world)
        assert rendered[-1] == 24  # planned again
        assert store.plan_fingerprint() not in (None, before)
        assert world.sent  # what changed is asked again
        assert {r.status for r in store.plan_verdicts()} == {"ok"}
