"""Errors a user can act on. The CLI prints them (no traceback) and exits 2."""

from __future__ import annotations


class UserError(Exception):
    """Bad input: a broken file, a wrong argument, a missing key. Exit code 2."""

    def __init__(self, message: str, *, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []

    def __str__(self) -> str:
        if not self.details:
            return self.message
        return "\n".join([self.message, *("  " + d for d in self.details)])
