"""What every importer shares: taking a source's records (read by elotui.importers.source_records) with their
messages, the report of what was read, skipped and mapped, and writing the tournament folder.

An import writes, in its output folder:
- `tournament.toml`: the contestants, one `replay` judge per judge of the source, `[comparison] pairs =
  "recorded"` (exactly the presentations the source judged) and `[data]` naming the two files below;
- `prompts.jsonl` (`id`, `text`, `category`) and `responses.jsonl` (`prompt_id`, `contestant`, `response`): the
  texts where the source carries them; a response it does not carry is empty (`[data] allow_empty`); a source
  that carries no texts at all (Chatbot Arena's logs) gives each prompt's (empty) responses in its row instead, as
  a `responses` table (`[data.fields] responses`), and no responses file;
- `verdicts.jsonl`: the verdicts as an elotui verdict log (elotui.verdict_log), read by the replay judges;
- `style.jsonl` where the source gives style counts (Chatbot Arena's `conv_metadata`): per prompt and contestant
  `tokens`, `headers`, `lists`, `bold`, for `[ranking] style_control`.
Every file is written in the source's order, so importing the same files twice writes the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import threading
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np
import tomli_w
from numpy.typing import NDArray

from elotui.errors import UserError
from elotui.importers.source_records import (
    MAX_SOURCE_BYTES,
    BadRecord,
    Reading,
    Typed,
    records,
    source_bytes,
    typed_records,
)
from elotui.importers.writes_behind import Writes, behind, until
from elotui.store.columns import code_names
from elotui.tournament.user_files import read_regular_file
from elotui.verdict_log import Verdict, write_log
from elotui.vocab import outcome_code

__all__ = [
    "MAX_SOURCE_BYTES",
    "BadRecord",
    "Reading",
    "Typed",
    "records",
    "source_bytes",
]  # read here by importers

SHOW_LINES = 5  # line numbers listed per skip reason


@dataclass
class ImportReport:
    read: int = 0
    skipped: dict[str, list[str]] = field(default_factory=dict)  # reason → where ("file:line")
    mapped: list[str] = field(default_factory=list)

    def skip(self, reason: str, where: str) -> None:
        self.skipped.setdefault(reason, []).append(where)

    def lines(self) -> list[str]:
        out = [f"read {self.read:,} record(s)"]
        for reason, where in self.skipped.items():
            shown = ", ".join(where[:SHOW_LINES]) + (", …" if len(where) > SHOW_LINES else "")
            out.append(f"skipped {len(where):,}: {reason} (first: {shown})")
        out += [f"mapped: {m}" for m in self.mapped]
        return out


@dataclass
class Imported:
    """A source's tournament before it is written: everything in first-seen order."""

    format: str
    both_orders: bool
    report: ImportReport = field(default_factory=ImportReport)
    contestants: dict[str, None] = field(default_factory=dict)
    judges: dict[str, None] = field(default_factory=dict)
    prompts: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → {"text", "category"?, "turn"?}
    responses: dict[tuple[str, str], str] = field(default_factory=dict)
    style: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    verdicts: list[Verdict] = field(default_factory=list)
    baseline: str | None = None
    threshold: str | None = None
    strengths: dict[int, int] = field(default_factory=dict)  # verdict index → strength (1 clear, 2 strong)
    # the responses in the prompts rows (`[data.fields] responses`), not in a responses file: a source without
    # texts (Chatbot Arena's logs), whose 2 * 10^6 empty responses as rows of their own took a third of the first
    # load of a 10^6-battle import
    inline_responses: bool = False
    looks_like: str | None = None  # another format a malformed record has the fields of (a wrong format name)
    turns: bool = False  # the prompts rows carry their turn (`[data.fields] turn`: the turn scope)

    def verdict(
        self, prompt: str, first: str, second: str, judge: str, winner: str, reasoning: str | None
    ) -> None:
        """Add one verdict (`winner`: first, second or tie), declaring what it names."""
        self.contestants.setdefault(first)
        self.contestants.setdefault(second)
        self.judges.setdefault(judge)
        self.verdicts.append((prompt, first, second, judge, "clean", 0, winner, reasoning, "ok"))  # type: ignore[arg-type]

    def respond(self, prompt: str, contestant: str, text: str | None) -> None:
        """The response of `contestant` to `prompt` (the first text given wins); None: the source does not carry
        it (empty, unless a text comes later)."""
        current = self.responses.get((prompt, contestant))
        if current is None or (not current and text):
            self.responses[(prompt, contestant)] = text or ""

    def shape(self) -> Shape:
        return Shape(
            contestants=list(self.contestants),
            judges=list(self.judges),
            prompts=len(self.prompts),
            verdicts=len(self.verdicts),
            both_orders=self.both_orders,
            inline_responses=self.inline_responses,
            style=bool(self.style),
            allow_empty=any(not text.strip() for text in self.responses.values()),
            baseline=self.baseline,
            threshold=self.threshold,
            strengths=bool(self.strengths),
            turns=self.turns,
        )

    def data_files(self) -> dict[str, Iterable[str]]:
        """The folder's files other than `tournament.toml`, each as its text (see the module docstring)."""
        files: dict[str, Iterable[str]] = {"prompts.jsonl": [_prompt_rows(self)]}
        if not self.inline_responses:
            files["responses.jsonl"] = [
                _jsonl(
                    {"prompt_id": p, "contestant": c, "response": text}
                    for (p, c), text in self.responses.items()
                )
            ]
        files["verdicts.jsonl"] = [_log(self.verdicts, self.strengths)]
        if self.style:
            files[STYLE_FILE] = [
                _jsonl({"prompt": p, "contestant": c, **counts} for (p, c), counts in self.style.items())
            ]
        return files

    def log_codes(self) -> LogCodes:
        """The verdicts coded (each name column into its book, names numbered as they first come)."""
        verdicts = self.verdicts
        names = [
            list(map(itemgetter(k), verdicts)) for k in range(5)
        ]  # prompt, first, second, judge, condition
        books: list[dict[str, int]] = [{}, {}, {}, {}]
        codes = [code_names(values, books[b]) for values, b in zip(names, (0, 1, 1, 2, 3), strict=True)]
        del names
        outcome_of: dict[tuple[str, str | None], int] = {}
        outcomes = np.fromiter(
            (
                outcome_of.get(key) if key in outcome_of else outcome_of.setdefault(key, outcome_code(*key))
                for key in zip(map(itemgetter(8), verdicts), map(itemgetter(6), verdicts), strict=True)
            ),
            dtype=np.int8,
            count=len(verdicts),
        )
        judges = list(self.judges)
        judge_rank = np.array([judges.index(j) for j in books[2]], dtype=np.int64)
        prompt, first, second, judge, condition = codes
        return LogCodes(
            prompt, first, second, judge, condition, [list(b) for b in books], judge_rank, outcomes
        )


