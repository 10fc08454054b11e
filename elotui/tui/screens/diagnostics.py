"""The diagnostics pane: position bias by judge and condition, inter-judge κ, the head-to-head grid, per-prompt
Kendall τ, length bias, the style control's coefficients (from the style-controlled leaderboard of the view shown:
elotui.tui.style_view), agreement with human votes and with the reference ranking per threshold, each prompt's
ranking against its own `reference_ranking` (only when some prompt has one), and ratings over the course of the run. The numbers come from `elotui.rating.diagnostics.diagnose`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import HorizontalScroll, VerticalScroll
from textual.widgets import Label, Static

from elotui.tui.sanitize import clean, one_line
from elotui.tui.widgets.charts import HeadToHeadGrid, Histogram, RatingChart
from elotui.tui.widgets.judge_audit_tables import trust_tables
from elotui.tui.widgets.narrow_table import Fitted, fitted
from elotui.tui.widgets.note import Note


def pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def position_table(report: Mapping[str, Any]) -> Fitted:
    conditions: list[str] = report.get("conditions", [])
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("judge", no_wrap=True)
    table.add_column("condition", no_wrap=True)
    for name in ("units", "consistent", "position bias", "inconclusive", "first-slot share"):
        table.add_column(name, justify="right", no_wrap=True)

    def add(judge: str, cond: str, r: dict[str, Any]) -> None:
        table.add_row(
            one_line(judge, 24),
            one_line(cond, 16),
            str(r.get("units", 0)),
            pct(r.get("consistent")),
            pct(r.get("position_bias")),
            pct(r.get("inconclusive")),
            pct(r.get("first_slot_share")),
        )

    for judge in report.get("judges_order", []):
        j = report["judges"][judge]
        add(judge, "all", j["position"])
        if len(conditions) > 1:
            for cond in conditions:
                add("", cond, j["position_by_condition"].get(cond, {}))
    add("all judges", "all", report.get("position", {}))
    if len(conditions) > 1:
        for cond in conditions:
            add("", cond, report.get("conditions_position", {}).get(cond, {}))
    return fitted(table)


def agreement_table(report: Mapping[str, Any]) -> Text | Fitted:
    agreement = report.get("agreement", {})
    pairs = agreement.get("pairs", [])
    if not pairs:
        return Text("one judge: no inter-judge agreement to measure", style="dim")
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in ("judges", "items", "agreement", "Cohen κ"):
        table.add_column(name, justify="left" if name == "judges" else "right", no_wrap=True)
    for p in pairs:
        a, b = p["judges"]
        table.add_row(
            f"{one_line(a, 18)} × {one_line(b, 18)}",
            str(p["items"]),
            pct(p["percent_agreement"]),
            num(p["cohen_kappa"]),
        )
    table.add_row(
        Text("all judges (Fleiss κ)", style="bold"),
        str(agreement.get("items", 0)),
        pct(agreement.get("percent_agreement")),
        num(agreement.get("fleiss_kappa")),
    )
    return fitted(table)


def judges_bias_table(report: Mapping[str, Any]) -> Fitted:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in (
        "judge",
        "longer wins",
        "decisive",
        "vs human: accuracy",
        "decisive acc.",
        "Cohen κ",
        "compared",
    ):
        table.add_column(name, justify="left" if name == "judge" else "right", no_wrap=True)
    for judge in report.get("judges_order", []):
        j = report["judges"][judge]
        lb = j.get("length_bias") or {}
        h = j.get("human") or {}
        table.add_row(
            one_line(judge, 24),
            pct(lb.get("longer_wins_share")),
            str(lb.get("decisive_verdicts", "—")),
            pct(h.get("accuracy")),
            pct(h.get("accuracy_decisive")),
            num(h.get("cohen_kappa")),
            str(h.get("compared", 0)),
        )
    pooled = report.get("length_bias") or {}
    table.add_row(
        Text("all judges", style="bold"),
        pct(pooled.get("longer_wins_share")),
        str(pooled.get("decisive_verdicts", "—")),
        "",
        "",
        "",
        "",
    )
    return fitted(table)


def reference_table(report: Mapping[str, Any]) -> Text | Group:
    ref = report.get("reference") or {}
    if not ref.get("by_threshold"):
        return Text("no reference: add [reference] votes or ranking to the tournament file", style="dim")
    title = Text(
        f"reference: {ref.get('source')}, best first: {' > '.join(one_line(c, 20) for c in ref['ranking'])}"
        f" · each threshold rated with {ref.get('method')}"
    )
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in ("threshold", "contestants", "Spearman ρ", "p", "Kendall τ", "p"):
        table.add_column(name, justify="right", no_wrap=True)
    for t, r in ref["by_threshold"].items():
        table.add_row(
            t,
            str(r["contestants"]),
            num(r["spearman_rho"]),
            num(r["spearman_p"], 3),
            num(r["kendall_tau"]),
            num(r["kendall_p"], 3),
        )
    return Group(title, fitted(table))


def prompt_reference_table(report: Mapping[str, Any]) -> Group | None:
    """Each prompt's ranking (its win rates) against its own reference_ranking; None when no prompt has one."""
    ppr = report.get("per_prompt_reference")
    if not ppr:
        return None
    s = ppr.get("summary", {})
    title = Text(
        f"τ over {s.get('prompts', 0)} prompts: mean {num(s.get('mean'))}, median {num(s.get('median'))}, "
        f"min {num(s.get('min'))}, max {num(s.get('max'))}",
        style="dim",
    )
    table = Table(box=None, pad_edge=False, header_style="bold")
    for name in ("prompt", "contestants", "Kendall τ", "p", "Spearman ρ", "p"):
        table.add_column(name, justify="left" if name == "prompt" else "right", no_wrap=True)
    for prompt, r in ppr.get("by_prompt", {}).items():
        table.add_row(
            one_line(prompt, 24),
            str(r["contestants"]),
            num(r["kendall_tau"]),
            num(r["kendall_p"], 3),
            num(r["spearman_rho"]),
            num(r["spearman_p"], 3),
        )
    return Group(title, fitted(table))


