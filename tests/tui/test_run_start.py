"""A run in the TUI starts after the first leaderboard is shown (or after a bound), its runner made off the loop."""

from __future__ import annotations

import threading
import time

from elotui.tui.run_monitor import runner_after_first_board


async def test_the_runner_is_made_in_a_thread_once_the_board_is_shown() -> None:
    polls: list[float] = []
    made: list[int] = []
    started = time.monotonic()

    def shown() -> bool:
        polls.append(time.monotonic() - started)
        return len(polls) > 5  # shown at the sixth look

    def make() -> object:
        made.append(threading.get_ident())
        return "runner"

    assert await runner_after_first_board(shown, make, wait_s=5.0) == "runner"  # type: ignore[comparison-overlap]
    assert len(polls) == 6 and made and made[0] != threading.get_ident()


async def test_a_board_never_shown_delays_the_run_by_the_bound_only() -> None:
    started = time.monotonic()
    await runner_after_first_board(lambda: False, lambda: None, wait_s=0.2)  # type: ignore[arg-type,return-value]
    assert 0.15 <= time.monotonic() - started < 2.0
