"""`elotui import arena` keeps the battles as columns and decodes JSON Lines a block at a time: on generated logs
and on logs with every odd battle the reading knows (lines of another shape, malformed ones, battles without a
question id, repeated and numeric ids, counts as numbers or tables of other keys, a missing count, names JSON must
escape, several files, gzip, a byte order mark, a JSON list), it writes byte for byte the files, the report and the
store snapshot the record-by-record import writes (tests/importers/arena_reference.py)."""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from elotui.cli import main
from elotui.errors import UserError
from elotui.importers import source_records
from elotui.importers.recorded_snapshot import recorded_columns
from elotui.store import Store
from elotui.tournament.model import load_tournament
from tests.importers import arena_reference
from tests.importers.fixtures import arena_battles


def _line(battle: Any) -> str:
    return json.dumps(battle) + "\n"


def odd_battles(seed: int) -> list[str]:
    """JSON Lines of battles of every shape the reading tells apart, among ordinary ones."""
    battles = arena_battles(n=300, seed=seed)
    odd: dict[int, Any] = {
        3: {"turn": True},  # another type: the general reading
        5: {"question_id": 7.5},
        7: {"question_id": None},
        9: {"question_id": ""},
        11: {"question_id": 0},
        13: {"question_id": 12345678901234567890},
        15: {"question_id": battles[2]["question_id"], "turn": 3, "language": "German"},  # a repeated id
        17: {"question_id": battles[2]["question_id"], "model_a": battles[2]["model_b"]},
        19: {"winner": "tie (bothbad)"},
        21: {"winner": "model_c"},  # malformed
        23: {"model_b": battles[23]["model_a"]},  # malformed
        25: {"model_a": 12},  # malformed
        27: {"model_a": ""},  # malformed
        29: {"language": ""},
        31: {"language": 5},
        33: {"turn": 2.0},
        35: {"turn": None},
        37: {"conv_metadata": "n/a"},  # not a table: no style counts
        39: {"conv_metadata": None},
        41: {"model_a": 'say "hi"\\ é \x7f', "model_b": "名前\t2"},  # names JSON escapes
        43: {"question_id": 'q"uoted\\\n'},
        45: {"question_id": 17},
        47: {"winner": ["model_a"]},  # unhashable: the records' reading fails the same way... left out below
    }
    del odd[47]
    for i, change in odd.items():
        battles[i].update(change)
    meta = [b["conv_metadata"] for b in battles]
    meta[50]["bold_count_a"] = {"**": 2, "note": "x"}  # non-numbers are not summed
    meta[52]["list_count_b"] = 3.0
    meta[54]["list_count_b"] = 4  # a plain count
    meta[56]["header_count_a"] = {"h1": 1, "h7": 2}  # a key FastChat does not write
    meta[58]["header_count_a"] = {"h1": 2**70}  # past int64
    meta[60]["sum_assistant_a_tokens"] = -3
    meta[62]["bold_count_b"] = {"**": 1.5, "__": 1.5}
    meta[64]["bold_count_b"] = True  # malformed
    del meta[66]["header_count_b"]  # malformed (its side a is kept: the records' reading does so)
    del meta[68]["header_count_a"]  # malformed
    meta[70]["header_count_a"] = {}
    meta[72]["list_count_a"] = {"ordered": 1, "ordered ": 2}
    meta[74]["list_count_a"]["ordered"] = 300  # wider than a byte
    meta[76]["header_count_b"]["h2"] = -5
    meta[78]["sum_assistant_b_tokens"] = 2**60  # a whole number past 2^50
    for b in battles[100:200]:  # repeated ids, numbered and named
        b["question_id"] = [b["question_id"], 4, "q00004"][hash(b["tstamp"]) % 3]
    lines = [_line(b) for b in battles]
    lines[80] = "{not json\n"
    lines[82] = "\n"
    lines[84] = "   \n"
    lines[86] = _line(battles[86]).replace("\n", "\r\n")
    lines[88] = " " + lines[88]
    lines[90] = '{"a": 1} {"b": 2}\n'
    lines[92] = '{"model_a": "x",\n'  # a battle over two lines: each line is malformed
    lines[93] = '"model_b": "y", "winner": "tie"}\n'
    lines[94] = "[]\n"
    lines[96] = "\xa0\n"
    return lines


def _write(path: Path, text: str, *, gz: bool = False, bom: bool = False) -> Path:
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path


def imported_both_ways(
    files: list[Path], out: Path, capsys: pytest.CaptureFixture[str], *, skip_bad: bool
) -> tuple[int, str]:
    """Import with the command and with the reference; assert the same files, report and snapshot. The command's
    exit code and stderr."""
    capsys.readouterr()
    code = main(["import", "arena", *map(str, files), "-o", str(out), *(["--skip-bad"] if skip_bad else [])])
    err = capsys.readouterr().err
    try:
        reference = arena_reference.import_files(files, skip_bad=skip_bad)
    except UserError as exc:
        assert code == 2 and err == f"{exc}\n"
        return code, err
    if not reference.verdicts:
        assert code == 2 and "no verdict to import" in err
        return code, err
    assert code == 0, err
    want = arena_reference.files_of(reference, files)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == want
    toml = out / "tournament.toml"
    summary = (
        f"wrote {toml}: {len(reference.contestants)} contestants, {len(reference.prompts):,} prompts, "
        f"{len(reference.verdicts):,} verdicts by {len(reference.judges)} judge(s) ({', '.join(want)})"
    )
    assert err.splitlines()[: len(reference.report.lines()) + 1] == [*reference.report.lines(), summary]
    plan, outcome = arena_reference.recorded_columns(reference)
    with Store.open_for(load_tournament(toml)) as store:
        got = store.verdict_columns()
    assert [got.prompts, got.contestants, got.judges, got.conditions] == [
        list(plan.books[b]) for b in ("prompts", "contestants", "judges", "conditions")
    ]
    for column in ("prompt", "first", "second", "judge", "condition"):
        assert np.array_equal(getattr(got, column), plan.columns[column]), column
    assert np.array_equal(got.sample, plan.sample) and np.array_equal(got.outcome, outcome)
    return code, err


