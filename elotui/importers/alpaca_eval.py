"""`elotui import alpaca-eval`: AlpacaEval annotation files (`annotations.json`: a JSON list, or JSON Lines).

A row: `instruction`, `output_1`, `generator_1`, `output_2`, `generator_2`, `annotator` and `preference` (1:
output_1 preferred, 2: output_2 preferred, 0 or 1.5: a tie). Each row is one verdict of judge `annotator`,
output_1 shown first; the instruction is the prompt (id `alpaca-` + the start of its sha256) and both outputs
are its responses. A soft preference (AlpacaEval 2.0's weighted annotators: a probability-like value strictly
between 1 and 2) becomes the verdict it is nearer to (above 1.5 output_2, below output_1), as alpaca_eval's
`discrete_win_rate` rounds it; rows without a preference are skipped and counted. The report gives each model's
win rates against the baseline as alpaca_eval computes them: `win_rate` (the mean of preference - 1, a tie 0.5)
and `discrete_win_rate` (wins, ties half), the one elotui's verdicts reproduce.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from elotui.importers.common import BadRecord, Imported, need_object, need_text, read_each

WINNERS = {1: "first", 2: "second", 0: "tie", 1.5: "tie"}


def import_files(paths: list[Path], *, skip_bad: bool) -> Imported:
    imported = Imported(format="alpaca-eval", both_orders=False, threshold="none")
    points: dict[str, list[float]] = {}  # the model shown second (generator_2): its score against generator_1
    soft: dict[str, list[float]] = {}  # the same, as preference - 1 (alpaca_eval's `win_rate`)
    rounded = 0

    def one(imp: Imported, where: str, record: Any) -> None:
        row = need_object(record)
        instruction = need_text(row, "instruction")
        g1, g2 = need_text(row, "generator_1"), need_text(row, "generator_2")
        if g1 == g2:
            raise BadRecord(f"generator_1 and generator_2 are the same model ({g1!r})")
        preference = row.get("preference")
        if preference is None:
            imp.report.skip("no preference", where)
            return
        if (
            isinstance(preference, bool)
            or not isinstance(preference, (int, float))
            or not 0 <= preference <= 2
        ):
            raise BadRecord(
                f"`preference` must be 1, 2, 0 or 1.5, or a probability in [1, 2] (got {preference!r})"
            )
        winner = WINNERS.get(preference)
        if winner is None:
            if preference < 1:
                raise BadRecord(
                    f"`preference` must be 1, 2, 0 or 1.5, or a probability in [1, 2] (got {preference!r})"
                )
            nonlocal rounded
            rounded += 1
            winner = "second" if preference > 1.5 else "first"
        pid = "alpaca-" + hashlib.sha256(instruction.encode()).hexdigest()[:12]
        imp.prompts.setdefault(pid, {"text": instruction})
        given = row.get("annotator")
        judge = given if isinstance(given, str) and given else "annotator"
        imp.verdict(pid, g1, g2, judge, winner, None)
        for generator, output in ((g1, "output_1"), (g2, "output_2")):
            text = row.get(output)
            imp.respond(pid, generator, text if isinstance(text, str) else None)
        points.setdefault(f"{g2} vs {g1}", []).append({"first": 0.0, "second": 1.0, "tie": 0.5}[winner])
        soft.setdefault(f"{g2} vs {g1}", []).append(0.5 if preference == 0 else float(preference) - 1.0)

    read_each(imported, paths, one, skip_bad=skip_bad)
    imported.report.mapped.append(
        "each row: one verdict of its annotator, output_1 shown first; 0 and 1.5 a tie"
    )
    if rounded:
        imported.report.mapped.append(
            f"{rounded:,} soft preference(s) (a probability): the verdict each is nearer to, as alpaca_eval's "
            "discrete_win_rate"
        )
    imported.report.mapped += [
        f"{pair}: win rate {100 * sum(p) / len(p):.4f} % over {len(p)} rows (discrete_win_rate: ties half, as "
        f"alpaca_eval; its win_rate {100 * sum(soft[pair]) / len(p):.4f} %)"
        for pair, p in points.items()
    ]
    return imported
