"""Stopping long work in a thread at its next checkpoint.

A run prepares in a thread while the event loop (the TUI, the headless progress line) goes on: at 10^6 verdicts it
plans for ~10 s, stores the plan for ~3 s and reads a replay log for ~3 s. A thread cannot be interrupted from
outside, so Ctrl-C or quit used to wait for all of it (11-17 s at 10^6 verdicts) before the process could end. Now
the long loops call `checkpoint()` every few thousand items; `to_thread` runs the work with a stop event that its
checkpoints watch, set when the awaiting task is cancelled (Ctrl-C) or by whoever holds the event (a run stopped
from the TUI). A checkpoint that finds it set raises `Stopped`: what the work had begun is undone the way any error
undoes it (a plan half-written is rolled back), and the work ends within milliseconds.

The event travels in a context variable, which `to_thread` sets in the copy of the caller's context the thread
runs in: code that is not run through `to_thread` (a one-shot command, a test) never stops at a checkpoint."""

from __future__ import annotations

import contextvars
import functools
import threading
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")
EVERY = 4096  # items between two checkpoints in a loop (~10-40 ms of work at most, ~0.1 us a check)


class Stopped(Exception):
    """The work was stopped at a checkpoint: the run it served was stopped meanwhile."""


_STOP: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("elotui_stop", default=None)


def checkpoint() -> None:
    """Raise `Stopped` if the work running in this context was asked to stop."""
    stop = _STOP.get()
    if stop is not None and stop.is_set():
        raise Stopped


async def to_thread(func: Callable[..., _T], /, *args: object, stop: threading.Event | None = None) -> _T:
    """`asyncio.to_thread(func, *args)` whose checkpoints watch `stop` (a new event if none is given), which is set
    when the awaiting task is cancelled: the thread then ends at its next checkpoint instead of running to its end
    while the process waits for it."""
    import asyncio  # here: the one-shot commands (`elotui export`) use checkpoints, never asyncio

    event = stop if stop is not None else threading.Event()
    context = contextvars.copy_context()
    context.run(_STOP.set, event)
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, functools.partial(context.run, func, *args))
    except asyncio.CancelledError:
        event.set()
        raise
