"""The pairs worth a reviewer's vote, and the vote keys' meaning. No Textual here.

A queue mode picks pairs from the listed ones (the pairs pane's filters and search applied), in the list's order:
the judges split (judges on both sides: the "judges split" filter), any judge flipped with the order, or a
practically tied rating gap (the two contestants within 50 points on the current leaderboard, the band where the
order is open). The queue leaves out the pairs the voter has already decided.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Callable, Mapping, Sequence

from elotui.rating.pair_summary import PairSummary
from elotui.store.human_votes import HumanVote

QUEUES = ("judges split", "any flip", "tied gap", "every pair")
TIED_GAP = 50.0  # rating points: the practically tied band (elotui.vocab.band)
IDLE_S = 600.0  # a pause longer than this between two votes is not the time a vote takes


def queue_test(mode: str, ratings: Mapping[str, float]) -> Callable[[PairSummary], bool]:
    """Whether a pair belongs to the queue of `mode`."""
    if mode == "judges split":
        return lambda s: s.judges_split
    if mode == "any flip":
        return lambda s: s.any_flip
    if mode == "tied gap":

        def tied(s: PairSummary) -> bool:
            a, b = ratings.get(s.a), ratings.get(s.b)
            return a is not None and b is not None and abs(a - b) < TIED_GAP

        return tied
    if mode == "every pair":
        return lambda s: True
    raise ValueError(f"queue must be one of {', '.join(QUEUES)}, not {mode!r}")


def vote_key(s: PairSummary) -> tuple[str, str, str]:
    return (s.prompt, s.a, s.b)


def queue(
    pairs: Sequence[PairSummary], mode: str, ratings: Mapping[str, float], voted: set[tuple[str, str, str]]
) -> list[PairSummary]:
    """The pairs of the queue, in the list's order, without those the voter decided."""
    test = queue_test(mode, ratings)
    return [s for s in pairs if test(s) and vote_key(s) not in voted]


def next_in_queue(pairs: Sequence[PairSummary], queued: Sequence[PairSummary], after: str | None) -> int:
    """The list position of the first queued pair after the pair `after` (a key), wrapping round; -1: none."""
    keys = {s.key for s in queued}
    if not keys:
        return -1
    start = next((i for i, s in enumerate(pairs) if s.key == after), -1) + 1
    for step in range(len(pairs)):
        i = (start + step) % len(pairs)
        if pairs[i].key in keys:
            return i
    return -1


def seconds_per_vote(votes: Sequence[HumanVote]) -> float | None:
    """The median time between a voter's successive votes (pauses over IDLE_S left out); None before two."""
    gaps = [b.cast_at - a.cast_at for a, b in itertools.pairwise(votes)]
    gaps = [g for g in gaps if 0 <= g <= IDLE_S]
    return statistics.median(gaps) if gaps else None


def vote_status(voter: str, voted: int, queued: int, per_vote: float | None) -> str:
    """The pane's vote line: e.g. "alice · voted 14 · queue 86 · est. 12 min"."""
    text = f"{voter} · voted {voted} · queue {queued}"
    if per_vote is not None and queued:
        text += f" · est. {max(1, round(per_vote * queued / 60))} min"
    return text


def vote_line(s: PairSummary, votes: Sequence[HumanVote]) -> str:
    """The human votes on one pair, for the pair's detail: e.g. "human votes: alice a-model · bob tie"."""
    if not votes:
        return f"human votes: none · a: {s.a} better · b: {s.b} better · t: tie · u: undo"
    names = {"first": s.a, "second": s.b, "tie": "tie"}
    return "human votes: " + " · ".join(f"{v.voter} {names[v.winner]}" for v in votes)
