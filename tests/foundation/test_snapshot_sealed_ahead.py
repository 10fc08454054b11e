"""An import's snapshot sealed ahead of its write (elotui.store.columns.seal_recorded). Its description is encoded by
elotui.store.seal.meta_json, which joins a long list of plain names at once: character for character what
`json.dumps` writes, plain and canonical (the seal's check is computed over the canonical text, so a single character
of difference would make every stored snapshot read as damaged). A snapshot sealed for another store's last answers
id is sealed again as it is written."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.store import Store, columns, seal

ALPHABET = ["a", "Z", "0", " ", "-", "/", "~", '"', "\\", "\x7f", "\x00", "\n", "\t", "é", "\u2028", "😀"]
MARK = "\x00elotui list 0"  # the text the joined list stands in for, met in another field


def name(rng: random.Random, plain: bool) -> str:
    letters = ALPHABET[:7] if plain else ALPHABET
    return "".join(rng.choice(letters) for _ in range(rng.randrange(0, 6)))


def description(rng: random.Random) -> dict[str, Any]:
    n = rng.choice([0, 1, 3, 40])
    meta: dict[str, Any] = {
        "n": n,
        "fingerprint": rng.choice([None, "f00d", MARK]),
        "through": rng.randrange(5),
        "prompts": [name(rng, plain=rng.random() < 0.7) for _ in range(n)],
        "contestants": [name(rng, plain=True) for _ in range(rng.randrange(1, 5))],
        "judges": rng.choice([["human"], [MARK], [1, 2, 3] * 2, ["x"] * 3]),
        "conditions": ["clean"],
    }
    if rng.random() < 0.5:
        meta["sums"] = {"seq": rng.randrange(2**32), "outcome": 7}
    return dict(rng.sample(list(meta.items()), len(meta)))  # the keys in any order


@pytest.mark.parametrize("canonical", [False, True])
def test_meta_json_writes_what_json_dumps_writes(canonical: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    options: dict[str, Any] = {"sort_keys": True, "separators": (",", ":")} if canonical else {}
    monkeypatch.setattr(seal, "LONG_LIST", 3)  # the short lists of the cases are joined too
    rng = random.Random(58)
    for _ in range(500):
        meta = description(rng)
        assert seal.meta_json(meta, canonical=canonical) == json.dumps(meta, **options), meta
        plain = seal.plain_lists(meta)  # (found once, for several encodings)
        assert seal.meta_json(meta, canonical=canonical, plain=plain) == json.dumps(meta, **options), meta
        sealed = seal.seal(meta, {"seq": b"\x01"}, plain)
        assert sealed == seal.seal(meta, {"seq": b"\x01"}) and seal.description(json.dumps(sealed)) == sealed


def test_a_snapshots_ids_are_joined_as_json_dumps_encodes_them() -> None:
    ids = [f"q{i:06d}" for i in range(20_000)]
    meta = {"n": len(ids), "fingerprint": None, "through": 0, "prompts": ids, "contestants": ["m1", "m 2"]}
    assert seal.meta_json(meta) == json.dumps(meta)
    assert seal.meta_json(meta, canonical=True) == json.dumps(meta, sort_keys=True, separators=(",", ":"))
    sealed = seal.seal(meta, {"seq": b"\x00\x01"})
    assert seal.description(json.dumps(sealed)) == sealed  # a description sealed so reads back whole


def test_a_snapshot_sealed_for_a_fresh_store_is_sealed_again_for_one_with_answers(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path):
        pass
    with sqlite3.connect(path) as db:  # answers ids were given once (AUTOINCREMENT keeps the last one)
        db.executemany("INSERT INTO answers (seq, outcome) VALUES (?, ?)", [(0, 1), (1, 2)])
        db.execute("DELETE FROM answers")
    codes = np.array([0, 1, 0], dtype=np.int32)
    coded = {"prompt": np.arange(3, dtype=np.int32), "first": codes, "second": 1 - codes}
    coded |= {"judge": np.zeros(3, dtype=np.int32), "condition": np.zeros(3, dtype=np.int32)}
    names = {
        "prompts": ["p0", "p1", "p2"],
        "contestants": ["a", "b"],
        "judges": ["h"],
        "conditions": ["clean"],
    }
    outcome = np.array([0, 1, 2], dtype=np.int8)
    sealed = columns.seal_recorded(
        np.arange(3, dtype=np.int32), np.zeros(3, dtype=np.int32), coded, names, outcome
    )
    assert sealed.through == 0
    with Store(path) as store:
        assert store.set_sealed_recorded(sealed)
        got = store.verdict_columns()
    assert got.prompts == names["prompts"] and got.contestants == names["contestants"]
    assert np.array_equal(got.outcome, outcome) and np.array_equal(got.first, codes)
    with sqlite3.connect(path) as db:
        raw = db.execute("SELECT data FROM snapshot WHERE name = 'meta'").fetchone()[0]
    stored = seal.description(raw)
    assert stored is not None and stored["through"] == 2  # sealed again: its check holds
