"""`elotui export T`: write the leaderboard (from the store, no judge calls) as CSV or JSON."""

from __future__ import annotations

import argparse

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    open_tournament,
    output_stream,
)
from elotui.export.ranking import leaderboard_for, write_csv, write_json

THRESHOLD_CHOICES = ("1.0", "0.9", "0.75", "0.5", "none")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="write the leaderboard as CSV or JSON (recomputed from the store)")
    add_tournament_arg(p)
    p.add_argument("--threshold", choices=THRESHOLD_CHOICES, help="agreement threshold (default: the file's)")
    p.add_argument("--method", choices=("elo", "bt"), help="rating method (default: the file's)")
    p.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default: csv)")
    p.add_argument("--prompt", metavar="ID", help="rank a single prompt")
    add_output_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    tournament, store = open_tournament(args)
    with store:
        board = leaderboard_for(tournament, store, threshold=args.threshold, method=args.method, prompt=args.prompt)
    with output_stream(args.output) as out:
        if args.format == "json":
            write_json(board, out, tournament=tournament.name)
        else:
            write_csv(board, out)
    return 0
