"""Contracts of the project itself: the core runs without Textual, CI runs the README's test command,
the installed package carries the themes."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CORE_IMPORTS = r"""
import importlib, pkgutil, sys
import elotui
names = sorted(m.name for m in pkgutil.walk_packages(elotui.__path__, "elotui.")
               if not m.name.startswith("elotui.tui"))
for name in names:
    importlib.import_module(name)
    if "textual" in sys.modules:
        print("LEAK", name)
        sys.exit(1)
print("OK", len(names))
"""


def test_core_modules_do_not_import_textual() -> None:
    out = subprocess.run(
        [sys.executable, "-c", CORE_IMPORTS], check=False, capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("OK")


def _pytest_command(text: str) -> str:
    match = re.search(r"python -m pytest[^\n`]*", text)
    assert match, "no pytest invocation found"
    return match.group(0).strip()


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert _pytest_command(ci) == _pytest_command(readme)
    assert '"$rc" -eq 5' in ci, ".ci/run must handle pytest's exit code 5"


def test_version_flag() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "elotui.cli", "--version"], check=False, capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout == f"elotui {_project_version()}\n"


def _project_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def test_one_version_everywhere() -> None:
    """pyproject.toml, the installed package's metadata (which `--version` and the JSON export's provenance read
    through elotui.__version__) and the changelog's latest entry name the same release."""
    import elotui

    version = _project_version()
    assert version == "0.3.2"
    assert elotui.__version__ == version, "reinstall (pip install -e .) after changing the version"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    latest = re.search(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", changelog, flags=re.MULTILINE)
    assert latest and latest.group(1) == version, "CHANGELOG.md's first entry is not this version"


def test_wheel_contains_the_bundled_themes(tmp_path: Path) -> None:
    """A non-editable install must carry themes/: build the wheel and look inside."""
    pytest.importorskip("hatchling")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    wheel = next(tmp_path.glob("elotui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    bundled = sorted(Path(n).name for n in names if n.startswith("elotui/_themes/"))
    shipped = sorted(p.name for p in (ROOT / "themes").iterdir() if p.is_file())
    assert shipped and bundled == shipped
    assert "elotui/py.typed" in names
    for data in (
        "elotui/plan/templates/system.txt",
        "elotui/plan/templates/user.txt",
        "elotui/tui/elotui.tcss",
    ):
        assert data in names, f"{data} missing from the wheel"


def test_the_elotui_command_pins_blas_to_one_thread_unless_the_user_chose() -> None:
    import os
    import subprocess
    import sys

    code = (
        "import os, sys\nfrom elotui import cli\nsys.argv = ['elotui', '--version']\ntry:\n    cli.entry()\n"
        "except SystemExit:\n    pass\nprint(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split()[-2:] == ["1", "1"]
    env["OPENBLAS_NUM_THREADS"] = "3"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert out.split()[-2] == "3"
