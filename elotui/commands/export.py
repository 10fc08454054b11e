"""`elotui export T`: write the leaderboard (from the store, no judge calls) as CSV or JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    output_stream,
    store_to_read,
)
from elotui.errors import UserError

if TYPE_CHECKING:
    from elotui.rating.leaderboard import Leaderboard
    from elotui.tournament.model import Tournament

THRESHOLD_CHOICES = ("1.0", "0.9", "0.75", "0.5", "none")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("export", help="write the leaderboard as CSV or JSON (recomputed from the store)")
    add_tournament_arg(p)
    p.add_argument("--threshold", choices=THRESHOLD_CHOICES, help="agreement threshold (default: the file's)")
    p.add_argument("--method", choices=("elo", "bt"), help="rating method (default: the file's)")
    p.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default: csv)")
    p.add_argument("--prompt", metavar="ID", help="rank a single prompt")
    p.add_argument("--category", metavar="C", help="rank the prompts of one category")
    p.add_argument(
        "--turn", type=int, metavar="N", help="rank the prompts of one turn (of [data] turn = [1, 2, ...])"
    )
    p.add_argument("--judge", metavar="ID", help="rank one judge's verdicts")
    p.add_argument(
        "--style-control",
        action=argparse.BooleanOptionalAction,
        help="Bradley–Terry with length and markdown covariates (as [ranking] style_control = "
        '["length", "markdown"]; implies --method bt); --no-style-control: the raw ranking of a file that sets it',
    )
    add_output_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.export.ranking import write_csv, write_json
    from elotui.runtime.heap import collector_off

    # the ranking made with the collector off (10^6 prompts: millions of objects without cycles, which its passes
    # would walk again and again: seconds); the file written with the caller's collector as it was
    with collector_off():
        tournament, board, provenance = _ranked(args)
    with output_stream(args.output) as out:
        if args.format == "json":
            write_json(board, out, tournament=tournament.name, provenance=provenance)
        else:
            write_csv(board, out)
    return 0


def _ranked(args: argparse.Namespace) -> tuple[Tournament, Leaderboard, dict[str, Any] | None]:
    from elotui.tournament.model import load_tournament

    if args.style_control and args.method not in (None, "bt"):
        raise UserError(
            f"--style-control ranks with Bradley–Terry: it cannot rank with --method {args.method} "
            "(leave --method out, or drop --style-control)"
        )
    tournament = load_tournament(args.tournament)
    # Elo (or online Elo): its kernels, compiled while the store loads where this machine has not compiled them yet
    if (args.method or tournament.spec.ranking.method) != "bt":
        from elotui.rating.native import warm_kernels

        warm_kernels()
    store = store_to_read(tournament, args.store)
    try:
        from elotui.session import TournamentSession

        session = TournamentSession(tournament, store)
        if args.style_control and not session.options.style_control:
            session.control_style(("length", "markdown"))
        elif args.style_control is False:
            session.options = session.options.replace(style_control=())
        board = session.leaderboard(
            threshold=args.threshold,
            method="bt" if args.style_control else args.method,
            prompt=args.prompt,
            category=args.category,
            judge=args.judge,
            once=True,
            drop_to_flip=args.format == "json",
            turn=args.turn,
        )
        provenance = session.provenance() if args.format == "json" else None
    finally:
        store.close()
    return tournament, board, provenance
