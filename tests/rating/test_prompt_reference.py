"""Per-prompt agreement with `[[prompts]] reference_ranking`: hand-worked τ/ρ, scipy, filtering, diagnose()."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from elotui.rating import VerdictTable
from elotui.rating.diagnostics import diagnose
from elotui.rating.leaderboard import RatingOptions
from elotui.rating.prompt_reference import per_prompt_reference
from elotui.rating.winrates import per_prompt_tau, win_rate_arrays
from tests.rating.rating_builders import exact_permutation_p, row, simulate

SPEARMAN = lambda x, y: stats.spearmanr(x, y).statistic  # noqa: E731
KENDALL = lambda x, y: stats.kendalltau(x, y).statistic  # noqa: E731


def round_robin(prompt: str, order: list[str], judge: str = "j0") -> list[tuple]:
    """Every pair once, the earlier name in `order` wins (shown first and second alternately)."""
    rows = []
    for i, a in enumerate(order):
        for k, b in enumerate(order[i + 1 :]):
            rows.append(row(prompt, a, b, judge, "first") if k % 2 else row(prompt, b, a, judge, "second"))
    return rows


def test_exact_reversed_and_one_swap() -> None:
    rows = round_robin("same", ["A", "B", "C", "D"]) + round_robin("swap", ["A", "B", "C", "D"])
    rows += round_robin("rev", ["A", "B", "C", "D"])
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C", "D"])
    # on each prompt: win rates A 1, B 2/3, C 1/3, D 0
    refs = {"same": ["A", "B", "C", "D"], "rev": ["D", "C", "B", "A"], "swap": ["A", "C", "B", "D"]}
    r = per_prompt_reference(table, refs)
    assert r is not None
    assert list(r["by_prompt"]) == ["same", "rev", "swap"]
    same, rev, swap = (r["by_prompt"][p] for p in ("same", "rev", "swap"))
    assert same["contestants"] == 4 and same["kendall_tau"] == pytest.approx(1.0)
    assert same["spearman_rho"] == pytest.approx(1.0)
    assert rev["kendall_tau"] == pytest.approx(-1.0) and rev["spearman_rho"] == pytest.approx(-1.0)
    # one discordant pair of 6: τ = (5 - 1) / 6; ρ = 1 - 6·Σd²/(n(n²-1)) = 1 - 6·2/60 = 0.8
    assert swap["kendall_tau"] == pytest.approx(2 / 3)
    assert swap["spearman_rho"] == pytest.approx(0.8)
    # exact two-sided p: permutations of 4 with ≤ 1 inversion = 1 + 3 of 24, doubled -> 1/3
    assert swap["kendall_p"] == pytest.approx(1 / 3)
    # exact τ = ±1 with n = 4: 2 / 24
    assert same["kendall_p"] == pytest.approx(1 / 12) and rev["kendall_p"] == pytest.approx(1 / 12)
    rates = [1.0, 2 / 3, 1 / 3, 0.0]
    ref_scores = [0.0, -2.0, -1.0, -3.0]  # A, B, C, D positions in ["A", "C", "B", "D"], negated
    # exact p for ρ = 0.8, n = 4: |ρ| >= 0.8 for 1 + 3 orderings on each side: 8 / 24 (scipy's t approximation: 0.2)
    assert swap["spearman_p"] == pytest.approx(1 / 3)
    assert swap["spearman_p"] == pytest.approx(exact_permutation_p(rates, ref_scores, SPEARMAN))
    assert swap["kendall_p"] == pytest.approx(stats.kendalltau(rates, ref_scores).pvalue)
    s = r["summary"]
    assert s["prompts"] == 3
    assert s["mean"] == pytest.approx((1 - 1 + 2 / 3) / 3) and s["median"] == pytest.approx(2 / 3)
    assert s["min"] == pytest.approx(-1.0) and s["max"] == pytest.approx(1.0)


def test_ties_match_scipy_tau_b_and_rho() -> None:
    # prompt p: A beats B, B beats C, C beats A (all 1/2), D loses both its games (0), A–D tie
    rows = [
        row("p", "A", "B", "j0", "first"),
        row("p", "B", "C", "j1", "first"),
        row("p", "C", "A", "j0", "first"),
        row("p", "C", "D", "j1", "first"),
        row("p", "D", "B", "j0", "second"),
        row("p", "A", "D", "j1", "tie"),
    ]
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C", "D"])
    rate, _ = win_rate_arrays(table)
    assert rate.tolist() == pytest.approx([0.5, 2 / 3, 2 / 3, 1 / 6])
    r = per_prompt_reference(table, {"p": ["B", "A", "D", "C"]})
    assert r is not None
    got = r["by_prompt"]["p"]
    ref = np.array([-1.0, 0.0, -3.0, -2.0])
    assert got["kendall_tau"] == pytest.approx(stats.kendalltau(rate, ref).statistic)
    assert got["kendall_p"] == pytest.approx(
        exact_permutation_p(rate, ref, KENDALL)
    )  # ties: exact, by enumeration
    assert got["spearman_rho"] == pytest.approx(stats.spearmanr(rate, ref).statistic)
    assert got["spearman_p"] == pytest.approx(exact_permutation_p(rate, ref, SPEARMAN))


def test_only_named_contestants_with_verdicts_on_the_prompt() -> None:
    rows = round_robin("p", ["A", "B", "C"]) + round_robin("q", ["A", "B", "C", "D"])
    rows += [row("p", "A", "D", "j0", "x", status="invalid")]  # D has no valid verdict on p
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C", "D"])
    r = per_prompt_reference(table, {"p": ["D", "C", "A"], "q": ["B", "A"], "empty": ["A", "B"], "none": []})
    assert r is not None
    by = r["by_prompt"]
    assert by["p"]["contestants"] == 2 and by["p"]["kendall_tau"] == pytest.approx(
        -1.0
    )  # C above A: reversed
    assert by["q"]["contestants"] == 2 and by["q"]["kendall_tau"] == pytest.approx(-1.0)
    assert by["empty"]["contestants"] == 0 and np.isnan(by["empty"]["kendall_tau"])  # prompt without verdicts
    assert "none" not in by  # an empty reference is no reference
    assert r["summary"]["prompts"] == 2
    single = per_prompt_reference(table, {"p": ["A", "D"]})
    assert single is not None and single["by_prompt"]["p"]["contestants"] == 1
    assert np.isnan(single["by_prompt"]["p"]["kendall_tau"]) and single["summary"]["prompts"] == 0
    assert per_prompt_reference(table, {}) is None and per_prompt_reference(table, {"p": []}) is None


def test_same_basis_as_per_prompt_tau() -> None:
    qualities = {"A": 300, "B": 100, "C": -100, "D": -300}
    table = VerdictTable.from_rows(
        simulate(qualities, prompts=8, judges=2, seed=3), contestants=list(qualities)
    )
    rate, _ = win_rate_arrays(table)
    global_order = [table.contestants[i] for i in np.argsort(-rate, kind="stable")]
    assert len(set(rate.tolist())) == 4  # no tie in the global ranking, so it is a strict reference
    tau = per_prompt_tau(table)["by_prompt"]
    r = per_prompt_reference(table, dict.fromkeys(table.prompts, global_order))
    assert r is not None
    for prompt, value in tau.items():
        got = r["by_prompt"][prompt]["kendall_tau"]
        assert (np.isnan(got) and np.isnan(value)) or got == pytest.approx(value)


def test_diagnose_key_present_or_null() -> None:
    rows = round_robin("p0", ["A", "B", "C"]) + round_robin("p1", ["C", "B", "A"], judge="j1")
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C"])
    d = diagnose(table, options=RatingOptions(permutations=5))
    assert "per_prompt_reference" in d and d["per_prompt_reference"] is None
    assert (
        diagnose(table, prompt_references={}, options=RatingOptions(permutations=5))["per_prompt_reference"]
        is None
    )
    d = diagnose(
        table,
        prompt_references={"p0": ["A", "B", "C"], "p1": ["A", "B", "C"], "p9": ["A"]},
        options=RatingOptions(permutations=5),
    )
    json.dumps(d, allow_nan=False)
    ppr = d["per_prompt_reference"]
    assert ppr["by_prompt"]["p0"] == {
        "contestants": 3,
        "kendall_tau": pytest.approx(1.0),
        "kendall_p": pytest.approx(1 / 3),
        "spearman_rho": pytest.approx(1.0),
        "spearman_p": pytest.approx(1 / 3),  # exact: ρ = ±1 for 2 of the 3! orderings (t approximation: 0)
    }
    assert ppr["by_prompt"]["p1"]["kendall_tau"] == pytest.approx(-1.0)
    assert ppr["by_prompt"]["p9"] == {
        "contestants": 0,
        "kendall_tau": None,
        "kendall_p": None,
        "spearman_rho": None,
        "spearman_p": None,
    }
    assert ppr["summary"] == {
        "prompts": 2,
        "mean": pytest.approx(0.0),
        "median": pytest.approx(0.0),
        "min": pytest.approx(-1.0),
        "max": pytest.approx(1.0),
    }
    assert d["reference"]["source"] is None  # a per-prompt reference is not a global one
