"""The store's columnar snapshot: the current plan as integer-coded numpy columns and the outcome of every planned
presentation, read without a Python object per row (a million verdicts in milliseconds).

Tables (schema version 6, elotui.store.schema):
- `snapshot(name, data)`: the plan's columns in plan order (`seq`, `prompt`, `first`, `second`, `judge`,
  `condition`, `sample`: int32 bytes), `outcome` (int8 bytes, `elotui.vocab.OUTCOME_*`) and `meta` (JSON: the
  names behind each code, the row count, the plan's fingerprint, and `through`: the last `answers` id that the
  stored outcomes include).
- `answers(id, seq, outcome)`: one row per planned presentation a call answers, appended in the same transaction
  as the calls (`ANSWER_SQL`). A reader applies the rows after `through` to the stored outcomes; the writer folds
  them in (`compact`) at the end of a run and whenever COMPACT_EVERY have gathered, so a read never replays more
  than that.

`write_plan` (a new plan) codes the plan's rows and computes every outcome from `calls` once (one join); after
that no read joins `plan` with `calls`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
from numpy.typing import NDArray

from elotui.records import PlanRow, PlanVerdict
from elotui.store import seal
from elotui.vocab import _STATUS_CODES, _WINNER_CODES, OUTCOME_FAILED, OUTCOME_INVALID, OUTCOME_MISSING

COMPACT_EVERY = 50_000  # answers rows after which a writer folds them into the stored outcomes
_CODED = ("prompt", "first", "second", "judge", "condition")
_BOOKS = {"prompt": "prompts", "first": "contestants", "second": "contestants", "judge": "judges"}
_BOOKS["condition"] = "conditions"

# A call's outcome code in SQL (the same mapping as elotui.vocab.outcome_code, generated from it).
_WHEN_WINNER = " ".join(f"WHEN '{w}' THEN {code}" for w, code in _WINNER_CODES.items())
_WHEN_STATUS = " ".join(f"WHEN '{s}' THEN {code}" for s, code in _STATUS_CODES.items())
OUTCOME_SQL = (
    f"CASE c.status WHEN 'ok' THEN CASE c.winner {_WHEN_WINNER} ELSE {_STATUS_CODES['invalid']} END "
    f"{_WHEN_STATUS} ELSE {OUTCOME_MISSING} END"
)
# Appended in the transaction that writes calls, after them: the presentations of the current plan that the calls
# written after rowid ?1 answer, with their outcomes. Writing a call gives it a new rowid above every rowid before
# (INSERT OR REPLACE deletes the old row and appends), so these are exactly the calls just written. One statement,
# no parameter per call (10^6 calls: ~1.3 s instead of ~3.5 s for a statement per call).
ANSWER_SQL = (
    f"INSERT INTO answers (seq, outcome) SELECT p.seq, {OUTCOME_SQL} FROM calls c JOIN plan p ON p.key = c.key "
    "WHERE c.rowid > ?"
)


@dataclass(frozen=True)
class VerdictColumns:
    """The current plan, int-coded: one entry per planned presentation, in plan order. `prompts`, `contestants`,
    `judges`, `conditions` name the codes (in first-seen plan order); `outcome` holds `OUTCOME_*` codes."""

    prompts: list[str]
    contestants: list[str]
    judges: list[str]
    conditions: list[str]
    prompt: NDArray[np.int32]
    first: NDArray[np.int32]
    second: NDArray[np.int32]
    judge: NDArray[np.int32]
    condition: NDArray[np.int32]
    sample: NDArray[np.int32]
    outcome: NDArray[np.int8]
    fingerprint: str | None = None

    def __len__(self) -> int:
        return len(self.outcome)

    def book(self, column: str) -> list[str]:
        names: list[str] = getattr(self, _BOOKS[column])
        return names

    def rows(self, keep: NDArray[np.bool_] | None = None) -> list[PlanVerdict]:
        """The presentations as named rows (for the few readers that need names: pair summaries, planning);
        `keep`: only those where it is true (decoded alone: e.g. the failed ones of a million)."""
        status = {OUTCOME_INVALID: "invalid", OUTCOME_FAILED: "error", OUTCOME_MISSING: "missing"}
        winners = {code: w for w, code in _WINNER_CODES.items()}
        outcome_of = [(status.get(code, "ok"), winners.get(code)) for code in range(OUTCOME_MISSING + 1)]
        rows = slice(None) if keep is None else np.flatnonzero(keep)
        names = {c: self.book(c) for c in _CODED}
        columns = [[names[c][i] for i in getattr(self, c)[rows].tolist()] for c in _CODED]
        outcomes = [outcome_of[o] for o in self.outcome[rows].tolist()]
        return [
            PlanVerdict(p, f, s, j, k, n, st, w)  # type: ignore[arg-type]
            for p, f, s, j, k, n, (st, w) in zip(*columns, self.sample[rows].tolist(), outcomes, strict=True)
        ]


def empty_columns() -> VerdictColumns:
    z = np.zeros(0, dtype=np.int32)
    return VerdictColumns([], [], [], [], z, z, z, z, z, z, np.zeros(0, dtype=np.int8))


def code_names(values: Sequence[str], book: dict[str, int]) -> NDArray[np.int32]:
    """The values' numbers in `book`, a name new to it numbered next, in the order names first come."""
    new = [v for v in dict.fromkeys(values) if v not in book]
    book.update(zip(new, range(len(book), len(book) + len(new)), strict=True))
    return np.fromiter(map(book.__getitem__, values), dtype=np.int32, count=len(values))


