"""The `elotui` command: builds the parser from `elotui.commands`, prints errors, returns exit codes.

Exit codes: 0 success, 2 bad input, 3 a run finished with calls that failed for good, 4 a headless run stopped at
its budget with calls left, 5 the store cannot be written or read (no space left, damaged, read-only), 130
interrupted (Ctrl-C), 1 anything unexpected (a bug).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Iterable

from elotui.commands import COMMANDS, MODULES
from elotui.errors import UserError
from elotui.terminal import SafeStream


class _Version(argparse.Action):
    """--version, with the version looked up only when asked for (importlib.metadata is slow to import)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        import elotui

        print(f"elotui {elotui.__version__}")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI, or with `only` a parser that knows that one subcommand: `main` uses it when the command is
    named first, so that e.g. `elotui export` does not import what the other commands need (textual, httpx, the
    runner...), which is most of its start-up time."""
    parser = argparse.ArgumentParser(
        prog="elotui",
        description="Run and watch LLM-as-a-judge pairwise tournaments.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS if only is None else (only,):
        module_name = f"elotui.commands.{MODULES.get(name, name)}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a subcommand not built in this tree
            if exc.name != module_name:
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(only=argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stderr = SafeStream(stderr)  # type: ignore[assignment]  # human messages: never an escape sequence
    if stdout.isatty():  # a terminal; data piped or redirected keeps its exact text
        sys.stdout = SafeStream(stdout)  # type: ignore[assignment]
    try:
        return _run(args)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.handler(args))
    except UserError as exc:
        print(str(exc), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("elotui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 -- the last line of defence: a short message, not a bare traceback
        if os.environ.get("ELOTUI_DEBUG"):
            traceback.print_exc()
        print(
            f"elotui: unexpected error: {type(exc).__name__}: {exc}\n"
            "(set ELOTUI_DEBUG=1 to see the traceback)",
            file=sys.stderr,
        )
        return 1


# The process settings of the `elotui` command. They live here, in the command's entry, and nowhere else: importing
# any elotui module changes nothing in the process (tests/foundation/test_import_side_effects.py). Each is kept
# only while it moves a user-visible figure by 10 % or more at 10^5-10^6 verdicts: `python -m
# tests.benchmarks.report` measures each against the command without it (docs/benchmarks.md, "Process settings").


def one_blas_thread(argv: list[str]) -> None:
    """One BLAS thread, unless the environment says otherwise: the rankings' linear algebra is small (contestants x
    contestants), and a pool of one thread per core competes with the store read and the bootstrap's own threads
    (a 10^6-verdict `elotui export --method bt` on a loaded 2-core machine: 3.8 s with one thread, 21.2 s without)."""
    del argv
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


PROCESS_SETTINGS: dict[str, Callable[[list[str]], None]] = {"blas": one_blas_thread}


def run_command(argv: list[str], settings: Iterable[str] = PROCESS_SETTINGS) -> int:
    """`main` in a process of its own, with the named process settings (all of them in the `elotui` command; the
    benchmarks leave one out to measure what it is worth)."""
    for name in settings:
        PROCESS_SETTINGS[name](argv)
    return main(argv)


def entry() -> None:
    """The `elotui` process (the console script, `python -m elotui.cli`); `main` is what runs in a caller's
    process."""
    sys.exit(run_command(sys.argv[1:]))


if __name__ == "__main__":
    entry()
