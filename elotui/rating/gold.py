"""Judges against gold labels (`[reference] gold`): one label per (prompt, pair) — the better contestant, or a tie.

Per judge, over the planned verdicts of the labelled pairs:
- `accuracy_all`: correct / planned, an invalid, failed or missing verdict counted wrong (LLMBar's accuracy:
  its `correct_average` is this figure when every instance is judged once in each order);
- `accuracy_valid`: correct / valid verdicts (what a judge gets right when it answers);
- `accuracy_by_seat`: `accuracy_all` of the verdicts where the pair was shown in its declared order ("first":
  the earlier-declared contestant as Response A; LLMBar's `correct_False`) and swapped ("second", `correct_True`);
- `both_correct`: mirrored units (the same judge, condition and sample in both orders) correct in both orders;
- `agreement`: units whose two orders name the same winner (or both a tie), over units with both verdicts valid
  (elotui's positional agreement); `agreement_llmbar`: over every unit, a unit whose two verdicts are both not
  valid counted as agreeing (LLMBar's `equal`);
- `cohen_kappa`: Cohen's κ between the judge's valid verdicts (first-declared better / tie / other better) and
  the gold label.
A tie verdict is correct only when the gold label is a tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.rating.agreement import cohen_kappa
from elotui.rating.table import OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_TIE, VerdictTable

GoldLabels = dict[
    tuple[int, int, int], int
]  # (prompt code, lo code, hi code) -> -1 lo better, 0 tie, +1 hi better


def gold_labels(rows: Iterable[Mapping[str, Any]], table: VerdictTable) -> tuple[GoldLabels, list[str]]:
    """Labels coded like `table` (rows `{prompt, a, b, better}`, `better` = a, b or "tie"), and the problems of
    rows that name an unknown prompt or contestant or a `better` that is neither."""
    labels: GoldLabels = {}
    problems: list[str] = []
    prompts = {p: i for i, p in enumerate(table.prompts)}
    contestants = {c: i for i, c in enumerate(table.contestants)}
    for n, r in enumerate(rows, start=1):
        p, a, b, better = r.get("prompt"), r.get("a"), r.get("b"), r.get("better")
        if p not in prompts or a not in contestants or b not in contestants or a == b:
            problems.append(f"row {n}: unknown prompt or contestants ({p!r}, {a!r}, {b!r})")
            continue
        if better not in (a, b, "tie"):
            problems.append(f"row {n}: better must be {a!r}, {b!r} or 'tie', not {better!r}")
            continue
        ia, ib = contestants[str(a)], contestants[str(b)]
        lo, hi = min(ia, ib), max(ia, ib)
        sign = 0 if better == "tie" else (-1 if contestants[str(better)] == lo else 1)
        labels[(prompts[str(p)], lo, hi)] = sign
    return labels, problems


def _rate(k: int, n: int) -> float:
    return k / n if n else float("nan")


def _units(
    rows: NDArray[np.intp], table: VerdictTable, declared: NDArray[np.bool_], verdict: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(verdict in the declared order, verdict in the swapped order) per complete mirrored unit (-9: not valid)."""
    lo = np.minimum(table.first[rows], table.second[rows]).tolist()
    hi = np.maximum(table.first[rows], table.second[rows]).tolist()
    key = list(
        zip(
            table.prompt[rows].tolist(),
            lo,
            hi,
            table.condition[rows].tolist(),
            table.sample[rows].tolist(),
            strict=True,
        )
    )
    first_of: dict[tuple[int, ...], int] = {}
    second_of: dict[tuple[int, ...], int] = {}
    for k, d, v in zip(key, declared.tolist(), verdict.tolist(), strict=True):
        (first_of if d else second_of)[k] = v
    both = [k for k in first_of if k in second_of]
    return np.array([first_of[k] for k in both], dtype=np.int64), np.array(
        [second_of[k] for k in both], dtype=np.int64
    )


