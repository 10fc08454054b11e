"""Screening (`[comparison] screen = "judge-id"`, with `plan = "all"`): a cheap judge answers every unit first;
the rest of the panel is asked only where it is needed —

- the screening judge's two orders of the unit disagree (a flip, a tie in one order, an invalid or failed reply:
  anything but the same contestant winning both), or
- the unit's pair is an open gap of the leaderboard ranked on the screening judge's verdicts (its order is not
  settled at `settle_confidence`: the panel's view matters most there).

Reported at the end: the panel calls saved, and how often the panel overturned the screening judge (on the
units where it was consistent and the panel was asked anyway, the share whose panel majority named the other
contestant). A stopped run resumes: the screening judge's answered calls are not sent again, the decision is
made again from them.
"""

from __future__ import annotations

from collections import defaultdict

from elotui.plan.adaptive import UnitKey, settlement, unit_of
from elotui.plan.calls import Call
from elotui.plan.verdict_calls import VerdictCalls
from elotui.rating.leaderboard import RatingOptions, rank
from elotui.run.adaptive_run import Host, answered_table, run_adaptive


def _unit_winners(
    host: Host, judges: set[str] | None, order: dict[str, int]
) -> dict[UnitKey, dict[str, list[str | None]]]:
    """unit -> judge -> the winner of each answered order (a contestant id, "tie", or None for invalid/failed)."""
    out: dict[UnitKey, dict[str, list[str | None]]] = defaultdict(lambda: defaultdict(list))
    for r in host.store.plan_verdicts():
        if r.status == "missing" or (judges is not None and r.judge not in judges):
            continue
        won = (
            r.first
            if r.winner == "first"
            else r.second
            if r.winner == "second"
            else "tie"
            if r.winner == "tie"
            else None
        )
        out[unit_of(r.prompt, r.first, r.second, r.condition, r.sample, order)][r.judge].append(
            won if r.status == "ok" else None
        )
    return out


def _consistent_winner(orders: list[str | None]) -> str | None:
    """The contestant that won both orders, else None."""
    return (
        orders[0] if len(orders) == 2 and orders[0] == orders[1] and orders[0] not in (None, "tie") else None
    )


def _units(verdicts: VerdictCalls, order: dict[str, int]) -> dict[UnitKey, list[Call]]:
    by_unit: dict[UnitKey, list[Call]] = defaultdict(list)
    for call in verdicts.calls:
        p = call.presentation
        if p is not None:
            by_unit[unit_of(p.prompt, p.first, p.second, p.condition, p.sample, order)].append(call)
    return by_unit


def _open_pairs(host: Host, screen: str, order: dict[str, int]) -> set[tuple[str, ...]]:
    """The open gaps' pairs of the leaderboard ranked on the screening judge's verdicts."""
    ranking = host.tournament.spec.ranking
    options = RatingOptions.from_config(ranking).replace(bootstrap=min(max(ranking.bootstrap, 50), 100))
    board = rank(answered_table(host, screen), threshold="none", method=ranking.method, options=options)
    state = settlement(board, host.tournament.spec.comparison.settle_confidence)
    return {tuple(sorted(p, key=order.__getitem__)) for p in state.open_pairs}


def _overturned(
    panel_votes: dict[UnitKey, dict[str, list[str | None]]], asked: list[tuple[UnitKey, str]]
) -> int:
    """How many consistent screening winners the panel's decisive verdicts outvoted."""
    count = 0
    for unit, winner in asked:
        tally: dict[str, int] = defaultdict(int)
        for orders in panel_votes.get(unit, {}).values():
            for won in orders:
                if won not in (None, "tie"):
                    tally[str(won)] += 1
        top = max(tally, key=tally.__getitem__) if tally else None
        count += top is not None and top != winner and tally[top] > tally.get(winner, 0)
    return count


async def run_screened(host: Host, verdicts: VerdictCalls, answered: set[str], screen: str) -> str:
    t = host.tournament
    order = {c: i for i, c in enumerate(t.contestant_ids)}
    by_unit = _units(verdicts, order)
    first_pass = [
        c for calls in by_unit.values() for c in calls if c.judge == screen and c.key not in answered
    ]
    await host.execute(first_pass)
    answered.update(c.key for c in first_pass)
    if host.stopping:
        return "screening stopped before the panel"
    needed, skipped, asked = _decide(
        by_unit, _unit_winners(host, {screen}, order), _open_pairs(host, screen, order), screen, answered
    )
    await host.execute(needed)
    overturned = _overturned(_unit_winners(host, set(t.judge_ids) - {screen}, order), asked)
    total_panel = sum(1 for calls in by_unit.values() for c in calls if c.judge != screen)
    return _summary(screen, skipped, total_panel, overturned, len(asked))


def _decide(
    by_unit: dict[UnitKey, list[Call]],
    screened: dict[UnitKey, dict[str, list[str | None]]],
    open_pairs: set[tuple[str, ...]],
    screen: str,
    answered: set[str],
) -> tuple[list[Call], int, list[tuple[UnitKey, str]]]:
    """(the panel calls to send, the panel calls saved, the consistent units the panel checks anyway)."""
    needed: list[Call] = []
    skipped = 0
    asked: list[tuple[UnitKey, str]] = []
    for unit, calls in by_unit.items():
        panel = [c for c in calls if c.judge != screen]
        winner = _consistent_winner(screened.get(unit, {}).get(screen, []))
        if winner is not None and (unit[1], unit[2]) not in open_pairs:
            skipped += len(panel)
            continue
        needed += [c for c in panel if c.key not in answered]
        if winner is not None:
            asked.append((unit, winner))
    return needed, skipped, asked


def _summary(screen: str, skipped: int, total_panel: int, overturned: int, asked: int) -> str:
    share = 100.0 * skipped / total_panel if total_panel else 0.0
    checked = (
        f"the panel overturned {overturned} of the {asked} consistent screening verdicts it checked on open gaps"
        if asked
        else "no consistent screening verdict sat on an open gap (the panel checked only the inconsistent units)"
    )
    return f"screening by {screen}: {skipped:,} panel calls saved ({share:.0f} % of the panel's); {checked}"


async def run_partial(host: Host, verdicts: VerdictCalls, answered: set[str]) -> str:
    """The plans that send part of the plan: adaptive (elotui.run.adaptive_run) or screened (above)."""
    comparison = host.tournament.spec.comparison
    if comparison.plan == "adaptive":
        return await run_adaptive(host, verdicts, answered)
    assert comparison.screen is not None
    return await run_screened(host, verdicts, answered, comparison.screen)
