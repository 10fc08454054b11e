"""The pairs a reviewer picked in the pairs pane, as a file to hand on: CSV (for spreadsheets: text cells that a
spreadsheet would evaluate get a leading `'`, as in the ranking CSV) or JSON (exact text).

One row per (prompt, pair): `PAIR_COLUMNS`, from `PairSummary.as_record()` plus the prompt's category and text.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from typing import IO, Any

from elotui.export.ranking import _csv_cell, spreadsheet_safe
from elotui.jsonable import jsonable
from elotui.rating.pair_summary import PairSummary

PAIR_COLUMNS: tuple[str, ...] = (
    "prompt",
    "category",
    "a",
    "b",
    "class",
    "consistent",
    "position_bias",
    "inconclusive",
    "any_flip",
    "flipped_judges",
    "judges_for_a",
    "judges_for_b",
    "judges_tied",
    "agreement",
    "preference",
    "dissenter",
    "verdicts",
    "prompt_text",
)


def pair_records(
    pairs: Iterable[PairSummary], categories: Mapping[str, str], prompt_texts: Mapping[str, str]
) -> list[dict[str, Any]]:
    out = []
    for s in pairs:
        record = s.as_record()
        record["category"] = categories.get(s.prompt)
        record["prompt_text"] = prompt_texts.get(s.prompt, "")
        out.append({name: record[name] for name in PAIR_COLUMNS})
    return out


def write_pairs_csv(records: list[dict[str, Any]], fh: IO[str]) -> None:
    writer = csv.writer(fh, lineterminator="\n")
    writer.writerow(PAIR_COLUMNS)
    for r in records:
        cells = [";".join(v) if isinstance(v, list) else v for v in (r[name] for name in PAIR_COLUMNS)]
        writer.writerow([_csv_cell(spreadsheet_safe(v)) for v in cells])


def write_pairs_json(records: list[dict[str, Any]], fh: IO[str], *, description: str) -> None:
    doc = {"description": description, "columns": list(PAIR_COLUMNS), "pairs": records}
    json.dump(jsonable(doc), fh, indent=2, ensure_ascii=False, allow_nan=False)
    fh.write("\n")
