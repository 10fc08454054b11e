"""Diagnostics: κ against textbook values, τ/ρ against scipy, stability classes, human agreement, schema."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from elotui.rating import VerdictTable
from elotui.rating.agreement import cohen_kappa, fleiss_kappa, inter_judge
from elotui.rating.diagnostics import diagnose
from elotui.rating.human import judge_vs_human, votes_table
from elotui.rating.leaderboard import RatingOptions
from elotui.rating.stability import position_report
from elotui.rating.winrates import head_to_head, kendall, length_bias, per_prompt_tau, spearman, win_rates
from tests.rating.rating_builders import exact_permutation_p, row, simulate


def test_cohen_kappa_textbook_example() -> None:
    # Wikipedia "Cohen's kappa": 50 proposals; both yes 20, A yes B no 5, A no B yes 10, both no 15 -> κ = 0.4
    a = np.array([1] * 20 + [1] * 5 + [0] * 10 + [0] * 15)
    b = np.array([1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == 1.0
    assert np.isnan(cohen_kappa(np.zeros(5, int), np.zeros(5, int)))  # one category only: undefined


def test_fleiss_kappa_textbook_example() -> None:
    # Fleiss (1971) as worked on Wikipedia: 10 subjects, 14 raters, 5 categories -> P̄ = 0.378, P̄e = 0.213, κ = 0.210
    counts = np.array(
        [
            [0, 0, 0, 0, 14],
            [0, 2, 6, 4, 2],
            [0, 0, 3, 5, 6],
            [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1],
            [7, 7, 0, 0, 0],
            [3, 2, 6, 3, 0],
            [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0],
            [0, 2, 2, 3, 7],
        ]
    )
    assert fleiss_kappa(counts) == pytest.approx(0.20993, abs=1e-4)
    with pytest.raises(ValueError):
        fleiss_kappa(np.array([[1, 1], [2, 1]]))


def test_kendall_and_spearman_match_scipy() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    y = np.array([2.0, 1.0, 4.0, 3.0, 6.0, 5.0])
    tau, p = kendall(x, y)
    # hand: 15 pairs, 3 discordant -> τ = (12 - 3) / 15 = 0.6
    assert tau == pytest.approx(0.6)
    assert (tau, p) == pytest.approx((stats.kendalltau(x, y).statistic, stats.kendalltau(x, y).pvalue))
    rho, p = spearman(x, y)
    # hand: Σd² = 6 -> ρ = 1 - 6·6 / (6·35) = 0.828571
    assert rho == pytest.approx(1 - 36 / 210)
    # exact for 6 items (every ordering enumerated), not scipy's t approximation (0.042)
    assert p == pytest.approx(exact_permutation_p(x, y, lambda a, b: stats.spearmanr(a, b).statistic))
    assert p == pytest.approx(0.058333, abs=1e-6)
    assert spearman(np.arange(5.0), np.arange(5.0))[1] == pytest.approx(
        2 / 120
    )  # a perfect 5: 2 of 5! orderings
    assert np.isnan(kendall(x, np.ones(6))[0])


def stability_rows() -> list[tuple]:
    return [
        # j1: consistent (A wins both orders)
        row("p", "A", "B", "j1", "first"),
        row("p", "B", "A", "j1", "second"),
        # j1 on q: position bias (first slot wins both)
        row("q", "A", "B", "j1", "first"),
        row("q", "B", "A", "j1", "first"),
        # j1 on r: inconclusive (a tie)
        row("r", "A", "B", "j1", "tie"),
        row("r", "B", "A", "j1", "first"),
        # j2 on p: inconclusive (a failed call) and position bias for the second slot
        row("p", "A", "B", "j2", None, status="error"),
        row("p", "B", "A", "j2", "second"),
        row("q", "A", "B", "j2", "second"),
        row("q", "B", "A", "j2", "second"),
        # j2 on r: planned in one order only -> left out (but its verdict counts for the first-slot share)
        row("r", "A", "B", "j2", "first"),
        # j1, other condition: consistent for B
        row("p", "A", "B", "j1", "second", condition="lexical"),
        row("p", "B", "A", "j1", "first", condition="lexical"),
    ]


def test_stability_classes() -> None:
    report = position_report(VerdictTable.from_rows(stability_rows(), contestants=["A", "B"]))
    j1 = report["by_judge"]["j1"]
    assert j1["units"] == 4
    assert (j1["consistent"], j1["position_bias"], j1["inconclusive"]) == (0.5, 0.25, 0.25)
    # j1 decisive verdicts: first,second,first,first,first,second,first -> 5 of 7 in the first slot
    assert j1["decisive_verdicts"] == 7 and j1["first_slot_share"] == pytest.approx(5 / 7)
    j2 = report["by_judge"]["j2"]
    assert j2["units"] == 2 and (j2["consistent"], j2["position_bias"], j2["inconclusive"]) == (0.0, 0.5, 0.5)
    assert j2["first_slot_share"] == pytest.approx(1 / 4)
    assert (
        report["by_condition"]["lexical"]["units"] == 1
        and report["by_condition"]["lexical"]["consistent"] == 1
    )
    assert report["by_judge_condition"]["j1"]["clean"]["units"] == 3
    assert report["pooled"]["units"] == 6


def test_missing_verdict_is_inconclusive() -> None:
    rows = [row("p", "A", "B", "j", "first"), row("p", "B", "A", "j", None, status="missing")]
    report = position_report(VerdictTable.from_rows(rows))
    assert report["pooled"]["inconclusive"] == 1.0


def test_inter_judge_agreement() -> None:
    # 4 items judged by 3 judges
    verdicts = {
        "j1": ["first", "second", "tie", "first"],
        "j2": ["first", "second", "first", "first"],
        "j3": ["first", "first", "tie", "second"],
    }
    rows = [row(f"p{i}", "A", "B", j, w) for j, ws in verdicts.items() for i, w in enumerate(ws)]
    rows.append(row("p9", "A", "B", "j1", "first"))  # answered by j1 only: not an item for Fleiss
    ag = inter_judge(VerdictTable.from_rows(rows))
    assert ag["items"] == 4
    assert ag["percent_agreement"] == 0.25  # only item 0 unanimous
    pair = {tuple(p["judges"]): p for p in ag["pairs"]}
    assert pair[("j1", "j2")]["items"] == 4 and pair[("j1", "j2")]["percent_agreement"] == 0.75
    x = np.array([0, 1, 2, 0])
    y = np.array([0, 1, 0, 0])
    assert pair[("j1", "j2")]["cohen_kappa"] == pytest.approx(cohen_kappa(x, y, 3))
    counts = np.array([[3, 0, 0], [1, 2, 0], [1, 0, 2], [2, 1, 0]])
    assert ag["fleiss_kappa"] == pytest.approx(fleiss_kappa(counts))


def test_human_agreement_by_hand() -> None:
    table = VerdictTable.from_rows(
        [
            row("p", "A", "B", "j", "first"),  # A wins: agrees with the human majority (A)
            row("p", "B", "A", "j", "second"),  # A wins: agrees
            row("p", "B", "A", "j", "tie"),  # tie: disagrees
            row("q", "A", "B", "j", "first"),  # no human votes on q: not compared
        ],
        contestants=["A", "B"],
    )
    votes = [
        {"prompt": "p", "first": "A", "second": "B", "judge": "human", "winner": "first", "status": "ok"},
        {"prompt": "p", "first": "A", "second": "B", "judge": "human", "winner": "first", "status": "ok"},
        {"prompt": "p", "first": "B", "second": "A", "judge": "human", "winner": "first", "status": "ok"},
    ]  # mean in A-first orientation: (-1 - 1 + 1) / 3 < 0 -> A
    h = judge_vs_human(table, votes_table(votes, table))["j"]
    assert h["compared"] == 3
    assert h["accuracy"] == pytest.approx(2 / 3)
    assert h["decisive_compared"] == 2 and h["accuracy_decisive"] == 1.0
    # classes (first, tie, second): judge [first, second, tie], human [first, second, second]
    assert h["cohen_kappa"] == pytest.approx(cohen_kappa(np.array([0, 2, 1]), np.array([0, 2, 2]), 3))
    assert h["fleiss_kappa"] == pytest.approx(fleiss_kappa(np.array([[2, 0, 0], [0, 0, 2], [0, 1, 1]])))


def test_win_rates_h2h_and_length_bias() -> None:
    rows = [
        row("p", "A", "B", "j1", "first"),
        row("p", "B", "A", "j1", "tie"),
        row("p", "A", "B", "j2", "second"),
        row("p", "A", "B", "j2", None, status="invalid"),
    ]
    table = VerdictTable.from_rows(rows, contestants=["A", "B", "C"])
    wr = win_rates(table)
    assert wr["pooled"]["A"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert wr["j1"]["A"] == 0.75 and wr["j2"]["B"] == 1.0
    assert np.isnan(wr["pooled"]["C"])
    h = head_to_head(table)
    assert h["wins"] == [[0, 1, 0], [1, 0, 0], [0, 0, 0]] and h["ties"][0][1] == h["ties"][1][0] == 1
    lb = length_bias(table, {("p", "A"): 100, ("p", "B"): 50})
    assert lb["pooled"] == {"decisive_verdicts": 2, "longer_wins_share": 0.5}
    assert lb["by_judge"]["j1"]["longer_wins_share"] == 1.0


def test_per_prompt_tau() -> None:
    rows = simulate({"A": 200, "B": 0, "C": -200}, prompts=4, judges=3, seed=1, tie_band=0.0)
    rows += [
        row("odd", "C", "A", "j0", "first"),
        row("odd", "C", "B", "j0", "first"),
        row("odd", "B", "A", "j0", "first"),
    ]  # C > B > A on this prompt: the reverse of the global order
    tau = per_prompt_tau(VerdictTable.from_rows(rows))
    assert tau["by_prompt"]["odd"] == pytest.approx(-1.0)
    assert tau["summary"]["prompts"] == 5 and tau["summary"]["min"] == pytest.approx(-1.0)


def test_diagnose_schema_and_reference() -> None:
    qualities = {"A": 150, "B": 50, "C": -50, "D": -150}
    table = VerdictTable.from_rows(
        simulate(qualities, prompts=6, judges=3, seed=5), contestants=list(qualities)
    )
    votes = [
        {"prompt": p, "first": f, "second": s, "judge": "human", "winner": w, "status": st}
        for p, f, s, _j, _c, _k, st, w in simulate(qualities, prompts=6, judges=1, seed=6)
    ]
    d = diagnose(
        table,
        human_votes=votes,
        lengths={("p0", "A"): 10, ("p0", "B"): 20},
        options=RatingOptions(permutations=20),
    )
    json.dumps(d, allow_nan=False)  # strictly JSON (NaN -> null)
    for j in ("j0", "j1", "j2"):
        assert set(d["judges"][j]["position"]) >= {
            "consistent",
            "position_bias",
            "inconclusive",
            "first_slot_share",
        }
        assert set(d["judges"][j]["human"]) >= {
            "accuracy",
            "accuracy_decisive",
            "cohen_kappa",
            "fleiss_kappa",
        }
        assert d["judges"][j]["human"]["compared"] == 6 * 12 and 0 < d["judges"][j]["human"]["accuracy"] < 1
    assert "fleiss_kappa" in d["agreement"]
    assert set(d["win_rates"]) == {"pooled", "j0", "j1", "j2"} and set(d["win_rates"]["pooled"]) == set(
        qualities
    )
    assert "by_prompt" in d["per_prompt_tau"]
    assert d["reference"]["source"] == "human votes" and d["reference"]["ranking"] == list(qualities)
    assert list(d["reference"]["by_threshold"]) == ["1.0", "0.9", "0.75", "0.5", "none"]
    assert d["reference"]["by_threshold"]["none"]["kendall_tau"] == pytest.approx(1.0)
    d2 = diagnose(table, reference_ranking=["D", "C", "B", "A"], method="bt")
    assert d2["reference"]["source"] == "ranking"
    assert d2["reference"]["by_threshold"]["0.5"]["spearman_rho"] == pytest.approx(-1.0)
    assert d2["human"] is None and d2["judges"]["j0"]["human"]["accuracy"] is None
    assert d2["length_bias"] is None


def test_importing_rating_does_not_import_textual() -> None:
    code = (
        "import sys, elotui.rating, elotui.rating.diagnostics, elotui.commands.diagnose; "
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def _random_table(seed: int) -> VerdictTable:
    """Prompts comparing 1 to 6 of 7 contestants, some verdicts invalid, many ties (equal local win rates)."""
    rng = np.random.default_rng(seed)
    names = [f"m{i}" for i in range(7)]
    rows = []
    for p in range(120):
        k = int(rng.integers(1, 7))
        chosen = rng.choice(names, size=k, replace=False).tolist()
        for _ in range(int(rng.integers(1, 9))):
            a, b = rng.choice(chosen, size=2, replace=False).tolist() if k > 1 else (chosen[0], chosen[0])
            winner = str(rng.choice(["first", "second", "tie"]))
            status = "ok" if rng.random() > 0.1 else "invalid"
            if a != b:
                rows.append(row(f"p{p}", a, b, f"j{rng.integers(2)}", winner, status=status))
    return VerdictTable.from_rows(rows, contestants=names)


@pytest.mark.parametrize("seed", range(6))
def test_per_prompt_tau_at_once_equals_scipy_prompt_by_prompt(seed: int) -> None:
    """Every prompt's τ computed at once equals scipy's kendalltau of that prompt's own win rates (computed here
    from the prompt's verdicts alone) against the global ones, NaN where scipy's is undefined; with a mask too."""
    table = _random_table(seed)
    mask = np.random.default_rng(seed + 100).random(len(table.outcome)) < 0.7
    for m in (None, mask):
        got = per_prompt_tau(table, m)
        global_rate = win_rates(table, m)["pooled"]
        expected: dict[str, float] = {}
        sizes = []
        for p, name in enumerate(table.prompts):
            sel = (table.prompt == p) & table.valid(m)
            if not sel.any():
                continue
            local, _ = _prompt_rates(table, sel)
            sizes.append(len(local))
            if len(local) < 2:
                expected[name] = float("nan")
                continue
            x = np.array(list(local.values()))
            y = np.array([global_rate[table.contestants[c]] for c in local])
            with np.errstate(invalid="ignore", divide="ignore"):
                expected[name] = float(stats.kendalltau(x, y).statistic)
        assert list(got["by_prompt"]) == list(expected)
        np.testing.assert_allclose(list(got["by_prompt"].values()), list(expected.values()), atol=1e-12)
        assert got["contestants"] == max(sizes)


def _prompt_rates(table: VerdictTable, sel: np.ndarray) -> tuple[dict[int, float], None]:
    """contestant code → win rate (a tie half) over the selected verdicts, by a loop over them."""
    points: dict[int, float] = {}
    played: dict[int, int] = {}
    for i in np.flatnonzero(sel).tolist():
        f, s, o = int(table.first[i]), int(table.second[i]), int(table.outcome[i])
        score = {0: 1.0, 1: 0.0, 2: 0.5}[o]
        points[f] = points.get(f, 0.0) + score
        points[s] = points.get(s, 0.0) + 1.0 - score
        played[f] = played.get(f, 0) + 1
        played[s] = played.get(s, 0) + 1
    return {c: points[c] / played[c] for c in sorted(points)}, None


def test_two_contestant_prompts_are_said_to_give_plus_or_minus_one() -> None:
    """An arena-like table, one battle a prompt: each τ is ±1 (NaN for a tie) and the text says what that means."""
    from io import StringIO

    from elotui.commands.diagnose import _tau_section

    rows = [
        row("p0", "A", "B", "j", "first"),
        row("p1", "B", "C", "j", "first"),
        row("p2", "C", "A", "j", "tie"),
    ]
    rows += [
        row("p3", "A", "C", "j", "first"),
        row("p4", "B", "C", "j", "first"),
        row("p5", "C", "B", "j", "first"),
    ]
    tau = per_prompt_tau(VerdictTable.from_rows(rows, contestants=["A", "B", "C"]))
    assert tau["contestants"] == 2
    by = tau["by_prompt"]
    assert by["p0"] == by["p1"] == by["p3"] == by["p4"] == 1.0 and by["p5"] == -1.0 and np.isnan(by["p2"])
    out = StringIO()
    _tau_section({"per_prompt_tau": tau}, out)
    assert (
        "each prompt compares 2 contestants: τ is +1 where the one ranked higher overall won it"
        in out.getvalue()
    )
