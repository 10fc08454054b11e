"""Rows of a data file (JSONL, a JSON array, or CSV; any of them gzipped), each with the line it starts on, and
the field paths (`choices[0].turns[0]`) that pick a value out of one row.

Every problem names the file and the line; a broken row is reported and skipped, so one run lists them all.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AnyStr

import msgspec

from elotui.errors import UserError
from elotui.tournament.user_files import (
    check_regular,
    decode_text,
    gunzip,
    lone_surrogate,
    may_hold_surrogate,
    read_regular_file,
    surrogate_message,
)

FORMATS = (".jsonl", ".json", ".csv", ".tsv")
MAX_ROW_PROBLEMS = 20  # per file; beyond that the count is given


@dataclass(frozen=True)
class Row:
    line: int  # 1-based line of the file where the row starts (CSV: its first physical line)
    values: dict[str, Any]


def data_format(path: Path) -> str:
    """`.jsonl`, `.json`, `.csv` or `.tsv` (a trailing `.gz` is looked through), or UserError."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in FORMATS:
        return suffixes[-1]
    raise UserError(
        f"{path}: unknown data format (the name must end in {', '.join(FORMATS)}, optionally + .gz)"
    )


def _decode(path: Path) -> str:
    raw = read_regular_file(path)
    if path.suffix.lower() == ".gz":
        raw = gunzip(path, raw)
    return decode_text(path, raw, bom=True)


def read_rows(path: Path, problems: list[str]) -> list[Row]:
    """The rows of a data file. A row that is not an object is reported in `problems` (`FILE:LINE: ...`) and
    left out; a file that cannot be read at all raises UserError."""
    unreadable = check_regular(path)  # what is no file is said as such, whatever its name
    if unreadable is not None:
        raise UserError(unreadable)
    kind = data_format(path)
    text = _decode(path)
    parse = {".jsonl": _jsonl, ".json": _json_array, ".csv": _csv, ".tsv": _tsv}[kind]
    rows: list[Row] = []
    bad = 0
    escapes = kind in (".jsonl", ".json") and may_hold_surrogate(text)
    for line, value, error in parse(text):
        if error is None and not isinstance(value, dict):
            error = f"expected an object ({{...}}), found {type(value).__name__}"
        if error is None and escapes and (escape := lone_surrogate(value)) is not None:
            error = surrogate_message(escape)
        if error is not None:
            bad += 1
            if bad <= MAX_ROW_PROBLEMS:
                problems.append(f"{path}:{line}: {error}")
            continue
        rows.append(Row(line, value))
    if bad > MAX_ROW_PROBLEMS:
        problems.append(f"{path}: {bad - MAX_ROW_PROBLEMS} more unreadable row(s)")
    return rows


Parsed = Iterator[tuple[int, Any, str | None]]


def _jsonl(text: str) -> Parsed:
    """The rows of JSON Lines: decoded all at once (`_all_lines`) where that reads them as line by line, else one
    line at a time (`_jsonl_lines`)."""
    values = _all_lines(text)
    if values is None:
        yield from _jsonl_lines(text)
        return
    for number, value in enumerate(values, start=1):
        yield number, value, None


_DECODER = msgspec.json.Decoder()
# what makes `str.splitlines` break a line besides "\n"
_LINE_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_LINE_BREAKS_UTF8 = tuple(b.encode() for b in _LINE_BREAKS)


def object_lines(text: AnyStr) -> int | None:
    """How many lines a JSON Lines text has, where its characters show each line to hold one object alone: every
    line starts with "{" and ends with "}", no line is blank, no line break but "\n" (else None). msgspec's
    `decode_lines` takes any whitespace, "\n" too, between and inside values: where it reads as many values from
    such a text as it has lines, it has read one value a line, each on the line of its number (a line boundary
    inside a value would be "}" then "{" without a comma, no JSON)."""
    if isinstance(text, str):
        return _object_lines(text, _LINE_BREAKS, "\n", "}\n{", "{", "}")
    breaks = _LINE_BREAKS_UTF8[:6] if text.isascii() else _LINE_BREAKS_UTF8  # the last three are not ASCII
    return _object_lines(text, breaks, b"\n", b"}\n{", b"{", b"}")


