"""The judges panel's totals (a join of the plan and the calls: ~1-2 s at 10^6 verdicts) are read on a connection of
their own, so a run's writes do not wait for them, and the TUI reads them again only after resting four times as
long as the last read took (a 10^6-verdict run in the TUI: 65.5 / 72.9 / 69.8 s before, 53.3 / 45.2 / 56.4 s after)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from elotui.session import TournamentSession
from tests.tui.crafted import crafted


def test_judge_stats_are_read_while_another_thread_holds_the_stores_connection(tmp_path: Path) -> None:
    tournament, store = crafted(tmp_path)
    with store:
        session = TournamentSession(tournament, store)
        expected = store.judge_stats()
        held, release, got = threading.Event(), threading.Event(), list[object]()

        def writer() -> None:  # a run's write: the store's lock, for as long as it takes
            with store._lock:
                held.set()
                release.wait(30.0)

        holder = threading.Thread(target=writer)
        holder.start()
        try:
            held.wait(5.0)
            reader = threading.Thread(target=lambda: got.append(session.judge_stats()))
            reader.start()
            reader.join(
                10.0
            )  # a bound against a hang: on the store's own connection it waited for the writer
            assert got == [expected] and expected
        finally:
            release.set()
            holder.join()


def test_the_reads_rest_in_proportion_to_their_cost(tmp_path: Path) -> None:
    tournament, store = crafted(tmp_path)
    with store:
        session = TournamentSession(tournament, store)
        assert session.judge_stats_rested(4.0)  # nothing read yet
        session.judge_stats()
        assert session.judge_stats_rested(0.0)
        session._stats_read = (1.0, time.monotonic())  # a read of 1 s just ended
        assert not session.judge_stats_rested(4.0) and session.judge_stats_rested(0.0)
        session._stats_read = (0.001, time.monotonic() - 1.0)  # a read of 1 ms, a second ago
        assert session.judge_stats_rested(4.0)
        session._stats_read = None  # a read is going on
        assert not session.judge_stats_rested(0.0)
