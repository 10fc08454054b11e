"""The store's human votes: a reviewer's decision on one (prompt, pair), cast from the pairs pane.

One row per (voter, prompt, pair): voting again on a pair replaces the voter's earlier vote, so two reviewers
voting into one store at once never conflict (each writes its own rows, one transaction per vote, committed when
the vote is cast). `first`/`second` are the pair as listed (its declared order); `winner` is "first", "second" or
"tie" in that order, whatever order the responses were shown in (`shown`: "listed" or "swapped").
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import NamedTuple

from elotui.errors import UserError
from elotui.store.table_base import StoreTable

HUMAN_JUDGE = "human"  # the judge name of every human vote in a verdict log
VOTE_WINNERS = ("first", "second", "tie")
VOTE_SQL = "SELECT id, prompt, first, second, winner, voter, cast_at, shown FROM human_votes"


def voter_name(given: str | None = None) -> str:
    """Who casts the votes: `--voter NAME`, else the ELOTUI_VOTER variable, else the user's login name."""
    import getpass
    import os

    for name in (given, os.environ.get("ELOTUI_VOTER")):
        if name and name.strip():
            return name.strip()
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (a container without a passwd entry)
        return "reviewer"


class HumanVote(NamedTuple):
    id: int
    prompt: str
    first: str
    second: str
    winner: str  # first / second / tie, in the listed order
    voter: str
    cast_at: float  # seconds since the epoch
    shown: str | None  # listed / swapped: the order the responses were shown in

    @property
    def pair_key(self) -> tuple[str, str, str]:
        return (self.prompt, self.first, self.second)

    def log_row(self) -> tuple[str, str, str, str, str, int, str, str, str]:
        """The vote as a verdict-log row (elotui.verdict_log.FIELDS): judge "human", the voter and the time in the
        reasoning (the log has no voter field; `[reference] votes` reads the rest)."""
        when = datetime.fromtimestamp(self.cast_at, UTC).isoformat(timespec="seconds")
        by = f"human vote by {self.voter} at {when}"
        return (self.prompt, self.first, self.second, HUMAN_JUDGE, "clean", 0, self.winner, by, "ok")


class HumanVotesTable(StoreTable):
    """What `Store` reads and writes of the human votes (a base of Store, which supplies `_rows`, `_transaction`,
    `_db` and `read_only`)."""

    read_only: bool

    def _writable(self) -> None:
        if self.read_only:
            raise UserError("this store is open read-only: votes are cast where the store can be written")

    def cast_vote(
        self, prompt: str, first: str, second: str, winner: str, voter: str, *, shown: str | None = None
    ) -> HumanVote:
        """Store a vote at once (committed when this returns), replacing the voter's earlier vote on the pair."""
        if winner not in VOTE_WINNERS:
            raise ValueError(f"winner must be one of {', '.join(VOTE_WINNERS)}, not {winner!r}")
        if not voter.strip():
            raise UserError("a vote needs the voter's name (--voter NAME or ELOTUI_VOTER)")
        self._writable()
        now = time.time()
        made: list[int] = []

        def body() -> None:
            cur = self._db.execute(
                "INSERT OR REPLACE INTO human_votes (prompt, first, second, winner, voter, cast_at, shown) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (prompt, first, second, winner, voter, now, shown),
            )
            made.append(int(cur.lastrowid or 0))

        self._transaction(body)
        return HumanVote(made[0], prompt, first, second, winner, voter, now, shown)

    def undo_vote(self, voter: str) -> HumanVote | None:
        """Delete the voter's last vote (the one cast last); None when the voter has none."""
        self._writable()
        gone: list[HumanVote] = []

        def body() -> None:
            cur = self._db.cursor()
            row = cur.execute(f"{VOTE_SQL} WHERE voter = ? ORDER BY id DESC LIMIT 1", (voter,)).fetchone()
            if row is not None:
                gone.append(HumanVote(*row))
                cur.execute("DELETE FROM human_votes WHERE id = ?", (row[0],))

        self._transaction(body)
        return gone[0] if gone else None

    def human_votes(self, voter: str | None = None) -> list[HumanVote]:
        """The stored votes in the order cast (one voter's, or everyone's)."""
        if voter is None:
            return self._rows(HumanVote, f"{VOTE_SQL} ORDER BY id")
        return self._rows(HumanVote, f"{VOTE_SQL} WHERE voter = ? ORDER BY id", (voter,))
