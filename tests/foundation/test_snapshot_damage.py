"""Damage to the store's ranking snapshot (elotui.store.columns, sealed by elotui.store.seal) never gives another
ranking: random bytes in its arrays or its description, rows of it gone, or pages of the file holding it
overwritten, and `export` either prints the ranking the undamaged store prints (the snapshot rebuilt from the plan
and the calls) or stops with exit 5 naming the store. A writer stores the rebuilt snapshot again."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.store import Store, columns

TOURNAMENT = """[tournament]
name = "damage"

[ranking]
method = "bt"
bootstrap = 0

{contestants}
{prompts}
[[judges]]
id = "sim"
provider = "simulated"
[judges.simulation]
noise = 120.0
qualities = {{ {qualities} }}
"""
NAMES = ["a", "b", "c", "d", "e"]
CASES = 24  # random damages of each kind


@pytest.fixture(scope="module")
def undamaged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A tournament, its store after a full run (its WAL folded into the file) and the ranking it exports."""
    folder = tmp_path_factory.mktemp("damage")
    contestants = "".join(f'[[contestants]]\nid = "{c}"\n' for c in NAMES)
    prompts = "".join(
        f'[[prompts]]\nid = "p{i}"\ntext = "Q{i}?"\nresponses = {{ '
        + ", ".join(f'{c} = "{c} says {i}"' for c in NAMES)
        + " }\n"
        for i in range(6)
    )
    qualities = ", ".join(f"{c} = {1200 - 60 * i}.0" for i, c in enumerate(NAMES))
    path = folder / "t.toml"
    path.write_text(TOURNAMENT.format(contestants=contestants, prompts=prompts, qualities=qualities))
    store = folder / "s.sqlite"
    assert main(["run", str(path), "--headless", "--store", str(store)]) == 0
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path, store, _export(path, store)


def _export(path: Path, store: Path) -> str:
    out = store.with_suffix(".csv")
    out.unlink(missing_ok=True)
    code = main(["export", str(path), "--store", str(store), "-o", str(out)])
    assert code in (0, 5)
    return out.read_text(encoding="utf-8") if code == 0 else "exit 5"


def _damage_rows(store: Path, rng: random.Random) -> str:
    """Random bytes written over one stored array or the description, or one of its rows deleted or cut short."""
    with sqlite3.connect(store) as db:
        name, data = rng.choice(db.execute("SELECT name, data FROM snapshot ORDER BY name").fetchall())
        how = rng.choice(["bytes", "bytes", "bytes", "cut", "gone"])
        if how == "gone":
            db.execute("DELETE FROM snapshot WHERE name = ?", (name,))
            return f"{name} deleted"
        damaged = bytearray(data)
        if how == "cut":
            damaged = damaged[: rng.randrange(len(damaged))]
        else:
            for _ in range(rng.randint(1, 6)):
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        if bytes(damaged) == data:
            damaged += b"\x00"
        db.execute("UPDATE snapshot SET data = ? WHERE name = ?", (bytes(damaged), name))
        return f"{name} {how}"


def _damage_pages(store: Path, rng: random.Random) -> str:
    """Random bytes written into one of the file's pages that hold the snapshot table."""
    with sqlite3.connect(store) as db:
        pages = [p for (p,) in db.execute("SELECT pageno FROM dbstat WHERE name = 'snapshot'")]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    page = rng.choice(pages)
    raw = bytearray(store.read_bytes())
    start = (page - 1) * size + rng.randrange(size - 64)
    for i in range(start, start + rng.randint(1, 64)):
        raw[i] = rng.randrange(256)
    store.write_bytes(bytes(raw))
    return f"page {page} at {start}"


