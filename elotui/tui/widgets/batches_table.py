"""The open batches of batch judges (`[[judges]] batch = true`, elotui.run.batching), as the provider last reported
them: judge, the provider's batch id (shortened), requests, done and failed so far, age, and the provider's status.
Shown under the board while a batch is open, updated as the run polls; a batch leaves it once collected."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Label

from elotui.run.events import BatchProgress, age_text
from elotui.tui.sanitize import one_line

COLUMNS = (  # 78 columns with their padding: an 80-column terminal shows them all
    ("judge", 14),
    ("batch", 13),
    ("requests", 8),
    ("done", 5),
    ("failed", 6),
    ("age", 6),
    ("status", 12),
)
ID_WIDTH = 13  # a provider's batch id is long ("batch_67f0…"): its start and end, an ellipsis between


def short_id(batch_id: str, width: int = ID_WIDTH) -> str:
    """`batch_6…a2f31`: the id's start and its end (what tells two batches apart), neutralised."""
    text = one_line(batch_id, 200)
    if len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[-tail:]


def batch_cells(b: BatchProgress, now: float) -> list[Text]:
    return [
        Text(one_line(b.judge, 14)),
        Text(short_id(b.batch_id)),
        Text(str(b.requests), justify="right"),
        Text(str(b.done), justify="right"),
        Text(str(b.failed), justify="right", style="bold red" if b.failed else ""),
        Text(age_text(now - b.submitted_at), justify="right"),
        Text(one_line(b.status, 12)),
    ]


class BatchesPanel(Vertical):
    """A title line and a row per open batch; hidden while none is open."""

    def compose(self) -> ComposeResult:
        yield Label("", classes="section-title", id="batches-title")
        yield DataTable[Text](id="batches", cursor_type="none", show_cursor=False)

    def on_mount(self) -> None:
        table = self.query_one("#batches", DataTable)
        for name, width in COLUMNS:
            table.add_column(name, key=name, width=width)
        self.display = False

    def show(self, batches: Sequence[BatchProgress], now: float) -> None:
        """The batches open now (`now`: time.time(), for their age)."""
        self.display = bool(batches)
        if not batches:
            return
        done = sum(b.done for b in batches)
        requests = sum(b.requests for b in batches)
        title = f"Open batches ({len(batches)}) · {done}/{requests} requests done as the providers report"
        self.query_one("#batches-title", Label).update(title)
        table = self.query_one("#batches", DataTable)
        table.clear()
        for b in batches:
            table.add_row(*batch_cells(b, now), key=f"{b.judge}\x00{b.batch_id}")

    def rows(self) -> list[list[str]]:
        """The rows shown, as text (for tests and the help text)."""
        table = self.query_one("#batches", DataTable)
        if not self.display:
            return []
        return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
