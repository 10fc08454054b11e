"""Hostile files are bad input with a location, at once: absurd values, a FIFO, TOML nested 5,000 deep, a verdict
log line nested 100,000 deep, wrong-typed ids, a gzip of endless blank lines; a key sent over plain http is
warned about; an unchanged plan writes nothing."""

from __future__ import annotations

import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.verdict_log import read_log

BASE = (
    '[tournament]\nname = "t"\n\n[[contestants]]\nid = "a"\n[[contestants]]\nid = "b"\n\n[[prompts]]\nid = "p"\n'
    'text = "Q?"\nresponses = { a = "x", b = "y" }\n\n[[judges]]\nid = "j"\nprovider = "openai-compatible"\n'
    'model = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("[comparison]\nsamples = 1000000000", "comparison.samples"),
        ("[ranking]\npermutations = 1e12", "ranking.permutations"),
        ("max_concurrency = 100000000", "judges[0].max_concurrency"),
        ("timeout_s = 1e300", "judges[0].timeout_s"),
    ],
)
def test_absurd_values_are_refused_with_file_line_and_range(
    tmp_path: Path, capsys, line: str, key: str
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.toml"
    path.write_text(BASE + line + "\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        f"{path}:" in err and key in err and ("less than or equal" in err or "≤" in err or "integer" in err)
    ), err


def test_a_fifo_is_refused_at_once(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    fifo = tmp_path / "t.toml"
    os.mkfifo(fifo)
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(main(["validate", str(fifo)])), daemon=True)
    worker.start()
    worker.join(10)
    assert result == [2] and "not a regular file" in capsys.readouterr().err


def test_toml_nested_5000_deep_is_bad_input(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.toml"
    path.write_text(BASE + "x = " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    assert f"{path}:" in capsys.readouterr().err


def test_verdict_log_hostile_lines_name_file_and_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"deep\.jsonl:1: JSON nested too deeply"):
        list(read_log(deep))
    typed = tmp_path / "typed.jsonl"
    row = {"prompt": "p", "first": 5, "second": "b", "judge": "j", "winner": "first", "status": "ok"}
    typed.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"typed\.jsonl:1: `first` must be a non-empty string"):
        list(read_log(typed))
    blank = tmp_path / "blank.jsonl.gz"
    blank.write_bytes(gzip.compress(b"\n" * 2_000_000))
    with pytest.raises(UserError, match=r"blank\.jsonl\.gz:100000: 100,000 blank lines in a row"):
        list(read_log(blank))
    huge = tmp_path / "huge.jsonl"
    huge.write_text(json.dumps({**row, "first": "a", "sample": 10**30}) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"huge\.jsonl:1: `sample`"):
        list(read_log(huge))


def test_a_key_over_plain_http_to_another_host_is_warned_about(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.toml"
    remote = BASE.replace("http://127.0.0.1:9/v1", "http://example.invalid/v1") + 'api_key_env = "K"\n'
    path.write_text(remote, encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert "would travel unencrypted over http:// to example.invalid" in capsys.readouterr().err
    path.write_text(BASE + 'api_key_env = "K"\n', encoding="utf-8")  # loopback: fine
    assert main(["validate", str(path)]) == 0
    assert "unencrypted" not in capsys.readouterr().err


def test_an_unchanged_plan_writes_nothing(tmp_path: Path) -> None:
    from elotui.store import PlanRow, Store

    with Store(tmp_path / "s.sqlite") as store:
        rows = [PlanRow(i, "p", "a", "b", "j", "clean", i, f"k{i}") for i in range(50)]
        store.set_plan(rows)
        before = store._db.total_changes
        store.set_plan(rows)
        assert store._db.total_changes == before  # nothing written: a re-run needs no free disk for its plan
        store.set_plan([*rows[:49], rows[49]._replace(key="other")])
        snapshot = store._db.execute("SELECT COUNT(*) FROM snapshot").fetchone()[0]
        # only the changed row, and the columnar snapshot rewritten (elotui.store.columns)
        assert store._db.total_changes == before + 1 + 2 * snapshot
