"""Replay: answer from a recorded verdict log (see `elotui.verdict_log`), never inventing a verdict.

Rows whose `judge` equals the judge's `replay_name` are indexed once by (prompt, first, second, condition),
in log order; sample k takes the k-th row for that presentation. No row → status "error" with an error that
starts with "missing:" (the comparison is reported, not invented).
"""

from __future__ import annotations

import functools
import sys
from collections import defaultdict
from pathlib import Path

from elotui.config import EndpointConfig
from elotui.judges.base import Completion, JudgeKind, JudgeReply, JudgeRequest
from elotui.judges.offline import answer_offline
from elotui.verdict_log import LogStatus, LogWinner, content_hash, read_log

_WINNERS: dict[str, LogWinner] = {
    "first": "first",
    "second": "second",
    "tie": "tie",
}  # one string object each
_STATUSES: dict[str, LogStatus] = {"ok": "ok", "invalid": "invalid", "error": "error"}
IndexKey = tuple[str, str, str, str]  # prompt, first, second, condition
Recorded = tuple[LogStatus, LogWinner | None, str | None]  # status, winner, reasoning: what a replay needs


@functools.lru_cache(maxsize=4)
def log_index(path: Path, content_hash: str) -> dict[str, dict[IndexKey, list[Recorded]]]:
    """A verdict log's verdicts by judge, then by presentation, in log order: parsed once per (file, content) and
    shared by every replay judge that reads it (five judges on one log: one parse, not five). Read-only. A row is
    kept as a (status, winner, reasoning) tuple under names interned once (~100 bytes a verdict, not ~600 for
    the parsed row: 10^6 verdicts in ~300 MB, not ~700)."""
    index: dict[str, dict[IndexKey, list[Recorded]]] = defaultdict(lambda: defaultdict(list))
    name = sys.intern
    for row in read_log(path):
        key = (name(row["prompt"]), name(row["first"]), name(row["second"]), name(row["condition"]))
        winner = row["winner"]
        recorded = (_STATUSES[row["status"]], None if winner is None else _WINNERS[winner], row["reasoning"])
        index[name(row["judge"])][key].append(recorded)
    return {judge: dict(rows) for judge, rows in index.items()}


class ReplayJudge:
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
        self._index: dict[IndexKey, list[Recorded]] | None = None

    def identity(self) -> dict[str, object]:
        return {
            "provider": "replay",
            "path": str(self.path),
            "content_hash": self.content_hash,
            "replay_name": self.replay_name,
        }

    def index(self) -> dict[IndexKey, list[Recorded]]:
        """The log's rows for this judge, by presentation (the log is parsed once for every judge reading it)."""
        if self._index is None:
            self._index = log_index(self.path, self.content_hash).get(self.replay_name, {})
        return self._index

    def prepare(self) -> None:
        """Read the log before the first call (UserError naming the file and line if it is malformed)."""
        self.index()

    def lookup(self, prompt: str, first: str, second: str, condition: str, sample: int) -> Recorded | None:
        rows = self.index().get((prompt, first, second, condition))
        if not rows or sample >= len(rows):
            return None
        return rows[sample]

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        return await answer_offline(self.config.delay_ms, lambda: self._answer(request))

    def _answer(self, request: JudgeRequest) -> JudgeReply:
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
        if status == "ok":
            return JudgeReply(status="ok", winner=winner, reasoning=reasoning, raw_reply=reasoning)
        if status == "invalid":
            return JudgeReply(status="invalid", reasoning=reasoning, raw_reply=reasoning)
        return JudgeReply(
            status="error", error=f"recorded as failed in {self.path.name}", raw_reply=reasoning
        )

    async def complete(self, system: str, user: str) -> Completion:
        return Completion(status="error", error=f"judge {self.id}: a replay judge cannot generate text")

    async def aclose(self) -> None:
        return None
