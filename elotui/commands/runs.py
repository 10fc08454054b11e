"""`elotui runs T`: the runs of a tournament's store — state (running, finished, stopped, budget, died when the
process vanished without closing its run, taken over), start and end, calls recorded, cost, elotui version,
host and pid."""

from __future__ import annotations

import argparse
import time

from elotui.commands.common import add_store_arg, add_tournament_arg, open_tournament, table_lines


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("runs", help="list the runs recorded for a tournament")
    add_tournament_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


def _when(ts: float | None) -> str:
    return "—" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def run(args: argparse.Namespace) -> int:
    from elotui.store.runs import run_table

    _, store = open_tournament(args)
    with store:
        rows = run_table(store)
    header = ("run", "state", "started", "ended", "calls", "cost", "elotui", "host", "pid")
    lines = [
        (
            str(r["id"]),
            r["state"],
            _when(r["started_at"]),
            _when(r["finished_at"]),
            str(r["calls"]),
            f"${r['cost']:.4f}",
            r["version"] or "—",
            r["host"] or "—",
            str(r["pid"] or "—"),
        )
        for r in rows
    ]
    for line in table_lines(header, lines, right_from=4):
        print(line)
    if not rows:
        print("no runs recorded yet")
    return 0
