"""How a strong verdict counts, on a case small enough to check by hand: at threshold `none` with
`strong_weight = 3` it is three games for Bradley–Terry and Elo; every agreement threshold counts it as one vote.

The table (contestants x, y; judges j1, j2):
    q1  x shown first   j1  x wins  STRONG
    q1  y shown first   j1  x wins
    q2  x shown first   j1  y wins
    q2  y shown first   j1  y wins
    q3  x shown first   j1  x wins  STRONG
    q3  x shown first   j2  y wins
At `none`, weight 1: 6 games, x 3 wins, y 3 wins. Weight 3: 10 games, x 7 wins (3 + 1 + 3), y 3.
At 0.5 (a majority of votes): q1 (x first) x, q1 (y first) x, q2 twice y, q3 (x first) 1 vote against 1: a
draw — whatever the weight (were the strong vote three, x would take q3 with 3 of 4 votes).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from elotui.rating.games import record
from elotui.rating.graded import strong_verdicts
from elotui.rating.leaderboard import RatingOptions, rank, scoped_games
from elotui.rating.table import VerdictTable
from elotui.tournament.model import load_tournament

ROWS = [
    ("q1", "x", "y", "j1", "clean", 0, "ok", "first"),
    ("q1", "y", "x", "j1", "clean", 0, "ok", "second"),
    ("q2", "x", "y", "j1", "clean", 0, "ok", "second"),
    ("q2", "y", "x", "j1", "clean", 0, "ok", "first"),
    ("q3", "x", "y", "j1", "clean", 0, "ok", "first"),
    ("q3", "x", "y", "j2", "clean", 0, "ok", "second"),
]
STRONG = [
    ROWS[0][:6],
    ROWS[4][:6],
]  # (prompt, first, second, judge, condition, sample) as the store gives them


def setting(tmp_path: Path, weight: int) -> tuple[VerdictTable, RatingOptions]:
    judges = "".join(
        f'[[judges]]\nid = "{j}"\nprovider = "simulated"\nsimulation = {{ qualities = {{ x = 0, y = 0 }} }}\n'
        for j in ("j1", "j2")
    )
    prompts = "".join(
        f'[[prompts]]\nid = "{q}"\ntext = "?"\nresponses = {{ x = "a", y = "b" }}\n'
        for q in ("q1", "q2", "q3")
    )
    path = tmp_path / "t.toml"
    path.write_text(
        f'[tournament]\nname = "t"\n[[contestants]]\nid = "x"\n[[contestants]]\nid = "y"\n{prompts}{judges}',
        encoding="utf-8",
    )
    t = load_tournament(path)
    table = VerdictTable.from_rows(ROWS, t.contestant_ids, t.prompt_ids, t.judge_ids, ["clean"])
    options = RatingOptions(
        bootstrap=0, permutations=20, strong_weight=weight, strong=strong_verdicts(t, STRONG)
    )
    return table, options


def wins(table: VerdictTable, options: RatingOptions, threshold: str | float) -> tuple[int, int, int]:
    """(games fitted, x's wins, y's wins)."""
    g = scoped_games(table, threshold=threshold, options=options)  # type: ignore[arg-type]
    fitted = g.select(np.ones(len(g), dtype=np.bool_))  # every game, repeats as plain games
    a, b = fitted.a, fitted.score_a
    return (
        len(g),
        int(((a == 0) & (b == 1)).sum() + ((a == 1) & (b == 0)).sum()),
        int(((a == 1) & (b == 1)).sum() + ((a == 0) & (b == 0)).sum()),
    )


def test_at_threshold_none_a_strong_verdict_is_three_games(tmp_path: Path) -> None:
    table, one = setting(tmp_path, 1)
    _, three = setting(tmp_path, 3)
    assert wins(table, one, "none") == (6, 3, 3)
    assert wins(table, three, "none") == (10, 7, 3)


def test_the_record_counts_verdicts_not_the_strong_verdicts_repeats(tmp_path: Path) -> None:
    """W/L/D, games and win rate (the board's, the export's) are the verdicts: weight 3 fits 10 games, but the
    record still says 6 verdicts, x 3 wins, y 3 wins."""
    table, one = setting(tmp_path, 1)
    _, three = setting(tmp_path, 3)
    for options in (one, three):
        r = record(scoped_games(table, threshold="none", options=options))
        assert (int(r["games"][0]), int(r["wins"][0]), int(r["wins"][1])) == (6, 3, 3)
    board = rank(table, threshold="none", method="bt", options=three)
    assert {row.contestant: (row.wins, row.losses, row.draws) for row in board.rows} == {
        "x": (3, 3, 0),
        "y": (3, 3, 0),
    }


@pytest.mark.parametrize("threshold", [0.5, 0.75, 0.9, 1.0])
def test_every_threshold_counts_a_strong_verdict_as_one_vote(tmp_path: Path, threshold: float) -> None:
    table, one = setting(tmp_path, 1)
    _, three = setting(tmp_path, 3)
    assert wins(table, three, threshold) == wins(table, one, threshold)
    assert wins(table, three, 0.5) == (5, 2, 2)  # q3's presentation a draw: one vote each
    for method in ("bt", "elo"):
        weighted = rank(table, threshold=threshold, method=method, options=three).ratings()
        plain = rank(table, threshold=threshold, method=method, options=one).ratings()
        assert weighted == plain


def test_bradley_terry_and_elo_rate_the_strong_verdict_as_three_games(tmp_path: Path) -> None:
    table, three = setting(tmp_path, 3)
    _, one = setting(tmp_path, 1)
    bt = rank(table, threshold="none", method="bt", options=three).ratings()
    # two contestants, x 7 wins of 10: the natural-log strengths ±d/2 maximise 7 log σ(d) + 3 log σ(−d) less
    # elotui's weak prior 0.01/2 · ((d/2)² + (d/2)²); without the prior d = ln(7/3)
    d = minimize_scalar(
        lambda d: -(7 * -np.logaddexp(0, -d) + 3 * -np.logaddexp(0, d)) + 0.5 * 0.01 * 2 * (d / 2) ** 2,
        bounds=(0, 5),
        method="bounded",
        options={"xatol": 1e-12},
    ).x
    assert abs(d - math.log(7 / 3)) < 0.01
    assert bt["x"] - bt["y"] == pytest.approx(400 * d / math.log(10), abs=1e-3)
    assert rank(table, threshold="none", method="bt", options=one).ratings()["x"] == pytest.approx(
        1000, abs=1e-6
    )
    # Elo: exactly the ratings of a table holding the strong verdicts three times over, in their place
    tripled = [r for i, r in enumerate(ROWS) for _ in range(3 if i in (0, 4) else 1)]
    plain = VerdictTable.from_rows(tripled, ["x", "y"], ["q1", "q2", "q3"], ["j1", "j2"], ["clean"])
    elo = rank(table, threshold="none", method="elo", options=three).ratings()
    want = rank(plain, threshold="none", method="elo", options=one).ratings()
    for c in ("x", "y"):
        assert elo[c] == pytest.approx(want[c], abs=1e-9)
    assert elo["x"] > rank(table, threshold="none", method="elo", options=one).ratings()["x"] + 10
