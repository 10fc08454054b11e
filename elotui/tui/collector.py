"""The cyclic garbage collector held off while the new view a key asked for is drawn, as Textual holds it off
during smooth scrolling (`App.PAUSE_GC_ON_SCROLL`).

A full collection walks every object the app holds. With a 10^6-verdict store that is ~130,000 objects spread over
a heap of ~1 GB: ~85 ms. Falling inside a key's handling (about one key in ten to thirty), it made that key's
redraw take ~100-150 ms instead of ~30. Held off, the collection comes just after the screen has been written
(at the first allocation once the collector is back on), while the user reads the new view.

The collector is switched back on once every hold is over, and only if it was on at the first (as
`elotui.runtime.heap.collector_off` does for a run's planning): a planning thread that switched it off first keeps it
off.
"""

from __future__ import annotations

from contextlib import ExitStack

from textual.message_pump import MessagePump

from elotui.runtime.heap import collector_off


class CollectorHold:
    """Holds of the collector: it is off (`collector_off`) from the first hold until every hold is over."""

    def __init__(self) -> None:
        self._holds = 0
        self._off = ExitStack()

    def until_refreshed(self, pump: MessagePump) -> None:
        """Hold the collector off until the screen has been refreshed (`call_after_refresh`)."""
        if self._holds == 0:
            self._off.enter_context(collector_off())
        self._holds += 1
        if not pump.call_after_refresh(self._release):
            self._release()  # the app is closing: no refresh will come

    def _release(self) -> None:
        self._holds -= 1
        if self._holds == 0:
            self._off.close()


COLLECTOR = CollectorHold()  # the collector is the process's: one hold for every app in it
