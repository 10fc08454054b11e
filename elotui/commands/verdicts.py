"""`elotui verdicts T`: write the current plan's verdicts as the canonical verdict log (JSON Lines)."""

from __future__ import annotations

import argparse

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    open_tournament,
    output_stream,
)
from elotui.verdict_log import write_log


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verdicts", help="write the recorded verdicts as a JSON Lines verdict log")
    add_tournament_arg(p)
    add_output_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    _, store = open_tournament(args)
    with store, output_stream(args.output) as out:
        write_log(store.verdict_log_rows(), out)
    return 0
