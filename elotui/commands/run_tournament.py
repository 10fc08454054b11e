"""What `elotui run T` does (elotui.commands.run holds its arguments): load and check the file, then the TUI, a
headless run, `--dry-run` or `--show-prompt`. Kept apart from the parser so that `elotui --help` and the other
commands do not import the runner, the judges' HTTP client and numpy."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import sys
from typing import IO

from elotui.commands.common import table_lines
from elotui.commands.leaderboard_text import print_leaderboard
from elotui.errors import UserError
from elotui.judges.base import Judge
from elotui.plan.prompts import PromptBuilder
from elotui.store import Store
from elotui.store.runs import RunActive, live_run
from elotui.tournament.model import EndpointConfig, Tournament, load_tournament
from elotui.tournament.sections import price_factor

__all__ = ["print_leaderboard", "run_tournament"]


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
        if (done := _without_a_run(args, tournament, store, builder)) is not None:
            return done
        max_cost = args.max_cost if args.max_cost is not None else tournament.spec.comparison.max_cost
        active = None if args.force else live_run(store)
        if args.headless:
            if active is not None:  # a competing run would pay for nothing: say who runs it, how to watch
                raise RunActive.of(store.path, active)
            from elotui.commands.headless import headless

            return headless(
                tournament,
                store,
                max_cost,
                args.no_delay,
                args.force,
                no_wait=getattr(args, "no_wait", False),
            )
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
                voter=getattr(args, "voter", None),
            )
        )
    finally:
        store.close()


def _without_a_run(
    args: argparse.Namespace, tournament: Tournament, store: Store, builder: PromptBuilder
) -> int | None:
    """`--dry-run`, `--show-prompt`, `--cancel-batches`: done here (their exit code); None: a run follows."""
    if args.dry_run:
        return _dry_run(tournament, store, builder, args.no_delay, sys.stdout)
    if args.show_prompt:
        return _show_prompt(tournament, store, builder, sys.stdout, getattr(args, "prompt", None))
    if getattr(args, "cancel_batches", False):
        return _cancel_batches(tournament, store)
    if getattr(args, "no_wait", False) and not args.headless:
        raise UserError("--no-wait goes with --headless (the TUI follows its batches until they end)")
    return None


def _cancel_batches(tournament: Tournament, store: Store) -> int:
    """`--cancel-batches`: the store's open batches cancelled at their providers, their calls freed."""
    from elotui.run.batching import cancel_open_batches
    from elotui.run.setup import build_judges, default_judge_factory

    judges = build_judges(tournament, default_judge_factory(tournament))
    said = asyncio.run(cancel_open_batches(judges, store))
    for line in said or ["no open batches"]:
        print(line, file=sys.stderr)
    return 0


# --- dry run and prompt -----------------------------------------------------------------------------------


def _kind(kind: str, config: EndpointConfig) -> str:
    """The kind of an endpoint's calls, and, for a batch judge, the share of the price it pays."""
    factor = price_factor(config)
    return kind if factor == 1 else f"{kind}, batch ×{factor:g}"


def _dry_run(
    tournament: Tournament, store: Store, builder: PromptBuilder, no_delay: bool, out: IO[str]
) -> int:
    from elotui.plan.estimate import dry_run
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
            _kind(r.kind, judges[r.endpoint].config),
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
    from elotui.plan.estimate import first_prompt
    from elotui.plan.presentations import build_plan

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
