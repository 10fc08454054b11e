"""The typed seams hold: the session, the records and the diagnose report pass mypy in its strict mode, and the
whole package passes it in the project's own settings (pyproject.toml [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STRICT = ["elotui/session.py", "elotui/records.py", "elotui/commands/diagnose.py"]


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_typed_seams_pass_mypy_strict() -> None:
    out = _mypy("--strict", *STRICT)
    assert out.returncode == 0, out.stdout[-3000:]


def test_the_package_passes_mypy() -> None:
    out = _mypy("elotui")
    assert out.returncode == 0, out.stdout[-3000:]
