"""`[data]` and `[[contestants]] responses`: prompts and responses from data files, merged into the tournament.

Runs on the parsed TOML before validation. Prompts come from `[data] prompts` (one per row) and from inline
`[[prompts]]`; responses from a contestant's own file (`[[contestants]] responses`), from one long file with a
contestant column (`[data] responses`) and from inline `[prompts.responses]`. Rows are matched to prompts by id,
or by the prompt's text when a row has no id (AlpacaEval's files). Field names are recognised (`FIELDS`) or
mapped with `[data.fields]`; `turn` picks a turn of MT-bench's `turns` lists (default the first).

Coverage is checked here for every prompt: a declared contestant without a (non-empty) response, a row for an
unknown prompt, the same response given twice with different texts. `missing = "error"` (default) lists them
as problems; `missing = "skip-prompt"` leaves such prompts out and reports them (`DataReport.skipped`).

A prompts file that is the merge's only source and whose rows are all plain is read column-wise instead
(elotui.tournament.plain_prompts): `data["prompts"]` is then a PromptColumns (elotui.tournament.prompt_columns), not a
list of dicts, with the same prompts and the same report. Whatever that reading does not take is read row by row.
An import that holds the prompts it wrote makes that merge of them without reading the file back (`merge_plain`).
"""

from __future__ import annotations

import difflib
import hashlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from elotui.errors import UserError
from elotui.tournament import data_turns, plain_prompts
from elotui.tournament.data_rows import Row, data_format, found, parse_path, pick, read_rows
from elotui.tournament.plain_prompts import PlainReading
from elotui.tournament.prompt_columns import PromptColumns
from elotui.tournament.user_files import read_regular_file

SHOW_FIRST = 5  # ids or lines listed in one message before "…"

FIELDS: dict[str, tuple[str, ...]] = {
    "prompt_id": ("prompt_id", "question_id", "id"),
    "text": ("text", "prompt", "question", "instruction", "turns[{turn}]"),
    "category": ("category",),
    "reference_ranking": ("reference_ranking",),
    "response": ("response", "output", "answer", "choices[0].turns[{turn}]", "choices[0].message.content"),
    "contestant": ("contestant", "model", "model_id", "generator"),
    "responses": (),  # a prompts row's table of responses (contestant → text): read only where named
    "turn": (),  # a prompts row's turn number (`elotui import mt-bench` writes it): read only where named
}
PROMPT_FILE_IDS = ("id", "prompt_id", "question_id")  # in a prompts file, `id` is the prompt's own


@dataclass
class DataReport:
    """What the data files gave: where from (with content hashes), what was left out and why, what was odd."""

    files: dict[str, str] = field(default_factory=dict)  # path as written in the TOML → sha256 of its bytes
    skipped: dict[str, str] = field(default_factory=dict)  # prompt id → why it was left out
    notes: list[str] = field(default_factory=list)
    toml_problems: list[str] = field(default_factory=list)  # "key.path: message" (located in the TOML)
    file_problems: list[str] = field(default_factory=list)  # "FILE:LINE: message"


def listing(items: Iterable[Any], total: int | None = None) -> str:
    """`a, b, c, d, e, … (12 in all)`: the first few of a list, and the count when there are more."""
    items = list(items)
    n = len(items) if total is None else total
    shown = ", ".join(str(i) for i in items[:SHOW_FIRST])
    return f"{shown}, … ({n} in all)" if n > SHOW_FIRST else shown


class _Fields:
    """The field paths to try for each value, from `[data.fields]` or the recognised names."""

    def __init__(self, mapping: dict[str, Any], turn: int, report: DataReport) -> None:
        self.paths: dict[str, list[tuple[str | int, ...]]] = {}
        for name, defaults in FIELDS.items():
            given = mapping.get(name)
            names = (given,) if isinstance(given, str) else defaults
            try:
                self.paths[name] = [parse_path(n.replace("{turn}", str(turn - 1))) for n in names]
            except ValueError as exc:
                report.toml_problems.append(f"data.fields.{name}: {exc}")
                self.paths[name] = [parse_path(n.replace("{turn}", str(turn - 1))) for n in defaults]
        self.prompt_file_ids = (
            self.paths["prompt_id"]
            if isinstance(mapping.get("prompt_id"), str)
            else [parse_path(n) for n in PROMPT_FILE_IDS]
        )

    def get(self, row: Row, name: str, paths: list[tuple[str | int, ...]] | None = None) -> Any:
        values = row.values
        for steps in paths or self.paths[name]:
            head = steps[0]
            if len(steps) == 1 and isinstance(head, str):  # a top-level key, most rows' case: no walk
                value = values.get(head)
            else:
                value = pick(values, steps)
                if not found(value):
                    continue
            if value is not None and value != "":
                return value
        return None

    def names(self, name: str) -> str:
        return ", ".join(".".join(str(s) for s in p) for p in self.paths[name])


