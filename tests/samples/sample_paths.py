"""Paths and published figures shared by the sample-tournament tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_tournaments"
DATA = REPO.parent / "shared" / "data"
SAMPLE_NAMES = ("vicuna80", "guanaco", "llmbar", "competency_profiles", "simulated_arena")

# The published win rates of the PRD data (GPT-4 as the only judge; a tie counts half for each side).
PUBLISHED_GPT4_WIN_RATES = {
    "gpt-4": "0.85625",
    "claude": "0.70859375",
    "vicuna-13b": "0.3484375",
    "gpt-3.5": "0.3421875",
    "bard": "0.24453125",
}


def load_build_script() -> ModuleType:
    name = "build_samples_under_test"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / "build_samples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