def _object_lines(
    text: AnyStr, breaks: tuple[AnyStr, ...], nl: AnyStr, joint: AnyStr, first: AnyStr, last: AnyStr
) -> int | None:
    ends_with_nl = text.endswith(nl)
    if not text.startswith(first) or not text.endswith(last + nl if ends_with_nl else last):
        return None
    if any(b in text for b in breaks):
        return None
    joints = text.count(joint)  # each holds one "\n"; every "\n" but a final one must be in one
    return joints + 1 if joints == text.count(nl) - ends_with_nl else None


def _all_lines(text: str) -> list[Any] | None:
    """Every line of a JSON Lines text decoded by msgspec at once (10^6 rows: ~3 times as fast as json.loads line
    by line), where that gives what the line-by-line reading gives, each row on the line of its number: one object
    a line as its characters show (`object_lines`) and as many values as lines (NaN, a lone surrogate, a line that
    is not JSON, any other text: None, read line by line, which reports it)."""
    lines = object_lines(text)
    if lines is None:
        return None
    try:
        values: list[Any] = _DECODER.decode_lines(text)
    except (msgspec.DecodeError, RecursionError):
        return None
    return values if len(values) == lines else None


def _jsonl_lines(text: str) -> Parsed:
    """Each line's value: lines end at "\n" alone (a "\r" before it is dropped), as JSON Lines say and editors
    number them; a U+2028 or a NEL is text inside a JSON string, not a line break (`str.splitlines` split a
    model name holding one, and the file elotui itself wrote was read as broken)."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"not JSON ({exc.msg}, column {exc.colno})"
        except RecursionError:
            yield number, None, "nested too deeply"


_SPACE = re.compile(r"[ \t\n\r]*")


def _json_array(text: str) -> Parsed:
    """The elements of a top-level JSON array, each with the line it starts on."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if not text.startswith("[", pos):
        yield text.count("\n", 0, pos) + 1, None, "expected a JSON array of objects ([{...}, ...])"
        return
    pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
    line, counted = 1, 0
    while pos < len(text) and text[pos] != "]":
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            yield exc.lineno, None, f"not JSON ({exc.msg}, column {exc.colno})"
            return
        except RecursionError:
            yield line, None, "nested too deeply"
            return
        yield line, value, None
        pos = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith(",", pos):
            pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        elif not text.startswith("]", pos):
            yield text.count("\n", 0, pos) + 1, None, "expected ',' or ']' after an element"
            return


def _delimited(text: str, delimiter: str) -> Parsed:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        yield 1, None, f"not CSV ({exc})"
        return
    names = [h.strip() for h in header]
    start = reader.line_num + 1
    try:
        for cells in reader:
            if cells:
                if len(cells) > len(names):
                    yield start, None, f"{len(cells)} cells, but the header names {len(names)} columns"
                else:
                    yield start, dict(zip(names, cells, strict=False)), None
            start = reader.line_num + 1
    except csv.Error as exc:
        yield start, None, f"not CSV ({exc})"


def _csv(text: str) -> Parsed:
    return _delimited(text, ",")


def _tsv(text: str) -> Parsed:
    return _delimited(text, "\t")


# --- field paths ---------------------------------------------------------------------------------------------

_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def parse_path(path: str) -> tuple[str | int, ...]:
    """`choices[0].turns[0]` → ('choices', 0, 'turns', 0). Raises ValueError for a malformed path."""
    steps: list[str | int] = []
    pos = 0
    for m in _STEP.finditer(path):
        gap = path[pos : m.start()]
        if gap not in ("", ".") or (gap == "." and not steps):
            raise ValueError(f"malformed field path {path!r}")
        steps.append(m.group(1) if m.group(1) is not None else int(m.group(2)))
        pos = m.end()
    if not steps or pos != len(path):
        raise ValueError(f"malformed field path {path!r}")
    return tuple(steps)


_MISSING = object()


def pick(values: dict[str, Any], steps: tuple[str | int, ...]) -> Any:
    """The value at `steps` in a row, or `_MISSING` (see `found`)."""
    node: Any = values
    for step in steps:
        if isinstance(step, int):
            if not isinstance(node, list) or step >= len(node):
                return _MISSING
        elif not isinstance(node, dict) or step not in node:
            return _MISSING
        node = node[step]
    return node


def found(value: Any) -> bool:
    return value is not _MISSING
