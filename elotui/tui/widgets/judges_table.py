"""The judges panel: per judge, calls in flight, done, invalid, failed, retries, 429s, mean latency, tokens, cost."""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.widgets import DataTable

from elotui.records import JudgeCounts, JudgeStats
from elotui.tui.sanitize import one_line
from elotui.tui.widgets.status_bar import human_count

COLUMNS = (
    ("judge", 24),
    ("kind", 9),
    ("in flight", 9),
    ("done", 13),
    ("invalid", 7),
    ("failed", 6),
    ("retries", 7),
    ("429s", 5),
    ("mean latency", 12),
    ("tokens in", 9),
    ("tokens out", 10),
    ("cost", 10),
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
            self.add_row(
                Text(one_line(judge, 24)),
                Text(kind),
                Text(str(c.in_flight), justify="right"),
                Text(f"{done}/{planned}" if planned else str(done), justify="right"),
                Text(str(int(s.invalid)), justify="right"),
                Text(str(max(int(s.error), c.failed)), justify="right", style="bold red" if c.failed else ""),
                Text(str(max(int(s.retries), c.retries)), justify="right"),
                Text(str(max(int(s.http_429s), c.http_429s)), justify="right"),
                Text("—" if not latency else f"{latency:.0f} ms", justify="right"),
                Text(human_count(s.input_tokens), justify="right"),
                Text(human_count(s.output_tokens), justify="right"),
                Text(f"${cost:.4f}" if cost else "—", justify="right"),
                key=judge,
            )
