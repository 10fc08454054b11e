"""Human votes in the store: the migration of an older store, one vote per voter and pair, undo, a vote that
survives a kill -9 right after it was cast, and two processes voting into one store at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from elotui.errors import UserError
from elotui.rating.human import voter_agreement
from elotui.store import SCHEMA_VERSION, Store
from elotui.store.human_votes import voter_name
from tests.foundation.old_stores import store_at_version


def test_an_older_store_gains_an_empty_votes_table(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = store_at_version(path, 8)
    db.execute("INSERT INTO calls (key, kind, status, winner) VALUES ('k1', 'verdict', 'ok', 'first')")
    db.close()
    with Store(path) as store:
        assert store.schema_version == SCHEMA_VERSION == 11
        assert store.human_votes() == []
        assert store.get_call("k1") is not None
        store.cast_vote("q1", "a", "b", "first", "alice")
        assert [v.winner for v in store.human_votes()] == ["first"]


def test_a_second_vote_on_a_pair_replaces_the_first_and_undo_takes_back_the_last(tmp_path: Path) -> None:
    with Store(tmp_path / "s.sqlite") as store:
        store.cast_vote("q1", "a", "b", "first", "alice")
        store.cast_vote("q1", "a", "b", "tie", "bob")
        store.cast_vote("q2", "a", "b", "second", "alice")
        store.cast_vote("q1", "a", "b", "second", "alice")  # alice changes her mind on q1
        assert [(v.prompt, v.winner, v.voter) for v in store.human_votes()] == [
            ("q1", "tie", "bob"),
            ("q2", "second", "alice"),
            ("q1", "second", "alice"),
        ]
        undone = store.undo_vote("alice")
        assert undone is not None and (undone.prompt, undone.winner) == ("q1", "second")
        assert [(v.prompt, v.voter) for v in store.human_votes("alice")] == [("q2", "alice")]
        assert store.undo_vote("carol") is None
        with pytest.raises(ValueError, match="winner must be one of"):
            store.cast_vote("q1", "a", "b", "a", "alice")
        with pytest.raises(UserError, match="voter's name"):
            store.cast_vote("q1", "a", "b", "tie", " ")


def test_a_read_only_store_refuses_votes(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with Store(path, reader=True) as store, pytest.raises(UserError, match="read-only"):
        store.cast_vote("q1", "a", "b", "first", "alice")


def test_the_voter_is_the_flag_then_the_variable_then_the_login(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELOTUI_VOTER", "from-env")
    assert voter_name("from-flag") == "from-flag"
    assert voter_name(None) == "from-env"
    monkeypatch.delenv("ELOTUI_VOTER")
    monkeypatch.setattr("getpass.getuser", lambda: "login")
    assert voter_name(None) == "login"


KILLED = """
import os, signal, sys
from elotui.store import Store
store = Store(sys.argv[1])
store.cast_vote("q1", "a", "b", "second", "alice")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_vote_survives_a_kill_right_after_it_is_cast(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    done = subprocess.run([sys.executable, "-c", KILLED, str(path)], check=False)
    assert done.returncode == -9
    with Store(path) as store:
        assert [(v.prompt, v.winner, v.voter) for v in store.human_votes()] == [("q1", "second", "alice")]


VOTER = """
import sys
from elotui.store import Store
path, voter = sys.argv[1], sys.argv[2]
meaning = {"alice": lambda i: i % 3, "bob": lambda i: (i * 7 + i // 4) % 3}[voter]
with Store(path) as store:
    for i in range(0, 60) if voter == "alice" else range(30, 90):
        winner = ("first", "second", "tie")[meaning(i)]  # in the order a, b
        if voter == "bob" and i % 2:  # listed the other way round
            store.cast_vote(f"q{i}", "b", "a", {"first": "second", "second": "first"}.get(winner, winner), voter)
        else:
            store.cast_vote(f"q{i}", "a", "b", winner, voter)
"""
ALICE = {f"q{i}": i % 3 for i in range(60)}  # 0: a better, 1: b better, 2: tie
BOB = {f"q{i}": (i * 7 + i // 4) % 3 for i in range(30, 90)}


def cohen(x: list[int], y: list[int]) -> float:
    """Cohen's κ by its definition: (observed - chance agreement) / (1 - chance agreement)."""
    n = len(x)
    observed = sum(a == b for a, b in zip(x, y, strict=True)) / n
    chance = sum((x.count(k) / n) * (y.count(k) / n) for k in range(3))
    return (observed - chance) / (1 - chance)


def fleiss(rows: list[list[int]]) -> float:
    """Fleiss' κ by its definition, from each item's ratings."""
    n, items = len(rows[0]), len(rows)
    counts = [[r.count(k) for k in range(3)] for r in rows]
    p_item = [(sum(c * c for c in row) - n) / (n * (n - 1)) for row in counts]
    p_cat = [sum(row[k] for row in counts) / (items * n) for k in range(3)]
    chance = sum(p * p for p in p_cat)
    return (sum(p_item) / items - chance) / (1 - chance)


def test_two_processes_vote_into_one_store_at_once_and_their_kappa_is_cohens(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", VOTER, str(path), voter]) for voter in ("alice", "bob")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with Store(path) as store:
        votes = store.human_votes()
    assert len(votes) == 120  # every vote once
    assert len({(v.voter, v.prompt) for v in votes}) == 120
    code = {"first": 0, "second": 1, "tie": 2}
    for v in votes:
        meant = (ALICE if v.voter == "alice" else BOB)[v.prompt]
        got = code[v.winner] if (v.first, v.second) == ("a", "b") or v.winner == "tie" else 1 - code[v.winner]
        assert got == meant
    report = voter_agreement((v.voter, *v.pair_key, v.winner) for v in votes)
    shared = sorted(set(ALICE) & set(BOB))
    assert report is not None and len(shared) == 30
    (pair,) = report["pairs"]
    x, y = [ALICE[p] for p in shared], [BOB[p] for p in shared]
    assert pair["voters"] == ["alice", "bob"] and pair["items"] == 30
    assert pair["cohen_kappa"] == pytest.approx(cohen(x, y), abs=1e-12)
    assert report["items_all"] == 30
    assert report["fleiss_kappa"] == pytest.approx(
        fleiss([[a, b] for a, b in zip(x, y, strict=True)]), abs=1e-12
    )


def test_no_voter_agreement_until_two_voters_share_an_item() -> None:
    assert voter_agreement([("alice", "q1", "a", "b", "first"), ("bob", "q2", "a", "b", "tie")]) is None
