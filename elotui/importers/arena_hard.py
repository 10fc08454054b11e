"""`elotui import arena-hard`: arena-hard-auto judgment files (`model_judgment/JUDGE/MODEL.jsonl`).

A record: `question_id` (v2: `uid`), `model`, `judge` and `games`, two games each with `score` (`A>>B`, `A>B`,
`A=B`, `B>A`, `B>>A`, the same written the other way round such as `A<<B`, or null when the judge gave none) and
`judgment`. Game 1 showed the baseline as A, game 2 the model as A;
each scored game is one verdict of judge `judge`, its judgment as reasoning. The baseline is a contestant:
`--baseline NAME`, else a record's `baseline` field. A strong score (`>>`) is kept in the log's `strength` field
(2; a clear `>` is 1) and the tournament sets `[ranking] strong_weight = 3`, arena-hard's weight. The tournament is
anchored at the baseline = 1000, arena-hard's scale.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from elotui.errors import UserError
from elotui.importers.common import BadRecord, Imported, need_object, need_text, read_each

SCORES = {
    "A>>B": ("first", 2),
    "A>B": ("first", 1),
    "A=B": ("tie", None),
    "B>A": ("second", 1),
    "B>>A": ("second", 2),
    # the same grades written the other way round, as arena-hard-auto's show_result reads them too
    "B<<A": ("first", 2),
    "B<A": ("first", 1),
    "B=A": ("tie", None),
    "A<B": ("second", 1),
    "A<<B": ("second", 2),
}


def import_files(paths: list[Path], *, skip_bad: bool, baseline: str | None) -> Imported:
    imported = Imported(format="arena-hard", both_orders=True, threshold="none")
    found: dict[str, str | None] = {"baseline": baseline}

    def one(imp: Imported, where: str, record: Any) -> None:
        row = need_object(record)
        # arena-hard-auto v0.1 names the question `question_id`, v2 `uid`
        qid = need_text(row, "question_id" if "question_id" in row or "uid" not in row else "uid")
        model = need_text(row, "model")
        base = found["baseline"] or (row.get("baseline") if isinstance(row.get("baseline"), str) else None)
        if not base:
            raise UserError(f"{where}: the records do not name the baseline: give --baseline NAME")
        found["baseline"] = base
        if model == base:
            named = "--baseline" if baseline else "the records' `baseline`"
            raise BadRecord(
                f"`model` is the baseline ({base!r}): a record judges a model against the baseline, never the "
                f"baseline itself (is {named} the baseline these files were judged against?)"
            )
        given = row.get("judge")
        judge = given if isinstance(given, str) and given else "judge"
        games = row.get("games")
        if not isinstance(games, list) or len(games) != 2 or not all(isinstance(g, dict) for g in games):
            raise BadRecord("`games` must be a list of two games")
        imp.prompts.setdefault(qid, {"text": f"arena-hard question {qid}"})
        for (first, second), game in zip(((base, model), (model, base)), games, strict=True):
            score = game.get("score")
            if score is None:
                imp.report.skip("a game without a score", where)
                continue
            if score not in SCORES:
                raise BadRecord(
                    f"`score` must be one of {', '.join(list(SCORES)[:5])} or null (got {score!r})"
                )
            winner, strength = SCORES[score]
            reasoning = game.get("judgment") if isinstance(game.get("judgment"), str) else None
            imp.verdict(qid, first, second, judge, winner, reasoning)
            if strength is not None:
                imp.strengths[len(imp.verdicts) - 1] = strength
            imp.respond(qid, first, None)
            imp.respond(qid, second, None)

    read_each(imported, paths, one, skip_bad=skip_bad)
    imported.baseline = found["baseline"]
    imported.report.mapped.append(
        f"game 1: {imported.baseline} shown first (as A), game 2: the model first; `>>` kept as strength 2"
    )
    return imported
