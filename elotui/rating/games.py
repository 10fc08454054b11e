"""From verdicts to games, per agreement threshold (Braun and Forell 2026, agreement thresholds).

A *presentation* is (prompt, contestant shown first, contestant shown second, condition). Its votes are the valid
verdicts of every judge and sample for it; a tie vote counts half for each side.

- t in {1.0, 0.9, 0.75}: the side whose share of the votes is >= t wins the presentation's game, else a draw.
- t = 0.5 (simple majority): the side whose share is > 0.5 wins, else a draw.
- "none": every valid verdict is its own game (a tie vote is a draw).

Invalid, failed and missing verdicts are excluded and counted. Games come out in arrival order (a thresholded
game sits where its presentation's first row was stored), which the online Elo uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from elotui.rating.radix import groups_by_arrival
from elotui.rating.table import (
    OUTCOME_FIRST,
    OUTCOME_SECOND,
    OUTCOME_TIE,
    VerdictTable,
)
from elotui.vocab import THRESHOLDS, Threshold, parse_threshold

__all__ = ["THRESHOLDS", "Games", "Threshold", "games", "record"]

_EPS = 1e-9  # 9 votes of 10 must meet 0.9 whatever the float rounding
# the score of the contestant shown first, by valid outcome code
_FIRST_SCORE = np.zeros(max(OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE) + 1)
_FIRST_SCORE[OUTCOME_FIRST] = 1.0
_FIRST_SCORE[OUTCOME_TIE] = 0.5


@dataclass(frozen=True)
class Games:
    """Games as parallel arrays: contestant codes `a`, `b`, the score of `a` (1 win, 0.5 draw, 0 loss) and the
    code of the prompt each game was played on (the cluster the prompt bootstrap resamples)."""

    a: NDArray[np.int32]
    b: NDArray[np.int32]
    score_a: NDArray[np.float64]
    n_contestants: int
    counts: dict[str, int]
    prompt: NDArray[np.int32] = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    judge: NDArray[np.int32] = field(
        default_factory=lambda: np.zeros(0, dtype=np.int32)
    )  # threshold none only
    # the games added by `[ranking] strong_weight` (a strong verdict's repeats, elotui.rating.graded.weighted): fitted
    # as games, never counted as verdicts in W/L/D (`record`); empty: none
    repeat: NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))

    def __len__(self) -> int:
        return len(self.a)

    def select(self, keep: NDArray[np.bool_] | NDArray[np.intp]) -> Games:
        """The games at `keep` (a mask or indices), prompt codes included (self for a mask keeping them all)."""
        if keep.dtype == np.bool_ and len(keep) == len(self.a) and keep.all():
            return self
        prompt = self.prompt[keep] if len(self.prompt) == len(self.a) else self.prompt
        judge = self.judge[keep] if len(self.judge) == len(self.a) else self.judge
        repeat = self.repeat[keep] if len(self.repeat) == len(self.a) else self.repeat
        return Games(
            self.a[keep],
            self.b[keep],
            self.score_a[keep],
            self.n_contestants,
            dict(self.counts),
            prompt,
            judge,
            repeat,
        )


def games(table: VerdictTable, threshold: Threshold, mask: NDArray[np.bool_] | None = None) -> Games:
    """The games of `table` (restricted to `mask`) at `threshold`."""
    threshold = parse_threshold(threshold)
    outcome = table.outcome
    first = table.first
    second = table.second
    counts = table.counts(mask)
    n = len(table.contestants)
    if threshold == "none":
        valid = table.valid(mask)
        every = bool(valid.all())  # every row a game: the table's own columns, not copies

        def kept(column: NDArray[np.int32]) -> NDArray[np.int32]:
            if not every:  # by the mask itself: no list of rows (8 MB at 10^6)
                return column[valid].astype(np.int32, copy=False)
            # a read-only view: the table only ever appends, so its first rows stay as they are (10^7 rows: four
            # 40 MB copies fewer)
            view = column.view()
            view.flags.writeable = False
            return view

        out_v = outcome if every else outcome[valid]
        counts["games"] = len(out_v)
        return Games(
            kept(first),
            kept(second),
            _FIRST_SCORE[out_v],
            n,
            counts,
            kept(table.prompt),
            kept(table.judge),
        )

    pres = (
        table.derived("presentations", lambda: presentations(table, np.flatnonzero(table.valid())))
        if mask is None
        else presentations(table, np.flatnonzero(table.valid(mask)))
    )
    share_first = pres.share_first
    share_second = 1.0 - share_first
    if threshold == 0.5:
        first_wins = share_first > 0.5 + _EPS
        second_wins = share_second > 0.5 + _EPS
    else:
        first_wins = share_first >= threshold - _EPS
        second_wins = share_second >= threshold - _EPS
    score = np.where(first_wins, 1.0, np.where(second_wins, 0.0, 0.5))
    pres_rows = pres.rows
    counts["games"] = len(pres_rows)
    return Games(
        first[pres_rows],
        second[pres_rows],
        score,
        n,
        counts,
        table.prompt[pres_rows].astype(np.int32),
    )


@dataclass(frozen=True)
class Presentations:
    """The valid verdicts of `rows` grouped by presentation, the groups in arrival order: each group's first row
    and the share of its votes for the contestant shown first (what every threshold compares)."""

    rows: NDArray[np.intp]
    share_first: NDArray[np.float64]


def presentations(table: VerdictTable, rows: NDArray[np.intp]) -> Presentations:
    """The presentations of the verdicts at `rows` (valid ones, ascending), with their first-shown vote share."""
    out_v = table.outcome[rows]
    n = len(table.contestants)
    n_cond = max(len(table.conditions), 1)
    key = table.prompt[rows].astype(np.int64)
    key = (key * n + table.first[rows]) * n + table.second[rows]
    key = key * n_cond + table.condition[rows]
    # presentations in arrival order (their first verdict's row), and each verdict's presentation
    first_row, inverse = groups_by_arrival(key, max(len(table.prompts), 1) * n * n * n_cond)
    n_pres = len(first_row)
    # share of the first-shown contestant, in half votes: 2*wins_first + ties over 2*votes
    half_first = np.bincount(
        inverse, weights=np.where(out_v == OUTCOME_FIRST, 2.0, (out_v == OUTCOME_TIE) * 1.0), minlength=n_pres
    )
    votes = np.bincount(inverse, minlength=n_pres).astype(np.float64)
    out = Presentations(rows[first_row], half_first / (2.0 * votes))
    out.rows.flags.writeable = out.share_first.flags.writeable = False  # a table may keep them (`derived`)
    return out


def tally(
    a: NDArray[np.integer],
    b: NDArray[np.integer],
    s: NDArray[np.floating],
    n: int,
    many: NDArray[np.integer] | None = None,
) -> NDArray[np.int64]:
    """(n, 3) per contestant: full wins, full losses, the rest (draws and split scores), over games a vs b where a
    scored s (each game `many` times, where given: distinct games with their counts)."""
    s = np.asarray(s)
    win = (s == 1.0).view(np.uint8)
    loss = (s == 0.0).view(np.uint8)
    weights = None if many is None else np.asarray(many, dtype=np.float64)  # exact below 2^53
    # kind 0 a full win, 1 a full loss, 2 the rest: a's is 2 - 2 win - loss, b's 2 - 2 loss - win (one byte each)
    counts = np.bincount(_cells(a, 2 - 2 * win - loss), weights, minlength=3 * n)
    counts += np.bincount(_cells(b, 2 - 2 * loss - win), weights, minlength=3 * n)
    return counts.astype(np.int64, copy=False).reshape(n, 3)


def _cells(codes: NDArray[np.integer], kind: NDArray[np.uint8]) -> NDArray[np.intp]:
    """codes * 3 + kind, built in one intp array."""
    cells = np.asarray(codes).astype(np.intp)
    cells *= 3
    cells += kind
    return cells


def record(g: Games) -> dict[str, NDArray[np.float64]]:
    """Per contestant: wins, losses, draws, games and win rate ((wins + draws/2) / games, NaN with no games), of the
    verdicts: a strong verdict's repeats (`Games.repeat`) are fitted, not counted."""
    if len(g.repeat) == len(g.a) and g.repeat.any():
        g = g.select(~g.repeat)
    wins, losses, draws = tally(g.a, g.b, g.score_a, g.n_contestants).T
    played = wins + losses + draws
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(played > 0, (wins + 0.5 * draws) / np.maximum(played, 1), np.nan)
    return {"wins": wins, "losses": losses, "draws": draws, "games": played, "win_rate": rate}
