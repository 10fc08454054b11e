from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.verdict_log import FIELDS, read_log, write_log

ROW = {
    "prompt": "q1",
    "first": "a",
    "second": "b",
    "judge": "j",
    "condition": "clean",
    "sample": 0,
    "winner": "tie",
    "reasoning": 'même — "quoted"\nnew line',
    "status": "ok",
}


def test_round_trip_plain_and_gzip(tmp_path: Path) -> None:
    buf = io.StringIO()
    assert write_log([ROW, {**ROW, "winner": None, "status": "invalid"}], buf) == 2
    plain = tmp_path / "v.jsonl"
    plain.write_text(buf.getvalue(), encoding="utf-8")
    gz = tmp_path / "v.jsonl.gz"
    gz.write_bytes(gzip.compress(buf.getvalue().encode()))
    for path in (plain, gz):
        rows = list(read_log(path))
        assert rows[0] == ROW
        assert rows[1]["status"] == "invalid" and rows[1]["winner"] is None
    assert list(json.loads(buf.getvalue().splitlines()[0])) == list(FIELDS)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "v.jsonl:2:2: not valid JSON"),
        (json.dumps({**ROW, "winner": "left"}), "v.jsonl:2: `winner` must be first, second, tie or null"),
        (json.dumps({**ROW, "status": "fine"}), "v.jsonl:2: `status` must be one of ok, invalid, error"),
        (json.dumps({**ROW, "winner": None}), "v.jsonl:2: a verdict with status ok needs a `winner`"),
        (json.dumps({**ROW, "first": ""}), "v.jsonl:2: `first` must be a non-empty string"),
        (json.dumps({**ROW, "sample": -1}), "v.jsonl:2: `sample` must be a whole number ≥ 0"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(UserError) as info:
        list(read_log(path))
    assert message in str(info.value)
