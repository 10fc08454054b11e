"""The canonical verdict log: JSON Lines, one verdict per line, optionally gzip-compressed.

    {"prompt": "q1", "first": "gpt-4", "second": "claude", "judge": "gpt-4", "condition": "clean",
     "sample": 0, "winner": "first" | "second" | "tie" | null, "reasoning": "..." | null,
     "status": "ok" | "invalid" | "error"}

An invalid verdict may carry `"raw"` last: the judge's raw reply, which could not be parsed (readers ignore it).
A graded verdict may carry `"strength"` last: 2 for a strong preference (`A>>B`), 1 for a clear one (`A>B`); the
`replay` judges' strong verdicts count `[ranking] strong_weight` times (elotui.rating.graded).

`first` is the contestant whose response was shown first (Response A). `elotui verdicts` writes it; the
`replay` provider and `[reference] votes` read it.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Literal, TypedDict, cast

from elotui.errors import UserError
from elotui.runtime.checkpoints import checkpoint
from elotui.tournament.user_files import lone_surrogate, may_hold_surrogate, open_regular, surrogate_message
from elotui.vocab import Strength

FIELDS = ("prompt", "first", "second", "judge", "condition", "sample", "winner", "reasoning", "status")
LogWinner = Literal["first", "second", "tie"]
LogStatus = Literal["ok", "invalid", "error"]
WINNERS: tuple[LogWinner, ...] = ("first", "second", "tie")
STATUSES: tuple[LogStatus, ...] = ("ok", "invalid", "error")


class VerdictRow(TypedDict):
    prompt: str
    first: str
    second: str
    judge: str
    condition: str
    sample: int
    winner: LogWinner | None
    reasoning: str | None
    status: LogStatus


def _open_log(path: Path) -> IO[bytes]:
    """The log's bytes (decompressed where it is gzipped), opened through elotui.tournament.user_files' guard (a regular file, or
    UserError naming it)."""
    raw = open_regular(path)
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))
    return raw


MAX_SAMPLE = 1_000_000  # a sample index past this is a mistake, not a sample (and would overflow SQLite)


Verdict = tuple[
    str, str, str, str, str, int, "LogWinner | None", "str | None", LogStatus
]  # a row, FIELDS order
GradedVerdict = tuple[
    str, str, str, str, str, int, "LogWinner | None", "str | None", LogStatus, "Strength | None"
]  # a row and its verdict's strength (`read_graded_verdicts`)


def _check(obj: Any, path: Path, lineno: int) -> Verdict:
    """The row a parsed line holds, or UserError naming the line and what is wrong with it (`_explain`)."""
    row = _verdict(obj)
    if row is None:
        _explain(obj, f"{path}:{lineno}")  # names the flaw: every line _verdict refuses has one
        raise UserError(f"{path}:{lineno}: not a verdict")
    return row


def _verdict(obj: Any) -> Verdict | None:
    """The row, or None where anything is wrong (read the way json.loads builds it: exact dicts, strs and ints).
    One test per field and no message built (a log is 10^6 lines; a message only for the line that is bad)."""
    if type(obj) is not dict:
        return None
    get = obj.get
    prompt, first, second, judge = get("prompt"), get("first"), get("second"), get("judge")
    condition, sample, reasoning = get("condition"), get("sample", 0), get("reasoning")
    status, winner = get("status", "ok"), get("winner")
    outcome = _OUTCOMES.get((status, winner)) if type(status) is str and type(winner) in _TEXT else None
    if (
        outcome is None
        or not type(prompt) is type(first) is type(second) is type(judge) is str
        or "" in (prompt, first, second, judge)
        or type(condition) not in _TEXT
        or type(reasoning) not in _TEXT
        or type(sample) is not int
        or not 0 <= sample <= MAX_SAMPLE
    ):
        return None
    return (prompt, first, second, judge, condition or "clean", sample, outcome[1], reasoning, outcome[0])


_TEXT = (str, type(None))  # the types of an optional text
# (status, winner) as a line may give them -> as the row keeps them (a failed verdict's winner is dropped)
_OUTCOMES: dict[tuple[str, str | None], tuple[LogStatus, LogWinner | None]] = {
    **{("ok", w): ("ok", w) for w in WINNERS},
    **{(s, w): (s, None) for s in STATUSES if s != "ok" for w in (*WINNERS, None)},
}


def _explain(obj: Any, where: str) -> None:
    """Raise UserError naming the first thing wrong with a line that `_verdict` refused."""
    if not isinstance(obj, dict):
        raise UserError(f"{where}: expected a JSON object per line")
    _explain_ids(obj, where)
    _explain_outcome(obj, where)
    sample = obj.get("sample", 0)
    if isinstance(sample, bool) or not isinstance(sample, int) or not 0 <= sample <= MAX_SAMPLE:
        raise UserError(f"{where}: `sample` must be a whole number ≥ 0 (at most {MAX_SAMPLE:,})")
    reasoning = obj.get("reasoning")
    if reasoning is not None and not isinstance(reasoning, str):
        raise UserError(f"{where}: `reasoning` must be a string or null")


def _explain_ids(obj: dict[str, Any], where: str) -> None:
    for key in ("prompt", "first", "second", "judge"):
        if not isinstance(obj.get(key), str) or not obj[key]:
            raise UserError(f"{where}: `{key}` must be a non-empty string (got {obj.get(key)!r})")
    condition = obj.get("condition")
    if condition is not None and not isinstance(condition, str):
        raise UserError(f"{where}: `condition` must be a string (got {condition!r})")


def _explain_outcome(obj: dict[str, Any], where: str) -> None:
    status = obj.get("status", "ok")
    if status not in STATUSES:
        raise UserError(f"{where}: `status` must be one of {', '.join(STATUSES)} (got {status!r})")
    winner = obj.get("winner")
    if winner is not None and winner not in WINNERS:
        raise UserError(f"{where}: `winner` must be first, second, tie or null (got {winner!r})")
    if status == "ok" and winner is None:
        raise UserError(f"{where}: a verdict with status ok needs a `winner`")


# What json.loads runs on a line once past its leading whitespace (typeshed does not declare it).
_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _parse(line: str) -> Any:
    """`json.loads(line)`, without its two whitespace regexes for a line that starts with its value and ends in
    whitespace only (nearly every line of a log): the decoder's scanner on the line itself. Anything else (leading
    whitespace, trailing data, not JSON) goes through json.loads, which returns or raises exactly as it would."""
    try:
        obj, end = _SCAN(line, 0)
    except StopIteration:
        return json.loads(line)
    if end == len(line) or not line[end:].strip(" \t\n\r"):
        return obj
    return json.loads(line)


MAX_BLANK_RUN = (
    100_000  # blank lines in a row: past this, the file is not a verdict log (a 300 MB gzip of them)
)
MAX_LINE_BYTES = 10_000_000


def read_log(path: str | Path) -> Iterator[VerdictRow]:
    """Yield validated rows; a malformed line raises UserError naming the file and line (`read_verdicts`)."""
    for row in read_verdicts(path):
        yield cast(VerdictRow, dict(zip(FIELDS, row, strict=True)))


def read_verdicts(path: str | Path) -> Iterator[Verdict]:
    """Yield validated rows as tuples in FIELDS order (no dict per row); a malformed line raises UserError naming
    the file and line. What is not a regular file is refused at once; a run of MAX_BLANK_RUN blank lines, a line of
    more than MAX_LINE_BYTES bytes, bytes that are not UTF-8, JSON nested too deeply to read or a lone surrogate
    escape are bad lines too (bounded work on a hostile file)."""
    return cast(Iterator[Verdict], _read(Path(path), graded=False))


def read_graded_verdicts(path: str | Path) -> Iterator[GradedVerdict]:
    """`read_verdicts`, each row followed by its verdict's strength (`strength_of`): what a replay judge answers
    with. A `"strength"` that is not 1, 2 or null is a bad line (UserError naming it)."""
    return cast(Iterator[GradedVerdict], _read(Path(path), graded=True))


def strength_of(value: Any, row: Verdict, where: tuple[Path, int]) -> Strength | None:
    """A line's graded strength: its `"strength"` `value` (2 strong, 1 clear) on an ok verdict with a winner; None
    where the line has none, and for a tie or a failed verdict (which no grade applies to)."""
    if value is None:
        return None
    if type(value) is not int or value not in (1, 2):
        raise UserError(
            f"{where[0]}:{where[1]}: `strength` must be 1 (a clear preference), 2 (a strong one) or null"
        )
    return value if row[8] == "ok" and row[6] in ("first", "second") else None  # type: ignore[return-value]


def _read(path: Path, *, graded: bool) -> Iterator[Verdict | GradedVerdict]:
    """The rows of `read_verdicts`, with `graded` each followed by its strength."""
    with _open_log(path) as fh:
        try:
            blank, lineno = 0, 0
            for lines in _blocks(fh, path):
                checkpoint()  # a run stopped while its replay judge reads the log (elotui.runtime.checkpoints)
                for lineno, line in enumerate(lines, lineno + 1):  # noqa: B020 (numbered on from the last block)
                    if not line or line.isspace():
                        blank += 1
                        if blank >= MAX_BLANK_RUN:
                            raise UserError(
                                f"{path}:{lineno}: {MAX_BLANK_RUN:,} blank lines in a row: not a verdict log"
                            )
                        continue
                    blank = 0
                    try:
                        obj = _parse(line)
                    except json.JSONDecodeError as exc:
                        raise UserError(f"{path}:{lineno}:{exc.colno}: not valid JSON: {exc.msg}") from None
                    except RecursionError:
                        raise UserError(f"{path}:{lineno}: JSON nested too deeply: not a verdict") from None
                    row = _check(obj, path, lineno)
                    if not graded:
                        yield row
                    elif (strength := obj.get("strength")) is None:  # nearly every line (and binary logs)
                        yield (*row, None)
                    else:
                        yield (*row, strength_of(strength, row, (path, lineno)))
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise UserError(f"{path}: cannot read: {exc}") from None


_BLOCK = 1 << 20  # bytes read at a time
NEWLINE = b"\n"


def _blocks(fh: IO[bytes], path: Path) -> Iterator[list[str]]:
    """The file's lines as text, without their newline, a block's whole lines at a time (decoded at once): a line
    is never held longer than MAX_LINE_BYTES plus a block, so a file without a newline, or a small gzip of one
    endless line, is not read whole. UserError names the line that is too long, not UTF-8, or holds a lone
    surrogate escape."""
    rest, seen = b"", 0  # the start of a line to come; the lines given so far
    for block in iter(functools.partial(fh.read, _BLOCK), b""):
        data = rest + block if rest else block
        cut = data.rfind(NEWLINE) + 1
        rest = data[cut:]
        if len(rest) > MAX_LINE_BYTES:
            line = seen + data.count(NEWLINE) + 1
            raise UserError(f"{path}:{line}: a line of more than {MAX_LINE_BYTES:,} bytes: not a verdict")
        if cut:
            text = _decoded(data[:cut], path, seen)
            lines = text.split("\n")
            lines.pop()  # after the last newline: nothing
            if may_hold_surrogate(text):  # rare: searched once a block, not once a line
                _no_lone_surrogate(lines, path, seen)
            seen += len(lines)
            yield lines
    if rest:
        text = _decoded(rest, path, seen)
        _no_lone_surrogate([text], path, seen)
        yield [text]


def _no_lone_surrogate(lines: list[str], path: Path, seen: int) -> None:
    """UserError naming the first of `lines` (after the `seen` before them) whose JSON holds a lone surrogate."""
    for n, line in enumerate(lines, seen + 1):
        if may_hold_surrogate(line):
            try:
                escape = lone_surrogate(json.loads(line))
            except (ValueError, RecursionError):
                continue  # not JSON: `_row` says so
            if escape is not None:
                raise UserError(f"{path}:{n}: {surrogate_message(escape)}")


def _decoded(data: bytes, path: Path, seen: int) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = seen + data.count(b"\n", 0, exc.start) + 1
        raise UserError(f"{path}:{line}: not UTF-8 text: not a verdict log") from None


def content_hash(path: str | Path) -> str:
    """sha256 of the file's bytes, so that an edited log is read afresh."""
    h = hashlib.sha256()
    with open_regular(Path(path)) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# a line of the log: each field's JSON where its %s is, as json.dumps(row, ensure_ascii=False) lays it out
