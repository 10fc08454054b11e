from __future__ import annotations

import gzip
import io
import json
import random
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
        # every other flaw, each with its own message (the fast test of a row refuses, the explanation names it)
        ("[1, 2]", "v.jsonl:2: expected a JSON object per line"),
        (
            json.dumps({k: v for k, v in ROW.items() if k != "judge"}),
            "`judge` must be a non-empty string (got None)",
        ),
        (json.dumps({**ROW, "prompt": 7}), "`prompt` must be a non-empty string (got 7)"),
        (json.dumps({**ROW, "second": ["b"]}), "`second` must be a non-empty string (got ['b'])"),
        (json.dumps({**ROW, "condition": 5}), "`condition` must be a string (got 5)"),
        (json.dumps({**ROW, "status": ["ok"]}), "`status` must be one of ok, invalid, error (got ['ok'])"),
        (json.dumps({**ROW, "status": None}), "`status` must be one of ok, invalid, error (got None)"),
        (
            json.dumps({**ROW, "winner": {"a": 1}}),
            "`winner` must be first, second, tie or null (got {'a': 1})",
        ),
        (
            json.dumps({**ROW, "status": "error", "winner": "A"}),
            "`winner` must be first, second, tie or null",
        ),
        (json.dumps({**ROW, "sample": True}), "`sample` must be a whole number"),
        (json.dumps({**ROW, "sample": 1.0}), "`sample` must be a whole number"),
        (json.dumps({**ROW, "sample": None}), "`sample` must be a whole number"),
        (json.dumps({**ROW, "sample": 1_000_001}), "`sample` must be a whole number ≥ 0 (at most 1,000,000)"),
        (json.dumps({**ROW, "reasoning": ["why"]}), "v.jsonl:2: `reasoning` must be a string or null"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "v.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(UserError) as info:
        list(read_log(path))
    assert message in str(info.value)


def test_what_a_row_may_leave_out(tmp_path: Path) -> None:
    """A missing condition or an empty one is clean, a missing sample 0, a missing status ok; a failed verdict's
    winner, if any, is dropped."""
    path = tmp_path / "v.jsonl"
    lean = {"prompt": "q", "first": "a", "second": "b", "judge": "j", "winner": "first"}
    rows = [lean, {**lean, "condition": ""}, {**ROW, "status": "invalid", "winner": "second"}]
    rows.append({**ROW, "status": "error", "winner": None, "reasoning": None, "sample": 1_000_000})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = list(read_log(path))
    assert got[0] == {**lean, "condition": "clean", "sample": 0, "reasoning": None, "status": "ok"}
    assert got[1]["condition"] == "clean"
    assert (
        got[2]["status"] == "invalid" and got[2]["winner"] is None and got[2]["reasoning"] == ROW["reasoning"]
    )
    assert got[3]["status"] == "error" and got[3]["sample"] == 1_000_000


LINES = [
    '{"a": 1}\n',
    '{"a": 1}',
    '{"a": 1}\r\n',
    '{"a": 1}  \t\n',
    '  {"a": 1}\n',  # leading whitespace: json.loads skips it
    '{"a": 1} {"b": 2}\n',  # extra data
    '{"a": 1},{"b": 2}\n',
    '{"a": [1, {"b": "\\u00e9\\n"}]}\n',
    '"just a string"\n',
    "[1, 2]\n",
    "nul\n",
    "{not json\n",
    '{"a": }\n',
    "\n",
    "",
    '{"a": NaN}\n',
    '{"a": 1}\x0c\n',  # form feed is not JSON whitespace
]


@pytest.mark.parametrize("line", LINES)
def test_parse_is_json_loads(line: str) -> None:
    """The scanner fast path returns what json.loads returns and raises what it raises, message and column."""
    from elotui.verdict_log import _parse

    try:
        expected: object = json.loads(line)
    except json.JSONDecodeError as exc:
        with pytest.raises(json.JSONDecodeError) as info:
            _parse(line)
        assert (info.value.msg, info.value.pos) == (exc.msg, exc.pos)
        return
    assert _parse(line) == expected


def test_rows_and_verdicts_agree(tmp_path: Path) -> None:
    from elotui.verdict_log import read_verdicts

    path = tmp_path / "v.jsonl"
    rows = [
        ROW,
        {**ROW, "winner": None, "status": "invalid", "sample": 3},
        {k: ROW[k] for k in FIELDS[:4]} | {"winner": "first"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [tuple(r.values()) for r in read_log(path)] == list(read_verdicts(path))
    assert list(read_verdicts(path))[2] == ("q1", "a", "b", "j", "clean", 0, "first", None, "ok")


def test_a_written_line_is_json_dumps_of_its_row_character_for_character() -> None:
    """write_log quotes repeated names once and lays lines out itself: every line must still be exactly
    json.dumps(row, ensure_ascii=False), for dicts and tuples alike, whatever the strings hold."""
    rng = random.Random(3)
    alphabet = [
        '"',
        "\\",
        "\n",
        "\t",
        "\x00",
        "\x1f",
        "\x7f",
        "é",
        "—",
        "\u2028",
        "\ud800",
        "😀",
        "a",
        " ",
        "/",
    ]

    def text(longest: int) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(longest)))

    rows: list[dict[str, object]] = []
    for i in range(3000):
        row: dict[str, object] = {k: rng.choice([text(6), text(6), "m" + str(i % 5)]) for k in FIELDS[:5]}
        row["sample"] = rng.choice([0, 7, 10**12])
        row["winner"] = rng.choice(["first", "tie", None])
        row["reasoning"] = rng.choice([None, text(200), "a" * 70])
        row["status"] = rng.choice(["ok", "invalid", "error"])
        rows.append(row)
    rows.append(
        {**rows[0], "sample": 1.5, "reasoning": True}
    )  # whatever else a row holds: json.dumps decides
    buf = io.StringIO()
    written = [r if i % 2 else tuple(r[k] for k in FIELDS) for i, r in enumerate(rows)]
    assert write_log(written, buf) == len(rows)
    assert buf.getvalue() == "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
