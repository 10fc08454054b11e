"""`elotui export T`: write the leaderboard (from the store, no judge calls) as CSV or JSON."""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from elotui.commands.common import add_output_arg, add_store_arg, add_tournament_arg, output_stream
from elotui.records import TallyRow

if TYPE_CHECKING:
    from elotui.store import Store

THRESHOLD_CHOICES = ("1.0", "0.9", "0.75", "0.5", "none")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="write the leaderboard as CSV or JSON (recomputed from the store)")
    add_tournament_arg(p)
    p.add_argument("--threshold", choices=THRESHOLD_CHOICES, help="agreement threshold (default: the file's)")
    p.add_argument("--method", choices=("elo", "bt"), help="rating method (default: the file's)")
    p.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default: csv)")
    p.add_argument("--prompt", metavar="ID", help="rank a single prompt")
    p.add_argument("--category", metavar="C", help="rank the prompts of one category")
    p.add_argument("--judge", metavar="ID", help="rank one judge's verdicts")
    add_output_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


class EarlyTally:
    """`store.verdict_tally(scope)` on a thread of its own, started before the tournament file, pydantic and
    numpy are loaded: SQLite releases the GIL while it reads, so on a second core the store is read while the
    rest starts up (`elotui export --threshold none` spends about as long in each). Nothing is cached: the
    counts are read from the store on every invocation, and used only for the run that started the read."""

    def __init__(self, store: Store, scope: list[str] | None) -> None:
        self.scope = scope
        self._result: list[TallyRow] | None = None
        self._error: Exception | None = None
        self._thread = threading.Thread(target=self._read, args=(store,), name="elotui-tally", daemon=True)
        self._thread.start()

    def _read(self, store: Store) -> None:
        try:
            self._result = store.verdict_tally(self.scope)
        except Exception as exc:  # noqa: BLE001  (re-raised in the caller's thread by result())
            self._error = exc

    def result(self) -> list[TallyRow]:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


def run(args: argparse.Namespace) -> int:
    # numpy is imported below, on first use. OpenBLAS would start a thread per core at import, which costs this
    # one-shot command ~50 ms of CPU and competes with the store read; the rankings' linear algebra is small.
    # (A value the user set is kept.)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from elotui.store import Store

    store: Store | None = None
    early: EarlyTally | None = None
    plain = args.category is None and args.judge is None
    if args.store and args.threshold == "none" and plain and Path(args.store).is_file():
        store = Store(args.store)
        early = EarlyTally(store, [args.prompt] if args.prompt is not None else None)
    try:
        from elotui.config import load_tournament

        tournament = load_tournament(args.tournament)
        if store is None:
            store = Store.open_for(tournament, args.store)
        from elotui.export.ranking import write_csv, write_json
        from elotui.session import TournamentSession

        if early is not None:  # compile the Elo kernel while the store is still being read
            from elotui.rating.elo import jit_kernels

            jit_kernels()
        session = TournamentSession(tournament, store)
        board = session.leaderboard(
            threshold=args.threshold,
            method=args.method,
            prompt=args.prompt,
            category=args.category,
            judge=args.judge,
            tally=early.result() if early is not None else None,
        )
        provenance = session.provenance() if args.format == "json" else None
    finally:
        if store is not None:
            store.close()  # waits for a read still running (the store's lock)
    with output_stream(args.output) as out:
        if args.format == "json":
            write_json(board, out, tournament=tournament.name, provenance=provenance)
        else:
            write_csv(board, out)
    return 0
