"""Rankings as files: the leaderboard of one threshold/method/scope, recomputed from the store, as CSV or JSON.

CSV: UTF-8 without BOM, `\\n` line ends, exactly `COLUMNS` in that order; `gap_to_next`, `win_prob_vs_next` and
`band` are empty on the last row; floats are written in full precision (`repr`), never rounded for display.
JSON: `{"tournament", "settings", "counts", "rows"}` with the same rows (non-finite floats become null).
"""

from __future__ import annotations

import csv
import json
import math
from typing import IO, TYPE_CHECKING, Any

from elotui.config import parse_threshold
from elotui.errors import UserError
from elotui.rating.games import games_from_tally
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow, rank, rank_games
from elotui.rating.table import VerdictTable

if TYPE_CHECKING:
    from elotui.config import Tournament
    from elotui.store import Store

COLUMNS: tuple[str, ...] = (
    "rank", "contestant", "rating", "ci_low", "ci_high", "gap_to_next", "win_prob_vs_next", "band",
    "wins", "losses", "draws", "games", "win_rate",
)
EXPORT_METHODS: tuple[str, ...] = ("elo", "bt")


def leaderboard_for(
    tournament: Tournament,
    store: Store,
    *,
    threshold: float | str | None = None,
    method: str | None = None,
    prompt: str | None = None,
    tally: list[tuple[str, str, str, str | None, int]] | None = None,
) -> Leaderboard:
    """The leaderboard of the tournament's current plan, read from the store (no judge calls).

    `threshold` / `method` override the tournament's `[ranking]` settings; `prompt` restricts the scope to one
    prompt. `tally`: `store.verdict_tally([prompt] or None)` when the caller has just read it (`elotui export`
    reads it while it starts up); used for threshold none with Elo only, else ignored.
    Raises UserError for an unknown prompt, a bad threshold or method, or a store without a plan.
    """
    settings = tournament.spec.ranking
    try:
        chosen_threshold = settings.threshold if threshold is None else parse_threshold(threshold)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    chosen_method = settings.method if method is None else method
    if chosen_method not in EXPORT_METHODS:
        raise UserError(f"method must be one of {', '.join(EXPORT_METHODS)}, not {chosen_method!r}")
    if prompt is not None and prompt not in tournament.prompt_ids:
        raise UserError(
            f"prompt '{prompt}' is not in {tournament.path.name} (prompts: {', '.join(tournament.prompt_ids)})"
        )
    scope = [prompt] if prompt is not None else None
    rating_options: dict[str, Any] = {
        "threshold": chosen_threshold,
        "method": chosen_method,
        "k_factor": settings.k_factor,
        "initial_rating": settings.initial_rating,
        "permutations": settings.permutations,
        "bootstrap": settings.bootstrap,
        "seed": settings.seed,
        "prompts": scope,
    }
    if chosen_threshold == "none" and chosen_method == "elo":
        # Permutation-averaged Elo over the No-Threshold games needs only their multiset: counted in SQL
        # (a few hundred rows), not one Python row per verdict. Same games, codes and ratings as the table path.
        if tally is None:
            tally = store.verdict_tally(scope)
        g = games_from_tally(tally, tournament.contestant_ids) if tally else None  # else: the path below
        if g is not None:
            return rank_games(list(tournament.contestant_ids), g, **rating_options)
    rows = store.plan_verdicts()
    if not rows:
        raise UserError(f"{store.path}: no comparison plan recorded for this tournament yet (run `elotui run` first)")
    table = VerdictTable.from_rows(
        rows, contestants=tournament.contestant_ids, prompts=tournament.prompt_ids, judges=tournament.judge_ids
    )
    return rank(table, **rating_options)


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


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


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
    return _json_value(doc)  # type: ignore[no-any-return]


def write_json(leaderboard: Leaderboard, fh: IO[str], *, tournament: str | None = None) -> None:
    """The leaderboard as one JSON document (settings, counts, rows), indented, ending with a newline."""
    json.dump(leaderboard_document(leaderboard, tournament=tournament), fh, indent=2, ensure_ascii=False,
              allow_nan=False)
    fh.write("\n")