@pytest.mark.parametrize("kind", ["rows", "pages"])
def test_a_damaged_snapshot_ranks_as_the_undamaged_one_or_exits_5(
    undamaged: tuple[Path, Path, str], tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, store, ranking = undamaged
    damage = _damage_rows if kind == "rows" else _damage_pages
    outcomes = {"same": 0, "exit 5": 0}
    for case in range(CASES):
        copy = tmp_path / f"d{case}.sqlite"
        shutil.copyfile(store, copy)
        what = damage(copy, random.Random(case))
        got = _export(path, copy)
        err = capsys.readouterr().err
        assert got in (ranking, "exit 5"), f"case {case} ({what}): another ranking"
        assert "Traceback" not in err and "unexpected error" not in err, f"case {case} ({what}): {err}"
        if got == "exit 5":
            assert str(copy) in err, err
        outcomes["same" if got == ranking else "exit 5"] += 1
    if kind == "rows":  # every damage of a row is found by the seal and rebuilt from the plan and the calls
        assert outcomes == {"same": CASES, "exit 5": 0}


def test_a_writer_stores_the_rebuilt_snapshot_again(
    undamaged: tuple[Path, Path, str], tmp_path: Path
) -> None:
    path, store, ranking = undamaged
    copy = tmp_path / "d.sqlite"
    shutil.copyfile(store, copy)
    with sqlite3.connect(copy) as db:
        outcome = bytearray(db.execute("SELECT data FROM snapshot WHERE name = 'outcome'").fetchone()[0])
        outcome[0] ^= 1
        db.execute("UPDATE snapshot SET data = ? WHERE name = 'outcome'", (bytes(outcome),))
    with Store(copy) as s:
        assert columns.description(s._db) is not None  # the description holds: the outcome's sum does not
        s.compact()
    with sqlite3.connect(copy) as db:
        repaired = db.execute("SELECT data FROM snapshot WHERE name = 'outcome'").fetchone()[0]
    assert repaired != bytes(outcome)
    assert _export(path, copy) == ranking
    assert main(["run", str(path), "--headless", "--store", str(copy)]) == 0  # nothing left to pay
    assert _export(path, copy) == ranking


@pytest.mark.parametrize(
    "change",
    [
        "manifest = substr(manifest, 1, 40)",
        "manifest = x'ffff'",
        "manifest = '[]'",
        "started_at = 'x'",
        "finished_at = 1e300",
        "state = x'ff00'",
        "host = x'ff'",
        "pid = 1.5",
        "state = 'running', lease_until = 'x'",
        "state = 'running', lease_until = x'00'",
        "state = 'running', lease_until = 1e12, pid = 'x'",
        "state = 'running', progress = '{'",
    ],
)
def test_runs_and_run_read_a_damaged_run_row_without_failing(
    undamaged: tuple[Path, Path, str], tmp_path: Path, change: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, store, _ = undamaged
    copy = tmp_path / "d.sqlite"
    shutil.copyfile(store, copy)
    with sqlite3.connect(copy) as db:
        db.execute(f"UPDATE runs SET {change}")
    code = main(["runs", str(path), "--store", str(copy)])
    out, err = capsys.readouterr()
    assert code in (0, 5) and "unexpected error" not in err, err
    if code == 0:
        assert out.splitlines()[-1].startswith("1 "), out  # the row, its damaged values shown as "?" or "—"
    code = main(["run", str(path), "--headless", "--store", str(copy)])  # the lease read from the damaged row
    err = capsys.readouterr().err
    assert code in (0, 2, 5) and "unexpected error" not in err, err


def test_run_refuses_a_store_whose_pages_are_damaged(
    undamaged: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, store, _ = undamaged
    copy = tmp_path / "d.sqlite"
    shutil.copyfile(store, copy)
    with sqlite3.connect(copy) as db:
        (page,) = db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'plan_key' ORDER BY pageno LIMIT 1"
        ).fetchone()
        size = db.execute("PRAGMA page_size").fetchone()[0]
    raw = bytearray(copy.read_bytes())
    raw[(page - 1) * size + 1 : (page - 1) * size + 5] = b"\xff\xff\x00\x01"  # a free block where cells are
    copy.write_bytes(bytes(raw))
    code = main(["run", str(path), "--headless", "--store", str(copy)])
    err = capsys.readouterr().err
    assert code == 5, err
    assert f"{copy}: the store is damaged" in err and "Traceback" not in err


def test_a_snapshot_written_before_the_seal_is_read_rebuilt_and_sealed_by_the_next_writer(
    undamaged: tuple[Path, Path, str], tmp_path: Path
) -> None:
    path, store, ranking = undamaged
    copy = tmp_path / "d.sqlite"
    shutil.copyfile(store, copy)
    with sqlite3.connect(copy) as db:  # the description as an elotui before the seal wrote it
        meta = json.loads(db.execute("SELECT data FROM snapshot WHERE name = 'meta'").fetchone()[0])
        old = {k: v for k, v in meta.items() if k not in ("sums", "check")}
        db.execute("UPDATE snapshot SET data = ? WHERE name = 'meta'", (json.dumps(old).encode(),))
    assert _export(path, copy) == ranking
    with Store(copy) as s:
        assert s.plan_fingerprint() == meta["fingerprint"]  # the plan is not made again for want of a seal
        s.compact()
        assert "check" in (columns.description(s._db) or {})
    assert _export(path, copy) == ranking
