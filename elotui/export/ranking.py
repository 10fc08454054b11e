"""Rankings as files: a leaderboard (`TournamentSession.leaderboard`) as CSV or JSON.

CSV: UTF-8 without BOM, `\\n` line ends, the thirteen `COLUMNS` of elotui 0.1 first, then `CERTAINTY_COLUMNS`
(`gap_ci_low,gap_ci_high,order_confidence`); the gap columns and `band` are empty on the last row of a group;
`rank`, `rating`, `ci_low`, `ci_high` are empty for an unranked contestant; floats in full precision (`repr`).
The ranking CSV is meant for spreadsheets, so a text cell that a spreadsheet would evaluate as a formula (one
starting with `=`, `+`, `-`, `@`, a tab or a carriage return: OWASP's CSV-injection rule) is written with a
leading `'` (the neo4j-admin CSVs of `elotui graph` keep exact values: they are for the importer).
JSON: `{"tournament", "provenance", "settings", "counts", "warnings", "columns", "rows"}` (`provenance`: the
elotui version, the content hashes of the tournament and data files, each judge's settings without keys, the
store's runs, the export time); each row has the CSV's columns plus
`band_range`, `bound`, `group`, `order_spread_low`, `order_spread_high`, `order_uncertain` (why the order of the
row above the next is not established: order confidence below one half, or no path of wins orders them; null when
it is), `order_basis` (Bradley–Terry: "ratings", "wins" or "unordered"), `band_claim` (false: too few prompts to call
any band certain), `drop_to_flip` (the fewest verdicts whose removal puts the next row above this one) and
`fragile` (at most 1 % of them; `settings.drop_to_flip` says how); `settings.interval` says what the
interval is (`{"kind": "bootstrap", "unit": "prompt" | "game", "level": 0.95, "rounds": N}`, and for
Bradley–Terry `separation`: what is shown where the wins do not link every contestant both ways), exact text, no
neutralisation (non-finite floats become null).
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


CERTAINTY_COLUMNS: tuple[str, ...] = ("gap_ci_low", "gap_ci_high", "order_confidence")
CSV_COLUMNS: tuple[str, ...] = COLUMNS + CERTAINTY_COLUMNS
JSON_COLUMNS: tuple[str, ...] = CSV_COLUMNS + (
    "band_range",
    "bound",
    "group",
    "order_spread_low",
    "order_spread_high",
    "order_uncertain",
    "order_basis",
    "drop_to_flip",
    "fragile",
    "band_claim",
)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def row_values(row: LeaderboardRow, columns: tuple[str, ...] = CSV_COLUMNS) -> list[Any]:
    return [getattr(row, name) for name in columns]


def spreadsheet_safe(value: Any) -> Any:
    """A text cell a spreadsheet would evaluate (=, +, -, @, tab, CR first) gets a leading `'`; numbers stay."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def write_csv(leaderboard: Leaderboard, fh: IO[str]) -> None:
    """The leaderboard as CSV (header + one line per contestant, `\\n` line ends)."""
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in leaderboard.rows:
        writer.writerow([_csv_cell(spreadsheet_safe(v)) for v in row_values(row)])


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
    if s.get("style_control") is not None:  # features, source, and each coefficient with its interval
        out["style_control"] = s["style_control"]
    if s.get("anchor") is not None:  # {contestant, rating}: every rating shifted to put that contestant there
        out["anchor"] = s["anchor"]
    if s.get("strong_weight") is not None:  # graded verdicts: {weight, strong_verdicts, counted}
        out["strong_weight"] = s["strong_weight"]
    out["scope"] = {"prompts": s.get("prompts"), "judges": s.get("judges"), "conditions": s.get("conditions")}
    out["interval"] = s.get("interval")
    if "order_spread" in s:
        out["order_spread"] = s["order_spread"]
    out["scale"] = s.get("scale")
    out["design"] = s.get("design", {"pairs": "all"})
    if "drop_to_flip" in s:
        out["drop_to_flip"] = s["drop_to_flip"]
    return out


def leaderboard_document(
    leaderboard: Leaderboard, *, tournament: str | None = None, provenance: dict[str, Any] | None = None
) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    if tournament is not None:
        doc["tournament"] = tournament
    if provenance is not None:
        doc["provenance"] = provenance
    doc["settings"] = export_settings(leaderboard)
    doc["counts"] = dict(leaderboard.counts)
    doc["warnings"] = list(leaderboard.warnings)
    doc["columns"] = list(JSON_COLUMNS)
    doc["rows"] = [
        dict(zip(JSON_COLUMNS, row_values(row, JSON_COLUMNS), strict=True)) for row in leaderboard.rows
    ]
    return jsonable(doc)  # type: ignore[no-any-return]


def write_json(
    leaderboard: Leaderboard,
    fh: IO[str],
    *,
    tournament: str | None = None,
    provenance: dict[str, Any] | None = None,
) -> None:
    """The leaderboard as one JSON document (provenance, settings, counts, rows), indented, ending with a
    newline."""
    json.dump(
        leaderboard_document(leaderboard, tournament=tournament, provenance=provenance),
        fh,
        indent=2,
        ensure_ascii=False,
        allow_nan=False,
    )
    fh.write("\n")
