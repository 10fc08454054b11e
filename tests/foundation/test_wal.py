"""The store's write-ahead log belongs to its writer. A watcher reads the store read-only, so that, closing last (the
writer killed, or on another machine whose locks it cannot see), it never checkpoints, truncates or deletes the
log; and a writer whose log vanished or was replaced under it says so (exit 5) at its next commit instead of
committing into a file no one else will read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from elotui.errors import StoreError
from elotui.store import CallRecord, PlanRow, Store
from elotui.tui.state.watch import StoreWatcher

WRITER = """
import os, sys
from elotui.store import CallRecord, PlanRow, Store
store = Store(sys.argv[1])
store.set_plan([PlanRow(i, "p", "a", "b", "j", "clean", i, f"k{i}") for i in range(4)], "plan")
store.record_call(CallRecord(key="k0", kind="verdict", status="ok", winner="first"))
os._exit(0)  # killed: never closes, its log left as it is
"""


def test_a_watcher_closing_last_leaves_the_writers_log_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    subprocess.run([sys.executable, "-c", WRITER, str(path)], check=True, timeout=120)
    wal = Path(f"{path}-wal")
    log = wal.read_bytes()
    assert len(log) > 0  # the writer's commits are in its log, not yet in the file
    with Store(path, reader=True) as store:
        watcher = StoreWatcher(store)
        watcher.mark()
        watcher.poll()
        assert store.read_only and len(store.verdict_columns()) == 4
        watcher.store.close()
    assert wal.read_bytes() == log


def _writer(path: Path) -> Store:
    store = Store(path)
    store.set_plan([PlanRow(i, "p", "a", "b", "j", "clean", i, f"k{i}") for i in range(4)], "plan")
    store.record_call(CallRecord(key="k0", kind="verdict", status="ok", winner="first"))
    return store


@pytest.mark.parametrize("how", ["gone", "replaced"])
def test_a_writer_whose_log_vanished_says_so_at_its_next_commit(tmp_path: Path, how: str) -> None:
    path = tmp_path / "s.sqlite"
    store = _writer(path)
    try:
        Path(f"{path}-wal").unlink()
        if how == "replaced":
            Path(f"{path}-wal").write_bytes(b"")  # another file where the log was
        with pytest.raises(StoreError, match=rf"write-ahead log s\.sqlite-wal vanished .*\({how}") as raised:
            store.record_call(CallRecord(key="k1", kind="verdict", status="ok", winner="second"))
        assert raised.value.exit_code == 5 and str(path) in str(raised.value)
    finally:
        store.close()


def test_a_writer_whose_log_stays_commits_on(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with _writer(path) as store, Store(path) as other:
        other.record_call(CallRecord(key="k2", kind="verdict", status="ok", winner="tie"))
        store.record_call(CallRecord(key="k1", kind="verdict", status="ok", winner="second"))
        store.compact()
        assert sorted(c.key for c in store.calls()) == ["k0", "k1", "k2"]
