"""The judge-weighted Bradley–Terry fit equals a direct maximisation of its likelihood (written per verdict, no
counting, maximised by a derivative-free method from another start), and a judge that answers at random gets a
weight near zero."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from elotui.rating.judge_weights import (
    RIDGE_STRENGTH,
    RIDGE_WEIGHT,
    counted,
    fit,
    judge_weighted,
    negative_log_likelihood,
)
from elotui.rating.table import VerdictTable


def _table(seed: int = 3) -> tuple[VerdictTable, np.ndarray]:
    rng = np.random.default_rng(seed)
    strengths = np.array([0.9, 0.3, -0.2, -1.0])
    sharpness = {"sharp": 2.0, "mild": 0.8, "random": 0.0}
    rows = []
    for p in range(40):
        for i in range(4):
            for j in range(4):
                if i == j:
                    continue
                for judge, g in sharpness.items():
                    prob = 1 / (1 + np.exp(-g * (strengths[i] - strengths[j])))
                    u = rng.random()
                    winner = "tie" if abs(u - prob) < 0.03 else ("first" if u < prob else "second")
                    rows.append((f"p{p}", f"c{i}", f"c{j}", judge, "clean", 0, "ok", winner))
    return VerdictTable.from_rows(rows, contestants=[f"c{i}" for i in range(4)]), strengths


def test_fit_equals_a_direct_maximisation_of_the_likelihood() -> None:
    table, _ = _table()
    s, g = fit(counted(table))
    n, k = len(table.contestants), len(table.judges)
    valid = table.outcome <= 2
    first, second, judge = table.first[valid], table.second[valid], table.judge[valid]
    y = np.where(table.outcome[valid] == 0, 1.0, np.where(table.outcome[valid] == 1, 0.0, 0.5))

    def nll(theta: np.ndarray) -> float:  # per verdict; strengths centred, signed weights made mean 1 inside
        strength = theta[:n] - theta[:n].mean()
        w = theta[n:] - theta[n:].mean() + 1.0
        z = w[judge] * (strength[first] - strength[second])
        prior = 0.5 * (RIDGE_WEIGHT * (w - 1) @ (w - 1) + RIDGE_STRENGTH * strength @ strength)
        return float(-(y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)).sum() + prior)

    direct = minimize(
        nll, np.full(n + k, 0.1), method="Powell", options={"xtol": 1e-10, "ftol": 1e-14, "maxfev": 200000}
    )
    ds = direct.x[:n] - direct.x[:n].mean()
    dg = direct.x[n:] - direct.x[n:].mean() + 1.0
    assert s == pytest.approx(ds, abs=2e-4)
    assert g == pytest.approx(dg, abs=2e-4)
    x = np.concatenate([s[:-1], g[:-1]])
    value, grad = negative_log_likelihood(x, counted(table))
    assert value == pytest.approx(nll(np.concatenate([s, g])), rel=1e-10)
    eps = 1e-6
    numeric = [
        (
            negative_log_likelihood(x + eps * e, counted(table))[0]
            - negative_log_likelihood(x - eps * e, counted(table))[0]
        )
        / (2 * eps)
        for e in np.eye(len(x))
    ]
    assert grad == pytest.approx(numeric, abs=1e-4)


def test_a_random_judge_gets_little_weight_and_the_order_is_recovered() -> None:
    table, _ = _table()
    report = judge_weighted(table, rounds=20)
    w = {j: v["weight"] for j, v in report["weights"].items()}
    assert w["random"] < 0.3 < w["mild"] < w["sharp"]
    assert report["ranking"] == ["c0", "c1", "c2", "c3"]
    for v in report["weights"].values():
        assert v["ci_low"] <= v["weight"] <= v["ci_high"]


def test_the_learned_leaderboard_is_the_judge_aware_fit_and_other_views_say_they_weigh_equally() -> None:
    from elotui.rating.judge_weights import ELO_SCALE
    from elotui.rating.leaderboard import RatingOptions, rank

    table, _ = _table()
    s, _ = fit(counted(table))
    options = RatingOptions(bootstrap=30, judge_weights="learned")
    board = rank(table, threshold="none", method="bt", options=options)
    want = {c: 1000 + ELO_SCALE * s[i] for i, c in enumerate(table.contestants)}
    assert board.ratings() == pytest.approx(want, abs=1e-6)
    assert all(r.ci_low <= r.rating <= r.ci_high for r in board.rows)
    assert not [w for w in board.warnings if w["kind"] == "judge_weights_unused"]
    equal = rank(table, threshold="none", method="bt", options=options.replace(judge_weights="equal"))
    assert equal.ratings() != pytest.approx(board.ratings(), abs=1.0)  # the random judge no longer pulls
    other = rank(table, threshold=0.5, method="bt", options=options)
    assert [w["kind"] for w in other.warnings] == ["judge_weights_unused"]


def _judged(sharpness: dict[str, float], seed: int = 5, prompts: int = 30) -> VerdictTable:
    rng = np.random.default_rng(seed)
    strengths = np.array([0.9, 0.3, -0.2, -1.0])
    rows = []
    for p in range(prompts):
        for i in range(4):
            for j in range(4):
                if i == j:
                    continue
                for judge, g in sharpness.items():
                    prob = 1 / (1 + np.exp(-g * (strengths[i] - strengths[j])))
                    winner = "first" if rng.random() < prob else "second"
                    rows.append((f"p{p}", f"c{i}", f"c{j}", judge, "clean", 0, "ok", winner))
    return VerdictTable.from_rows(rows, contestants=[f"c{i}" for i in range(4)])


def test_a_reversed_judge_gets_a_negative_weight_is_named_and_still_informs_the_order() -> None:
    report = judge_weighted(_judged({"sharp": 2.0, "mild": 1.0, "flipped": -1.5, "random": 0.0}), rounds=20)
    w = report["weights"]
    assert w["flipped"]["ci_high"] < 0 < w["mild"]["ci_low"]  # recognised as reversed, with a real interval
    assert w["flipped"]["ci_low"] < w["flipped"]["weight"] < w["flipped"]["ci_high"]
    assert report["reversed"] == ["flipped"]
    assert len(report["warnings"]) == 1 and "judge flipped is reversed" in report["warnings"][0]
    assert report["ranking"] == ["c0", "c1", "c2", "c3"]
    # the random judge: an interval on both sides of 0, not pinned to a bound
    assert w["random"]["ci_low"] < 0 < w["random"]["ci_high"]
    assert w["random"]["ci_high"] - w["random"]["ci_low"] > 0.05


def test_a_reversed_majority_warns_that_the_direction_rests_on_the_others() -> None:
    report = judge_weighted(_judged({"sharp": 4.0, "f1": -0.8, "f2": -0.8}, prompts=40), rounds=20)
    assert sorted(report["reversed"]) == ["f1", "f2"]
    assert any("most judges (f1, f2) are reversed" in m and "sharp alone" in m for m in report["warnings"])


def test_no_reversal_no_warning() -> None:
    report = judge_weighted(_judged({"sharp": 2.0, "mild": 1.0}), rounds=10)
    assert report["reversed"] == [] and report["warnings"] == []
