"""`elotui report --plots DIR`: the report's charts as PNG and SVG files, drawn with matplotlib (an optional
dependency: `pip install 'elotui[report]'`) from the same document as the HTML page (`elotui.report.document`),
so a figure shows exactly the numbers of `elotui export` / `elotui diagnose`.

Figures (each as `<name>.png` and `<name>.svg`): `ratings` (the forest plot: each rating and its 95 % interval),
`gaps` (each adjacent gap, its interval, its band as the bar's colour, the order confidence as its label),
`head_to_head` (the row's share of its verdicts against the column, ties half), `position_bias` (per judge, the
shares of consistent, position-bias and inconclusive units), `kappa` (Cohen's κ between judges), `tau` (the
histogram of per-prompt τ). Colours: the Okabe-Ito palette (colour-blind safe).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from elotui.errors import UserError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

BAND_COLOURS = {"practically tied": "#999999", "moderate": "#E69F00", "strong": "#0072B2"}
POSITION_COLOURS = (("consistent", "#009E73"), ("position_bias", "#D55E00"), ("inconclusive", "#BBBBBB"))


def require_matplotlib() -> None:
    """UserError (exit 2) with the install line when matplotlib is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UserError(
            "--plots needs matplotlib, which is not installed: pip install 'elotui[report]'"
        ) from None


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def rated_rows(board: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in board["rows"] if r["rating"] is not None]


def ratings_figure(board: dict[str, Any], title: str) -> Figure:
    rows = rated_rows(board)[::-1]  # the best at the top
    fig = _figure(7, 0.45 * len(rows) + 1.2)
    ax = fig.add_subplot()
    y = list(range(len(rows)))
    x = [r["rating"] for r in rows]
    low = [r["rating"] - (r["ci_low"] if r["ci_low"] is not None else r["rating"]) for r in rows]
    high = [(r["ci_high"] if r["ci_high"] is not None else r["rating"]) - r["rating"] for r in rows]
    ax.errorbar(x, y, xerr=[low, high], fmt="o", color="#D55E00", ecolor="#0072B2", elinewidth=2, capsize=3)
    ax.set_yticks(y, [r["contestant"] for r in rows])
    ax.set_xlabel("rating (95 % interval)")
    ax.set_title(title)
    ax.grid(axis="x", color="#dddddd")
    return fig


def gaps_figure(board: dict[str, Any], title: str) -> Figure:
    rows = [r for r in board["rows"] if r["gap_to_next"] is not None]
    fig = _figure(7, 0.45 * max(len(rows), 1) + 1.4)
    ax = fig.add_subplot()
    labels = [f"{r['contestant']} › next" for r in rows][::-1]
    gaps = [r["gap_to_next"] for r in rows][::-1]
    lows = [r["gap_to_next"] - r["gap_ci_low"] if r["gap_ci_low"] is not None else 0 for r in rows][::-1]
    highs = [r["gap_ci_high"] - r["gap_to_next"] if r["gap_ci_high"] is not None else 0 for r in rows][::-1]
    colours = [BAND_COLOURS.get(r["band"], "#999999") for r in rows][::-1]
    bars = ax.barh(range(len(rows)), gaps, xerr=[lows, highs], color=colours, capsize=3)
    confidence = [r["order_confidence"] for r in rows][::-1]
    ax.bar_label(bars, [f"{c:.0%}" if c is not None else "" for c in confidence], padding=4)
    ax.set_yticks(range(len(rows)), labels)
    for edge in (50, 150):
        ax.axvline(edge, color="#666666", linestyle=":", linewidth=1)
    ax.set_xlabel("gap to the next rank, 95 % interval (label: order confidence; dotted: 50 and 150)")
    ax.set_title(title)
    return fig


def share_matrix(h2h: dict[str, Any]) -> list[list[float | None]]:
    """The row's share of its verdicts against the column (ties count half); None on the diagonal and without
    verdicts."""
    wins, ties = h2h["wins"], h2h["ties"]
    n = len(h2h["contestants"])
    out: list[list[float | None]] = []
    for i in range(n):
        row: list[float | None] = []
        for j in range(n):
            total = wins[i][j] + wins[j][i] + ties[i][j]
            row.append(None if i == j or not total else (wins[i][j] + ties[i][j] / 2) / total)
        out.append(row)
    return out


