"""A one-shot command's process keeps the memory it frees for its next arrays (elotui.heap.keep_freed_memory); every
`elotui` process takes its arrays' fresh memory in small pages (elotui.heap.small_pages_for_arrays)."""

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
    block = np.ones(int(sys.argv[2]) << 20, dtype=np.uint8)  # written: every page touched
    out.append(faults() - before)
    del block
print(*out)
"""


def _faults(mode: str, mib: int) -> list[int]:
    run = subprocess.run(
        [sys.executable, "-c", CODE, mode, str(mib)], check=True, capture_output=True, text=True
    )
    return [int(x) for x in run.stdout.split()]


@pytest.mark.skipif(
    not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names, reason="glibc only"
)
@pytest.mark.parametrize("mib", [20, 80])
def test_a_block_freed_is_reused_without_faulting_its_pages_in_again(mib: int) -> None:
    # (with glibc's defaults, here, the second block faults its pages in again: [523, 518] for 20 MiB; above
    # 32 MiB, glibc maps each block on its own unless mapping is off: [553, 552] for 80 MiB before that)
    first, second = _faults("keep", mib)
    assert first > 100 and second < first // 10, (first, second)


PAGES = """
import os, sys
import elotui.cli
sys.argv = ["elotui", "--version"]
try:
    elotui.cli.entry()
except SystemExit:
    pass
try:
    from numpy._core import multiarray
except ImportError:  # numpy 1.x
    from numpy.core import multiarray
print(os.environ.get("NUMPY_MADVISE_HUGEPAGE"), multiarray._set_madvise_hugepage(True), file=sys.stderr)
"""


@pytest.mark.parametrize(("given", "expected"), [(None, "0 False"), ("1", "1 True")])
def test_an_elotui_process_takes_its_arrays_memory_in_small_pages(given: str | None, expected: str) -> None:
    # On a VM that hands freed memory back to the host, a fresh huge page is ~10x dearer than small ones
    # (tests/benchmarks/bench_fresh_memory.py): the `elotui` process has numpy advise none, before numpy is
    # imported, unless the environment says otherwise. _set_madvise_hugepage returns the setting numpy had.
    env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
    if given is not None:
        env["NUMPY_MADVISE_HUGEPAGE"] = given
    run = subprocess.run([sys.executable, "-c", PAGES], check=True, capture_output=True, text=True, env=env)
    assert run.stderr.strip().splitlines()[-1] == expected
