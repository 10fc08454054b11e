"""`elotui verdicts T`: write the current plan's verdicts as the canonical verdict log (JSON Lines); an invalid
verdict carries the judge's raw reply as `raw` (`--no-raw` leaves it out); a graded verdict (`[judge_prompt]
scale = "graded"`, or a replay of a log line with one) carries its `strength` (2 strong, 1 clear), which a `replay`
judge's log keeps for `[ranking] strong_weight`. `--judge NAME`: one judge's verdicts; `--judge human`: the human votes cast in the pairs
pane (docs/adjudication.md)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Generator
from contextlib import closing
from typing import TYPE_CHECKING, cast

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    open_tournament,
    output_stream,
)

if TYPE_CHECKING:
    from elotui.store import Store
    from elotui.verdict_log import Verdict


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verdicts", help="write the recorded verdicts as a JSON Lines verdict log")
    add_tournament_arg(p)
    add_output_arg(p)
    add_store_arg(p)
    p.add_argument(
        "--no-raw", action="store_true", help="leave out the raw text of invalid (unparseable) replies"
    )
    p.add_argument(
        "--judge",
        metavar="NAME",
        help="only this judge's verdicts; `human`: the human votes cast in the pairs pane (the voter and time in "
        "`reasoning`), a log `[reference] votes` reads",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.store.human_votes import HUMAN_JUDGE
    from elotui.verdict_log import write_log

    tournament, store = open_tournament(args)
    if args.judge == HUMAN_JUDGE:
        with store, output_stream(args.output) as out:
            write_log([cast("Verdict", v.log_row()) for v in store.human_votes()], out)
        return 0
    # each graded verdict's strength, for a replay and `strong_weight`: on the graded scale, and from the replay
    # judges, which store their logs' strengths
    graded = tournament.spec.judge_prompt.scale == "graded" or any(
        j.provider == "replay" for j in tournament.spec.judges
    )
    rows_of = log_rows(store, raw=not args.no_raw, strength=graded)
    with store, output_stream(args.output) as out, closing(rows_of) as rows:
        # a reader that stops early ends the store's read here, before the store closes
        write_log(rows if args.judge is None else (r for r in rows if r[3] == args.judge), out)
        if store.only_imported():
            print(
                f"elotui: the store holds the imported verdicts' ranking, not yet each verdict: "
                f"`elotui run {args.tournament} --headless` replays them into it (the import's own log is the "
                "replay judges' `path`)",
                file=sys.stderr,
            )
    return 0


def log_rows(store: Store, *, raw: bool = False, strength: bool = False) -> Generator[Verdict, None, None]:
    """Every answered or failed presentation of the current plan, as verdict-log rows (tuples in FIELDS order; with
    `raw`, an invalid reply's raw text after them; with `strength`, then a graded verdict's strength), a batch at a
    time (a 10^6-verdict store's log is written without holding its rows)."""
    return store.each_recorded_verdict(raw=raw, strength=strength)
