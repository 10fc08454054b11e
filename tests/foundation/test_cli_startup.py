"""`elotui --help` (the parser of every subcommand) imports no command's work: no numpy, no pydantic models, no
HTTP client, no Textual, no store (it took 0.5 s when `run`, `validate`, `verdicts` and `graph` imported theirs
at the top)."""

from __future__ import annotations

import json
import subprocess
import sys

from elotui.commands import COMMANDS

SCRIPT = """
import contextlib, io, json, sys
from elotui.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(["--help"])
    except SystemExit as exit:
        code = exit.code
print(json.dumps({"code": code, "help": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def test_help_lists_every_command_without_importing_their_work() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    for name in COMMANDS:
        assert f"    {name}" in report["help"], name
    top = {name.split(".")[0] for name in report["modules"]}
    for heavy in ("numpy", "pydantic", "httpx", "textual", "sqlite3", "asyncio"):
        assert heavy not in top, heavy
    assert not [
        m
        for m in report["modules"]
        if m.startswith(("elotui.tournament.model", "elotui.store", "elotui.run."))
    ]
