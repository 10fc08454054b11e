"""`elotui run T`: run a tournament — live in the TUI, or `--headless` with a progress line and a final table.

`--dry-run` prints the plan (planned calls; per endpoint: calls, already cached, estimated tokens and cost of
the calls still to send) and `--show-prompt` one fully rendered judge prompt; neither calls anyone.

Exit codes (headless): 0 when every planned call has an answer (a verdict or an unparseable reply stored as
invalid); 3 when some calls failed for good (they are listed on stderr and retried by the next run); 4 when the
run stopped at its budget before the plan was complete (resumable: run again with a higher `--max-cost`);
2 when another run holds the tournament's lease, or took it over during the run (`--force`); 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse

from elotui.commands.common import add_store_arg, add_tournament_arg


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("run", help="run a tournament (TUI by default, or --headless)")
    add_tournament_arg(p)
    add_store_arg(p)
    p.add_argument(
        "--headless", action="store_true", help="no TUI: progress on stderr, leaderboard on stdout"
    )
    p.add_argument(
        "--dry-run", action="store_true", help="print the plan, cached calls and estimated cost; no calls"
    )
    p.add_argument(
        "--show-prompt", action="store_true", help="print one fully rendered judge prompt and exit"
    )
    p.add_argument(
        "--prompt", metavar="ID", help="with --show-prompt: the prompt whose first comparison to print"
    )
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="X",
        help="stop scheduling calls once the cost would pass X (overrides [comparison] max_cost)",
    )
    p.add_argument("--theme", metavar="NAME", help="TUI theme")
    p.add_argument(
        "--voter",
        metavar="NAME",
        help="the name the human votes cast in the pairs pane are stored under (default: $ELOTUI_VOTER, else the "
        "login name)",
    )
    p.add_argument("--no-delay", action="store_true", help="set replay/simulated delay_ms to 0")
    p.add_argument(
        "--force",
        action="store_true",
        help="take over the run lease of another process that still looks alive (it stops sending; the calls it has "
        "in flight are not sent again)",
    )
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="with --headless: submit the batch judges' batches and exit; a later `elotui run` collects them",
    )
    p.add_argument(
        "--cancel-batches",
        action="store_true",
        help="cancel the open batches of batch judges at their providers and free their calls, then exit",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.commands.run_tournament import run_tournament  # the runner, the TUI: imported when run

    return run_tournament(args)
