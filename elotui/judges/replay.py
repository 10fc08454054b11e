"""Replay: answer from a recorded verdict log (see `elotui.verdict_log`), never inventing a verdict.

Rows whose `judge` equals the judge's `replay_name` are indexed once by (prompt, first, second, condition),
in log order; sample k takes the k-th row for that presentation. A graded verdict's `"strength"` (2 strong, 1 clear)
goes with its answer, so the store keeps it as it keeps a live graded judge's (`calls.strength`). No row → status "error" with an error that
starts with "missing:" (the comparison is reported, not invented).
"""

from __future__ import annotations

from pathlib import Path

from elotui.judges.base import Completion, JudgeKind, JudgeReply, JudgeRequest
from elotui.judges.offline import OfflineJudge
from elotui.judges.replay_index import Entry, IndexKey, LogKey, Recorded, log_index, nth
from elotui.tournament.model import EndpointConfig
from elotui.verdict_log import content_hash


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

    def log(self) -> LogKey:
        """The log this judge reads (`elotui.judges.replay_index.reading_ahead` can start reading it early)."""
        return self.path, self.content_hash

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
        status, winner, reasoning, strength = row
        if (
            status == "ok"
        ):  # positional: status, winner, reasoning, raw_reply, error, strength (a third faster)
            return JudgeReply("ok", winner, reasoning, reasoning, None, strength)
        if status == "invalid":
            return JudgeReply(status="invalid", reasoning=reasoning, raw_reply=reasoning)
        return JudgeReply(
            status="error", error=f"recorded as failed in {self.path.name}", raw_reply=reasoning
        )

    async def complete(self, system: str, user: str) -> Completion:
        return Completion(status="error", error=f"judge {self.id}: a replay judge cannot generate text")

    async def aclose(self) -> None:
        return None
