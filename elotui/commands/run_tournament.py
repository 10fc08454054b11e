"""What `elotui run T` does (elotui.commands.run holds its arguments): load and check the file, then the TUI, a
headless run, `--dry-run` or `--show-prompt`. Kept apart from the parser so that `elotui --help` and the other
commands do not import the runner, the judges' HTTP client and numpy."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import sys
import time
from typing import IO

from elotui.commands.common import table_lines
from elotui.config import Tournament, load_tournament
from elotui.errors import UserError
from elotui.judges.base import Judge
from elotui.rating.labels import (
    band_text,
    interval_label,
    interval_text,
    order_text,
    rating_text,
    scale_note,
    warning_lines,
)
from elotui.run.events import Event, Progress, RunFinished
from elotui.run.prompts import PromptBuilder
from elotui.session import TournamentSession
from elotui.store import Store
from elotui.store.runs import RunActive, live_run
from elotui.terminal import one_line
from elotui.vocab import OUTCOME_FAILED


def run_tournament(args: argparse.Namespace) -> int:
    tournament = load_tournament(args.tournament)
    if args.max_cost is not None and args.max_cost < 0:
        raise UserError("--max-cost must be >= 0")
    if getattr(args, "prompt", None) is not None and not args.show_prompt:
        raise UserError("--prompt goes with --show-prompt (it picks the prompt to print)")
    if args.dry_run or args.show_prompt:  # they call nobody: a missing key is only worth a warning
        for who, var in tournament.missing_api_keys():
            print(f"warning: {who}: environment variable {var} is not set (needed to run)", file=sys.stderr)
    else:
        tournament.require_api_keys()
    for warning in tournament.plain_http_keys():
        print(f"warning: {warning}", file=sys.stderr)
    builder = PromptBuilder(tournament)  # template errors surface here, before any call
    store = Store.open_for(tournament, args.store)
    try:
        if args.dry_run:
            return _dry_run(tournament, store, builder, args.no_delay, sys.stdout)
        if args.show_prompt:
            return _show_prompt(tournament, store, builder, sys.stdout, getattr(args, "prompt", None))
        max_cost = args.max_cost if args.max_cost is not None else tournament.spec.comparison.max_cost
        active = None if args.force else live_run(store)
        if args.headless:
            if active is not None:  # a competing run would pay for nothing: say who runs it, how to watch
                raise RunActive.of(store.path, active)
            return _headless(tournament, store, max_cost, args.no_delay, args.force)
        from elotui.tui.launch import run_tui

        return int(
            run_tui(
                tournament,
                store,
                theme=args.theme,
                max_cost=max_cost,
                no_delay=args.no_delay,
                watch=active is not None,
                force=args.force,
            )
        )
    finally:
        store.close()


# --- dry run and prompt -----------------------------------------------------------------------------------


def _dry_run(
    tournament: Tournament, store: Store, builder: PromptBuilder, no_delay: bool, out: IO[str]
) -> int:
    from elotui.run.estimate import dry_run
    from elotui.run.setup import build_judges, default_judge_factory

    judges = build_judges(tournament, default_judge_factory(tournament, no_delay=no_delay))
    try:
        result = dry_run(tournament, store, judges, builder)
    finally:
        asyncio.run(_close_all(judges))
    spec = tournament.spec
    plan = result.plan
    orders = 2 if spec.comparison.both_orders else 1
    n = len(spec.contestants)
    pairs = (
        f"{n - 1} pairs (each vs {tournament.baseline})"
        if tournament.baseline
        else f"{n * (n - 1) // 2} pairs"
    )
    print(
        f"{tournament.name}: {result.total_calls} planned calls, {result.cached} already cached, "
        f"{result.total_calls - result.cached} to send",
        file=out,
    )
    print(
        f"  judge calls: {plan.total} = {len(spec.prompts)} prompts x {pairs} x {orders} "
        f"order(s) x {len(spec.judges)} judges x {spec.comparison.samples} sample(s) x "
        f"{len(spec.comparison.conditions)} condition(s) ({', '.join(spec.comparison.conditions)})",
        file=out,
    )
    if plan.generations or plan.paraphrases:
        print(
            f"  plus {len(plan.generations)} generation(s) and {len(plan.paraphrases)} paraphrase(s), "
            "sent before the judge calls",
            file=out,
        )
    header = (
        "endpoint",
        "kind",
        "calls",
        "cached",
        "to send",
        "est. in tokens",
        "est. out tokens",
        "est. cost",
    )
    rows = [
        (
            r.endpoint,
            r.kind,
            str(r.calls),
            str(r.cached),
            str(r.to_send),
            f"{r.input_tokens:,}",
            f"{r.output_tokens:,}",
            "-" if r.cost is None else f"${r.cost:.4f}",
        )
        for r in result.rows
    ]
    costs = [r.cost for r in result.rows if r.cost is not None]
    rows.append(
        (
            "total",
            "",
            str(result.total_calls),
            str(result.cached),
            str(result.total_calls - result.cached),
            f"{sum(r.input_tokens for r in result.rows):,}",
            f"{sum(r.output_tokens for r in result.rows):,}",
            f"${sum(costs):.4f}" if costs else "-",
        )
    )
    for line in table_lines(header, rows, right_from=2):
        print(line, file=out)
    print(
        "estimates: input = characters / 4, output = min(max_tokens, 512) per call, for the calls still to send",
        file=out,
    )
    return 0


async def _close_all(judges: dict[str, Judge]) -> None:
    for judge in judges.values():
        await judge.aclose()


def _show_prompt(
    tournament: Tournament, store: Store, builder: PromptBuilder, out: IO[str], wanted: str | None = None
) -> int:
    from elotui.run.estimate import first_prompt
    from elotui.run.plan import build_plan

    if wanted is not None and wanted not in tournament.prompt_ids:
        close = difflib.get_close_matches(wanted, tournament.prompt_ids, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise UserError(f"--prompt: no prompt '{wanted}' in {tournament.path}{hint}")
    rendered = first_prompt(tournament, store, builder, wanted)
    first = next(c for c in build_plan(tournament).comparisons if wanted in (None, c.prompt))
    print(
        f"# first planned comparison: prompt {first.prompt}, judge {first.judge}, condition {first.condition}",
        file=out,
    )
    print("===== system =====", file=out)
    print(rendered.system, file=out)
    print("===== user =====", file=out)
    print(rendered.user, file=out)
    return 0


# --- headless ---------------------------------------------------------------------------------------------


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def progress_line(p: Progress) -> str:
    pct = 100.0 * p.done / p.total if p.total else 100.0
    cost = f" | ${p.cost:.4f}" if p.cost else ""
    return (
        f"{p.done}/{p.total} ({pct:.0f}%) | {p.rate_per_s:.1f}/s | failed {p.failed} | invalid {p.invalid} | "
        f"ETA {_duration(p.eta_s)} | tokens {p.input_tokens:,} in / {p.output_tokens:,} out{cost}"
        + (f" | {p.adaptive}" if p.adaptive else "")
    )


class HeadlessReporter:
    """Writes a progress line to `err` at most once a second (and the last one at the end)."""

    per_call = False  # progress only: the runner need not make an event per call

    def __init__(self, err: IO[str], interval_s: float = 1.0) -> None:
        # its own line control (CR, erase line) goes to the terminal as is; its text holds no untrusted input
        self.err = getattr(err, "inner", err)
        self.interval_s = interval_s
        self.last = float("-inf")
        self.latest: Progress | None = None
        self.tty = bool(getattr(err, "isatty", lambda: False)())

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self.latest = event
            now = time.monotonic()
            if now - self.last >= self.interval_s:
                self.last = now
                self._write(progress_line(event))
        elif isinstance(event, RunFinished) and self.latest is not None:
            self._write(progress_line(self.latest), final=True)

    def preparing(self) -> None:
        """Said before the run starts: it plans its calls and stores its plan before its first progress line (~20 s
        at 10^6 calls, silent before)."""
        self._write("preparing: planning the calls and storing the plan (Ctrl-C stops it)")

    def _write(self, text: str, final: bool = False) -> None:
        if self.tty:
            self.err.write("\r\x1b[2K" + text + ("\n" if final else ""))
        else:
            self.err.write(text + "\n")
        self.err.flush()


EXIT_BUDGET = 4  # stopped at max_cost with calls left: not a failure, not complete either


def _headless(
    tournament: Tournament, store: Store, max_cost: float | None, no_delay: bool, force: bool
) -> int:
    from elotui.run.runner import Runner

    reporter = HeadlessReporter(sys.stderr)
    runner = Runner(tournament, store, on_event=reporter, max_cost=max_cost, no_delay=no_delay, force=force)
    reporter.preparing()  # (no other run holds the lease: checked by the caller)
    result = asyncio.run(runner.run())
    print_leaderboard(tournament, store, sys.stdout)
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
    if result.failed or failed:
        print(
            f"{len(failed)} planned comparison(s) failed for good (the next run retries them):",
            file=sys.stderr,
        )
        lines = result.failed or [
            f"{judge}: {prompt} {first} vs {second} [{condition}, sample {sample}]"
            for prompt, first, second, judge, condition, sample, *_ in failed
        ]
        for line in lines:
            print(f"  {line}", file=sys.stderr)
        return 3
    if result.state == "budget":
        return EXIT_BUDGET
    return 0


def print_leaderboard(tournament: Tournament, store: Store, out: IO[str]) -> None:
    board = TournamentSession(tournament, store).leaderboard()
    settings = tournament.spec.ranking
    print(f"{one_line(tournament.name)} — {settings.method}, threshold {settings.threshold}", file=out)
    header = (
        "rank",
        "contestant",
        "rating",
        "interval",
        "gap",
        "gap interval",
        "P(win)",
        "order",
        "band",
        "W-L-D",
        "games",
        "win rate",
    )
    grouped = len({r.group for r in board.rows if r.group is not None}) > 1
    rows = [
        (
            "—" if r.rank is None else f"{r.group}.{r.rank}" if grouped else str(r.rank),
            one_line(r.contestant, 40),  # a CR or an escape in an id must not break (or colour) the table
            rating_text(r, 1),
            interval_text(r, 1),
            "" if r.gap_to_next is None else f"{r.gap_to_next:.1f}",
            "" if r.gap_ci_low is None else f"{r.gap_ci_low:.0f} – {r.gap_ci_high:.0f}",
            "" if r.win_prob_vs_next is None else f"{100 * r.win_prob_vs_next:.0f}%",
            "" if r.order_confidence is None else order_text(r),
            "" if r.band is None else band_text(r),
            f"{r.wins}-{r.losses}-{r.draws}",
            str(r.games),
            "" if r.win_rate is None else f"{100 * r.win_rate:.1f}%",
        )
        for r in board.rows
    ]
    for line in table_lines(header, rows, right_from=2):
        print(line, file=out)
    print(
        f"interval: {interval_label(board)}; order: the share of rounds with this row above the next; a band "
        "range (tied–moderate) when the gap interval spans several bands",
        file=out,
    )
    for line in [scale_note(board), *warning_lines(board)]:
        if line:
            print(f"note: {line}", file=out)
    counts = board.counts
    print(
        f"verdicts used {counts.get('verdicts_used', 0)} · invalid {counts.get('invalid', 0)} · "
        f"failed {counts.get('failed', 0)} · missing {counts.get('missing', 0)} · "
        "bands: Δ<50 practically tied, 50–150 moderate, >150 strong",
        file=out,
    )
