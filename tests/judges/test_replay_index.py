"""A replay log read ahead by a child process (elotui.judges.replay_index): the index is the one the process would make itself,
a malformed log gives the same error, a child that fails leaves the log parsed here, and a child is never left
running (a stop while waiting for it, or a run that did not need it, kills it)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from elotui.errors import UserError
from elotui.judges import replay_index as log_index
from elotui.runtime.checkpoints import Stopped, to_thread
from elotui.verdict_log import content_hash

ROWS = [
    {"prompt": p, "first": x, "second": y, "judge": j, "winner": w, "reasoning": r, "status": s}
    for p in ("q1", "q2")
    for x, y in (("a", "b"), ("b", "a"))
    for j in ("gpt-4", "claude")
    for w, r, s in (("first", "A is clearer — «ok»", "ok"), ("tie", None, "ok"), (None, "no JSON", "invalid"))
] + [{"prompt": "q1", "first": "a", "second": "b", "judge": "llama", "winner": None, "status": "error"}]


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> Any:
    log_index.forget()
    monkeypatch.setattr(log_index, "READ_AHEAD_MIN_BYTES", 0)  # every log is read ahead here
    yield
    log_index.forget()


def _log(tmp_path: Path, rows: list[dict[str, Any]] = ROWS, extra: str = "") -> tuple[Path, str]:
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) + extra, encoding="utf-8")
    return path, content_hash(path)


def _parsed_here_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    def here(path: Path) -> Any:
        raise AssertionError("parsed in this process")

    monkeypatch.setattr(log_index, "index_of", here)


def _fake_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """The child runs this shell script instead of Python."""
    script = tmp_path / "fake-python"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setattr(log_index.sys, "executable", str(script))


def test_a_log_read_ahead_is_indexed_by_the_child_exactly_as_it_would_be_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _log(tmp_path)
    expected = log_index.index_of(key[0])
    assert set(expected) == {"gpt-4", "claude", "llama"}
    assert expected["gpt-4"][("q1", "a", "b", "clean")] == [
        ("ok", "first", "A is clearer — «ok»", None),
        ("ok", "tie", None, None),
        ("invalid", None, "no JSON", None),
    ]
    with monkeypatch.context() as m, log_index.reading_ahead([key]):
        _parsed_here_fails(m)
        assert log_index.log_index(*key) == expected
    assert log_index.log_index(*key) is log_index.log_index(*key)  # kept for the next judge


def test_a_malformed_log_read_ahead_names_its_file_and_line_as_parsing_it_here_does(tmp_path: Path) -> None:
    key = _log(tmp_path, extra='{"prompt": "q3", "first": "a"\n')
    with pytest.raises(UserError) as here:
        log_index.index_of(key[0])
    with log_index.reading_ahead([key]), pytest.raises(UserError) as ahead:
        log_index.log_index(*key)
    assert str(ahead.value) == str(here.value) and f"log.jsonl:{len(ROWS) + 1}:" in str(ahead.value)


@pytest.mark.parametrize("body", ["exit 1", "echo not a pickle", "exec cat /dev/null"])
def test_a_child_that_fails_leaves_the_log_parsed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str
) -> None:
    key = _log(tmp_path)
    expected = log_index.index_of(key[0])
    _fake_python(tmp_path, monkeypatch, body)
    with log_index.reading_ahead([key]):
        assert log_index.log_index(*key) == expected


async def test_a_stop_while_waiting_for_the_child_stops_and_kills_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _log(tmp_path)
    _fake_python(tmp_path, monkeypatch, "exec sleep 30")  # a child that never answers
    stop = threading.Event()
    with log_index.reading_ahead([key]):
        child = log_index._ahead[key]
        stop.set()  # quit in the TUI
        with pytest.raises(Stopped):
            await to_thread(log_index.log_index, *key, stop=stop)
        assert child.proc.returncode is not None  # killed, not left to sleep


def test_children_whose_index_was_not_taken_are_killed_when_reading_ahead_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = _log(tmp_path)
    _fake_python(tmp_path, monkeypatch, "exec sleep 30")
    with log_index.reading_ahead([key, key]):  # one child per log
        assert len(log_index._ahead) == 1
        child = log_index._ahead[key]
    assert child.proc.returncode is not None and log_index._ahead == {}


def test_a_small_or_indexed_log_is_not_read_ahead(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = _log(tmp_path)
    monkeypatch.setattr(log_index, "READ_AHEAD_MIN_BYTES", key[0].stat().st_size + 1)
    with log_index.reading_ahead([key]):
        assert log_index._ahead == {}
    monkeypatch.setattr(log_index, "READ_AHEAD_MIN_BYTES", 0)
    log_index.log_index(*key)
    with log_index.reading_ahead([key]):
        assert log_index._ahead == {}
