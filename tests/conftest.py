"""Suite-wide set-up: every test runs with its own ELOTUI_HOME, so no test touches the user's directories."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The tests run elotui in this process, as a library: they set the one process setting the `elotui` command sets
# (elotui.cli.one_blas_thread), before numpy is imported, so that small fits do not start a BLAS pool per core.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

# Shared fixtures (loopback provider servers) are plugins, loaded when present.
pytest_plugins = [m for m in ("tests.servers.fixtures",) if (ROOT / (m.replace(".", "/") + ".py")).exists()]


@pytest.fixture(autouse=True)
def _elotui_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("elotui-home")
    monkeypatch.setenv("ELOTUI_HOME", str(home))
    monkeypatch.setenv("ELOTUI_VOTER", "reviewer")  # the human votes' voter: the same on every machine
    return home


@pytest.fixture
def merges(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders whose data files were merged from the files themselves (not read from the data cache)."""
    from elotui.tournament import data_cache

    made: list[Path] = []
    real = data_cache.merge_data_files

    def counted(data: dict[str, object], base_dir: Path) -> object:
        made.append(base_dir)
        return real(data, base_dir)  # type: ignore[arg-type]

    monkeypatch.setattr(data_cache, "merge_data_files", counted)
    return made


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many rows each decoding of a plain prompts file's rows gave."""
    from elotui.tournament import plain_prompts

    made: list[int] = []
    real = plain_prompts.decode_rows

    def counted(text: bytes, keys: object) -> list[object]:
        rows = real(text, keys)  # type: ignore[arg-type]
        made.append(len(rows))
        return rows

    monkeypatch.setattr(plain_prompts, "decode_rows", counted)
    return made
