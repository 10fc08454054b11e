"""Errors a user can act on. The CLI prints them (no traceback) and exits with their code: 2 for bad input, 5 for
a store that cannot be written or read (a full disk, a damaged or read-only file)."""

from __future__ import annotations


class UserError(Exception):
    """Bad input: a broken file, a wrong argument, a missing key. Exit code 2."""

    exit_code = 2

    def __init__(self, message: str, *, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []

    def __str__(self) -> str:
        if not self.details:
            return self.message
        return "\n".join([self.message, *("  " + d for d in self.details)])


class StoreError(UserError):
    """The store cannot be written or read: no space left, a damaged file, a read-only one. Exit code 5.
    Everything committed before stays committed; the next run resumes."""

    exit_code = 5


def store_problem(path: object, exc: Exception) -> StoreError:
    """What an SQLite error on the store at `path` means for the user, and what to do."""
    text = str(exc)
    if "full" in text:
        return StoreError(
            f"no space left on the device holding {path} ({text}): free some space and run again "
            "(every answer recorded so far is kept; the run resumes where it stopped)"
        )
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return StoreError(
            f"{path}: the store is damaged ({text}); move it aside and run again: answered calls "
            "are also in this machine's shared call cache, so few (if any) are paid again"
        )
    if "readonly" in text or "read-only" in text:
        return StoreError(
            f"{path}: the store is read-only ({text}): only reading commands (export, diagnose, "
            "verdicts, graph, runs, watch) work on it; copy it somewhere writable to run"
        )
    return StoreError(f"{path}: the store failed ({type(exc).__name__}: {text})")
