"""A watcher of a store another connection writes tells a new plan from new verdicts (by the plan's snapshot
description, not by counting the plan table), and says nothing when nothing was committed."""

from __future__ import annotations

from pathlib import Path

from elotui.store import CallRecord, PlanRow, Store
from elotui.store.follow import plan_identity
from elotui.tui.state.watch import StoreWatcher


def rows(prompts: int) -> list[PlanRow]:
    pairs = [("a", "b"), ("b", "a")]
    return [PlanRow(i, f"p{i // 2}", *pairs[i % 2], "j", "clean", 0, f"k{i}") for i in range(2 * prompts)]


def test_the_watcher_tells_a_new_plan_from_new_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as writer, Store(path) as reader:
        writer.set_plan(rows(3), "plan-1")
        watcher = StoreWatcher(reader)
        watcher.mark()
        assert plan_identity(reader) == (6, "plan-1")
        watcher.poll()  # the first look
        assert watcher.poll() is None  # nothing committed since
        writer.record_call(CallRecord(key="k0", kind="verdict", status="ok", winner="first"))
        writer.compact()  # a compaction rewrites the snapshot: still the same plan
        seen = watcher.poll()
        assert seen is not None and not seen.plan_changed and [r.prompt for r in seen.rows] == ["p0"]
        writer.set_plan(rows(4), "plan-2")
        seen = watcher.poll()
        assert seen is not None and seen.plan_changed
        watcher.mark()
        writer.set_plan(rows(4), "plan-3")  # same size, another plan
        seen = watcher.poll()
        assert seen is not None and seen.plan_changed
