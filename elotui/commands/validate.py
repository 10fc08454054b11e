"""`elotui validate T`: check a tournament file without calling anyone."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from elotui.commands.common import add_tournament_arg
from elotui.errors import UserError

if TYPE_CHECKING:
    from elotui.tournament.model import Tournament


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("validate", help="check a tournament file (no judge calls)")
    add_tournament_arg(p)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.terminal import one_line
    from elotui.tournament.checks import plan_size
    from elotui.tournament.model import (
        load_tournament,  # on use: `elotui --help` does not import the config's models
    )

    t = load_tournament(args.tournament)
    problems = _read_named_files(t)
    if problems:
        raise UserError(f"{t.path}: {len(problems)} problem(s) in the files it names", details=problems)
    spec = t.spec
    if spec.comparison.pairs == "recorded":  # the logs' presentations (reading them checks them too)
        from elotui.plan.presentations import build_plan

        calls = build_plan(t).total
    else:
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
    from elotui.plan.context_blocks import summary

    for line in summary(t):
        print(f"  {line}")
    return 0


def _named_files(t: Tournament) -> list[tuple[str, Path, Callable[[Path], object]]]:
    """(key, path, reader) of every file the tournament names beyond its texts and data files (those are read by
    load_tournament): the examples, the replay judges' logs, the reference votes and gold labels."""
    from elotui.plan.fewshot import load_examples
    from elotui.tournament.data_rows import read_rows
    from elotui.verdict_log import read_verdicts

    def rows(path: Path) -> None:
        problems: list[str] = []
        read_rows(path, problems)
        if problems:
            raise UserError(f"{path}: {len(problems)} unreadable row(s)", details=problems)

    def log(path: Path) -> None:
        for _ in read_verdicts(path):
            pass

    spec = t.spec
    named: list[tuple[str, Path, Callable[[Path], object]]] = []
    if spec.comparison.examples_file:
        named.append(("comparison.examples_file", t.resolve(spec.comparison.examples_file), load_examples))
    named += [(f"judges '{j.id}' path", t.resolve(j.path), log) for j in spec.judges if j.path]
    if spec.reference is not None and spec.reference.votes:
        named.append(("reference.votes", t.resolve(spec.reference.votes), log))
    if spec.reference is not None and spec.reference.gold:
        named.append(("reference.gold", t.resolve(spec.reference.gold), rows))
    return named


def _read_named_files(t: Tournament) -> list[str]:
    """Every named file read as `run` and `diagnose` read it: each problem as `key: FILE:LINE: ...`."""
    problems: list[str] = []
    read_already: set[tuple[Path, object]] = set()  # a log that several replay judges read is read once
    for key, path, read in _named_files(t):
        if (path, read) in read_already:
            continue
        read_already.add((path, read))
        try:
            read(path)
        except UserError as exc:
            problems += [f"{key}: {exc.message}", *exc.details]
    return problems
