"""Leaderboard exports: CSV/JSON round trips, exact columns, numbers equal to the ranking module's, the CLI."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.export.ranking import COLUMNS, CSV_COLUMNS, JSON_COLUMNS, write_csv, write_json
from elotui.rating.leaderboard import Leaderboard, LeaderboardRow, RatingOptions, rank, separation_setting
from elotui.rating.table import VerdictTable
from elotui.session import TournamentSession
from elotui.store import Store

HEADER = (
    "rank,contestant,rating,ci_low,ci_high,gap_to_next,win_prob_vs_next,band,wins,losses,draws,games,win_rate"
)


def _expected(filled, *, threshold=0.5, method="elo", prompts=None) -> Leaderboard:
    table = VerdictTable.from_rows(filled.store.plan_verdicts(), contestants=filled.tournament.contestant_ids)
    return rank(
        table,
        threshold=threshold,
        method=method,
        prompts=prompts,
        options=RatingOptions(k_factor=16.0, initial_rating=1000.0, permutations=20, bootstrap=30, seed=7),
    )


def _parse(value: str, like: object) -> object:
    if value == "":
        return None
    if isinstance(like, bool):
        return value == "true"
    if isinstance(like, int):
        return int(value)
    if isinstance(like, float):
        return float(value)
    return value


def test_column_order_is_exactly_the_contract() -> None:
    assert ",".join(COLUMNS) == HEADER  # elotui 0.1's thirteen columns first, then how certain the gap is
    assert CSV_COLUMNS == (*COLUMNS, "gap_ci_low", "gap_ci_high", "order_confidence")
    assert JSON_COLUMNS == (
        *CSV_COLUMNS,
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


@pytest.mark.parametrize("method", ["elo", "bt"])
@pytest.mark.parametrize("threshold", [1.0, 0.75, 0.5, "none"])
def test_csv_round_trip_equals_the_ranking_module(filled, method: str, threshold) -> None:
    board = TournamentSession(filled.tournament, filled.store).leaderboard(threshold=threshold, method=method)
    expected = _expected(filled, threshold=threshold, method=method)
    buf = io.StringIO(newline="")
    write_csv(board, buf)
    text = buf.getvalue()
    assert text.startswith(",".join(CSV_COLUMNS) + "\n")
    assert "\r" not in text and not text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == list(CSV_COLUMNS)
    assert len(rows) == 1 + len(expected.rows) == 4
    for cells, exp in zip(rows[1:], expected.rows, strict=True):
        assert len(cells) == len(CSV_COLUMNS)
        for name, cell in zip(CSV_COLUMNS, cells, strict=True):
            want = getattr(exp, name)
            got = _parse(cell, want if want is not None else "")
            if isinstance(want, float) and math.isnan(want):
                assert cell == "nan"
            else:
                assert got == want, (name, cell, want)  # exact: full precision survives
    last = dict(zip(CSV_COLUMNS, rows[-1], strict=True))
    assert last["gap_to_next"] == last["win_prob_vs_next"] == last["band"] == last["order_confidence"] == ""
    for cells in rows[1:-1]:
        row = dict(zip(CSV_COLUMNS, cells, strict=True))
        assert row["band"] in {"practically tied", "moderate", "strong"}
        assert float(row["gap_ci_low"]) <= float(row["gap_to_next"]) <= float(row["gap_ci_high"]) + 1e-9
        assert 0.0 <= float(row["order_confidence"]) <= 1.0


def test_full_precision_not_display_rounding() -> None:
    row = LeaderboardRow(
        1,
        "x",
        1012.3456789012345,
        990.1,
        1030.000000001,
        0.1 + 0.2,
        0.5002878,
        "practically tied",
        3,
        1,
        0,
        4,
        0.75,
        True,
    )
    last = LeaderboardRow(2, "y", 1012.0456789012345, 980.0, 1020.0, None, None, None, 1, 3, 0, 4, 0.25, None)
    buf = io.StringIO()
    write_csv(Leaderboard(rows=[row, last]), buf)
    lines = buf.getvalue().split("\n")
    assert lines[1] == (
        "1,x,1012.3456789012345,990.1,1030.000000001,0.30000000000000004,0.5002878,"
        "practically tied,3,1,0,4,0.75,,,"
    )
    assert lines[2] == "2,y,1012.0456789012345,980.0,1020.0,,,,1,3,0,4,0.25,,,"
    assert lines[3] == ""


def test_json_round_trip_rows_settings_counts(filled) -> None:
    board = TournamentSession(filled.tournament, filled.store).leaderboard(method="bt", threshold="none")
    expected = _expected(filled, threshold="none", method="bt")
    buf = io.StringIO()
    write_json(board, buf, tournament="Export fixture")
    doc = json.loads(buf.getvalue())
    assert doc["columns"] == list(JSON_COLUMNS)
    assert [list(r) for r in doc["rows"]] == [list(JSON_COLUMNS)] * len(expected.rows)
    for got, exp in zip(doc["rows"], expected.rows, strict=True):
        want = {name: getattr(exp, name) for name in JSON_COLUMNS}
        want["band_range"] = list(want["band_range"]) if want["band_range"] is not None else None
        assert got == want
    assert doc["rows"][-1]["gap_to_next"] is None and doc["rows"][-1]["band"] is None
    assert doc["settings"] == {
        "threshold": "none",
        "method": "bt",
        "bootstrap": 30,
        "seed": 7,
        "k_factor": 16.0,
        "initial_rating": 1000.0,
        "scope": {"prompts": None, "judges": None, "conditions": None},
        "interval": {
            "kind": "bootstrap",
            "unit": "prompt",
            "level": 0.95,
            "rounds": 30,
            "separation": separation_setting(0.01),  # what Bradley–Terry shows where the wins separate
        },
        "scale": "every verdict is a game",
        "design": {"pairs": "all"},
    }
    assert doc["settings"]["interval"]["separation"]["display"] == "penalised estimate"
    # two prompts: only the small-sample note (elotui.rating.small_sample), and no band called certain
    assert [w["kind"] for w in doc["warnings"]] == ["small_sample"]
    assert all(r["band_claim"] is False for r in doc["rows"])
    verdicts = filled.store.plan_verdicts()
    ok = sum(1 for v in verdicts if v[6] == "ok")
    assert doc["counts"]["verdicts_used"] == ok
    assert doc["counts"]["invalid"] == sum(1 for v in verdicts if v[6] == "invalid")
    assert doc["counts"]["failed"] == sum(1 for v in verdicts if v[6] == "error")
    assert doc["counts"]["missing"] == sum(1 for v in verdicts if v[6] == "missing")
    assert doc["counts"]["missing"] > 0 and doc["counts"]["failed"] > 0 and doc["counts"]["invalid"] > 0


def test_elo_settings_name_permutations(filled) -> None:
    buf = io.StringIO()
    write_json(TournamentSession(filled.tournament, filled.store).leaderboard(), buf)
    settings = json.loads(buf.getvalue())["settings"]
    assert settings["method"] == "elo" and settings["permutations"] == 20 and "bootstrap" not in settings
    assert settings["threshold"] == 0.5


def test_prompt_scope_equals_ranking_one_prompt(filled) -> None:
    board = TournamentSession(filled.tournament, filled.store).leaderboard(prompt="p2")
    expected = _expected(filled, prompts=["p2"])
    assert board.rows == expected.rows
    assert board.settings["prompts"] == ["p2"]
    whole = TournamentSession(filled.tournament, filled.store).leaderboard()
    assert whole.counts["verdicts_used"] > board.counts["verdicts_used"]


def test_bad_inputs_are_user_errors(filled, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="prompt 'nope'"):
        TournamentSession(filled.tournament, filled.store).leaderboard(prompt="nope")
    with pytest.raises(UserError, match="threshold"):
        TournamentSession(filled.tournament, filled.store).leaderboard(threshold="0.6")
    with pytest.raises(UserError, match="method"):
        TournamentSession(filled.tournament, filled.store).leaderboard(method="online-ish")
    with Store(tmp_path / "empty.sqlite") as empty, pytest.raises(UserError, match="no comparison plan"):
        TournamentSession(filled.tournament, empty).leaderboard()


# --- CLI -------------------------------------------------------------------------------------------------------


def test_cli_export_defaults_to_stdout_csv(filled, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(filled.export_args())
    out = capsys.readouterr().out
    assert rc == 0
    assert out.split("\n")[0] == ",".join(CSV_COLUMNS)
    buf = io.StringIO()
    write_csv(_expected(filled), buf)
    assert out == buf.getvalue()


def test_cli_export_dash_is_stdout_and_json(filled, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        filled.export_args(
            "-o", "-", "--format", "json", "--threshold", "1.0", "--method", "bt", "--prompt", "p1"
        )
    )
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert doc["tournament"] == "Export fixture"
    assert doc["settings"]["threshold"] == 1.0 and doc["settings"]["method"] == "bt"
    assert doc["settings"]["scope"]["prompts"] == ["p1"]
    exp = _expected(filled, threshold=1.0, method="bt", prompts=["p1"])
    assert [r["rating"] for r in doc["rows"]] == [r.rating for r in exp.rows]


def test_cli_export_to_file_bytes(filled, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out" / "board.csv"
    rc = main(filled.export_args("-o", str(target)))
    assert rc == 0 and capsys.readouterr().out == ""
    data = target.read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data
    assert data.decode("utf-8").split("\n")[0] == ",".join(CSV_COLUMNS)


def test_cli_export_exit_codes(filled, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(filled.path), "--store", str(filled.store_path), "--prompt", "zz"]) == 2
    assert "prompt 'zz'" in capsys.readouterr().err
    assert main(["export", str(filled.path) + ".missing", "--store", str(filled.store_path)]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["export", str(filled.path), "--threshold", "0.6"])
    assert exc.value.code == 2


def test_commands_called_in_process_leave_the_collector_as_they_found_it(
    filled, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The collector is a process setting of the `elotui` command (elotui.cli.entry), not of `main`: a caller that
    # runs export or validate in its own process keeps its collector as it was, on or off, also when they fail.
    import gc

    from elotui.export import ranking

    seen: list[bool] = []
    write = ranking.write_csv
    monkeypatch.setattr(ranking, "write_csv", lambda *a: seen.append(gc.isenabled()) or write(*a))
    for before in (True, False):
        (gc.enable if before else gc.disable)()
        try:
            assert main(["export", str(filled.path), "--store", str(filled.store_path)]) == 0
            assert gc.isenabled() is before
            assert (
                main(["export", str(filled.path), "--store", str(filled.store_path), "--prompt", "zz"]) == 2
            )
            assert gc.isenabled() is before
            assert main(["validate", str(filled.path)]) == 0
            assert gc.isenabled() is before
        finally:
            gc.enable()
    assert seen == [True, False]  # as the caller had it while the export wrote
    capsys.readouterr()


def test_collector_off_restores_the_collector_also_when_its_body_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    from elotui.runtime.heap import collector_off

    gc.enable()
    with collector_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_off():
        raise RuntimeError("a failing body")
    assert gc.isenabled()


@pytest.mark.parametrize("method", ["elo", "bt"])
def test_a_last_leaderboard_lets_the_verdicts_go_before_ranking(
    filled, method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `elotui export` ranks once (once=True): the store's read and the session's table are let go as soon as the
    # games are made, so that the ranking's arrays reuse their memory (at 10^7 verdicts, peak RSS 746 MiB
    # instead of 982). The leaderboard is the same.
    import gc

    import elotui.session as session_module
    from elotui.store import VerdictColumns

    def verdicts_alive() -> int:
        gc.collect()
        return sum(isinstance(o, (VerdictTable, VerdictColumns)) for o in gc.get_objects())

    kept = TournamentSession(filled.tournament, filled.store).leaderboard(method=method)
    alive: list[int] = []
    real = session_module.rank_games

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        alive.append(verdicts_alive())
        return real(*args, **kwargs)

    monkeypatch.setattr(session_module, "rank_games", counting)
    fresh_store = Store(filled.store_path)  # its own read (the fixture's store keeps the one above)
    try:
        before = verdicts_alive()
        once = TournamentSession(filled.tournament, fresh_store).leaderboard(method=method, once=True)
        assert fresh_store._columns is None  # nor does the store keep it for a next read
    finally:
        fresh_store.close()
    del kept.settings["design"], once.settings["design"]
    assert once == kept
    assert alive == [before]  # the read and its table (two objects) gone before the ranking starts
