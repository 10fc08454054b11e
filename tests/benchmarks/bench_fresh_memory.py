"""What fresh memory costs a new process on this machine, and why the other benchmarks' figures vary between runs.

Run as `python -m tests.benchmarks.bench_fresh_memory [--mib 256] [--runs 3] [--pause 5]` from the repository root.

A process that touches memory it has not touched before (a numpy array, say) takes it from the operating system a
page at a time. On a virtual machine whose balloon driver reports free pages to the host (virtio-balloon free page
reporting, as on the machines elotui was developed on), memory that processes freed goes back to the host a few seconds
later, and the next process that takes it waits for the host to supply it again. So the same command is fast
right after a process freed as much memory, and slow after a pause. This benchmark measures both in fresh child
processes: each child times its first touch of `--mib` MiB; "warm" children run right after one that freed as
much, "cold" ones after `--pause` seconds; in transparent huge pages (numpy's default advice on Linux) and in
small pages (NUMPY_MADVISE_HUGEPAGE=0, which a user can set for the `elotui` command; it mattered at 10^7 only). It
prints the medians, the ratios, and what the machine says about its balloon driver. elotui's exports touch
~250 MB at 10^6 verdicts and ~1.3 GB at 10^7.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHILD = (
    "import sys, time, numpy as np\n"
    "t = time.perf_counter(); a = np.ones(int(sys.argv[1]) << 17); print(time.perf_counter() - t)\n"
)


def touch(mib: int, huge: bool) -> float:
    """Seconds a new process takes to touch `mib` MiB of fresh memory (an array of ones), numpy advising huge
    pages or not."""
    env = {**os.environ, "NUMPY_MADVISE_HUGEPAGE": "1" if huge else "0"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(mib)], check=True, capture_output=True, text=True, env=env
    )
    return float(done.stdout)


def balloon() -> str:
    """What the machine says about free page reporting (Linux), or that it says nothing."""
    reported = Path("/sys/module/page_reporting/parameters/reported_kib")
    if reported.exists():
        return f"free page reporting on: {int(reported.read_text()) / 2**20:,.1f} GiB reported to the host so far"
    return "no free page reporting seen (/sys/module/page_reporting)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pause", type=float, default=5.0)
    args = parser.parse_args()
    print(balloon())
    print(f"{args.mib} MiB of fresh memory in a new process, median of {args.runs}:")
    for huge in (True, False):
        warm, cold = [], []
        for _ in range(args.runs):
            time.sleep(args.pause)
            cold.append(touch(args.mib, huge))
            touch(args.mib, huge)  # frees as much as the next one takes
            warm.append(touch(args.mib, huge))
        w, c = statistics.median(warm), statistics.median(cold)
        pages = "huge pages " if huge else "small pages"
        print(
            f"  {pages}: right after a process freed as much {w:.3f} s ({w / args.mib * 1e3:.2f} ms a MiB); "
            f"after a {args.pause:g} s pause {c:.3f} s ({c / args.mib * 1e3:.2f} ms a MiB, {c / w:.1f}x)"
        )


if __name__ == "__main__":
    main()
