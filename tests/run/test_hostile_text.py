"""No escape sequence reaches the user's terminal, and no formula reaches a spreadsheet: a provider whose error
bodies carry terminal escapes (clipboard write, window title, OSC 8 link, clear screen, C1 CSI, bidi override,
NUL), a tournament name with escapes, contestant ids with a CR or a formula. Files written on purpose keep the
exact text."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.run.fakes import write_tournament
from tests.servers.fake_llm import ApiError, FakeLLMServer

HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\x1b[2J\x9b31m\u202eevil\x00"
FORBIDDEN = ("\x1b", "\x07", "\x9b", "\u202e", "\x00")


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ELOTUI_HOME": str(tmp_path / "home")}


def test_headless_output_never_carries_an_escape(tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    judge = fake_llm.judge_config("openai-compatible", id="j1", max_retries=0)
    path = write_tournament(tmp_path / "t.toml", contestants=["a", "b\rb2"], judges=[judge])
    text = path.read_text().replace('name = "test"', 'name = "cup \\u001b]0;title\\u0007 \\u001b[2J"')
    path.write_text(text)
    fake_llm.script(*[ApiError(400, f"bad request {HOSTILE}")] * 4)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "elotui.cli",
            "run",
            str(path),
            "--headless",
            "--store",
            str(tmp_path / "s.sqlite"),
        ],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 3  # every call failed for good: listed, not a crash
    assert "bad request" in out.stderr and "evil" in out.stderr  # the message is there, its escapes are not
    for stream in (out.stdout, out.stderr):
        assert not any(c in stream for c in FORBIDDEN), repr(stream[:500])
    assert "\r" not in out.stdout and any(
        "b b2" in line for line in out.stdout.splitlines()
    )  # no row overwritten
    assert "cup ]0;title" not in out.stdout and out.stdout.startswith("cup ")  # the name, without its escapes


def test_show_prompt_on_a_terminal_is_neutralised_and_exact_in_a_pipe(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    judge = fake_llm.judge_config("openai-compatible", id="j1")
    path = write_tournament(tmp_path / "t.toml", contestants=["a", "b"], judges=[judge])
    path.write_text(path.read_text().replace("a answers p1", "a answers \\u001b]52;c;ZXZpbA==\\u0007 p1"))
    cmd = [
        sys.executable,
        "-m",
        "elotui.cli",
        "run",
        str(path),
        "--show-prompt",
        "--store",
        str(tmp_path / "s.sqlite"),
    ]
    piped = subprocess.run(cmd, env=_env(tmp_path), capture_output=True, text=True, check=False)
    assert piped.returncode == 0 and "\x1b]52;c;ZXZpbA==\x07" in piped.stdout  # a file on purpose: exact text
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(cmd, env=_env(tmp_path), stdout=child_fd, stderr=subprocess.PIPE)
    os.close(child_fd)
    chunks = []
    while True:
        try:
            data = os.read(main_fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(30)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert (
        proc.returncode == 0 and "a answers  p1" in shown and "ZXZpbA==" not in shown
    )  # the clipboard write, whole
    assert "\x1b" not in shown and "\x07" not in shown


def test_the_ranking_csv_neutralises_formulas_and_json_keeps_them(tmp_path: Path) -> None:
    from elotui.export.ranking import write_csv, write_json
    from elotui.rating import VerdictTable, rank
    from tests.rating.rating_builders import row

    names = ['=HYPERLINK("http://x")', "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tlead", "plain"]
    rows = [row("p", a, b, "j", "first") for i, a in enumerate(names) for b in names[i + 1 :]]
    board = rank(VerdictTable.from_rows(rows, contestants=names), threshold="none", method="bt")
    buf = io.StringIO()
    write_csv(board, buf)
    cells = {r["contestant"] for r in csv.DictReader(io.StringIO(buf.getvalue()))}
    assert cells == {"'" + n for n in names[:5]} | {"plain"}
    numeric = ("rating", "ci_low", "ci_high", "gap_to_next", "gap_ci_low", "gap_ci_high", "wins", "games")
    for r in csv.DictReader(io.StringIO(buf.getvalue())):  # numbers, negative ones too, are never prefixed
        assert not any(r[c].startswith("'") for c in numeric)
    doc = io.StringIO()
    write_json(board, doc)
    assert {r["contestant"] for r in json.loads(doc.getvalue())["rows"]} == set(names)
