"""`elotui export --threshold none --method elo` counts the verdicts in SQL (`Store.verdict_tally`) instead of
building the verdict table: the leaderboard must be exactly the table path's."""

from __future__ import annotations

from collections import Counter

from elotui.rating import VerdictTable, games, rank
from elotui.rating.games import Games, games_from_tally
from elotui.rating.leaderboard import RatingOptions
from elotui.session import TournamentSession
from elotui.store import CallRecord, PlanRow


def _table_board(filled, prompts=None, method="elo"):  # type: ignore[no-untyped-def]
    s = filled.tournament.spec.ranking
    table = VerdictTable.from_rows(
        filled.store.plan_verdicts(),
        contestants=filled.tournament.contestant_ids,
        prompts=filled.tournament.prompt_ids,
        judges=filled.tournament.judge_ids,
    )
    return rank(
        table,
        threshold="none",
        method=method,
        options=RatingOptions.from_config(s),
        prompts=prompts,
    )


def test_tally_counts_the_plan_verdicts(filled) -> None:
    rows = filled.store.plan_verdicts()
    want = Counter((r[1], r[2], r[0], r[6], r[7]) for r in rows)  # by ordered pair, prompt and outcome
    got = {(f, s, p, st, w): n for f, s, p, st, w, n in filled.store.verdict_tally()}
    assert got == dict(want)
    assert {st for _, _, _, st, _ in got} == {"ok", "invalid", "error", "missing"}
    p2 = Counter((r[1], r[2], r[0], r[6], r[7]) for r in rows if r[0] == "p2")
    assert {(f, s, p, st, w): n for f, s, p, st, w, n in filled.store.verdict_tally(["p2"])} == dict(p2)
    assert filled.store.verdict_tally([]) == []


def test_games_from_tally_equal_table_games_as_a_multiset(filled) -> None:
    table = VerdictTable.from_rows(filled.store.plan_verdicts(), contestants=filled.tournament.contestant_ids)
    g_table = games(table, "none")
    g_tally = games_from_tally(filled.store.verdict_tally(), filled.tournament.contestant_ids)
    assert g_tally is not None
    assert g_tally.counts == g_table.counts and g_tally.n_contestants == g_table.n_contestants

    def key(g: Games) -> list[tuple[int, int, float]]:
        return sorted(zip(g.a.tolist(), g.b.tolist(), g.score_a.tolist(), strict=True))

    assert key(g_tally) == key(g_table)


def test_export_none_elo_equals_the_table_path(filled) -> None:
    for prompt, scope in ((None, None), ("p2", ["p2"])):
        board = TournamentSession(filled.tournament, filled.store).leaderboard(
            threshold="none", method="elo", prompt=prompt
        )
        expected = _table_board(filled, scope)
        assert board.rows == expected.rows  # exact floats: same games, same codes, same orders
        assert board.counts == expected.counts
        assert board.settings == {
            **expected.settings,
            "design": {"pairs": "all"},
        }  # the session adds the design


def test_export_none_bt_from_the_counts_equals_the_table_path(filled) -> None:
    import pytest

    for prompt, scope in ((None, None), ("p2", ["p2"])):
        session = TournamentSession(filled.tournament, filled.store)
        board = session.leaderboard(threshold="none", method="bt", prompt=prompt)
        expected = _table_board(filled, scope, method="bt")
        assert board.counts == expected.counts
        for got, want in zip(board.rows, expected.rows, strict=True):
            assert got.contestant == want.contestant and got.games == want.games
            for name in ("rating", "ci_low", "ci_high", "gap_to_next", "order_confidence"):
                assert getattr(got, name) == pytest.approx(getattr(want, name), abs=1e-9), name


def test_an_undeclared_contestant_falls_back_to_the_table(filled) -> None:
    store = filled.store
    plan = [*store.plan(), PlanRow(10_000, "p1", "alpha", "zeta", "j1", "clean", 0, "kz")]
    store.record_call(CallRecord(key="kz", kind="verdict", status="ok", winner="second"))
    store.set_plan(plan)
    assert games_from_tally(store.verdict_tally(), filled.tournament.contestant_ids) is None
    board = TournamentSession(filled.tournament, store).leaderboard(threshold="none", method="elo")
    assert [r.contestant for r in board.rows if r.contestant == "zeta"] == ["zeta"]
    assert board.rows == _table_board(filled).rows


def test_cli_export_none_reads_the_counts_early_and_equals_the_table_path(filled, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from elotui.cli import main

    for extra in ([], ["--method", "elo"], ["--method", "elo", "--prompt", "p2"]):
        args = filled.export_args("--threshold", "none", "-o", "-")
        assert main([*args, "--format", "json", *extra]) == 0
        doc = json.loads(capsys.readouterr().out)
        scope = ["p2"] if "--prompt" in extra else None
        expected = _table_board(filled, scope)
        assert [r["rating"] for r in doc["rows"]] == [r.rating for r in expected.rows]
        assert [r["ci_low"] for r in doc["rows"]] == [r.ci_low for r in expected.rows]
        assert doc["counts"] == expected.counts


def test_cli_export_none_errors_and_no_store_created(filled, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from elotui.cli import main

    none = ["--threshold", "none", "--method", "elo"]
    assert main(["export", str(filled.path), "--store", str(filled.store_path), *none, "--prompt", "zz"]) == 2
    assert "prompt 'zz'" in capsys.readouterr().err
    assert main(["export", str(filled.path) + ".missing", "--store", str(filled.store_path), *none]) == 2
    fresh = tmp_path / "new.sqlite"
    assert main(["export", str(filled.path) + ".missing", "--store", str(fresh), *none]) == 2
    assert not fresh.exists()  # a bad tournament path does not leave a new store behind
    assert main(["export", str(filled.path), "--store", str(fresh), *none]) == 2  # an empty store: no plan
    assert "no comparison plan" in capsys.readouterr().err
