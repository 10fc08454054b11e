"""`elotui import` writes its files in a helper thread while the store snapshot is made and written, committed once
the files are (elotui.importers.common.write_tournament with `meanwhile`, elotui.importers.writes_behind), each
file's large texts behind the encoding of the next. A file that cannot be written is said as it always was
(`DIR/NAME: cannot write it: why`, exit 2), the files before it stay whole, no temporary file is left and no store
is left behind; an interruption stops the writing and leaves no partial file.

The full disk is the kernel's own: the import runs in a child process whose files may not grow past a size
(RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with EFBIG, as one on a full disk fails with ENOSPC), with
small texts, every one written behind, so that the write that fails is one in the helper thread."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.importers import arena
from elotui.importers.common import write_tournament
from tests.importers.fixtures import arena_battles, write_jsonl

CHILD = """
import sys
from elotui.importers import battle_columns, writes_behind
battle_columns.ROWS_AT_ONCE = 64  # many texts per file
writes_behind.Writes.BEHIND = 1  # each written in the helper thread
from elotui.cli import main
sys.exit(main(sys.argv[1:]))
"""


ORDER = ["prompts.jsonl", "verdicts.jsonl", "tournament.toml", "style.jsonl"]  # as they replace their paths


def _files_up_to(limit: int) -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _import_in_child(src: Path, out: Path, home: Path, limit: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD, "import", "arena", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ELOTUI_HOME": str(home)},
        preexec_fn=lambda: _files_up_to(limit),
        check=False,
    )


def _stores(home: Path) -> list[Path]:
    return sorted((home / "data" / "stores").glob("*")) if (home / "data" / "stores").exists() else []


@pytest.mark.parametrize("failing", ["prompts.jsonl", "style.jsonl"])
def test_a_file_that_cannot_be_written_midway_is_exit_2_and_left_out(tmp_path: Path, failing: str) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=2_000, seed=5))
    whole = tmp_path / "whole"
    assert main(["import", "arena", str(src), "-o", str(whole)]) == 0
    sizes = {p.name: p.stat().st_size for p in whole.iterdir()}
    before = ORDER[: ORDER.index(failing)]
    limit = max([sizes[n] for n in before] or [0]) + 1
    if failing == "prompts.jsonl":
        limit = sizes[failing] // 2
    assert all(sizes[n] < limit for n in before) and sizes[failing] > limit
    out, home = tmp_path / "out", tmp_path / "home"
    done = _import_in_child(src, out, home, limit)
    assert done.returncode == 2, done.stderr
    assert f"{out / failing}: cannot write it: File too large" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(before)  # no temporary file, nothing after it
    assert all((out / n).read_bytes() == (whole / n).read_bytes() for n in before)
    assert not _stores(home)  # the snapshot is stored only once the files are written


@pytest.mark.parametrize("failing", ORDER)
def test_a_file_that_cannot_be_opened_leaves_the_files_before_it_whole_and_no_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failing: str
) -> None:
    """A file that fails at once (its temporary name is a folder) while the files before it are still written:
    those are finished and replace their paths, the files after it are left out."""
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=3_000, seed=6))
    whole = tmp_path / "whole"
    assert main(["import", "arena", str(src), "-o", str(whole)]) == 0
    stores = _stores(Path(os.environ["ELOTUI_HOME"]))
    out = tmp_path / "out"
    (out / f".{failing}.tmp").mkdir(parents=True)  # a folder where the temporary file goes
    capsys.readouterr()
    assert main(["import", "arena", str(src), "-o", str(out)]) == 2
    assert f"{out / failing}: cannot write it: Is a directory" in capsys.readouterr().err
    before = ORDER[: ORDER.index(failing)]
    assert sorted(p.name for p in out.iterdir()) == sorted([f".{failing}.tmp", *before])
    assert all((out / n).read_bytes() == (whole / n).read_bytes() for n in before)
    assert _stores(Path(os.environ["ELOTUI_HOME"])) == stores  # no store for this folder
    assert not any(t.name.startswith(("elotui-import-files", "elotui-file")) for t in threading.enumerate())


def _columns(src: Path) -> arena.BattleColumns:
    return arena.import_files([src], skip_bad=False)


def test_an_interruption_meanwhile_stops_the_files_and_leaves_no_partial_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from elotui.importers import battle_columns

    monkeypatch.setattr(battle_columns, "ROWS_AT_ONCE", 16)
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=3_000, seed=7))
    whole = tmp_path / "whole"
    write_tournament(_columns(src), whole, [src])
    started = threading.Event()
    texts = []
    real = battle_columns._joined

    def slow(
        *args: object,
    ) -> object:  # the files' texts come one by one, after the interruption is on its way
        for text in real(*args):  # type: ignore[arg-type]
            started.set()
            texts.append(text)
            yield text

    monkeypatch.setattr(battle_columns, "_joined", slow)

    def interrupted(written: object) -> None:
        started.wait(10)
        raise KeyboardInterrupt

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        write_tournament(_columns(src), out, [src], meanwhile=interrupted)
    assert not any(t.name == "elotui-import-files" for t in threading.enumerate())
    left = sorted(p.name for p in out.iterdir())
    assert not any(name.endswith(".tmp") for name in left)
    assert all((out / n).read_bytes() == (whole / n).read_bytes() for n in left)  # whole, or not there
    assert len(left) < len(list(whole.iterdir())) and texts  # stopped before the end


def test_a_failure_meanwhile_still_leaves_the_files_whole_and_is_raised(tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=500, seed=8))
    whole = tmp_path / "whole"
    write_tournament(_columns(src), whole, [src])

    def broken(written: object) -> None:
        raise ValueError("a bug")

    out = tmp_path / "out"
    with pytest.raises(ValueError, match="a bug"):
        write_tournament(_columns(src), out, [src], meanwhile=broken)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {
        p.name: p.read_bytes() for p in whole.iterdir()
    }


def test_the_files_error_comes_before_the_one_meanwhile(tmp_path: Path) -> None:
    from elotui.errors import UserError

    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=200, seed=9))
    out = tmp_path / "out"
    (out / ".prompts.jsonl.tmp").mkdir(parents=True)

    def broken(written: object) -> None:
        raise ValueError("a bug")

    with pytest.raises(UserError, match="prompts.jsonl: cannot write it"):
        write_tournament(_columns(src), out, [src], meanwhile=broken)


def test_an_unusable_store_folder_is_said_once_the_files_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    src = write_jsonl(tmp_path / "battles.jsonl", arena_battles(n=300, seed=10))
    whole = tmp_path / "whole"
    assert main(["import", "arena", str(src), "-o", str(whole)]) == 0
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "stores").write_text("a file where the stores' folder goes", encoding="utf-8")
    monkeypatch.setenv("ELOTUI_HOME", str(home))
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["import", "arena", str(src), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{home / 'data' / 'stores'}: cannot create elotui's folder" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {
        p.name: p.read_bytes() for p in whole.iterdir()
    }