STYLE_FILE = "style.jsonl"


@dataclass(frozen=True)
class Shape:
    """What an import's `tournament.toml` says, and its summary counts."""

    contestants: list[str]  # in first-seen order
    judges: list[str]
    prompts: int
    verdicts: int
    both_orders: bool
    inline_responses: bool  # the responses in the prompts rows (`Imported.inline_responses`)
    style: bool  # a style.jsonl is written
    allow_empty: bool  # some response is empty
    baseline: str | None = None
    threshold: str | None = None
    strengths: bool = False  # some verdict carries a strength
    turns: bool = False


@dataclass(frozen=True)
class LogCodes:
    """An import's verdicts, in log order, as integer codes: what its store snapshot is made of
    (elotui.importers.recorded_snapshot). `books`: the names of the prompts, contestants, judges and conditions by
    code; `judge_rank`: each judge code's place among the tournament's judges; `outcome`: each verdict's outcome
    code (elotui.vocab.outcome_code)."""

    prompt: NDArray[np.int32]
    first: NDArray[np.int32]
    second: NDArray[np.int32]
    judge: NDArray[np.int32]
    condition: NDArray[np.int32]
    books: list[list[str]]
    judge_rank: NDArray[np.int64]
    outcome: NDArray[np.int8]


class ImportResult(Reading, Protocol):
    """An import read, ready to be written: an `Imported`, or an importer's own columns."""

    def shape(self) -> Shape: ...

    def data_files(self) -> dict[str, Iterable[str]]: ...

    def log_codes(self) -> LogCodes: ...


def read_each(
    imported: Reading, paths: list[Path], one: Any, *, skip_bad: bool, typed: Typed | None = None
) -> None:
    """`one(imported, where, record)` for every record of every file (of JSON Lines, first offered to `typed`);
    a BadRecord stops the import (UserError `file:line: why`, exit 2) or, with `skip_bad`, is counted as
    skipped."""
    for path in paths:
        for where, record in records(path) if typed is None else typed_records(path, typed, imported):
            imported.report.read += 1
            try:
                if isinstance(record, BadRecord):
                    raise record
                one(imported, where, record)
            except BadRecord as exc:
                other = other_format(imported.format, record)
                if other is not None and imported.looks_like is None:
                    imported.looks_like = other
                if not skip_bad:
                    hint = _format_hint(other) if other else "give --skip-bad to leave such records out"
                    raise UserError(f"{where}: {exc} ({hint})") from None
                imported.report.skip(f"malformed: {exc}", where)


