"""The runner's loop for `[comparison] plan = "adaptive"` (elotui.plan.adaptive chooses; this buys): the full plan
is stored as usual, and its units are sent batch by batch until the ranking is settled, the open gaps' own pairs
are bought on every prompt, `max_calls` or the budget is reached, or the run is stopped. A killed run resumes from
what the store answered: bought units are the answered ones (a unit it had begun is finished first)."""

from __future__ import annotations

from typing import Protocol

from elotui.plan.adaptive import AdaptivePlanner, Settlement, UnitKey, unit_of, units_in_order
from elotui.plan.calls import Call
from elotui.plan.verdict_calls import VerdictCalls
from elotui.rating.leaderboard import RatingOptions
from elotui.rating.table import VerdictTable
from elotui.store import Store
from elotui.tournament.model import Tournament


class Host(Protocol):
    """What the loop needs of the runner (elotui.run.runner.Runner)."""

    tournament: Tournament
    store: Store
    adaptive_status: str | None

    @property
    def stopping(self) -> bool: ...

    async def execute(self, calls: list[Call]) -> None: ...


def answered_table(host: Host, judge: str | None = None) -> VerdictTable:
    """The verdict table of the plan's answered calls (of one judge's when given), coded in the file's order."""
    t = host.tournament
    table = VerdictTable(
        contestants=t.contestant_ids,
        prompts=t.prompt_ids,
        judges=t.judge_ids,
        conditions=list(t.spec.comparison.conditions),
    )
    table.extend_columns(host.store.verdict_columns(), include_missing=False)
    if judge is None:
        return table
    return table.subset(table.scope_mask(judges=[judge]))


def status_text(state: Settlement, bought: int, total: int, reason: str = "") -> str:
    share = 100.0 * bought / total if total else 0.0
    text = f"{state.describe()} · {share:.0f} % of the full plan's units"
    if state.open_pairs:
        text += " · open: " + ", ".join(f"{a} vs {b}" for a, b in state.open_pairs[:4])
        text += " …" if len(state.open_pairs) > 4 else ""
    return f"{text} · {reason}" if reason else text


class AdaptiveRun:
    def __init__(self, host: Host, verdicts: VerdictCalls, answered: set[str]) -> None:
        t = host.tournament
        self.host, self.answered = host, answered
        order = {c: i for i, c in enumerate(t.contestant_ids)}
        rows = ((r.prompt, r.first, r.second, r.condition, r.sample) for r in verdicts.rows)
        self.units = units_in_order(rows, t.contestant_ids)
        self.calls_of: dict[UnitKey, list[Call]] = {}
        for call in verdicts.calls:
            p = call.presentation
            if p is not None:
                unit = unit_of(p.prompt, p.first, p.second, p.condition, p.sample, order)
                self.calls_of.setdefault(unit, []).append(call)
        self.bought = {u for u in self.units if any(c.key in answered for c in self.calls_of.get(u, []))}
        ranking = t.spec.ranking
        self.planner = AdaptivePlanner(
            self.units,
            t.contestant_ids,
            RatingOptions.from_config(ranking),
            t.spec.comparison.settle_confidence,
            ranking.seed,
            threshold=ranking.threshold,
            method=ranking.method,
        )
        self.size = max(4, max(j.max_concurrency for j in t.spec.judges))  # units per batch: every judge busy
        self.max_calls = t.spec.comparison.max_calls
        self.state = Settlement(0, 0, ())

    def _pending(self, units: list[UnitKey]) -> list[Call]:
        return [c for u in units for c in self.calls_of.get(u, []) if c.key not in self.answered]

    def _next(self, unfinished: list[UnitKey]) -> tuple[list[UnitKey], str]:
        """The next batch, or an empty one and why the run stops."""
        if unfinished:
            return unfinished, ""
        batch, self.state = self.planner.choose(answered_table(self.host), self.bought, self.size)
        self.host.adaptive_status = status_text(self.state, len(self.bought), len(self.units))
        if batch:
            return batch, ""
        return [], "settled" if self.state.done else "the open gaps' own pairs are bought on every prompt"

    async def run(self) -> str:
        unfinished = [u for u in self.bought if self._pending([u])]  # units a stopped run had begun
        reason = "stopped"
        while not self.host.stopping:
            batch, why = self._next(unfinished)
            unfinished = []
            if not batch:
                reason = why
                break
            spent = sum(1 for u in self.bought for c in self.calls_of.get(u, []) if c.key in self.answered)
            pending = self._pending(batch)
            if self.max_calls is not None and spent + len(pending) > self.max_calls:
                reason = f"max_calls {self.max_calls:,} reached"
                break
            self.bought.update(batch)
            await self.host.execute(pending)
            self.answered.update(c.key for c in pending)
        self.host.adaptive_status = status_text(self.state, len(self.bought), len(self.units), reason)
        return self.host.adaptive_status


async def run_adaptive(host: Host, verdicts: VerdictCalls, answered: set[str]) -> str:
    """Buy units until settled; returns the final status line (also kept in `host.adaptive_status`)."""
    return await AdaptiveRun(host, verdicts, answered).run()
