"""Following a run that another process is writing (`elotui watch`, or `elotui run` on a tournament whose run is
going): the store is polled twice a second, only when another connection committed (PRAGMA data_version); new
verdicts are appended to the ranking, the writer's published progress (its heartbeat, elotui.store.runs) is shown,
and the run's end is said: finished, stopped, budget, or the writer gone (its lease expired). No Textual here."""

from __future__ import annotations

import time
from dataclasses import dataclass

from elotui.records import JudgeCounts, PlanVerdict
from elotui.run.events import BatchProgress, Progress
from elotui.store import Store
from elotui.store.follow import answered_since, data_version, newest_call, plan_identity
from elotui.store.runs import latest_run

WATCH_EVERY_S = 0.5


@dataclass
class Seen:
    """What the watcher last read: new verdicts, whether the writer stored a new plan, the run's state."""

    rows: list[PlanVerdict]
    plan_changed: bool
    state: str
    detail: str
    progress: Progress | None


class StoreWatcher:
    def __init__(self, store: Store) -> None:
        # its own connection: the app's is busy for a second at a time in its workers at 10^6 verdicts (judge
        # statistics, pairs), and a poll must not wait for them
        self.store = Store(
            store.path, reader=True
        )  # read only: never checkpoints nor deletes the writer's log
        self.version = -1
        self.last_call = 0
        self.plan: tuple[int, str | None] = (-1, None)

    def mark(self) -> None:
        """The ranking was just rebuilt from the store: new verdicts are those recorded after now."""
        self.last_call = newest_call(self.store)
        self.plan = plan_identity(self.store)

    def poll(self) -> Seen | None:
        """None when nothing was committed since the last poll."""
        version = data_version(self.store)
        run = latest_run(self.store)
        lease_gone = run is not None and run["state"] == "died"
        if version == self.version and not lease_gone:
            return None
        self.version = version
        changed = plan_identity(self.store) != self.plan
        rows: list[PlanVerdict] = []
        if not changed:
            rows, self.last_call = answered_since(self.store, self.last_call)
        return Seen(rows, changed, *self.describe(run), progress_of(run))

    @staticmethod
    def describe(run: dict[str, object] | None) -> tuple[str, str]:
        if run is None:
            return "stored", "no run recorded yet"
        who = f"run {run['id']} · pid {run['pid']} on {run['host']}"
        state = str(run["state"])
        if state == "died":
            when = time.strftime("%H:%M:%S", time.localtime(float(run.get("lease_until") or 0)))  # type: ignore[arg-type]
            return "writer gone", f"{who}: no heartbeat since its lease expired at {when}"
        if state == "running" and not run.get("progress"):  # no heartbeat yet: it plans (elotui.store.runs)
            return "watching · preparing", who
        if state in ("running", "paused", "budget"):
            return f"watching · {state}", who
        return f"run {state}", who


def progress_of(run: dict[str, object] | None) -> Progress | None:
    data = run.get("progress") if run else None
    if not isinstance(data, dict):
        return None
    judges = {
        j: JudgeCounts(**{**c, "last_errors": tuple(c.get("last_errors", ()))})
        for j, c in (data.get("judges") or {}).items()
    }
    batches = tuple(BatchProgress(**b) for b in data.get("open_batches") or () if isinstance(b, dict))
    return Progress(**{**data, "judges": judges, "open_batches": batches})
