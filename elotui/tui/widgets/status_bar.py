"""The header, three lines that never wrap (each is cut at the terminal's edge, the least needed part last):

1. the judges' kind when not live (REPLAY, SIMULATED), the tournament's name (shortened to leave room), threshold,
   method and scope;
2. the run's state and the tournament's progress: calls answered of the plan (every run) and the recorded cost;
3. this run's rate, ETA, failures, invalid replies, calls in flight, calls the store answered, tokens; without a
   run (stored verdicts, watching), the tournament's failed and invalid counts.

Each count says its scope: "tournament:" (every run of this tournament) or "this run:" (this process)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from elotui.run.events import Progress
from elotui.tui.colours import theme_colour
from elotui.tui.sanitize import one_line

BAR_WIDTH = 24
NARROW_BELOW = 110  # terminal columns below which the bar and the judge-kind labels are short
MIN_NAME = 12  # the tournament's name keeps at least this many characters on the first line


def human_count(n: float) -> str:
    n = float(n)
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


def dollars(cost: float) -> str:
    """A cost as the screen shows it everywhere: cents are not enough below a dollar ($0.0383, $12.40)."""
    return f"${cost:.4f}" if abs(cost) < 1 else f"${cost:.2f}"


def human_duration(seconds: float | None) -> str:
    if seconds is None or math.isnan(seconds) or seconds < 0:
        return "—"
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600}h{(s % 3600) // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def progress_bar(done: int, total: int, width: int = BAR_WIDTH) -> str:
    share = done / total if total else 0.0
    eighths = round(share * width * 8)
    full, rest = divmod(eighths, 8)
    bar = "█" * full + ("▏▎▍▌▋▊▉"[rest - 1] if rest else "")
    return bar + " " * (width - len(bar))


@dataclass
class StatusInfo:
    name: str
    threshold: str
    method: str
    scope: str
    state: str  # preparing (a run plans, before its first call), running, paused, finished, stopped, budget, stored,
    # imported (a large import's replay waits for `p`)
    kinds: list[str]  # the judge kinds: live, replay, simulated
    progress: Progress | None = None
    done: int = 0
    total: int = 0
    failed: int = 0
    invalid: int = 0
    ranking_note: str = ""  # e.g. "updating…" while a newer ranking is computed
    detail: str = ""  # watching another process's run: which run, where


class StatusBar(Static):
    _shown: Text | None = None

    def show(self, info: StatusInfo) -> None:
        """Show `info`; unchanged text is not drawn again (the app calls this 4 times a second, also when idle)."""
        width = self.app.size.width
        t = Text(no_wrap=True, overflow="ellipsis")
        view_line(t, info, width, self)
        t.append("\n")
        progress_line(t, info, width, self)
        t.append("\n")
        counts_line(t, info)
        if t == self._shown:
            return
        self._shown = t
        self.update(t, layout=False)  # its height is fixed (#status: 3 lines): nothing to lay out again


def view_line(t: Text, info: StatusInfo, width: int, widget: Static) -> None:
    """The first line: the judges' kind (when not live), the name, then threshold · method · scope."""
    narrow = width < NARROW_BELOW
    for kind, wide, short in (
        ("replay", " REPLAY: recorded verdicts ", " REPLAY "),
        ("simulated", " SIMULATED judges ", " SIMULATED "),
    ):
        if kind in info.kinds:
            t.append(short if narrow else wide, style=f"reverse {theme_colour(widget.app, 'label-' + kind)}")
            t.append(" ")
    view = f"   threshold {info.threshold} · {info.method} · {info.scope}"
    room = width - 2 - t.cell_len - len(view) - (len(info.ranking_note) + 2 if info.ranking_note else 0)
    t.append(one_line(info.name, max(room, MIN_NAME)), style="bold")
    t.append("   threshold ")
    t.append(info.threshold, style="bold")
    t.append(" · ")
    t.append(info.method, style="bold")
    t.append(" · ")
    t.append(info.scope)
    if info.ranking_note:
        t.append(f"  {info.ranking_note}", style="italic")


def progress_line(t: Text, info: StatusInfo, width: int, widget: Static) -> None:
    """The second line: the state, and the tournament's calls answered of its plan and recorded cost."""
    t.append(f" {info.state.upper()} ", style="reverse bold")
    t.append(" ")
    if info.state.endswith("preparing"):  # no count yet: the calls are being planned (q stops it at once)
        t.append("planning the calls…", style="italic")
    else:
        p = info.progress
        done = p.done if p else info.done
        total = p.total if p else info.total
        bar = 8 if width < NARROW_BELOW else BAR_WIDTH
        t.append(progress_bar(done, total, bar), style=theme_colour(widget.app, "band-strong"))
        pct = f"{100 * done / total:.0f}%" if total else "—"
        t.append(f" tournament: {done}/{total} calls ({pct})")
        if p is not None:
            cost = dollars(p.cost)
            if p.estimated_total_cost is not None:
                cost += f" of ~{dollars(p.estimated_total_cost)}"
            t.append(f" · cost {cost}")
    if info.detail:
        t.append(f"  {one_line(info.detail, 80)}", style="italic")


def counts_line(t: Text, info: StatusInfo) -> None:
    """The third line: this run's rate, ETA, failures, invalid replies, calls in flight and from the store, tokens;
    without a run, the tournament's failures and invalid replies."""
    p = info.progress
    if p is None:
        t.append("tournament: ")
        t.append(f"failed {info.failed}", style="bold" if info.failed else "")
        t.append(f" · invalid {info.invalid}")
        return
    t.append("this run: ")
    if info.state.endswith(("running", "paused")):
        t.append(f"{p.rate_per_s:.1f} calls/s · ETA {human_duration(p.eta_s)} · ")
    t.append(f"failed {p.failed}", style="bold" if p.failed else "")
    t.append(f" · invalid {p.invalid} · cost {dollars(p.run_cost)}")
    t.append(f" · in flight {p.in_flight} · from the store {p.cached}")
    t.append(f" · tokens {human_count(p.input_tokens)} in / {human_count(p.output_tokens)} out")