_LINE = "{" + ", ".join(f"{json.dumps(k)}: %s" for k in FIELDS) + "}\n"
_RAW_LINE = _LINE[:-2] + ', "raw": %s}\n'
_STRENGTH_LINE = _LINE[:-2] + ', "strength": %s}\n'
_STRING = json.encoder.encode_basestring  # the quoting json.dumps(..., ensure_ascii=False) gives a str
_REPEATED = 64  # strings up to this long (names, statuses: the same on line after line) are quoted once


def write_log(rows: Iterable[Verdict | VerdictRow | dict[str, Any]], out: IO[str]) -> int:
    """Write rows (dicts, or tuples in FIELDS order, optionally with `raw`: the raw text of an invalid reply, and
    after it `strength`: a graded verdict's, each written last where it is not None) in canonical key order;
    returns the number written. Each line
    is json.dumps of the row's dict with ensure_ascii=False, character for character, written a few thousand
    lines at a time; a name that repeats on every line is quoted once (10^6 rows: 3.2 s of json.dumps before)."""
    quoted: dict[str, str] = {}

    def value(v: Any) -> str:
        if type(v) is str:
            text = quoted.get(v)
            if text is None:
                text = _STRING(v)
                if len(v) <= _REPEATED and len(quoted) < 1 << 16:
                    quoted[v] = text
            return text
        if v is None:
            return "null"
        if type(v) is int:
            return int.__repr__(v)
        return json.dumps(v, ensure_ascii=False)

    n, lines = 0, []
    for row in rows:
        fields = row if isinstance(row, tuple) else tuple(row.get(k) for k in (*FIELDS, "raw", "strength"))
        extra = fields[len(FIELDS) :]
        if extra and extra[0] is not None:  # an invalid reply's raw text (readers skip it)
            lines.append(_RAW_LINE % tuple(map(value, fields[: len(FIELDS) + 1])))
        elif len(extra) > 1 and extra[1] is not None:  # a graded verdict's strength
            lines.append(_STRENGTH_LINE % tuple(map(value, (*fields[: len(FIELDS)], extra[1]))))
        else:
            lines.append(_LINE % tuple(map(value, fields[: len(FIELDS)])))
        if len(lines) >= 4096:
            out.write("".join(lines))
            n, lines = n + len(lines), []
    out.write("".join(lines))
    return n + len(lines)
