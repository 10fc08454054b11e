"""The vote queue's modes, its order and wrap-round, the time estimate and the vote line (no Textual)."""

from __future__ import annotations

import pytest

from elotui.rating.pair_summary import PairSummary
from elotui.store.human_votes import HumanVote
from elotui.tui.vote_queue import next_in_queue, queue, seconds_per_vote, vote_line, vote_status


def _pair(prompt: str, a: str, b: str, *, flips: int = 0, split: bool = False) -> PairSummary:
    prefs = {"j1": a, "j2": b} if split else {"j1": a, "j2": a}
    return PairSummary(prompt, a, b, flips=flips, judges={"j1", "j2"}, prefs=prefs)


PAIRS = [
    _pair("q1", "x", "y", split=True),
    _pair("q1", "x", "z", flips=1),
    _pair("q2", "y", "z", split=True, flips=2),
    _pair("q2", "x", "y"),
]
RATINGS = {"x": 1000.0, "y": 1049.0, "z": 1200.0}


def test_each_mode_keeps_its_pairs_in_list_order_without_those_voted() -> None:
    assert [s.key for s in queue(PAIRS, "judges split", RATINGS, set())] == [PAIRS[0].key, PAIRS[2].key]
    assert [s.key for s in queue(PAIRS, "any flip", RATINGS, set())] == [PAIRS[1].key, PAIRS[2].key]
    # within 50 points: x (1000) and y (1049); z is 151 and 200 away
    assert [s.key for s in queue(PAIRS, "tied gap", RATINGS, set())] == [PAIRS[0].key, PAIRS[3].key]
    assert len(queue(PAIRS, "every pair", RATINGS, {("q1", "x", "y")})) == 3
    assert [s.key for s in queue(PAIRS, "judges split", RATINGS, {("q1", "x", "y")})] == [PAIRS[2].key]
    with pytest.raises(ValueError, match="queue must be one of"):
        queue(PAIRS, "split", RATINGS, set())


def test_the_next_pair_of_the_queue_wraps_round() -> None:
    queued = queue(PAIRS, "judges split", RATINGS, set())
    assert next_in_queue(PAIRS, queued, None) == 0
    assert next_in_queue(PAIRS, queued, PAIRS[0].key) == 2
    assert next_in_queue(PAIRS, queued, PAIRS[2].key) == 0
    assert next_in_queue(PAIRS, [], PAIRS[0].key) == -1


def _vote(at: float, winner: str = "first", voter: str = "alice") -> HumanVote:
    return HumanVote(0, "q1", "x", "y", winner, voter, at, "listed")


def test_the_estimate_is_the_median_time_per_vote_without_long_pauses() -> None:
    assert seconds_per_vote([_vote(0.0)]) is None
    # gaps 10, 20, 3600 (a pause: left out), 30 -> median of 10, 20, 30
    assert seconds_per_vote([_vote(t) for t in (0, 10, 30, 3630, 3660)]) == 20
    assert vote_status("alice", 4, 90, 20.0) == "alice · voted 4 · queue 90 · est. 30 min"
    assert vote_status("alice", 1, 90, None) == "alice · voted 1 · queue 90"


def test_the_vote_line_names_the_winner_of_each_vote() -> None:
    s = PAIRS[0]
    assert vote_line(s, [_vote(0, "second"), _vote(1, "tie", "bob")]) == "human votes: alice y · bob tie"
    assert vote_line(s, []).startswith("human votes: none · a: x better · b: y better")
