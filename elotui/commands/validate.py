"""`elotui validate T`: check a tournament file without calling anyone."""

from __future__ import annotations

import argparse
import sys
from math import comb

from elotui.commands.common import add_tournament_arg
from elotui.config import load_tournament


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="check a tournament file (no judge calls)")
    add_tournament_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    t = load_tournament(args.tournament)
    spec = t.spec
    orders = 2 if spec.comparison.both_orders else 1
    pairs = comb(len(spec.contestants), 2)
    calls = (
        len(spec.prompts)
        * pairs
        * orders
        * len(spec.judges)
        * spec.comparison.samples
        * len(spec.comparison.conditions)
    )
    for who, var in t.missing_api_keys():
        print(
            f"warning: {who}: environment variable {var} is not set (needed by `elotui run`)", file=sys.stderr
        )
    for warning in t.plain_http_keys():
        print(f"warning: {warning}", file=sys.stderr)
    kinds = sorted({j.provider for j in spec.judges})
    print(
        f"{t.path}: ok — {t.name!r}: {len(spec.contestants)} contestants, {len(spec.prompts)} prompts, "
        f"{len(spec.judges)} judges ({', '.join(kinds)}), {calls} planned judge calls"
    )
    return 0