def data_path(base_dir: Path, relative: str) -> Path:
    """A data file named in the tournament file (relative to its folder, or absolute; `~` expanded)."""
    path = Path(relative).expanduser()
    return path if path.is_absolute() else base_dir / path


def text_id(text: str) -> str:
    """The id of a prompt known only by its text: stable across file orders and runs."""
    return "p-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def _own_copy(prompt: Any) -> Any:
    """An inline prompt, copied so that adding responses leaves the parsed TOML as it was."""
    if not isinstance(prompt, dict):
        return prompt
    responses = prompt.get("responses")
    return {**prompt, "responses": dict(responses)} if isinstance(responses, dict) else dict(prompt)


def _at(where: tuple[Path, int]) -> str:
    """`FILE:LINE`."""
    return f"{where[0]}:{where[1]}"


def _turn(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else 1


def _as_id(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | str) and str(value).strip():
        return str(value).strip()
    return None


def _turn_number(value: Any) -> bool:
    """A prompt's turn as `[[prompts]] turn` takes it: a whole number from 1 to 100."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 100


class _Loader:
    def __init__(self, data: dict[str, Any], base_dir: Path) -> None:
        self.base = base_dir
        self.cfg: dict[str, Any] = data["data"] if isinstance(data.get("data"), dict) else {}
        self.report = DataReport()
        mapping = self.cfg.get("fields")
        self.fields = _Fields(
            mapping if isinstance(mapping, dict) else {}, _turn(self.cfg.get("turn")), self.report
        )
        self.skip = self.cfg.get("missing") == "skip-prompt"
        self.conversation = self.cfg.get("turn") == data_turns.CONVERSATION
        self.allow_empty = self.cfg.get("allow_empty") is True
        comparison = data.get("comparison")
        # pairs = "recorded" (a sparse, imported design): a prompt needs the responses of the pairs judged on it only
        self.recorded = isinstance(comparison, dict) and comparison.get("pairs") == "recorded"
        raw = data.get("contestants")
        self.contestants = [c for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []
        self.declared = [str(c["id"]) for c in self.contestants if isinstance(c.get("id"), str)]
        self.known = set(self.declared)
        self.generated = {str(c.get("id")) for c in self.contestants if c.get("generator") is not None}
        inline = data.get("prompts")
        self.prompts: list[Any] = [_own_copy(p) for p in inline] if isinstance(inline, list) else []
        self.origin: dict[str, str] = {}  # prompt id → where it was declared (for messages)
        self.by_text: dict[str, str] = {}
        # (prompt, contestant) → its response's file and line
        self.where: dict[tuple[str, str], tuple[Path, int]] = {}
        self._index_inline()
        self.undeclared: set[str] = (
            set()
        )  # contestant names in the rows that [[contestants]] does not declare
        self.derive = False  # prompts known only from response rows (no prompts declared anywhere)

    def _index_inline(self) -> None:
        for i, p in enumerate(self.prompts):
            if isinstance(p, dict) and isinstance(p.get("id"), str):
                self.origin.setdefault(p["id"], f"prompts[{i}]")
                if isinstance(p.get("text"), str):
                    self.by_text.setdefault(p["text"].strip(), p["id"])

    # --- files ---------------------------------------------------------------------------------------------

    def _rows(self, key: str, relative: str) -> tuple[Path, list[Row]] | None:
        path = data_path(self.base, relative)
        try:
            raw_problems: list[str] = []
            rows = read_rows(path, raw_problems)
            self.report.files[relative] = hashlib.sha256(read_regular_file(path)).hexdigest()
        except UserError as exc:
            message = str(exc)
            if not path.exists():
                message = f"{path} does not exist"
            self.report.toml_problems.append(f"{key}: {message}")
            return None
        self.report.file_problems += raw_problems
        return path, rows

    # --- a prompts file of plain rows, read column-wise -------------------------------------------------------

    def read_plain_prompts(self, relative: str, given: PlainReading | None = None) -> PromptColumns | None:
        """The prompts file read column-wise (elotui.tournament.plain_prompts), with the report the row-by-row merge
        would give, where the file is the merge's only source, a JSON Lines file of plain rows, and its prompts
        need no problem, skip or note but the empty responses' (`allow_empty`); else None, with nothing reported.
        `given`: what reads the file instead (`merge_plain`)."""
        keys = self._plain_keys()
        if keys is None or not self._prompts_file_only():
            return None
        path = data_path(self.base, relative)
        try:
            if data_format(path) != ".jsonl":
                return None
            columns, digest = (given or plain_prompts.read_plain_file)(path, keys)
        except UserError:  # the row-by-row reading says it
            return None
        if columns is None or not self._plain_coverage(columns):
            return None
        self.report.files[relative] = digest()
        return columns

    def _prompts_file_only(self) -> bool:
        """No source of prompts or responses but `[data] prompts`, and one turn of each prompt."""
        own = any(
            isinstance(c.get("responses"), str) and isinstance(c.get("id"), str) for c in self.contestants
        )
        others = (self.cfg.get(key) for key in ("responses", "references"))
        return not (self.prompts or own or any(isinstance(o, str) for o in others) or self.conversation)

    def _plain_keys(self) -> dict[str, str] | None:
        """concept → the row key it is read from first, for the concepts a prompts row gives; None where one of them
        is read from a nested path, or a key could be read for two concepts (then the row-by-row reading's order of
        fallbacks matters), or `[data.fields]` has a problem."""
        if self.report.toml_problems:
            return None
        f = self.fields
        read = {
            "prompt_id": f.prompt_file_ids,
            **{n: f.paths[n] for n in ("text", "category", "responses", "turn")},
        }
        keys: dict[str, str] = {}
        elsewhere = {p[0] for p in f.paths["reference_ranking"]}
        for name, paths in read.items():
            if not paths:
                continue
            first = paths[0]
            if len(first) != 1 or not isinstance(first[0], str):
                return None
            keys[name] = first[0]
            elsewhere.update(p[0] for p in paths[1:])
        chosen = set(keys.values())
        return keys if len(chosen) == len(keys) and not chosen & elsewhere else None

    def _plain_coverage(self, columns: PromptColumns) -> bool:
        """Whether the prompts' responses need no problem, skip or note but the empty responses' (which it notes):
        every contestant in them declared, every expected one answering (unless `pairs = "recorded"`), an empty
        response only where `allow_empty`."""
        given, blank = plain_prompts.contestants(columns)
        if not set(given) <= self.known:
            return False
        expected = [c for c in self.declared if c not in self.generated]
        if not self.recorded and any(given[cid] != len(columns) for cid in expected):
            return False
        empty = plain_prompts.blank_responses(columns, blank, expected, SHOW_FIRST)
        if empty and not self.allow_empty:
            return False
        for cid, ids, total in empty:
            self._note_empty(cid, ids, total)
        return True

    # --- row by row ----------------------------------------------------------------------------------------

    def load_prompts(self, relative: str) -> None:
        got = self._rows("data.prompts", relative)
        if got is None:
            return
        path, rows = got
        f = self.fields
        undeclared: dict[str, int] = defaultdict(int)
        for row in rows:
            conversation = data_turns.conversation_prompt(row) if self.conversation else None
            text = conversation[0] if conversation is not None else f.get(row, "text")
            if not isinstance(text, str) or not text.strip():
                self.report.file_problems.append(
                    f"{path}:{row.line}: no prompt text (looked for {f.names('text')})"
                )
                continue
            pid = _as_id(f.get(row, "prompt_id", f.prompt_file_ids)) or text_id(text)
            if pid in self.origin:
                self.report.file_problems.append(
                    f"{path}:{row.line}: prompt id '{pid}' is used twice (also {self.origin[pid]})"
                )
                continue
            prompt: dict[str, Any] = {"id": pid, "text": text, "responses": {}}
            if conversation is not None:
                prompt["earlier_turns"] = conversation[1]
            category = f.get(row, "category")
            if category is not None:
                prompt["category"] = str(category)
            turn = f.get(row, "turn")
            if turn is not None:
                if not _turn_number(turn):
                    self.report.file_problems.append(
                        f"{path}:{row.line}: `{f.names('turn')}` must be a turn number (1 to 100), got {turn!r}"
                    )
                    continue
                prompt["turn"] = turn
            ranking = self._ranking(f.get(row, "reference_ranking"), f"{path}:{row.line}")
            if ranking:
                prompt["reference_ranking"] = ranking
            table = f.get(row, "responses")
            if table is not None:
                self._row_responses(prompt, table, (path, row.line), undeclared)
            self.origin[pid] = f"{path}:{row.line}"
            self.by_text.setdefault(text.strip(), pid)
            self.prompts.append(prompt)
        self._unmatched(path, "data.prompts", [], undeclared)

    def _row_responses(
        self, prompt: dict[str, Any], table: Any, where: tuple[Path, int], undeclared: dict[str, int]
    ) -> None:
        """The responses a prompts row gives as a table (`[data.fields] responses`: contestant → text), as rows of
        a responses file would give them."""
        if not isinstance(table, dict):
            self.report.file_problems.append(
                f"{_at(where)}: the responses must be a table (contestant → text)"
            )
            return
        for cid, text in table.items():
            if cid not in self.known:
                undeclared[cid] += 1
            elif not isinstance(text, str):
                self.report.file_problems.append(
                    f"{_at(where)}: the response of '{cid}' is not text ({type(text).__name__})"
                )
            else:
                self._put(prompt, cid, text, where)

    def _ranking(self, value: Any, where: str) -> list[str] | None:
        if value is None:
            return None
        if isinstance(value, str):
            sep = ">" if ">" in value else ","
            value = [v.strip() for v in value.split(sep) if v.strip()]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.report.file_problems.append(f"{where}: reference_ranking must be a list of contestant ids")
            return None
        unknown = [v for v in value if v not in self.known]
        if unknown:
            self.report.file_problems.append(
                f"{where}: reference_ranking names undeclared contestant(s) {listing(unknown)}"
            )
            return None
        return value

    def load_responses(self, key: str, relative: str, contestant: str | None) -> None:
        got = self._rows(key, relative)
        if got is None:
            return
        path, rows = got
        f = self.fields
        unknown_prompts: list[int] = []
        undeclared: dict[str, int] = defaultdict(int)
        by_id = {p["id"]: p for p in self.prompts if isinstance(p, dict) and isinstance(p.get("id"), str)}
        for row in rows:
            cid = contestant or _as_id(f.get(row, "contestant"))
            if cid is None:
                self.report.file_problems.append(
                    f"{path}:{row.line}: no contestant (looked for {f.names('contestant')})"
                )
                continue
            if cid not in self.known:
                undeclared[cid] += 1
                continue
            pid = self._prompt_of(row, by_id)
            if pid is None:
                unknown_prompts.append(row.line)
                continue
            text = f.get(row, "response")
            if text is not None and not isinstance(text, str):
                self.report.file_problems.append(
                    f"{path}:{row.line}: the response is not text ({type(text).__name__})"
                )
                continue
            answers = data_turns.conversation_answers(row) if self.conversation else None
            if answers is not None:
                text = data_turns.put_conversation(
                    by_id[pid], cid, answers, f"{path}:{row.line}", self.report.file_problems
                )
            self._put(by_id[pid], cid, text or "", (path, row.line))
        self._unmatched(path, key, unknown_prompts, undeclared)

    def load_references(self, relative: str) -> None:
        got = self._rows("data.references", relative)
        if got is not None:
            refs = data_turns.references_in(*got, self.fields, _as_id, self.cfg, self.report)
            data_turns.attach_references(self.prompts, refs, self.report.notes, self.report.file_problems)

    def _prompt_of(self, row: Row, by_id: dict[str, dict[str, Any]]) -> str | None:
        pid = _as_id(self.fields.get(row, "prompt_id"))
        if pid is not None:
            return pid if pid in by_id else None
        text = self.fields.get(row, "text")
        if not isinstance(text, str) or not text.strip():
            return None
        pid = self.by_text.get(text.strip())
        if pid is None and self.derive:
            pid = text_id(text)
            prompt = {"id": pid, "text": text, "responses": {}}
            self.prompts.append(prompt)
            self.origin[pid] = "(a response file)"
            self.by_text[text.strip()] = pid
            by_id[pid] = prompt
        return pid

    def _put(self, prompt: dict[str, Any], cid: str, text: str, where: tuple[Path, int]) -> None:
        responses = prompt.setdefault("responses", {})
        if not isinstance(responses, dict):
            return  # a malformed inline `responses`: the schema check reports it
        key = (prompt["id"], cid)
        if cid in responses:
            before = responses[cid]
            if key not in self.where:
                self.report.file_problems.append(
                    f"{_at(where)}: the response of '{cid}' to prompt '{prompt['id']}' is also given inline"
                )
            elif before != text:
                self.report.file_problems.append(
                    f"{_at(where)}: a second, different response of '{cid}' to prompt '{prompt['id']}' "
                    f"(first at {_at(self.where[key])})"
                )
            return
        responses[cid] = text
        self.where[key] = where

    def _unmatched(self, path: Path, key: str, unknown: list[int], undeclared: dict[str, int]) -> None:
        self.undeclared.update(undeclared)
        if unknown:
            message = f"{len(unknown)} row(s) for a prompt that is not in the tournament, at line(s) {listing(unknown)}"
            if self.skip:
                self.report.notes.append(f"{path}: ignored {message}")
            else:
                self.report.file_problems.append(f"{path}:{unknown[0]}: {message}")
        if undeclared:
            names = listing(f"{c} ({n})" for c, n in sorted(undeclared.items()))
            self.report.notes.append(
                f"{path}: ignored the rows of contestant(s) not declared in [[contestants]]: {names}"
            )

    # --- coverage ------------------------------------------------------------------------------------------

    def _gaps(self) -> tuple[dict[str, list[str]], dict[str, list[str]], dict[str, list[str]]]:
        """(contestant → prompts without its response, contestant → prompts with an empty one, prompt → why)."""
        expected = [c for c in self.declared if c not in self.generated]
        missing: dict[str, list[str]] = defaultdict(list)
        empty: dict[str, list[str]] = defaultdict(list)
        incomplete: dict[str, list[str]] = defaultdict(list)
        for p in self.prompts:
            if not isinstance(p, dict) or not isinstance(p.get("id"), str):
                continue
            given = p.get("responses")
            responses: dict[str, Any] = given if isinstance(given, dict) else {}
            for cid in expected:
                value = responses.get(cid)
                if value is None and self.recorded:
                    continue
                if value is None:
                    missing[cid].append(p["id"])
                    incomplete[p["id"]].append(f"no response from {cid}")
                elif isinstance(value, str) and not value.strip():
                    empty[cid].append(p["id"])
                    if not self.allow_empty:
                        incomplete[p["id"]].append(f"an empty response from {cid}")
        return missing, empty, incomplete

    def coverage(self) -> None:
        missing, empty, incomplete = self._gaps()
        if self.allow_empty:
            for cid, ids in empty.items():
                self._note_empty(cid, ids, len(ids))
            empty = {}
        if not self.skip:
            n = len(self.prompts)
            for cid in self.declared:
                for kind, found in (("no response", missing.get(cid)), ("an empty response", empty.get(cid))):
                    if found:
                        ids = found
                        self._coverage_problem(cid, f"{kind} to {len(ids)} of {n} prompt(s): {listing(ids)}")
            return
        if not incomplete:
            return
        self.report.skipped = {pid: "; ".join(why) for pid, why in incomplete.items()}
        self.prompts = [p for p in self.prompts if not (isinstance(p, dict) and p.get("id") in incomplete)]
        if not self.prompts:
            self.report.toml_problems.append(
                "data.missing: every prompt was left out (none has all responses)"
            )
        else:
            self.report.notes.append(
                f"left out {len(incomplete)} prompt(s) without every contestant's response "
                f'([data] missing = "skip-prompt"): {listing(incomplete)}'
            )

    def _note_empty(self, cid: str, ids: list[str], total: int) -> None:
        """`[data] allow_empty`: contestant `cid` has an empty response to `total` prompts, the first of them `ids`."""
        # an import's recorded verdicts are replayed, never judged anew: its texts are for reading only
        how = "the source gave no text; its recorded verdicts stand" if self.recorded else "judged as is"
        self.report.notes.append(f"contestant '{cid}' has an empty response to {listing(ids, total)} ({how})")

    def _coverage_problem(self, cid: str, message: str) -> None:
        index = self.declared.index(cid)
        own = self.contestants[index].get("responses") if index < len(self.contestants) else None
        key = (
            f"contestants[{index}].responses"
            if own
            else ("data.responses" if self.cfg.get("responses") else f"contestants[{index}].id")
        )
        close = difflib.get_close_matches(cid, list(self.undeclared), n=1, cutoff=0.6)
        hint = f"; the data have rows for '{close[0]}', which is not declared: a typo?" if close else ""
        self.report.toml_problems.append(f"{key}: contestant '{cid}' has {message}{hint}")


def uses_data_files(data: dict[str, Any]) -> bool:
    contestants = data.get("contestants")
    return "data" in data or (
        isinstance(contestants, list) and any(isinstance(c, dict) and "responses" in c for c in contestants)
    )


def merge_data_files(data: dict[str, Any], base_dir: Path, *, columns: bool = True) -> DataReport | None:
    """Load the data files a parsed tournament file names and merge their prompts and responses into
    `data["prompts"]` (in place). None when the file names no data files (inline only: nothing to do).
    `columns`: a prompts file of plain rows may be read column-wise (`data["prompts"]` a PromptColumns)."""
    if not uses_data_files(data):
        return None
    if isinstance(data.get("data"), dict) and isinstance(data["data"].get("turn"), list):
        each = partial(merge_data_files, columns=False)  # each turn's prompts are renamed, as dicts
        return data_turns.merge_each_turn(data, base_dir, each, DataReport)  # type: ignore[arg-type]
    loader = _Loader(data, base_dir)
    prompts_file = loader.cfg.get("prompts")
    if (
        columns
        and isinstance(prompts_file, str)
        and (plain := loader.read_plain_prompts(prompts_file)) is not None
    ):
        data["prompts"] = plain
        return loader.report
    if isinstance(prompts_file, str):
        loader.load_prompts(prompts_file)
    loader.derive = not loader.prompts
    for i, c in enumerate(loader.contestants):
        if isinstance(c.get("responses"), str) and isinstance(c.get("id"), str):
            loader.load_responses(f"contestants[{i}].responses", c["responses"], c["id"])
    long_file = loader.cfg.get("responses")
    if isinstance(long_file, str):
        loader.load_responses("data.responses", long_file, None)
    if loader.derive and not loader.prompts:
        loader.report.toml_problems.append(
            "data: no prompts (give [data] prompts, [[prompts]], or response rows that carry the prompt's text)"
        )
    references = loader.cfg.get("references")
    if isinstance(references, str):
        loader.load_references(references)
    loader.coverage()
    data["prompts"] = loader.prompts
    return loader.report


def merge_plain(
    data: dict[str, Any], base_dir: Path, given: PlainReading
) -> tuple[PromptColumns, DataReport] | None:
    """What `merge_data_files(data, base_dir)` gives where it reads the prompts file column-wise (the prompts, the
    report; `data` left as it is), with the file read by `given` (an import that holds the prompts it wrote); None
    where it would read the file otherwise."""
    loader = _Loader(data, base_dir)
    name, each_turn = loader.cfg.get("prompts"), isinstance(loader.cfg.get("turn"), list)
    if each_turn or not isinstance(name, str) or (columns := loader.read_plain_prompts(name, given)) is None:
        return None
    return columns, loader.report


def contestants_in(path: Path) -> list[str]:
    """The distinct contestant ids of a responses file's contestant column, in order of first appearance
    (empty when the rows have none). Raises UserError when the file cannot be read."""
    problems: list[str] = []
    fields = _Fields({}, 1, DataReport())
    seen: dict[str, None] = {}
    for row in read_rows(path, problems):
        cid = _as_id(fields.get(row, "contestant"))
        if cid is not None:
            seen.setdefault(cid, None)
    return list(seen)
