"""A verdict log's index for the replay judges (`elotui.judges.replay`): its rows by judge, then by presentation, in
log order, parsed once per (file, content) and shared by every judge that reads it.

A 10^6-verdict log takes ~4 s to parse, all of it under Python's lock, and a large run's planning (~10 s, also
under the lock) leaves the machine's other cores idle. So a run that is about to plan starts reading its logs
*ahead*, in a child process (`reading_ahead`): the child parses the log and sends the index back pickled (~16 MB
and ~0.4 s to unpickle at 10^6 verdicts), and `log_index` takes it from there when the judge first needs it. The
child runs this module's `_child` on the same file with the same code, so the index is the one the process would
have made itself; where the child cannot be started, dies or sends nothing usable, the log is parsed in the
process as before. A malformed log gives the same UserError (file, line) either way. A child whose index is not
needed (every call already answered, or the run stopped) is killed when the run leaves `reading_ahead`.

Measured at 10^6 verdicts: resuming a run killed at 20 % (the stored plan reused) takes ~5 s less (27.9 against
32.7 s, median of 3 interleaved). A fresh run gains nothing measurable: its new plan's end (key index, snapshot,
commit: SQLite work written behind, elotui.store) takes as long as the parse did, and the run's first write
waits for it.

This module imports only the standard library and `elotui.verdict_log`: the child starts in ~0.04 s."""

from __future__ import annotations

import gc
import os
import pickle
import select
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from elotui.errors import UserError
from elotui.runtime.checkpoints import checkpoint
from elotui.verdict_log import LogStatus, LogWinner, read_graded_verdicts
from elotui.vocab import Strength

_WINNERS: dict[str, LogWinner] = {
    "first": "first",
    "second": "second",
    "tie": "tie",
}  # one string object each
_STATUSES: dict[str, LogStatus] = {"ok": "ok", "invalid": "invalid", "error": "error"}
IndexKey = tuple[str, str, str, str]  # prompt, first, second, condition
# status, winner, reasoning, strength (a graded verdict's "strength", elotui.verdict_log): what a replay needs
Recorded = tuple[LogStatus, LogWinner | None, str | None, Strength | None]
Entry = Recorded | list[Recorded]  # a presentation's rows: the one row itself, or a list of two or more
Index = dict[str, dict[IndexKey, Entry]]
LogKey = tuple[Path, str]  # a log's path and the sha256 of its content
_PLAIN: dict[tuple[str, str | None, int | None], Recorded] = {
    (s, w, g): (s, w, None, g)  # type: ignore[misc]
    for s in _STATUSES.values()
    for w in (*_WINNERS.values(), None)
    for g in (None, 1, 2)
}  # the rows without reasoning, one tuple each
_KEPT = 4  # indexes kept (the logs of a tournament's judges)
# smaller logs (below ~30,000 verdicts, ~0.1 s to parse) are parsed here: a child would cost more than it saves
READ_AHEAD_MIN_BYTES = 1 << 22
_WAIT_S = 0.1  # between two checkpoints while waiting for a child's first byte


def index_of(path: Path) -> Index:
    """The log's verdicts by judge, then by presentation, in log order. A row is kept as a (status, winner,
    reasoning, strength) tuple under names interned once, a presentation's only row without a list around it, a row without
    reasoning as one of a dozen shared tuples (~150 bytes a verdict, ~600 for the parsed row: 10^6 verdicts in
    ~150 MB)."""
    index: Index = {}
    name = sys.intern
    for (
        prompt,
        first,
        second,
        judge,
        condition,
        _,
        winner,
        reasoning,
        status,
        strength,
    ) in read_graded_verdicts(path):
        key = (name(prompt), name(first), name(second), name(condition))
        status, winner = _STATUSES[status], None if winner is None else _WINNERS[winner]
        recorded = (
            _PLAIN[(status, winner, strength)] if reasoning is None else (status, winner, reasoning, strength)
        )
        rows = index.get(judge)
        if rows is None:
            rows = index[name(judge)] = {}
        held = rows.get(key)
        if held is None:
            rows[key] = recorded
        elif type(held) is list:
            held.append(recorded)
        else:
            rows[key] = [held, recorded]  # type: ignore[list-item]
    return index