_FIELD = {name: itemgetter(i) for i, name in enumerate(PlanRow._fields)}  # a plan row's field, taken in C


def write_plan(db: sqlite3.Connection, rows: Sequence[PlanRow], fingerprint: str | None) -> None:
    """Replace the snapshot with the plan `rows` (within the caller's transaction, after the `plan` table holds
    them): `code_plan`, then `write_snapshot`."""
    write_snapshot(db, code_plan(rows), fingerprint)


@dataclass(frozen=True)
class CodedPlan:
    """A plan's columns as the snapshot keeps them (`code_plan`): no Python object per row."""

    seq: NDArray[np.int32]
    sample: NDArray[np.int32]
    columns: dict[str, NDArray[np.int32]]  # the coded fields (_CODED), numbers into `books`
    books: dict[str, dict[str, int]]


def code_plan(rows: Sequence[PlanRow]) -> CodedPlan:
    """The plan `rows` coded, in seq order (needs no store: a plan written behind is coded before, and its rows can
    go while the rest is written)."""
    seq = np.fromiter(map(_FIELD["seq"], rows), dtype=np.int32, count=len(rows))
    if np.any(seq[1:] < seq[:-1]):  # in seq order (a plan comes in it: then as it is)
        order = np.argsort(seq, kind="stable")
        rows, seq = [rows[i] for i in order.tolist()], seq[order]
    books: dict[str, dict[str, int]] = {"prompts": {}, "contestants": {}, "judges": {}, "conditions": {}}
    columns = {c: code_names(list(map(_FIELD[c], rows)), books[_BOOKS[c]]) for c in _CODED}
    sample = np.fromiter(map(_FIELD["sample"], rows), dtype=np.int32, count=len(rows))
    return CodedPlan(seq, sample, columns, books)


def write_snapshot(db: sqlite3.Connection, plan: CodedPlan, fingerprint: str | None) -> None:
    """Replace the snapshot with the coded plan (within the caller's transaction, after the `plan` table holds
    it): read every outcome from `calls` once, clear `answers`."""
    _replace(db, *_built(db, plan, fingerprint))


def _replace(db: sqlite3.Connection, meta: dict[str, Any], data: dict[str, bytes]) -> None:
    """Store a snapshot built from the calls (`_built`: every answer so far is in its outcomes)."""
    _replace_raw(db, _dumps(meta), data)


def _replace_raw(db: sqlite3.Connection, raw: bytes, data: dict[str, bytes]) -> None:
    """`_replace` with the description encoded (`raw`)."""
    db.execute("DELETE FROM answers")
    db.execute("DELETE FROM snapshot")
    db.executemany("INSERT INTO snapshot (name, data) VALUES (?, ?)", [*data.items(), ("meta", raw)])