# the fields that tell each format's records apart (what a record of that format always has)
_FORMAT_FIELDS = {
    "arena": ("model_a", "model_b", "winner"),
    "mt-bench": ("model_1", "model_2", "g1_winner"),
    "arena-hard": ("model", "games"),
    "alpaca-eval": ("generator_1", "generator_2", "preference"),
}


def other_format(format_: str, record: Any) -> str | None:
    """The other format whose fields `record` has (a file given under the wrong format name), or None."""
    if not isinstance(record, dict):
        return None
    for name, fields in _FORMAT_FIELDS.items():
        if name != format_ and all(f in record for f in fields):
            return name
    return None


_FORMAT_LABELS = {
    "arena": "a Chatbot Arena battle log",
    "mt-bench": "an MT-bench pairwise judgment file",
    "arena-hard": "an arena-hard judgment file",
    "alpaca-eval": "AlpacaEval annotations",
}


def _format_hint(format_: str) -> str:
    return f"this looks like {_FORMAT_LABELS[format_]}: `elotui import {format_} ...`"


def need_text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("id"):
        return str(value)
    if not isinstance(value, str) or not value:
        raise BadRecord(f"`{key}` must be a non-empty string (got {value!r})")
    return value


def need_object(record: Any) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise BadRecord("expected a JSON object")
    return record


def write_tournament(
    imported: ImportResult,
    out: Path,
    sources: list[Path],
    meanwhile: Callable[[Callable[[], None]], object] | None = None,
) -> list[str]:
    """Write the folder (see the module docstring); returns the names of the files written. With `meanwhile`, the
    files are written in a helper thread while the caller runs `meanwhile(written)` (the import's store snapshot is
    made and stored so: the files' writes wait for the disk, not for Python's lock: elotui.importers.writes_behind;
    `written()` waits for the files and raises their error); their errors are raised here once both are over, as
    without it."""
    shape = imported.shape()
    if not shape.verdicts:
        hint = f" ({_format_hint(imported.looks_like)})" if imported.looks_like else ""
        raise UserError(
            f"{', '.join(map(str, sources))}: no verdict to import{hint}", details=imported.report.lines()
        )
    if len(shape.contestants) < 2:
        raise UserError(f"{', '.join(map(str, sources))}: fewer than two contestants")
    toml = _toml(imported, shape, sources)
    _refuse_another_tournament(out, toml["tournament"]["description"])
    _make_folder(out)
    written: list[str] = []
    toml_text = tomli_w.dumps(toml)
    if meanwhile is None:
        _write_files(imported, out, toml_text, written, threading.Event())
    else:
        behind(lambda stop: _write_files(imported, out, toml_text, written, stop), meanwhile)
    return written


def _write_files(
    imported: ImportResult, out: Path, toml: str, written: list[str], stop: threading.Event
) -> None:
    """The data files and `tournament.toml` (`toml`), each in turn, whole (`_write_file`), their names added to
    `written` as they are made; once `stop` is set, no more text is written (the file being written is left out,
    as when it cannot be)."""
    files = imported.data_files()
    style = {STYLE_FILE: files.pop(STYLE_FILE)} if STYLE_FILE in files else {}
    ordered = {**files, "tournament.toml": [toml], **style}
    written += ordered
    for name, texts in ordered.items():
        _write_file(out / name, until(stop, texts))