def _heatmap(
    matrix: list[list[float | None]], names: list[str], title: str, vmin: float, label: str
) -> Figure:
    import numpy as np

    fig = _figure(1.1 * len(names) + 2.5, 0.9 * len(names) + 1.5)
    ax = fig.add_subplot()
    values = np.array([[np.nan if v is None else v for v in row] for row in matrix], dtype=float)
    image = ax.imshow(values, cmap="PuOr", vmin=vmin, vmax=1.0)
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            if v is not None:
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    return fig


def kappa_matrix(agreement: dict[str, Any], judges: list[str]) -> list[list[float | None]]:
    k = {}
    for p in agreement["pairs"]:
        a, b = p["judges"]
        k[(a, b)] = k[(b, a)] = p["cohen_kappa"]
    return [[None if a == b else k.get((a, b)) for b in judges] for a in judges]


def position_figure(judges: dict[str, Any]) -> Figure:
    names = list(judges)
    fig = _figure(7, 0.45 * len(names) + 1.4)
    ax = fig.add_subplot()
    left = [0.0] * len(names)
    for key, colour in POSITION_COLOURS:
        shares = [judges[j]["position"][key] or 0.0 for j in names]
        ax.barh(names, shares, left=left, color=colour, label=key.replace("_", " "))
        left = [a + b for a, b in zip(left, shares, strict=True)]
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the pairs each judge saw in both orders")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=3, frameon=False)
    return fig


def tau_figure(taus: list[float | None]) -> Figure:
    """The histogram of the prompts' τ (None: undefined, left out)."""
    fig = _figure(7, 3.2)
    ax = fig.add_subplot()
    values = [v for v in taus if v is not None]
    ax.hist(values, bins=[-1 + 0.2 * i for i in range(11)], color="#56B4E9", edgecolor="white")
    ax.set_xlabel("Kendall's τ of the prompt's ranking against the overall ranking")
    ax.set_ylabel("prompts")
    return fig


def figures(doc: dict[str, Any], method: str, threshold: str) -> dict[str, Figure]:
    """The charts of one view (method, threshold), by file stem."""
    board = doc["boards"][f"{method}|{threshold}"]
    view = f"{'Bradley-Terry' if method == 'bt' else 'Elo'}, threshold {threshold}"
    d = doc["diagnose"]
    judges = [j["id"] for j in doc["meta"]["judges"]]
    makers: dict[str, Callable[[], Figure]] = {
        "ratings": lambda: ratings_figure(board, f"Ratings: {view}"),
        "gaps": lambda: gaps_figure(board, f"Adjacent gaps: {view}"),
    }
    if d.get("head_to_head"):
        h = d["head_to_head"]
        makers["head_to_head"] = lambda: _heatmap(
            share_matrix(h), h["contestants"], "Row's share against column (ties half)", 0.0, "share"
        )
    if d.get("judges"):
        makers["position_bias"] = lambda: position_figure(d["judges"])
    if d.get("agreement") and d["agreement"].get("pairs"):
        makers["kappa"] = lambda: _heatmap(
            kappa_matrix(d["agreement"], judges), judges, "Cohen's κ between judges", -1.0, "κ"
        )
    if d.get("per_prompt_tau"):
        tau = d["per_prompt_tau"]
        makers["tau"] = lambda: tau_figure(tau.get("values") or list(tau["by_prompt"].values()))
    return {name: make() for name, make in makers.items()}


def write_plots(doc: dict[str, Any], folder: Path) -> list[Path]:
    """Every chart of the document's first view as PNG and SVG in `folder` (created); the files written."""
    require_matplotlib()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{folder}: cannot create the folder: {exc.strerror}") from None
    meta = doc["meta"]
    written = []
    for name, fig in figures(doc, meta["method"], meta["threshold"]).items():
        for ext in ("png", "svg"):
            path = folder / f"{name}.{ext}"
            fig.savefig(path, dpi=150, metadata={"Date": None} if ext == "svg" else None)
            written.append(path)
    return written
