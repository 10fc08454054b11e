"""JSON Lines data files are decoded all at once (msgspec) where that reads exactly what the line-by-line reading
reads: the same rows on the same line numbers, and every text it does not take (blank lines, other line breaks,
NaN, lone surrogates, two values on a line, a value across lines, broken lines, huge integers) read line by line
with the same result."""

from __future__ import annotations

import json
import random

import pytest

from elotui.tournament.data_rows import _all_lines, _jsonl, _jsonl_lines


def rows(seed: int, n: int = 200) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [
        {
            "id": f"p{i}",
            "text": rng.choice(["plain", "ünïcødé ✓", 'quote " and \\ back', "tab\tinside", ""]),
            "n": rng.choice([0, -3, 2**40, 1.5, 1e-7, None, True]),
            "nested": {"choices": [{"turns": ["a", "b"]}]} if rng.random() < 0.3 else [1, 2],
            "dup": 1,
        }
        for i in range(n)
    ]


ODD = {
    "blank line": "\n\n",
    "spaces line": "\n   \n",
    "carriage return": "\r\n",
    "nan": '\n{"a": NaN}\n',
    "lone surrogate": '\n{"a": "\\ud800"}\n',
    "two values": '\n{"a": 1}{"b": 2}\n',
    "broken": "\n{not json\n",
    "huge integer": '\n{"a": 123456789012345678901234567890}\n',
    "line separator": '\n{"a": "x\u2028y"}\n',
    "duplicate keys": '\n{"a": 1, "a": 2}\n',
    "a value across lines": '\n{"a":\n1}{"b": 2}\n',  # as many values as lines, but not one a line
    "leading blanks": '\n  {"a": 1}\n',
    "an array": "\n[1, 2]\n",
}


def test_plain_json_lines_are_decoded_at_once_as_line_by_line() -> None:
    for seed in range(3):
        text = "".join(json.dumps(r, ensure_ascii=seed == 0) + "\n" for r in rows(seed))
        assert _all_lines(text) is not None
        assert list(_jsonl(text)) == list(_jsonl_lines(text))
        assert list(_jsonl(text.rstrip("\n"))) == list(_jsonl_lines(text.rstrip("\n")))


@pytest.mark.parametrize("odd", list(ODD))
def test_odd_texts_read_as_line_by_line(odd: str) -> None:
    lines = [json.dumps(r) for r in rows(4, 20)]
    text = "\n".join(lines[:10]) + ODD[odd] + "\n".join(lines[10:]) + "\n"
    got, want = list(_jsonl(text)), list(_jsonl_lines(text))
    assert [(n, v) for n, v, _ in got] == [(n, v) for n, v, _ in want]
    assert [e for *_, e in got] == [e for *_, e in want]
    if odd not in ("duplicate keys", "huge integer"):  # read alike at once: the last key wins, ints are exact
        assert _all_lines(text) is None