def nth(entry: Entry | None, sample: int) -> Recorded | None:
    """Row `sample` of a presentation's index entry, if the log has that many."""
    if entry is None:
        return None
    if type(entry) is list:
        return entry[sample] if sample < len(entry) else None
    return entry if sample == 0 else None  # type: ignore[return-value]


class _Child:
    """A child process reading one log (`_child`), its index to be taken once."""

    def __init__(self, path: Path) -> None:
        root = str(Path(__file__).resolve().parent.parent.parent)  # where this elotui is imported from
        code = f"import sys; sys.path.insert(0, {root!r}); from elotui.judges.replay_index import _child; _child()"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def take(self) -> Index | None:
        """The child's index (UserError as the child found it), or None if it sent nothing usable. Waits at
        checkpoints until the child starts sending (a stop raises Stopped; the child is then killed)."""
        out = self.proc.stdout
        assert out is not None
        try:
            while not select.select([out], [], [], _WAIT_S)[0]:
                checkpoint()
            payload = pickle.load(out)
            self.proc.wait()
        except (pickle.UnpicklingError, EOFError, OSError, ValueError):
            return None  # it died or sent something else: the caller parses the log itself
        finally:
            self.end()
        if self.proc.returncode != 0 or not isinstance(payload, tuple) or not payload:
            return None
        if payload[0] == "error" and len(payload) == 3:
            raise UserError(payload[1], details=list(payload[2]))
        return payload[1] if payload[0] == "index" and len(payload) == 2 else None

    def end(self) -> None:
        """The child gone and its pipe closed (killed if it still runs)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


_lock = threading.Lock()
_indexes: OrderedDict[LogKey, Index] = OrderedDict()
_ahead: dict[LogKey, _Child] = {}


def log_index(path: Path, content_hash: str) -> Index:
    """The log's index (`index_of`): kept for the next judge that reads the same content, taken from the child
    reading it ahead if there is one, else parsed here. Read-only."""
    key = (path, content_hash)
    with _lock:
        found = _indexes.get(key)
        if found is not None:
            _indexes.move_to_end(key)
            return found
        child = _ahead.pop(key, None)
        index = child.take() if child is not None else None
        if index is None:
            index = index_of(path)
        _indexes[key] = index
        while len(_indexes) > _KEPT:
            _indexes.popitem(last=False)
        return index


@contextmanager
def reading_ahead(logs: Iterable[LogKey]) -> Iterator[None]:
    """Each log not indexed yet starts being read by a child process (on POSIX systems, where the wait for it can
    be interrupted; logs of READ_AHEAD_MIN_BYTES or more); the children whose index was not taken by the end are
    killed."""
    started: list[LogKey] = []
    if os.name == "posix":
        with _lock:
            for key in dict.fromkeys(logs):
                if key not in _indexes and key not in _ahead and _size(key[0]) >= READ_AHEAD_MIN_BYTES:
                    try:
                        _ahead[key] = _Child(key[0])
                    except OSError:  # no process to spare: the log is parsed here when needed
                        continue
                    started.append(key)
    try:
        yield
    finally:
        with _lock:
            for key in started:
                child = _ahead.pop(key, None)
                if child is not None:
                    child.end()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # reading it will say what is wrong
        return 0


def forget() -> None:
    """Drop the kept indexes and kill the children reading ahead (tests)."""
    with _lock:
        _indexes.clear()
        for child in _ahead.values():
            child.end()
        _ahead.clear()


def _child() -> None:
    """In the child process: the index of the log named by the first argument, pickled to stdout (or the UserError
    that reading it raised)."""
    gc.disable()  # a million records and no cycles (elotui.runtime.heap)
    payload: tuple[Any, ...]
    try:
        payload = ("index", index_of(Path(sys.argv[1])))
    except UserError as exc:
        payload = ("error", exc.message, exc.details)
    pickle.dump(payload, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()
