"""The cyclic garbage collector held off while a run does bulk work: switched off for a while and on again as it
was (`collector_off`: a run's planning, a run's free answers between two turns of the event loop (elotui.run.runner:
then frozen), the TUI's keys in elotui.tui.collector), and kept off a run's large, long-lived structures (the
plan's comparisons and calls, the stored plan's rows, a replay log's index). Those are made with the collector off (a million records and no cycles: its full passes over the growing
heap would cost a third of the planning time) and then frozen (`gc.freeze`), so that the collections the run's
many small allocations trigger do not walk them again and again. At 10^6 verdicts the collector otherwise took 25
of 83 s of an ingest. Frozen objects are still freed by reference counting (the plan's records hold no reference
cycles).

`gc.freeze` freezes every object alive, not only the run's: in the TUI, widgets and tasks whose reference cycles
die later would never be collected. So a run ends by thawing them (`thaw`): by then the plan's records are
freed, so the next full collection walks what the process holds anyway, and the cycles frozen meanwhile are
collected again.

Nothing here runs at import: the process settings of the `elotui` command (the collector off for good in a
one-shot command) are in elotui.cli."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_off() -> Iterator[None]:
    """The collector off for the body, then on again only if it was on before (nested or overlapping uses, in any
    thread, never switch on a collector that another use found off)."""
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


def thaw() -> None:
    """Back to the collector: everything frozen (the end of a run; see the module doc)."""
    gc.unfreeze()
