"""Arguments and steps that several subcommands share."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from elotui.errors import UserError
from elotui.terminal import one_line
from elotui.tournament.user_files import replaced_atomically

if TYPE_CHECKING:  # imported when used: building the parser must not load pydantic (start-up time)
    from elotui.store import Store
    from elotui.tournament.model import Tournament


def add_tournament_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("tournament", metavar="T", help="the tournament file (TOML)")


def add_store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        metavar="PATH",
        help="the SQLite store to use (default: one per tournament "
        "under the user data directory; ELOTUI_HOME relocates it)",
    )


def add_output_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-o", "--output", metavar="PATH", default="-", help="where to write ('-' = stdout, the default)"
    )


def open_tournament(args: argparse.Namespace) -> tuple[Tournament, Store]:
    from elotui.tournament.model import load_tournament

    tournament = load_tournament(args.tournament)
    return tournament, store_to_read(tournament, getattr(args, "store", None))


def store_to_read(tournament: Tournament, store_path: str | None, *, reader: bool = False) -> Store:
    """The tournament's store for a reading command; a `--store` whose newest run was another tournament's (another
    name, from another file) is refused: its plan is that tournament's, and would be read as this one's."""
    from elotui.store import Store
    from elotui.store.follow import planned_for

    store = Store.open_for(tournament, store_path, reader=reader)
    if store_path is None:
        return store
    try:
        other = planned_for(store)
    except BaseException:
        store.close()
        raise
    if other is not None and other["name"] != tournament.name and other["path"] != str(tournament.path):
        store.close()
        raise UserError(
            f"--store holds the plan of tournament {one_line(repr(other['name']))} "
            f"({one_line(other['path'] or 'file unknown')}), you asked for {tournament.name!r} ({tournament.path}): "
            f"name that tournament's store, or run {tournament.name!r} with this store first"
        )
    return store


@contextmanager
def output_stream(target: str | None, *, newline: str = "\n") -> Iterator[IO[str]]:
    """stdout for '-' or None; otherwise a UTF-8 file (parent folders created), replaced whole once written
    (elotui.tournament.user_files.replaced_atomically: a failure on the way leaves the previous file as it was)."""
    if target in (None, "-"):
        yield sys.stdout
        sys.stdout.flush()
        return
    with replaced_atomically(Path(target), newline=newline) as fh:
        yield fh


def table_lines(header: Sequence[str], rows: Sequence[Sequence[str]], *, right_from: int = 1) -> list[str]:
    """A plain aligned text table: columns before `right_from` left-aligned, the others right-aligned."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def fmt(cells: Sequence[str]) -> str:
        parts = [
            str(c).ljust(widths[i]) if i < right_from else str(c).rjust(widths[i])
            for i, c in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def style_lines(style: Any) -> list[str]:
    """The style control's section of `diagnose`: each coefficient with its bootstrap interval (none: nothing)."""
    if not isinstance(style, dict):
        return []
    title = f"Style control ({', '.join(style['features'])}; counts from {style['source']})"
    return ["", title, "=" * len(title), *(c["text"] for c in style["coefficients"])]
