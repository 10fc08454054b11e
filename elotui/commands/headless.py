"""`elotui run T --headless`: the run with a progress line on stderr, the leaderboard on stdout and the exit
summary (elotui.run.summary) on stderr.

Ctrl-C (SIGINT) or SIGTERM stops it gracefully: no new calls, the calls in flight finish and are stored (the
progress line says how many it waits for), then the summary and exit 130; so a rerun pays for none of them again.
A second Ctrl-C abandons the calls in flight at once (they are not stored: the next run sends them again); a third
is Python's own KeyboardInterrupt.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Coroutine, Sequence
from typing import IO, Any

from elotui.commands.leaderboard_text import print_leaderboard
from elotui.run.events import Event, JudgeStopped, Progress, RunFinished, batch_text
from elotui.run.runner import Runner
from elotui.run.summary import exit_summary
from elotui.store import Store
from elotui.terminal import one_line
from elotui.tournament.model import Tournament
from elotui.vocab import OUTCOME_FAILED

EXIT_FAILED = 3  # calls failed for good, or a judge was stopped: the next run retries them
EXIT_BUDGET = 4  # stopped at max_cost with calls left: not a failure, not complete either
EXIT_INTERRUPTED = 130
FAILURES_LISTED = 20  # failed calls listed one a line at the end; the rest counted


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def progress_line(p: Progress) -> str:
    pct = 100.0 * p.done / p.total if p.total else 100.0
    cost = f" | cost: this run ${p.run_cost:.4f}, tournament ${p.cost:.4f}" if p.cost else ""
    return (
        f"{p.done}/{p.total} ({pct:.0f}%) | {p.rate_per_s:.1f}/s | failed {p.failed} | invalid {p.invalid} | "
        f"ETA {_duration(p.eta_s)} | tokens {p.input_tokens:,} in / {p.output_tokens:,} out{cost}"
        + (f" | {p.adaptive}" if p.adaptive else "")
        + (f" | {p.batches}" if p.batches else "")
    )


class HeadlessReporter:
    """Writes a progress line to `err` at most once a second (and the last one at the end), a line for a judge
    stopped, and while a stop waits for the calls in flight, says so in front of the progress."""

    per_call = False  # progress only: the runner need not make an event per call

    def __init__(self, err: IO[str], interval_s: float = 1.0) -> None:
        # its own line control (CR, erase line) goes to the terminal as is; its text holds no untrusted input
        # (a judge's id and a server's message are neutralised: elotui.terminal.one_line)
        self.err = getattr(err, "inner", err)
        self.interval_s = interval_s
        self.last = float("-inf")
        self.latest: Progress | None = None
        self.tty = bool(getattr(err, "isatty", lambda: False)())
        self.stopping = False
        self.batches: dict[
            tuple[str, str], tuple[str, int, int]
        ] = {}  # each open batch's status, done, failed

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.latest = event
            self._batch_lines(event)
            now = time.monotonic()
            if now - self.last >= self.interval_s:
                self.last = now
                self._write(self._line(event))
        elif isinstance(event, JudgeStopped):
            self._write(
                f"judge {one_line(event.judge, 40)}: {one_line(event.reason, 300)}; {event.left} call(s) not sent "
                "(the next run tries them)",
                final=True,
            )
        elif isinstance(event, RunFinished) and self.latest is not None:
            self._write(progress_line(self.latest), final=True)

    def _batch_lines(self, p: Progress) -> None:
        """A line for each open batch when the provider reports something new of it (its status, done or failed
        so far), and one when it leaves (collected: its requests recorded)."""
        now, seen = time.time(), {}
        for b in p.open_batches:
            key, state = (b.judge, b.batch_id), (b.status, b.done, b.failed)
            seen[key] = state
            if self.batches.get(key) != state:
                self._write(f"{batch_text(b, now)} ({b.requests} requests)", final=True)
        for judge, batch_id in self.batches.keys() - seen.keys():
            self._write(
                f"batch {one_line(judge, 40)} {one_line(batch_id, 80)}: ended, its requests recorded",
                final=True,
            )
        self.batches = seen

    def _line(self, p: Progress) -> str:
        if not self.stopping:
            return progress_line(p)
        return f"stopping: waiting for {p.in_flight} calls in flight (Ctrl-C again to abandon) | {progress_line(p)}"

    def preparing(self) -> None:
        """Said before the run starts: it plans its calls and stores its plan before its first progress line (~20 s
        at 10^6 calls, silent before)."""
        self._write("preparing: planning the calls and storing the plan (Ctrl-C stops it)")

    def stop_asked(self, in_flight: int) -> None:
        self.stopping = True
        self.last = time.monotonic()
        self._write(
            f"stopping: waiting for {in_flight} calls in flight (Ctrl-C again to abandon)", final=True
        )

    def abandon_asked(self, in_flight: int) -> None:
        self._write(f"abandoning {in_flight} call(s) in flight (the next run sends them again)", final=True)

    def _write(self, text: str, final: bool = False) -> None:
        if self.tty:
            self.err.write("\r\x1b[2K" + text + ("\n" if final else ""))
        else:
            self.err.write(text + "\n")
        self.err.flush()


class GracefulStop:
    """SIGINT and SIGTERM while a run runs: the first stops it (the calls in flight finish and are stored), the
    second abandons the calls in flight; after that the default handlers are back."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, runner: Runner, reporter: HeadlessReporter) -> None:
        self.runner, self.reporter = runner, reporter
        self.received: str | None = None  # "Ctrl-C" or "SIGTERM": what stopped the run
        self._installed: list[signal.Signals] = []

    async def run(self, work: Coroutine[Any, Any, RunFinished]) -> RunFinished:
        loop = asyncio.get_running_loop()
        for sig in self.SIGNALS:
            try:
                loop.add_signal_handler(sig, self._signal, sig)
            except (NotImplementedError, RuntimeError, ValueError):  # no signals here (a thread, Windows)
                continue
            self._installed.append(sig)
        try:
            return await work
        finally:
            self._restore()

    def _restore(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._installed:
            loop.remove_signal_handler(sig)
        self._installed = []

    def _signal(self, sig: signal.Signals) -> None:
        in_flight = self.runner.in_flight
        if self.received is None:
            self.received = "Ctrl-C" if sig == signal.SIGINT else "SIGTERM"
            self.reporter.stop_asked(in_flight)
            self.runner.stop()
            return
        self.reporter.abandon_asked(in_flight)
        self.runner.stop(cancel=True)
        self._restore()


def headless(
    tournament: Tournament,
    store: Store,
    max_cost: float | None,
    no_delay: bool,
    force: bool,
    *,
    no_wait: bool = False,
) -> int:
    reporter = HeadlessReporter(sys.stderr)
    runner = Runner(tournament, store, on_event=reporter, max_cost=max_cost, no_delay=no_delay, force=force)
    runner.wait_batches = not no_wait  # --no-wait: batches submitted and left open (elotui.run.batching)
    reporter.preparing()  # (no other run holds the lease: checked by the caller)
    stop = GracefulStop(runner, reporter)
    result = asyncio.run(stop.run(runner.run()))
    if stop.received is not None:
        _print_summary(tournament, store, result, stop.received)
        return EXIT_INTERRUPTED
    print_leaderboard(tournament, store, sys.stdout)
    code = _report_end(tournament, store, result, max_cost)
    _print_summary(tournament, store, result, None)
    if runner.batches:
        print(
            f"{len(runner.batches)} batch(es) of {sum(b.requests for b in runner.batches.values())} request(s) open "
            f"at the provider: collect them with `elotui run {tournament.path}` (`elotui runs` lists them)",
            file=sys.stderr,
        )
    taken_over = _claims_note(runner)
    return code if taken_over is None else taken_over


def _claims_note(runner: Runner) -> int | None:
    """What the run's claims say on stderr: calls left to another run that was sending them, or the run's lease
    lost to another run (then exit 2, as for a run that finds another one running when it starts)."""
    if runner.claims.skipped:
        print(
            f"{runner.claims.skipped} planned comparison(s) were still being answered by another run when this one "
            "ended: not sent again (the next run finds their answers, or sends them)",
            file=sys.stderr,
        )
    if runner.claims.lost is None:
        return None
    print(f"{runner.claims.lost}; follow it with `elotui watch`", file=sys.stderr)
    return 2


def _print_summary(
    tournament: Tournament, store: Store, result: RunFinished, interrupted: str | None
) -> None:
    for line in exit_summary(tournament, store, result, interrupted, reasons=False):
        print(line, file=sys.stderr)


def _report_end(tournament: Tournament, store: Store, result: RunFinished, max_cost: float | None) -> int:
    """The adaptive plan's word, the budget, the calls that failed for good (those of a stopped judge are said by
    its one line); the exit code."""
    if result.adaptive:
        kind = "adaptive plan" if tournament.spec.comparison.plan == "adaptive" else "plan"
        print(f"{kind}: {result.adaptive}", file=sys.stderr)
    if result.state == "budget":
        print(
            f"budget reached: {result.done}/{result.total} calls answered, cost ${result.cost:.4f} "
            f"(max_cost {max_cost:g}); run again with a higher --max-cost to continue",
            file=sys.stderr,
        )
    columns = store.verdict_columns()
    failed = columns.rows(columns.outcome == OUTCOME_FAILED)  # decoded alone, not the whole plan
    stopped = {s.judge for s in result.stopped_judges}
    if result.failed or failed:
        _list_failures(result.failed, failed, stopped)
    if result.failed or failed or stopped:
        return EXIT_FAILED
    return EXIT_BUDGET if result.state == "budget" else 0


def _list_failures(described: list[str], failed: Sequence[tuple[Any, ...]], stopped: set[str]) -> None:
    """The calls that failed for good, a line each (FAILURES_LISTED at most), but for those of a stopped judge."""
    print(
        f"{len(failed)} planned comparison(s) failed for good (the next run retries them):"
        if failed
        else "calls left unanswered (the next run sends them):",
        file=sys.stderr,
    )
    lines = described or [
        f"{judge}: {prompt} {first} vs {second} [{condition}, sample {sample}]"
        for prompt, first, second, judge, condition, sample, *_ in failed
    ]
    shown = [line for line in lines if line.split(": ", 1)[0] not in stopped]
    if len(shown) < len(lines):
        names = ", ".join(sorted(stopped))
        print(f"  {len(lines) - len(shown)} of judge(s) {names}, stopped (said above)", file=sys.stderr)
    lines = shown
    for line in lines[:FAILURES_LISTED]:
        print(f"  {line}", file=sys.stderr)
    if len(lines) > FAILURES_LISTED:
        print(f"  … and {len(lines) - FAILURES_LISTED} more", file=sys.stderr)
