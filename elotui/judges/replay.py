"""Replay: answer from a recorded verdict log (see `elotui.verdict_log`), never inventing a verdict.

Rows whose `judge` equals the judge's `replay_name` are indexed once by (prompt, first, second, condition),
in log order; sample k takes the k-th row for that presentation. No row → status "error" with an error that
starts with "missing:" (the comparison is reported, not invented).
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from elotui.config import EndpointConfig
from elotui.judges.base import Completion, JudgeKind, JudgeReply, JudgeRequest
from elotui.judges.offline import OfflineJudge
from elotui.verdict_log import LogStatus, LogWinner, content_hash, read_verdicts

_WINNERS: dict[str, LogWinner] = {
    "first": "first",
    "second": "second",
    "tie": "tie",
}  # one string object each
_STATUSES: dict[str, LogStatus] = {"ok": "ok", "invalid": "invalid", "error": "error"}
IndexKey = tuple[str, str, str, str]  # prompt, first, second, condition
Recorded = tuple[LogStatus, LogWinner | None, str | None]  # status, winner, reasoning: what a replay needs
Entry = Recorded | list[Recorded]  # a presentation's rows: the one row itself, or a list of two or more
_PLAIN: dict[tuple[str, str | None], Recorded] = {
    (s, w): (s, w, None) for s in _STATUSES.values() for w in (*_WINNERS.values(), None)
}  # the rows without reasoning, one tuple each


@functools.lru_cache(maxsize=4)
def log_index(path: Path, content_hash: str) -> dict[str, dict[IndexKey, Entry]]:
    """A verdict log's verdicts by judge, then by presentation, in log order: parsed once per (file, content) and
    shared by every replay judge that reads it (five judges on one log: one parse, not five). Read-only. A row is
    kept as a (status, winner, reasoning) tuple under names interned once, a presentation's only row without a
    list around it, a row without reasoning as one of a dozen shared tuples (~150 bytes a verdict, ~600 for the
    parsed row: 10^6 verdicts in ~150 MB)."""
    index: dict[str, dict[IndexKey, Entry]] = {}
    name = sys.intern
    for prompt, first, second, judge, condition, _, winner, reasoning, status in read_verdicts(path):
        key = (name(prompt), name(first), name(second), name(condition))
        status, winner = _STATUSES[status], None if winner is None else _WINNERS[winner]
        recorded = _PLAIN[(status, winner)] if reasoning is None else (status, winner, reasoning)
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


class ReplayJudge(OfflineJudge):
    kind: JudgeKind = "replay"

    def __init__(self, config: EndpointConfig, *, judge_id: str, base_dir: Path) -> None:
        if config.path is None:
            raise ValueError("a replay judge needs `path`")
        self.id = judge_id
        self.config = config
        path = Path(config.path).expanduser()
        self.path = (path if path.is_absolute() else Path(base_dir) / path).resolve()
        self.replay_name: str = getattr(config, "replay_name", None) or config.model or judge_id
        self.content_hash = content_hash(self.path)
        self._index: dict[IndexKey, Entry] | None = None

    def identity(self) -> dict[str, object]:
        return {
            "provider": "replay",
            "path": str(self.path),
            "content_hash": self.content_hash,
            "replay_name": self.replay_name,
        }

    def index(self) -> dict[IndexKey, Entry]:
        """The log's rows for this judge, by presentation (the log is parsed once for every judge reading it)."""
        if self._index is None:
            self._index = log_index(self.path, self.content_hash).get(self.replay_name, {})
        return self._index

    def prepare(self) -> None:
        """Read the log before the first call (UserError naming the file and line if it is malformed)."""
        self.index()

    def lookup(self, prompt: str, first: str, second: str, condition: str, sample: int) -> Recorded | None:
        return nth(self.index().get((prompt, first, second, condition)), sample)

    def answer(self, request: JudgeRequest) -> JudgeReply:
        """The recorded verdict, at once (`judge` gives it after the configured delay)."""
        p = request.presentation
        if p is None:
            return JudgeReply(
                status="error", error=f"judge {self.id}: a replay judge answers comparisons only"
            )
        row = self.lookup(p.prompt, p.first, p.second, p.condition, p.sample)
        if row is None:
            return JudgeReply(
                status="error",
                error=(
                    f"missing: no recorded verdict for prompt {p.prompt!r}, {p.first!r} shown first vs "
                    f"{p.second!r}, condition {p.condition!r}, sample {p.sample} by judge {self.replay_name!r} "
                    f"in {self.path.name}"
                ),
            )
        status, winner, reasoning = row
        if status == "ok":  # positional: status, winner, reasoning, raw_reply (a third faster; 10^6 a replay)
            return JudgeReply("ok", winner, reasoning, reasoning)
        if status == "invalid":
            return JudgeReply(status="invalid", reasoning=reasoning, raw_reply=reasoning)
        return JudgeReply(
            status="error", error=f"recorded as failed in {self.path.name}", raw_reply=reasoning
        )

    async def complete(self, system: str, user: str) -> Completion:
        return Completion(status="error", error=f"judge {self.id}: a replay judge cannot generate text")

    async def aclose(self) -> None:
        return None
