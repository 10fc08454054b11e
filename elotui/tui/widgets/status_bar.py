"""The header: tournament, threshold, method, scope, run state and a progress line."""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from elotui.run.events import Progress
from elotui.tui.colours import theme_colour
from elotui.tui.sanitize import one_line

BAR_WIDTH = 24


def human_count(n: float) -> str:
    n = float(n)
    for unit, size in (("M", 1e6), ("k", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f}{unit}"
    return f"{n:.0f}"


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
    state: str  # preparing (a run plans, before its first call), running, paused, finished, stopped, budget, stored
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
        app = self.app
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(one_line(info.name, 80), style="bold")
        t.append("   threshold ")
        t.append(info.threshold, style="bold")
        t.append(" · ")
        t.append(info.method, style="bold")
        t.append(" · ")
        t.append(info.scope)
        if info.ranking_note:
            t.append(f"  {info.ranking_note}", style="italic")
        t.append("\n")
        t.append(f" {info.state.upper()} ", style="reverse bold")
        p = info.progress
        done = p.done if p else info.done
        total = p.total if p else info.total
        t.append(" ")
        if info.state.endswith("preparing"):  # no count yet: the calls are being planned (q stops it at once)
            t.append("planning the calls…", style="italic")
        else:
            narrow = self.app.size.width < 110
            t.append(
                progress_bar(done, total, 10 if narrow else BAR_WIDTH), style=theme_colour(app, "band-strong")
            )
            pct = f"{100 * done / total:.0f}%" if total else "—"
            t.append(f" {done}/{total} calls ({pct})")
        if info.detail:
            t.append(f"  {one_line(info.detail, 80)}", style="italic")
        if "replay" in info.kinds:
            t.append(" ")
            t.append(" REPLAY: recorded verdicts ", style=f"reverse {theme_colour(app, 'label-replay')}")
        if "simulated" in info.kinds:
            t.append(" ")
            t.append(" SIMULATED judges ", style=f"reverse {theme_colour(app, 'label-simulated')}")
        t.append("\n")
        counts_line(t, info)
        if t == self._shown:
            return
        self._shown = t
        self.update(t, layout=False)  # its height is fixed (#status: 3 lines): nothing to lay out again


def counts_line(t: Text, info: StatusInfo) -> None:
    """The status bar's third line: failures, and the run's rate, cache and cost."""
    p = info.progress
    failed = p.failed if p else info.failed
    invalid = p.invalid if p else info.invalid
    t.append(f"failed {failed}", style="bold" if failed else "")
    t.append(f" · invalid {invalid}")
    if p is not None:
        if info.state.endswith(("running", "paused")):
            t.append(f" · {p.rate_per_s:.1f} calls/s · ETA {human_duration(p.eta_s)}")
        t.append(f" · in flight {p.in_flight} · cached {p.cached}")
        t.append(f" · tokens {human_count(p.input_tokens)} in / {human_count(p.output_tokens)} out")
        cost = f"${p.cost:.2f}"
        if p.estimated_total_cost is not None:
            cost += f" of ~${p.estimated_total_cost:.2f} estimated"
        t.append(f" · cost {cost}")
