"""A one-shot command's process keeps the memory it frees for its next arrays (elotui.heap.keep_freed_memory)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CODE = """
import resource, sys
import numpy as np
from elotui import heap
if sys.argv[1] == "keep":
    heap.keep_freed_memory()
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
out = []
for _ in range(2):
    before = faults()
    block = np.ones(20 << 20, dtype=np.uint8)  # 20 MiB, written: every page touched
    out.append(faults() - before)
    del block
print(*out)
"""


def _faults(mode: str) -> list[int]:
    run = subprocess.run([sys.executable, "-c", CODE, mode], check=True, capture_output=True, text=True)
    return [int(x) for x in run.stdout.split()]


@pytest.mark.skipif(
    not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names, reason="glibc only"
)
def test_a_block_freed_is_reused_without_faulting_its_pages_in_again() -> None:
    # (with glibc's defaults, here, the second block faults its pages in again: [523, 518])
    first, second = _faults("keep")
    assert first > 100 and second < first // 10, (first, second)
