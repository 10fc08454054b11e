"""`elotui validate T`: check a tournament file without calling anyone."""

from __future__ import annotations

import argparse
import sys

from elotui.commands.common import add_tournament_arg


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="check a tournament file (no judge calls)")
    add_tournament_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.config import load_tournament  # on use: `elotui --help` does not import the config's models
    from elotui.config_checks import plan_size
    from elotui.terminal import one_line

    t = load_tournament(args.tournament)
    spec = t.spec
    calls = plan_size(len(spec.contestants), len(spec.prompts), len(spec.judges), spec.comparison)
    for who, var in t.missing_api_keys():
        print(
            f"warning: {who}: environment variable {var} is not set (needed by `elotui run`)", file=sys.stderr
        )
    for warning in t.plain_http_keys():
        print(f"warning: {warning}", file=sys.stderr)
    if t.data is not None:
        for note in t.data.notes:
            print(f"note: {one_line(note)}")
    kinds = sorted({j.provider for j in spec.judges})
    print(
        f"{t.path}: ok — {t.name!r}: {len(spec.contestants)} contestants, {len(spec.prompts)} prompts, "
        f"{len(spec.judges)} judges ({', '.join(kinds)}), {calls:,} planned judge calls"
    )
    if t.data is not None and t.data.files:
        print(f"  data files: {', '.join(one_line(f) for f in t.data.files)}")
    return 0
