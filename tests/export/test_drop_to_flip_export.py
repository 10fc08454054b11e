"""`elotui export --format json` carries each adjacent row's drop_to_flip and fragile mark, equal to the ranking
module's search and confirmed by refitting without the verdicts it names."""

from __future__ import annotations

import json

import numpy as np
import pytest

from elotui.cli import main
from elotui.rating.drop_to_flip import FRAGILE_SHARE, board_flips
from elotui.rating.leaderboard import ratings_for, scoped_games
from elotui.session import TournamentSession


@pytest.mark.parametrize("method", ["bt", "elo"])
def test_json_export_rows_carry_drop_to_flip(filled, method: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(filled.export_args("-o", "-", "--format", "json", "--threshold", "none", "--method", method))
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    session = TournamentSession(filled.tournament, filled.store)
    table = session.plan_table(filled.store.verdict_columns())
    g = scoped_games(table, threshold="none", options=session.options)
    board = session.leaderboard(threshold="none", method=method)
    flips = board_flips(board, table.contestants, g, session.options)
    rows = doc["rows"]
    assert len(flips) == len(rows) - 1  # one per adjacent pair (one group in this fixture)
    assert doc["settings"]["drop_to_flip"]["fragile_share"] == FRAGILE_SHARE
    assert doc["settings"]["drop_to_flip"]["unit"] == "verdicts"
    point = session.options.replace(bootstrap=0)
    for row, nxt, flip in zip(rows, rows[1:], flips, strict=False):
        assert row["drop_to_flip"] == flip.drop
        assert row["fragile"] == (flip.drop is not None and flip.drop <= FRAGILE_SHARE * len(g))
        if flip.drop:  # refit without the named verdicts: the next row is now above
            keep = np.ones(len(g), dtype=bool)
            keep[list(flip.dropped)] = False
            r = ratings_for(g.select(keep), method, point).rating
            up, lo = table.contestants.index(row["contestant"]), table.contestants.index(nxt["contestant"])
            assert r[lo] > r[up]
    assert rows[-1]["drop_to_flip"] is None and rows[-1]["fragile"] is None
    assert any(f.drop for f in flips)  # the refit above was exercised


def test_csv_export_has_no_drop_to_flip(filled, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(filled.export_args("-o", "-")) == 0
    assert "drop_to_flip" not in capsys.readouterr().out
