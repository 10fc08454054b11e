"""The lines said on stderr when a run ends (after the TUI closes, at the end of a headless run): how it ended, the
plan's calls answered of planned, failed and invalid, the judges stopped, what this run paid and what the
tournament's answers cost in all, where the store is, and the command that resumes it and the one that exports.

The plan's counts are read from the store (the truth, whatever this process saw); the run's own figures come from
its RunFinished."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from elotui.run.events import RunFinished
from elotui.store import Store, default_store_path
from elotui.terminal import one_line
from elotui.tournament.model import Tournament
from elotui.vocab import OUTCOME_FAILED, OUTCOME_INVALID, OUTCOME_MISSING


@dataclass(frozen=True)
class PlanTally:
    """The plan's rows by outcome, from the store: answered (verdicts and invalid replies), failed, invalid."""

    total: int
    answered: int
    failed: int
    invalid: int

    @classmethod
    def of(cls, store: Store) -> PlanTally:
        outcome = store.verdict_columns(keep=False).outcome
        tally = np.bincount(outcome, minlength=OUTCOME_MISSING + 1)
        failed, missing = int(tally[OUTCOME_FAILED]), int(tally[OUTCOME_MISSING])
        return cls(len(outcome), len(outcome) - failed - missing, failed, int(tally[OUTCOME_INVALID]))


def _shown_path(path: Path) -> str:
    """A path as the user would type it: relative to the current directory when under it, quoted for a shell."""
    try:
        shown = os.path.relpath(path)
    except ValueError:  # another drive
        shown = str(path)
    return shlex.quote(str(path) if shown.startswith("..") else shown)


def how_it_ended(result: RunFinished | None, interrupted: str | None) -> str:
    """ "finished", "stopped (Ctrl-C)", "budget reached"... from the run's end and what stopped it."""
    if interrupted is not None:
        return f"stopped ({interrupted})"
    if result is None:
        return "no run in this process"
    return {"budget": "budget reached", "stopped": "stopped"}.get(result.state, result.state)


def exit_summary(
    tournament: Tournament,
    store: Store,
    result: RunFinished | None,
    interrupted: str | None = None,
    *,
    reasons: bool = True,
) -> list[str]:
    """The summary's lines (neutralised: ids and server messages are untrusted text). `reasons`: a line per judge
    stopped with the status and the server's message (a headless run said it when it happened: its name only)."""
    plan = PlanTally.of(store)
    left = plan.total - plan.answered
    imported = store.only_imported()  # stopped before the replay of an import stored its plan: no call made
    if imported and result is None and interrupted is None:  # the TUI left a large import's replay to `p`
        head = f"elotui: the replay was not started · the {plan.total} imported verdicts rank as they are"
    elif imported:
        head = (
            f"elotui: {how_it_ended(result, interrupted)} before the replay stored its plan · the "
            f"{plan.total} imported verdicts rank as they are; the replay (each verdict's details) starts over"
        )
    else:
        head = (
            f"elotui: {how_it_ended(result, interrupted)} · {plan.answered}/{plan.total} calls answered "
            f"(tournament) · failed {plan.failed} · invalid {plan.invalid}"
        )
    lines = [head]
    if result is not None:
        names = ", ".join(one_line(s.judge, 40) for s in result.stopped_judges) or "none"
        lines.append(
            f"  this run: cost ${result.run_cost:.4f} · failed {result.failed_calls} · judges stopped: {names}"
            f" · tournament cost ${result.cost:.4f}"
        )
        for s in result.stopped_judges if reasons else ():
            lines.append(
                f"  judge {one_line(s.judge, 40)}: {one_line(s.reason, 300)} ({s.left} call(s) not sent)"
            )
    lines.append(f"  store: {store.path}")
    target = _shown_path(tournament.path)
    if Path(store.path).resolve() != default_store_path(tournament).resolve():
        target += f" --store {_shown_path(Path(store.path))}"
    if left:
        lines.append(
            f"  next: `elotui run {target}` resumes ({left} call(s) left) · `elotui export {target}`"
        )
    elif imported:
        lines.append(
            f"  next: `elotui export {target}` writes the ranking · `elotui run {target} --headless` replays"
        )
    else:
        lines.append(f"  next: `elotui export {target}` writes the ranking")
    return lines