def _judge_audit(table: VerdictTable, rows: NDArray[np.intp], gold: NDArray[np.int64]) -> dict[str, Any]:
    o = table.outcome[rows]
    first, second = table.first[rows], table.second[rows]
    declared = first < second  # shown in the declared order (the earlier-declared contestant as Response A)
    valid = o <= OUTCOME_TIE
    # the verdict in the pair's own orientation: -1 lo better, 0 tie, +1 hi better; -9 not valid
    shown_first_won = np.where(o == OUTCOME_FIRST, 1, np.where(o == OUTCOME_SECOND, -1, 0))
    verdict = np.where(valid, np.where(declared, -shown_first_won, shown_first_won), -9).astype(np.int64)
    correct = verdict == gold
    ab, ba = _units(rows, table, declared, verdict)
    both_valid = (ab != -9) & (ba != -9)
    gold_units_ok = (ab == ba) & both_valid
    return {
        "planned": len(rows),
        "valid": int(valid.sum()),
        "correct": int(correct.sum()),
        "accuracy_all": _rate(int(correct.sum()), len(rows)),
        "accuracy_valid": _rate(int((correct & valid).sum()), int(valid.sum())),
        "accuracy_by_seat": {
            "first": _rate(int((correct & declared).sum()), int(declared.sum())),
            "second": _rate(int((correct & ~declared).sum()), int((~declared).sum())),
        },
        "units": len(ab),
        "both_correct": _rate(int(_both_correct(rows, table, declared, correct)), len(ab)),
        "agreement": _rate(int(gold_units_ok.sum()), int(both_valid.sum())),
        "agreement_llmbar": _rate(int((ab == ba).sum()), len(ab)),
        "cohen_kappa": cohen_kappa(verdict[valid] + 1, gold[valid] + 1, 3) if valid.any() else float("nan"),
    }


def _both_correct(
    rows: NDArray[np.intp], table: VerdictTable, declared: NDArray[np.bool_], correct: NDArray[np.bool_]
) -> int:
    a, b = _units(rows, table, declared, correct.astype(np.int64))
    return int(((a == 1) & (b == 1)).sum())


def gold_audit(
    table: VerdictTable, labels: GoldLabels, mask: NDArray[np.bool_] | None = None
) -> dict[str, Any]:
    """`{"labelled_pairs", "by_judge": {judge: {...}}}` (the module docstring), over the rows in `mask`."""
    lo = np.minimum(table.first, table.second).astype(np.int64)
    hi = np.maximum(table.first, table.second).astype(np.int64)
    keys = list(zip(table.prompt.tolist(), lo.tolist(), hi.tolist(), strict=True))
    gold = np.array([labels.get(k, -99) for k in keys], dtype=np.int64)
    labelled = gold != -99
    if mask is not None:
        labelled &= mask
    by_judge = {
        name: _judge_audit(
            table, np.flatnonzero(labelled & (table.judge == j)), gold[labelled & (table.judge == j)]
        )
        for j, name in enumerate(table.judges)
    }
    return {"labelled_pairs": len(labels), "by_judge": by_judge}


def gold_report(
    table: VerdictTable, rows: Iterable[Mapping[str, Any]], categories: Mapping[str, str]
) -> dict[str, Any]:
    """The audit over every labelled pair, and per prompt category (when prompts have one); `problems`: label rows
    that could not be used."""
    labels, problems = gold_labels(rows, table)
    report = gold_audit(table, labels)
    report["problems"] = problems[:20]
    if categories:
        prompt_category = np.array([categories.get(p, "") for p in table.prompts] or [""], dtype=object)
        row_category = prompt_category[table.prompt] if len(table) else np.array([], dtype=object)
        report["by_category"] = {
            c: gold_audit(table, labels, row_category == c)["by_judge"]
            for c in sorted(set(categories.values()))
        }
    return report


GOLD_HEADER = ("judge", "accuracy", "of valid", "seat 1st", "seat 2nd", "both", "agree", "agree*", "κ")


def gold_cells(judge: str, g: Mapping[str, Any]) -> list[str]:
    """One judge's audit as the cells of GOLD_HEADER (percentages, κ to 3 places; "—" where undefined)."""

    def missing(value: Any) -> bool:
        return value is None or bool(np.isnan(value))

    def pct(value: Any) -> str:
        return "—" if missing(value) else f"{100 * value:.1f}%"

    kappa = g["cohen_kappa"]
    return [
        judge,
        pct(g["accuracy_all"]),
        pct(g["accuracy_valid"]),
        pct(g["accuracy_by_seat"]["first"]),
        pct(g["accuracy_by_seat"]["second"]),
        pct(g["both_correct"]),
        pct(g["agreement"]),
        pct(g["agreement_llmbar"]),
        "—" if missing(kappa) else f"{kappa:.3f}",
    ]
