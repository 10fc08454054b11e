"""The process's cyclic garbage collector: switched off for a while and on again as it was (`collector_off`: a
one-shot command's body, a run's planning, a run's free answers between two turns of the event loop
(elotui.run.runner: then frozen), the TUI's keys in elotui.tui.collector; in the `elotui` process, off
for good in a one-shot command and everything frozen before exit: `one_shot_process`, `before_exit`), and kept
off a run's large, long-lived structures (the plan's comparisons and calls, the stored plan's rows, a replay log's
index). Those are made with the collector off (a million records and no cycles: its full passes over the growing
heap would cost a third of the planning time) and then frozen (`gc.freeze`), so that the collections the run's
many small allocations trigger do not walk them again and again. At 10^6 verdicts the collector otherwise took 25
of 83 s of an ingest. Frozen objects are still freed by reference counting (the plan's records hold no reference
cycles).

`gc.freeze` freezes every object alive, not only the run's: in the TUI, widgets and tasks whose reference cycles
die later would never be collected. So a run ends by thawing them (`thaw`): by then the plan's records are
freed, so the next full collection walks what the process holds anyway, and the cycles frozen meanwhile are
collected again.

A one-shot command's process also keeps the memory it frees for its next arrays (`keep_freed_memory`), and every
`elotui` process takes its arrays' fresh memory in small pages (`small_pages_for_arrays`)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """The collector off for the body, then on again only if it was on before (nested or overlapping uses, in any
    thread, never switch on a collector that another use found off). Also the body of a one-shot command
    (`elotui export`, `validate`): such a command makes no garbage cycles worth collecting, while its imports,
    file parsing and validation allocate enough objects to trigger full collections over everything loaded
    (~25 % of loading a 10^4-response tournament, ~0.1-0.2 s of a 10^6-verdict export)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def long_lived() -> Iterator[None]:
    """Run the body with the collector off, then freeze everything allocated so far."""
    with collector_off():
        try:
            yield
        finally:
            gc.freeze()


def one_shot_process() -> None:
    """In the process of a one-shot command whose body runs with the collector off anyway (`elotui export`,
    `validate`): the collector off from the start, its imports included, and never switched on again (switching it
    on at the end of the body would make the next allocation walk every object the command made, in one young
    generation: ~0.05 s of a 10^6-verdict export); and the memory it frees kept for its next arrays
    (`keep_freed_memory`)."""
    gc.disable()
    keep_freed_memory()


def small_pages_for_arrays() -> None:
    """Before numpy is imported: its large arrays not advised into transparent huge pages (NUMPY_MADVISE_HUGEPAGE=0,
    unless the environment says otherwise; child processes inherit it). On a virtual machine whose balloon driver
    hands freed memory back to the host (free page reporting, in 2 MiB blocks), a fresh huge page waits for the
    host to supply it again: ~5 ms a MiB a few seconds after other processes freed it, against ~0.5 ms a MiB in
    small pages, which the host has not taken back (tests/benchmarks/bench_fresh_memory.py: 256 MiB, 1.6 s against
    0.1 s). A 10^7-verdict `export --method bt` touches ~1.3 GB: 7.0 s in huge pages after a pause, 2.4 s in small
    ones. Where huge pages are warm they fault in faster: ~3 % of a 10^6-verdict Elo export run back to back."""
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")


def keep_freed_memory() -> None:
    """With glibc: every block from the heap, however large (no block mapped on its own), and the heap never given
    back, so that memory a short process frees is reused by its next arrays instead of going back to the system
    and being faulted in again page by page (where a fresh page is dear: up to ~35 us on a nested VM). Raising
    `M_MMAP_THRESHOLD` alone takes blocks of up to 32 MiB from the heap (the most it allows): a 10^6-verdict Elo
    export then takes 35k page faults instead of 40k, with the same peak memory. A 10^7-verdict one makes arrays of
    40-80 MB, which glibc would still map and unmap one by one: with mapping off, 259k page faults instead of 428k,
    7.52 s against 7.87 s (median of 6, interleaved) and 20 MiB more at its peak (982 against 962 MiB);
    `--method bt` 1.65-2.53 s against 2.88-3.34 s. A request the heap cannot grow for is still mapped (glibc falls
    back). The process ends soon, which gives it all back. Elsewhere (another C library): nothing."""
    import ctypes

    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError):  # no such name here, no C library symbols, no mallopt
        return
    mallopt(_M_MMAP_MAX, 0)  # no block mapped on its own: all from the heap
    mallopt(_M_MMAP_THRESHOLD, 32 << 20)  # (moot with mapping off; kept for a libc that ignores M_MMAP_MAX)
    mallopt(_M_TRIM_THRESHOLD, (1 << 31) - 1)  # mallopt takes an int


_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_MMAP_MAX = -1, -3, -4  # glibc's malloc.h


def before_exit() -> None:
    """The process is about to end: everything alive frozen, so that the interpreter's last collection at exit
    (made even with the collector off) does not walk it (~0.05-0.1 s of a 10^6-verdict export). Nothing is lost:
    every file elotui writes is closed by its writer before this, the standard streams are flushed at exit as
    always, and the memory goes back with the process."""
    gc.freeze()


def thaw() -> None:
    """Back to the collector: everything frozen (the end of a run; see the module doc)."""
    gc.unfreeze()
