"""Diagnostics benchmark (a script, not a test): `python -m tests.benchmarks.bench_diagnose T STORE`, on a
tournament's store (e.g. bench_fastchat's 1M world: `T = <world>/tournament.toml`, `STORE = <world>/store.sqlite`).

Times what the TUI's diagnostics pane computes in its worker (`session.diagnose_report` with 100 Elo orders),
and within it the position-aware Bradley–Terry (each judge's first-slot advantage, 50 prompt-bootstrap rounds)
against the same fit counting its (judge, first, second) cells from scratch in every round, as it did before
stop 51 (the reference kept in tests/rating/test_position_tally.py). Both give the same figures bit for bit;
the benchmark checks that too.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from elotui.config import load_tournament
from elotui.rating import position_bt
from elotui.session import TournamentSession
from elotui.store import Store
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


if __name__ == "__main__":
    main()
