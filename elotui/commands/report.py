"""`elotui report T`: the tournament as one self-contained HTML file (`-o`), and its charts as PNG and SVG files
(`--plots DIR`, with matplotlib: `pip install 'elotui[report]'`). Read from the store; no judge calls."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from elotui.commands.common import add_store_arg, add_tournament_arg, open_tournament, output_stream
from elotui.commands.export import THRESHOLD_CHOICES
from elotui.errors import UserError
from elotui.runtime.heap import collector_off

if TYPE_CHECKING:
    from elotui.tournament.model import Tournament

# above this many pairs, each verdict's reasoning is cut (the page says so) unless --max-reasoning says otherwise
LARGE_PAIRS = 10_000
LARGE_REASONING = 1_000


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "report",
        help="write a self-contained HTML report (leaderboards, judges, pairs) and, with --plots, PNG and SVG charts",
    )
    add_tournament_arg(p)
    p.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="the HTML file ('-' = stdout; default: <tournament name>-report.html, unless only --plots is given)",
    )
    p.add_argument("--plots", metavar="DIR", help="also write the charts as PNG and SVG files into DIR")
    p.add_argument(
        "--threshold", choices=THRESHOLD_CHOICES, help="the threshold shown first (default: the file's)"
    )
    p.add_argument("--method", choices=("elo", "bt"), help="the method shown first (default: the file's)")
    p.add_argument(
        "--max-reasoning",
        metavar="N",
        type=int,
        help=f"cut each verdict's reasoning at N characters (default: uncut; {LARGE_REASONING} above "
        f"{LARGE_PAIRS:,} pairs)",
    )
    p.add_argument(
        "--max-pairs",
        metavar="N",
        type=int,
        help="keep at most N pairs in the page, the contested first (default: 20,000; the rankings and charts "
        "cover every pair)",
    )
    p.add_argument("--prompt", metavar="ID", help="rank a single prompt (the leaderboards only)")
    p.add_argument("--category", metavar="C", help="rank the prompts of one category (the leaderboards only)")
    p.add_argument("--judge", metavar="ID", help="rank one judge's verdicts (the leaderboards only)")
    p.add_argument(
        "--turn",
        type=int,
        metavar="N",
        help="rank the prompts of one turn (of [data] turn = [1, 2, ...]; the leaderboards only)",
    )
    add_store_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    with collector_off():  # a one-shot command: no garbage cycles worth collecting (elotui.runtime.heap)
        return _report(args)


def _report(args: argparse.Namespace) -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    for flag, value in (("--max-reasoning", args.max_reasoning), ("--max-pairs", args.max_pairs)):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be at least 1, not {value}")
    if args.plots is not None:
        from elotui.report.plots import require_matplotlib

        require_matplotlib()
    from elotui.report.document import MAX_PAIRS, report_document
    from elotui.session import TournamentSession

    tournament, store = open_tournament(args)
    try:
        turn = None if args.turn is None else str(args.turn)
        scope = {"prompt": args.prompt, "category": args.category, "judge": args.judge, "turn": turn}
        doc = report_document(
            TournamentSession(tournament, store),
            reasoning_limit=_reasoning_limit(args.max_reasoning, tournament),
            scope=scope,
            max_pairs=args.max_pairs or MAX_PAIRS,
        )
    finally:
        store.close()
    if args.threshold or args.method:
        doc["meta"]["threshold"] = args.threshold or doc["meta"]["threshold"]
        doc["meta"]["method"] = args.method or doc["meta"]["method"]
    output = args.output
    if output is None and args.plots is None:
        output = f"{tournament.slug}-report.html"
    if output is not None:
        _write_html(doc, output)
    if args.plots is not None:
        from elotui.report.plots import write_plots

        written = write_plots(doc, Path(args.plots))
        print(f"wrote {len(written)} chart files to {args.plots}", file=sys.stderr)
    return 0


def _reasoning_limit(given: int | None, tournament: Tournament) -> int | None:
    """`--max-reasoning`, else LARGE_REASONING for a tournament of more than LARGE_PAIRS pairs (None: uncut)."""
    if given is not None:
        return given
    pairs = len(tournament.prompt_ids) * len(tournament.contestant_ids) ** 2 // 2
    return LARGE_REASONING if pairs > LARGE_PAIRS else None


def _write_html(doc: dict, output: str) -> None:  # type: ignore[type-arg]
    from elotui.report.page import write_page

    with output_stream(output) as out:
        write_page(doc, out)
    if output != "-":
        size = Path(output).stat().st_size
        kept, every = doc["meta"]["pairs"]["kept"], doc["meta"]["pairs"]["all"]
        pairs = (
            f"{kept:,} of {every:,} pairs, the contested first (--max-pairs)"
            if kept < every
            else f"{kept:,} pairs"
        )
        verdicts = sum(len(v) for v in doc["verdicts"].values())
        print(f"wrote {output} ({size / 1e6:.1f} MB: {pairs}, {verdicts:,} verdicts)", file=sys.stderr)
