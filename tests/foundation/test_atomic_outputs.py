"""`export -o`, `verdicts -o`, `diagnose -o` and `graph -o` write to a temporary file in the same folder and
rename it over the previous one once whole (elotui.tournament.user_files.replaced_atomically): a disk that fills up while they
write leaves the previous file byte for byte, and no temporary file behind.

The full disk is the kernel's own: the command runs in a child process whose files may not grow past a few hundred
bytes (RLIMIT_FSIZE, SIGXFSZ ignored: a write past it fails with EFBIG, as one on a full disk fails with ENOSPC).
The store's shared memory file is kept open (and so at its size) by this process, so the child needs no write to
read the store."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from elotui.cli import main

NAMES = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
TOURNAMENT = (
    '[tournament]\nname = "outputs"\n\n'
    + "".join(f'[[contestants]]\nid = "{c}"\n' for c in NAMES)
    + "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Q{i}?"\nresponses = {{ '
        + ", ".join(f'{c} = "{c} answers {i}"' for c in NAMES)
        + " }\n"
        for i in range(3)
    )
    + '[[judges]]\nid = "sim"\nprovider = "simulated"\n[judges.simulation]\nqualities = { '
    + ", ".join(f"{c} = {1300 - 50 * i}.0" for i, c in enumerate(NAMES))
    + " }\n"
)

PREVIOUS = b"the previous export\r\n\xe2\x9c\x93 kept byte for byte\n"


def _small_files_only() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))


@pytest.fixture
def tournament(tmp_path: Path) -> tuple[Path, Path]:
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    store = tmp_path / "s.sqlite"
    assert main(["run", str(path), "--headless", "--store", str(store)]) == 0
    return path, store


@pytest.mark.parametrize("command", ["export", "verdicts", "diagnose", "graph"])
def test_a_full_disk_while_writing_leaves_the_previous_file_byte_identical(
    tournament: tuple[Path, Path], tmp_path: Path, command: str
) -> None:
    path, store = tournament
    out = tmp_path / "out" / ("graph" if command == "graph" else "out.csv")
    previous = out / "graph.cypher" if command == "graph" else out
    previous.parent.mkdir(parents=True)
    previous.write_bytes(PREVIOUS)
    before = sorted(p.name for p in previous.parent.iterdir())
    with sqlite3.connect(store) as reader:  # keeps the store's -shm open at its size (see above)
        reader.execute("SELECT COUNT(*) FROM calls").fetchone()
        done = subprocess.run(
            [sys.executable, "-m", "elotui.cli", command, str(path), "--store", str(store), "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "ELOTUI_HOME": str(tmp_path / "home")},
            preexec_fn=_small_files_only,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "File too large" in done.stderr and "left as" in done.stderr and "Traceback" not in done.stderr
    assert previous.read_bytes() == PREVIOUS
    assert sorted(p.name for p in previous.parent.iterdir()) == before  # no temporary file left


def test_a_finished_export_replaces_the_file_and_keeps_its_permissions(
    tournament: tuple[Path, Path], tmp_path: Path
) -> None:
    path, store = tournament
    out = tmp_path / "out.csv"
    out.write_bytes(PREVIOUS)
    out.chmod(0o640)
    assert main(["export", str(path), "--store", str(store), "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8").startswith("rank,contestant,")
    assert (out.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_an_export_to_a_device_is_written_to_it(tournament: tuple[Path, Path]) -> None:
    path, store = tournament
    assert main(["export", str(path), "--store", str(store), "-o", os.devnull]) == 0
    assert Path(os.devnull).exists() and not Path(os.devnull).is_file()  # the device is still a device
