"""Disks and stores that fail: a full disk mid-run (SQLite's own SQLITE_FULL, made by capping the file's pages),
a damaged store, a read-only store, a store path under a file. Each is a clear message with the file, a
documented exit code (5; 2 for a bad path), everything committed kept, and the next run resumes."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from elotui.cli import main
from tests.run.fakes import write_tournament
from tests.servers.fake_llm import FakeLLMServer


def _tournament(tmp_path: Path, server: FakeLLMServer) -> Path:
    judge = server.judge_config("openai-compatible", id="j1", max_concurrency=1)
    prompts = {f"p{i}": "Q? " + "x" * 2000 for i in range(4)}
    return write_tournament(
        tmp_path / "t.toml", contestants=["a", "b", "c", "d"], prompts=prompts, judges=[judge]
    )


def test_a_full_disk_mid_run_is_said_and_the_next_run_resumes(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _tournament(tmp_path, fake_llm)
    store = tmp_path / "s.sqlite"
    assert main(["run", str(path), "--dry-run", "--store", str(store)]) == 0  # creates the store
    capsys.readouterr()
    connect = sys.modules["elotui.store.connect"]
    real = connect.connect

    def capped(p: Path, **options):  # type: ignore[no-untyped-def]
        db, ro = real(p, **options)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages + 12}")  # room for the plan and a few answers
        return db, ro

    connect.connect = capped
    import elotui.store as store_module

    store_module.connect = capped
    try:
        code = main(["run", str(path), "--headless", "--store", str(store)])
    finally:
        connect.connect = real
        store_module.connect = real
    err = capsys.readouterr().err
    assert code == 5, err
    assert f"no space left on the device holding {store}" in err and "Traceback" not in err
    with sqlite3.connect(store) as db:
        kept = db.execute("SELECT COUNT(*) FROM calls WHERE status = 'ok'").fetchone()[0]
    sent = len(fake_llm.requests)
    import time

    from elotui.store import Store
    from elotui.store.runs import LEASE_S, reap

    with Store(
        store
    ) as s:  # the failed run could not close itself (no space): its lease lapses, as a new process
        reap(
            s, now=time.time() + LEASE_S + 1
        )  # of this test's pid would see it once the lease time has passed
    assert main(["run", str(path), "--headless", "--store", str(store)]) == 0  # room again: it resumes
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM calls WHERE status = 'ok'").fetchone()[0] == 48
    assert (
        len(fake_llm.requests) - sent <= 48 - kept + 1
    )  # no answered call paid again (one in flight at most)


def test_a_damaged_store_names_the_file_and_what_to_do(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _tournament(tmp_path, fake_llm)
    store = tmp_path / "s.sqlite"
    assert main(["run", str(path), "--headless", "--store", str(store)]) == 0
    capsys.readouterr()
    data = bytearray(store.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # the schema page
    store.write_bytes(bytes(data))
    for wal in tmp_path.glob("s.sqlite-*"):
        wal.unlink()
    code = main(["export", str(path), "--store", str(store)])
    err = capsys.readouterr().err
    assert code in (2, 5) and str(store) in err and "Traceback" not in err
    assert "damaged" in err or "not a usable elotui store" in err


def test_reading_commands_work_on_a_read_only_store(
    tmp_path: Path, fake_llm: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from elotui.store import Store

    connect_module = sys.modules["elotui.store.connect"]

    path = _tournament(tmp_path, fake_llm)
    store_path = tmp_path / "archive" / "s.sqlite"
    assert main(["run", str(path), "--headless", "--store", str(store_path)]) == 0
    capsys.readouterr()
    real_access = os.access
    try:  # as root, permissions do not stop writes: make the check see a read-only mount
        connect_module.os.access = lambda p, mode: False if mode == os.W_OK else real_access(p, mode)  # type: ignore[assignment]
        os.chmod(store_path.parent, stat.S_IRUSR | stat.S_IXUSR)
        with Store(store_path) as store:
            assert store.read_only and len(store.plan_verdicts()) == 48
        for command in (["export"], ["verdicts"], ["diagnose"], ["runs"]):
            assert main([*command, str(path), "--store", str(store_path)]) == 0, capsys.readouterr().err
    finally:
        connect_module.os.access = real_access  # type: ignore[assignment]
        os.chmod(store_path.parent, stat.S_IRWXU)


def test_a_store_path_under_a_file_is_bad_input(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    path = _tournament(tmp_path, fake_llm)
    blocker = tmp_path / "FILE"
    blocker.write_text("not a folder")
    out = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "export", str(path), "--store", str(blocker / "x.db")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "ELOTUI_HOME": str(tmp_path)},
    )
    assert (
        out.returncode == 2
        and "cannot create the store's folder" in out.stderr
        and "Traceback" not in out.stderr
    )


def test_an_unusable_elotui_home_is_bad_input(tmp_path: Path) -> None:
    blocker = tmp_path / "FILE"
    blocker.write_text("not a folder")
    sample = Path(__file__).resolve().parents[2] / "sample_tournaments" / "vicuna80" / "tournament.toml"
    for command in (["export", str(sample)], ["run", str(sample), "--dry-run"]):
        out = subprocess.run(
            [sys.executable, "-m", "elotui.cli", *command],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, "ELOTUI_HOME": str(blocker / "home")},
        )
        assert out.returncode == 2, out.stderr
        assert "cannot create elotui's folder" in out.stderr and "ELOTUI_HOME" in out.stderr
