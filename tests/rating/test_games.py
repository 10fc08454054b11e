"""Verdicts -> games per threshold (Braun and Forell 2026, agreement thresholds), the columnar table, scope and per-contestant records."""

from __future__ import annotations

import numpy as np
import pytest

from elotui.rating import VerdictTable, games
from elotui.rating.games import record, tally
from tests.rating.rating_builders import row


def votes(first: str, second: str, winners: list[str | None], prompt: str = "p", **kw: object) -> list[tuple]:
    return [row(prompt, first, second, f"j{i}", w, **kw) for i, w in enumerate(winners)]  # type: ignore[arg-type]


def one_game(rows: list[tuple], threshold: float | str) -> tuple[list[int], list[int], list[float]]:
    g = games(VerdictTable.from_rows(rows, contestants=["A", "B"]), threshold)
    return g.a.tolist(), g.b.tolist(), g.score_a.tolist()


@pytest.mark.parametrize(
    ("winners", "expected"),
    [
        # 3 judges voting 2-1: a win at 0.5, a draw at 0.75, 0.9 and 1.0
        (["first", "first", "second"], {0.5: 1.0, 0.75: 0.5, 0.9: 0.5, 1.0: 0.5}),
        (["second", "first", "second"], {0.5: 0.0, 0.75: 0.5, 0.9: 0.5, 1.0: 0.5}),
        # 9 of 10: a win at 0.9 (exactly), not at 1.0
        (["first"] * 9 + ["second"], {0.5: 1.0, 0.75: 1.0, 0.9: 1.0, 1.0: 0.5}),
        # 3 of 4 = 0.75 exactly: a win at 0.75 (share >= t)
        (["first"] * 3 + ["second"], {0.5: 1.0, 0.75: 1.0, 0.9: 0.5, 1.0: 0.5}),
        # 1-1: share 0.5 is not > 0.5 -> draw at simple majority
        (["first", "second"], {0.5: 0.5, 0.75: 0.5, 0.9: 0.5, 1.0: 0.5}),
        # a tie vote counts half: (2 + 0.5) / 3 = 0.833
        (["first", "first", "tie"], {0.5: 1.0, 0.75: 1.0, 0.9: 0.5, 1.0: 0.5}),
        # unanimous
        (["second"] * 5, {0.5: 0.0, 0.75: 0.0, 0.9: 0.0, 1.0: 0.0}),
        # all ties: a draw everywhere
        (["tie", "tie"], {0.5: 0.5, 0.75: 0.5, 0.9: 0.5, 1.0: 0.5}),
    ],
)
def test_threshold_games_on_crafted_votes(winners: list[str], expected: dict[float, float]) -> None:
    rows = votes("A", "B", winners)
    for threshold, score in expected.items():
        a, b, s = one_game(rows, threshold)
        assert (a, b, s) == ([0], [1], [score]), threshold


def test_invalid_failed_missing_are_excluded_and_counted() -> None:
    rows = votes("A", "B", ["first", "first"]) + [
        row("p", "A", "B", "j7", None, status="invalid"),
        row("p", "A", "B", "j8", None, status="error"),
        row("p", "A", "B", "j9", None, status="missing"),
    ]
    table = VerdictTable.from_rows(rows, contestants=["A", "B"])
    g = games(table, 1.0)
    assert g.score_a.tolist() == [1.0]  # 2 of 2 valid votes: unanimous
    assert g.counts == {"verdicts_used": 2, "invalid": 1, "failed": 1, "missing": 1, "games": 1}
    g = games(table, "none")
    assert g.score_a.tolist() == [1.0, 1.0]
    assert g.counts["games"] == 2


def test_none_threshold_every_verdict_is_a_game() -> None:
    rows = votes("A", "B", ["first", "second", "tie"]) + votes("B", "A", ["first"])
    a, b, s = one_game(rows, "none")
    assert list(zip(a, b, s, strict=True)) == [(0, 1, 1.0), (0, 1, 0.0), (0, 1, 0.5), (1, 0, 1.0)]


def test_both_orders_give_two_games_and_presentations_split_by_prompt_and_condition() -> None:
    rows = (
        votes("A", "B", ["first", "first"])
        + votes("B", "A", ["second", "second"])
        + votes("A", "B", ["second"], prompt="q")
        + votes("A", "B", ["tie"], condition="lexical")
    )
    g = games(VerdictTable.from_rows(rows, contestants=["A", "B"]), 0.5)
    # arrival order of presentations
    assert list(zip(g.a.tolist(), g.b.tolist(), g.score_a.tolist(), strict=True)) == [
        (0, 1, 1.0),
        (1, 0, 0.0),
        (0, 1, 0.0),
        (0, 1, 0.5),
    ]


def test_votes_pool_over_judges_and_samples() -> None:
    rows = [
        row("p", "A", "B", "j0", "first", sample=0),
        row("p", "A", "B", "j0", "first", sample=1),
        row("p", "A", "B", "j1", "second", sample=0),
    ]
    assert one_game(rows, 0.5)[2] == [1.0]
    assert one_game(rows, 0.75)[2] == [0.5]


