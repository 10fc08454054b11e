"""A run that is about to plan starts reading its replay logs in a child process (elotui.judges.replay_index), takes the index
from it after planning, and leaves no child behind: not when every call is cached (none is started), not when the
run is stopped while it plans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from elotui.judges import replay_index as log_index
from elotui.run.runner import Runner
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.run.test_free_batches import _replay_world
from tests.run.test_stop_while_preparing import stopped_while_planning


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Every child started, and the logs parsed in this process; every log is read ahead."""
    log_index.forget()
    monkeypatch.setattr(log_index, "READ_AHEAD_MIN_BYTES", 0)
    started: list[log_index._Child] = []
    parsed_here: list[Path] = []
    child, index_of = log_index._Child, log_index.index_of

    def starting(path: Path) -> log_index._Child:
        started.append(child(path))
        return started[-1]

    monkeypatch.setattr(log_index, "_Child", starting)

    def parsing_here(path: Path) -> log_index.Index:
        parsed_here.append(path)
        return index_of(path)

    monkeypatch.setattr(log_index, "index_of", parsing_here)
    yield started, parsed_here
    log_index.forget()


async def test_a_run_reads_its_replay_log_in_a_child_while_it_plans(tmp_path: Path, children: Any) -> None:
    started, parsed_here = children
    t = load_tournament(_replay_world(tmp_path))
    with Store(tmp_path / "s.sqlite") as store:
        result = await Runner(t, store).run()
        assert result.state == "finished" and result.done == result.total == 4
        assert [v.status for v in store.plan_verdicts()] == ["ok"] * 4
        assert len(started) == 1 and parsed_here == []  # the child's index was used
        assert started[0].proc.returncode == 0
        log_index.forget()
        again = await Runner(t, store).run()  # every call cached: the log is not needed
        assert again.state == "finished" and len(started) == 1 and parsed_here == []


async def test_a_run_stopped_while_it_plans_leaves_no_child_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, children: Any
) -> None:
    started, _ = children
    t = load_tournament(_replay_world(tmp_path))

    def reading() -> None:
        assert len(started) == 1  # the log is read while the run plans

    with Store(tmp_path / "s.sqlite") as store:
        result, outcome = await stopped_while_planning(t, store, monkeypatch, reading)
        assert result.state == "stopped" and outcome == ["stopped"]
    assert started[0].proc.returncode is not None and log_index._ahead == {}
