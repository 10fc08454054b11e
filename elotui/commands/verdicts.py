"""`elotui verdicts T`: write the current plan's verdicts as the canonical verdict log (JSON Lines)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from elotui.commands.common import (
    add_output_arg,
    add_store_arg,
    add_tournament_arg,
    open_tournament,
    output_stream,
)

if TYPE_CHECKING:
    from elotui.store import Store


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("verdicts", help="write the recorded verdicts as a JSON Lines verdict log")
    add_tournament_arg(p)
    add_output_arg(p)
    add_store_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.verdict_log import write_log

    _, store = open_tournament(args)
    with store, output_stream(args.output) as out:
        write_log(log_rows(store), out)
    return 0


def log_rows(store: Store) -> Iterator[dict[str, Any]]:
    """Every answered or failed presentation of the current plan, as canonical verdict-log rows, one at a time
    (a 10^6-verdict store's log is written without holding its rows: 3.3 GB of them before)."""
    return (
        {
            "prompt": d.prompt,
            "first": d.first,
            "second": d.second,
            "judge": d.judge,
            "condition": d.condition,
            "sample": d.sample,
            "winner": d.winner if d.status == "ok" else None,
            "reasoning": d.reasoning,
            "status": d.status,
        }
        for d in store.each_recorded_detail()
    )
