"""The judges panel: per judge, calls in flight, done, invalid, failed, retries, 429s, mean latency, tokens, cost."""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.text import Text
from textual.widgets import DataTable

from elotui.judges.base import CallCounts
from elotui.tui.sanitize import one_line
from elotui.tui.widgets.status_bar import human_count

COLUMNS = (("judge", 24), ("kind", 9), ("in flight", 9), ("done", 13), ("invalid", 7), ("failed", 6), ("retries", 7),
           ("429s", 5), ("mean latency", 12), ("tokens in", 9), ("tokens out", 10), ("cost", 10))


@dataclass
class JudgeLive(CallCounts):
    """This session's counters for one judge, from the run events."""

    latency_sum_ms: float = 0.0
    latency_n: int = 0
    last_errors: list[str] = field(default_factory=list)


class JudgesTable(DataTable[Text | str]):
    def on_mount(self) -> None:
        self.cursor_type = "row"
        for name, width in COLUMNS:
            self.add_column(name, key=name, width=width)

    def show(self, judges: list[tuple[str, str]], stats: dict[str, dict[str, float]],
             live: dict[str, JudgeLive]) -> None:
        """`judges`: (id, kind); `stats`: store.judge_stats() (everything recorded for the plan); `live`: this
        session's counters (in flight, retries and 429s of calls still running)."""
        self.clear()
        for judge, kind in judges:
            s = stats.get(judge, {})
            c = live.get(judge, JudgeLive())
            planned = int(s.get("planned", 0))
            done = int(s.get("done", 0))
            latency = s.get("mean_latency_ms") or (c.latency_sum_ms / c.latency_n if c.latency_n else None)
            cost = float(s.get("cost", 0.0))
            self.add_row(
                Text(one_line(judge, 24)),
                Text(kind),
                Text(str(c.in_flight), justify="right"),
                Text(f"{done}/{planned}" if planned else str(done), justify="right"),
                Text(str(int(s.get("invalid", 0))), justify="right"),
                Text(str(max(int(s.get("error", 0)), c.failed)), justify="right",
                     style="bold red" if c.failed else ""),
                Text(str(max(int(s.get("retries", 0)), c.retries)), justify="right"),
                Text(str(max(int(s.get("http_429s", 0)), c.http_429s)), justify="right"),
                Text("—" if not latency else f"{latency:.0f} ms", justify="right"),
                Text(human_count(s.get("input_tokens", 0)), justify="right"),
                Text(human_count(s.get("output_tokens", 0)), justify="right"),
                Text(f"${cost:.4f}" if cost else "—", justify="right"),
                key=judge,
            )