class DiagnosticsPane(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Note("computing diagnostics…", id="diag-summary")
        yield Label("Position bias (mirrored AB/BA units) by judge and condition", classes="section-title")
        yield Note(id="diag-position")
        yield Label("Inter-judge agreement", classes="section-title")
        yield Note(id="diag-agreement")
        yield Label(
            "Head to head: row's share of verdicts against column (ties half)", classes="section-title"
        )
        with HorizontalScroll(
            id="diag-h2h-scroll"
        ):  # many contestants: the grid at its width, scrolled sideways
            yield HeadToHeadGrid(id="diag-h2h")
        yield Label("Per-prompt Kendall τ (prompt ranking vs overall), histogram", classes="section-title")
        yield Histogram(id="diag-tau")
        yield Label("Length bias and agreement with human votes", classes="section-title")
        yield Note(id="diag-judges")
        yield Label(
            "Style control: Elo points per standard deviation of each feature (95 % bootstrap interval)",
            classes="section-title",
        )
        yield Note(id="diag-style")
        yield Label("Agreement with the reference ranking per threshold", classes="section-title")
        yield Note(id="diag-reference")
        yield Label(
            "Each prompt's ranking vs its own reference_ranking (win rates on the prompt)",
            classes="section-title",
            id="diag-prompt-reference-title",
        )
        yield Note(id="diag-prompt-reference")
        yield Label("Which judge to trust", classes="section-title")
        yield Note(id="diag-trust")
        yield Label("Ratings over the course of the run", classes="section-title", id="diag-chart-title")
        yield RatingChart(id="diag-chart")

    def show_style(self, lines: Text) -> None:
        """The style section: the coefficients of the style-controlled board of the leaderboard's view."""
        self.query_one("#diag-style", Note).update(lines)

    def show(self, report: Mapping[str, Any], trajectory: dict[str, Any], chart_label: str) -> None:
        c = report.get("counts", {})
        summary = Text(
            f"tournament: {c.get('verdicts', 0)} verdicts: {c.get('verdicts_used', 0)} valid, {c.get('invalid', 0)} invalid, "
            f"{c.get('failed', 0)} failed · {len(report.get('contestants', []))} contestants · "
            f"{len(report.get('judges_order', []))} judges · {report.get('prompts', 0)} prompts"
        )
        human = report.get("human")
        if human:
            summary.append(f" · {human.get('votes', 0)} human votes")
        for p in (report.get("voters") or {}).get("pairs", []):  # inter-annotator agreement of the voters
            summary.append(
                f" · κ {clean(' vs '.join(p['voters']))} {num(p['cohen_kappa'])} ({p['items']} items)"
            )
        self.query_one("#diag-summary", Static).update(summary)
        self.query_one("#diag-position", Static).update(position_table(report))
        self.query_one("#diag-agreement", Static).update(agreement_table(report))
        self.query_one("#diag-h2h", HeadToHeadGrid).show(report.get("head_to_head", {}))
        tau = report.get("per_prompt_tau", {})
        values = [v if v is not None else float("nan") for v in tau.get("by_prompt", {}).values()]
        s = tau.get("summary", {})
        tau_line = Text(
            f"τ over {s.get('prompts', 0)} prompts: mean {num(s.get('mean'))}, median "
            f"{num(s.get('median'))}, min {num(s.get('min'))}, max {num(s.get('max'))}",
            style="dim",
        )
        self.query_one("#diag-tau", Histogram).show(values, footer=tau_line)
        self.query_one("#diag-judges", Static).update(judges_bias_table(report))
        self.query_one("#diag-reference", Static).update(reference_table(report))
        prompt_reference = prompt_reference_table(report)
        self.query_one("#diag-prompt-reference-title", Label).display = prompt_reference is not None
        self.query_one("#diag-prompt-reference", Static).display = prompt_reference is not None
        self.query_one("#diag-prompt-reference", Static).update(prompt_reference or "")
        self.query_one("#diag-trust", Static).update(trust_tables(report))
        self.query_one("#diag-chart-title", Label).update(
            f"Ratings over the course of the run ({chart_label})"
        )
        self.query_one("#diag-chart", RatingChart).show(trajectory)
