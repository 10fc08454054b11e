"""The arena import as it was written record by record (a verdict tuple per battle, a dict per prompt, response and
style row, the files encoded from those, the snapshot coded from the tuples): the reference the columnar import is
compared with, byte for byte (tests/importers/test_arena_columns.py). The reading of the files (elotui.importers.common
.read_each, line by line: a `Typed` without `block`), the report, `Imported`, a battle's typed fields and
`_count` are the product's own; what the columnar import replaced is kept here as it was."""

from __future__ import annotations

import io
from operator import itemgetter
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import tomli_w
from numpy.typing import NDArray

from elotui.importers.arena import JUDGE, STYLE_KEYS, _Battle, _count, _Metadata
from elotui.importers.common import (
    BadRecord,
    Imported,
    need_object,
    need_text,
    read_each,
    tournament_name,
)
from elotui.importers.recorded_snapshot import CONDITIONS, _empty_plan, _recoded
from elotui.importers.source_records import Typed
from elotui.store.columns import CodedPlan, code_names
from elotui.verdict_log import Verdict, write_log
from elotui.vocab import outcome_code

WINNERS = {"model_a": "first", "model_b": "second", "tie": "tie", "tie (bothbad)": "tie"}


def import_files(paths: list[Path], *, skip_bad: bool) -> Imported:
    imported = Imported(format="arena", both_orders=False, threshold="none", inline_responses=True)
    seen: dict[str, int] = {}

    def fast(imp: Imported, battle: _Battle) -> bool:
        a, b, winner = battle.model_a, battle.model_b, WINNERS.get(battle.winner)
        if not a or not b or a == b or winner is None:
            return False
        metadata = battle.conv_metadata
        counts = None if metadata is None else _counts(metadata)
        if metadata is not None and counts is None:
            return False
        qid = str(battle.question_id) if battle.question_id not in (None, "") else f"battle-{imp.report.read}"
        if qid not in imp.prompts:
            imp.prompts[qid] = _prompt(qid, {"turn": battle.turn, "language": battle.language})
        imp.verdict(qid, a, b, JUDGE, winner, None)
        responses = imp.responses
        responses.setdefault((qid, a), "")
        responses.setdefault((qid, b), "")
        if counts is not None:
            imp.style.setdefault((qid, a), counts[0])
            imp.style.setdefault((qid, b), counts[1])
        seen[winner] = seen.get(winner, 0) + 1
        return True

    def one(imp: Imported, where: str, record: Any) -> None:
        battle = need_object(record)
        a, b = need_text(battle, "model_a"), need_text(battle, "model_b")
        if a == b:
            raise BadRecord(f"model_a and model_b are the same model ({a!r})")
        winner = WINNERS.get(battle.get("winner"))  # type: ignore[arg-type]
        if winner is None:
            raise BadRecord(f"`winner` must be one of {', '.join(WINNERS)} (got {battle.get('winner')!r})")
        qid = (
            str(battle["question_id"])
            if battle.get("question_id") not in (None, "")
            else f"battle-{imp.report.read}"
        )
        metadata = battle.get("conv_metadata")
        sides = {}  # a count that is not one skips the battle whole (`--skip-bad`), before anything is kept
        if isinstance(metadata, dict):
            for side, model in (("a", a), ("b", b)):
                sides[model] = {name: _count(metadata, key.format(side)) for name, key in STYLE_KEYS.items()}
        if qid not in imp.prompts:
            imp.prompts[qid] = _prompt(qid, battle)
        imp.verdict(qid, a, b, JUDGE, winner, None)
        imp.respond(qid, a, None)
        imp.respond(qid, b, None)
        for model, counts in sides.items():
            imp.style.setdefault((qid, model), counts)
        seen[winner] = seen.get(winner, 0) + 1

    # the product's reading, line by line (a Typed without `block`): the record-by-record import's own
    read_each(imported, paths, one, skip_bad=skip_bad, typed=Typed(msgspec.json.Decoder(_Battle), fast))
    imported.report.mapped.append(
        f"each battle: one verdict of judge {JUDGE!r}, model_a shown first "
        f"({', '.join(f'{n:,} {w}' for w, n in seen.items())}); `tie (bothbad)` is a tie"
    )
    if imported.style:
        imported.report.mapped.append(
            f"conv_metadata style counts of {len(imported.style):,} responses: style.jsonl"
        )
    return imported


def _prompt(qid: str, battle: dict[str, Any]) -> dict[str, str]:
    language = battle.get("language")
    turns = battle.get("turn")
    text = f"Chatbot Arena battle {qid}" + (f" ({turns} turn(s))" if isinstance(turns, int) else "")
    return {"text": text} | ({"category": language} if isinstance(language, str) and language else {})


_SIDES = tuple(tuple(key.format(side) for key in STYLE_KEYS.values()) for side in "ab")


def _counts(metadata: _Metadata) -> tuple[dict[str, int], dict[str, int]] | None:
    out = []
    for keys in _SIDES:
        values = [getattr(metadata, key) for key in keys]
        if any(v is None for v in values):
            return None
        totals = (int(sum(v.values())) if type(v) is dict else int(v) for v in values)
        out.append(dict(zip(STYLE_KEYS, totals, strict=True)))
    return out[0], out[1]