def _built(
    db: sqlite3.Connection, plan: CodedPlan, fingerprint: str | None
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The sealed description and the arrays of the coded plan's snapshot, every outcome read from `calls`."""
    seq = plan.seq
    outcome = np.full(len(seq), OUTCOME_MISSING, dtype=np.int8)
    # the smaller table drives the join (SQLite has no statistics to choose by): a fresh store's few calls, or
    # a large store's plan when it is re-planned
    calls = int(db.execute("SELECT coalesce(max(rowid), 0) FROM calls").fetchone()[0])
    join = "calls c CROSS JOIN plan p" if calls < len(seq) else "plan p CROSS JOIN calls c"
    answered = db.execute(f"SELECT p.seq, {OUTCOME_SQL} FROM {join} ON c.key = p.key").fetchall()
    if answered:
        seqs, codes = np.array(answered, dtype=np.int64).T
        outcome[_positions(seq, seqs)] = codes
    return _sealed(plan, outcome, fingerprint, last_answer(db))


def _sealed(
    plan: CodedPlan, outcome: NDArray[np.int8], fingerprint: str | None, through: int
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The sealed description and the arrays of a snapshot of the coded plan with these outcomes."""
    names = {k: list(v) for k, v in plan.books.items()}
    meta, data = _unsealed(plan.seq, plan.sample, plan.columns, names, outcome, fingerprint, through)
    return seal.seal(meta, data), data


def _unsealed(
    seq: NDArray[np.int32],
    sample: NDArray[np.int32],
    coded: dict[str, NDArray[np.int32]],
    names: dict[str, list[str]],
    outcome: NDArray[np.int8],
    fingerprint: str | None,
    through: int,
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A snapshot's description before its seal, and its arrays: the plan's columns, the names of each book in code
    order (`names`: book -> names) and the outcomes."""
    meta = {"n": len(seq), "fingerprint": fingerprint, "through": through, **names}
    data: dict[str, bytes] = {"seq": seq.tobytes(), "sample": sample.tobytes(), "outcome": outcome.tobytes()}
    data.update((c, coded[c].tobytes()) for c in _CODED)
    return meta, data


@dataclass(frozen=True)
class SealedRecorded:
    """The snapshot of recorded verdicts sealed ahead of its write (`seal_recorded`): its description as stored
    (`raw`, made for a store whose last answers id is `through`), the description before its seal, and the
    arrays."""

    raw: bytes
    meta: dict[str, Any]
    data: dict[str, bytes]
    through: int


def seal_recorded(
    seq: NDArray[np.int32],
    sample: NDArray[np.int32],
    coded: dict[str, NDArray[np.int32]],
    names: dict[str, list[str]],
    outcome: NDArray[np.int8],
    through: int = 0,
) -> SealedRecorded:
    """The snapshot of recorded verdicts (`write_recorded`), sealed and encoded without a store: the work of its
    write but the write itself, done while something else goes on (an import's files being written). `names`: the
    names of each book (prompts, contestants, judges, conditions) in code order; `through`: the store's last
    answers id it is made for (0: a store that never had an answer; another store's snapshot is sealed again)."""
    meta, data = _unsealed(seq, sample, coded, names, outcome, None, through)
    plain = seal.plain_lists(meta)  # (found once for the check's encoding and the stored one)
    return SealedRecorded(_dumps(seal.seal(meta, data, plain), plain), meta, data, through)


def write_recorded(db: sqlite3.Connection, plan: CodedPlan, outcome: NDArray[np.int8]) -> bool:
    """The snapshot of recorded verdicts imported before any run (elotui.importers.common.store_recorded): the
    coded plan `pairs = "recorded"` makes of them and each presentation's outcome, with no fingerprint and no plan
    or call rows, so that the rankings read it at once and a run plans and replays as on a fresh store (its plan
    then replaces this snapshot). Within the caller's write transaction; False, nothing written, where the store
    holds a run's plan (that run's snapshot stays until the next run)."""
    names = {k: list(v) for k, v in plan.books.items()}
    return write_sealed_recorded(db, seal_recorded(plan.seq, plan.sample, plan.columns, names, outcome))


def write_sealed_recorded(db: sqlite3.Connection, snapshot: SealedRecorded) -> bool:
    """`write_recorded` of a snapshot sealed ahead (`seal_recorded`), sealed again where the store's last answers
    id is not the one it was sealed for."""
    if int(db.execute("SELECT EXISTS (SELECT 1 FROM plan)").fetchone()[0]):
        return False
    through = last_answer(db)
    raw = snapshot.raw
    if through != snapshot.through:
        raw = _dumps(seal.seal({**snapshot.meta, "through": through}, snapshot.data))
    _replace_raw(db, raw, snapshot.data)
    return True


def _dumps(meta: dict[str, Any], plain: Collection[str] | None = None) -> bytes:
    return seal.meta_json(meta, plain=plain).encode()


def _rebuilt(db: sqlite3.Connection, fingerprint: str | None) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The snapshot made again from the `plan` table and the calls (what a damaged one held)."""
    rows = db.execute(
        "SELECT seq, prompt, first, second, judge, condition, sample, key FROM plan ORDER BY seq"
    ).fetchall()
    return _built(db, code_plan([PlanRow(*r) for r in rows]), fingerprint)


def _positions(seq: NDArray[np.int32], seqs: NDArray[Any]) -> NDArray[np.int64]:
    """Row positions of plan seqs (the plan's seqs are 0..n-1 in practice: then the seq is the position)."""
    if len(seq) and seq[0] == 0 and seq[-1] == len(seq) - 1:
        return seqs.astype(np.int64)
    return np.searchsorted(seq, seqs).astype(np.int64)


class Damaged(Exception):
    """The stored snapshot's seal does not hold (elotui.store.seal): it is to be rebuilt. `fingerprint`: the plan's
    fingerprint as far as the damaged description still gives one (a wrong one only makes the next run plan again)."""

    def __init__(self, fingerprint: str | None) -> None:
        super().__init__("the stored snapshot is damaged")
        self.fingerprint = fingerprint


_ARRAYS = ("seq", "sample", "outcome", *_CODED)


def _stored(
    db: sqlite3.Connection, names: Sequence[str] = ()
) -> tuple[dict[str, Any], dict[str, bytes]] | None:
    """The snapshot's meta and its arrays (only `names`, if given), each checked against the seal; None when no
    plan was stored yet. Raises Damaged where a seal does not hold (or the snapshot predates the seal)."""
    if names:
        marks = ", ".join("?" for _ in ("meta", *names))
        rows = db.execute(f"SELECT name, data FROM snapshot WHERE name IN ({marks})", ("meta", *names))
    else:
        rows = db.execute("SELECT name, data FROM snapshot")
    data = dict(rows.fetchall())
    if "meta" not in data:
        if data or int(db.execute("SELECT EXISTS (SELECT 1 FROM plan)").fetchone()[0]):
            raise Damaged(None)  # arrays, or a plan, without their description
        return None
    raw = data.pop("meta")
    meta = seal.description(raw)
    if meta is None or not seal.arrays_hold(meta, data, names or _ARRAYS):
        raise Damaged(_fingerprint_in(raw))
    return meta, data


def _fingerprint_in(raw: object) -> str | None:
    try:
        meta = json.loads(raw) if isinstance(raw, (bytes, str)) else None
    except (ValueError, RecursionError):
        return None
    found = meta.get("fingerprint") if isinstance(meta, dict) else None
    return found if isinstance(found, str) else None


def description(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The stored snapshot's description if its seal holds, or one written before the seal (its arrays are read
    rebuilt: `read`; the writer's next compaction stores them sealed); None: no plan stored, or a damaged one."""
    row = db.execute("SELECT data FROM snapshot WHERE name = 'meta'").fetchone()
    return (seal.description(row[0]) or seal.unsealed(row[0])) if row else None


def _apply_answers(db: sqlite3.Connection, seq: np.ndarray, outcome: np.ndarray, through: int) -> int:
    """Apply the answers rows after id `through` to `outcome` (presentations in the order of `seq`); the last
    answers id applied."""
    later = db.execute(
        "SELECT group_concat(id), group_concat(seq), group_concat(outcome) FROM "
        "(SELECT id, seq, outcome FROM answers WHERE id > ? ORDER BY id)",
        (through,),
    ).fetchone()
    if later[0] is None:
        return through
    ids, seqs, codes = (_integers(text) for text in later)
    if not len(ids) == len(seqs) == len(codes):
        raise sqlite3.DatabaseError("the answers log could not be read: its columns differ in length")
    last = np.unique(seqs[::-1], return_index=True)[1]  # the latest answer of each presentation wins
    outcome[_positions(seq, seqs[::-1][last])] = codes[::-1][last]
    return int(ids[-1])


def _integers(text: str) -> NDArray[np.int64]:
    """A `group_concat` of integers as an array, parsed in C (10^6 of them: ~30 ms, against ~180 ms for splitting
    the text into a list of strings for numpy to convert; a compaction of a large ingest's answers holds the
    interpreter's lock that much less while the next batch is answered)."""
    return np.fromstring(text, dtype=np.int64, sep=",")


def read(db: sqlite3.Connection) -> tuple[VerdictColumns, int]:
    """The current columns (stored outcomes with every later answer applied) and the last answers id applied.
    Call within one read transaction, so that the snapshot and the answers after it are seen together."""
    try:
        stored = _stored(db)
    except Damaged as damage:  # read as rebuilt; a writer stores it rebuilt at its next compaction
        stored = _rebuilt(db, damage.fingerprint)
    if stored is None:
        return empty_columns(), 0
    meta, data = stored
    arrays = {name: np.frombuffer(data[name], dtype=np.int32) for name in ("seq", "sample", *_CODED)}
    outcome = np.frombuffer(data["outcome"], dtype=np.int8).copy()
    through = _apply_answers(db, arrays["seq"], outcome, int(meta["through"]))
    columns = VerdictColumns(
        prompts=meta["prompts"],
        contestants=meta["contestants"],
        judges=meta["judges"],
        conditions=meta["conditions"],
        prompt=arrays["prompt"],
        first=arrays["first"],
        second=arrays["second"],
        judge=arrays["judge"],
        condition=arrays["condition"],
        sample=arrays["sample"],
        outcome=outcome,
        fingerprint=meta.get("fingerprint"),
    )
    return columns, through


def last_answer(db: sqlite3.Connection) -> int:
    """The newest answers id ever given (ids are never reused: AUTOINCREMENT)."""
    row = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'answers'").fetchone()
    return int(row[0]) if row else 0


def pending_answers(db: sqlite3.Connection) -> int:
    """How many answers rows wait to be folded into the stored outcomes."""
    meta = description(db)
    through = int(meta["through"]) if meta is not None else 0
    return int(db.execute("SELECT COUNT(*) FROM answers WHERE id > ?", (through,)).fetchone()[0])


def compact(db: sqlite3.Connection) -> None:
    """Fold the answers rows into the stored outcomes (within the caller's write transaction)."""
    try:
        stored = _stored(db, ("seq", "outcome"))  # the plan's coded columns are not read (7 of 8 MiB at 10^6)
    except Damaged as damage:  # stored again, rebuilt from the plan and the calls
        _replace(db, *_rebuilt(db, damage.fingerprint))
        return
    if stored is None:
        db.execute("DELETE FROM answers")
        return
    meta, data = stored
    outcome = np.frombuffer(data["outcome"], dtype=np.int8).copy()
    through = _apply_answers(db, np.frombuffer(data["seq"], dtype=np.int32), outcome, int(meta["through"]))
    meta = seal.reseal({**meta, "through": through}, {"outcome": outcome.tobytes()})
    db.execute("UPDATE snapshot SET data = ? WHERE name = 'outcome'", (outcome.tobytes(),))
    db.execute("UPDATE snapshot SET data = ? WHERE name = 'meta'", (_dumps(meta),))
    db.execute("DELETE FROM answers WHERE id <= ?", (through,))