def test_record_counts_ties_half() -> None:
    rows = votes("A", "B", ["first", "tie", "second", "first"]) + votes("B", "A", ["tie"])
    rec = record(games(VerdictTable.from_rows(rows, contestants=["A", "B", "C"]), "none"))
    assert rec["wins"].tolist() == [2, 1, 0]
    assert rec["losses"].tolist() == [1, 2, 0]
    assert rec["draws"].tolist() == [2, 2, 0]
    assert rec["games"].tolist() == [5, 5, 0]
    assert rec["win_rate"][0] == pytest.approx((2 + 1) / 5)
    assert np.isnan(rec["win_rate"][2])


def test_table_append_and_scope() -> None:
    table = VerdictTable(contestants=["A", "B", "C"])
    assert len(table) == 0
    for i in range(3000):  # many small appends (the live view) grow the buffers amortised
        table.append(
            [row(f"p{i % 3}", "A", "B", f"j{i % 2}", "first", condition="clean" if i % 5 else "lexical")]
        )
    table.append(
        [
            {
                "prompt": "p9",
                "first": "C",
                "second": "D",
                "judge": "human",
                "condition": "clean",
                "sample": 0,
                "winner": "tie",
                "reasoning": None,
                "status": "ok",
            }
        ]
    )
    assert len(table) == 3001
    assert table.contestants == ["A", "B", "C", "D"]  # undeclared D appended after the declared ones
    assert int(table.scope_mask(prompts=["p0"]).sum()) == 1000
    assert int(table.scope_mask(judges=["j1"], conditions=["lexical"]).sum()) == 300
    assert int(table.scope_mask(prompts=["p0", "p9"], judges=["j0", "human"]).sum()) == 501
    assert int(table.scope_mask(prompts=["nope"]).sum()) == 0
    sub = table.subset(table.scope_mask(prompts=["p9"]))
    assert len(sub) == 1 and sub.outcome.tolist() == [2] and sub.contestants == table.contestants


def test_unknown_threshold_and_status_rejected() -> None:
    table = VerdictTable.from_rows(votes("A", "B", ["first"]))
    with pytest.raises(ValueError):
        games(table, 0.6)
    with pytest.raises(ValueError):
        VerdictTable.from_rows([row("p", "A", "B", "j", None, status="weird")])


def test_tally_counts_full_wins_full_losses_and_the_rest() -> None:
    """Per contestant (wins, losses, rest), split scores counted as the rest, against a plain loop."""
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 6, 400), rng.integers(0, 6, 400)
    s = rng.choice([0.0, 0.25, 0.5, 1.0], 400)
    want = np.zeros((6, 3), dtype=np.int64)
    for x, y, score in zip(a, b, s, strict=True):
        kind = 0 if score == 1.0 else 1 if score == 0.0 else 2
        want[x, kind] += 1
        want[y, {0: 1, 1: 0, 2: 2}[kind]] += 1
    assert np.array_equal(tally(a.astype(np.int32), b.astype(np.int32), s, 6), want)


def test_games_of_a_table_stay_as_they_were_when_the_table_grows() -> None:
    """At threshold none with every verdict valid the games are read-only views of the table's columns: rows
    appended later (the live view) leave them as they were, and they cannot be written to."""
    table = VerdictTable.from_rows(votes("A", "B", ["first", "second", "tie"]), contestants=["A", "B"])
    g = games(table, "none")
    before = (g.a.copy(), g.b.copy(), g.score_a.copy(), g.prompt.copy())
    table.append(votes("B", "A", ["first"] * 2000, prompt="q"))
    assert [x.tolist() for x in (g.a, g.b, g.score_a, g.prompt)] == [x.tolist() for x in before]
    with pytest.raises(ValueError):
        g.a[0] = 1


def test_thresholds_share_one_grouping_that_follows_the_table() -> None:
    """The four thresholds' games come from one grouping of the whole table into presentations, kept on the table
    (`VerdictTable.derived`): equal to the games of a fresh copy of the table (nothing kept), and made again when
    rows are appended, whichever threshold asks first."""
    rng = np.random.default_rng(7)
    names = ["A", "B", "C", "D"]
    winners = ["first", "second", "tie", None]
    rows = []
    for _ in range(400):
        first, second = (str(x) for x in rng.choice(names, 2, replace=False))
        winner = winners[rng.integers(4)]
        status = "ok" if winner else "invalid"
        rows.append(row(f"p{rng.integers(3)}", first, second, f"j{rng.integers(3)}", winner, status=status))
    table = VerdictTable.from_rows(rows[:200], contestants=names)
    for cut in (200, 201, 400):
        if cut > len(table):
            table.append(rows[len(table) : cut])
        for threshold in (1.0, 0.9, 0.75, 0.5):
            g, fresh = games(table, threshold), games(table.subset(None), threshold)
            assert [x.tolist() for x in (g.a, g.b, g.score_a, g.prompt)] == [
                x.tolist() for x in (fresh.a, fresh.b, fresh.score_a, fresh.prompt)
            ]
            assert g.counts == fresh.counts and len(g) == g.counts["games"]
    # a scope is grouped on its own rows, never from the whole table's grouping
    mask = table.prompt == 0
    scoped, alone = games(table, 0.5, mask), games(table.subset(mask), 0.5)
    assert scoped.a.tolist() == alone.a.tolist() and scoped.score_a.tolist() == alone.score_a.tolist()
