"""Which keys a calls table answers: the scan and the lookups give the same set (elotui.store.keysets)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from elotui.store import keysets


def table(n: int, seed: int) -> tuple[sqlite3.Connection, set[str], list[str]]:
    rng = random.Random(seed)
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE calls (key TEXT PRIMARY KEY, status TEXT)")
    rows = [
        (f"{rng.getrandbits(64):016x}", rng.choice(["ok", "invalid", "error", "pending"])) for _ in range(n)
    ]
    db.executemany("INSERT OR REPLACE INTO calls VALUES (?, ?)", rows)
    answered = {k for k, s in db.execute("SELECT key, status FROM calls") if s in ("ok", "invalid")}
    return db, answered, [k for k, _ in rows]


@pytest.mark.parametrize("wanted_share", [0.01, 0.3, 1.0, 5.0])
def test_scan_and_lookups_agree(monkeypatch: pytest.MonkeyPatch, wanted_share: float) -> None:
    db, answered, stored = table(3000, seed=int(wanted_share * 100))
    rng = random.Random(7)
    absent = [f"absent{i}" for i in range(int(3000 * wanted_share))]
    wanted = list(dict.fromkeys(rng.sample(stored, min(len(stored), int(3000 * wanted_share))) + absent))
    expected = answered.intersection(wanted)
    assert keysets.answered_keys(db, wanted) == expected  # whichever way the ratio picks
    for ratio in (0, 10**9):  # always look up / always scan
        monkeypatch.setattr(keysets, "SCAN_RATIO", ratio)
        assert keysets.answered_keys(db, wanted) == expected
    assert keysets.answered_keys(db, []) == set()


def test_chunks_cover_every_key_once() -> None:
    keys = [str(i) for i in range(2 * keysets.CHUNK + 5)]
    assert [k for c in keysets.chunks(keys) for k in c] == keys
    assert max(len(c) for c in keysets.chunks(keys)) == keysets.CHUNK
