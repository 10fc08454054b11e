"""Importing elotui changes nothing in the process: no environment variable, no garbage-collector setting. The
process settings of the `elotui` command live in its entry (elotui/cli.py) and nowhere else."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

IMPORT_ALL = r"""
import gc, importlib, json, os, pkgutil, sys
before = dict(os.environ)
import elotui
names = sorted(m.name for m in pkgutil.walk_packages(elotui.__path__, "elotui.") if m.name != "elotui.cli")
for name in names:
    importlib.import_module(name)
changed = sorted(k for k in set(before) | set(os.environ) if before.get(k) != os.environ.get(k))
print(json.dumps({"modules": len(names), "changed": changed, "gc": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "cli": "elotui.cli" in sys.modules}))
"""


def _import_all() -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL], check=True, capture_output=True, text=True, cwd=ROOT
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_importing_every_module_but_the_command_entry_changes_nothing() -> None:
    seen = _import_all()
    assert seen["modules"] > 120  # every module, the TUI's included
    assert seen["changed"] == [], f"environment variables set by an import: {seen['changed']}"
    assert seen["gc"] is True and seen["frozen"] == 0
    assert seen["cli"] is False  # nothing imports the command's entry


def test_the_check_sees_an_import_that_tunes_the_process() -> None:
    """The same check where something does set a variable, freeze the heap and stop the collector during the
    imports: all three are seen."""
    probe = IMPORT_ALL.replace(
        "for name in names:",
        "os.environ['ELOTUI_PROBE'] = '1'\ngc.freeze()\ngc.disable()\nfor name in names:",
    )
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, cwd=ROOT)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["changed"] == ["ELOTUI_PROBE"] and seen["frozen"] > 0 and seen["gc"] is False