# the files, as the record-by-record import wrote them

_ENCODER = msgspec.json.Encoder()


def _jsonl(rows: Any) -> str:
    return _ENCODER.encode_lines(list(rows)).decode("utf-8")


def _prompt_rows(imported: Imported) -> str:
    tables: dict[str, dict[str, str]] = {}
    for (prompt, contestant), text in imported.responses.items():
        tables.setdefault(prompt, {})[contestant] = text
    return _jsonl(
        {"id": pid, **row, "responses": tables.get(pid, {})} for pid, row in imported.prompts.items()
    )


def _log(verdicts: list[Verdict]) -> str:
    buf = io.StringIO()
    write_log(verdicts, buf)
    return buf.getvalue()


def _toml(imported: Imported, sources: list[Path]) -> dict[str, Any]:
    names = ", ".join(p.name for p in sources)
    data: dict[str, Any] = {"prompts": "prompts.jsonl", "fields": {"responses": "responses"}}
    if imported.style:
        data["style"] = "style.jsonl"
    if any(not text.strip() for text in imported.responses.values()):
        data["allow_empty"] = True
    return {
        "tournament": {
            "name": tournament_name(imported, sources),
            "description": f"elotui import {imported.format} {names}",
        },
        "data": data,
        "comparison": {"pairs": "recorded", "both_orders": False, "single_order": "declared"},
        "ranking": {"method": "bt", "threshold": "none"},
        "contestants": [{"id": c} for c in imported.contestants],
        "judges": [
            {"id": j, "provider": "replay", "model": j, "path": "verdicts.jsonl"} for j in imported.judges
        ],
    }


def files_of(imported: Imported, sources: list[Path]) -> dict[str, bytes]:
    """The folder's files as the record-by-record import wrote them."""
    written = {
        "prompts.jsonl": _prompt_rows(imported),
        "verdicts.jsonl": _log(imported.verdicts),
        "tournament.toml": tomli_w.dumps(_toml(imported, sources)),
    }
    if imported.style:
        written["style.jsonl"] = _jsonl(
            {"prompt": p, "contestant": c, **counts} for (p, c), counts in imported.style.items()
        )
    return {name: text.encode("utf-8") for name, text in written.items()}


def recorded_columns(imported: Imported) -> tuple[CodedPlan, NDArray[np.int8]]:
    """The snapshot's plan and outcomes, coded from the verdict tuples (with a unique over rows of codes)."""
    verdicts = imported.verdicts
    names = [list(map(itemgetter(k), verdicts)) for k in range(5)]
    log_books: list[dict[str, int]] = [{}, {}, {}, {}]
    books_of = (0, 1, 1, 2, 3)
    codes = [code_names(values, log_books[b]) for values, b in zip(names, books_of, strict=True)]
    prompt, first, second, judge, condition = codes
    judge_rank = np.array([list(imported.judges).index(j) for j in log_books[2]], dtype=np.int64)
    clean = [log_books[3][c] for c in CONDITIONS if c in log_books[3]]
    kept = np.flatnonzero((first != second) & np.isin(condition, clean))
    if not len(kept):
        return _empty_plan(), np.zeros(0, dtype=np.int8)
    presentation = np.stack([judge[kept], prompt[kept], first[kept], second[kept], condition[kept]], axis=1)
    _, first_row, of_row = np.unique(presentation, axis=0, return_index=True, return_inverse=True)
    of_row = of_row.reshape(-1)
    by_presentation = np.argsort(of_row, kind="stable")
    starts = np.searchsorted(of_row[by_presentation], np.arange(len(first_row)))
    sample = np.empty(len(kept), dtype=np.int64)
    sample[by_presentation] = np.arange(len(kept)) - starts[of_row[by_presentation]]
    rank = np.empty(len(first_row), dtype=np.int64)
    rank[np.lexsort((first_row, judge_rank[presentation[first_row, 0]]))] = np.arange(len(first_row))
    pf, ps = presentation[first_row, 2], presentation[first_row, 3]
    units = np.stack([presentation[first_row, 1], np.minimum(pf, ps), np.maximum(pf, ps)], axis=1)
    of_unit = np.unique(units, axis=0, return_inverse=True)[1].reshape(-1)
    unit_rank = np.full(of_unit.max() + 1, len(rank), dtype=np.int64)
    np.minimum.at(unit_rank, of_unit, rank)
    order = kept[np.lexsort((sample, rank[of_row], unit_rank[of_unit[of_row]]))]
    sample = sample[np.searchsorted(kept, order)]
    outcomes = np.fromiter(
        (
            outcome_code(s, w)
            for s, w in zip(map(itemgetter(8), verdicts), map(itemgetter(6), verdicts), strict=True)
        ),
        dtype=np.int8,
        count=len(verdicts),
    )
    plan = _recoded([c[order] for c in codes], [list(b) for b in log_books], sample)
    return plan, outcomes[order]
