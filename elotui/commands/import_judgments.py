"""`elotui import FORMAT FILES... -o DIR`: judgments other tools wrote, as a tournament every command opens
(elotui.importers)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from elotui.errors import UserError

FORMATS = ("mt-bench", "arena", "arena-hard", "alpaca-eval")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "import",
        help="turn MT-bench judgments, Chatbot Arena battles or AlpacaEval annotations into a tournament",
        description="Write DIR/tournament.toml, the prompts and responses the files carry, and their verdicts as "
        "a verdict log read by replay judges: then `elotui run DIR/tournament.toml --headless`, `export`, ...",
    )
    p.add_argument("format", choices=FORMATS, metavar="FORMAT", help=f"one of: {', '.join(FORMATS)}")
    p.add_argument(
        "files", nargs="+", metavar="FILES", help="the judgment files (a folder: its .jsonl and .json files)"
    )
    p.add_argument(
        "-o", "--output", metavar="DIR", required=True, help="the folder to write the tournament in"
    )
    p.add_argument("--skip-bad", action="store_true", help="leave malformed records out (counted and listed)")
    p.add_argument(
        "--baseline", metavar="NAME", help="arena-hard: the baseline model (games[0] shows it as A)"
    )
    p.add_argument("--questions", metavar="FILE", help="mt-bench: question.jsonl (the prompts' texts)")
    p.add_argument("--answers", metavar="PATH", help="mt-bench: model_answer/ (a folder, or a .jsonl file)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from elotui.runtime.heap import collector_off

    paths = judgment_files([Path(f) for f in args.files])
    if args.format != "mt-bench" and (args.questions or args.answers):
        raise UserError("--questions and --answers are for the mt-bench format")
    if args.format != "arena-hard" and args.baseline:
        raise UserError("--baseline is for the arena-hard format (the others name no baseline)")
    with collector_off():  # millions of records without cycles (elotui.runtime.heap)
        return _imported(args, paths)


def judgment_files(given: list[Path]) -> list[Path]:
    """The files to read: each file given, and for a folder (arena-hard's `model_judgment/JUDGE/`) its `.jsonl`
    and `.json` files in name order. UserError for a folder without any."""
    paths: list[Path] = []
    for path in given:
        if not path.is_dir():
            paths.append(path)
            continue
        inside = sorted(p for p in path.iterdir() if p.suffix in (".jsonl", ".json") and p.is_file())
        if not inside:
            raise UserError(f"{path}: a folder without .jsonl or .json files")
        paths += inside
    return paths


def _imported(args: argparse.Namespace, paths: list[Path]) -> int:
    from elotui.importers import alpaca_eval, arena, arena_hard, mt_bench, style_prefill
    from elotui.importers.common import BadRecord, ImportResult, tournament_name, write_tournament
    from elotui.importers.prompts_prefill import prefill_prompts
    from elotui.importers.recorded_snapshot import sealed_snapshot, store_recorded

    imported: ImportResult
    try:
        if args.format == "mt-bench":
            imported = mt_bench.import_files(
                paths,
                skip_bad=args.skip_bad,
                questions=Path(args.questions) if args.questions else None,
                answers=Path(args.answers) if args.answers else None,
            )
        elif args.format == "arena-hard":
            imported = arena_hard.import_files(paths, skip_bad=args.skip_bad, baseline=args.baseline)
        elif args.format == "alpaca-eval":
            imported = alpaca_eval.import_files(paths, skip_bad=args.skip_bad)
        else:
            imported = arena.import_files(paths, skip_bad=args.skip_bad)
    except BadRecord as exc:
        raise UserError(str(exc)) from None
    out = Path(args.output)
    done: list[tuple[str, bool]] = []

    def meanwhile(files_written: Callable[[], None]) -> None:
        """The store snapshot, made and written while the files are, committed once they are written."""
        snapshot = sealed_snapshot(imported.log_codes())
        toml, name = out / "tournament.toml", tournament_name(imported, paths)
        done.append(store_recorded(snapshot, toml, name, before_commit=files_written))

    written = write_tournament(imported, out, paths, meanwhile=meanwhile)
    stored, ranked = done[0]
    # the caches of what the first load reads (the files are written): the style counts' entry in a thread
    prefill = style_prefill.start(imported, out)
    prefill_prompts(imported, out)  # the prompts' index (elotui.importers.prompts_prefill)
    prefill.join()
    for line in imported.report.lines():
        print(line, file=sys.stderr)
    shape = imported.shape()
    print(
        f"wrote {out / 'tournament.toml'}: {len(shape.contestants)} contestants, {shape.prompts:,} "
        f"prompts, {shape.verdicts:,} verdicts by {len(shape.judges)} judge(s) "
        f"({', '.join(written)})",
        file=sys.stderr,
    )
    print(stored, file=sys.stderr)
    print(_next_step(out / "tournament.toml", ranked, "style.jsonl" in written), file=sys.stderr)
    return 0


def _next_step(toml: Path, ranked: bool, styled: bool = False) -> str:
    """What to do next: export what the store ranks, or replay the verdicts first where it still ranks others;
    `styled`: the import wrote style counts (`--style-control` ranks with them)."""
    replay = f"`elotui run {toml} --headless` replays the verdicts into the store"
    if not ranked:
        return f"next: {replay}, then `elotui export {toml}` ranks them"
    style = f", `elotui export {toml} --style-control` (style-controlled)" if styled else ""
    return (
        f"next: elotui export {toml} (the ranking){style}; {replay} (each verdict's details: `elotui verdicts`, "
        "the pairs pane)"
    )
