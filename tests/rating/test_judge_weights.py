"""The judge-weighted Bradley–Terry fit equals a direct maximisation of its likelihood (written per verdict, no
counting, maximised by a derivative-free method from another start), and a judge that answers at random gets a
weight near zero."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from elotui.rating.judge_weights import (
    RIDGE_LOG_WEIGHT,
    RIDGE_STRENGTH,
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

    def nll(theta: np.ndarray) -> float:  # per verdict; strengths and log weights centred inside
        strength = theta[:n] - theta[:n].mean()
        log_w = theta[n:] - theta[n:].mean()
        z = np.exp(log_w)[judge] * (strength[first] - strength[second])
        prior = 0.5 * (RIDGE_LOG_WEIGHT * log_w @ log_w + RIDGE_STRENGTH * strength @ strength)
        return float(-(y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z)).sum() + prior)

    direct = minimize(
        nll, np.full(n + k, 0.1), method="Powell", options={"xtol": 1e-10, "ftol": 1e-14, "maxfev": 200000}
    )
    ds = direct.x[:n] - direct.x[:n].mean()
    dg = np.exp(direct.x[n:] - direct.x[n:].mean())
    assert s == pytest.approx(ds, abs=2e-4)
    assert g == pytest.approx(dg, abs=2e-4)
    x = np.concatenate([s[:-1], np.log(g)[:-1]])
    value, grad = negative_log_likelihood(x, counted(table))
    assert value == pytest.approx(nll(np.concatenate([s, np.log(g)])), rel=1e-10)
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
