"""Every file a tournament names goes through one guard (elotui.tournament.user_files): the examples, a replay judge's log, the
reference votes and gold labels, data files and themes. A device that never ends, a FIFO that never answers and a
folder are refused at once with the file and the reason, by `validate` as by `run`; a lone surrogate escape in
JSON is named with its file and line; a small gzip that would decompress to a gigabyte is refused with its line.

Commands run in a child process: its timeout guards against a hang (a FIFO blocks a reader forever), no assert is
made on time."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.themes import ThemeError, load_theme_file
from elotui.tournament.user_files import MAX_GUNZIPPED_BYTES, gunzip, read_regular_file

HANG_GUARD_S = 120  # a child still running after this is hung: the test fails (the limit is no measurement)

BASE = """[tournament]
name = "t"

[[contestants]]
id = "a"
[[contestants]]
id = "b"

[[prompts]]
id = "p"
text = "Q?"
responses = { a = "x", b = "y" }

[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
qualities = { a = 1100.0, b = 1000.0 }
"""

VERDICT = {
    "prompt": "p",
    "first": "a",
    "second": "b",
    "judge": "r",
    "condition": "clean",
    "sample": 0,
    "winner": "first",
    "reasoning": "fine",
    "status": "ok",
}
# each kind of named file: its TOML, and a good line of it (the lone surrogate goes into the second line's text)
KINDS = {
    "examples": (
        '\n[comparison]\nexamples_file = "{path}"\n',
        {"prompt": "Q", "response_a": "x", "response_b": "y", "better": "A", "reasoning": "fine"},
    ),
    "replay": ('\n[[judges]]\nid = "r"\nprovider = "replay"\npath = "{path}"\n', VERDICT),
    "votes": ('\n[reference]\nvotes = "{path}"\n', {**VERDICT, "judge": "human"}),
    "gold": ('\n[reference]\ngold = "{path}"\n', {"prompt": "p", "a": "a", "b": "b", "better": "a"}),
}


def _elotui(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ELOTUI_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "elotui.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _tournament(tmp_path: Path, kind: str, target: Path) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(BASE + KINDS[kind][0].format(path=target), encoding="utf-8")
    return path


def _target(tmp_path: Path, what: str) -> tuple[Path, str]:
    if what == "device":
        return Path("/dev/zero"), "a device"
    if what == "fifo":
        fifo = tmp_path / "named.jsonl"
        os.mkfifo(fifo)
        return fifo, "a FIFO"
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    return folder, "a folder"


@pytest.mark.parametrize("what", ["device", "fifo", "folder"])
@pytest.mark.parametrize("kind", [*sorted(KINDS), "data"])
def test_a_named_file_that_is_no_regular_file_is_refused_at_once(
    tmp_path: Path, kind: str, what: str
) -> None:
    target, name = _target(tmp_path, what)
    if kind == "data":
        path = tmp_path / "t.toml"
        path.write_text(BASE.replace("[[prompts]]", f'[data]\nprompts = "{target}"\n\n[[prompts]]', 1))
    else:
        path = _tournament(tmp_path, kind, target)
    done = _elotui("validate", str(path), home=tmp_path / "home")
    assert done.returncode == 2, done.stderr
    assert f"{target}: not a regular file ({name}" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_run_refuses_a_fifo_at_once_instead_of_hanging(tmp_path: Path, kind: str) -> None:
    target, _ = _target(tmp_path, "fifo")
    path = _tournament(tmp_path, kind, target)
    done = _elotui(
        "run", str(path), "--headless", "--store", str(tmp_path / "s.sqlite"), home=tmp_path / "home"
    )
    assert done.returncode == 2, done.stderr
    assert f"{target}: not a regular file (a FIFO" in done.stderr


def _with_lone_surrogate(row: dict[str, object], key: str) -> str:
    """Line 1: the row; line 3 (after a blank line): the row with `\\ud83d` alone in `key`'s text."""
    broken = json.dumps({**row, key: "half an emoji: \ud83d"})  # json.dumps spells it as the escape
    assert "\\ud83d" in broken
    return json.dumps(row) + "\n\n" + broken + "\n"


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_lone_surrogate_is_named_with_file_and_line(tmp_path: Path, kind: str) -> None:
    row = KINDS[kind][1]
    named = tmp_path / "named.jsonl"
    named.write_text(
        _with_lone_surrogate(row, "reasoning" if "reasoning" in row else "prompt"), encoding="utf-8"
    )
    path = _tournament(tmp_path, kind, named)
    done = _elotui("validate", str(path), home=tmp_path / "home")
    assert done.returncode == 2, done.stderr
    assert f"{named}:3: a lone surrogate escape (\\ud83d)" in done.stderr, done.stderr
    ran = _elotui(
        "run", str(path), "--headless", "--store", str(tmp_path / "s.sqlite"), home=tmp_path / "home"
    )
    assert ran.returncode in (0, 2) and "Traceback" not in ran.stderr, ran.stderr


def test_a_paired_surrogate_escape_is_text(tmp_path: Path) -> None:
    named = tmp_path / "named.jsonl"
    good = {**KINDS["examples"][1], "reasoning": "an emoji: \\ud83d\\ude00"}
    named.write_text(json.dumps(good).replace("\\\\", "\\") + "\n", encoding="utf-8")
    assert "\\ud83d\\ude00" in named.read_text(encoding="utf-8")
    done = _elotui("validate", str(_tournament(tmp_path, "examples", named)), home=tmp_path / "home")
    assert done.returncode == 0, done.stderr


def test_a_data_file_with_a_lone_surrogate_names_its_line(tmp_path: Path) -> None:
    rows = [{"id": "p", "text": "Q?"}, {"id": "q", "text": "R \ud83d?"}]
    (tmp_path / "prompts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "prompts.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    for name, line in (("prompts.jsonl", 2), ("prompts.json", 6)):  # a row of an array: the line it starts on
        toml = BASE.replace("[[prompts]]", f'[data]\nprompts = "{name}"\n\n[[prompts]]', 1)
        path = tmp_path / "t.toml"
        path.write_text(toml, encoding="utf-8")
        done = _elotui("validate", str(path), home=tmp_path / "home")
        assert done.returncode == 2 and f"{tmp_path / name}:{line}: a lone surrogate escape" in done.stderr, (
            done.stderr
        )


def _gzip_bomb(path: Path, lines: int, gib: int = 1, line: bytes = b'{"id": "p", "text": "Q?"}') -> None:
    """`lines` short lines, then `gib` GiB of zero bytes, gzipped (about 1 MB per GiB), written a MiB at a time."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    with path.open("wb") as out:
        out.write(squeeze.compress((line + b"\n") * lines))
        for _ in range(gib << 10):
            out.write(squeeze.compress(zeros))
        out.write(squeeze.flush())


def test_a_gzipped_data_file_that_decompresses_to_a_gigabyte_is_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "prompts.jsonl.gz"
    _gzip_bomb(bomb, lines=3)
    assert bomb.stat().st_size < 2 << 20
    path = tmp_path / "t.toml"
    path.write_text(BASE.replace("[[prompts]]", '[data]\nprompts = "prompts.jsonl.gz"\n\n[[prompts]]', 1))
    done = _elotui("validate", str(path), home=tmp_path / "home")
    assert done.returncode == 2, done.stderr
    assert f"{bomb}:4: decompresses to more than {MAX_GUNZIPPED_BYTES:,} bytes" in done.stderr, done.stderr


def test_gunzip_reads_up_to_its_bound_and_no_further(tmp_path: Path) -> None:
    path = tmp_path / "x.gz"
    exact = gzip.compress(b"a\n" * 500)
    assert gunzip(path, exact, limit=1000) == b"a\n" * 500
    with pytest.raises(UserError, match=r"x\.gz:501: decompresses to more than 999 bytes"):
        gunzip(path, exact, limit=999)
    two_members = gzip.compress(b"a\n") + gzip.compress(b"b\n")
    assert gunzip(path, two_members) == b"a\nb\n"
    with pytest.raises(UserError, match=r"x\.gz: not a readable gzip file"):
        gunzip(path, b"not gzip")


def test_a_file_larger_than_its_bound_is_refused_whatever_size_it_claims(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="not a regular file"):
        read_regular_file(Path("/dev/zero"))
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UserError, match=r"big\.txt: larger than the 100 bytes"):
        read_regular_file(big, limit=100)
    assert read_regular_file(big, limit=101) == b"x" * 101


def test_a_theme_file_goes_through_the_same_guard(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(ThemeError, match="not a regular file"):
        load_theme_file(fifo)
    lone = tmp_path / "lone.json"
    lone.write_text('{"name": "x", "colors": {"primary": "#ff0000"}, "label": "\\ud83d"}', encoding="utf-8")
    with pytest.raises(ThemeError, match=r"lone\.json: a lone surrogate escape \(\\ud83d\)"):
        load_theme_file(lone)


def test_a_verdict_log_reads_a_bounded_line_and_names_the_line_that_is_not_utf8(tmp_path: Path) -> None:
    from elotui.verdict_log import MAX_LINE_BYTES, read_log

    endless = tmp_path / "endless.jsonl.gz"
    _gzip_bomb(
        endless, lines=2, line=json.dumps(VERDICT).encode()
    )  # two verdicts, a GiB of zeros, no newline
    with pytest.raises(
        UserError, match=rf"endless\.jsonl\.gz:3: a line of more than {MAX_LINE_BYTES:,} bytes"
    ):
        list(read_log(endless))
    broken = tmp_path / "broken.jsonl"
    line = json.dumps(VERDICT).encode()
    broken.write_bytes(line + b"\n" + line + b"\n" + line.replace(b"fine", b"fin\xe9") + b"\n")
    with pytest.raises(UserError, match=r"broken\.jsonl:3: not UTF-8 text"):
        list(read_log(broken))