def _write_file(path: Path, texts: Iterable[str]) -> None:
    """Write the texts, in turn, into a temporary file that then replaces `path` (UTF-8); the temporary file goes
    where the texts cannot be made or written. Each large text is written while the next is made and encoded
    (elotui.importers.writes_behind.Writes: a write waits for the disk without Python's lock)."""
    tmp = path.parent / f".{path.name}.tmp"
    try:
        with tmp.open("wb") as fh, Writes(fh) as writes:
            for text in texts:
                writes.write(text.encode("utf-8"))
        tmp.replace(path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise UserError(f"{path}: cannot write it: {exc.strerror}") from None
        raise


def _make_folder(out: Path) -> None:
    """The output folder, made if need be; UserError (exit 2) where it cannot be (a file of that name, a folder
    without write access)."""
    if out.exists() and not out.is_dir():
        raise UserError(f"{out}: not a folder (-o names the folder to write the tournament in)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out}: cannot make the folder: {exc.strerror}") from None


def _refuse_another_tournament(out: Path, description: str) -> None:
    """A folder whose `tournament.toml` is not this import's (another import, or a tournament written by hand) is
    not overwritten: its files would be replaced and the ones this import does not write left behind. The same
    import again (the same format and file names) is allowed, and writes the same bytes."""
    existing = out / "tournament.toml"
    if not existing.exists():
        return
    try:
        meta = tomllib.loads(read_regular_file(existing).decode("utf-8")).get("tournament", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        meta = {}
    if isinstance(meta, dict) and meta.get("description") == description:
        return
    name = meta.get("name") if isinstance(meta, dict) else None
    held = f" ('{name}')" if isinstance(name, str) else ""
    raise UserError(
        f"{out}: holds another tournament{held}; import into a new folder, or remove {existing} first "
        f"(an import overwrites only its own earlier output: `{description}`)"
    )


_ENCODER = msgspec.json.Encoder()


def _prompt_rows(imported: Imported) -> str:
    """prompts.jsonl: `id`, `text`, `category`, and with `inline_responses` the prompt's `responses` table."""
    if not imported.inline_responses:
        return _jsonl({"id": pid, **row} for pid, row in imported.prompts.items())
    tables: dict[str, dict[str, str]] = {}
    for (prompt, contestant), text in imported.responses.items():
        tables.setdefault(prompt, {})[contestant] = text
    return _jsonl(
        {"id": pid, **row, "responses": tables.get(pid, {})} for pid, row in imported.prompts.items()
    )


def _jsonl(rows: Any) -> str:
    """JSON Lines (compact, UTF-8 as is), encoded by msgspec: 3 * 10^6 rows in ~1 s instead of ~25 s of
    json.dumps."""
    return _ENCODER.encode_lines(list(rows)).decode("utf-8")


def _log(verdicts: list[Verdict], strengths: dict[int, int]) -> str:
    """The verdict log; a verdict with a strength carries it last (`"strength": 2`), a field readers skip."""
    buf = io.StringIO()
    write_log(verdicts, buf)
    if not strengths:
        return buf.getvalue()
    lines = buf.getvalue().splitlines(keepends=True)
    for i, strength in strengths.items():
        lines[i] = f'{lines[i].rstrip()[:-1]}, "strength": {strength}}}\n'
    return "".join(lines)


def tournament_name(imported: Reading, sources: list[Path]) -> str:
    """The imported tournament's name (`[tournament] name`)."""
    return f"{imported.format} import: {', '.join(p.name for p in sources)}"[:200]


def _toml(imported: Reading, shape: Shape, sources: list[Path]) -> dict[str, Any]:
    comparison: dict[str, Any] = {"pairs": "recorded", "both_orders": shape.both_orders}
    if not shape.both_orders:
        comparison["single_order"] = "declared"
    ranking: dict[str, Any] = {"method": "bt"}
    if shape.baseline is not None:  # arena-hard's scale: the baseline at 1000
        ranking["anchor"] = {"contestant": shape.baseline, "rating": 1000.0}
    if shape.strengths:  # arena-hard's weight: a strong verdict counts as three games
        ranking["strong_weight"] = 3
    if shape.threshold is not None:
        ranking["threshold"] = shape.threshold
    data: dict[str, Any] = {"prompts": "prompts.jsonl"}
    if shape.inline_responses:
        data["fields"] = {"responses": "responses"}
    else:
        data["responses"] = "responses.jsonl"
        # the field the responses file names: an empty response is then looked for under that name only, not under
        # every name a data file may use (10^6 empty responses: seconds of the first load)
        data["fields"] = {"response": "response"}
    if shape.turns:
        data["fields"]["turn"] = "turn"
    if shape.style:
        data["style"] = STYLE_FILE
    if shape.allow_empty:
        data["allow_empty"] = True
    names = ", ".join(p.name for p in sources)
    return {
        "tournament": {
            "name": tournament_name(imported, sources),
            "description": f"elotui import {imported.format} {names}",
        },
        "data": data,
        "comparison": comparison,
        "ranking": ranking,
        "contestants": [{"id": c} for c in shape.contestants],
        "judges": [
            {"id": j, "provider": "replay", "model": j, "path": "verdicts.jsonl"} for j in shape.judges
        ],
    }
