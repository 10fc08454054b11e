"""Diagnostics benchmark (a script, not a test): `python -m tests.benchmarks.bench_diagnose T STORE`, on a
tournament's store (e.g. bench_fastchat's 1M world: `T = <world>/tournament.toml`, `STORE = <world>/store.sqlite`).

Times what the TUI's diagnostics pane computes in its worker (`session.diagnose_report` with 100 Elo orders),
and within it the position-aware Bradley–Terry (each judge's first-slot advantage, 50 prompt-bootstrap rounds)
against the same fit counting its (judge, first, second) cells from scratch in every round, as it did before it
kept its cells (the reference kept in tests/rating/test_position_tally.py). Both give the same figures bit for bit;
the benchmark checks that too.

Then, under Textual's Pilot (the real app, 160 x 45): `d` until the diagnostics are shown, and the event loop's
longest stall meanwhile (how late a 20 ms timer fired), with the head-to-head grid shown as one laid-out Text
against the same grid shown as the Rich table it is laid out from, alternately. (That table already has its
column widths given; before, Rich also measured each of its cells.)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from elotui.rating import position_bt
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.tournament.model import load_tournament
from elotui.tui.launch import make_app
from elotui.tui.widgets import charts
from tests.rating.test_position_tally import reference


def main(runs: int = 3) -> None:
    tournament = load_tournament(sys.argv[1])
    with Store(sys.argv[2]) as store:
        session = TournamentSession(tournament, store)
        table = session.plan_table()
        inputs = session.diagnose_inputs()
        session.diagnose_report(table, method="elo", max_permutations=100, inputs=inputs)  # imports, caches
        print(f"{len(table):,} verdicts, {len(tournament.contestant_ids)} contestants")
        ours, theirs, reports = [], [], []
        counted = position_bt.tally
        for _ in range(runs):
            for mine in (True, False):
                if not mine:
                    position_bt.tally = lambda g, weights=None, c=None: reference(g, weights)  # type: ignore[assignment]
                start = time.perf_counter()
                reports.append(position_bt.first_slot_advantage(table))
                (ours if mine else theirs).append(time.perf_counter() - start)
                position_bt.tally = counted
        assert all(r == reports[0] for r in reports), "the advantages differ"
        a, b = statistics.median(ours), statistics.median(theirs)
        print(
            f"first-slot advantages, 50 rounds: {a:.2f} s median of {runs} (cells counted from scratch each round: {b:.2f} s, {b / a:.1f}x; the same figures)"
        )
        whole = []
        for _ in range(runs):
            start = time.perf_counter()
            session.diagnose_report(table, method="elo", max_permutations=100, inputs=inputs)
            whole.append(time.perf_counter() - start)
        print(
            f"the diagnostics pane's report: {statistics.median(whole):.2f} s median of {runs} ({', '.join(f'{w:.2f}' for w in whole)})"
        )

        for _ in range(2):
            for as_text in (True, False):
                shown, stall = asyncio.run(pane(tournament, store, as_text))
                what = "one laid-out Text" if as_text else "the Rich table (reference)"
                print(
                    f"diagnostics pane, the grid as {what}: d -> shown {shown:.2f} s, longest stall {stall:.2f} s"
                )


async def pane(tournament, store, as_text: bool) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    laid_out = charts.laid_out
    charts.laid_out = laid_out if as_text else (lambda table: table)  # type: ignore[assignment,return-value]
    app = make_app(tournament, store, start_run=False)
    worst = 0.0

    async def ticker() -> None:
        nonlocal worst
        while True:
            start = time.perf_counter()
            await asyncio.sleep(0.02)
            worst = max(worst, time.perf_counter() - start - 0.02)

    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            task = asyncio.create_task(ticker())
            await asyncio.sleep(0.5)
            worst = 0.0
            start = time.perf_counter()
            await pilot.press("d")
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown = time.perf_counter() - start
            await asyncio.sleep(1.0)  # the grid's layout and paint
            task.cancel()
            return shown, worst
    finally:
        charts.laid_out = laid_out


if __name__ == "__main__":
    main()