@pytest.mark.parametrize(("seed", "n"), [(3, 1_000), (5, 4_000), (11, 12_000)])
def test_generated_logs_import_as_the_record_by_record_reading_does(
    seed: int, n: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 256 * 1024)  # several blocks
    src = _write(tmp_path / "battles.jsonl", "".join(map(_line, arena_battles(n=n, seed=seed))))
    imported_both_ways([src], tmp_path / "t", capsys, skip_bad=False)


def test_counts_given_as_plain_numbers_and_battles_without_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Older logs give each count as a number (a block read the slow way); some battles have no conv_metadata;
    question ids are numbers."""
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 20_000)
    battles = arena_battles(n=2_000, seed=13)
    for k, b in enumerate(battles):
        meta = b["conv_metadata"]
        if k < 1_000:
            for key, value in list(meta.items()):
                if isinstance(value, dict):
                    meta[key] = sum(value.values()) + (0.0 if k % 5 == 0 else 0)
        if k % 7 == 0:
            del b["conv_metadata"]
        if k % 3 == 0:
            b["question_id"] = k
    src = _write(tmp_path / "battles.jsonl", "".join(map(_line, battles)))
    imported_both_ways([src], tmp_path / "t", capsys, skip_bad=False)


@pytest.mark.parametrize("block_bytes", [1, 5_000, 16 * 1024**2])
def test_odd_battles_import_as_the_record_by_record_reading_does(
    block_bytes: int, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blocks of one line, of a few lines around each odd one, and one block: the odd lines are read line by line
    with the same messages and line numbers; with --skip-bad the same files."""
    monkeypatch.setattr(source_records, "BLOCK_BYTES", block_bytes)
    lines = odd_battles(seed=4)
    src = _write(tmp_path / "odd.jsonl", "".join(lines))
    code, err = imported_both_ways([src], tmp_path / "a", capsys, skip_bad=False)
    assert code == 2 and f"{src}:22: `winner` must be one of" in err
    code, err = imported_both_ways([src], tmp_path / "b", capsys, skip_bad=True)
    assert code == 0 and "skipped 1: malformed: conv_metadata.header_count_b must be a count" in err


def test_several_files_gzip_a_byte_order_mark_and_a_json_list(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Battle numbers (`battle-N` for a battle without an id) run on across files; a JSON list is read the general
    way; the same question ids in several files are one prompt."""
    monkeypatch.setattr(source_records, "BLOCK_BYTES", 20_000)
    odd = odd_battles(seed=9)
    plain = arena_battles(n=500, seed=12)
    for b in plain[::7]:
        del b["question_id"]
    listed = copy.deepcopy(plain[:120])
    files = [
        _write(tmp_path / "a.jsonl.gz", "".join(map(_line, plain)), gz=True),
        _write(tmp_path / "b.jsonl", "".join(odd), bom=True),
        _write(tmp_path / "c.json", json.dumps(listed, indent=1), bom=True),
        _write(tmp_path / "d.jsonl", "".join(map(_line, plain[300:])).rstrip("\n")),  # no newline at its end
    ]
    code, _ = imported_both_ways(files, tmp_path / "t", capsys, skip_bad=True)
    assert code == 0


def test_nothing_to_import_and_a_file_of_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(
        tmp_path / "bad.jsonl", "".join(_line({"model_a": "x", "model_b": "x", "winner": "tie"}) * 3)
    )
    code, err = imported_both_ways([bad], tmp_path / "a", capsys, skip_bad=True)
    assert code == 2 and "no verdict to import" in err
    mt = [{"model_1": "a", "model_2": "b", "g1_winner": "model_1", "question_id": 1}]
    other = _write(tmp_path / "mt.jsonl", "".join(map(_line, mt)))
    code, err = imported_both_ways([other], tmp_path / "b", capsys, skip_bad=False)
    assert code == 2 and "elotui import mt-bench" in err


def test_the_snapshot_of_a_record_by_record_import_is_the_same_from_its_codes(tmp_path: Path) -> None:
    """The snapshot made from an import's integer codes (a number per presentation) equals the one made with a
    unique over rows of codes, on a log with repeated presentations."""
    src = _write(tmp_path / "odd.jsonl", "".join(odd_battles(seed=6)))
    reference = arena_reference.import_files([src], skip_bad=True)
    plan, outcome = recorded_columns(reference.log_codes())
    want, want_outcome = arena_reference.recorded_columns(reference)
    assert plan.books == want.books and np.array_equal(outcome, want_outcome)
    assert np.array_equal(plan.sample, want.sample) and max(want.sample) >= 1
    assert all(np.array_equal(plan.columns[c], want.columns[c]) for c in want.columns)
