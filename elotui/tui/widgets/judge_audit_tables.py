"""The diagnostics pane's "which judge to trust" tables (rich renderables from the diagnose report): self-preference,
the judges against gold labels, learned judge weights and human agreement, and each judge's own ranking."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from elotui.tui.sanitize import one_line
from elotui.tui.widgets.narrow_table import Fitted, fitted


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def _pct(value: float | None) -> str:
    return "—" if _missing(value) else f"{100 * value:.1f}%"  # type: ignore[operator]


def _num(value: float | None, digits: int = 2) -> str:
    return "—" if _missing(value) else f"{value:.{digits}f}"


def _table(*columns: str) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for n, name in enumerate(columns):
        table.add_column(name, justify="left" if n == 0 else "right", no_wrap=True)
    return table


def self_preference_table(report: Mapping[str, Any]) -> Fitted | None:
    sp = report.get("self_preference")
    if not sp:
        return None
    t = _table("judge (is)", "presentations", "its win rate", "others'", "difference", "95 % by prompt")
    t.columns[0].no_wrap = False  # "judge (contestant)" breaks at its space where the pane is narrow
    for judge, s in sp.items():
        ci = f"[{100 * s['ci_low']:+.1f}, {100 * s['ci_high']:+.1f}]" if s.get("rounds") else "—"
        diff = s["difference"]
        t.add_row(
            f"{one_line(judge, 20)} ({one_line(s['contestant'], 20)})",
            str(s["presentations"]),
            _pct(s["judge_win_rate"]),
            _pct(s["others_win_rate"]),
            "—" if _missing(diff) else f"{100 * diff:+.1f} pts",
            ci,
        )
    return fitted(t)


def gold_table(report: Mapping[str, Any]) -> Fitted | None:
    gold = report.get("gold")
    if not gold:
        return None
    from elotui.rating.gold import GOLD_HEADER, gold_cells

    t = _table(*GOLD_HEADER)
    for judge, g in gold["by_judge"].items():
        t.add_row(*gold_cells(one_line(judge, 24), g))
    return fitted(t)


def weights_table(report: Mapping[str, Any]) -> RenderableType | None:
    jw = report.get("judge_weights")
    if not jw or not jw.get("weights"):
        return None
    t = _table("judge", "learned weight", "95 % by prompt", "alone vs humans")
    human = jw.get("human_agreement") or {}
    single = human.get("single_judges", {})
    for judge, w in jw["weights"].items():
        ci = f"[{_num(w['ci_low'])}, {_num(w['ci_high'])}]" if w.get("ci_low") is not None else "—"
        t.add_row(one_line(judge, 24), _num(w["weight"]), ci, _pct(single.get(judge)))
    if not human:
        return fitted(t)
    note = Text(
        f"summed votes vs the human majority on {human['items']} items: equal weights "
        f"{_pct(human['equal_weights'])}, learned weights {_pct(human['learned_weights'])}",
        style="dim",
    )
    return Group(fitted(t), note)


def per_judge_table(report: Mapping[str, Any]) -> Fitted | None:
    pj = report.get("per_judge")
    if not pj:
        return None
    t = _table("judge", "τ vs panel", "τ vs reference", "its own ranking")
    for judge, j in pj["by_judge"].items():
        t.add_row(
            one_line(judge, 24),
            _num(j["tau_vs_panel"]),
            _num(j["tau_vs_reference"]),
            one_line(" > ".join(j["ranking"]), 80),
        )
    return fitted(t)


def trust_tables(report: Mapping[str, Any]) -> RenderableType:
    """Every table the report has data for, each under its title."""
    parts: list[RenderableType] = []
    for title, build in (
        ("Judges against gold labels (agree*: LLMBar's convention, two invalid verdicts agree)", gold_table),
        (
            "Self-preference: a judge's win rate for its own contestant vs the other judges'",
            self_preference_table,
        ),
        ("Judge-aware Bradley–Terry: learned weights", weights_table),
        ("Each judge's own ranking", per_judge_table),
    ):
        rendered = build(report)
        if rendered is not None:
            parts += [Text(title, style="bold"), rendered, Text("")]
    return Group(*parts) if parts else Text("no judge audit for this tournament", style="dim")
