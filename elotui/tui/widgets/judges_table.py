"""The judges panel: per judge, the calls done of its plan, failed, invalid, in flight now, cost, retries, 429s, mean
latency, tokens, and its kind (the columns a narrow terminal needs first). Counts are the tournament's (every run,
as stored), but for the calls in flight, which are this run's; `judges_summary` is the panel's one-line total."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import DataTable

from elotui.records import JudgeCounts, JudgeStats
from elotui.tui.sanitize import one_line
from elotui.tui.widgets.status_bar import dollars, human_count

COLUMNS = (
    ("judge", 18),
    ("done", 11),
    ("failed", 6),
    ("invalid", 7),
    ("in flight", 9),
    ("cost", 9),
    ("retries", 7),
    ("429s", 5),
    ("mean latency", 12),
    ("tokens in", 9),
    ("tokens out", 10),
    ("kind", 9),
)


def judges_summary(
    judges: list[tuple[str, str]],
    stats: Mapping[str, JudgeStats],
    live: Mapping[str, JudgeCounts],
    replay_held: bool = False,
) -> str:
    """One line for the whole panel: the tournament's totals over the judges, and the calls in flight now;
    `replay_held`: a large import's replay waits (its verdicts rank from the store, no call is stored yet)."""
    if replay_held:
        return f"Judges ({len(judges)}) · the imported verdicts are not replayed: no call stored yet (p replays them)"
    done = sum(int(stats.get(j, JudgeStats()).done) for j, _ in judges)
    planned = sum(int(stats.get(j, JudgeStats()).planned) for j, _ in judges)
    invalid = sum(int(stats.get(j, JudgeStats()).invalid) for j, _ in judges)
    failed = sum(
        max(int(stats.get(j, JudgeStats()).error), live.get(j, JudgeCounts()).failed) for j, _ in judges
    )
    cost = sum(float(stats.get(j, JudgeStats()).cost) for j, _ in judges)
    in_flight = sum(live.get(j, JudgeCounts()).in_flight for j, _ in judges)
    return (
        f"Judges ({len(judges)}) · tournament: done {done}/{planned} · failed {failed} · invalid {invalid}"
        f" · cost {dollars(cost)} · in flight now {in_flight}"
    )


class JudgesTable(DataTable[Text | str]):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        for name, width in COLUMNS:
            self.add_column(name, key=name, width=width)

    def show(
        self, judges: list[tuple[str, str]], stats: Mapping[str, JudgeStats], live: Mapping[str, JudgeCounts]
    ) -> None:
        """`judges`: (id, kind); `stats`: what the store recorded for the plan; `live`: the runner's counts in this
        process (in flight, retries and 429s of calls still running), as its last Progress event published them."""
        self.clear()
        for judge, kind in judges:
            s = stats.get(judge, JudgeStats())
            c = live.get(judge, JudgeCounts())
            planned, done = int(s.planned), int(s.done)
            latency = s.mean_latency_ms or c.mean_latency_ms
            cost = float(s.cost)
            cells = {
                "judge": Text(one_line(judge, 18)),
                "done": Text(f"{done}/{planned}" if planned else str(done), justify="right"),
                "failed": Text(
                    str(max(int(s.error), c.failed)), justify="right", style="bold red" if c.failed else ""
                ),
                "invalid": Text(str(int(s.invalid)), justify="right"),
                "in flight": Text(str(c.in_flight), justify="right"),
                "cost": Text(dollars(cost) if cost else "—", justify="right"),
                "retries": Text(str(max(int(s.retries), c.retries)), justify="right"),
                "429s": Text(str(max(int(s.http_429s), c.http_429s)), justify="right"),
                "mean latency": Text("—" if not latency else f"{latency:.0f} ms", justify="right"),
                "tokens in": Text(human_count(s.input_tokens), justify="right"),
                "tokens out": Text(human_count(s.output_tokens), justify="right"),
                "kind": Text(kind),
            }
            self.add_row(*(cells[name] for name, _ in COLUMNS), key=judge)
