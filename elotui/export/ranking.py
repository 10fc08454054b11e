"""Rankings as files: a leaderboard (`TournamentSession.leaderboard`) as CSV or JSON.

CSV: UTF-8 without BOM, `\\n` line ends, exactly `COLUMNS` in that order; `gap_to_next`, `win_prob_vs_next` and
`band` are empty on the last row; floats are written in full precision (`repr`), never rounded for display.
JSON: `{"tournament", "settings", "counts", "rows"}` with the same rows (non-finite floats become null).
"""

from __future__ import annotations

import csv
import json
from typing import IO, Any

from elotui.jsonable import jsonable
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow

COLUMNS: tuple[str, ...] = (
    "rank",
    "contestant",
    "rating",
    "ci_low",
    "ci_high",
    "gap_to_next",
    "win_prob_vs_next",
    "band",
    "wins",
    "losses",
    "draws",
    "games",
    "win_rate",
)


def _csv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def row_values(row: LeaderboardRow) -> list[Any]:
    return [getattr(row, name) for name in COLUMNS]


def write_csv(leaderboard: Leaderboard, fh: IO[str]) -> None:
    """The leaderboard as CSV (header + one line per contestant, `\\n` line ends)."""
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in leaderboard.rows:
        writer.writerow([_csv_cell(v) for v in row_values(row)])


def export_settings(leaderboard: Leaderboard) -> dict[str, Any]:
    """The settings a reader needs to reproduce the ranking: threshold, method, its rounds, seed and scope."""
    s = leaderboard.settings
    out: dict[str, Any] = {"threshold": s.get("threshold"), "method": s.get("method")}
    if s.get("method") == "bt":
        out["bootstrap"] = s.get("bootstrap")
    else:
        out["permutations"] = s.get("permutations")
    out["seed"] = s.get("seed")
    out["k_factor"] = s.get("k_factor")
    out["initial_rating"] = s.get("initial_rating")
    out["scope"] = {"prompts": s.get("prompts"), "judges": s.get("judges"), "conditions": s.get("conditions")}
    return out


def leaderboard_document(leaderboard: Leaderboard, *, tournament: str | None = None) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if tournament is not None:
        doc["tournament"] = tournament
    doc["settings"] = export_settings(leaderboard)
    doc["counts"] = dict(leaderboard.counts)
    doc["columns"] = list(COLUMNS)
    doc["rows"] = [dict(zip(COLUMNS, row_values(row), strict=True)) for row in leaderboard.rows]
    return jsonable(doc)  # type: ignore[no-any-return]


def write_json(leaderboard: Leaderboard, fh: IO[str], *, tournament: str | None = None) -> None:
    """The leaderboard as one JSON document (settings, counts, rows), indented, ending with a newline."""
    json.dump(
        leaderboard_document(leaderboard, tournament=tournament),
        fh,
        indent=2,
        ensure_ascii=False,
        allow_nan=False,
    )
    fh.write("\n")
