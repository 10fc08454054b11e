"""Fixtures for the sample-tournament tests."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.samples.sample_paths import DATA, load_build_script


@pytest.fixture(scope="session")
def build_script() -> ModuleType:
    return load_build_script()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not (DATA / "prd_vicuna80" / "judgments.jsonl.gz").exists():
        pytest.skip(f"the shared source data is not at {DATA}")
    return DATA
