"""`elotui export` loads only what it uses: no Textual, no HTTP client, no scipy, no asyncio, no run or judge layer,
no other subcommand."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
from elotui.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def test_export_imports_nothing_it_does_not_use(filled, tmp_path) -> None:  # type: ignore[no-untyped-def]
    args = filled.export_args("--threshold", "none", "--method", "elo")
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, *args, "-o", str(tmp_path / "board.csv")],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    top = {name.split(".")[0] for name in report["modules"]}
    for heavy in ("textual", "httpx", "scipy", "asyncio"):
        assert heavy not in top, heavy
    layers = ("elotui.run", "elotui.judges", "elotui.tui")
    assert not [m for m in report["modules"] if m in layers or m.startswith(tuple(f"{x}." for x in layers))]
    loaded_commands = {m for m in report["modules"] if m.startswith("elotui.commands.")}
    assert loaded_commands == {"elotui.commands.common", "elotui.commands.export"}
    assert (tmp_path / "board.csv").read_text(encoding="utf-8").startswith("rank,contestant,")
